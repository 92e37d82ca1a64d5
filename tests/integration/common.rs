//! Shared helpers: temporary stores, the demo corpus, an in-process server on an ephemeral port.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mitra::config::Config;
use mitra::index::Bm25Index;
use mitra::store::Store;
use mitra::{demo, ingest, pg, sql};

/// Path of the shared BEIR datasets (`../shared/datasets` from the repository root).
pub fn datasets() -> PathBuf {
    if let Ok(p) = std::env::var("MITRA_TEST_DATASETS") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/datasets")
}

/// A config over `dir` with default settings, BM25 only (no encoder needed).
pub fn config(dir: &Path) -> Config {
    let mut cfg = Config {
        data_dir: dir.to_path_buf(),
        ..Config::default()
    };
    cfg.embedding.enabled = false;
    // The analyzer these tests' expectations were written for (a new store's default stems
    // and drops stop words: `ingest_versions::a_store_keeps_the_analyzer_it_was_built_with`).
    cfg.bm25.stemming = Some(false);
    cfg.bm25.stopwords = Some(false);
    cfg
}

/// Where the test models are: `MITRA_TEST_MODELS`, else `~/.cache/mitra-models` (what
/// `scripts/test.sh` fetches into with `mitra models fetch`).
pub fn models_dir() -> PathBuf {
    if let Ok(p) = std::env::var("MITRA_TEST_MODELS") {
        return PathBuf::from(p);
    }
    PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| ".".into())).join(".cache/mitra-models")
}

