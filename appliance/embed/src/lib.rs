//! Sentence encoders (candle BERT family: MiniLM mean pooling, DPR CLS pooling) and exact vector search.
//!
//! This crate is kept small and compiled with optimisations even in the dev profile: the
//! transformer forward pass and the exact top-k scan are the hot paths of dense retrieval.

pub mod device;
pub mod encoder;
pub mod error;
pub mod flat;
mod kernels;
pub mod model_dir;
pub mod packed;

pub use candle_core;
pub use candle_core::Device;
pub use candle_nn;
pub use device::parse_device;
pub use encoder::{Bert, BertKernel, Encoder, EncoderInfo};
pub use error::EmbedError;
pub use flat::{top_k, top_k_where, Hit};
pub use model_dir::{ModelDir, Pooling};
