//! The model's tokenizer, built from the GGUF's own vocabulary and merges (or a `tokenizer.json`
//! beside the file), the way transformers builds it from the same file (`gguf_file=`).

use std::collections::HashMap;
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

/// Builds the tokenizer from `tokenizer.ggml.*` (byte-level BPE, `tokenizer.ggml.model = "gpt2"`).
pub fn from_gguf(g: &Gguf) -> Result<Tokenizer, LlmError> {
    let kind = g.str("tokenizer.ggml.model").unwrap_or_default();
    if kind != "gpt2" {
        return Err(LlmError::Tokenizer(format!(
            "tokenizer.ggml.model {kind:?} is not built from GGUF metadata here (byte-level BPE, \"gpt2\", is); put the model's tokenizer.json beside {}",
            g.path.display()
        )));
    }
    let tokens = g
        .strings("tokenizer.ggml.tokens")
        .ok_or_else(|| LlmError::Tokenizer("no tokenizer.ggml.tokens".into()))?;
    let merges = g
        .strings("tokenizer.ggml.merges")
        .ok_or_else(|| LlmError::Tokenizer("no tokenizer.ggml.merges".into()))?;
    let types = g.ints("tokenizer.ggml.token_type").unwrap_or_default();
    let spelling = bytes_to_unicode();
    let alphabet: std::collections::HashSet<char> = spelling.iter().copied().collect();
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
    let mut added = Vec::new();
    for (i, (t, ty)) in tokens.iter().zip(types.iter()).enumerate() {
        let special = match ty {
            3 if in_alphabet(t) => true,
            4 if vocab.contains_key(t) => false,
            _ => continue,
        };
        added.push(json!({
            "id": i, "content": t, "single_word": false, "lstrip": false, "rstrip": false,
            "normalized": false, "special": special
        }));
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
    let spec = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
        "model": {
            "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": "",
            "end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false,
            "ignore_merges": false, "vocab": vocab, "merges": merges
        }
    });
    let bytes = serde_json::to_vec(&spec).map_err(|e| LlmError::Tokenizer(e.to_string()))?;
    Tokenizer::from_bytes(bytes).map_err(|e| LlmError::Tokenizer(e.to_string()))
}

/// The special (control) tokens of a tokenizer: content → id.
pub fn special_tokens(t: &Tokenizer) -> HashMap<String, u32> {
    t.get_added_tokens_decoder()
        .into_iter()
        .filter(|(_, a)| a.special)
        .map(|(id, a)| (a.content, id))
        .collect()
}
