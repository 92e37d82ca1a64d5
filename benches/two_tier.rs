//! Two-tier benchmark at scale: scoped vs unscoped retrieval latency, and tier-1 latency.
//!
//!   cargo bench --profile dev --bench two_tier -- --analyses 100 --per 1000
//!   cargo bench --profile dev --bench two_tier -- --analyses 10 --per 100000 --total 1000000
//!
//! Generates a store of `--analyses` analyses with `--per` chunks each (the first analysis gets
//! `--per` chunks and the others share `--total - --per` when `--total` is given), with
//! generated text and clustered 384-d vectors (the configured encoder's model id, so that the
//! real query path runs; the vectors are not its output). Then, for 50 queries, measures:
//! `bm25()` through SQL unscoped, scoped with global statistics and scoped with the scope's
//! statistics; vector search (exact below `dense.ann_min_rows`, Lance ANN with the analysis
//! pre-filter above) unscoped and scoped; `abstracts()` over the analyses. Prints one JSON
//! object. Reference in the same run: the unscoped call of each function.

#![recursion_limit = "256"]

#[path = "util.rs"]
mod util;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use util::{peak_rss_mib, percentile, Lcg};

use mitra::analyses::Visibility;
use mitra::config::{Config, ScopeStatistics};
use mitra::dense::{self, VectorSearch};
use mitra::store::{chunk_id, ChunkRow};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn stats(mut v: Vec<f64>) -> serde_json::Value {
    v.sort_by(|a, b| a.total_cmp(b));
    serde_json::json!({"p50_ms": percentile(&v, 0.5), "p95_ms": percentile(&v, 0.95), "n": v.len()})
}

