//! One loaded model: weights, tokenizer, chat template and stop tokens; greedy or sampled decoding.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{DType, Device, Tensor};
use candle_transformers::generation::{LogitsProcessor, Sampling};
use tokenizers::Tokenizer;

use crate::gguf::Gguf;
use crate::model::Weights;
use crate::template::ChatTemplate;
use crate::LlmError;

/// How to load a model.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Display name (registry name or file stem).
    pub name: String,
    /// When set, the file's sha256 must equal it.
    pub sha256: Option<String>,
    /// `cpu` or `cuda:N`.
    pub device: String,
    /// Run candle-transformers' model even where Mitra's decoder applies (comparisons).
    pub reference: bool,
    /// A Jinja chat template used instead of the file's `tokenizer.chat_template` (for files
    /// made without one, or a corrected template; like llama.cpp's `--chat-template-file`).
    pub chat_template: Option<String>,
}

/// Most positions of context kept (KV cache and prompt + answer), whatever the model allows.
pub const MAX_CONTEXT: usize = 8192;

/// What identifies the loaded model in every answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// Display name.
    pub name: String,
    /// sha256 of the GGUF file.
    pub sha256: String,
    /// Architecture.
    pub arch: String,
    /// The file.
    pub path: PathBuf,
    /// Trained context length.
    pub context_length: usize,
}

impl ModelInfo {
    /// `name@sha256:<first 12 hex>`… the form shown in `answer().model`.
    pub fn label(&self) -> String {
        format!("{} sha256:{}", self.name, self.sha256)
    }
}

/// Decoding settings of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Most tokens to generate.
    pub max_new_tokens: usize,
    /// 0 = greedy (deterministic); otherwise sampling temperature.
    pub temperature: f64,
    /// Nucleus sampling (with a temperature > 0).
    pub top_p: Option<f64>,
    /// Sampling seed.
    pub seed: u64,
    /// Penalty on tokens among the last `repeat_last_n` (1.0 = off).
    pub repeat_penalty: f32,
    /// Window of the repeat penalty.
    pub repeat_last_n: usize,
    /// Keep generating past end-of-turn (benchmarks: a fixed number of decode steps).
    pub ignore_eos: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            max_new_tokens: 256,
            temperature: 0.0,
            top_p: None,
            seed: 299_792_458,
            repeat_penalty: 1.1,
            repeat_last_n: 64,
            ignore_eos: false,
        }
    }
}

/// Why generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// End-of-turn or EOS token.
    EndOfTurn,
    /// `max_new_tokens` or the context length.
    Length,
}

/// Counts and timings of one generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// Prompt tokens fed.
    pub prompt_tokens: usize,
    /// Tokens generated (stop token excluded).
    pub completion_tokens: usize,
    /// Milliseconds of prefill (up to the first generated token).
    pub ms_prefill: f32,
    /// Milliseconds of decoding after the first token.
    pub ms_decode: f32,
    /// Why it ended.
    pub stop: Stop,
}

/// Tokens fed per forward pass during prefill. Fixed, so the models' causal-mask caches (keyed by
/// chunk and cache length) stay bounded; the remainder goes in falling powers of two.
pub const PREFILL_CHUNK: usize = 64;

/// A loaded model.
pub struct Engine {
    weights: Weights,
    tokenizer: Tokenizer,
    template: ChatTemplate,
    stops: HashSet<u32>,
    specials: Vec<String>,
    bos: Option<(u32, String)>,
    add_bos: bool,
    device: Device,
    info: ModelInfo,
    /// Tokens whose keys and values the cache holds (prefix reuse; empty when unknown).
    cached: Vec<u32>,
    /// Tokens the last prefill fed (after the reused prefix).
    fed: usize,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Engine({})", self.info.label())
    }
}

fn sha256_file(path: &Path) -> Result<String, LlmError> {
    use sha2::{Digest, Sha256};
    let mut f = std::fs::File::open(path).map_err(|e| LlmError::model(path, e))?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).map_err(|e| LlmError::model(path, e))?;
    Ok(hex::encode(h.finalize()))
}

