//! Configuration: a TOML file, overridden by `MITRA_*` environment variables, overridden by CLI flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod origin;
mod sections;

pub use origin::Origin;
pub use sections::*;

/// The configuration could not be read or is invalid.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

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
    /// The reranker of `rerank()`, `answer()` and `abstracts()`.
    pub rerank: RerankConfig,
    /// Storage hygiene: `mitra maintain` and maintenance after ingests.
    pub maintain: MaintainConfig,
    /// `ask()` and `compare()`: planning and step budgets.
    pub ask: AskConfig,
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
            rerank: RerankConfig::default(),
            maintain: MaintainConfig::default(),
            ask: AskConfig::default(),
            secrets: BTreeMap::new(),
            sources: Vec::new(),
        }
    }
}

impl Config {
    /// Loads the configuration: `path` (or `MITRA_CONFIG`, or `./mitra.toml` if present), then `MITRA_*` env.
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        let env: Vec<(String, String)> = std::env::vars().collect();
        Self::load_with_env(path, &env)
    }

    /// As [`Config::load`], with an explicit environment (for tests).
    pub fn load_with_env(
        path: Option<&Path>,
        env: &[(String, String)],
    ) -> Result<Self, ConfigError> {
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
                    ConfigError(format!("cannot read config file {}: {e}", p.display()))
                })?;
                text.parse()
                    .map_err(|e| ConfigError(format!("invalid TOML in {}: {e}", p.display())))?
            }
            None => toml::Table::new(),
        };
        for (key, raw) in env {
            apply_env(&mut value, key, raw)?;
        }
        let cfg: Config = toml::Value::Table(value)
            .try_into()
            .map_err(|e| ConfigError(format!("{e}")))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks value ranges.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: &str| Err(ConfigError(m.to_string()));
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
        for (key, value) in [
            ("embedding.kernel", &self.embedding.kernel),
            ("rerank.kernel", &self.rerank.kernel),
        ] {
            if mitra_embed::BertKernel::parse(value).is_none() {
                return bad(&format!("{key} must be auto or candle"));
            }
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
        let r = &self.rerank;
        if r.max_length < 8 || r.candidates == 0 || r.abstracts_candidates == 0 {
            return bad(
                "rerank.max_length must be at least 8, rerank.candidates and abstracts_candidates at least 1",
            );
        }
        let q = &self.ask;
        if !(1..=5).contains(&q.max_sub_queries) {
            return bad("ask.max_sub_queries must be between 1 and 5");
        }
        if ![q.plan_budget_s, q.retrieval_budget_s]
            .iter()
            .all(|x| x.is_finite() && *x >= 0.0)
        {
            return bad("ask.plan_budget_s and ask.retrieval_budget_s must be finite numbers >= 0");
        }
        let p = &self.plugins;
        if p.memory_mb == 0 || p.timeout_ms == 0 || p.max_output_mb == 0 || p.max_response_mb == 0 {
            return bad("plugins.memory_mb, timeout_ms, max_output_mb and max_response_mb must be at least 1");
        }
        let origin = |what: String, o: &str| {
            Origin::parse(o)
                .map(|_| ())
                .map_err(|e| ConfigError(format!("{what}: {e}")))
        };
        for (name, g) in &p.grants {
            for o in &g.http {
                origin(format!("plugins.grants.{name}.http"), o)?;
            }
            for s in &g.secrets {
                if !self.secrets.contains_key(s) {
                    return Err(ConfigError(format!(
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
                return Err(ConfigError(format!("secrets.{name}.header is required")));
            }
            if secret.value_env.is_none() == secret.value_file.is_none() {
                return Err(ConfigError(format!(
                    "secrets.{name}: set exactly one of value_env and value_file"
                )));
            }
        }
        let mut names = std::collections::HashSet::new();
        for src in &self.sources {
            if src.name.is_empty() || src.name.contains(['/', '@', '#']) {
                return Err(ConfigError(format!(
                    "source name {:?} must be non-empty without '/', '@' or '#'",
                    src.name
                )));
            }
            if !names.insert(&src.name) {
                return Err(ConfigError(format!("source {} is defined twice", src.name)));
            }
            if src.crawler.is_empty() || src.location.is_empty() {
                return Err(ConfigError(format!(
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

fn apply_env(table: &mut toml::Table, key: &str, raw: &str) -> Result<(), ConfigError> {
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
            "abstracts",
            "plugins",
            "llm",
            "rerank",
            "maintain",
            "ask",
        ];
        match sections
            .iter()
            .find(|s| lower.starts_with(&format!("{s}_")))
        {
            Some(s) => vec![s.to_string(), lower[s.len() + 1..].to_string()],
            None => {
                return Err(ConfigError(format!(
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
            .ok_or_else(|| ConfigError(format!("{part} is not a table")))?;
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
        assert_eq!(cfg.bm25.stemming, Some(true));
        assert_eq!(cfg.server.listen, "127.0.0.1:7000");
        assert_eq!(cfg.bm25.b, 0.75);
    }

    #[test]
    fn rejects_bad_values_and_unknown_keys() {
        assert!(Config::load_with_env(None, &env(&[("MITRA_BM25_B", "2")])).is_err());
        let r = Config::load_with_env(None, &env(&[("MITRA_RERANK_MODEL", "llm")])).unwrap();
        assert_eq!(r.rerank.model, "llm");
        assert!(Config::load_with_env(None, &env(&[("MITRA_RERANK_MAX_LENGTH", "2")])).is_err());
        let k = Config::load_with_env(None, &env(&[("MITRA_EMBEDDING_KERNEL", "candle")])).unwrap();
        assert_eq!(k.embedding.kernel, "candle");
        let e = Config::load_with_env(None, &env(&[("MITRA_RERANK_KERNEL", "fast")])).unwrap_err();
        assert!(e.to_string().contains("rerank.kernel"), "{e}");
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
