//! Configuration: a TOML file, overridden by `MITRA_*` environment variables, overridden by CLI flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// The whole appliance configuration. Every field has a default, so an empty file is valid.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Data directory holding the Lance tables and the BM25 index.
    pub data_dir: PathBuf,
    /// Postgres wire server settings.
    pub server: ServerConfig,
    /// BM25 ranking and text analysis.
    pub bm25: Bm25Config,
    /// Chunking of ingested documents.
    pub chunking: ChunkingConfig,
    /// Ingest behaviour.
    pub ingest: IngestConfig,
    /// Bounds on queries and results.
    pub limits: LimitsConfig,
    /// The sentence encoder for dense retrieval.
    pub embedding: EmbeddingConfig,
    /// Vector search: exact below a size, a Lance ANN index above it.
    pub dense: DenseConfig,
    /// Defaults of `hybrid()` (weighted reciprocal rank fusion of dense and BM25).
    pub hybrid: HybridConfig,
    /// Defaults of `abstracts()` (tier 1: fusion weights over analysis abstracts).
    pub abstracts: AbstractsConfig,
    /// Plugin sandbox limits, the site plugin directory, and the operator's grants.
    pub plugins: PluginsConfig,
    /// The local language model of `answer()` and `mitra ask`.
    pub llm: LlmConfig,
    /// Named secrets that the host attaches to plugin HTTP requests (never shown to plugins).
    pub secrets: BTreeMap<String, SecretConfig>,
    /// Sources ingested by `mitra ingest --all` / `--source-name NAME`.
    pub sources: Vec<SourceConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            data_dir: PathBuf::from("./mitra-data"),
            server: ServerConfig::default(),
            bm25: Bm25Config::default(),
            chunking: ChunkingConfig::default(),
            ingest: IngestConfig::default(),
            limits: LimitsConfig::default(),
            embedding: EmbeddingConfig::default(),
            dense: DenseConfig::default(),
            hybrid: HybridConfig::default(),
            abstracts: AbstractsConfig::default(),
            plugins: PluginsConfig::default(),
            llm: LlmConfig::default(),
            secrets: BTreeMap::new(),
            sources: Vec::new(),
        }
    }
}

/// What `answer()` does with an answer that cites no passage it was given.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Uncited {
    /// Replace it with the abstention (`abstained = true`, `grounded = false`).
    Abstain,
    /// Return it, marked `grounded = false`.
    Flag,
}

