//! Mitra: an on-premise retrieval appliance (Lance storage, tantivy BM25, DataFusion SQL over pgwire).

pub use mitra_bm25::analyzer;
pub mod beir;
pub mod chunker;
pub mod config;
pub mod demo;
pub mod error;
pub mod eval;
pub mod index;
pub mod ingest;
pub mod metrics;
pub mod pg;
pub mod schema;
pub mod sql;
pub mod store;
pub mod table_fmt;

pub use config::Config;
pub use error::AppError;

/// Opens the store in `cfg.data_dir` (repairing it) and its BM25 index (synced with Lance).
pub async fn open(
    cfg: &Config,
) -> Result<(store::Store, index::Bm25Index, index::SyncOutcome), AppError> {
    let store = store::Store::open(&cfg.data_dir).await?;
    let (index, outcome) = index::Bm25Index::open_synced(
        &cfg.data_dir.join("bm25"),
        &store,
        analyzer::AnalyzerOptions {
            stemming: cfg.bm25.stemming,
            stopwords: cfg.bm25.stopwords,
        },
        index::Bm25Params {
            k1: cfg.bm25.k1,
            b: cfg.bm25.b,
        },
    )
    .await?;
    Ok((store, index, outcome))
}
