//! Dense retrieval: the encoder worker, vectors in `chunks.embedding`, exact and ANN search.

mod ann;
mod embedder;
mod search;
mod worker;

pub use ann::{ensure_ann_index, has_vector_index, AnnReport};
pub use embedder::{embed_store, embedder_for_ingest, Embedder};
pub use search::{DenseHit, VectorSearch};
pub use worker::Worker;

use crate::models::ModelsError;
use crate::store::StoreError;

/// Errors of dense retrieval.
#[derive(Debug, thiserror::Error)]
pub enum DenseError {
    /// The model could not be located.
    #[error(transparent)]
    Models(#[from] ModelsError),
    /// The encoder failed to load or run.
    #[error("encoder: {0}")]
    Embed(#[from] mitra_embed::EmbedError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Lance failed during a vector search or index build.
    #[error("lance: {0}")]
    Lance(#[from] lance::Error),
    /// The store's vectors come from another model than the configured encoder.
    #[error("the chunks table holds {stored_dim}-d vectors from model {stored:?}, but the configured encoder is {configured:?} ({configured_dim}-d); mixing models is refused. Set embedding.model back, or re-embed the store with `mitra embed --rebuild`")]
    ModelMismatch {
        /// Model recorded with the table.
        stored: String,
        /// Its vector size.
        stored_dim: usize,
        /// Configured model.
        configured: String,
        /// Its vector size.
        configured_dim: usize,
    },
    /// The store has no vectors yet.
    #[error("the chunks table has no embeddings; run `mitra embed` (or ingest with embedding.enabled = true)")]
    NoEmbeddings,
    /// Dense retrieval is not configured in this process.
    #[error("dense retrieval is not available: {0}")]
    Unavailable(String),
    /// The encoder worker thread is gone.
    #[error("the encoder worker stopped")]
    WorkerGone,
}
