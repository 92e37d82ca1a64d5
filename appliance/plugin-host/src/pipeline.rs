//! Plugin ingest of one source: crawl → fetch → extract → chunk → Lance + BM25, one `ingest_runs` row.
//!
//! Unchanged documents (same content hash) are skipped before extraction; changed ones become
//! new versions; documents no longer listed are tombstoned (only when the listing succeeded).
//! A document that fails to fetch or extract is counted and recorded; the run goes on.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use crate::{DocumentRef, Origin, PluginError, PluginHost, PluginInstance, RunGrant};
use mitra_store::chunker::BlockText;
use mitra_store::config::{Config, SourceConfig};
use mitra_store::index::Bm25Index;
use mitra_store::ingest::{self, sha256_hex, IngestError, Ingestor, SourceDoc};
use mitra_store::store::{RunRow, Store};

/// What one source run did.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceReport {
    /// The row written to `ingest_runs`.
    pub run: RunRow,
    /// Error lines (also in `run.errors`).
    pub errors: Vec<String>,
}

/// Errors that stop a run before it starts (bad source settings, unknown plugins).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A plugin could not be loaded or checked.
    #[error(transparent)]
    Plugin(#[from] PluginError),
    /// The store or index failed.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// The source's settings are invalid.
    #[error("source {source_name}: {message}")]
    Source {
        /// Source name.
        source_name: String,
        /// What is wrong.
        message: String,
    },
}

/// Runs a blocking plugin call off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, PluginError> + Send + 'static,
) -> Result<T, PluginError> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(PluginError::Host {
            plugin: "?".into(),
            message: format!("plugin call thread failed: {e}"),
        })
    })
}

/// The grant a source gives its crawler, and the settings JSON the crawler receives.
fn source_grant(
    host: &PluginHost,
    src: &SourceConfig,
) -> Result<(RunGrant, serde_json::Value), PipelineError> {
    let bad = |message: String| PipelineError::Source {
        source_name: src.name.clone(),
        message,
    };
    let info = host.registry().get(&src.crawler)?;
    let mut grant = RunGrant::default();
    let mut settings = serde_json::Map::new();
    for (k, v) in &src.settings {
        let json = serde_json::to_value(v).map_err(|e| bad(format!("settings.{k}: {e}")))?;
        settings.insert(k.clone(), json);
    }
    settings.insert("name".into(), src.name.clone().into());
    let caps = &info.manifest.capabilities;
    if caps.directory {
        let dir = PathBuf::from(&src.location);
        let dir = std::fs::canonicalize(&dir)
            .map_err(|e| bad(format!("location {}: {e}", src.location)))?;
        if !dir.is_dir() {
            return Err(bad(format!(
                "location {} is not a directory",
                dir.display()
            )));
        }
        grant.directory = Some(dir);
        settings.insert("location".into(), ".".into());
    } else {
        if !caps.http.is_empty() {
            let url = url::Url::parse(&src.location)
                .map_err(|e| bad(format!("location {:?} is not a URL: {e}", src.location)))?;
            grant.http.push(Origin::of_url(&url).map_err(bad)?);
        }
        settings.insert("location".into(), src.location.clone().into());
    }
    Ok((grant, serde_json::Value::Object(settings)))
}

/// The plugins of one run and what they have been used for.
struct Plugins<'h> {
    host: &'h PluginHost,
    crawler: Arc<PluginInstance>,
    /// The source's settings JSON handed to the crawler.
    settings: String,
    /// The extractor the source names, if it names one.
    fixed: Option<Arc<PluginInstance>>,
    /// Extractors chosen by media type, loaded once per run.
    by_name: HashMap<String, Arc<PluginInstance>>,
    /// `name@version` of the extractors used.
    used: BTreeSet<String>,
}

/// What reading one listed document gave.
enum Prepared {
    /// Same content hash as the live version: nothing to do.
    Unchanged,
    /// A new or changed document, and lines on pages its extractor skipped.
    Doc(Box<SourceDoc>, Vec<String>),
}

