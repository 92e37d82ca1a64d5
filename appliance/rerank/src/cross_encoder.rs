//! The cross-encoder: query and passage read together, one relevance logit per pair.

use std::sync::atomic::{AtomicU64, Ordering};

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Linear, VarBuilder};
use candle_transformers::models::xlm_roberta::XLMRobertaForSequenceClassification;
use tokenizers::{
    EncodeInput, Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy,
};

use candle_nn::Activation;
use candle_transformers::models::bert::HiddenAct;
use candle_transformers::models::xlm_roberta::Config as XlmRobertaConfig;
use mitra_embed::packed::{PackedBert, Positions, Shape};
use mitra_embed::{Bert, BertKernel};

use crate::{CrossEncoderDir, Layout, RerankError};

/// Padded tokens (pairs × longest pair) of one forward pass at most: 64 pairs of 256 tokens,
/// so that a reranked top 50 is one pass, while attention memory stays bounded for long pairs.
const BATCH_TOKENS: usize = 64 * 256;

enum Net {
    Bert {
        bert: Bert,
        pooler: Linear,
        classifier: Linear,
    },
    XlmRoberta(XLMRobertaForSequenceClassification),
}

/// Counters of a cross-encoder, for tests and `EXPLAIN ANALYZE`-style traces.
#[derive(Debug, Default)]
pub struct Counters {
    /// Calls of [`CrossEncoder::score`] that ran the model.
    pub calls: AtomicU64,
    /// Forward passes (batches).
    pub forward_passes: AtomicU64,
    /// Pairs scored.
    pub pairs: AtomicU64,
}

/// A loaded cross-encoder. Loading is the expensive part; load once per process.
pub struct CrossEncoder {
    net: Net,
    tokenizer: Tokenizer,
    /// The same tokenizer without truncation (to measure a query).
    plain: Tokenizer,
    dir: CrossEncoderDir,
    name: String,
    device: Device,
    /// Extra tokens a pair adds (`[CLS] [SEP] [SEP]`: 3; `<s> </s></s> </s>`: 4).
    pair_specials: usize,
    counters: Counters,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CrossEncoder({})", self.name)
    }
}

/// The packed path's shape of an XLM-RoBERTa config, if the path covers it (absolute positions,
/// a GELU or ReLU activation).
fn xlmr_shape(cfg: &XlmRobertaConfig) -> Option<Shape> {
    let act = match cfg.hidden_act {
        Activation::Gelu => HiddenAct::Gelu,
        Activation::GeluPytorchTanh | Activation::NewGelu => HiddenAct::GeluApproximate,
        Activation::Relu => HiddenAct::Relu,
        _ => return None,
    };
    (cfg.position_embedding_type == "absolute").then_some(Shape {
        hidden: cfg.hidden_size,
        heads: cfg.num_attention_heads,
        intermediate: cfg.intermediate_size,
        layers: cfg.num_hidden_layers,
        vocab: cfg.vocab_size,
        positions: cfg.max_position_embeddings,
        types: cfg.type_vocab_size,
        eps: cfg.layer_norm_eps,
        act,
        position_ids: Positions::Roberta {
            padding_idx: cfg.pad_token_id,
        },
    })
}

fn tok_err(e: impl std::fmt::Display) -> RerankError {
    RerankError::Tokenizer(e.to_string())
}

impl CrossEncoder {
    /// Loads the model in `dir` onto `device` under the name `name`.
    pub fn load(dir: &CrossEncoderDir, name: &str, device: Device) -> Result<Self, RerankError> {
        Self::load_with(dir, name, device, BertKernel::Auto)
    }

