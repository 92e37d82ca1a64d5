//! The sections of the configuration file, each with its defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
    /// Longest passage given to the model, in tokens (a longer one keeps its paragraphs
    /// sharing most words with the question that fit).
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
    /// Log-odds of "yes" over "no" at or above which a passage is relevant (0.3: calibrated
    /// for the default model; see benches/ANSWERS.md).
    pub min_relevance: f32,
    /// Once a passage reaches `min_relevance`, the answer is written from every passage at
    /// or above this log-odds (at most `min_relevance`: the bar that decides whether to
    /// answer is not lowered by it; see benches/ANSWERS.md).
    pub min_shown_relevance: f32,
    /// The relevance judge reads this many paragraphs of each passage, those sharing most
    /// content words with the question (0: the whole passage; see benches/ANSWERS.md).
    pub relevance_paragraphs: usize,
    /// The answer and support steps read this many paragraphs of each relevant passage, those
    /// sharing most content words with the question (0: the whole passage).
    pub answer_paragraphs: usize,
    /// When none of a question's k passages is relevant, the relevance step reads the next
    /// ones of the retrieval, up to this many passages in all, before abstaining (k or less:
    /// no second look; not with a reranker, which already chose among its candidates).
    pub second_look_k: usize,
    /// After generating, ask the model of each sentence whether the passages it cites state
    /// it; unsupported sentences are removed, and an answer with no supported cited sentence
    /// becomes the abstention.
    pub support_check: bool,
    /// Log-odds of "yes" over "no" at or above which a sentence is supported.
    pub min_support: f32,
    /// An answer is shown only when one of its kept sentences is supported at or above this
    /// log-odds (0.8: calibrated for the default model; see benches/ANSWERS.md).
    pub min_answer_support: f32,
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
            min_relevance: 0.3,
            // Measured on realistic11 and realistic13 against 0.3 (benches/ANSWERS.md).
            min_shown_relevance: 0.1,
            relevance_paragraphs: 2,
            answer_paragraphs: 0,
            second_look_k: 10,
            support_check: true,
            min_support: 0.0,
            min_answer_support: 0.8,
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
    /// BERT's forward pass: `auto` (packed sequences with fused kernels on the CPU, candle's
    /// padded `BertModel` on a GPU) or `candle` (candle's everywhere: the reference path).
    pub kernel: String,
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
            kernel: "auto".into(),
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
/// BM25-heavy by default, as tier 1: on the ten realistic answer sets (310 answerable questions,
/// scoped to their analysis) a passage writing the answer is in the top 5 for 0.877 of them
/// against 0.800 with the muon-collider study's 0.9/0.1 (`sql/README.md`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HybridConfig {
    /// Weight of the dense side (default 0.25; the muon-collider study used 0.9).
    pub w_dense: f64,
    /// Weight of the BM25 side (default 1.0; the muon-collider study used 0.1).
    pub w_sparse: f64,
    /// RRF constant K (default 60).
    pub rrf_k: f64,
    /// Candidates taken from each side (default 100).
    pub depth: usize,
}

impl Default for HybridConfig {
    fn default() -> Self {
        Self {
            w_dense: 0.25,
            w_sparse: 1.0,
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

/// Storage hygiene (`mitra maintain`): Lance compaction, BM25 segment merges, removal of old
/// versions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MaintainConfig {
    /// Versions superseded more recently than this stay (time travel, and readers that hold
    /// them).
    pub retention_hours: u64,
    /// Versions that receipts of answers recorded within this window name stay, whatever
    /// their age, so that `replay()` reopens those answers' passages (the audit window).
    pub receipt_retention_hours: u64,
    /// Run maintenance after every `mitra ingest`.
    pub after_ingest: bool,
}

impl Default for MaintainConfig {
    fn default() -> Self {
        Self {
            retention_hours: 168,
            receipt_retention_hours: 24 * 365,
            after_ingest: true,
        }
    }
}

/// `ask()` and `compare()`: the planning step and the budgets of each step.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AskConfig {
    /// Domain tags a plan may choose from (empty: the high-energy-physics defaults,
    /// accelerator … theory).
    pub vocabulary: Vec<String>,
    /// Whether questions the model classes as precise get sub-queries too.
    pub expand_precise: bool,
    /// Most searches of a plan, the question included (1 to 5).
    pub max_sub_queries: usize,
    /// Seconds the plan may take, waiting for the model included; past it the question alone
    /// is searched and the row says so (0 = no budget).
    pub plan_budget_s: f64,
    /// Seconds the searches of all sub-queries may take; sub-queries not started by then are
    /// skipped and the row says so (the question itself is always searched; 0 = no budget).
    pub retrieval_budget_s: f64,
}

impl Default for AskConfig {
    fn default() -> Self {
        Self {
            vocabulary: Vec::new(),
            expand_precise: false,
            max_sub_queries: 5,
            plan_budget_s: 60.0,
            retrieval_budget_s: 30.0,
        }
    }
}

/// The second stage: `rerank()`, and the reranking of `answer()`'s and `abstracts()`'
/// candidates before they are used.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RerankConfig {
    /// `none`; `llm` (the language model's relevance judge: log P("Yes") − log P("No")); or a
    /// cross-encoder: a registry name (`mitra models list`, kind reranker) fetched into
    /// `embedding.models_dir`, or any name with `model_dir`.
    pub model: String,
    /// A local cross-encoder directory (`config.json`, `tokenizer.json`, `model.safetensors`;
    /// BERT or XLM-RoBERTa sequence classification with one label) instead of the registry.
    pub model_dir: Option<PathBuf>,
    /// Inference device of a cross-encoder: `cpu`, or `cuda:N` with the `cuda` feature.
    pub device: String,
    /// Query, passage and special tokens together, at most (cross-encoders; the passage is cut).
    pub max_length: usize,
    /// Candidates `answer()` retrieves and reranks before choosing what fits its prompt
    /// (at least its k).
    pub candidates: usize,
    /// Candidates `abstracts()` reranks (its top ones; the rest keep their fused order).
    pub abstracts_candidates: usize,
    /// A BERT-layout cross-encoder's forward pass: `auto` or `candle`, as `embedding.kernel`.
    pub kernel: String,
}

