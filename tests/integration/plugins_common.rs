//! Shared helpers of the plugin tests: a plugin directory of wrapped .wat guests, a local HTTP server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mitra::config::Config;

/// The WIT package directory.
pub fn wit_dir() -> PathBuf {
    super::common::repo_root().join("plugins/wit")
}

/// Wraps a hand-written core module (.wat under plugins/testdata) as a component of `world`.
pub fn component_from_wat(file: &str, world: &str) -> Vec<u8> {
    let path = super::common::repo_root()
        .join("plugins/testdata")
        .join(file);
    let mut module = wat::parse_file(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut resolve = wit_parser::Resolve::default();
    let (pkg, _) = resolve.push_dir(wit_dir()).expect("WIT parses");
    let world_id = resolve.select_world(&[pkg], Some(world)).expect("world");
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world_id,
        wit_component::StringEncoding::UTF8,
    )
    .expect("embed metadata");
    wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("module")
        .validate(true)
        .encode()
        .unwrap_or_else(|e| panic!("{file}: {e:#}"))
}

/// Writes `name.wasm` + `name.toml` into a plugin directory.
pub fn install(dir: &Path, name: &str, world: &str, api: &str, wasm: &[u8], caps: &str) {
    std::fs::write(dir.join(format!("{name}.wasm")), wasm).unwrap();
    std::fs::write(
        dir.join(format!("{name}.toml")),
        format!(
            "name = \"{name}\"\nversion = \"0.0.1\"\napi = \"{api}\"\nworld = \"{world}\"\n\n[capabilities]\n{caps}\n"
        ),
    )
    .unwrap();
}

/// A test configuration with tight plugin limits and a site plugin directory.
pub fn plugin_config(data: &Path, plugin_dir: Option<&Path>) -> Config {
    let mut cfg = super::common::config(data);
    cfg.plugins.dir = plugin_dir.map(Path::to_path_buf);
    cfg.plugins.memory_mb = 64;
    cfg.plugins.timeout_ms = 2_000;
    cfg.plugins.max_output_mb = 4;
    cfg
}

/// One request seen by the test server.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Path and query.
    pub path: String,
    /// Lower-cased header names with values.
    pub headers: Vec<(String, String)>,
}

/// What the handler answers: status, headers, body.
pub type Reply = (u16, Vec<(String, String)>, Vec<u8>);

/// A minimal HTTP/1.1 server on 127.0.0.1 (one thread per connection); records every request.
pub struct TestServer {
    /// Its address.
    pub addr: SocketAddr,
    /// Requests seen so far.
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl TestServer {
    /// Starts a server answering with `handler`.
    pub fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler = Arc::new(handler);
        let seen2 = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let handler = handler.clone();
                let seen = seen2.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let mut headers = Vec::new();
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                            break;
                        }
                        if let Some((k, v)) = h.split_once(':') {
                            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
                        }
                    }
                    let req = Seen { path, headers };
                    seen.lock().unwrap().push(req.clone());
                    let (status, hdrs, body) = handler(&req);
                    let mut out = format!(
                        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                        body.len()
                    );
                    for (k, v) in hdrs {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str("\r\n");
                    let _ = stream.write_all(out.as_bytes());
                    let _ = stream.write_all(&body);
                    let _ = stream.flush();
                    let mut rest = [0u8; 1];
                    let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(50)));
                    let _ = stream.read(&mut rest);
                });
            }
        });
        TestServer { addr, seen }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// A small deterministic generator (xorshift), shared with the plugins' own tests.
pub use pdfgen::Rng;