/// The local language model. Models are GGUF files in the models directory; nothing is
/// downloaded at query time.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// A registry model (`mitra models list`, kind llm), fetched into `embedding.models_dir`.
    pub model: String,
    /// Any local GGUF file instead of the registry model (its sha256 is reported, not pinned).
    pub model_path: Option<PathBuf>,
    /// A Jinja chat template file used instead of the GGUF's own `tokenizer.chat_template`
    /// (files made without one; like llama.cpp's `--chat-template-file`).
    pub chat_template: Option<PathBuf>,
    /// Inference device: `cpu`, or `cuda:N` in binaries built with the `cuda` feature.
    pub device: String,
    /// Most tokens of one answer.
    pub max_new_tokens: usize,
    /// Prompt plus answer: evidence passages are added in rank order while they fit.
    pub context_tokens: usize,
    /// Longest passage given to the model, in tokens (longer ones are cut).
    pub max_passage_tokens: usize,
    /// Passages retrieved by `answer(q)` when no k is given.
    pub k: usize,
    /// 0 = greedy decoding (the same question over the same evidence gives the same answer).
    pub temperature: f64,
    /// Nucleus sampling threshold (with a temperature above 0).
    pub top_p: f64,
    /// Sampling seed.
    pub seed: u64,
    /// Penalty on recently generated tokens (1.0 = off).
    pub repeat_penalty: f32,
    /// Requests that may wait behind the running one; more get SQLSTATE 53300.
    pub queue_depth: usize,
    /// An answer without a valid citation: `abstain` or `flag`.
    pub uncited: Uncited,
    /// Abstain without generating when the best dense similarity of the evidence is below
    /// this (cosine; 0 = off).
    pub min_similarity: f64,
    /// Record every answer in the `answers` Lance table (question, user, scope, answer,
    /// citations, evidence, model, versions).
    pub record_answers: bool,
    /// Before generating, ask the model of each passage whether it gives the requested fact
    /// (its yes/no log-odds); abstain when none does.
    pub relevance_check: bool,
    /// Log-odds of "yes" over "no" at or above which a passage is relevant (0.5: calibrated
    /// for the default model; see benches/ANSWERS.md).
    pub min_relevance: f32,
    /// After generating, ask the model of each sentence whether the passages it cites state
    /// it; unsupported sentences are removed, and an answer with no supported cited sentence
    /// becomes the abstention.
    pub support_check: bool,
    /// Log-odds of "yes" over "no" at or above which a sentence is supported.
    pub min_support: f32,
    /// Keep generating past end-of-turn (benchmarks and tests of long generations only).
    pub ignore_eos: bool,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            model: "qwen2.5-coder-1.5b-instruct-q4_k_m".into(),
            model_path: None,
            chat_template: None,
            device: "cpu".into(),
            max_new_tokens: 256,
            context_tokens: 2048,
            max_passage_tokens: 320,
            k: 5,
            temperature: 0.0,
            top_p: 1.0,
            seed: 299_792_458,
            repeat_penalty: 1.1,
            queue_depth: 4,
            uncited: Uncited::Abstain,
            min_similarity: 0.0,
            record_answers: false,
            relevance_check: true,
            // Calibrated for the default model on the tuning part of benches/answers
            // (benches/ANSWERS.md); a judge's log-odds scale is its own, so recalibrate with
            // another model.
            min_relevance: 0.5,
            support_check: true,
            min_support: 0.0,
            ignore_eos: false,
        }
    }
}

/// The plugin sandbox: limits of every call, where site plugins live, and what each may use.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PluginsConfig {
    /// Directory of site plugins: `NAME.wasm` with its manifest `NAME.toml`. Unset: built-ins only.
    pub dir: Option<PathBuf>,
    /// Linear memory one plugin instance may use, in MiB.
    pub memory_mb: u64,
    /// Deadline of one plugin call (wall clock, enforced by epoch interruption), in ms.
    pub timeout_ms: u64,
    /// Largest result one call may return (documents listed, bytes fetched, blocks), in MiB.
    pub max_output_mb: u64,
    /// Largest HTTP response body the host reads for a plugin, in MiB.
    pub max_response_mb: u64,
    /// Timeout of one HTTP request made for a plugin, in ms.
    pub http_timeout_ms: u64,
    /// Redirects followed per request (each one re-checked against the grants).
    pub max_redirects: u32,
    /// Offer OCR (Tesseract) to plugins that request it, unless their grant says otherwise.
    pub ocr: bool,
    /// The Tesseract executable.
    pub ocr_command: String,
    /// Tesseract language(s), e.g. `eng` or `eng+deu`.
    pub ocr_language: String,
    /// Deadline of one OCR run, in ms.
    pub ocr_timeout_ms: u64,
    /// Expected SHA-256 of a plugin's wasm, by plugin name; a mismatch refuses to load it.
    pub pins: BTreeMap<String, String>,
    /// What each plugin may use, by plugin name. Nothing is granted by default.
    pub grants: BTreeMap<String, GrantConfig>,
}

impl Default for PluginsConfig {
    fn default() -> Self {
        Self {
            dir: None,
            memory_mb: 512,
            timeout_ms: 120_000,
            max_output_mb: 128,
            max_response_mb: 256,
            http_timeout_ms: 30_000,
            max_redirects: 5,
            ocr: true,
            ocr_command: "tesseract".into(),
            ocr_language: "eng".into(),
            ocr_timeout_ms: 120_000,
            pins: BTreeMap::new(),
            grants: BTreeMap::new(),
        }
    }
}

