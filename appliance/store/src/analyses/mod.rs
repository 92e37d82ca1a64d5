//! Analyses, the first tier: the `analyses` table and its import, read access, session scope, tier-1 ranking.
//!
//! A question is first matched against analysis abstracts (`abstracts()`); once the user picks
//! one, `SET mitra.analysis` scopes every retrieval function of the session to it. Access is a
//! separate, always-on rule: a session sees only rows of analyses its user may read
//! ([`mitra_auth::Principal::may_read`]), in every table and function.

mod catalog;
mod import;
mod rows;
mod session;

pub use crate::visibility::{valid_id, Visibility};
pub use catalog::{AnalysisCatalog, CatalogSnapshot, Tier1Hit};
pub use import::{import_file, read_file, ImportReport};
pub use mitra_auth::{Principal, Status};
pub use rows::{read_analyses, Analysis, TABLE_DIR};
pub use session::{parse_scope, SessionAccess};

use std::path::PathBuf;

/// Errors of the analyses table, its import and scoping.
#[derive(Debug, thiserror::Error)]
pub enum AnalysesError {
    /// The import file cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line of the import file is not a valid analysis.
    #[error("{path}:{line}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The import would remove analyses that documents still name.
    #[error("refusing to remove analyses that documents still name: {0} (re-ingest or delete those documents first, or import with --force)")]
    InUse(String),
    /// An analysis that does not exist, or that the session may not read (the same error, so
    /// that an analysis one may not read cannot be told from a missing one).
    #[error("analysis \"{0}\" does not exist")]
    Unknown(String),
    /// Lance failed.
    #[error("lance: {0}")]
    Lance(#[from] lance::Error),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The encoder failed while embedding abstracts.
    #[error(transparent)]
    Dense(#[from] crate::dense::DenseError),
    /// The tier-1 index failed.
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
}
