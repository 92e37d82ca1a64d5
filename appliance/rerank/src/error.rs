//! The typed error of the reranking boundary.

use std::path::PathBuf;

/// What can go wrong loading a cross-encoder or scoring pairs.
#[derive(Debug, thiserror::Error)]
pub enum RerankError {
    /// A model file is missing or unreadable.
    #[error("reranker model file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A model configuration file is malformed or describes an unsupported model.
    #[error("reranker model config {path}: {message}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The query alone does not fit the model's input with room for a passage.
    #[error("the query is {tokens} tokens; the reranker reads at most {limit} tokens of query and passage together")]
    QueryTooLong {
        /// Tokens of the query with the pair's special tokens.
        tokens: usize,
        /// The model's input limit.
        limit: usize,
    },
    /// The caller stopped the scoring.
    #[error("reranking cancelled")]
    Cancelled,
    /// The tokenizer failed.
    #[error("reranker tokenizer: {0}")]
    Tokenizer(String),
    /// The encoder layer failed (device selection).
    #[error(transparent)]
    Embed(#[from] mitra_embed::EmbedError),
    /// The tensor library failed (shape mismatch, missing weight …).
    #[error("reranker inference: {0}")]
    Candle(#[from] candle_core::Error),
}