/// The operator's grant to one plugin; the plugin gets the intersection with what it requests.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct GrantConfig {
    /// HTTP origins, `scheme://host[:port]`.
    pub http: Vec<String>,
    /// Names of secrets (from `[secrets]`) the host may attach to this plugin's requests.
    pub secrets: Vec<String>,
    /// A directory the plugin may read (read-only).
    pub directory: Option<PathBuf>,
    /// Override of `plugins.ocr` for this plugin.
    pub ocr: Option<bool>,
}

/// A secret the host attaches as a request header; plugins name it but never read it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SecretConfig {
    /// Header to set, e.g. `Cookie` or `Authorization`.
    pub header: String,
    /// Text put before the value, e.g. `Bearer ` or `session=`.
    pub prefix: String,
    /// Environment variable holding the value.
    pub value_env: Option<String>,
    /// File holding the value (trailing newline removed).
    pub value_file: Option<PathBuf>,
    /// Origins the secret may be sent to; empty: every origin granted to the plugin.
    pub origins: Vec<String>,
}

/// One configured source: which crawler lists it, which extractor reads its documents.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SourceConfig {
    /// Name, unique; documents get ids `NAME/<crawler id>`.
    pub name: String,
    /// Crawler plugin name.
    pub crawler: String,
    /// Extractor plugin name; unset: chosen by each document's media type.
    pub extractor: Option<String>,
    /// Where the source is: a directory (granted read-only to a directory crawler) or a URL
    /// (its origin granted to an HTTP crawler).
    pub location: String,
    /// Analysis the source's documents belong to.
    pub analysis_id: Option<String>,
    /// Further settings handed to the crawler (e.g. `secret`, `extensions`).
    pub settings: BTreeMap<String, toml::Value>,
}

/// The sentence encoder. Models are local directories; nothing is downloaded at query or ingest time.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct EmbeddingConfig {
    /// Embed chunks at ingest. A store that already has vectors always gets them for new chunks.
    pub enabled: bool,
    /// Model id: a name from the registry (`mitra models list`), recorded with the chunks table.
    pub model: String,
    /// Where `mitra models fetch` puts registered models.
    pub models_dir: PathBuf,
    /// Use this local model directory instead of the registry (e.g. a DPR context encoder).
    pub model_dir: Option<PathBuf>,
    /// A separate query encoder directory (DPR question encoder); default: the passage encoder.
    pub query_model_dir: Option<PathBuf>,
    /// Inference device: `cpu`, or `cuda:N` in binaries built with the `cuda` feature.
    pub device: String,
    /// Texts per forward pass.
    pub batch_size: usize,
}

impl Default for EmbeddingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            model: "all-MiniLM-L6-v2".into(),
            models_dir: PathBuf::from("./mitra-models"),
            model_dir: None,
            query_model_dir: None,
            device: "cpu".into(),
            batch_size: 32,
        }
    }
}

/// Vector search settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DenseConfig {
    /// Build a Lance ANN index on `chunks.embedding` once the table has this many rows;
    /// below it every query is an exact in-memory scan (measured faster up to this size:
    /// 7 ms exact vs 33 ms IVF_PQ at 100k 384-d vectors, see benches/DENSE.md).
    pub ann_min_rows: usize,
    /// ANN index type: `ivf_pq` (default: at 1M 384-d vectors built in 78 s, recall@10 0.992 with
    /// refine 100) or `ivf_hnsw_sq` (built in 285 s, recall@10 1.0 at nprobes 16, refine 10).
    pub ann_index: String,
    /// IVF partitions (0 = about sqrt(rows)).
    pub ivf_partitions: usize,
    /// PQ sub-vectors (0 = dim / 8).
    pub pq_sub_vectors: usize,
    /// IVF partitions probed per query.
    pub nprobes: usize,
    /// Re-rank `refine_factor * k` ANN candidates with exact distances (0 = off).
    pub refine_factor: u32,
}

