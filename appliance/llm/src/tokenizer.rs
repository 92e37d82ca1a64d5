//! The model's tokenizer, built from the GGUF's own vocabulary and merges (or a `tokenizer.json`
//! beside the file), the way transformers builds it from the same file (`gguf_file=`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use tokenizers::Tokenizer;

use crate::gguf::Gguf;
use crate::LlmError;

/// Pre-tokenizer split patterns by `tokenizer.ggml.pre`, as the vocabularies' merges were learned
/// (the same table transformers keeps for GGUF files).
const LLAMA3_SPLIT: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const QWEN2_SPLIT: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

fn split_for(pre: &str) -> Option<&'static str> {
    Some(match pre {
        "llama3" | "llama-v3" | "llama-bpe" | "falcon3" | "smaug-bpe" | "dbrx" | "pixtral" => {
            LLAMA3_SPLIT
        }
        "qwen2" | "deepseek-r1-qwen" | "megrez" => QWEN2_SPLIT,
        _ => return None,
    })
}

/// GPT-2's byte-to-unicode table: the alphabet byte-level vocabularies are written in.
fn bytes_to_unicode() -> [char; 256] {
    let mut out = ['\0'; 256];
    let mut n = 0u32;
    for b in 0..=255u32 {
        let printable =
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b);
        out[b as usize] = if printable {
            char::from_u32(b).expect("latin-1")
        } else {
            n += 1;
            char::from_u32(255 + n).expect("in range")
        };
    }
    out
}

/// The tokenizer for a model file: `<file>.tokenizer.json` or `tokenizer.json` beside it when
/// present, else built from the GGUF metadata.
pub fn load(g: &Gguf) -> Result<(Tokenizer, PathBuf), LlmError> {
    for side in sidecars(&g.path) {
        if side.is_file() {
            let t = Tokenizer::from_file(&side)
                .map_err(|e| LlmError::Tokenizer(format!("{}: {e}", side.display())))?;
            return Ok((t, side));
        }
    }
    Ok((from_gguf(g)?, g.path.clone()))
}

fn sidecars(path: &Path) -> Vec<PathBuf> {
    let mut v = vec![path.with_extension("tokenizer.json")];
    if let Some(dir) = path.parent() {
        v.push(dir.join("tokenizer.json"));
    }
    v
}

/// Builds the tokenizer from `tokenizer.ggml.*`: byte-level BPE (`tokenizer.ggml.model = "gpt2"`)
/// or a SentencePiece vocabulary (`"llama"`: Llama 2, Mistral, Phi-3, Gemma).
pub fn from_gguf(g: &Gguf) -> Result<Tokenizer, LlmError> {
    let kind = g.str("tokenizer.ggml.model").unwrap_or_default();
    let tokens = g
        .strings("tokenizer.ggml.tokens")
        .ok_or_else(|| LlmError::Tokenizer("no tokenizer.ggml.tokens".into()))?;
    let types = g.ints("tokenizer.ggml.token_type").unwrap_or_default();
    let spec = match kind.as_str() {
        "gpt2" => byte_level(g, &tokens, &types)?,
        "llama" => {
            let arch = g.str("general.architecture").unwrap_or_default();
            sentencepiece(g, &tokens, &types, Flavour::of(&arch))?
        }
        other => {
            return Err(LlmError::Tokenizer(format!(
                "tokenizer.ggml.model {other:?} is not built from GGUF metadata here (\"gpt2\" and \"llama\" are); put the model's tokenizer.json beside {}",
                g.path.display()
            )))
        }
    };
    let bytes = serde_json::to_vec(&spec).map_err(|e| LlmError::Tokenizer(e.to_string()))?;
    Tokenizer::from_bytes(bytes).map_err(|e| LlmError::Tokenizer(e.to_string()))
}

/// An added token in `tokenizer.json` form.
fn added(id: usize, content: &str, special: bool) -> Value {
    json!({
        "id": id, "content": content, "single_word": false, "lstrip": false, "rstrip": false,
        "normalized": false, "special": special
    })
}

