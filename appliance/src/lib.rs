//! Mitra: an on-premise retrieval appliance (Lance storage, tantivy BM25, DataFusion SQL over pgwire).
//!
//! This crate is the CLI (`mitra`): its commands live in the binary; the library holds what
//! the commands share (the CLI's error, `mitra ask`, the demo notes, table printing) and
//! re-exports the layers under the paths the tests and benchmarks use.

pub mod ask;
pub mod demo;
pub mod error;
pub mod maintain;
pub mod table_fmt;

/// The process allocator of the CLI, the server, the benchmarks and the tests: mimalloc keeps
/// freed pages for reuse, where glibc's malloc returns every large tensor buffer to the kernel
/// and faults it in again zeroed (a fifth of the encoder's time on 2 cores: benches/DENSE.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub use error::AppError;
pub use mitra_eval::{self as eval, beir, metrics};
pub use mitra_pg as pg;
pub use mitra_plugins::{self as plugins, pipeline};
pub use mitra_sql::{self as sql, answers_log, llm};
pub use mitra_store::{
    analyses, analyzer, chunker, config, dense, fusion, index, index_options, ingest, models, open,
    open_reader, recorded_analyzer, schema, store, visibility, Config,
};