impl Plugins<'_> {
    /// The extractor for a media type (the source's own, or the one declaring the type).
    fn extractor_for(&mut self, media_type: &str) -> Result<Arc<PluginInstance>, String> {
        if let Some(x) = &self.fixed {
            return Ok(x.clone());
        }
        let info = self
            .host
            .extractor_for(media_type)
            .ok_or_else(|| format!("no extractor handles {media_type}"))?;
        let name = info.manifest.name.clone();
        if let Some(x) = self.by_name.get(&name) {
            return Ok(x.clone());
        }
        let x = Arc::new(self.host.extractor(&name).map_err(|e| e.to_string())?);
        self.by_name.insert(name, x.clone());
        Ok(x)
    }

    /// Fetches, hashes and (unless unchanged) extracts one document.
    async fn prepare(
        &mut self,
        src: &SourceConfig,
        d: &DocumentRef,
        doc_id: &str,
        max_bytes: u64,
        unchanged: impl Fn(&str) -> bool,
    ) -> Result<Prepared, String> {
        let fetched = {
            let c = self.crawler.clone();
            let (s, r) = (self.settings.clone(), d.clone());
            blocking(move || c.fetch_document(&s, &r))
                .await
                .map_err(|e| e.to_string())?
        };
        if fetched.bytes.len() as u64 > max_bytes {
            return Err(format!(
                "{} bytes, above ingest.max_file_bytes = {max_bytes}",
                fetched.bytes.len()
            ));
        }
        let sha = sha256_hex(&fetched.bytes);
        if unchanged(&sha) {
            return Ok(Prepared::Unchanged);
        }
        let media_type = d
            .media_type
            .clone()
            .unwrap_or_else(|| fetched.media_type.clone());
        let extractor = self.extractor_for(&media_type)?;
        self.used
            .insert(format!("{}@{}", extractor.name(), extractor.version()));
        let size = fetched.bytes.len();
        let extraction = {
            let x = extractor.clone();
            let mt = media_type.clone();
            blocking(move || x.extract(&fetched.bytes, &mt))
                .await
                .map_err(|e| e.to_string())?
        };
        let notes: Vec<String> = extraction
            .skipped
            .iter()
            .map(|s| format!("{doc_id}: page {} skipped: {}", s.page, s.reason))
            .collect();
        let skipped: Vec<serde_json::Value> = extraction
            .skipped
            .iter()
            .map(|s| serde_json::json!({"page": s.page, "reason": s.reason}))
            .collect();
        let blocks = block_texts(extraction.blocks);
        let meta: BTreeMap<String, String> = d.metadata.iter().cloned().collect();
        // The most specific wins: the document's own metadata, then the source's analysis.
        let analysis_id = meta
            .get("analysis-id")
            .or_else(|| meta.get("analysis_id"))
            .cloned()
            .or_else(|| src.analysis_id.clone());
        let text = blocks
            .iter()
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        let doc = SourceDoc {
            doc_id: doc_id.to_string(),
            title: title_of(d, &blocks),
            source_uri: d.uri.clone(),
            text,
            sha256: sha,
            metadata: serde_json::json!({
                "media_type": media_type,
                "bytes": size,
                "modified_ms": d.modified_ms,
                "crawler": meta,
                "extractor": format!("{}@{}", extractor.name(), extractor.version()),
                "skipped_pages": skipped,
            }),
            blocks: Some(blocks),
            source: Some(src.name.clone()),
            analysis_id,
        };
        Ok(Prepared::Doc(Box::new(doc), notes))
    }
}

/// The crawler's title, else the first heading, else the file name without extension.
/// An extractor's blocks as the chunker reads them.
pub fn block_texts(blocks: Vec<crate::Block>) -> Vec<BlockText> {
    blocks
        .into_iter()
        .map(|b| BlockText {
            kind: b.kind.as_str().to_string(),
            page: b.page.map(|p| p.min(i32::MAX as u32) as i32),
            text: b.text,
            level: b.level,
        })
        .collect()
}

/// The media type of a local file, from its extension (what the dir crawler reports).
pub fn media_type_of(path: &std::path::Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "md" | "markdown" => "text/markdown",
        "html" | "htm" | "xhtml" => "text/html",
        _ => "text/plain",
    }
}

fn title_of(d: &DocumentRef, blocks: &[BlockText]) -> String {
    if !d.title.trim().is_empty() {
        return d.title.clone();
    }
    blocks
        .iter()
        .find(|b| b.kind == "heading")
        .map(|b| b.text.clone())
        .unwrap_or_else(|| {
            let file = d.id.rsplit('/').next().unwrap_or(&d.id);
            file.rsplit_once('.')
                .map(|(stem, _)| stem)
                .unwrap_or(file)
                .to_string()
        })
}

