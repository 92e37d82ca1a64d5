//! BERT's forward pass on the CPU over packed sequences: no padding, attention per sequence.
//!
//! candle's `BertModel` pads a batch to its longest input and materialises the attention of
//! the whole batch (for 50 pairs of 257 word pieces, 12 heads: 160 MB per tensor, several per
//! layer, fresh from the kernel and zeroed each time). Here the sequences of a batch are packed
//! one after another: the dense layers run once over all their word pieces (one gemm each, the
//! bias as the destination's initial value), and attention runs per sequence and head on an
//! L × L scratch that stays in cache, in parallel, with softmax, GELU and layer norm as fused
//! loops (`kernels`). Buffers are allocated once per call. The arithmetic is BERT's: the parity
//! tests against `transformers` hold on this path.

use candle_core::{DType, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{Config, HiddenAct};
use gemm::Parallelism;
use rayon::prelude::*;

use crate::kernels;

/// A dense layer, y = x · Wᵀ + b, weights in PyTorch's [out, in] layout.
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

fn parallelism() -> Parallelism {
    match rayon::current_num_threads() {
        0 | 1 => Parallelism::None,
        n => Parallelism::Rayon(n),
    }
}

/// A matrix in memory: its first element and the steps from one row, and one column, to the next.
#[derive(Clone, Copy)]
struct Strided {
    at: *const f32,
    row: usize,
    col: usize,
}

/// `dst[m × n] = lhs[m × k] · rhs[k × n]`, overwriting `dst`, whose rows are `dst_row` apart
/// and whose columns are adjacent.
///
/// # Safety
/// Every element the shapes and steps address must lie inside one live allocation, and `dst`
/// must not overlap `lhs` or `rhs` or be written by anyone else meanwhile.
unsafe fn matmul(
    (m, n, k): (usize, usize, usize),
    dst: *mut f32,
    dst_row: usize,
    lhs: Strided,
    rhs: Strided,
    parallelism: Parallelism,
) {
    // SAFETY: as the caller promises.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst,
            1,
            dst_row as isize,
            false,
            lhs.at,
            lhs.col as isize,
            lhs.row as isize,
            rhs.at,
            rhs.col as isize,
            rhs.row as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            parallelism,
        )
    }
}

impl Dense {
    fn load(vb: VarBuilder, inputs: usize, outputs: usize) -> candle_core::Result<Self> {
        Ok(Dense {
            weight: vb
                .get((outputs, inputs), "weight")?
                .to_dtype(DType::F32)?
                .flatten_all()?
                .to_vec1()?,
            bias: vb.get(outputs, "bias")?.to_dtype(DType::F32)?.to_vec1()?,
            inputs,
            outputs,
        })
    }

    /// Query, key and value as one layer of 3 × hidden outputs.
    fn stacked(parts: [Dense; 3]) -> Dense {
        let inputs = parts[0].inputs;
        let outputs = parts.iter().map(|d| d.outputs).sum();
        let mut weight = Vec::with_capacity(outputs * inputs);
        let mut bias = Vec::with_capacity(outputs);
        for d in &parts {
            weight.extend_from_slice(&d.weight);
            bias.extend_from_slice(&d.bias);
        }
        Dense {
            weight,
            bias,
            inputs,
            outputs,
        }
    }

    /// `y[rows × outputs] = x[rows × inputs] · Wᵀ`, without the bias: the pass that reads
    /// `y` next adds it (one pass over memory fewer).
    fn forward(&self, x: &[f32], rows: usize, y: &mut [f32]) {
        assert!(x.len() >= rows * self.inputs && y.len() >= rows * self.outputs);
        if rows == 0 {
            return;
        }
        // SAFETY: the slices hold rows × inputs and rows × outputs values (asserted above) and
        // the weight outputs × inputs; Wᵀ is the weight read with rows and columns swapped.
        unsafe {
            matmul(
                (rows, self.outputs, self.inputs),
                y.as_mut_ptr(),
                self.outputs,
                Strided {
                    at: x.as_ptr(),
                    row: self.inputs,
                    col: 1,
                },
                Strided {
                    at: self.weight.as_ptr(),
                    row: 1,
                    col: self.inputs,
                },
                parallelism(),
            )
        }
    }
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn load(vb: VarBuilder, size: usize, eps: f64) -> candle_core::Result<Self> {
        Ok(Norm {
            weight: vb.get(size, "weight")?.to_dtype(DType::F32)?.to_vec1()?,
            bias: vb.get(size, "bias")?.to_dtype(DType::F32)?.to_vec1()?,
            eps: eps as f32,
        })
    }