/// The analysis of generated chunk `i` of `n`: the first `first` chunks belong to analysis 0,
/// the rest round-robin to the others.
fn analysis_of(i: usize, first: usize, analyses: usize) -> usize {
    if i < first || analyses == 1 {
        0
    } else {
        1 + (i - first) % (analyses - 1)
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let analyses: usize = arg(&args, "--analyses").map_or(100, |v| v.parse().unwrap());
    let per: usize = arg(&args, "--per").map_or(1000, |v| v.parse().unwrap());
    let total: usize = arg(&args, "--total").map_or(analyses * per, |v| v.parse().unwrap());
    // Analysis 0 holds `per` chunks; the others share the rest.
    let first = per;
    let keep = arg(&args, "--data").map(PathBuf::from);
    let tmp = tempfile::tempdir().unwrap();
    let root = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let mut cfg = Config {
        data_dir: root.join("data"),
        ..Config::default()
    };
    cfg.embedding.enabled = true;
    cfg.embedding.models_dir = std::env::var("MITRA_EMBEDDING_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/mitra-models")
        });
    let dim = 384;
    let ids: Vec<String> = (0..analyses).map(|a| format!("a{a:03}")).collect();
    let mut rng = Lcg(7);
    let vocab: Vec<String> = (0..20000).map(|i| format!("w{i}")).collect();
    let fresh = !cfg.data_dir.join("chunks.lance").exists();
    let (mut store, mut index, _) = mitra::open(&cfg).await.unwrap();
    let e = dense::embedder_for_ingest(&mut store, &cfg)
        .await
        .unwrap()
        .unwrap();
    let mut write_s = 0.0;
    let mut ann_s = 0.0;
    if fresh {
        // Analyses: an abstract per analysis from its own words, vectors from the encoder.
        let lines: String = ids
            .iter()
            .enumerate()
            .map(|(a, id)| {
                let words: Vec<&str> = (0..60).map(|j| vocab[(a * 61 + j * 7) % 20000].as_str()).collect();
                serde_json::json!({"analysis_id": id, "title": format!("Analysis {id}"), "abstract": words.join(" "), "status": "public"}).to_string() + "\n"
            })
            .collect();
        let file = root.join("analyses.jsonl");
        std::fs::write(&file, lines).unwrap();
        mitra::analyses::import_file(&store, &cfg.data_dir, &file, false, Some(e.clone()))
            .await
            .unwrap();
        let centres: Vec<Vec<f32>> = (0..1000)
            .map(|_| (0..dim).map(|_| rng.unit()).collect())
            .collect();
        let t = Instant::now();
        let per_doc = 50;
        let mut batch = Vec::new();
        let docs = total.div_ceil(per_doc);
        for d in 0..docs {
            let a = analysis_of(d * per_doc, first, analyses);
            let doc_id = format!("gen{d:07}");
            let mut chunks = Vec::new();
            for o in 0..per_doc.min(total - d * per_doc) {
                let c = &centres[(rng.next() % 1000) as usize];
                let v = rng.unit_near(c, 0.25);
                let text: Vec<&str> = (0..40).map(|_| vocab[rng.zipf(20000)].as_str()).collect();
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
                    analysis_id: Some(ids[a].clone()),
                    embedding: Some(v),
                });
            }
            batch.push(util::generated_doc(&doc_id, Some(ids[a].clone()), chunks));
            if batch.len() == 400 || d + 1 == docs {
                let v = store.commit(&batch).await.unwrap();
                for b in &batch {
                    index.add_rows(&b.chunks).unwrap();
                }
                index.commit(v).unwrap();
                batch.clear();
            }
        }
        write_s = t.elapsed().as_secs_f64();
        mitra::ingest::compact(&mut store, &mut index, 16)
            .await
            .unwrap();
        let ann = dense::ensure_ann_index(&mut store, &cfg.dense)
            .await
            .unwrap();
        ann_s = ann.seconds;
    }
    index.close_writer().unwrap();
    drop((store, index));
    let ann = {
        let ds =
            lance::dataset::Dataset::open(&cfg.data_dir.join("chunks.lance").to_string_lossy())
                .await
                .unwrap();
        dense::has_vector_index(&ds).await.unwrap()
    };

    let queries: Vec<String> = (0..50)
        .map(|_| {
            (0..3)
                .map(|_| vocab[rng.zipf(2000)].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let scope = ids[0].clone();
    let mut out = serde_json::json!({
        "analyses": analyses,
        "chunks": total,
        "scope_chunks": (0..total).filter(|&i| analysis_of(i, first, analyses) == 0).count(),
        "write_s": write_s,
        "ann_index_s": ann_s,
        "vector_search": if ann { "lance ann (ivf_pq) + analysis_id bitmap pre-filter" } else { "exact" },
    });
    // BM25 through SQL (planning, the catalog's visibility, the search, the batch).
    for (label, stats_mode) in [
        ("global", ScopeStatistics::Global),
        ("scope", ScopeStatistics::Scope),
    ] {
        let mut c = cfg.clone();
        c.bm25.scope_statistics = stats_mode;
        let (_s, mut idx, _) = mitra::open_reader(&c).await.unwrap();
        idx.close_writer().unwrap();
        let ctx = mitra::sql::build_session(&c, Arc::new(idx)).await.unwrap();
        let time = |sql: String| {
            let ctx = ctx.clone();
            async move {
                let t = Instant::now();
                let b = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
                assert!(b.iter().map(|b| b.num_rows()).sum::<usize>() <= 10);
                t.elapsed().as_secs_f64() * 1e3
            }
        };
        // Warm-up: caches of segments, the catalog snapshot.
        time(format!(
            "SELECT * FROM bm25('{}', 10, '{scope}')",
            queries[0]
        ))
        .await;
        let (mut un, mut sc) = (Vec::new(), Vec::new());
        for q in &queries {
            un.push(time(format!("SELECT * FROM bm25('{q}', 10)")).await);
            sc.push(time(format!("SELECT * FROM bm25('{q}', 10, '{scope}')")).await);
        }
        if label == "global" {
            out["bm25_unscoped"] = stats(un);
            let mut t1 = Vec::new();
            for q in &queries {
                t1.push(time(format!("SELECT * FROM abstracts('{q}', 5)")).await);
            }
            out["abstracts"] = stats(t1);
        }
        out[format!("bm25_scoped_{label}_stats")] = stats(sc);
    }
    // Vector search alone (no query encoding): unscoped vs scoped.
    let vs = VectorSearch::new(e.clone(), &cfg.data_dir, cfg.dense.clone());
    let scoped = Visibility {
        readable: None,
        scope: Some(vec![scope.clone()]),
    };
    let origin: Vec<f32> = std::iter::repeat_n(0.0, dim).collect();
    let qv: Vec<Vec<f32>> = (0..50).map(|_| rng.unit_near(&origin, 1.0)).collect();
    vs.search_vector_blocking(qv[0].clone(), 10).unwrap();
    vs.search_vector_visible_blocking(qv[0].clone(), 10, &scoped)
        .unwrap();
    let (mut un, mut sc) = (Vec::new(), Vec::new());
    for q in &qv {
        let t = Instant::now();
        assert_eq!(vs.search_vector_blocking(q.clone(), 10).unwrap().len(), 10);
        un.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let hits = vs
            .search_vector_visible_blocking(q.clone(), 10, &scoped)
            .unwrap();
        sc.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(
            hits.len(),
            10,
            "a scoped search returns k rows of its scope"
        );
        for h in &hits {
            let d: usize = h.chunk_id[3..10].parse().unwrap();
            assert_eq!(
                analysis_of(d * 50, first, analyses),
                0,
                "{} outside the scope",
                h.chunk_id
            );
        }
    }
    out["vectors_unscoped"] = stats(un);
    out["vectors_scoped"] = stats(sc);
    out["peak_rss_mib"] = serde_json::json!(peak_rss_mib());
    println!("{out}");
    if keep.is_none() {
        drop(tmp);
    }
}
