//! The store's error type.

use std::path::PathBuf;

/// Errors of the Lance store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Lance failed.
    #[error("lance: {0}")]
    Lance(#[from] lance::Error),
    /// Arrow failed while building a batch.
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// A stored table does not match `schemas/`.
    #[error("schema mismatch: {0}")]
    Schema(String),
    /// Another process holds the writer lock of the data directory.
    #[error("{0} is being written by another mitra process (an ingest?); wait for it to finish")]
    Busy(PathBuf),
    /// The store was opened for reading only.
    #[error("the store was opened read-only; writes need Store::open")]
    ReadOnly,
    /// A table version asked for (time travel) is gone.
    #[error("version {version} of the {table} table is no longer present (old versions were cleaned up)")]
    VersionGone {
        /// The table.
        table: String,
        /// The version.
        version: u64,
    },
    /// File system error.
    #[error("data directory {path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// Result alias for the store.
pub type Result<T> = std::result::Result<T, StoreError>;
