//! The process-wide encoder: loaded once from a local model directory, run on the worker thread.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use mitra_embed::{Encoder, EncoderInfo, ModelDir};

use super::{DenseError, Worker};
use crate::config::EmbeddingConfig;
use crate::models;
use crate::store::{EmbeddingMeta, Store};

/// Passage and query encoders (the same model unless a separate query encoder is configured,
/// as for DPR), owned by one worker thread.
pub struct Embedder {
    worker: Worker,
    passage: Arc<Encoder>,
    query: Arc<Encoder>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("info", self.passage.info())
            .finish()
    }
}

fn load_one(dir: &std::path::Path, id: &str, cfg: &EmbeddingConfig) -> Result<Encoder, DenseError> {
    let device = mitra_embed::parse_device(&cfg.device)?;
    let md = ModelDir::open(dir)?;
    let kernel = mitra_embed::BertKernel::parse(&cfg.kernel).unwrap_or_default();
    Ok(Encoder::load_with(&md, id, device, kernel)?.with_batch_size(cfg.batch_size))
}

impl Embedder {
    /// The passage model directory the configuration names (registry model, or `model_dir`).
    pub fn model_dir(cfg: &EmbeddingConfig) -> Result<PathBuf, DenseError> {
        match &cfg.model_dir {
            Some(d) => Ok(d.clone()),
            None => Ok(models::locate(&cfg.model, &cfg.models_dir)?),
        }
    }

    /// Loads the configured encoders. Fails with a clear error naming `mitra models fetch`
    /// when a registered model is absent; never downloads.
    pub fn load(cfg: &EmbeddingConfig) -> Result<Self, DenseError> {
        let started = Instant::now();
        let passage = load_one(&Self::model_dir(cfg)?, &cfg.model, cfg)?;
        let passage = Arc::new(passage);
        let query = match &cfg.query_model_dir {
            Some(q) => {
                let q = load_one(q, &cfg.model, cfg)?;
                if q.info().dim != passage.info().dim {
                    return Err(DenseError::Unavailable(format!(
                        "query encoder gives {}-d vectors, passage encoder {}-d",
                        q.info().dim,
                        passage.info().dim
                    )));
                }
                Arc::new(q)
            }
            None => passage.clone(),
        };
        tracing::info!(model = %cfg.model, dim = passage.info().dim, device = %cfg.device,
            ms = started.elapsed().as_millis() as u64, "encoder loaded");
        Ok(Self {
            worker: Worker::spawn("mitra-encoder")?,
            passage,
            query,
        })
    }

    /// What the passage encoder produces.
    pub fn info(&self) -> &EncoderInfo {
        self.passage.info()
    }

    /// The record kept with the chunks table.
    pub fn meta(&self) -> EmbeddingMeta {
        EmbeddingMeta {
            model: self.info().model_id.clone(),
            dim: self.info().dim,
        }
    }

    /// The worker thread (also used for vector search).
    pub fn worker(&self) -> &Worker {
        &self.worker
    }

    /// The query encoder.
    pub fn query_encoder(&self) -> Arc<Encoder> {
        self.query.clone()
    }

    /// Refuses a store whose vectors come from another model.
    pub fn check_store(&self, stored: Option<&EmbeddingMeta>) -> Result<(), DenseError> {
        match stored {
            Some(m) if *m != self.meta() => Err(DenseError::ModelMismatch {
                stored: m.model.clone(),
                stored_dim: m.dim,
                configured: self.info().model_id.clone(),
                configured_dim: self.info().dim,
            }),
            _ => Ok(()),
        }
    }