    /// [`CrossEncoder::load`] with a choice of forward pass for both layouts (benchmarks
    /// compare the two).
    pub fn load_with(
        dir: &CrossEncoderDir,
        name: &str,
        device: Device,
        kernel: BertKernel,
    ) -> Result<Self, RerankError> {
        let tok_path = dir.path.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| RerankError::Config {
            path: tok_path.clone(),
            message: e.to_string(),
        })?;
        tokenizer.with_padding(None);
        let mut plain = tokenizer.clone();
        plain.with_truncation(None).map_err(tok_err)?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: dir.max_len,
                strategy: TruncationStrategy::OnlySecond,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(tok_err)?;
        let pair_specials = tokenizer
            .get_post_processor()
            .map(|p| tokenizers::PostProcessor::added_tokens(p, true))
            .unwrap_or(0);
        let weights_path = dir.path.join("model.safetensors");
        let bytes = std::fs::read(&weights_path).map_err(|source| RerankError::Io {
            path: weights_path.clone(),
            source,
        })?;
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &device)?;
        let net = match &dir.layout {
            Layout::Bert(cfg) => {
                let bert = Bert::load(vb.clone(), cfg, &device, kernel)?;
                let h = cfg.hidden_size;
                let pooler = candle_nn::linear(h, h, vb.pp("bert.pooler.dense"))?;
                let classifier = candle_nn::linear(h, 1, vb.pp("classifier"))?;
                Net::Bert {
                    bert,
                    pooler,
                    classifier,
                }
            }
            Layout::XlmRoberta(cfg) => {
                match xlmr_shape(cfg).filter(|_| kernel.packed_on(&device)) {
                    // Same stack as BERT under `roberta.`; its head (dense, tanh, out_proj on
                    // `<s>`) is BERT's pooler and classifier by other names.
                    Some(shape) => {
                        let h = cfg.hidden_size;
                        Net::Bert {
                            bert: Bert::Packed(PackedBert::load_shape(vb.pp("roberta"), &shape)?),
                            pooler: candle_nn::linear(h, h, vb.pp("classifier.dense"))?,
                            classifier: candle_nn::linear(h, 1, vb.pp("classifier.out_proj"))?,
                        }
                    }
                    None => Net::XlmRoberta(XLMRobertaForSequenceClassification::new(1, cfg, vb)?),
                }
            }
        };
        Ok(CrossEncoder {
            net,
            tokenizer,
            plain,
            dir: dir.clone(),
            name: name.to_string(),
            device,
            pair_specials,
            counters: Counters::default(),
        })
    }

    /// The name it was loaded under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Query, passage and special tokens together are cut to this many tokens.
    pub fn max_len(&self) -> usize {
        self.dir.max_len
    }

    /// The architecture (`bert` or `xlm-roberta`).
    pub fn layout(&self) -> &'static str {
        self.dir.layout.name()
    }

    /// The forward pass that runs: `packed` (the CPU path of `mitra_embed::packed`) or `candle`.
    pub fn kernel(&self) -> &'static str {
        match &self.net {
            Net::Bert {
                bert: Bert::Packed(_),
                ..
            } => "packed",
            _ => "candle",
        }
    }

    /// Calls, forward passes and pairs so far.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Tokens of `query` inside a pair (special tokens included, no passage).
    pub fn query_tokens(&self, query: &str) -> Result<usize, RerankError> {
        let e = self.plain.encode(query, false).map_err(tok_err)?;
        Ok(e.get_ids().len() + self.pair_specials)
    }

    /// The token ids and type ids of each pair, as `transformers` encodes them (passage-only
    /// truncation at the input limit).
    pub fn encode(&self, query: &str, passages: &[&str]) -> Result<Vec<Encoding>, RerankError> {
        let q = self.query_tokens(query)?;
        // A passage needs at least one token of room.
        if q >= self.dir.max_len {
            return Err(RerankError::QueryTooLong {
                tokens: q,
                limit: self.dir.max_len,
            });
        }
        let inputs: Vec<EncodeInput> = passages
            .iter()
            .map(|p| EncodeInput::Dual(query.into(), (*p).into()))
            .collect();
        self.tokenizer.encode_batch(inputs, true).map_err(tok_err)
    }

    /// Scores each passage against `query`: the classifier's logit, higher is more relevant.
    /// Pairs are sorted by length and run in batches of at most 64 × 256 padded tokens (one pass
    /// for a top 50 of ordinary passages); `cancelled` is polled between batches.
    pub fn score(
        &self,
        query: &str,
        passages: &[&str],
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<f32>, RerankError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let span = tracing::debug_span!("rerank", model = %self.name, pairs = passages.len());
        let _enter = span.enter();
        let encodings = self.encode(query, passages)?;
        self.counters.calls.fetch_add(1, Ordering::Relaxed);
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].get_ids().len()));
        let mut out = vec![0f32; encodings.len()];
        // Longest first: each batch's first pair sets its padded length.
        let mut start = 0;
        while start < order.len() {
            let longest = encodings[order[start]].get_ids().len().max(1);
            let rows = (BATCH_TOKENS / longest).max(1);
            let group = &order[start..(start + rows).min(order.len())];
            if cancelled() {
                return Err(RerankError::Cancelled);
            }
            let logits = self.forward(group.iter().map(|&i| &encodings[i]))?;
            for (&i, v) in group.iter().zip(logits) {
                out[i] = v;
            }
            start += group.len();
        }
        Ok(out)
    }

    fn forward<'a>(
        &self,
        group: impl ExactSizeIterator<Item = &'a Encoding> + Clone,
    ) -> Result<Vec<f32>, RerankError> {
        let rows = group.len();
        let longest = group.clone().map(|e| e.len()).max().unwrap_or(0).max(1);
        let zeros = vec![0u32; longest];
        let logits = match &self.net {
            Net::Bert {
                bert,
                pooler,
                classifier,
            } => {
                let cls = match bert {
                    Bert::Packed(bert) => {
                        let seqs: Vec<(&[u32], &[u32])> = group
                            .map(|e| (e.get_ids(), self.type_ids(e, &zeros)))
                            .collect();
                        bert.forward(&seqs)?.first_rows()?
                    }
                    Bert::Candle(bert) => {
                        let (ids, types, mask) = self.padded(group, longest, &zeros)?;
                        let states = bert.forward(&ids, &types, Some(&mask))?;
                        states.narrow(1, 0, 1)?.squeeze(1)?
                    }
                };
                classifier.forward(&pooler.forward(&cls)?.tanh()?)?
            }
            Net::XlmRoberta(m) => {
                let (ids, types, mask) = self.padded(group, longest, &zeros)?;
                m.forward(&ids, &mask, &types)?
            }
        };
        self.logits(rows, logits)
    }

    /// The token types the model reads for `e`: its own (BERT), or zeros (XLM-RoBERTa has one
    /// token type; its tokenizer passes none). `zeros` is at least as long as `e`.
    fn type_ids<'e>(&self, e: &'e Encoding, zeros: &'e [u32]) -> &'e [u32] {
        match self.dir.layout {
            Layout::Bert(_) => e.get_type_ids(),
            Layout::XlmRoberta(_) => &zeros[..e.len()],
        }
    }

    /// Token ids, type ids and attention mask of `group`, padded to `longest` (its longest
    /// pair; `zeros` is that long).
    fn padded<'a>(
        &self,
        group: impl ExactSizeIterator<Item = &'a Encoding>,
        longest: usize,
        zeros: &[u32],
    ) -> Result<(Tensor, Tensor, Tensor), RerankError> {
        let rows = group.len();
        let mut ids = Vec::with_capacity(rows * longest);
        let mut types = Vec::with_capacity(rows * longest);
        let mut mask = Vec::with_capacity(rows * longest);
        for e in group {
            let n = e.get_ids().len();
            ids.extend_from_slice(e.get_ids());
            types.extend_from_slice(self.type_ids(e, zeros));
            mask.extend(std::iter::repeat_n(1u32, n));
            let pad = longest - n;
            ids.extend(std::iter::repeat_n(self.dir.pad_id, pad));
            types.extend(std::iter::repeat_n(0u32, pad));
            mask.extend(std::iter::repeat_n(0u32, pad));
        }
        let shape = (rows, longest);
        Ok((
            Tensor::from_vec(ids, shape, &self.device)?,
            Tensor::from_vec(types, shape, &self.device)?,
            Tensor::from_vec(mask, shape, &self.device)?,
        ))
    }

    /// Counts a forward pass of `rows` pairs and reads its logits (the first column).
    fn logits(&self, rows: usize, logits: Tensor) -> Result<Vec<f32>, RerankError> {
        self.counters.forward_passes.fetch_add(1, Ordering::Relaxed);
        self.counters
            .pairs
            .fetch_add(rows as u64, Ordering::Relaxed);
        let v: Vec<f32> = logits
            .narrow(1, 0, 1)?
            .squeeze(1)?
            .to_device(&Device::Cpu)?
            .to_vec1()?;
        Ok(v)
    }
}
