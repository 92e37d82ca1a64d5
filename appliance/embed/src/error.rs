//! The typed error of the embedding boundary.

use std::path::PathBuf;

/// What can go wrong loading a model or encoding text.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A model file is missing or unreadable.
    #[error("model file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A model configuration file is malformed or describes an unsupported model.
    #[error("model config {path}: {message}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The requested device does not exist or this build cannot use it.
    #[error("device {device:?}: {message}")]
    Device {
        /// The device as written in the configuration.
        device: String,
        /// What is wrong.
        message: String,
    },
    /// The tokenizer failed.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// The tensor library failed (shape mismatch, missing weight …).
    #[error("inference: {0}")]
    Candle(#[from] candle_core::Error),
}