    /// `x = norm(x + bias + residual)`, row by row.
    fn residual(&self, x: &mut [f32], bias: &[f32], residual: &[f32]) {
        let h = self.weight.len();
        x.par_chunks_mut(h * 64)
            .zip(residual.par_chunks(h * 64))
            .for_each(|(xs, rs)| {
                for (row, res) in xs.chunks_exact_mut(h).zip(rs.chunks_exact(h)) {
                    for ((v, r), b) in row.iter_mut().zip(res).zip(bias) {
                        *v += b + r;
                    }
                    kernels::layer_norm(row, &self.weight, &self.bias, self.eps);
                }
            });
    }
}

struct Layer {
    qkv: Dense,
    attention_out: Dense,
    attention_norm: Norm,
    intermediate: Dense,
    output: Dense,
    output_norm: Norm,
}

/// Hidden states of packed sequences: rows `offsets[i]..offsets[i + 1]` are sequence `i`'s.
#[derive(Debug)]
pub struct Packed {
    /// Row-major, `width` values per word piece.
    pub states: Vec<f32>,
    /// Start row of each sequence, and the total at the end.
    pub offsets: Vec<usize>,
    /// The hidden size.
    pub width: usize,
}

impl Packed {
    /// The hidden state of word piece `pos` of sequence `seq` (`pos` below its length).
    pub fn row(&self, seq: usize, pos: usize) -> &[f32] {
        let r = self.offsets[seq] + pos;
        &self.states[r * self.width..(r + 1) * self.width]
    }

    /// The first word piece of every sequence (`[CLS]`) as a tensor of sequences × hidden.
    pub fn first_rows(&self) -> candle_core::Result<Tensor> {
        let n = self.offsets.len() - 1;
        let mut v = Vec::with_capacity(n * self.width);
        for s in 0..n {
            if self.offsets[s + 1] > self.offsets[s] {
                v.extend_from_slice(self.row(s, 0));
            } else {
                // An empty sequence has no first word piece: zeros.
                v.resize(v.len() + self.width, 0.0);
            }
        }
        Tensor::from_vec(v, (n, self.width), &candle_core::Device::Cpu)
    }

    /// The mean of each sequence's rows as a tensor of sequences × hidden.
    pub fn mean_rows(&self) -> candle_core::Result<Tensor> {
        let n = self.offsets.len() - 1;
        let mut v = vec![0f32; n * self.width];
        for s in 0..n {
            let len = self.offsets[s + 1] - self.offsets[s];
            let out = &mut v[s * self.width..(s + 1) * self.width];
            for p in 0..len {
                for (o, x) in out.iter_mut().zip(self.row(s, p)) {
                    *o += x;
                }
            }
            let inv = 1.0 / len.max(1) as f32;
            out.iter_mut().for_each(|o| *o *= inv);
        }
        Tensor::from_vec(v, (n, self.width), &candle_core::Device::Cpu)
    }
}

/// How word pieces get their position ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positions {
    /// BERT: 0, 1, 2, …
    Absolute,
    /// RoBERTa and XLM-RoBERTa: `padding_idx` + 1, + 2, … (a padding token itself gets
    /// `padding_idx`), as `transformers`' `create_position_ids_from_input_ids`.
    Roberta {
        /// The padding token's id.
        padding_idx: u32,
    },
}

/// The sizes and choices that make a BERT-family encoder stack.
#[derive(Debug, Clone)]
pub struct Shape {
    /// Hidden size.
    pub hidden: usize,
    /// Attention heads (dividing the hidden size).
    pub heads: usize,
    /// Feed-forward size.
    pub intermediate: usize,
    /// Encoder layers.
    pub layers: usize,
    /// Vocabulary size.
    pub vocab: usize,
    /// Rows of the position table.
    pub positions: usize,
    /// Token types.
    pub types: usize,
    /// Layer norm epsilon.
    pub eps: f64,
    /// The feed-forward activation.
    pub act: HiddenAct,
    /// Position ids.
    pub position_ids: Positions,
}