impl Engine {
    /// Loads a GGUF model: checksum (when pinned), header, tokenizer, template, weights.
    pub fn load(path: &Path, opts: &LoadOptions) -> Result<Engine, LlmError> {
        if !path.is_file() {
            return Err(LlmError::model(path, "no such file"));
        }
        let sha256 = sha256_file(path)?;
        if let Some(want) = &opts.sha256 {
            if !want.eq_ignore_ascii_case(&sha256) {
                return Err(LlmError::Checksum {
                    path: path.to_path_buf(),
                    got: sha256,
                    want: want.clone(),
                });
            }
        }
        let g = Gguf::open(path)?;
        let (tokenizer, _) = crate::tokenizer::load(&g)?;
        let token_text = |key: &str| {
            g.u32(key)
                .and_then(|id| tokenizer.id_to_token(id).map(|t| (id, t)))
        };
        let bos = token_text("tokenizer.ggml.bos_token_id");
        let eos = token_text("tokenizer.ggml.eos_token_id");
        // Files without the flag: llama.cpp and transformers add BOS for SentencePiece vocabularies.
        let add_bos = g
            .bool("tokenizer.ggml.add_bos_token")
            .unwrap_or(g.str("tokenizer.ggml.model").as_deref() == Some("llama"));
        let source = match &opts.chat_template {
            Some(t) => t.clone(),
            None => g.str("tokenizer.chat_template").ok_or_else(|| {
                LlmError::Template(format!(
                    "{} has no tokenizer.chat_template (an instruct model is needed; or set llm.chat_template to a template file)",
                    path.display()
                ))
            })?,
        };
        let template = ChatTemplate::new(
            &source,
            bos.as_ref().map(|b| b.1.as_str()).unwrap_or(""),
            eos.as_ref().map(|e| e.1.as_str()).unwrap_or(""),
        )?;
        let specials_map = crate::tokenizer::special_tokens(&tokenizer);
        // Stop on EOS and on every special token the template writes after an assistant turn.
        let mut stops: HashSet<u32> = eos.iter().map(|e| e.0).collect();
        let eot = template.end_of_turn_text()?;
        let enc = tokenizer
            .encode(eot.as_str(), false)
            .map_err(|e| LlmError::Tokenizer(e.to_string()))?;
        let special_ids: HashSet<u32> = specials_map.values().copied().collect();
        stops.extend(enc.get_ids().iter().filter(|i| special_ids.contains(i)));
        let context_length = g.context_length().unwrap_or(4096).min(MAX_CONTEXT);
        let arch = format!("{:?}", g.arch).to_lowercase();
        let device = mitra_embed::parse_device(&opts.device)
            .map_err(|e| LlmError::model(path, e.to_string()))?;
        let weights = Weights::load(g, &device, opts.reference, context_length)?;
        let mut specials: Vec<String> = specials_map.into_keys().collect();
        specials.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Ok(Engine {
            weights,
            tokenizer,
            template,
            stops,
            specials,
            bos,
            add_bos,
            device,
            cached: Vec::new(),
            fed: 0,
            info: ModelInfo {
                name: opts.name.clone(),
                sha256,
                arch,
                path: path.to_path_buf(),
                context_length,
            },
        })
    }

