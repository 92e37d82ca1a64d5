//! The sentence encoder: tokenise, run BERT in padded batches, pool, project, normalise.

use candle_core::{DType, Device, Tensor, D};
use candle_nn::{Linear, Module, VarBuilder};
use candle_transformers::models::bert::BertModel;
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::packed::PackedBert;
use crate::{EmbedError, ModelDir, Pooling};

/// Which implementation of BERT's forward pass runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BertKernel {
    /// The packed CPU path (`packed`) on the CPU, candle's `BertModel` on other devices.
    #[default]
    Auto,
    /// candle's `BertModel` (padded batches) on every device: the reference path.
    Candle,
}

/// A BERT encoder stack: candle's, or the packed CPU path.
pub enum Bert {
    /// candle's `BertModel`, padded batches (any device).
    Candle(BertModel),
    /// Packed sequences on the CPU.
    Packed(PackedBert),
}

impl BertKernel {
    /// Whether this choice runs the packed path on `device` (the one place that decides).
    pub fn packed_on(self, device: &Device) -> bool {
        self == BertKernel::Auto && device.is_cpu()
    }

    /// `auto` or `candle` (the configuration's spelling).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(BertKernel::Auto),
            "candle" => Some(BertKernel::Candle),
            _ => None,
        }
    }
}

impl Bert {
    /// Loads the weights in `vb` with the implementation `kernel` chooses for `device`.
    pub fn load(
        vb: VarBuilder,
        cfg: &candle_transformers::models::bert::Config,
        device: &Device,
        kernel: BertKernel,
    ) -> candle_core::Result<Self> {
        Ok(if kernel.packed_on(device) {
            Bert::Packed(PackedBert::load(vb, cfg)?)
        } else {
            Bert::Candle(BertModel::load(vb, cfg)?)
        })
    }
}

/// Inputs up to this many word pieces in total run on one thread: a single question's ~200 small
/// tensor operations gain nothing from a thread split (measured p50 13.8 vs 14.4 ms, p99 16.8 vs
/// 20.0 ms on 2 cores) and leave the other core to the server.
const SERIAL_MAX_TOKENS: usize = 256;

/// What an encoder produces; recorded with the chunks table so that stores never mix models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncoderInfo {
    /// Registry name of the model (e.g. `all-MiniLM-L6-v2`).
    pub model_id: String,
    /// Vector size.
    pub dim: usize,
    /// Pooling.
    pub pooling: Pooling,
    /// Whether vectors are unit length (cosine = inner product).
    pub normalize: bool,
    /// Truncation length in word pieces.
    pub max_len: usize,
}

/// A loaded BERT-family sentence encoder. Loading is the expensive part; load once per process.
pub struct Encoder {
    /// A one-thread pool for small inputs (single queries): splitting tiny tensor operations
    /// across threads costs more in wake-ups than it saves.
    serial: rayon::ThreadPool,
    model: Bert,
    projection: Option<Linear>,
    tokenizer: Tokenizer,
    pad_id: u32,
    device: Device,
    info: EncoderInfo,
    batch_size: usize,
}

fn tok_err(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Tokenizer(e.to_string())
}

impl Encoder {
    /// Loads the model in `dir` onto `device` under the name `model_id`.
    pub fn load(dir: &ModelDir, model_id: &str, device: Device) -> Result<Self, EmbedError> {
        Self::load_with(dir, model_id, device, BertKernel::Auto)
    }