impl From<&Config> for Shape {
    fn from(cfg: &Config) -> Self {
        Shape {
            hidden: cfg.hidden_size,
            heads: cfg.num_attention_heads,
            intermediate: cfg.intermediate_size,
            layers: cfg.num_hidden_layers,
            vocab: cfg.vocab_size,
            positions: cfg.max_position_embeddings,
            types: cfg.type_vocab_size,
            eps: cfg.layer_norm_eps,
            act: cfg.hidden_act,
            position_ids: Positions::Absolute,
        }
    }
}

/// A raw pointer that tasks writing disjoint parts of one buffer may share.
#[derive(Clone, Copy)]
struct SharedMut(*mut f32);
// SAFETY: each attention task writes only its own sequence's rows and head's columns.
unsafe impl Send for SharedMut {}
unsafe impl Sync for SharedMut {}

/// BERT (embeddings and encoder layers) on the CPU, run over packed sequences.
pub struct PackedBert {
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    shape: Shape,
}

fn table(vb: VarBuilder, rows: usize, cols: usize) -> candle_core::Result<Vec<f32>> {
    vb.get((rows, cols), "weight")?
        .to_dtype(DType::F32)?
        .flatten_all()?
        .to_vec1()
}

impl PackedBert {
    /// Loads BERT's weights (the names of `transformers`' `BertModel`) from `vb`, at its root
    /// or, as candle's loader does, under the config's `model_type` (e.g. `bert.`).
    pub fn load(vb: VarBuilder, cfg: &Config) -> candle_core::Result<Self> {
        let shape = Shape::from(cfg);
        match Self::load_shape(vb.clone(), &shape) {
            Ok(m) => Ok(m),
            Err(e) => match &cfg.model_type {
                Some(t) => Self::load_shape(vb.pp(t), &shape).map_err(|_| e),
                None => Err(e),
            },
        }
    }

