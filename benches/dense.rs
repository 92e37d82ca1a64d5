//! Dense benchmark: encoder throughput, dense/hybrid latency in-process and over pgwire, ANN build
//! time, memory and recall@10 against exact search.
//!
//! ```text
//! cargo bench --profile dev --bench dense -- --throughput ABS_DATASET_DIR
//! cargo bench --profile dev --bench dense -- --generate N [--ann-min-rows M] [--nprobes P] [--refine R] [--index ivf_pq|ivf_hnsw_sq]
//! ```
//! `--generate` writes N chunks with clustered 384-d unit vectors (and generated text for BM25)
//! straight into a store — embedding a million passages with MiniLM would take hours on 2 cores —
//! then times `dense()`/`hybrid()` for real MiniLM-embedded questions (query encoding included).
//! Needs the model: `mitra models fetch` (MITRA_EMBEDDING_MODELS_DIR or ~/.cache/mitra-models);
//! MITRA_EMBEDDING_KERNEL=candle runs candle's padded BertModel instead of the packed path.

#![recursion_limit = "256"]

#[path = "util.rs"]
mod util;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use util::{peak_rss_mib, percentile, Lcg};

use mitra::config::Config;
use mitra::dense::{self, Embedder, VectorSearch};
use mitra::sql;
use mitra::store::{chunk_id, ChunkRow};

const QUESTIONS: &[&str] = &[
    "how is the muon momentum scale calibrated",
    "what is the dominant background in the dimuon channel",
    "b-tagging efficiency scale factors for heavy flavour jets",
    "beam induced background at a muon collider",
    "systematic uncertainty from the jet energy scale",
    "dark photon search with displaced vertices",
    "Z+jets transfer factor validation region",
    "trigger efficiency measured with tag and probe",
    "luminosity uncertainty for the 2024 dataset",
    "pileup reweighting of simulated events",
];

fn model_config(cfg: &mut Config) {
    cfg.embedding.enabled = true;
    cfg.embedding.models_dir = std::env::var("MITRA_EMBEDDING_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/mitra-models")
        });
    // `auto` (packed on the CPU) or `candle`, as `[embedding] kernel`.
    if let Ok(k) = std::env::var("MITRA_EMBEDDING_KERNEL") {
        cfg.embedding.kernel = k;
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut cfg = Config::default();
    model_config(&mut cfg);
    if let Some(ds) = arg(&args, "--throughput") {
        throughput(&cfg, &PathBuf::from(ds));
        return;
    }
    let Some(n) = arg(&args, "--generate").and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("usage: --throughput DATASET | --generate N [--ann-min-rows M] [--nprobes P] [--refine R] [--index T]");
        std::process::exit(2);
    };
    if let Some(v) = arg(&args, "--ann-min-rows") {
        cfg.dense.ann_min_rows = v.parse().unwrap();
    }
    if let Some(v) = arg(&args, "--nprobes") {
        cfg.dense.nprobes = v.parse().unwrap();
    }
    if let Some(v) = arg(&args, "--refine") {
        cfg.dense.refine_factor = v.parse().unwrap();
    }
    if let Some(v) = arg(&args, "--index") {
        cfg.dense.ann_index = v;
    }
    if let Some(v) = arg(&args, "--partitions") {
        cfg.dense.ivf_partitions = v.parse().unwrap();
    }
    generated(cfg, n).await;
}

