//! Reading a local cross-encoder directory: `config.json`, `tokenizer.json`, `tokenizer_config.json`, weights.

use std::path::{Path, PathBuf};

use candle_transformers::models::bert::Config as BertConfig;
use candle_transformers::models::xlm_roberta::Config as XlmRobertaConfig;
use serde_json::Value;

use crate::RerankError;

/// The default input limit in tokens (query, passage and special tokens together), as
/// `transformers`' cross-encoders use it when the model allows more.
pub const DEFAULT_MAX_LENGTH: usize = 512;

/// The architecture of a cross-encoder directory.
#[derive(Debug, Clone)]
pub enum Layout {
    /// `BertForSequenceClassification`: BERT, pooler (dense + tanh over `[CLS]`), classifier
    /// (the ms-marco-MiniLM-L-6-v2 layout).
    Bert(BertConfig),
    /// `XLMRobertaForSequenceClassification`: XLM-RoBERTa and its classification head (dense,
    /// tanh, out_proj over `<s>`; the bge-reranker-base / -v2-m3 layout).
    XlmRoberta(XlmRobertaConfig),
}

impl Layout {
    /// `model_type` as `config.json` writes it.
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Bert(_) => "bert",
            Layout::XlmRoberta(_) => "xlm-roberta",
        }
    }
}

/// A parsed cross-encoder directory, ready to load.
#[derive(Debug, Clone)]
pub struct CrossEncoderDir {
    /// The directory.
    pub path: PathBuf,
    /// Architecture and its configuration.
    pub layout: Layout,
    /// Query, passage and special tokens together are cut to this many tokens (passage only).
    pub max_len: usize,
    /// The padding token id.
    pub pad_id: u32,
}

fn read_json(path: &Path) -> Result<Value, RerankError> {
    let text = std::fs::read_to_string(path).map_err(|source| RerankError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| RerankError::Config {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

impl CrossEncoderDir {
    /// Parses `dir`: needs `config.json`, `tokenizer.json` and `model.safetensors`; reads
    /// `tokenizer_config.json`'s `model_max_length` when present. The input limit is the
    /// smallest of that, the model's positions and `max_length` (default
    /// [`DEFAULT_MAX_LENGTH`]).
    pub fn open(dir: &Path, max_length: Option<usize>) -> Result<Self, RerankError> {
        for needed in ["config.json", "tokenizer.json", "model.safetensors"] {
            let p = dir.join(needed);
            if !p.is_file() {
                return Err(RerankError::Io {
                    path: p,
                    source: std::io::Error::new(std::io::ErrorKind::NotFound, "missing"),
                });
            }
        }
        let config_path = dir.join("config.json");
        let raw = read_json(&config_path)?;
        let bad = |message: String| RerankError::Config {
            path: config_path.clone(),
            message,
        };
        let labels = raw
            .get("id2label")
            .and_then(Value::as_object)
            .map(|m| m.len())
            .or_else(|| {
                raw.get("num_labels")
                    .and_then(Value::as_u64)
                    .map(|n| n as usize)
            })
            .unwrap_or(1);
        if labels != 1 {
            return Err(bad(format!(
                "the classifier has {labels} labels; a cross-encoder with one relevance logit is expected"
            )));
        }
        let model_type = raw
            .get("model_type")
            .and_then(Value::as_str)
            .unwrap_or("bert");
        let (layout, positions, pad) = match model_type {
            "bert" => {
                let c: BertConfig = serde_json::from_value(raw.clone())
                    .map_err(|e| bad(format!("not a BERT config: {e}")))?;
                let n = c.max_position_embeddings;
                let pad = raw.get("pad_token_id").and_then(Value::as_u64).unwrap_or(0) as u32;
                (Layout::Bert(c), n, pad)
            }
            "xlm-roberta" | "roberta" => {
                // Fields `transformers` no longer writes when they have their default value.
                let mut filled = raw.clone();
                if let Some(m) = filled.as_object_mut() {
                    for (k, v) in [
                        ("position_embedding_type", Value::from("absolute")),
                        ("hidden_dropout_prob", Value::from(0.1)),
                        ("attention_probs_dropout_prob", Value::from(0.1)),
                        ("layer_norm_eps", Value::from(1e-5)),
                        ("type_vocab_size", Value::from(1)),
                        ("pad_token_id", Value::from(1)),
                        ("hidden_act", Value::from("gelu")),
                    ] {
                        m.entry(k).or_insert(v);
                    }
                }
                let c: XlmRobertaConfig = serde_json::from_value(filled)
                    .map_err(|e| bad(format!("not an XLM-RoBERTa config: {e}")))?;
                // Positions start after the padding index (RoBERTa's offset).
                let n = c
                    .max_position_embeddings
                    .saturating_sub(c.pad_token_id as usize + 1);
                let pad = c.pad_token_id;
                (Layout::XlmRoberta(c), n, pad)
            }
            other => {
                return Err(bad(format!(
                    "model_type {other:?} is not supported (bert, xlm-roberta)"
                )))
            }
        };
        let tok_cfg = dir.join("tokenizer_config.json");
        let model_max = if tok_cfg.is_file() {
            read_json(&tok_cfg)?
                .get("model_max_length")
                .and_then(Value::as_f64)
                .filter(|n| *n >= 1.0 && *n < 1e9)
                .map(|n| n as usize)
        } else {
            None
        };
        let max_len = model_max
            .unwrap_or(positions)
            .min(positions)
            .min(max_length.unwrap_or(DEFAULT_MAX_LENGTH));
        if max_len < 4 {
            return Err(bad(format!(
                "an input limit of {max_len} tokens is too small"
            )));
        }
        Ok(CrossEncoderDir {
            path: dir.to_path_buf(),
            layout,
            max_len,
            pad_id: pad,
        })
    }
}
