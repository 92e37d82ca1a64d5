//! Ingest of text and markdown files: hash, skip unchanged, chunk, commit to Lance, index in BM25.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest, Sha256};

use crate::chunker::{self, ChunkText};
use crate::config::Config;
use crate::index::{Bm25Index, IndexError};
use crate::store::{chunk_id, ChunkRow, DocumentRow, LiveDoc, NewDocument, Store, StoreError};

/// Errors that abort an ingest run (single bad documents are counted, not raised).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A path given on the command line cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Embedding failed (model missing, mismatched store, encoder error).
    #[error(transparent)]
    Dense(#[from] crate::dense::DenseError),
    /// The analyses table cannot be read.
    #[error("analyses: {0}")]
    Analyses(String),
    /// The BEIR corpus is malformed.
    #[error("{path}:{line}: {message}")]
    Corpus {
        /// Corpus file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Result alias for ingest.
pub type Result<T> = std::result::Result<T, IngestError>;

/// Counts of one ingest run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IngestReport {
    /// New documents.
    pub added: usize,
    /// Documents that changed and got a new version.
    pub updated: usize,
    /// Documents skipped because their content hash is unchanged.
    pub unchanged: usize,
    /// Documents that could not be ingested.
    pub failed: usize,
    /// Documents gone from their source, tombstoned.
    pub tombstoned: usize,
    /// Chunks written.
    pub chunks: usize,
    /// One line per failed document.
    pub errors: Vec<String>,
}

/// A source document before versioning.
#[derive(Debug, Clone, Default)]
pub struct SourceDoc {
    /// Stable id.
    pub doc_id: String,
    /// Title.
    pub title: String,
    /// Source URI.
    pub source_uri: String,
    /// Text to chunk.
    pub text: String,
    /// Hex SHA-256 of the source bytes.
    pub sha256: String,
    /// Metadata JSON object.
    pub metadata: serde_json::Value,
    /// Blocks from an extractor plugin; when present they are chunked instead of `text`.
    pub blocks: Option<Vec<chunker::BlockText>>,
    /// Configured source the document comes from.
    pub source: Option<String>,
    /// Analysis id (overrides `ingest.analysis_id`).
    pub analysis_id: Option<String>,
}

/// Hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Writes source documents into the store and index in batches.
pub struct Ingestor<'a> {
    store: &'a mut Store,
    index: &'a mut Bm25Index,
    cfg: &'a Config,
    live: HashMap<String, LiveDoc>,
    pending: Vec<NewDocument>,
    pending_updates: Vec<String>,
    embedder: Option<std::sync::Arc<crate::dense::Embedder>>,
    embedded: usize,
    embed_secs: f64,
    /// Ids of the analyses that exist.
    analyses: std::collections::HashSet<String>,
    /// Running counts.
    pub report: IngestReport,
    progress: ProgressBar,
}