/// Ingests one source through its crawler and extractors.
pub async fn ingest_source(
    store: &mut Store,
    index: &mut Bm25Index,
    cfg: &Config,
    host: &PluginHost,
    src: &SourceConfig,
    show_progress: bool,
) -> Result<SourceReport, PipelineError> {
    let started = chrono::Utc::now();
    let (grant, settings) = source_grant(host, src)?;
    let mut plugins = Plugins {
        host,
        crawler: Arc::new(host.crawler(&src.crawler, &grant)?),
        settings: settings.to_string(),
        fixed: match &src.extractor {
            Some(name) if name != "auto" => Some(Arc::new(host.extractor(name)?)),
            _ => None,
        },
        by_name: HashMap::new(),
        used: BTreeSet::new(),
    };
    let mut errors: Vec<String> = Vec::new();
    let listing = {
        let c = plugins.crawler.clone();
        let s = plugins.settings.clone();
        blocking(move || c.list_documents(&s)).await
    };
    let mut run = RunRow {
        run_id: format!("{}@{}", src.name, started.to_rfc3339()),
        source: src.name.clone(),
        location: src.location.clone(),
        crawler: format!("{}@{}", plugins.crawler.name(), plugins.crawler.version()),
        started_at: started.timestamp_micros(),
        ..Default::default()
    };
    let docs = match listing {
        Ok(d) => d,
        Err(e) => {
            tracing::error!(source = %src.name, "listing failed: {e}");
            errors.push(format!("listing: {e}"));
            run.status = "failed".into();
            return finish_run(store, run, errors, &plugins.used).await;
        }
    };
    // One entry per id (a crawler listing an id twice gets the first).
    let mut seen = BTreeSet::new();
    let docs: Vec<DocumentRef> = docs
        .into_iter()
        .filter(|d| seen.insert(d.id.clone()))
        .collect();
    run.listed = docs.len() as i64;

    let mut ing = Ingestor::new(store, index, cfg, docs.len() as u64, show_progress).await?;
    let mut listed_ids = BTreeSet::new();
    for d in docs {
        let doc_id = format!("{}/{}", src.name, d.id);
        listed_ids.insert(doc_id.clone());
        let prepared = plugins
            .prepare(src, &d, &doc_id, cfg.ingest.max_file_bytes, |sha| {
                ing.is_unchanged(&doc_id, sha)
            })
            .await;
        match prepared {
            Ok(Prepared::Unchanged) => ing.note_unchanged(),
            Ok(Prepared::Doc(doc, notes)) => {
                errors.extend(notes);
                ing.add(*doc).await?;
            }
            Err(why) => {
                errors.push(format!("{doc_id}: {why}"));
                ing.fail(&doc_id, why);
            }
        }
    }
    for gone in ing.live_ids_of_source(&src.name) {
        if !listed_ids.contains(&gone) {
            ing.tombstone(&gone).await?;
        }
    }
    let report = ing.finish().await?;
    ingest::compact(store, index, 16).await?;
    run.added = report.added as i64;
    run.updated = report.updated as i64;
    run.unchanged = report.unchanged as i64;
    run.tombstoned = report.tombstoned as i64;
    run.failed = report.failed as i64;
    run.chunks = report.chunks as i64;
    run.status = if report.failed > 0 { "partial" } else { "ok" }.into();
    finish_run(store, run, errors, &plugins.used).await
}

async fn finish_run(
    store: &mut Store,
    mut run: RunRow,
    errors: Vec<String>,
    used: &BTreeSet<String>,
) -> Result<SourceReport, PipelineError> {
    run.extractors = used.iter().cloned().collect::<Vec<_>>().join(",");
    run.finished_at = chrono::Utc::now().timestamp_micros();
    run.errors = serde_json::to_string(&errors).expect("strings serialise");
    run.documents_version = store.documents().version().version as i64;
    run.chunks_version = store.chunks_version() as i64;
    store
        .append_run(&run)
        .await
        .map_err(|e| PipelineError::Ingest(e.into()))?;
    Ok(SourceReport { run, errors })
}