impl Default for RerankConfig {
    fn default() -> Self {
        Self {
            model: "none".into(),
            model_dir: None,
            device: "cpu".into(),
            max_length: 512,
            candidates: 20,
            abstracts_candidates: 10,
            kernel: "auto".into(),
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
    /// A failed statement is logged with its SQLSTATE and session, its text cut to this many
    /// characters (0: the statement is not logged), as PostgreSQL's `log_min_error_statement`.
    pub log_statement_chars: usize,
    /// Whether the log line of a failed statement carries its bound parameters (they may hold
    /// what users searched for; off by default).
    pub log_parameters: bool,
    /// TLS on the wire: `"off"`, `"optional"` (clients choose, as `sslmode=prefer`) or
    /// `"required"` (plaintext clients are refused before authentication).
    pub tls: TlsMode,
    /// The server's certificate chain (PEM), required unless `tls = "off"`.
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM), required unless `tls = "off"`.
    pub tls_key: Option<PathBuf>,
    /// Failed logins from one address within `login_lockout_s` that lock the address out for
    /// `login_lockout_s` (0: no limit).
    pub login_max_failures: u32,
    /// The window and the lockout of `login_max_failures`, in seconds.
    pub login_lockout_s: u64,
    /// A session idle this long outside a transaction block is closed with SQLSTATE 57P05, as
    /// PostgreSQL's `idle_session_timeout` (0: never).
    pub idle_session_timeout_s: u64,
}

/// Whether the server speaks TLS.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    /// Plaintext only: SSL requests are answered "N".
    #[default]
    Off,
    /// TLS for clients that ask for it; plaintext for those that do not.
    Optional,
    /// TLS only; plaintext clients are refused before authentication.
    Required,
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
            log_statement_chars: 1024,
            log_parameters: false,
            tls: TlsMode::Off,
            tls_cert: None,
            tls_key: None,
            login_max_failures: 10,
            login_lockout_s: 60,
            idle_session_timeout_s: 0,
        }
    }
}

/// BM25 parameters and analyzer options. Setting an analyzer option other than the index's
/// rebuilds the index on next open; left unset, a store keeps the analyzer it was built with.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Bm25Config {
    /// Term-frequency saturation (Lucene default 1.2).
    pub k1: f32,
    /// Length normalisation (Lucene default 0.75).
    pub b: f32,
    /// Apply Snowball English stemming to alphabetic words (not to numbers, symbols or units).
    /// Unset: what the store's index was built with; a new store stems (measured better on
    /// Cranfield, CISI, CACM and the physics corpus: benches/RERANK.md).
    pub stemming: Option<bool>,
    /// Remove the 33 Lucene English stop words. Unset: as the store's index; a new store does.
    pub stopwords: Option<bool>,
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
            stemming: None,
            stopwords: None,
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
    /// Memory all sessions together may use for query execution, shared fairly among them
    /// (0: 40% of the machine's memory, leaving the rest to the models and caches).
    pub server_memory_mb: usize,
    /// Most rows one statement may return (0: no limit); beyond it the statement ends with
    /// SQLSTATE 54000 after the rows sent.
    pub max_result_rows: u64,
    /// Most bytes of rows one statement may return on the wire, in MiB (0: no limit); beyond it
    /// the statement ends with SQLSTATE 54000.
    pub max_result_mb: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            max_k: 10_000,
            max_query_bytes: 8 * 1024,
            max_query_memory_mb: 4096,
            server_memory_mb: 0,
            max_result_rows: 0,
            max_result_mb: 1024,
        }
    }
}