impl Default for DenseConfig {
    fn default() -> Self {
        Self {
            ann_min_rows: 300_000,
            ann_index: "ivf_pq".into(),
            ivf_partitions: 0,
            pq_sub_vectors: 0,
            nprobes: 32,
            refine_factor: 100,
        }
    }
}

/// Weighted reciprocal rank fusion defaults: score = w_dense/(rrf_k + dense_rank) + w_sparse/(rrf_k + sparse_rank).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HybridConfig {
    /// Weight of the dense side (paper default 0.9).
    pub w_dense: f64,
    /// Weight of the BM25 side (paper default 0.1).
    pub w_sparse: f64,
    /// RRF constant K (default 60).
    pub rrf_k: f64,
    /// Candidates taken from each side (default 100).
    pub depth: usize,
}

impl Default for HybridConfig {
    fn default() -> Self {
        Self {
            w_dense: 0.9,
            w_sparse: 0.1,
            rrf_k: 60.0,
            depth: 100,
        }
    }
}

/// Tier 1: how `abstracts()` fuses BM25 and dense ranks of analysis abstracts (defaults chosen
/// on the two-tier benchmark: BM25-heavy, top-1 0.70 / top-3 0.94 with MiniLM; see benches/TWO_TIER.md).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AbstractsConfig {
    /// Weight of the dense rank.
    pub w_dense: f64,
    /// Weight of the BM25 rank.
    pub w_sparse: f64,
    /// The RRF constant.
    pub rrf_k: f64,
}

impl Default for AbstractsConfig {
    fn default() -> Self {
        Self {
            w_dense: 0.25,
            w_sparse: 1.0,
            rrf_k: 60.0,
        }
    }
}

/// Postgres wire protocol server settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on.
    pub listen: String,
    /// The users file (SCRAM-SHA-256 verifiers, managed by `mitra users`); default
    /// `<data_dir>/users.toml`. No users means no authentication, allowed on loopback only.
    pub users_file: Option<PathBuf>,
    /// Maximum concurrent connections (0 = unlimited).
    pub max_connections: usize,
}

impl ServerConfig {
    /// The users file of a configuration.
    pub fn users_path(&self, data_dir: &Path) -> PathBuf {
        self.users_file
            .clone()
            .unwrap_or_else(|| data_dir.join("users.toml"))
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:5433".into(),
            users_file: None,
            max_connections: 64,
        }
    }
}

/// BM25 parameters and analyzer options. Changing the analyzer rebuilds the index on next open.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Bm25Config {
    /// Term-frequency saturation (Lucene default 1.2).
    pub k1: f32,
    /// Length normalisation (Lucene default 0.75).
    pub b: f32,
    /// Apply Snowball English stemming.
    pub stemming: bool,
    /// Remove the 33 Lucene English stop words.
    pub stopwords: bool,
    /// Statistics of a scoped search (`SET mitra.analysis`): `"scope"` (N, document
    /// frequencies, average lengths over the scope's chunks; the default: nDCG@10 0.693 vs
    /// 0.644 on the two-tier benchmark) or `"global"` (over every chunk the user may read).
    pub scope_statistics: ScopeStatistics,
}

/// Which chunks BM25 statistics are computed over in a scoped search.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ScopeStatistics {
    /// Every chunk the user may read.
    Global,
    /// The chunks of the scope.
    Scope,
}

impl Default for Bm25Config {
    fn default() -> Self {
        Self {
            k1: 1.2,
            b: 0.75,
            stemming: false,
            stopwords: false,
            scope_statistics: ScopeStatistics::Scope,
        }
    }
}

/// Paragraph chunking limits, in characters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ChunkingConfig {
    /// Maximum characters in one chunk (heading prefix included).
    pub max_chars: usize,
    /// Characters carried over from the end of one chunk into the next.
    pub overlap_chars: usize,
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        Self {
            max_chars: 2000,
            overlap_chars: 200,
        }
    }
}

