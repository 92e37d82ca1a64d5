//! Cross-encoder rerankers on candle: BERT and XLM-RoBERTa sequence classification, one relevance logit per (query, passage) pair.
//!
//! Compiled with optimisations even in the dev profile, like `mitra-embed`: the forward pass
//! is the hot path of a reranked query.

pub mod cross_encoder;
pub mod error;
pub mod model_dir;

pub use cross_encoder::{Counters, CrossEncoder};
pub use error::RerankError;
pub use mitra_embed::{parse_device, BertKernel, Device};
pub use model_dir::{CrossEncoderDir, Layout, DEFAULT_MAX_LENGTH};
