//! The wasmtime host: one engine per process, a fresh sandboxed store per call, typed errors.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Engine, ResourceLimiter, Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use super::bindings::http::{Host as HttpHost, HttpError, Request, Response};
use super::bindings::{self, crawler, extractor, DocumentRef, Extraction, Fetched};
use super::grants::{effective, Effective, RunGrant};
use super::host_http::{HttpCtx, SecretValue};
pub use super::limits::Limits;
use super::manifest::World;
use super::registry::{PluginInfo, Registry};
use super::PluginError;
use mitra_store::config::Config;

/// Epoch ticks per second (the deadline granularity is 1 / this).
const TICKS_PER_SEC: u64 = 100;
/// Bytes of guest stderr kept (panic messages end up there).
const STDERR_CAP: usize = 64 * 1024;
/// Log lines one call may write before the host drops the rest.
const LOG_LINES_PER_CALL: usize = 1000;

struct Shared {
    engine: Engine,
    crawler_linker: Linker<HostState>,
    extractor_linker: Linker<HostState>,
    compiled: Mutex<HashMap<String, Component>>,
}

/// The process-wide engine (epoch interruption driven by one ticker thread) and linkers.
fn shared() -> Result<&'static Shared, String> {
    static SHARED: OnceLock<Result<Shared, String>> = OnceLock::new();
    SHARED
        .get_or_init(|| {
            let mut c = wasmtime::Config::new();
            c.wasm_component_model(true);
            c.epoch_interruption(true);
            c.max_wasm_stack(1 << 20);
            c.cranelift_opt_level(wasmtime::OptLevel::Speed);
            let engine = Engine::new(&c).map_err(|e| format!("wasmtime engine: {e}"))?;
            let ticker = engine.weak();
            std::thread::Builder::new()
                .name("mitra-plugin-epoch".into())
                .spawn(move || loop {
                    std::thread::sleep(Duration::from_millis(1000 / TICKS_PER_SEC));
                    match ticker.upgrade() {
                        Some(e) => e.increment_epoch(),
                        None => return,
                    }
                })
                .map_err(|e| format!("epoch thread: {e}"))?;
            let mut crawler_linker = Linker::new(&engine);
            let mut extractor_linker = Linker::new(&engine);
            let link = |r: wasmtime::Result<()>| r.map_err(|e| format!("linker: {e}"));
            link(wasmtime_wasi::p2::add_to_linker_sync(&mut crawler_linker))?;
            link(wasmtime_wasi::p2::add_to_linker_sync(&mut extractor_linker))?;
            link(crawler::Crawler::add_to_linker::<
                HostState,
                HasSelf<HostState>,
            >(&mut crawler_linker, |s| s))?;
            link(extractor::Extractor::add_to_linker::<
                HostState,
                HasSelf<HostState>,
            >(&mut extractor_linker, |s| s))?;
            Ok(Shared {
                engine,
                crawler_linker,
                extractor_linker,
                compiled: Mutex::new(HashMap::new()),
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Per-call state of one sandboxed instance.
pub(super) struct HostState {
    pub(super) plugin: Arc<str>,
    wasi: WasiCtx,
    table: ResourceTable,
    stderr: MemoryOutputPipe,
    memory_cap: usize,
    memory_hit: bool,
    log_lines: usize,
    /// Requests the grants refused during this call.
    pub(super) violations: Vec<String>,
    pub(super) caps: Arc<Effective>,
    pub(super) limits: Arc<Limits>,
    pub(super) http: Arc<HttpCtx>,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl ResourceLimiter for HostState {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_cap {
            self.memory_hit = true;
            return Err(wasmtime::Error::msg("memory cap reached"));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20)
    }
}

impl bindings::log::Host for HostState {
    fn log(&mut self, level: bindings::log::Level, message: String) {
        use bindings::log::Level;
        self.log_lines += 1;
        if self.log_lines > LOG_LINES_PER_CALL {
            return;
        }
        let mut msg = message;
        if msg.len() > 4096 {
            let mut cut = 4096;
            while !msg.is_char_boundary(cut) {
                cut -= 1;
            }
            msg.truncate(cut);
        }
        let plugin = &*self.plugin;
        match level {
            Level::Trace => tracing::trace!(plugin, "{msg}"),
            Level::Debug => tracing::debug!(plugin, "{msg}"),
            Level::Info => tracing::info!(plugin, "{msg}"),
            Level::Warn => tracing::warn!(plugin, "{msg}"),
            Level::Error => tracing::error!(plugin, "{msg}"),
        }
    }
}

impl bindings::clock::Host for HostState {
    fn now_ms(&mut self) -> i64 {
        chrono::Utc::now().timestamp_millis()
    }
}

/// The plugins of this appliance and the engine that runs them.
pub struct PluginHost {
    registry: Registry,
    cfg: Config,
    limits: Arc<Limits>,
}

impl PluginHost {
    /// Loads the built-in and site plugins (`plugins.dir`) and checks them.
    pub fn new(cfg: &Config) -> Result<Self, PluginError> {
        Ok(PluginHost {
            registry: Registry::load(cfg)?,
            cfg: cfg.clone(),
            limits: Arc::new(Limits::from_config(&cfg.plugins)),
        })
    }

    /// The plugins known to this host.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// What a plugin would get, without a run grant.
    pub fn effective(&self, info: &PluginInfo) -> Result<Effective, PluginError> {
        self.effective_with(info, &RunGrant::default())
    }

    fn effective_with(&self, info: &PluginInfo, run: &RunGrant) -> Result<Effective, PluginError> {
        effective(&info.manifest, &self.cfg, run).map_err(|message| PluginError::Manifest {
            plugin: info.manifest.name.clone(),
            message,
        })
    }

    /// A crawler, with the grants of the configuration plus `run`.
    pub fn crawler(&self, name: &str, run: &RunGrant) -> Result<PluginInstance, PluginError> {
        self.instance(name, World::Crawler, run)
    }

    /// An extractor.
    pub fn extractor(&self, name: &str) -> Result<PluginInstance, PluginError> {
        self.instance(name, World::Extractor, &RunGrant::default())
    }

    /// The built-in or site extractor for a media type, if any declares it.
    pub fn extractor_for(&self, media_type: &str) -> Option<&PluginInfo> {
        let mt = media_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        self.registry
            .all()
            .find(|p| p.manifest.world == World::Extractor && p.manifest.media_types.contains(&mt))
    }

    fn instance(
        &self,
        name: &str,
        world: World,
        run: &RunGrant,
    ) -> Result<PluginInstance, PluginError> {
        let info = self.registry.get(name)?;
        if info.manifest.world != world {
            return Err(PluginError::WrongWorld {
                plugin: name.into(),
                actual: info.manifest.world.to_string(),
                wanted: world.to_string(),
            });
        }
        let caps = self.effective_with(info, run)?;
        let mut secrets = HashMap::new();
        for s in &caps.secrets {
            let sc = &self.cfg.secrets[s];
            secrets.insert(
                s.clone(),
                SecretValue::resolve(s, sc).map_err(|message| PluginError::Host {
                    plugin: name.into(),
                    message,
                })?,
            );
        }
        let sh = shared().map_err(|message| PluginError::Host {
            plugin: name.into(),
            message,
        })?;
        let component = compile(sh, info)?;
        let linker = match world {
            World::Crawler => &sh.crawler_linker,
            World::Extractor => &sh.extractor_linker,
        };
        let invalid = |e: wasmtime::Error| PluginError::Invalid {
            plugin: name.into(),
            world: world.to_string(),
            message: format!("{e:#}"),
        };
        let pre = linker.instantiate_pre(&component).map_err(invalid)?;
        let pre = match world {
            World::Crawler => Pre::Crawler(crawler::CrawlerPre::new(pre).map_err(invalid)?),
            World::Extractor => Pre::Extractor(extractor::ExtractorPre::new(pre).map_err(invalid)?),
        };
        let caps = Arc::new(caps);
        Ok(PluginInstance {
            name: name.into(),
            version: info.manifest.version.clone(),
            pre,
            http: Arc::new(HttpCtx::new(caps.clone(), secrets, self.limits.clone())),
            caps,
            limits: self.limits.clone(),
        })
    }
}

/// Compiles a plugin once per process (cached by its sha256).
fn compile(sh: &Shared, info: &PluginInfo) -> Result<Component, PluginError> {
    let name = &info.manifest.name;
    if let Some(c) = sh.compiled.lock().expect("cache lock").get(&info.sha256) {
        return Ok(c.clone());
    }
    let started = std::time::Instant::now();
    let c = Component::from_binary(&sh.engine, &info.wasm).map_err(|e| PluginError::Invalid {
        plugin: name.clone(),
        world: info.manifest.world.to_string(),
        message: format!("{e:#}"),
    })?;
    tracing::debug!(plugin = %name, ms = started.elapsed().as_millis() as u64, "compiled plugin");
    sh.compiled
        .lock()
        .expect("cache lock")
        .insert(info.sha256.clone(), c.clone());
    Ok(c)
}

enum Pre {
    Crawler(crawler::CrawlerPre<HostState>),
    Extractor(extractor::ExtractorPre<HostState>),
}

/// A checked, linked plugin with its effective capabilities; every call gets a fresh instance.
pub struct PluginInstance {
    name: Arc<str>,
    version: String,
    pre: Pre,
    caps: Arc<Effective>,
    limits: Arc<Limits>,
    http: Arc<HttpCtx>,
}

impl PluginInstance {
    /// Plugin name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Plugin version (recorded in `ingest_runs`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// What the plugin may use.
    pub fn capabilities(&self) -> &Effective {
        &self.caps
    }

    fn store(&self) -> Store<HostState> {
        let sh = shared().expect("engine exists once a plugin is linked");
        let stderr = MemoryOutputPipe::new(STDERR_CAP);
        // Nothing is granted through WASI: no preopens, no environment, no sockets, no stdin.
        let wasi = WasiCtxBuilder::new()
            .stderr(stderr.clone())
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .build();
        let state = HostState {
            plugin: self.name.clone(),
            wasi,
            table: ResourceTable::new(),
            stderr,
            memory_cap: self.limits.memory_bytes,
            memory_hit: false,
            log_lines: 0,
            violations: Vec::new(),
            caps: self.caps.clone(),
            limits: self.limits.clone(),
            http: self.http.clone(),
        };
        let mut store = Store::new(&sh.engine, state);
        store.limiter(|s| s as &mut dyn ResourceLimiter);
        let ticks = (self.limits.timeout.as_millis() as u64 * TICKS_PER_SEC).div_ceil(1000);
        store.set_epoch_deadline(ticks.max(1));
        store.epoch_deadline_trap();
        store
    }

    fn finish<T>(
        &self,
        call: &str,
        store: Store<HostState>,
        result: wasmtime::Result<Result<T, String>>,
        size: impl Fn(&T) -> u64,
    ) -> Result<T, PluginError> {
        let state = store.into_data();
        let plugin = self.name.to_string();
        let call = call.to_string();
        let returned = result.map_err(|e| classify(&plugin, &call, &state, &self.limits, e))?;
        // A refused request fails the call whatever the guest made of the refusal.
        if let Some(what) = state.violations.first() {
            return Err(PluginError::Denied {
                plugin,
                call,
                what: what.clone(),
            });
        }
        let value = returned.map_err(|message| PluginError::Failed {
            plugin: plugin.clone(),
            call: call.clone(),
            message,
        })?;
        let bytes = size(&value);
        if bytes > self.limits.max_output {
            return Err(PluginError::OutputTooLarge {
                plugin,
                call,
                bytes,
                limit: self.limits.max_output,
            });
        }
        Ok(value)
    }

    fn crawler_pre(&self) -> Result<&crawler::CrawlerPre<HostState>, PluginError> {
        match &self.pre {
            Pre::Crawler(p) => Ok(p),
            Pre::Extractor(_) => Err(PluginError::WrongWorld {
                plugin: self.name.to_string(),
                actual: "extractor".into(),
                wanted: "crawler".into(),
            }),
        }
    }

    /// Lists the documents of a source (`source` is the settings JSON).
    pub fn list_documents(&self, source: &str) -> Result<Vec<DocumentRef>, PluginError> {
        let pre = self.crawler_pre()?;
        let mut store = self.store();
        let result = pre.instantiate(&mut store).and_then(|inst| {
            inst.mitra_plugin_crawl()
                .call_list_documents(&mut store, source)
        });
        self.finish("list-documents", store, result, |docs| {
            docs.iter()
                .map(|d| {
                    (d.id.len() + d.uri.len() + d.title.len() + 64) as u64
                        + d.metadata
                            .iter()
                            .map(|(k, v)| (k.len() + v.len()) as u64)
                            .sum::<u64>()
                })
                .sum()
        })
    }

    /// Fetches one listed document.
    pub fn fetch_document(&self, source: &str, doc: &DocumentRef) -> Result<Fetched, PluginError> {
        let pre = self.crawler_pre()?;
        let mut store = self.store();
        let result = pre.instantiate(&mut store).and_then(|inst| {
            inst.mitra_plugin_crawl()
                .call_fetch_document(&mut store, source, doc)
        });
        self.finish("fetch-document", store, result, |f| f.bytes.len() as u64)
    }

    /// Extracts the blocks of one document.
    pub fn extract(&self, bytes: &[u8], media_type: &str) -> Result<Extraction, PluginError> {
        let Pre::Extractor(pre) = &self.pre else {
            return Err(PluginError::WrongWorld {
                plugin: self.name.to_string(),
                actual: "crawler".into(),
                wanted: "extractor".into(),
            });
        };
        let mut store = self.store();
        let result = pre.instantiate(&mut store).and_then(|inst| {
            inst.mitra_plugin_extract()
                .call_extract(&mut store, bytes, media_type)
        });
        self.finish("extract", store, result, |x| {
            x.blocks
                .iter()
                .map(|b| b.text.len() as u64 + 16)
                .chain(x.skipped.iter().map(|s| s.reason.len() as u64 + 8))
                .sum()
        })
    }
}

fn classify(
    plugin: &str,
    call: &str,
    state: &HostState,
    limits: &Limits,
    e: wasmtime::Error,
) -> PluginError {
    let (plugin, call) = (plugin.to_string(), call.to_string());
    if state.memory_hit {
        return PluginError::MemoryLimit {
            plugin,
            call,
            limit_mb: (limits.memory_bytes >> 20) as u64,
        };
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => {
            return PluginError::Timeout {
                plugin,
                call,
                ms: limits.timeout.as_millis() as u64,
            }
        }
        Some(Trap::StackOverflow) => return PluginError::StackOverflow { plugin, call },
        _ => {}
    }
    if let Some(what) = state.violations.first() {
        return PluginError::Denied {
            plugin,
            call,
            what: what.clone(),
        };
    }
    let stderr = state.stderr.contents();
    let tail = String::from_utf8_lossy(&stderr);
    let last = tail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!(" ({})", l.trim()))
        .unwrap_or_default();
    let trap = match e.downcast_ref::<Trap>() {
        Some(t) => t.to_string(),
        None => e.to_string(),
    };
    PluginError::Trap {
        plugin,
        call,
        message: format!("{trap}{last}"),
    }
}

/// The HTTP interface: the host fetches for the guest; a refused request is a violation of this call.
impl HttpHost for HostState {
    fn fetch(&mut self, req: Request) -> Result<Response, HttpError> {
        let http = self.http.clone();
        match http.fetch(req) {
            Err(HttpError::Denied(m)) => Err(HttpError::Denied(self.deny(m))),
            other => other,
        }
    }
}