/// Ingest settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct IngestConfig {
    /// Documents per commit. Smaller batches lose less on a crash; larger ones ingest faster.
    pub batch_docs: usize,
    /// Largest source file accepted, in bytes.
    pub max_file_bytes: u64,
    /// Analysis id stamped on ingested documents (two-tier search), if any.
    pub analysis_id: Option<String>,
}

impl Default for IngestConfig {
    fn default() -> Self {
        Self {
            batch_docs: 500,
            max_file_bytes: 64 * 1024 * 1024,
            analysis_id: None,
        }
    }
}

/// Bounds that protect the appliance from oversized requests.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// Largest k a retrieval function returns; larger requests are capped to this.
    pub max_k: usize,
    /// Longest query text accepted, in bytes.
    pub max_query_bytes: usize,
    /// Memory one SQL session may use for query execution (sorts and aggregates spill to disk
    /// beyond it; operators that cannot spill fail with SQLSTATE 53200).
    pub max_query_memory_mb: usize,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            max_k: 10_000,
            max_query_bytes: 8 * 1024,
            max_query_memory_mb: 4096,
        }
    }
}

impl Config {
    /// Loads the configuration: `path` (or `MITRA_CONFIG`, or `./mitra.toml` if present), then `MITRA_*` env.
    pub fn load(path: Option<&Path>) -> Result<Self, AppError> {
        let env: Vec<(String, String)> = std::env::vars().collect();
        Self::load_with_env(path, &env)
    }