/// The `tokenizer.json` of a byte-level BPE vocabulary.
fn byte_level(g: &Gguf, tokens: &[String], types: &[i64]) -> Result<Value, LlmError> {
    let merges = g
        .strings("tokenizer.ggml.merges")
        .ok_or_else(|| LlmError::Tokenizer("no tokenizer.ggml.merges".into()))?;
    let spelling = bytes_to_unicode();
    let alphabet: HashSet<char> = spelling.iter().copied().collect();
    let in_alphabet = |t: &str| t.chars().all(|c| alphabet.contains(&c));
    // Tokens already in the byte alphabet stay; others are respelled byte by byte (later wins).
    let mut vocab = Map::new();
    for (i, t) in tokens.iter().enumerate() {
        let key = if in_alphabet(t) {
            t.clone()
        } else {
            t.bytes().map(|b| spelling[b as usize]).collect()
        };
        vocab.insert(key, json!(i));
    }
    let merges: Vec<Value> = merges
        .iter()
        .map(|m| {
            let (a, b) = m.split_once(' ').unwrap_or((m.as_str(), ""));
            json!([a, b])
        })
        .collect();
    // Control tokens (type 3) in the byte alphabet are special; user-defined ones (type 4) are
    // added whole but not special.
    let mut added_tokens = Vec::new();
    for (i, (t, ty)) in tokens.iter().zip(types.iter()).enumerate() {
        let special = match ty {
            3 if in_alphabet(t) => true,
            4 if vocab.contains_key(t) => false,
            _ => continue,
        };
        added_tokens.push(added(i, t, special));
    }
    let byte_level = |use_regex: bool| json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": use_regex});
    let pre = g.str("tokenizer.ggml.pre").unwrap_or_default();
    let pre_tokenizer = match split_for(&pre) {
        Some(re) => json!({"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": re}, "behavior": "Isolated", "invert": false},
            byte_level(false)
        ]}),
        None => byte_level(true),
    };
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added_tokens,
        "normalizer": null,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
        "model": {
            "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": "",
            "end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false,
            "ignore_merges": false, "vocab": vocab, "merges": merges
        }
    }))
}

/// How a SentencePiece vocabulary is segmented, by architecture (transformers' builders:
/// `LlamaTokenizer`, Phi-3's normalizer, `GemmaTokenizer`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flavour {
    /// Metaspace pre-tokenizer, `▁` prepended to the first word only (Llama 2, Mistral).
    Llama,
    /// The prefix space and the other spaces come from a normalizer; no pre-tokenizer.
    Phi3,
    /// Spaces become `▁` in a normalizer, no prefix; merges ordered by position in the file.
    Gemma,
}

impl Flavour {
    fn of(arch: &str) -> Flavour {
        match arch {
            "phi3" => Flavour::Phi3,
            "gemma" | "gemma2" | "gemma3" => Flavour::Gemma,
            _ => Flavour::Llama,
        }
    }
}

const SPIECE_SPACE: char = '\u{2581}';

