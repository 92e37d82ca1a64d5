//! The one error type of the generation crate.

use std::path::PathBuf;

/// Everything that can go wrong loading a model or generating with it.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The GGUF file is missing, unreadable, truncated or malformed.
    #[error("model file {path}: {message}")]
    Model {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The file's sha256 is not the pinned one.
    #[error("model file {path}: sha256 {got} does not match the pinned {want}; fetch it again with `mitra models fetch`")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// Its sha256.
        got: String,
        /// The registry's.
        want: String,
    },
    /// `general.architecture` names a model family this build cannot run.
    #[error("model file {path}: unsupported architecture {arch:?}; supported: llama, qwen2, qwen3, gemma3, phi3")]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// The architecture it declares.
        arch: String,
    },
    /// The tokenizer could not be built or failed on a text.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// The chat template failed to parse or render.
    #[error("chat template: {0}")]
    Template(String),
    /// The forward pass failed.
    #[error("generation failed: {0}")]
    Generation(String),
    /// The request queue is full.
    #[error("the language model is busy: {queued} requests are already waiting (llm.queue_depth = {depth}); try again shortly")]
    Busy {
        /// Requests waiting now.
        queued: usize,
        /// The configured bound.
        depth: usize,
    },
    /// The prompt does not fit the context even without evidence.
    #[error("the prompt is {tokens} tokens; the context budget leaves {budget} (llm.context_tokens minus llm.max_new_tokens)")]
    PromptTooLong {
        /// Tokens of the smallest prompt.
        tokens: usize,
        /// Tokens allowed.
        budget: usize,
    },
    /// The caller went away or cancelled.
    #[error("generation cancelled")]
    Cancelled,
    /// The model could not be loaded (or the worker stopped); every request reports why.
    #[error("the language model is unavailable: {0}")]
    Unavailable(std::sync::Arc<LlmError>),
    /// No model is configured or fetched.
    #[error("{0}")]
    NotConfigured(String),
}

impl LlmError {
    /// The load failure behind an `Unavailable`, or the error itself.
    pub fn cause(&self) -> &LlmError {
        match self {
            LlmError::Unavailable(c) => c.cause(),
            e => e,
        }
    }

    pub(crate) fn model(path: impl Into<PathBuf>, message: impl std::fmt::Display) -> Self {
        LlmError::Model {
            path: path.into(),
            message: message.to_string(),
        }
    }

    pub(crate) fn gen(e: impl std::fmt::Display) -> Self {
        LlmError::Generation(e.to_string())
    }
}
