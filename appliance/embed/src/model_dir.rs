//! Reading a local model directory: BERT config, tokenizer, weights and the sentence-transformers pooling config.

use std::path::{Path, PathBuf};

use candle_transformers::models::bert::Config as BertConfig;
use serde_json::Value;

use crate::EmbedError;

/// How token states become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Mean of the token states under the attention mask (sentence-transformers MiniLM).
    Mean,
    /// The first (`[CLS]`) token state (DPR encoders).
    Cls,
}

impl Pooling {
    /// The name used in configs and `mitra models list`.
    pub fn name(self) -> &'static str {
        match self {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
        }
    }
}

/// A parsed model directory, ready to load.
#[derive(Debug, Clone)]
pub struct ModelDir {
    /// The directory.
    pub path: PathBuf,
    /// The BERT configuration (`config.json`).
    pub bert: BertConfig,
    /// Pooling of token states.
    pub pooling: Pooling,
    /// Whether vectors are L2-normalised (a sentence-transformers `Normalize` module).
    pub normalize: bool,
    /// Inputs are truncated to this many word pieces, special tokens included.
    pub max_len: usize,
    /// Prefix of the BERT weights inside `model.safetensors` (DPR nests them), if any.
    pub weight_prefix: Option<String>,
    /// DPR projection layer (`encode_proj`) prefix and output size, when `projection_dim > 0`.
    pub projection: Option<(String, usize)>,
    /// Output vector size.
    pub dim: usize,
}

fn read_json(path: &Path) -> Result<Value, EmbedError> {
    let text = std::fs::read_to_string(path).map_err(|source| EmbedError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| EmbedError::Config {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn read_json_opt(path: &Path) -> Result<Option<Value>, EmbedError> {
    if path.exists() {
        read_json(path).map(Some)
    } else {
        Ok(None)
    }
}

impl ModelDir {
    /// Parses `dir`. Needs `config.json`, `tokenizer.json` and `model.safetensors`; uses
    /// `1_Pooling/config.json`, `modules.json` and `sentence_bert_config.json` when present.
    pub fn open(dir: &Path) -> Result<Self, EmbedError> {
        for needed in ["config.json", "tokenizer.json", "model.safetensors"] {
            let p = dir.join(needed);
            if !p.is_file() {
                return Err(EmbedError::Io {
                    path: p,
                    source: std::io::Error::new(std::io::ErrorKind::NotFound, "missing"),
                });
            }
        }
        let config_path = dir.join("config.json");
        let raw = read_json(&config_path)?;
        let bad = |message: String| EmbedError::Config {
            path: config_path.clone(),
            message,
        };
        let bert: BertConfig = serde_json::from_value(raw.clone())
            .map_err(|e| bad(format!("not a BERT config: {e}")))?;
        let model_type = raw
            .get("model_type")
            .and_then(Value::as_str)
            .unwrap_or("bert");
        let max_positions = bert.max_position_embeddings;

        let (pooling, normalize, max_len, weight_prefix, projection, dim);
        if model_type == "dpr" {
            let arch = raw
                .get("architectures")
                .and_then(|a| a.get(0))
                .and_then(Value::as_str)
                .unwrap_or("");
            let outer = match arch {
                "DPRQuestionEncoder" => "question_encoder",
                "DPRContextEncoder" => "ctx_encoder",
                other => {
                    return Err(bad(format!(
                        "DPR architecture {other:?} is not supported (DPRQuestionEncoder or DPRContextEncoder)"
                    )))
                }
            };
            let proj = raw
                .get("projection_dim")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize;
            pooling = Pooling::Cls;
            normalize = false;
            max_len = max_positions;
            weight_prefix = Some(format!("{outer}.bert_model"));
            projection = (proj > 0).then(|| (format!("{outer}.encode_proj"), proj));
            dim = if proj > 0 { proj } else { bert.hidden_size };
        } else if model_type == "bert" {
            let pool = read_json_opt(&dir.join("1_Pooling/config.json"))?;
            let flag = |k: &str| {
                pool.as_ref()
                    .and_then(|p| p.get(k))
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
            };
            pooling = if flag("pooling_mode_cls_token") {
                Pooling::Cls
            } else {
                Pooling::Mean
            };
            for unsupported in [
                "pooling_mode_max_tokens",
                "pooling_mode_mean_sqrt_len_tokens",
                "pooling_mode_weightedmean_tokens",
                "pooling_mode_lasttoken",
            ] {
                if flag(unsupported) {
                    return Err(bad(format!("pooling mode {unsupported} is not supported")));
                }
            }
            let modules = read_json_opt(&dir.join("modules.json"))?;
            normalize = modules
                .as_ref()
                .and_then(Value::as_array)
                .map(|m| {
                    m.iter().any(|x| {
                        x.get("type")
                            .and_then(Value::as_str)
                            .is_some_and(|t| t.ends_with("Normalize"))
                    })
                })
                .unwrap_or(false);
            let sbert = read_json_opt(&dir.join("sentence_bert_config.json"))?;
            max_len = sbert
                .as_ref()
                .and_then(|s| s.get("max_seq_length"))
                .and_then(Value::as_u64)
                .map(|n| n as usize)
                .unwrap_or(max_positions)
                .min(max_positions);
            weight_prefix = None;
            projection = None;
            dim = bert.hidden_size;
        } else {
            return Err(bad(format!(
                "model_type {model_type:?} is not supported (bert, dpr)"
            )));
        }
        Ok(ModelDir {
            path: dir.to_path_buf(),
            bert,
            pooling,
            normalize,
            max_len,
            weight_prefix,
            projection,
            dim,
        })
    }
}