/// Passages per second of the encoder on a BEIR corpus (title + " " + text), batch 32.
fn throughput(cfg: &Config, ds: &std::path::Path) {
    let texts: Vec<String> = std::fs::read_to_string(ds.join("corpus.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{} {}",
                v["title"].as_str().unwrap_or(""),
                v["text"].as_str().unwrap_or("")
            )
        })
        .collect();
    let e = Embedder::load(&cfg.embedding).unwrap();
    let mut lat = Vec::new();
    for round in 0..6 {
        for q in QUESTIONS {
            let t = Instant::now();
            e.embed_query_blocking(q).unwrap();
            if round > 0 {
                lat.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    lat.sort_by(f64::total_cmp);
    println!(
        "mitra encoder: one question p50 {:.2} ms p99 {:.2} ms",
        percentile(&lat, 0.5),
        percentile(&lat, 0.99)
    );
    if std::env::var("MITRA_BENCH_QUERY_ONLY").is_ok() {
        return;
    }
    let _ = e.embed_passages_blocking(texts[..32].to_vec()).unwrap();
    let t = Instant::now();
    let v = e.embed_passages_blocking(texts.clone()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(v.len(), texts.len());
    println!(
        "mitra encoder {}: {} passages in {secs:.1}s = {:.1} passages/s (batch {}, {} threads)",
        ds.file_name().unwrap().to_string_lossy(),
        texts.len(),
        texts.len() as f64 / secs,
        cfg.embedding.batch_size,
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
}

async fn generated(mut cfg: Config, n: usize) {
    let tmp = tempfile::tempdir().unwrap();
    cfg.data_dir = tmp.path().join("data");
    cfg.ingest.batch_docs = 100;
    let dim = 384;
    let (mut store, mut index, _) = mitra::open(&cfg).await.unwrap();
    let e = dense::embedder_for_ingest(&mut store, &cfg)
        .await
        .unwrap()
        .unwrap();
    // Clustered unit vectors: 1000 centres, points scattered around them.
    let mut rng = Lcg(42);
    let centres: Vec<Vec<f32>> = (0..1000)
        .map(|_| (0..dim).map(|_| rng.unit()).collect())
        .collect();
    let vocab: Vec<String> = (0..20000).map(|i| format!("w{i}")).collect();
    let mut matrix: Vec<f32> = Vec::with_capacity(n * dim);
    let t = Instant::now();
    let per_doc = 100;
    let mut batch = Vec::new();
    for d in 0..n.div_ceil(per_doc) {
        let doc_id = format!("gen{d:06}");
        let mut chunks = Vec::new();
        for o in 0..per_doc.min(n - d * per_doc) {
            let c = &centres[(rng.next() % 1000) as usize];
            let v = rng.unit_near(c, 0.25);
            matrix.extend_from_slice(&v);
            let text: Vec<&str> = (0..40)
                .map(|_| vocab[(rng.next() % 20000) as usize].as_str())
                .collect();
            chunks.push(ChunkRow {
                chunk_id: chunk_id(&doc_id, 1, o as i32),
                doc_id: doc_id.clone(),
                version: 1,
                ordinal: o as i32,
                heading: None,
                text: text.join(" "),
                page: None,
                page_end: None,
                kind: "body".into(),
                analysis_id: None,
                embedding: Some(v),
            });
        }
        batch.push(util::generated_doc(&doc_id, None, chunks));
        if batch.len() == 100 || d + 1 == n.div_ceil(per_doc) {
            let v = store.commit(&batch).await.unwrap();
            for b in &batch {
                index.add_rows(&b.chunks).unwrap();
            }
            index.commit(v).unwrap();
            batch.clear();
        }
    }
    let write_s = t.elapsed().as_secs_f64();
    mitra::ingest::compact(&mut store, &mut index, 16)
        .await
        .unwrap();
    let rss_before = peak_rss_mib();
    let ann = dense::ensure_ann_index(&mut store, &cfg.dense)
        .await
        .unwrap();
    println!(
        "generated {n} chunks ({dim}-d) written in {write_s:.1}s; vector index: {} ({}, {} rows) in {:.1}s; peak RSS before index {rss_before:.0} MiB, after {:.0} MiB",
        if ann.built { "built" } else { "none (exact search)" },
        cfg.dense.ann_index,
        ann.rows,
        ann.seconds,
        peak_rss_mib()
    );
    index.close_writer().unwrap();
    drop(store);
    // Recall@10 of the search path (ANN if built) against exact brute force, for 200 query
    // vectors drawn from the data distribution; with --sweep, over several nprobes/refine settings.
    let settings: Vec<(usize, u32)> = if std::env::args().any(|a| a == "--sweep") {
        vec![(16, 10), (32, 10), (32, 50), (64, 50), (32, 100), (64, 200)]
    } else {
        vec![(cfg.dense.nprobes, cfg.dense.refine_factor)]
    };
    let nq = 200;
    let queries: Vec<(Vec<f32>, Vec<String>)> = (0..nq)
        .map(|qi| {
            let base = &matrix[(qi * 7919 % n) * dim..][..dim];
            let mut q: Vec<f32> = base.iter().map(|x| x + 0.02 * rng.unit()).collect();
            let norm = q.iter().map(|x| x * x).sum::<f32>().sqrt();
            q.iter_mut().for_each(|x| *x /= norm);
            let truth = mitra_embed::top_k(&matrix, dim, &q, 10)
                .iter()
                .map(|h| {
                    chunk_id(
                        &format!("gen{:06}", h.row as usize / per_doc),
                        1,
                        (h.row as usize % per_doc) as i32,
                    )
                })
                .collect();
            (q, truth)
        })
        .collect();
    let mut vs = VectorSearch::new(e.clone(), &cfg.data_dir, cfg.dense.clone());
    for (nprobes, refine) in settings {
        let mut dcfg = cfg.dense.clone();
        dcfg.nprobes = nprobes;
        dcfg.refine_factor = refine;
        vs = VectorSearch::new(e.clone(), &cfg.data_dir, dcfg);
        let mut hits = 0usize;
        let mut ann_lat = Vec::new();
        for (q, truth) in &queries {
            let t = Instant::now();
            let got = vs.search_vector_blocking(q.clone(), 10).unwrap();
            ann_lat.push(t.elapsed().as_secs_f64() * 1e3);
            hits += got.iter().filter(|h| truth.contains(&h.chunk_id)).count();
        }
        ann_lat.sort_by(f64::total_cmp);
        println!(
            "recall@10 vs exact: {:.4} over {nq} queries (nprobes {nprobes}, refine {refine}); vector-only search p50 {:.2} ms p99 {:.2} ms",
            hits as f64 / (10 * nq) as f64,
            percentile(&ann_lat, 0.5),
            percentile(&ann_lat, 0.99)
        );
    }
    if std::env::args().any(|a| a == "--sweep") {
        return;
    }
    drop(matrix);
    // In-process SQL-path latency: text in (query encoding included), top 10 out.
    let (_s, mut index, _) = mitra::open_reader(&cfg).await.unwrap();
    index.close_writer().unwrap();
    let index = Arc::new(index);
    let dense_h = Arc::new(Ok(vs.clone()) as sql::DenseHandle);
    let ctx = sql::build_session_with(&cfg, index.clone(), dense_h)
        .await
        .unwrap();
    for f in ["dense", "hybrid"] {
        let mut lat = Vec::new();
        for round in 0..5 {
            for q in QUESTIONS {
                let t = Instant::now();
                let b = ctx
                    .sql(&format!("SELECT chunk_id FROM {f}('{q}', 10)"))
                    .await
                    .unwrap()
                    .collect()
                    .await
                    .unwrap();
                if round > 0 {
                    lat.push(t.elapsed().as_secs_f64() * 1e3);
                }
                assert_eq!(b.iter().map(|b| b.num_rows()).sum::<usize>(), 10);
            }
        }
        lat.sort_by(f64::total_cmp);
        println!(
            "{f}() in-process SQL at {n} chunks: p50 {:.2} ms p99 {:.2} ms ({} queries)",
            percentile(&lat, 0.5),
            percentile(&lat, 0.99),
            lat.len()
        );
    }
    // Over pgwire: tokio-postgres, extended protocol, bound parameters.
    let client = util::serve_and_connect(ctx, &cfg.server).await;
    for f in ["dense", "hybrid"] {
        let stmt = client
            .prepare(&format!("SELECT chunk_id, score FROM {f}($1, $2)"))
            .await
            .unwrap();
        let mut lat = Vec::new();
        for round in 0..5 {
            for q in QUESTIONS {
                let t = Instant::now();
                let rows = client.query(&stmt, &[q, &10i64]).await.unwrap();
                if round > 0 {
                    lat.push(t.elapsed().as_secs_f64() * 1e3);
                }
                assert_eq!(rows.len(), 10);
            }
        }
        lat.sort_by(f64::total_cmp);
        println!(
            "{f}() over pgwire at {n} chunks: p50 {:.2} ms p99 {:.2} ms; peak RSS {:.0} MiB",
            percentile(&lat, 0.5),
            percentile(&lat, 0.99),
            peak_rss_mib()
        );
    }
}
