//! Integration tests: real Lance datasets, a real tantivy index, a real pgwire server and real clients.

#![recursion_limit = "256"]

mod answer;
mod beir_quality;
mod bm25_reference;
mod clients;
mod common;
mod crash;
mod damaged;
mod dense;
mod eval;
mod faults;
mod front;
mod ingest_versions;
mod limits;
mod logins;
mod maintain;
mod pgwire;
mod plugin_ingest;
mod plugin_pdf;
mod plugin_sandbox;
mod plugins_common;
mod rerank;
mod slt;
mod two_tier;
mod wire_fuzz;