    /// Loads an encoder stack of `shape` whose weights (`embeddings.…`, `encoder.layer.N.…`,
    /// BERT's names) are at the root of `vb`.
    pub fn load_shape(vb: VarBuilder, shape: &Shape) -> candle_core::Result<Self> {
        let h = shape.hidden;
        if h == 0 || shape.heads == 0 || !h.is_multiple_of(shape.heads) {
            candle_core::bail!(
                "hidden size {h} is not a positive multiple of {} heads",
                shape.heads
            );
        }
        if shape.intermediate == 0 || shape.vocab == 0 || shape.positions == 0 || shape.types == 0 {
            candle_core::bail!(
                "empty model: intermediate size {}, vocabulary {}, positions {}, token types {}",
                shape.intermediate,
                shape.vocab,
                shape.positions,
                shape.types
            );
        }
        let (inner, eps) = (shape.intermediate, shape.eps);
        let e = vb.pp("embeddings");
        let mut layers = Vec::with_capacity(shape.layers);
        for i in 0..shape.layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            layers.push(Layer {
                qkv: Dense::stacked([
                    Dense::load(a.pp("self.query"), h, h)?,
                    Dense::load(a.pp("self.key"), h, h)?,
                    Dense::load(a.pp("self.value"), h, h)?,
                ]),
                attention_out: Dense::load(a.pp("output.dense"), h, h)?,
                attention_norm: Norm::load(a.pp("output.LayerNorm"), h, eps)?,
                intermediate: Dense::load(l.pp("intermediate.dense"), h, inner)?,
                output: Dense::load(l.pp("output.dense"), inner, h)?,
                output_norm: Norm::load(l.pp("output.LayerNorm"), h, eps)?,
            });
        }
        Ok(PackedBert {
            word: table(e.pp("word_embeddings"), shape.vocab, h)?,
            position: table(e.pp("position_embeddings"), shape.positions, h)?,
            token_type: table(e.pp("token_type_embeddings"), shape.types, h)?,
            embedding_norm: Norm::load(e.pp("LayerNorm"), h, eps)?,
            layers,
            shape: shape.clone(),
        })
    }

    /// The position id of each word piece of `ids`.
    fn position_ids<'a>(&self, ids: &'a [u32]) -> impl Iterator<Item = usize> + 'a {
        let mut seen = 0usize;
        let kind = self.shape.position_ids;
        ids.iter().enumerate().map(move |(p, &id)| match kind {
            Positions::Absolute => p,
            Positions::Roberta { padding_idx } if id == padding_idx => padding_idx as usize,
            Positions::Roberta { padding_idx } => {
                seen += 1;
                padding_idx as usize + seen
            }
        })
    }

    /// Runs the sequences (token ids and token type ids of each, no padding) through the
    /// model; ids out of the vocabulary or sequences longer than the position table are errors.
    pub fn forward(&self, seqs: &[(&[u32], &[u32])]) -> candle_core::Result<Packed> {
        let sh = &self.shape;
        let h = sh.hidden;
        let mut offsets = Vec::with_capacity(seqs.len() + 1);
        offsets.push(0);
        for (ids, types) in seqs {
            if ids.len() != types.len() {
                candle_core::bail!("{} token ids but {} type ids", ids.len(), types.len());
            }
            if let Some(p) = self.position_ids(ids).max().filter(|&p| p >= sh.positions) {
                candle_core::bail!(
                    "{} word pieces need position {p}, beyond the model's {} positions",
                    ids.len(),
                    sh.positions
                );
            }
            if let Some(id) = ids.iter().find(|&&i| i as usize >= sh.vocab) {
                candle_core::bail!("token id {id} outside the vocabulary of {}", sh.vocab);
            }
            if let Some(t) = types.iter().find(|&&t| t as usize >= sh.types) {
                candle_core::bail!("token type {t} outside the model's {}", sh.types);
            }
            offsets.push(offsets.last().copied().unwrap_or(0) + ids.len());
        }
        let rows = offsets.last().copied().unwrap_or(0);
        let mut states = vec![0f32; rows * h];
        for (s, (ids, types)) in seqs.iter().enumerate() {
            let positions = self.position_ids(ids);
            for (p, ((&id, &t), pos)) in ids.iter().zip(types.iter()).zip(positions).enumerate() {
                let r = offsets[s] + p;
                let out = &mut states[r * h..(r + 1) * h];
                let w = &self.word[id as usize * h..(id as usize + 1) * h];
                let pe = &self.position[pos * h..(pos + 1) * h];
                let te = &self.token_type[t as usize * h..(t as usize + 1) * h];
                for (((o, a), b), c) in out.iter_mut().zip(w).zip(pe).zip(te) {
                    *o = a + c + b;
                }
                kernels::layer_norm(
                    out,
                    &self.embedding_norm.weight,
                    &self.embedding_norm.bias,
                    self.embedding_norm.eps,
                );
            }
        }
        let mut qkv = vec![0f32; rows * 3 * h];
        let mut context = vec![0f32; rows * h];
        let mut scratch = vec![0f32; rows * h];
        let mut inner = vec![0f32; rows * sh.intermediate];
        for layer in &self.layers {
            layer.qkv.forward(&states, rows, &mut qkv);
            self.attention(&mut qkv, &layer.qkv.bias, &offsets, &mut context);
            layer.attention_out.forward(&context, rows, &mut scratch);
            let attention_bias = &layer.attention_out.bias;
            layer
                .attention_norm
                .residual(&mut scratch, attention_bias, &states);
            std::mem::swap(&mut states, &mut scratch);
            layer.intermediate.forward(&states, rows, &mut inner);
            self.activate(&mut inner, &layer.intermediate.bias)?;
            layer.output.forward(&inner, rows, &mut scratch);
            layer
                .output_norm
                .residual(&mut scratch, &layer.output.bias, &states);
            std::mem::swap(&mut states, &mut scratch);
        }
        Ok(Packed {
            states,
            offsets,
            width: h,
        })
    }

    /// `xs = act(xs + bias)`, row by row.
    fn activate(&self, xs: &mut [f32], bias: &[f32]) -> candle_core::Result<()> {
        let width = bias.len();
        let add = |rows: &mut [f32]| {
            for row in rows.chunks_exact_mut(width) {
                for (v, b) in row.iter_mut().zip(bias) {
                    *v += b;
                }
            }
        };
        match self.shape.act {
            HiddenAct::Gelu => xs.par_chunks_mut(width * 16).for_each(|rows| {
                add(rows);
                kernels::gelu_erf(rows);
            }),
            HiddenAct::GeluApproximate => {
                xs.par_chunks_mut(width * 16).for_each(add);
                let t = Tensor::from_slice(xs, xs.len(), &candle_core::Device::Cpu)?.gelu()?;
                xs.copy_from_slice(&t.to_vec1::<f32>()?);
            }
            HiddenAct::Relu => xs.par_chunks_mut(width * 16).for_each(|rows| {
                add(rows);
                rows.iter_mut().for_each(|v| *v = v.max(0.0));
            }),
        }
        Ok(())
    }

    /// Self-attention of each sequence and head: softmax(q kᵀ / √d) v into `context`, after
    /// adding `bias` (query, key and value's) to the head's columns of `qkv`.
    fn attention(&self, qkv: &mut [f32], bias: &[f32], offsets: &[usize], context: &mut [f32]) {
        let h = self.shape.hidden;
        let d = h / self.shape.heads;
        let scale = 1.0 / (d as f32).sqrt();
        let tasks: Vec<(usize, usize)> = (0..offsets.len() - 1)
            .flat_map(|s| (0..self.shape.heads).map(move |head| (s, head)))
            .collect();
        assert!(qkv.len() >= offsets[offsets.len() - 1] * 3 * h);
        assert!(context.len() >= offsets[offsets.len() - 1] * h);
        let out = SharedMut(context.as_mut_ptr());
        let qkv = SharedMut(qkv.as_mut_ptr());
        tasks
            .par_iter()
            .for_each_init(Vec::new, |probs: &mut Vec<f32>, &(s, head)| {
                let (out, qkv) = (out, qkv);
                let start = offsets[s];
                let len = offsets[s + 1] - start;
                if len == 0 {
                    return;
                }
                probs.clear();
                probs.resize(len * len, 0.0);
                let base = qkv.0.wrapping_add(start * 3 * h + head * d);
                // SAFETY: rows start..start+len of qkv hold 3h values each (asserted above);
                // query, key and value of this head are columns head·d.., h + head·d.. and
                // 2h + head·d.. of them, which this task alone reads and writes. It alone
                // writes rows start..start+len, columns head·d..(head+1)·d of context.
                unsafe {
                    for r in 0..len {
                        for part in 0..3 {
                            let at = base.add(r * 3 * h + part * h);
                            let cols = std::slice::from_raw_parts_mut(at, d);
                            let b = &bias[part * h + head * d..part * h + (head + 1) * d];
                            for (v, b) in cols.iter_mut().zip(b) {
                                *v += b;
                            }
                        }
                    }
                    let base = base as *const f32;
                    let row = 3 * h;
                    // scores = q kᵀ (k read with rows and columns swapped).
                    let q = Strided {
                        at: base,
                        row,
                        col: 1,
                    };
                    let kt = Strided {
                        at: base.add(h),
                        row: 1,
                        col: row,
                    };
                    matmul(
                        (len, len, d),
                        probs.as_mut_ptr(),
                        len,
                        q,
                        kt,
                        Parallelism::None,
                    );
                    kernels::softmax_rows(probs, len, scale);
                    let p = Strided {
                        at: probs.as_ptr(),
                        row: len,
                        col: 1,
                    };
                    let v = Strided {
                        at: base.add(2 * h),
                        row,
                        col: 1,
                    };
                    let dst = out.0.add(start * h + head * d);
                    matmul((len, d, len), dst, h, p, v, Parallelism::None);
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(hidden: usize, intermediate: usize) -> Shape {
        Shape {
            hidden,
            heads: 2,
            intermediate,
            layers: 2,
            vocab: 10,
            positions: 8,
            types: 2,
            eps: 1e-12,
            act: HiddenAct::Gelu,
            position_ids: Positions::Roberta { padding_idx: 1 },
        }
    }

    #[test]
    fn empty_shapes_are_errors_and_zero_weights_run() {
        let vb = VarBuilder::zeros(DType::F32, &candle_core::Device::Cpu);
        assert!(PackedBert::load_shape(vb.clone(), &shape(0, 8)).is_err());
        assert!(PackedBert::load_shape(vb.clone(), &shape(4, 0)).is_err());
        assert!(PackedBert::load_shape(vb.clone(), &shape(5, 8)).is_err());
        let m = PackedBert::load_shape(vb, &shape(4, 8)).unwrap();
        let out = m
            .forward(&[(&[0, 2, 3], &[0, 1, 0]), (&[4], &[0])])
            .unwrap();
        assert_eq!(out.offsets, vec![0, 3, 4]);
        assert!(out.states.iter().all(|v| *v == 0.0));
        // RoBERTa positions start after the padding index: 6 word pieces need position 7.
        assert!(m.forward(&[(&[0; 6], &[0; 6])]).is_ok());
        assert!(m.forward(&[(&[0; 7], &[0; 7])]).is_err());
        assert_eq!(
            m.position_ids(&[0, 1, 3]).collect::<Vec<_>>(),
            vec![2, 1, 3]
        );
    }
}