impl<'a> Ingestor<'a> {
    /// Starts an ingest run; `total` sizes the progress bar (hidden when `show_progress` is false).
    pub async fn new(
        store: &'a mut Store,
        index: &'a mut Bm25Index,
        cfg: &'a Config,
        total: u64,
        show_progress: bool,
    ) -> Result<Self> {
        let live = store.live_document_rows().await?;
        let analyses = crate::analyses::read_analyses(&cfg.data_dir)
            .await
            .map_err(|e| IngestError::Analyses(e.to_string()))?
            .into_iter()
            .map(|a| a.id)
            .collect();
        let embedder = crate::dense::embedder_for_ingest(store, cfg).await?;
        let progress = if show_progress {
            let pb = ProgressBar::new(total);
            pb.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} docs ({per_sec}) {msg}",
                )
                .expect("valid template"),
            );
            pb
        } else {
            ProgressBar::hidden()
        };
        Ok(Self {
            store,
            index,
            cfg,
            live,
            pending: Vec::new(),
            pending_updates: Vec::new(),
            embedder,
            embedded: 0,
            embed_secs: 0.0,
            analyses,
            report: IngestReport::default(),
            progress,
        })
    }

    /// Records a document that could not be read or parsed.
    pub fn fail(&mut self, what: &str, why: impl std::fmt::Display) {
        self.report.failed += 1;
        self.report.errors.push(format!("{what}: {why}"));
        tracing::warn!(document = what, error = %why, "skipped document");
        self.progress.inc(1);
    }

    /// Whether a document with this content hash is already the live version.
    pub fn is_unchanged(&self, doc_id: &str, sha256: &str) -> bool {
        self.live
            .get(doc_id)
            .is_some_and(|d| !d.deleted && d.sha256 == sha256)
    }

    /// Counts a document found unchanged without reading it further.
    pub fn note_unchanged(&mut self) {
        self.progress.inc(1);
        self.report.unchanged += 1;
    }

    /// Live (not tombstoned) documents of a source.
    pub fn live_ids_of_source(&self, source: &str) -> Vec<String> {
        let mut ids: Vec<String> = self
            .live
            .iter()
            .filter(|(_, d)| !d.deleted && d.source.as_deref() == Some(source))
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids
    }

    /// Tombstones a document gone from its source: a new version without chunks, marked
    /// deleted; its chunks leave the live tables and the index (older Lance versions keep them).
    pub async fn tombstone(&mut self, doc_id: &str) -> Result<()> {
        let Some(d) = self.live.get(doc_id).cloned() else {
            return Ok(());
        };
        if d.deleted {
            return Ok(());
        }
        let version = d.version + 1;
        let now = chrono::Utc::now().timestamp_micros();
        self.report.tombstoned += 1;
        self.pending_updates.push(doc_id.to_string());
        self.live.insert(
            doc_id.to_string(),
            LiveDoc {
                version,
                sha256: String::new(),
                source: d.source.clone(),
                deleted: true,
                analysis_id: None,
            },
        );
        self.pending.push(NewDocument {
            doc: DocumentRow {
                doc_id: doc_id.to_string(),
                version,
                title: String::new(),
                source_uri: String::new(),
                content_sha256: String::new(),
                ingested_at: now,
                analysis_id: None,
                metadata: serde_json::json!({"tombstone": true}).to_string(),
                source: d.source,
                deleted_at: Some(now),
            },
            chunks: Vec::new(),
        });
        if self.pending.len() >= self.cfg.ingest.batch_docs {
            self.flush().await?;
        }
        Ok(())
    }

    /// Whether an analysis exists (documents may name only existing analyses).
    pub fn analysis_exists(&self, id: &str) -> bool {
        self.analyses.contains(id)
    }

    /// Adds one source document; commits when a batch is full. A document naming an analysis
    /// that does not exist is refused (counted as failed, nothing of it written).
    pub async fn add(&mut self, src: SourceDoc) -> Result<()> {
        let analysis_id = src
            .analysis_id
            .clone()
            .or_else(|| self.cfg.ingest.analysis_id.clone())
            .filter(|a| !a.is_empty());
        if let Some(a) = analysis_id
            .as_deref()
            .filter(|a| !self.analyses.contains(*a))
        {
            let why = format!(
                "analysis \"{a}\" does not exist; import it first (mitra analyses import FILE)"
            );
            self.fail(&src.doc_id, why);
            return Ok(());
        }
        self.progress.inc(1);
        let version = match self.live.get(&src.doc_id) {
            Some(d) if !d.deleted && d.sha256 == src.sha256 => {
                self.report.unchanged += 1;
                return Ok(());
            }
            Some(d) => {
                if d.deleted {
                    self.report.added += 1;
                } else {
                    self.report.updated += 1;
                }
                self.pending_updates.push(src.doc_id.clone());
                d.version + 1
            }
            None => {
                self.report.added += 1;
                1
            }
        };
        self.live.insert(
            src.doc_id.clone(),
            LiveDoc {
                version,
                sha256: src.sha256.clone(),
                source: src.source.clone(),
                deleted: false,
                analysis_id: analysis_id.clone(),
            },
        );
        type Piece = (ChunkText, String, Option<i32>, Option<i32>);
        let pieces: Vec<Piece> = match &src.blocks {
            Some(blocks) => chunker::chunk_blocks(blocks, &self.cfg.chunking)
                .into_iter()
                .map(|c| (c.chunk, c.kind, c.page, c.page_end))
                .collect(),
            None => chunker::chunk(&src.text, &self.cfg.chunking)
                .into_iter()
                .map(|c| (c, "body".to_string(), None, None))
                .collect(),
        };
        let chunks: Vec<ChunkRow> = pieces
            .into_iter()
            .enumerate()
            .map(|(i, (c, kind, page, page_end))| ChunkRow {
                chunk_id: chunk_id(&src.doc_id, version, i as i32),
                doc_id: src.doc_id.clone(),
                version,
                ordinal: i as i32,
                heading: c.heading,
                text: c.text,
                page,
                page_end,
                kind,
                analysis_id: analysis_id.clone(),
                embedding: None,
            })
            .collect();
        self.report.chunks += chunks.len();
        self.pending.push(NewDocument {
            doc: DocumentRow {
                doc_id: src.doc_id,
                version,
                title: src.title,
                source_uri: src.source_uri,
                content_sha256: src.sha256,
                ingested_at: chrono::Utc::now().timestamp_micros(),
                analysis_id,
                metadata: src.metadata.to_string(),
                source: src.source,
                deleted_at: None,
            },
            chunks,
        });
        if self.pending.len() >= self.cfg.ingest.batch_docs {
            self.flush().await?;
        }
        Ok(())
    }

    /// Commits pending documents to Lance, then to the BM25 index.
    pub async fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut batch = std::mem::take(&mut self.pending);
        if let Some(e) = &self.embedder {
            let texts: Vec<String> = batch
                .iter()
                .flat_map(|d| d.chunks.iter().map(|c| c.text.clone()))
                .collect();
            let started = std::time::Instant::now();
            let n = texts.len();
            let mut vecs = e.embed_passages(texts).await?.into_iter();
            for c in batch.iter_mut().flat_map(|d| d.chunks.iter_mut()) {
                c.embedding = vecs.next();
            }
            self.embedded += n;
            self.embed_secs += started.elapsed().as_secs_f64();
        }
        let version = self.store.commit(&batch).await?;
        for doc_id in self.pending_updates.drain(..) {
            self.index.delete_doc(&doc_id)?;
        }
        for d in &batch {
            self.index.add_rows(&d.chunks)?;
        }
        self.index.commit(version)?;
        let rate = if self.embed_secs > 0.0 {
            format!(
                ", {:.0} chunks/s embedded",
                self.embedded as f64 / self.embed_secs
            )
        } else {
            String::new()
        };
        self.progress
            .set_message(format!("{} chunks committed{rate}", self.report.chunks));
        Ok(())
    }

    /// Flushes and returns the report.
    pub async fn finish(mut self) -> Result<IngestReport> {
        self.flush().await?;
        if self.embedder.is_some() {
            let ann = crate::dense::ensure_ann_index(self.store, &self.cfg.dense).await?;
            if ann.built || ann.optimized {
                tracing::info!(?ann, "vector index updated");
            }
        }
        self.progress.finish_and_clear();
        Ok(self.report)
    }
}