    /// As [`Config::load`], with an explicit environment (for tests).
    pub fn load_with_env(path: Option<&Path>, env: &[(String, String)]) -> Result<Self, AppError> {
        let env_path = env
            .iter()
            .find(|(k, _)| k == "MITRA_CONFIG")
            .map(|(_, v)| PathBuf::from(v));
        let path = path.map(Path::to_path_buf).or(env_path).or_else(|| {
            let p = PathBuf::from("mitra.toml");
            p.exists().then_some(p)
        });
        let mut value: toml::Table = match &path {
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| {
                    AppError::Config(format!("cannot read config file {}: {e}", p.display()))
                })?;
                text.parse().map_err(|e| {
                    AppError::Config(format!("invalid TOML in {}: {e}", p.display()))
                })?
            }
            None => toml::Table::new(),
        };
        for (key, raw) in env {
            apply_env(&mut value, key, raw)?;
        }
        let cfg: Config = toml::Value::Table(value)
            .try_into()
            .map_err(|e| AppError::Config(format!("{e}")))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks value ranges.
    pub fn validate(&self) -> Result<(), AppError> {
        let bad = |m: &str| Err(AppError::Config(m.to_string()));
        if !(self.bm25.k1 >= 0.0 && self.bm25.k1.is_finite()) {
            return bad("bm25.k1 must be a finite number >= 0");
        }
        if !(0.0..=1.0).contains(&self.bm25.b) {
            return bad("bm25.b must be between 0 and 1");
        }
        if self.chunking.max_chars < 64 {
            return bad("chunking.max_chars must be at least 64");
        }
        if self.chunking.overlap_chars * 2 > self.chunking.max_chars {
            return bad("chunking.overlap_chars must be at most half of chunking.max_chars");
        }
        if self.ingest.batch_docs == 0 {
            return bad("ingest.batch_docs must be at least 1");
        }
        if self.limits.max_query_memory_mb == 0 {
            return bad("limits.max_query_memory_mb must be at least 1");
        }
        if self.limits.max_k == 0 {
            return bad("limits.max_k must be at least 1");
        }
        if self.embedding.batch_size == 0 {
            return bad("embedding.batch_size must be at least 1");
        }
        if !["ivf_pq", "ivf_hnsw_sq"].contains(&self.dense.ann_index.as_str()) {
            return bad("dense.ann_index must be ivf_pq or ivf_hnsw_sq");
        }
        if self.dense.nprobes == 0 {
            return bad("dense.nprobes must be at least 1");
        }
        let h = &self.hybrid;
        if !(h.w_dense >= 0.0
            && h.w_sparse >= 0.0
            && h.w_dense.is_finite()
            && h.w_sparse.is_finite())
        {
            return bad("hybrid.w_dense and hybrid.w_sparse must be finite numbers >= 0");
        }
        if !(h.rrf_k >= 0.0 && h.rrf_k.is_finite()) || h.depth == 0 {
            return bad("hybrid.rrf_k must be >= 0 and hybrid.depth at least 1");
        }
        let a = &self.abstracts;
        if ![a.w_dense, a.w_sparse, a.rrf_k]
            .iter()
            .all(|x| x.is_finite() && *x >= 0.0)
        {
            return bad("abstracts.w_dense, w_sparse and rrf_k must be finite numbers >= 0");
        }
        let p = &self.plugins;
        if p.memory_mb == 0 || p.timeout_ms == 0 || p.max_output_mb == 0 || p.max_response_mb == 0 {
            return bad("plugins.memory_mb, timeout_ms, max_output_mb and max_response_mb must be at least 1");
        }
        let origin = |what: String, o: &str| {
            crate::plugins::Origin::parse(o)
                .map(|_| ())
                .map_err(|e| AppError::Config(format!("{what}: {e}")))
        };
        for (name, g) in &p.grants {
            for o in &g.http {
                origin(format!("plugins.grants.{name}.http"), o)?;
            }
            for s in &g.secrets {
                if !self.secrets.contains_key(s) {
                    return Err(AppError::Config(format!(
                        "plugins.grants.{name}.secrets names {s}, which has no [secrets.{s}]"
                    )));
                }
            }
        }
        for (name, secret) in &self.secrets {
            for o in &secret.origins {
                origin(format!("secrets.{name}.origins"), o)?;
            }
            if secret.header.trim().is_empty() {
                return Err(AppError::Config(format!(
                    "secrets.{name}.header is required"
                )));
            }
            if secret.value_env.is_none() == secret.value_file.is_none() {
                return Err(AppError::Config(format!(
                    "secrets.{name}: set exactly one of value_env and value_file"
                )));
            }
        }
        let mut names = std::collections::HashSet::new();
        for src in &self.sources {
            if src.name.is_empty() || src.name.contains(['/', '@', '#']) {
                return Err(AppError::Config(format!(
                    "source name {:?} must be non-empty without '/', '@' or '#'",
                    src.name
                )));
            }
            if !names.insert(&src.name) {
                return Err(AppError::Config(format!(
                    "source {} is defined twice",
                    src.name
                )));
            }
            if src.crawler.is_empty() || src.location.is_empty() {
                return Err(AppError::Config(format!(
                    "source {}: crawler and location are required",
                    src.name
                )));
            }
        }
        Ok(())
    }
}

/// Environment variables with a dedicated meaning; everything else `MITRA_SECTION_KEY` maps to `section.key`.
const SHORTCUTS: &[(&str, &[&str])] = &[
    ("MITRA_DATA", &["data_dir"]),
    ("MITRA_LISTEN", &["server", "listen"]),
];

