//! Mitra's storage layer: configuration, the Lance tables and their commit protocol, the tantivy index, ingest, vectors and analyses.

pub use mitra_bm25::analyzer;
pub mod analyses;
pub mod chunker;
pub mod config;
pub mod dense;
pub mod fusion;
pub mod index;
pub mod ingest;
pub mod maintain;
pub mod models;
pub mod schema;
pub mod store;
pub mod visibility;

pub use config::Config;

/// The BM25 (tantivy) index of `chunks`: this directory of the data directory.
pub const BM25_DIR: &str = "bm25";

/// The analyzer a store's BM25 index recorded at its last commit (`None`: no index yet).
pub fn recorded_analyzer(data_dir: &std::path::Path) -> Option<analyzer::AnalyzerOptions> {
    let text = std::fs::read_to_string(data_dir.join(BM25_DIR).join("meta.json")).ok()?;
    let metas: serde_json::Value = serde_json::from_str(&text).ok()?;
    let meta: index::IndexMeta = serde_json::from_str(metas.get("payload")?.as_str()?).ok()?;
    Some(meta.analyzer)
}

/// The analyzer options and BM25 parameters of a configuration: an analyzer option the
/// configuration sets, else the one the store's index was built with, else the default of a
/// new store (stemming and stop words on).
pub fn index_options(cfg: &Config) -> (analyzer::AnalyzerOptions, index::Bm25Params) {
    let built = recorded_analyzer(&cfg.data_dir);
    (
        analyzer::AnalyzerOptions {
            stemming: cfg
                .bm25
                .stemming
                .or(built.map(|b| b.stemming))
                .unwrap_or(true),
            stopwords: cfg
                .bm25
                .stopwords
                .or(built.map(|b| b.stopwords))
                .unwrap_or(true),
        },
        index::Bm25Params {
            k1: cfg.bm25.k1,
            b: cfg.bm25.b,
        },
    )
}

/// Opens the store in `cfg.data_dir` for writing (lock, repair) and its BM25 index (synced).
pub async fn open(
    cfg: &Config,
) -> Result<(store::Store, index::Bm25Index, index::SyncOutcome), index::IndexError> {
    let store = store::Store::open(&cfg.data_dir).await?;
    let (opts, params) = index_options(cfg);
    let (index, outcome) =
        index::Bm25Index::open_synced(&cfg.data_dir.join(BM25_DIR), &store, opts, params).await?;
    Ok((store, index, outcome))
}

/// Opens the store for reading (serve, sql, status). With no writer active this repairs and
/// syncs like [`open`]; while `mitra ingest` runs, the index is opened as that writer left it.
pub async fn open_reader(
    cfg: &Config,
) -> Result<(store::Store, index::Bm25Index, index::SyncOutcome), index::IndexError> {
    let (opts, params) = index_options(cfg);
    let dir = cfg.data_dir.join(BM25_DIR);
    let (store, writer_active) = store::Store::open_reader(&cfg.data_dir).await?;
    if writer_active {
        let index = index::Bm25Index::open_existing(&dir, opts, params)?;
        return Ok((store, index, index::SyncOutcome::UpToDate));
    }
    let (index, outcome) = index::Bm25Index::open_synced(&dir, &store, opts, params).await?;
    Ok((store, index, outcome))
}
