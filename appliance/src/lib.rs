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

/// Turns transparent huge pages off for this process (Linux; elsewhere nothing).
///
/// mimalloc asks for huge pages on its large regions, and the kernel then zeroes 2 MiB at each
/// first touch: a fifth of a language model's prefill went to `clear_page_erms`, since candle's
/// quantized matmuls allocate a fresh output per call. Off, prefill of a 600-token prompt on
/// the 1.5B model ran at 65–71 tok/s instead of 37–51 and loading took 4.5–5.8 s instead of
/// 7.9–8.9 s, with the encoder and cross-encoder unchanged (benches/LLM.md). The CLI and the
/// server call it first thing; it is inherited by the threads started later.
pub fn disable_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_THP_DISABLE) only sets a flag of the process's memory map; it reads
    // and writes no memory of ours. Failure (an old kernel) leaves THP as it was.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

pub use error::AppError;
pub use mitra_eval::{self as eval, beir, metrics};
pub use mitra_pg as pg;
pub use mitra_plugins::{self as plugins, pipeline};
pub use mitra_sql::{self as sql, answers_log, llm};
pub use mitra_store::{
    analyses, analyzer, chunker, config, dense, fusion, index, index_options, ingest, models, open,
    open_reader, recorded_analyzer, schema, store, visibility, Config,
};
