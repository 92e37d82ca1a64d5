//! The application-level error: what the CLI reports when a command fails.

use crate::{index::IndexError, ingest::IngestError, store::StoreError};

/// Errors surfaced by `mitra` commands; each module boundary contributes its own typed error.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Configuration could not be read or is invalid.
    #[error("configuration: {0}")]
    Config(String),
    /// The Lance store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The BM25 index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Ingest failed as a whole (single documents failing are reported, not raised).
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// Dense retrieval failed (model, encoder, vectors).
    #[error(transparent)]
    Dense(#[from] crate::dense::DenseError),
    /// The model registry or fetcher failed.
    #[error(transparent)]
    Models(#[from] crate::models::ModelsError),
    /// A plugin or plugin ingest run failed to start.
    #[error(transparent)]
    Pipeline(#[from] crate::pipeline::PipelineError),
    /// A plugin could not be loaded.
    #[error(transparent)]
    Plugin(#[from] crate::plugins::PluginError),
    /// A SQL statement failed.
    #[error("SQL: {0}")]
    Sql(#[from] datafusion::error::DataFusionError),
    /// The server could not start.
    #[error("server: {0}")]
    Server(String),
    /// File system error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
}
