//! Reading a GGUF file's header: metadata, tensor extents, and what the model declares about itself.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use candle_core::quantized::gguf_file::{Content, Value};

use crate::LlmError;

/// Model families this build runs (`general.architecture`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// Llama 2/3.x, Mistral, SmolLM2.
    Llama,
    /// Qwen2 and Qwen2.5.
    Qwen2,
    /// Qwen3.
    Qwen3,
    /// Gemma 3.
    Gemma3,
    /// Phi-3.
    Phi3,
}

impl Arch {
    /// Parses `general.architecture`.
    pub fn parse(s: &str) -> Option<Arch> {
        Some(match s {
            "llama" | "mistral" => Arch::Llama,
            "qwen2" => Arch::Qwen2,
            "qwen3" => Arch::Qwen3,
            "gemma3" => Arch::Gemma3,
            "phi3" => Arch::Phi3,
            _ => return None,
        })
    }
}

/// An opened GGUF: header parsed and checked against the file's length.
pub struct Gguf {
    /// The file path.
    pub path: PathBuf,
    /// Header: metadata and tensor infos.
    pub content: Content,
    /// The open file, for reading tensors.
    pub file: File,
    /// The declared architecture.
    pub arch: Arch,
    /// The other parts of a split model (`NAME-00002-of-0000N.gguf`…), each checked like the first.
    pub parts: Vec<(Content, File)>,
}

impl std::fmt::Debug for Gguf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gguf({}, {:?})", self.path.display(), self.arch)
    }
}

/// Reads one GGUF file's header and checks that every tensor lies inside the file.
fn read_checked(path: &Path) -> Result<(Content, File), LlmError> {
    let mut file = File::open(path).map_err(|e| LlmError::model(path, e))?;
    let len = file
        .seek(SeekFrom::End(0))
        .and_then(|l| file.seek(SeekFrom::Start(0)).map(|_| l))
        .map_err(|e| LlmError::model(path, e))?;
    let content = Content::read(&mut file)
        .map_err(|e| LlmError::model(path, format!("not a readable GGUF file: {e}")))?;
    for (name, t) in &content.tensor_infos {
        let elems = t.shape.elem_count() as u64;
        let block = t.ggml_dtype.block_size() as u64;
        let bytes = elems.div_ceil(block.max(1)) * t.ggml_dtype.type_size() as u64;
        let end = content
            .tensor_data_offset
            .saturating_add(t.offset)
            .saturating_add(bytes);
        if end > len {
            return Err(LlmError::model(
                path,
                format!("truncated: tensor {name} ends at byte {end}, the file has {len}"),
            ));
        }
    }
    Ok((content, file))
}

/// The paths of the other parts of a split model, from the first part's name
/// (`NAME-00001-of-00003.gguf` → `NAME-00002-of-00003.gguf`, `NAME-00003-of-00003.gguf`).
fn sibling_parts(path: &Path, count: u32) -> Result<Vec<PathBuf>, LlmError> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let tail = format!("-of-{count:05}.gguf");
    let stem = name
        .strip_suffix(&tail)
        .and_then(|s| s.strip_suffix("-00001"))
        .ok_or_else(|| {
            LlmError::model(
                path,
                format!("declares {count} split parts but is not named NAME-00001{tail}"),
            )
        })?;
    Ok((2..=count)
        .map(|i| path.with_file_name(format!("{stem}-{i:05}{tail}")))
        .collect())
}

impl Gguf {
    /// Opens and checks a GGUF file: readable header, every tensor inside the file, a known
    /// architecture; for the first part of a split model, its other parts too.
    pub fn open(path: &Path) -> Result<Gguf, LlmError> {
        let (content, file) = read_checked(path)?;
        let count = content
            .metadata
            .get("split.count")
            .and_then(int_of)
            .unwrap_or(1);
        let mut parts = Vec::new();
        if count > 1 {
            let count = u32::try_from(count)
                .ok()
                .filter(|c| *c <= 256)
                .ok_or_else(|| LlmError::model(path, format!("split.count {count}")))?;
            for p in sibling_parts(path, count)? {
                parts.push(read_checked(&p)?);
            }
        }
        let arch_name = meta_str(&content, "general.architecture")
            .ok_or_else(|| LlmError::model(path, "no general.architecture in the metadata"))?;
        let arch = Arch::parse(&arch_name).ok_or_else(|| LlmError::Unsupported {
            path: path.to_path_buf(),
            arch: arch_name.clone(),
        })?;
        Ok(Gguf {
            path: path.to_path_buf(),
            content,
            file,
            arch,
            parts,
        })
    }

    /// A string metadata value.
    pub fn str(&self, key: &str) -> Option<String> {
        meta_str(&self.content, key)
    }

    /// An integer metadata value.
    pub fn u32(&self, key: &str) -> Option<u32> {
        self.content.metadata.get(key).and_then(|v| v.to_u32().ok())
    }

    /// A boolean metadata value.
    pub fn bool(&self, key: &str) -> Option<bool> {
        self.content
            .metadata
            .get(key)
            .and_then(|v| v.to_bool().ok())
    }

    /// A string array (`tokenizer.ggml.tokens`, `tokenizer.ggml.merges`).
    pub fn strings(&self, key: &str) -> Option<Vec<String>> {
        let v = self.content.metadata.get(key)?.to_vec().ok()?;
        v.iter().map(|x| x.to_string().ok().cloned()).collect()
    }

    /// An integer array (`tokenizer.ggml.token_type`).
    pub fn ints(&self, key: &str) -> Option<Vec<i64>> {
        let v = self.content.metadata.get(key)?.to_vec().ok()?;
        v.iter().map(int_of).collect()
    }

    /// A float array (`tokenizer.ggml.scores`).
    pub fn floats(&self, key: &str) -> Option<Vec<f32>> {
        let v = self.content.metadata.get(key)?.to_vec().ok()?;
        v.iter()
            .map(|x| match x {
                Value::F32(f) => Some(*f),
                Value::F64(f) => Some(*f as f32),
                _ => None,
            })
            .collect()
    }

    /// The context length the model was trained for (`<arch>.context_length`).
    pub fn context_length(&self) -> Option<usize> {
        let arch = self.str("general.architecture")?;
        self.u32(&format!("{arch}.context_length"))
            .map(|v| v as usize)
    }
}

fn meta_str(c: &Content, key: &str) -> Option<String> {
    c.metadata
        .get(key)
        .and_then(|v| v.to_string().ok().cloned())
}

fn int_of(v: &Value) -> Option<i64> {
    Some(match v {
        Value::U8(x) => *x as i64,
        Value::I8(x) => *x as i64,
        Value::U16(x) => *x as i64,
        Value::I16(x) => *x as i64,
        Value::U32(x) => *x as i64,
        Value::I32(x) => *x as i64,
        Value::U64(x) => *x as i64,
        Value::I64(x) => *x,
        _ => return None,
    })
}