/// The `tokenizer.json` of a SentencePiece vocabulary: BPE with byte fallback over the file's
/// pieces, merges from the file or, as llama.cpp's files have none, recovered from the scores.
fn sentencepiece(
    g: &Gguf,
    tokens: &[String],
    types: &[i64],
    flavour: Flavour,
) -> Result<Value, LlmError> {
    // Gemma stores runs of spaces as spaces; its tokenizer looks them up as `▁`s.
    let tokens: Vec<String> = if flavour == Flavour::Gemma {
        tokens
            .iter()
            .map(|t| {
                if t.contains(' ') && t.trim().is_empty() {
                    SPIECE_SPACE.to_string().repeat(t.chars().count())
                } else {
                    t.clone()
                }
            })
            .collect()
    } else {
        tokens.to_vec()
    };
    let mut vocab = Map::new();
    for (i, t) in tokens.iter().enumerate() {
        vocab.insert(t.clone(), json!(i));
    }
    let merges: Vec<(String, String)> = match g.strings("tokenizer.ggml.merges") {
        Some(m) => m
            .iter()
            .map(|m| {
                let (a, b) = m.split_once(' ').unwrap_or((m.as_str(), ""));
                (a.to_string(), b.to_string())
            })
            .collect(),
        None if flavour == Flavour::Gemma => {
            let positions: Vec<f32> = (0..tokens.len()).map(|i| -(i as f32)).collect();
            recover_merges(&tokens, &positions)
        }
        None => {
            let scores = g.floats("tokenizer.ggml.scores").ok_or_else(|| {
                LlmError::Tokenizer("no tokenizer.ggml.merges and no tokenizer.ggml.scores".into())
            })?;
            if scores.len() != tokens.len() {
                return Err(LlmError::Tokenizer(format!(
                    "{} scores for {} tokens",
                    scores.len(),
                    tokens.len()
                )));
            }
            recover_merges(&tokens, &scores)
        }
    };
    let merges: Vec<Value> = merges.into_iter().map(|(a, b)| json!([a, b])).collect();
    // Control tokens and the tokens named BOS, EOS, UNK and PAD are special.
    let named: HashSet<usize> = [
        "tokenizer.ggml.bos_token_id",
        "tokenizer.ggml.eos_token_id",
        "tokenizer.ggml.unknown_token_id",
        "tokenizer.ggml.padding_token_id",
    ]
    .iter()
    .filter_map(|k| g.u32(k).map(|i| i as usize))
    .collect();
    let mut added_tokens = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match types.get(i) {
            Some(3) => added_tokens.push(added(i, t, true)),
            Some(4) => added_tokens.push(added(i, t, false)),
            _ if named.contains(&i) => added_tokens.push(added(i, t, true)),
            _ => {}
        }
    }
    let space = SPIECE_SPACE.to_string();
    let replace = |from: &str, to: &str| json!({"type": "Replace", "pattern": {"String": from}, "content": to});
    let mut decoders = vec![
        replace(&space, " "),
        json!({"type": "ByteFallback"}),
        json!({"type": "Fuse"}),
    ];
    if flavour != Flavour::Gemma {
        decoders.push(json!({"type": "Strip", "content": " ", "start": 1, "stop": 0}));
    }
    let (normalizer, pre_tokenizer, unk) = match flavour {
        Flavour::Llama => (
            Value::Null,
            json!({"type": "Metaspace", "replacement": space, "prepend_scheme": "first", "split": false}),
            Value::Null,
        ),
        Flavour::Phi3 => (
            json!({"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": space}, replace(" ", &space)
            ]}),
            Value::Null,
            Value::Null,
        ),
        Flavour::Gemma => (
            replace(" ", &space),
            json!({"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": false}),
            json!("<unk>"),
        ),
    };
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added_tokens,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": {"type": "Sequence", "decoders": decoders},
        "model": {
            "type": "BPE", "dropout": null, "unk_token": unk, "continuing_subword_prefix": null,
            "end_of_word_suffix": null, "fuse_unk": true, "byte_fallback": true,
            "ignore_merges": false, "vocab": vocab, "merges": merges
        }
    }))
}

/// The merges a SentencePiece BPE vocabulary implies: every split of a piece into two pieces of
/// the vocabulary, best score first (ties: longer left part, then longer right part, then the
/// order they were found in), as transformers' `generate_merges` recovers them.
fn recover_merges(tokens: &[String], scores: &[f32]) -> Vec<(String, String)> {
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        index.insert(t.as_str(), i);
    }
    // A piece spelled twice counts once, at its first place, with its last score.
    let mut score_of: HashMap<&str, f32> = HashMap::with_capacity(tokens.len());
    let mut order: Vec<&str> = Vec::with_capacity(tokens.len());
    for (t, s) in tokens.iter().zip(scores) {
        if score_of.insert(t.as_str(), *s).is_none() {
            order.push(t.as_str());
        }
    }
    let mut merges: Vec<(usize, usize, f32, usize, usize)> = Vec::new();
    for piece in order {
        let score = score_of[piece];
        let mut local: Vec<(usize, usize, f32, usize, usize)> = Vec::new();
        for (at, _) in piece.char_indices().skip(1) {
            let (l, r) = piece.split_at(at);
            if let (Some(&li), Some(&ri)) = (index.get(l), index.get(r)) {
                local.push((li, ri, score, l.chars().count(), r.chars().count()));
            }
        }
        local.sort_by_key(|m| (m.0, m.1));
        merges.extend(local);
    }
    // Stable, descending: equal keys keep the order above, as Python's sort(reverse=True) does.
    merges.sort_by(|a, b| {
        b.2.partial_cmp(&a.2)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.3.cmp(&a.3))
            .then(b.4.cmp(&a.4))
    });
    merges
        .into_iter()
        .map(|(l, r, ..)| (tokens[l].clone(), tokens[r].clone()))
        .collect()
}

/// The special (control) tokens of a tokenizer: content → id.
pub fn special_tokens(t: &Tokenizer) -> HashMap<String, u32> {
    t.get_added_tokens_decoder()
        .into_iter()
        .filter(|(_, a)| a.special)
        .map(|(id, a)| (a.content, id))
        .collect()
}