fn apply_env(table: &mut toml::Table, key: &str, raw: &str) -> Result<(), AppError> {
    let Some(rest) = key.strip_prefix("MITRA_") else {
        return Ok(());
    };
    // MITRA_SECRET_* hold secret values named by `[secrets.NAME] value_env`.
    if key == "MITRA_CONFIG"
        || key == "MITRA_LOG"
        || key.starts_with("MITRA_TEST")
        || key.starts_with("MITRA_SECRET_")
    {
        return Ok(());
    }
    let path: Vec<String> = if let Some((_, p)) = SHORTCUTS.iter().find(|(k, _)| *k == key) {
        p.iter().map(|s| s.to_string()).collect()
    } else {
        let lower = rest.to_ascii_lowercase();
        let sections = [
            "server",
            "bm25",
            "chunking",
            "ingest",
            "limits",
            "embedding",
            "dense",
            "hybrid",
            "plugins",
            "llm",
        ];
        match sections
            .iter()
            .find(|s| lower.starts_with(&format!("{s}_")))
        {
            Some(s) => vec![s.to_string(), lower[s.len() + 1..].to_string()],
            None => {
                return Err(AppError::Config(format!(
                    "unknown environment variable {key}: expected MITRA_DATA, MITRA_LISTEN or MITRA_<SECTION>_<KEY> with section one of {sections:?}"
                )))
            }
        }
    };
    let value = parse_scalar(raw);
    let mut t = table;
    for part in &path[..path.len() - 1] {
        let entry = t
            .entry(part.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry
            .as_table_mut()
            .ok_or_else(|| AppError::Config(format!("{part} is not a table")))?;
    }
    t.insert(path[path.len() - 1].clone(), value);
    Ok(())
}

fn parse_scalar(raw: &str) -> toml::Value {
    if let Ok(i) = raw.parse::<i64>() {
        return toml::Value::Integer(i);
    }
    if let Ok(f) = raw.parse::<f64>() {
        return toml::Value::Float(f);
    }
    match raw {
        "true" => toml::Value::Boolean(true),
        "false" => toml::Value::Boolean(false),
        _ => toml::Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn file_then_env_override() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.toml");
        std::fs::write(&p, "data_dir = '/x'\n[bm25]\nk1 = 0.9\nstemming = true\n").unwrap();
        let cfg = Config::load_with_env(
            Some(&p),
            &env(&[("MITRA_BM25_K1", "1.5"), ("MITRA_LISTEN", "127.0.0.1:7000")]),
        )
        .unwrap();
        assert_eq!(cfg.data_dir, PathBuf::from("/x"));
        assert_eq!(cfg.bm25.k1, 1.5);
        assert!(cfg.bm25.stemming);
        assert_eq!(cfg.server.listen, "127.0.0.1:7000");
        assert_eq!(cfg.bm25.b, 0.75);
    }

    #[test]
    fn rejects_bad_values_and_unknown_keys() {
        assert!(Config::load_with_env(None, &env(&[("MITRA_BM25_B", "2")])).is_err());
        assert!(Config::load_with_env(None, &env(&[("MITRA_SECRET_CDS", "x")])).is_ok());
        assert!(
            Config::load_with_env(None, &env(&[("MITRA_PLUGINS_TIMEOUT_MS", "5000")]))
                .unwrap()
                .plugins
                .timeout_ms
                == 5000
        );
        let dir = std::env::temp_dir().join(format!("mitra-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("grants.toml");
        std::fs::write(&f, "[plugins.grants.x]\nhttp = [\"cds.cern.ch\"]\n").unwrap();
        assert!(
            Config::load_with_env(Some(&f), &[]).is_err(),
            "an origin needs a scheme"
        );
        std::fs::write(&f, "[plugins.grants.x]\nsecrets = [\"nope\"]\n").unwrap();
        assert!(
            Config::load_with_env(Some(&f), &[]).is_err(),
            "unknown secret"
        );
        std::fs::write(&f, "[secrets.s]\nheader = \"Cookie\"\nvalue_env = \"MITRA_SECRET_S\"\n[plugins.grants.x]\nhttp = [\"https://cds.cern.ch\"]\nsecrets = [\"s\"]\n[[sources]]\nname = \"cds\"\ncrawler = \"http-index-crawler\"\nlocation = \"https://cds.cern.ch/list\"\nsettings = { secret = \"s\" }\n").unwrap();
        let cfg = Config::load_with_env(Some(&f), &[]).unwrap();
        assert_eq!(cfg.sources[0].settings["secret"].as_str(), Some("s"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(Config::load_with_env(None, &env(&[("MITRA_NOPE", "1")])).is_err());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.toml");
        std::fs::write(&p, "[bm25]\nk3 = 1\n").unwrap();
        assert!(Config::load_with_env(Some(&p), &[]).is_err());
    }
}