    /// Embeds passages on the worker, awaiting the result.
    pub async fn embed_passages(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, DenseError> {
        let enc = self.passage.clone();
        self.worker
            .call_async(move |_| encode_owned(&enc, &texts))
            .await?
    }

    /// Embeds passages on the worker, blocking the caller.
    pub fn embed_passages_blocking(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, DenseError> {
        let enc = self.passage.clone();
        self.worker.call(move |_| encode_owned(&enc, &texts))?
    }

    /// Embeds queries with the query encoder, blocking the caller.
    pub fn embed_queries_blocking(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, DenseError> {
        let enc = self.query.clone();
        self.worker.call(move |_| encode_owned(&enc, &texts))?
    }

    /// Embeds one query with the query encoder, blocking the caller.
    pub fn embed_query_blocking(&self, text: &str) -> Result<Vec<f32>, DenseError> {
        let enc = self.query.clone();
        let text = text.to_string();
        let mut v = self.worker.call(move |_| enc.encode(&[text.as_str()]))??;
        Ok(v.pop().unwrap_or_default())
    }
}

fn encode_owned(enc: &Encoder, texts: &[String]) -> Result<Vec<Vec<f32>>, DenseError> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    Ok(enc.encode(&refs)?)
}

fn cache_key(cfg: &EmbeddingConfig) -> String {
    format!(
        "{}|{:?}|{:?}|{:?}|{}|{}",
        cfg.model, cfg.models_dir, cfg.model_dir, cfg.query_model_dir, cfg.device, cfg.batch_size
    )
}

static LOADED: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<String, Arc<Embedder>>>,
> = std::sync::LazyLock::new(Default::default);

impl Embedder {
    /// The process-wide encoder for `cfg`: loaded on first use, then shared.
    pub fn shared(cfg: &EmbeddingConfig) -> Result<Arc<Embedder>, DenseError> {
        let key = cache_key(cfg);
        let mut map = LOADED.lock().expect("encoder cache");
        if let Some(e) = map.get(&key) {
            return Ok(e.clone());
        }
        let e = Arc::new(Embedder::load(cfg)?);
        map.insert(key, e.clone());
        Ok(e)
    }
}

/// The encoder an ingest into `store` must use: the store's model when it already has vectors
/// (a mismatch is refused); the configured one for a new store when `embedding.enabled`
/// (adding the vector column); none otherwise. A non-empty store without vectors needs
/// `mitra embed` first, so that no chunk is left without a vector.
pub async fn embedder_for_ingest(
    store: &mut Store,
    cfg: &crate::Config,
) -> Result<Option<Arc<Embedder>>, DenseError> {
    match store.embedding_meta() {
        Some(meta) => {
            let e = Embedder::shared(&cfg.embedding)?;
            e.check_store(Some(&meta))?;
            Ok(Some(e))
        }
        None if !cfg.embedding.enabled => Ok(None),
        None => {
            let e = Embedder::shared(&cfg.embedding)?;
            let rows = store.chunks().count_rows(None).await?;
            if rows > 0 {
                return Err(DenseError::Unavailable(format!(
                    "the store has {rows} chunks without vectors; run `mitra embed` once to add them (or set embedding.enabled = false)"
                )));
            }
            store.add_embedding_column(&e.meta(), None).await?;
            Ok(Some(e))
        }
    }
}

/// `mitra embed`: gives an existing store its vector column, computed from every chunk's text
/// in batches with a progress bar (chunks/s). With `rebuild`, vectors from another model are
/// dropped first (older Lance versions keep them). Returns the number of chunks embedded.
pub async fn embed_store(
    store: &mut Store,
    embedder: &Arc<Embedder>,
    rebuild: bool,
    show_progress: bool,
) -> Result<usize, DenseError> {
    if let Some(have) = store.embedding_meta() {
        if have == embedder.meta() && !rebuild {
            return Ok(0);
        }
        if !rebuild {
            embedder.check_store(Some(&have))?;
        }
        store.drop_embedding_column().await?;
    }
    let rows = store.chunks().count_rows(None).await?;
    let pb = if show_progress {
        let pb = ProgressBar::new(rows as u64);
        pb.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} chunks embedded ({per_sec})",
            )
            .expect("valid template"),
        );
        pb
    } else {
        ProgressBar::hidden()
    };
    let e = embedder.clone();
    let bar = pb.clone();
    let fill: crate::store::EmbedFn = Box::new(move |texts: &[&str]| {
        let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        let v = e
            .embed_passages_blocking(owned)
            .map_err(|e| e.to_string())?;
        bar.inc(texts.len() as u64);
        Ok(v)
    });
    let fill = if rows > 0 { Some(fill) } else { None };
    store.add_embedding_column(&embedder.meta(), fill).await?;
    pb.finish_and_clear();
    Ok(rows)
}