    /// [`Encoder::load`] with a choice of forward pass (benchmarks compare the two).
    pub fn load_with(
        dir: &ModelDir,
        model_id: &str,
        device: Device,
        kernel: BertKernel,
    ) -> Result<Self, EmbedError> {
        let tok_path = dir.path.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tok_path).map_err(|e| EmbedError::Config {
            path: tok_path.clone(),
            message: e.to_string(),
        })?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: dir.max_len,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(tok_err)?;
        let weights_path = dir.path.join("model.safetensors");
        let bytes = std::fs::read(&weights_path).map_err(|source| EmbedError::Io {
            path: weights_path.clone(),
            source,
        })?;
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &device)?;
        let bert_vb = match &dir.weight_prefix {
            Some(p) => vb.pp(p),
            None => vb.clone(),
        };
        let model = Bert::load(bert_vb, &dir.bert, &device, kernel)?;
        let projection = match &dir.projection {
            Some((prefix, out)) => Some(candle_nn::linear(
                dir.bert.hidden_size,
                *out,
                vb.pp(prefix),
            )?),
            None => None,
        };
        let serial = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "mitra-encoder-serial".into())
            .build()
            .map_err(|e| EmbedError::Tokenizer(format!("thread pool: {e}")))?;
        let pad_id = tokenizer
            .get_padding()
            .map(|p| p.pad_id)
            .or_else(|| tokenizer.token_to_id("[PAD]"))
            .unwrap_or(0);
        Ok(Encoder {
            serial,
            model,
            projection,
            pad_id,
            tokenizer,
            device,
            info: EncoderInfo {
                model_id: model_id.to_string(),
                dim: dir.dim,
                pooling: dir.pooling,
                normalize: dir.normalize,
                max_len: dir.max_len,
            },
            batch_size: 32,
        })
    }

    /// Sets how many inputs run through the model at once (default 32).
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// What this encoder produces.
    pub fn info(&self) -> &EncoderInfo {
        &self.info
    }

    /// Number of word pieces (special tokens included, after truncation) of each text.
    pub fn token_counts(&self, texts: &[&str]) -> Result<Vec<usize>, EmbedError> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(tok_err)?;
        Ok(enc.iter().map(|e| e.get_ids().len()).collect())
    }

    /// Encodes `texts` into one vector each, in input order. Inputs are truncated at the
    /// model's maximum length; batches are grouped by length and padded to their longest input.
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(tok_err)?;
        let tokens: usize = encodings.iter().map(|e| e.get_ids().len()).sum();
        if tokens <= SERIAL_MAX_TOKENS {
            return self.serial.install(|| self.forward_all(&encodings));
        }
        self.forward_all(&encodings)
    }

    fn forward_all(&self, encodings: &[tokenizers::Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].get_ids().len()));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); encodings.len()];
        for group in order.chunks(self.batch_size) {
            let mut pooled = self.pool(group, encodings)?;
            if let Some(p) = &self.projection {
                pooled = p.forward(&pooled)?;
            }
            if self.info.normalize {
                let norm = pooled
                    .sqr()?
                    .sum_keepdim(D::Minus1)?
                    .sqrt()?
                    .clamp(1e-12f32, f32::MAX)?;
                pooled = pooled.broadcast_div(&norm)?;
            }
            let rows: Vec<Vec<f32>> = pooled.to_device(&Device::Cpu)?.to_vec2()?;
            for (&i, v) in group.iter().zip(rows) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// The pooled hidden states (sequences × hidden) of the inputs `group` of `encodings`.
    fn pool(
        &self,
        group: &[usize],
        encodings: &[tokenizers::Encoding],
    ) -> Result<Tensor, EmbedError> {
        let model = match &self.model {
            Bert::Packed(m) => {
                let seqs: Vec<(&[u32], &[u32])> = group
                    .iter()
                    .map(|&i| (encodings[i].get_ids(), encodings[i].get_type_ids()))
                    .collect();
                let packed = m.forward(&seqs)?;
                return Ok(match self.info.pooling {
                    Pooling::Cls => packed.first_rows()?,
                    Pooling::Mean => packed.mean_rows()?,
                });
            }
            Bert::Candle(m) => m,
        };
        let longest = group
            .iter()
            .map(|&i| encodings[i].get_ids().len())
            .max()
            .unwrap_or(0)
            .max(1);
        let mut ids = Vec::with_capacity(group.len() * longest);
        let mut types = Vec::with_capacity(group.len() * longest);
        let mut mask = Vec::with_capacity(group.len() * longest);
        for &i in group {
            let e = &encodings[i];
            let n = e.get_ids().len();
            ids.extend_from_slice(e.get_ids());
            types.extend_from_slice(e.get_type_ids());
            mask.extend(std::iter::repeat_n(1u32, n));
            let pad = longest - n;
            ids.extend(std::iter::repeat_n(self.pad_id, pad));
            types.extend(std::iter::repeat_n(0u32, pad));
            mask.extend(std::iter::repeat_n(0u32, pad));
        }
        let shape = (group.len(), longest);
        let ids = Tensor::from_vec(ids, shape, &self.device)?;
        let types = Tensor::from_vec(types, shape, &self.device)?;
        let mask = Tensor::from_vec(mask, shape, &self.device)?;
        let states = model.forward(&ids, &types, Some(&mask))?;
        Ok(match self.info.pooling {
            Pooling::Cls => states.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let sum = states.broadcast_mul(&m)?.sum(1)?;
                let count = m.sum(1)?.clamp(1e-9f32, f32::MAX)?;
                sum.broadcast_div(&count)?
            }
        })
    }
}
