//! The one registry of Mitra's SQL functions (name, oid, arguments, result, description):
//! the wire front lists them in `pg_proc`, `\df`, `information_schema.routines` and JDBC's
//! `getFunctions`; a test fails when the session gains a function this does not list.

use std::sync::Arc;

use arrow_schema::{DataType, SchemaRef};

use crate::{
    ABSTRACTS_SCHEMA, ANSWER_SCHEMA, HYBRID_SCHEMA, LLM_STATUS_SCHEMA, RANKED_SCHEMA, REPLAY_SCHEMA,
};

/// What a function returns.
#[derive(Debug, Clone, Copy)]
pub enum Returns {
    /// A set of rows (a table function).
    Table(fn() -> SchemaRef),
    /// One value of a type.
    Scalar(fn() -> DataType),
    /// An aggregate over the rows of a query, one composite value (`record`) per group.
    Aggregate,
}

/// A named argument and its type.
pub type Arg = (&'static str, fn() -> DataType);

/// A Mitra function in `pg_proc`, `information_schema.routines` and `\df`.
#[derive(Debug, Clone, Copy)]
pub struct MitraFunction {
    /// Name.
    pub name: &'static str,
    /// `pg_proc.oid` (a fixed range above the catalog's own).
    pub oid: i32,
    /// Arguments: name and type.
    pub args: &'static [Arg],
    /// Trailing arguments that have defaults.
    pub defaults: usize,
    /// Result.
    pub returns: Returns,
    /// One-line description.
    pub description: &'static str,
}

fn text() -> DataType {
    DataType::Utf8
}
fn bigint() -> DataType {
    DataType::Int64
}
fn float8() -> DataType {
    DataType::Float64
}
fn real() -> DataType {
    DataType::Float32
}
fn vector() -> DataType {
    DataType::List(Arc::new(arrow_schema::Field::new(
        "item",
        DataType::Float32,
        true,
    )))
}
fn ranked() -> SchemaRef {
    RANKED_SCHEMA.clone()
}
fn hybrid() -> SchemaRef {
    HYBRID_SCHEMA.clone()
}
fn abstracts() -> SchemaRef {
    ABSTRACTS_SCHEMA.clone()
}
fn answer() -> SchemaRef {
    ANSWER_SCHEMA.clone()
}
fn ask() -> SchemaRef {
    crate::ASK_SCHEMA.clone()
}
fn ask_plan() -> SchemaRef {
    crate::ASK_PLAN_SCHEMA.clone()
}
fn compare() -> SchemaRef {
    crate::COMPARE_SCHEMA.clone()
}
fn replay() -> SchemaRef {
    REPLAY_SCHEMA.clone()
}
fn llm_status() -> SchemaRef {
    LLM_STATUS_SCHEMA.clone()
}

/// Every Mitra function.
pub const FUNCTIONS: &[MitraFunction] = &[
    MitraFunction {
        name: "bm25",
        oid: 2_100_000_001,
        args: &[("query", text), ("k", bigint)],
        defaults: 0,
        returns: Returns::Table(ranked),
        description: "BM25 ranking of chunks for a query (tantivy index)",
    },
    MitraFunction {
        name: "dense",
        oid: 2_100_000_002,
        args: &[("query", text), ("k", bigint)],
        defaults: 0,
        returns: Returns::Table(ranked),
        description: "Dense-vector ranking of chunks for a query (local encoder)",
    },
    MitraFunction {
        name: "hybrid",
        oid: 2_100_000_003,
        args: &[
            ("query", text),
            ("k", bigint),
            ("w_dense", float8),
            ("w_sparse", float8),
            ("rrf_k", float8),
            ("depth", bigint),
        ],
        defaults: 4,
        returns: Returns::Table(hybrid),
        description: "Weighted reciprocal rank fusion of dense() and bm25()",
    },
    MitraFunction {
        name: "embed",
        oid: 2_100_000_004,
        args: &[("text", text)],
        defaults: 0,
        returns: Returns::Scalar(vector),
        description: "The encoder's vector of a text",
    },
    MitraFunction {
        name: "rrf",
        oid: 2_100_000_005,
        args: &[("rank", bigint), ("k", float8)],
        defaults: 1,
        returns: Returns::Scalar(float8),
        description: "Reciprocal rank 1/(k + rank)",
    },
    MitraFunction {
        name: "abstracts",
        oid: 2_100_000_006,
        args: &[
            ("query", text),
            ("k", bigint),
            ("w_dense", float8),
            ("w_sparse", float8),
            ("rrf_k", float8),
        ],
        defaults: 3,
        returns: Returns::Table(abstracts),
        description: "Tier 1: the analyses whose abstracts answer a question",
    },
    MitraFunction {
        name: "answer",
        oid: 2_100_000_007,
        args: &[("question", text), ("k", bigint), ("scope", text)],
        defaults: 2,
        returns: Returns::Table(answer),
        description:
            "A grounded answer with citations from the local language model, or an abstention",
    },
    MitraFunction {
        name: "ask",
        oid: 2_100_000_012,
        args: &[("question", text), ("k", bigint), ("scope", text)],
        defaults: 2,
        returns: Returns::Table(ask),
        description: "A planned answer: the model's sub-queries retrieved into one pool, answered with citations",
    },
    MitraFunction {
        name: "ask_plan",
        oid: 2_100_000_013,
        args: &[("question", text), ("k", bigint), ("scope", text), ("plan", text)],
        defaults: 3,
        returns: Returns::Table(ask_plan),
        description: "ask()'s plan and evidence pool without the answer; checks a plan given as JSON",
    },
    MitraFunction {
        name: "compare",
        oid: 2_100_000_014,
        args: &[("question", text), ("analysis_a", text), ("analysis_b", text), ("k", bigint)],
        defaults: 1,
        returns: Returns::Table(compare),
        description: "Answers a question inside each of two analyses separately, with a grounded statement of the difference",
    },
    MitraFunction {
        name: "replay",
        oid: 2_100_000_008,
        args: &[("answer_id", text)],
        defaults: 0,
        returns: Returns::Table(replay),
        description: "Re-runs a recorded answer from its receipt; says whether it is identical",
    },
    MitraFunction {
        name: "llm_status",
        oid: 2_100_000_009,
        args: &[],
        defaults: 0,
        returns: Returns::Table(llm_status),
        description: "The language model: file, state and request counters",
    },
    MitraFunction {
        name: "answer_from",
        oid: 2_100_000_010,
        args: &[("question", text), ("chunk_id", text), ("passage", text)],
        defaults: 0,
        returns: Returns::Aggregate,
        description:
            "Aggregate: a grounded answer over the rows of any query (chunk id, passage ORDER BY relevance)",
    },
    MitraFunction {
        name: "rerank",
        oid: 2_100_000_011,
        args: &[("query", text), ("passage", text), ("reranker", text)],
        defaults: 1,
        returns: Returns::Scalar(real),
        description:
            "Relevance of a passage to a query by the configured reranker (cross-encoder or 'llm'); a batch is one call",
    },
];
