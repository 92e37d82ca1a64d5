//! One module per `mitra` command, and what several of them share.

pub mod analyses;
pub mod ask;
pub mod demo;
pub mod embed;
pub mod eval;
pub mod ingest;
pub mod maintain;
pub mod models;
pub mod plugins;
pub mod serve;
pub mod sql;
pub mod status;
pub mod users;

use mitra::config::Config;
use mitra::index::{Bm25Index, SyncOutcome};
use mitra::store::Store;
use mitra::AppError;

/// Logs to stderr, filtered by `MITRA_LOG` (else `default`).
pub fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("MITRA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Opens for writing: the writer lock, crash repair, the BM25 index synced with Lance.
pub async fn open(cfg: &Config) -> Result<(Store, Bm25Index), AppError> {
    Ok(logged(mitra::open(cfg).await?))
}

/// Opens for reading: does not hold the writer lock, so `mitra ingest` can run alongside.
pub async fn open_reader(cfg: &Config) -> Result<(Store, Bm25Index), AppError> {
    Ok(logged(mitra::open_reader(cfg).await?))
}

/// The store and index of an open, with a log line when the index had to be synced.
fn logged((store, index, outcome): (Store, Bm25Index, SyncOutcome)) -> (Store, Bm25Index) {
    if outcome != SyncOutcome::UpToDate {
        tracing::info!(?outcome, "BM25 index synced with Lance");
    }
    (store, index)
}

/// A SQL session over the store, for a command (the operator's unless a user is set).
pub async fn session(cfg: &Config) -> Result<datafusion::prelude::SessionContext, AppError> {
    let (_store, mut index) = open_reader(cfg).await?;
    index.close_writer()?;
    Ok(mitra::sql::build_session(cfg, std::sync::Arc::new(index)).await?)
}

/// Whether a progress bar is wanted: not hidden, and stderr is a terminal.
pub fn progress(no_progress: bool) -> bool {
    !no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr())
}