/// A config with dense retrieval on (all-MiniLM-L6-v2), or `None` when the model is not
/// fetched; with `MITRA_TEST_REQUIRE_MODELS=1` (CI) a missing model fails the test instead.
pub fn dense_config(dir: &Path) -> Option<Config> {
    let mut cfg = config(dir);
    cfg.embedding.enabled = true;
    cfg.embedding.models_dir = models_dir();
    match mitra::models::locate(&cfg.embedding.model, &cfg.embedding.models_dir) {
        Ok(_) => Some(cfg),
        Err(e) if std::env::var("MITRA_TEST_REQUIRE_MODELS").as_deref() == Ok("1") => {
            panic!("{e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Opens store and index as the CLI does.
pub async fn open(cfg: &Config) -> (Store, Bm25Index) {
    let (store, index, _) = mitra::open(cfg).await.unwrap();
    (store, index)
}

/// Imports public analyses with these ids (documents may name only existing analyses).
pub async fn import_analyses(store: &Store, cfg: &Config, ids: &[&str]) {
    let file = cfg.data_dir.join("test-analyses.jsonl");
    std::fs::create_dir_all(&cfg.data_dir).unwrap();
    let lines: String = ids
        .iter()
        .map(|id| {
            serde_json::json!({"analysis_id": id, "title": format!("Analysis {id}"), "abstract": "A test analysis.", "status": "public"})
                .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    mitra::analyses::import_file(store, &cfg.data_dir, &file, false, None)
        .await
        .unwrap();
}

/// A store holding the demo notes.
pub async fn demo_store(dir: &Path) -> Config {
    demo_store_with(dir, config(dir)).await
}

/// The demo notes ingested into the store of `cfg` (vectors too if `cfg` embeds).
pub async fn demo_store_with(dir: &Path, cfg: Config) -> Config {
    let folder = demo::write_corpus(&dir.join("src")).unwrap();
    let (mut store, mut index) = open(&cfg).await;
    let r = ingest::ingest_paths(&mut store, &mut index, &cfg, &[folder], false)
        .await
        .unwrap();
    assert_eq!(r.added, demo::NOTES.len());
    index.close_writer().unwrap();
    cfg
}

/// A config whose encoder is the tiny DPR context encoder (16-d) in `model`: vectors without a
/// downloaded model.
pub fn tiny_dpr_config(dir: &Path, model: &Path) -> Config {
    let mut cfg = config(dir);
    cfg.embedding.enabled = true;
    cfg.embedding.model = "tiny-dpr-ctx".into();
    cfg.embedding.model_dir = Some(model.to_path_buf());
    cfg
}

/// The demo store with tiny-DPR vectors; keep the returned model directory alive.
pub async fn demo_store_with_vectors(dir: &Path) -> (Config, tempfile::TempDir) {
    let model = tiny_dpr("dpr-ctx");
    let cfg = demo_store_with(dir, tiny_dpr_config(dir, model.path())).await;
    (cfg, model)
}

/// A SQL session over the store in `cfg`, as `mitra serve` builds it.
pub async fn session(cfg: &Config) -> datafusion::prelude::SessionContext {
    let (_store, mut index) = open(cfg).await;
    index.close_writer().unwrap();
    sql::build_session(cfg, Arc::new(index)).await.unwrap()
}

/// Starts a server over the store in `cfg` on an ephemeral loopback port.
pub async fn serve(cfg: &Config) -> SocketAddr {
    let ctx = session(cfg).await;
    let mut scfg = cfg.server.clone();
    scfg.listen = "127.0.0.1:0".into();
    let server = pg::Server::bind(ctx, &scfg).await.unwrap();
    let addr = server.local_addr();
    tokio::spawn(server.run());
    addr
}

/// A tokio-postgres connection to the server at `addr`.
pub async fn connect(addr: SocketAddr) -> tokio_postgres::Client {
    let conn_str = format!(
        "host={} port={} dbname=mitra user=physicist",
        addr.ip(),
        addr.port()
    );
    let (client, conn) = tokio_postgres::connect(&conn_str, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
}

/// Whether a program is on PATH.
pub fn has_program(name: &str) -> bool {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// A tiny DPR encoder (`"dpr-question"` or `"dpr-ctx"`) in a temporary model directory: the
/// committed config and tokenizer, and weights regenerated from `weights.json` with the LCG of
/// `benches/embed_fixture.py` (bit-identical to what the `transformers` golden vectors used).
pub fn tiny_dpr(kind: &str) -> tempfile::TempDir {
    lcg_model(&repo_root().join("tests/data/embed").join(kind))
}

/// A copy of the fixture model directory `src` (config and tokenizer files) with its
/// `model.safetensors` regenerated from the LCG stream its `weights.json` describes (the
/// generators: `benches/embed_fixture.py`, `benches/rerank_fixture.py`).
pub fn lcg_model(src: &Path) -> tempfile::TempDir {
    use mitra_embed::candle_core::{Device, Tensor};
    let dir = tempfile::tempdir().unwrap();
    for f in ["config.json", "tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("weights.json")).unwrap()).unwrap();
    let mut state = spec["seed"].as_u64().unwrap();
    let scale = spec["scale"].as_f64().unwrap() as f32;
    let mut tensors = std::collections::HashMap::new();
    for t in spec["tensors"].as_array().unwrap() {
        let shape: Vec<usize> = t["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let n: usize = shape.iter().product();
        let layer_norm = t["layer_norm"].as_bool().unwrap();
        let values: Vec<f32> = (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let v = ((state >> 40) as f32 / 16_777_216.0 - 0.5) * scale;
                if layer_norm {
                    v + 1.0
                } else {
                    v
                }
            })
            .collect();
        let tensor = Tensor::from_vec(values, shape, &Device::Cpu).unwrap();
        tensors.insert(t["name"].as_str().unwrap().to_string(), tensor);
    }
    mitra_embed::candle_core::safetensors::save(&tensors, dir.path().join("model.safetensors"))
        .unwrap();
    dir
}

/// A test CA and a server certificate for `localhost` and 127.0.0.1 signed by it, made with
/// the `openssl` command in `dir`: (CA certificate, server certificate, server key), all PEM.
pub fn test_certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("the openssl command (scripts/setup.sh installs it)");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=Mitra test CA",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    std::fs::write(
        dir.join("san.cnf"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.cnf",
    ]);
    (
        dir.join("ca.pem"),
        dir.join("server.pem"),
        dir.join("server.key"),
    )
}