    /// The model's identity.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The chat template.
    pub fn template(&self) -> &ChatTemplate {
        &self.template
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Token ids that end generation.
    pub fn stop_tokens(&self) -> &HashSet<u32> {
        &self.stops
    }

    /// Removes special-token texts (`<|im_start|>`…) from untrusted text, so a question or a
    /// document cannot open or close a turn of the prompt.
    pub fn neutralize(&self, text: &str) -> String {
        let mut s = text.to_string();
        for sp in &self.specials {
            if s.contains(sp.as_str()) {
                s = s.replace(sp.as_str(), "");
            }
        }
        s
    }

    /// Token ids of a rendered prompt (BOS prepended when the model wants it and the template did not write it).
    pub fn encode_prompt(&self, rendered: &str) -> Result<Vec<u32>, LlmError> {
        let enc = self
            .tokenizer
            .encode(rendered, false)
            .map_err(|e| LlmError::Tokenizer(e.to_string()))?;
        let mut ids = enc.get_ids().to_vec();
        if let Some((bos, _)) = &self.bos {
            if self.add_bos && ids.first() != Some(bos) {
                ids.insert(0, *bos);
            }
        }
        Ok(ids)
    }

    /// Number of tokens of a plain text (no specials added).
    pub fn count_tokens(&self, text: &str) -> Result<usize, LlmError> {
        Ok(self
            .tokenizer
            .encode(text, false)
            .map_err(|e| LlmError::Tokenizer(e.to_string()))?
            .len())
    }

    /// Forgets the cached prompt: the next prompt is fed from its first token. Called at the
    /// start of every request, so a request's arithmetic never depends on the one before it.
    pub fn forget(&mut self) {
        self.cached.clear();
        self.weights.reset();
    }

    /// Feeds `prompt` and returns the logits after its last token. The longest prefix shared
    /// with the previous prompt of this request is not fed again (where the model keeps it).
    pub fn prefill(
        &mut self,
        prompt: &[u32],
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Tensor, LlmError> {
        let n = prompt.len();
        if n == 0 {
            return Err(LlmError::Generation("empty prompt".into()));
        }
        if n >= self.info.context_length {
            return Err(LlmError::PromptTooLong {
                tokens: n,
                budget: self.info.context_length.saturating_sub(1),
            });
        }
        // At least the last token is fed, for its logits.
        let mut pos = if self.weights.keeps_prefix() {
            self.cached
                .iter()
                .zip(prompt)
                .take_while(|(a, b)| a == b)
                .count()
                .min(n - 1)
        } else {
            0
        };
        if pos == 0 {
            self.weights.reset();
        }
        self.cached.clear();
        self.fed = n - pos;
        let mut logits = None;
        while pos < n {
            if cancelled() {
                return Err(LlmError::Cancelled);
            }
            // Full chunks, then the remainder in falling powers of two (32, 16, … 1).
            let left = n - pos;
            let step = if left >= PREFILL_CHUNK {
                PREFILL_CHUNK
            } else {
                1 << (usize::BITS - 1 - left.leading_zeros())
            };
            let input = Tensor::new(&prompt[pos..pos + step], &self.device)
                .and_then(|t| t.unsqueeze(0))
                .map_err(LlmError::gen)?;
            logits = Some(self.weights.forward(&input, pos).map_err(LlmError::gen)?);
            pos += step;
        }
        self.cached = prompt.to_vec();
        logits.ok_or_else(|| LlmError::Generation("empty prompt".into()))
    }

    /// Tokens the last [`Engine::prefill`] fed after the prefix it reused.
    pub fn last_fed(&self) -> usize {
        self.fed
    }

    /// The model's verdict after `prompt` (which ends where the reply starts): the log-odds of
    /// a reply opening with "Yes" over one opening with "No" (each summed over its spellings).
    pub fn yes_no(
        &mut self,
        prompt: &[u32],
        cancelled: &dyn Fn() -> bool,
    ) -> Result<f32, LlmError> {
        let logits = self
            .prefill(prompt, cancelled)?
            .squeeze(0)
            .and_then(|l| l.to_dtype(DType::F32))
            .and_then(|l| l.to_vec1::<f32>())
            .map_err(LlmError::gen)?;
        let (yes, no) = self.yes_no_ids()?;
        let lse = |ids: &[u32]| {
            let v: Vec<f32> = ids
                .iter()
                .filter_map(|&i| logits.get(i as usize).copied())
                .collect();
            let m = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            m + v.iter().map(|x| (x - m).exp()).sum::<f32>().ln()
        };
        Ok(lse(&yes) - lse(&no))
    }

    /// Single-token spellings of "yes" and of "no" in this vocabulary.
    fn yes_no_ids(&self) -> Result<(Vec<u32>, Vec<u32>), LlmError> {
        let ids = |words: &[&str]| -> Result<Vec<u32>, LlmError> {
            let mut out = Vec::new();
            for w in words {
                let enc = self
                    .tokenizer
                    .encode(*w, false)
                    .map_err(|e| LlmError::Tokenizer(e.to_string()))?;
                if let [one] = enc.get_ids() {
                    if !out.contains(one) {
                        out.push(*one);
                    }
                }
            }
            if out.is_empty() {
                return Err(LlmError::Tokenizer(format!(
                    "no single token spells {:?} in this vocabulary",
                    words[0]
                )));
            }
            Ok(out)
        };
        Ok((
            ids(&["Yes", "yes", " Yes", " yes", "YES"])?,
            ids(&["No", "no", " No", " no", "NO"])?,
        ))
    }

    /// Generates after `prompt`. `on_text` gets each new piece of decoded text and returns false
    /// to stop (the caller went away); `cancelled` is polled between forward passes.
    pub fn generate(
        &mut self,
        prompt: &[u32],
        p: &Params,
        cancelled: &dyn Fn() -> bool,
        on_text: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(String, Stats), LlmError> {
        if prompt.is_empty() {
            return Err(LlmError::Generation("empty prompt".into()));
        }
        let ctx = self.info.context_length;
        if prompt.len() >= ctx {
            return Err(LlmError::PromptTooLong {
                tokens: prompt.len(),
                budget: ctx.saturating_sub(1),
            });
        }
        let sampling = if p.temperature <= 0.0 {
            Sampling::ArgMax
        } else {
            match p.top_p {
                Some(top_p) if top_p < 1.0 => Sampling::TopP {
                    p: top_p,
                    temperature: p.temperature,
                },
                _ => Sampling::All {
                    temperature: p.temperature,
                },
            }
        };
        let mut sampler = LogitsProcessor::from_sampling(p.seed, sampling);
        let t0 = Instant::now();
        let n = prompt.len();
        let mut logits = Some(self.prefill(prompt, cancelled)?);
        let mut generated: Vec<u32> = Vec::new();
        let mut text = String::new();
        let mut ms_prefill = 0f32;
        let mut t_first = t0;
        let budget = p.max_new_tokens.min(ctx - n);
        let mut stop = Stop::Length;
        while generated.len() < budget {
            let l = logits
                .take()
                .expect("logits after each forward")
                .squeeze(0)
                .and_then(|l| l.to_dtype(DType::F32))
                .map_err(LlmError::gen)?;
            let l = if p.repeat_penalty != 1.0 && !generated.is_empty() {
                let start = generated.len().saturating_sub(p.repeat_last_n);
                candle_transformers::utils::apply_repeat_penalty(
                    &l,
                    p.repeat_penalty,
                    &generated[start..],
                )
                .map_err(LlmError::gen)?
            } else {
                l
            };
            let next = sampler.sample(&l).map_err(LlmError::gen)?;
            if generated.is_empty() {
                t_first = Instant::now();
                ms_prefill = (t_first - t0).as_secs_f32() * 1000.0;
            }
            if self.stops.contains(&next) && !p.ignore_eos {
                stop = Stop::EndOfTurn;
                break;
            }
            generated.push(next);
            let decoded = self
                .tokenizer
                .decode(&generated, true)
                .map_err(|e| LlmError::Tokenizer(e.to_string()))?;
            // Emit only whole characters: a multi-byte character may span tokens.
            if decoded.len() > text.len() && !decoded.ends_with('\u{FFFD}') {
                let piece = decoded.get(text.len()..).unwrap_or_default().to_string();
                text = decoded;
                if !piece.is_empty() && !on_text(&piece) {
                    return Err(LlmError::Cancelled);
                }
            }
            if cancelled() {
                return Err(LlmError::Cancelled);
            }
            if generated.len() >= budget {
                break;
            }
            let input = Tensor::new(&[next], &self.device)
                .and_then(|t| t.unsqueeze(0))
                .map_err(LlmError::gen)?;
            logits = Some(
                self.weights
                    .forward(&input, n + generated.len() - 1)
                    .map_err(LlmError::gen)?,
            );
        }
        // The cache also holds the fed answer tokens; only the prompt is remembered as reusable.
        self.cached = prompt.to_vec();
        let final_text = self
            .tokenizer
            .decode(&generated, true)
            .map_err(|e| LlmError::Tokenizer(e.to_string()))?;
        if final_text.len() > text.len() {
            if let Some(rest) = final_text.get(text.len()..) {
                on_text(rest);
            }
        }
        let ms_decode = if generated.is_empty() {
            0.0
        } else {
            t_first.elapsed().as_secs_f32() * 1000.0
        };
        if generated.is_empty() {
            ms_prefill = t0.elapsed().as_secs_f32() * 1000.0;
        }
        Ok((
            final_text,
            Stats {
                prompt_tokens: n,
                completion_tokens: generated.len(),
                ms_prefill,
                ms_decode,
                stop,
            },
        ))
    }
}
