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
