//! The quantized transformer for each supported architecture (candle-transformers), behind one type.

use std::io::Cursor;

use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use candle_transformers::models::{
    quantized_gemma3, quantized_llama, quantized_phi3, quantized_qwen2, quantized_qwen3,
};

use crate::gguf::{Arch, Gguf};
use crate::LlmError;

/// Loaded weights of one model.
pub enum Weights {
    /// Mitra's decoder (`llama` without experts, `qwen2`).
    Mitra(crate::decoder::Decoder),
    /// `llama`.
    Llama(quantized_llama::ModelWeights),
    /// `qwen2`.
    Qwen2(quantized_qwen2::ModelWeights),
    /// `qwen3`.
    Qwen3(quantized_qwen3::ModelWeights),
    /// `gemma3`.
    Gemma3(quantized_gemma3::ModelWeights),
    /// `phi3`.
    Phi3(quantized_phi3::ModelWeights),
}

/// Block types without a fast CPU kernel in candle; on CPU they are converted to Q8_0 at load
/// (8-bit blocks of 32 hold every 4/5-bit value of these blocks to within half a step).
fn slow_on_cpu(t: GgmlDType) -> bool {
    matches!(t, GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1)
}

/// The model re-encoded as one GGUF in memory: the tensors of every part of a split file, with
/// slow block types converted to Q8_0 when `requantize`.
fn in_memory(
    content: &gguf_file::Content,
    file: &mut std::fs::File,
    parts: &mut [(gguf_file::Content, std::fs::File)],
    requantize: bool,
) -> candle_core::Result<Cursor<Vec<u8>>> {
    let mut tensors: Vec<(String, QTensor)> = Vec::new();
    let mut sources: Vec<(&gguf_file::Content, &mut std::fs::File)> = vec![(content, file)];
    sources.extend(parts.iter_mut().map(|(c, f)| (&*c, f)));
    for (c, f) in sources {
        let mut names: Vec<&String> = c.tensor_infos.keys().collect();
        names.sort();
        for name in names {
            let q = c.tensor(f, name, &Device::Cpu)?;
            let q = if requantize && slow_on_cpu(q.dtype()) {
                QTensor::quantize(&q.dequantize(&Device::Cpu)?, GgmlDType::Q8_0)?
            } else {
                q
            };
            tensors.push((name.clone(), q));
        }
    }
    let meta: Vec<(&str, &gguf_file::Value)> = content
        .metadata
        .iter()
        .filter(|(k, _)| !k.starts_with("split."))
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    let refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let mut out = Cursor::new(Vec::new());
    gguf_file::write(&mut out, &meta, &refs)?;
    out.set_position(0);
    Ok(out)
}

impl Weights {
    /// Reads the tensors of `g` onto `device`: Mitra's decoder where it applies (unless
    /// `reference`), else candle-transformers' model; `capacity` positions of KV cache.
    pub fn load(
        g: Gguf,
        device: &Device,
        reference: bool,
        capacity: usize,
    ) -> Result<Weights, LlmError> {
        let Gguf {
            path,
            content,
            mut file,
            arch,
            mut parts,
        } = g;
        let err = |e: candle_core::Error| LlmError::model(&path, format!("loading weights: {e}"));
        let slow = device.is_cpu()
            && std::iter::once(&content)
                .chain(parts.iter().map(|(c, _)| c))
                .any(|c| c.tensor_infos.values().any(|t| slow_on_cpu(t.ggml_dtype)));
        if slow || !parts.is_empty() {
            tracing::info!(path = %path.display(), parts = parts.len() + 1, requantize = slow, "re-encoding the model in memory");
            let mut mem = in_memory(&content, &mut file, &mut parts, slow).map_err(err)?;
            let content = gguf_file::Content::read(&mut mem).map_err(err)?;
            return Self::pick(arch, content, &mut mem, device, reference, capacity).map_err(err);
        }
        Self::pick(arch, content, &mut file, device, reference, capacity).map_err(err)
    }

    fn pick<R: std::io::Read + std::io::Seek>(
        arch: Arch,
        content: gguf_file::Content,
        file: &mut R,
        device: &Device,
        reference: bool,
        capacity: usize,
    ) -> candle_core::Result<Weights> {
        if !reference && crate::decoder::supports(&content) {
            return Ok(Weights::Mitra(crate::decoder::Decoder::from_gguf(
                content, file, device, capacity,
            )?));
        }
        Self::from_content(arch, content, file, device)
    }

    fn from_content<R: std::io::Read + std::io::Seek>(
        arch: Arch,
        content: gguf_file::Content,
        file: &mut R,
        device: &Device,
    ) -> candle_core::Result<Weights> {
        let mut file = file;
        Ok(match arch {
            Arch::Llama => Weights::Llama(quantized_llama::ModelWeights::from_gguf(
                content, &mut file, device,
            )?),
            Arch::Qwen2 => Weights::Qwen2(quantized_qwen2::ModelWeights::from_gguf(
                content, &mut file, device,
            )?),
            Arch::Qwen3 => Weights::Qwen3(quantized_qwen3::ModelWeights::from_gguf(
                content, &mut file, device,
            )?),
            Arch::Gemma3 => Weights::Gemma3(quantized_gemma3::ModelWeights::from_gguf(
                content, &mut file, device,
            )?),
            Arch::Phi3 => Weights::Phi3(quantized_phi3::ModelWeights::from_gguf(
                false, content, &mut file, device,
            )?),
        })
    }

    /// Logits of the last position after feeding `input` (1 × n) at `pos`; `pos == 0` starts a
    /// new sequence (every architecture resets its KV cache there).
    pub fn forward(&mut self, input: &Tensor, pos: usize) -> candle_core::Result<Tensor> {
        match self {
            Weights::Mitra(m) => m.forward(input, pos),
            Weights::Llama(m) => m.forward(input, pos),
            Weights::Qwen2(m) => m.forward(input, pos),
            Weights::Qwen3(m) => m.forward(input, pos),
            Weights::Gemma3(m) => m.forward(input, pos),
            Weights::Phi3(m) => m.forward(input, pos),
        }
    }

    /// Whether a forward pass at a position inside the cached sequence keeps the positions
    /// before it (Mitra's decoder), so a shared prompt prefix need not be fed again.
    pub fn keeps_prefix(&self) -> bool {
        matches!(self, Weights::Mitra(_))
    }

    /// Drops cached attention state between requests, where the model allows it.
    pub fn reset(&mut self) {
        match self {
            Weights::Mitra(_) => {}
            Weights::Llama(m) => m.clear_kv_cache(),
            Weights::Qwen2(m) => m.clear_kv_cache(),
            Weights::Qwen3(m) => m.clear_kv_cache(),
            Weights::Gemma3(_) | Weights::Phi3(_) => {}
        }
    }
}
