//! The CLI's error: what `mitra` reports when a command fails, one variant per layer below it.

use mitra_store::{
    config::ConfigError, dense::DenseError, index::IndexError, ingest::IngestError,
    models::ModelsError, store::StoreError,
};

/// Errors surfaced by `mitra` commands; each layer contributes its own typed error.
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
    Dense(#[from] DenseError),
    /// The model registry or fetcher failed.
    #[error(transparent)]
    Models(#[from] ModelsError),
    /// A plugin or plugin ingest run failed to start.
    #[error(transparent)]
    Pipeline(#[from] mitra_plugins::pipeline::PipelineError),
    /// A plugin could not be loaded.
    #[error(transparent)]
    Plugin(#[from] mitra_plugins::PluginError),
    /// An evaluation failed.
    #[error(transparent)]
    Eval(#[from] mitra_eval::EvalError),
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

impl From<ConfigError> for AppError {
    fn from(e: ConfigError) -> Self {
        AppError::Config(e.0)
    }
}

impl From<mitra_pg::ServerError> for AppError {
    fn from(e: mitra_pg::ServerError) -> Self {
        AppError::Server(e.0)
    }
}