/// Lists the .txt and .md files under `paths`, with the doc id each gets
/// (path relative to the parent of the argument, `/`-separated).
pub fn list_files(paths: &[PathBuf]) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|source| IngestError::Io {
            path: p.clone(),
            source,
        })?;
        let base = p.parent().map(Path::to_path_buf).unwrap_or_default();
        if meta.is_file() {
            out.push((rel_id(&base, p), p.clone()));
        } else {
            walk(p, &base, &mut out)?;
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    Ok(out)
}

fn rel_id(base: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(base).unwrap_or(p);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect::<Vec<_>>()
        .join("/")
}

fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(|source| IngestError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in rd {
        let entry = entry.map_err(|source| IngestError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let ft = entry.file_type().map_err(|source| IngestError::Io {
            path: path.clone(),
            source,
        })?;
        if ft.is_dir() {
            if !entry.file_name().to_string_lossy().starts_with('.') {
                walk(&path, base, out)?;
            }
        } else if ft.is_file()
            && matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("txt" | "md" | "markdown")
            )
        {
            out.push((rel_id(base, &path), path));
        }
    }
    Ok(())
}

/// Reads one file into a source document.
pub fn read_file(
    doc_id: &str,
    path: &Path,
    max_bytes: u64,
) -> std::result::Result<SourceDoc, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > max_bytes {
        return Err(format!(
            "file is {size} bytes, above ingest.max_file_bytes = {max_bytes}"
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let sha256 = sha256_hex(&bytes);
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to()))?;
    let title = chunker::first_heading(&text).unwrap_or_else(|| {
        path.file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| doc_id.to_string())
    });
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let media = if path.extension().is_some_and(|e| e == "txt") {
        "text/plain"
    } else {
        "text/markdown"
    };
    Ok(SourceDoc {
        doc_id: doc_id.to_string(),
        title,
        source_uri: format!("file://{}", abs.display()),
        metadata: serde_json::json!({"bytes": size, "media_type": media}),
        text,
        sha256,
        ..Default::default()
    })
}

/// Ingests files and folders.
pub async fn ingest_paths(
    store: &mut Store,
    index: &mut Bm25Index,
    cfg: &Config,
    paths: &[PathBuf],
    show_progress: bool,
) -> Result<IngestReport> {
    let files = list_files(paths)?;
    let mut ing = Ingestor::new(store, index, cfg, files.len() as u64, show_progress).await?;
    for (doc_id, path) in files {
        match read_file(&doc_id, &path, cfg.ingest.max_file_bytes) {
            Ok(src) => ing.add(src).await?,
            Err(e) => ing.fail(&path.display().to_string(), e),
        }
    }
    let report = ing.finish().await?;
    compact(store, index, 16).await?;
    Ok(report)
}

/// Compacts the Lance tables with more than `min_fragments` fragments and records the new
/// chunks version in the index (ids are unchanged).
pub async fn compact(store: &mut Store, index: &mut Bm25Index, min_fragments: usize) -> Result<()> {
    let before = store.chunks_version();
    store.compact(min_fragments).await?;
    if store.chunks_version() != before {
        index.commit(store.chunks_version())?;
    }
    Ok(())
}
