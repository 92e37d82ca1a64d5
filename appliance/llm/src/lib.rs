//! Mitra's local generation: GGUF models on candle, their own tokenizer and chat template, one
//! bounded worker thread, grounded prompts, relevance and support checks.

pub mod answer;
pub mod cells;
pub mod compare;
pub mod conditions;
pub mod counts;
mod decoder;
pub mod engine;
mod error;
pub mod focus;
pub mod gguf;
pub mod glossary;
pub mod grounding;
pub mod kinds;
pub mod locate;
pub mod model;
mod multiplicity;
pub mod plan;
pub mod qualifiers;
pub mod template;
pub mod terms;
pub mod tokenizer;
pub mod topic;
pub mod updates;
pub mod worker;

pub use answer::{Checks, Judged, Outcome, Refusal, Verdict};
pub use engine::{Engine, LoadOptions, ModelInfo, Params, Stats, Stop};
pub use error::LlmError;
pub use grounding::{Budget, Checked, Passage, ABSTENTION};
pub use template::{ChatTemplate, Message};
pub use worker::{Control, Event, State, Task, Ticket, Worker, WorkerStatus};

#[cfg(test)]
mod key_point_tests;
#[cfg(test)]
mod parity_tests;
