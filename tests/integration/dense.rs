//! Dense retrieval: encoder parity with the Python references, vectors in Lance, exact and ANN
//! search, `dense()`, `hybrid()`, `embed()` over SQL and pgwire, and the refusals.

use std::path::{Path, PathBuf};

use arrow::array::{Array, AsArray, Float32Array};
use mitra::dense::{self, Embedder, VectorSearch};
use mitra::store::{ChunkRow, DocumentRow, NewDocument};
use mitra_embed::{Encoder, ModelDir};
use serde_json::Value;
use tokio_postgres::error::SqlState;

use crate::common;

fn fixture(name: &str) -> PathBuf {
    common::repo_root().join("tests/data/embed").join(name)
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let na: f64 = a.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

fn golden(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

fn vecs(v: &Value) -> Vec<Vec<f32>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn minilm_matches_sentence_transformers() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cfg) = common::dense_config(dir.path()) else {
        return;
    };
    let model = Embedder::model_dir(&cfg.embedding).unwrap();
    let md = ModelDir::open(&model).unwrap();
    assert_eq!((md.dim, md.max_len, md.normalize), (384, 256, true));
    let enc = Encoder::load(&md, "all-MiniLM-L6-v2", mitra_embed::Device::Cpu).unwrap();
    let g = golden("minilm_golden.json");
    let sentences = strings(&g["sentences"]);
    let want = vecs(&g["vectors"]);
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    // Batched (padded to the longest input) and one at a time must both match.
    let batched = enc.encode(&refs).unwrap();
    for (i, s) in refs.iter().enumerate() {
        let single = enc.encode(&[s]).unwrap().remove(0);
        for got in [&batched[i], &single] {
            let c = cosine(got, &want[i]);
            assert!(c >= 0.9999, "sentence {i} ({:.40}): cosine {c}", s);
            let norm: f32 = got.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4);
        }
    }
    // The long text is truncated at 256 word pieces.
    let counts = enc.token_counts(&refs).unwrap();
    assert_eq!(*counts.iter().max().unwrap(), 256);
}

#[test]
fn dpr_encoders_match_transformers() {
    let g = golden("dpr_golden.json");
    let sentences = strings(&g["sentences"]);
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    for (dir, key, dim) in [("dpr-question", "question", 32), ("dpr-ctx", "ctx", 16)] {
        let model = common::tiny_dpr(dir);
        let md = ModelDir::open(model.path()).unwrap();
        assert_eq!(md.pooling, mitra_embed::Pooling::Cls);
        assert!(!md.normalize);
        assert_eq!(md.dim, dim);
        let enc = Encoder::load(&md, dir, mitra_embed::Device::Cpu).unwrap();
        let counts = enc.token_counts(&refs).unwrap();
        let want_counts: Vec<usize> = g["token_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(counts, want_counts, "{dir} tokenisation");
        let got = enc.encode(&refs).unwrap();
        let want = vecs(&g[key]);
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert_eq!(a.len(), dim);
            let c = cosine(a, b);
            let max_abs = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0f32, f32::max);
            assert!(
                c >= 0.9999 && max_abs < 1e-3,
                "{dir} sentence {i}: cosine {c}, max |diff| {max_abs}"
            );
        }
    }
}

fn doc(id: &str, chunks: Vec<(String, Vec<f32>)>) -> NewDocument {
    NewDocument {
        doc: DocumentRow {
            doc_id: id.into(),
            version: 1,
            title: id.into(),
            source_uri: format!("test://{id}"),
            content_sha256: id.into(),
            ingested_at: 0,
            analysis_id: None,
            metadata: "{}".into(),
            source: None,
            deleted_at: None,
        },
        chunks: chunks
            .into_iter()
            .enumerate()
            .map(|(i, (text, v))| ChunkRow {
                chunk_id: mitra::store::chunk_id(id, 1, i as i32),
                doc_id: id.into(),
                version: 1,
                ordinal: i as i32,
                heading: None,
                text,
                page: None,
                page_end: None,
                kind: "body".into(),
                analysis_id: None,
                embedding: Some(v),
            })
            .collect(),
    }
}

/// Deterministic clustered unit vectors.
fn clustered(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut x = seed;
    let mut rnd = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    };
    let centers: Vec<Vec<f32>> = (0..20).map(|_| (0..dim).map(|_| rnd()).collect()).collect();
    (0..n)
        .map(|i| {
            let c = &centers[i % centers.len()];
            let v: Vec<f32> = c.iter().map(|a| a + 0.3 * rnd()).collect();
            let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
            v.into_iter().map(|a| a / n).collect()
        })
        .collect()
}

#[tokio::test]
async fn vectors_in_lance_exact_and_ann_search() {
    let dir = tempfile::tempdir().unwrap();
    let model = common::tiny_dpr("dpr-ctx");
    let mut cfg = common::tiny_dpr_config(dir.path(), model.path());
    cfg.dense.ann_min_rows = 1500;
    cfg.dense.nprobes = 8;
    cfg.dense.refine_factor = 20;
    let (mut store, _index) = common::open(&cfg).await;
    let e = dense::embedder_for_ingest(&mut store, &cfg)
        .await
        .unwrap()
        .unwrap();
    let meta = store.embedding_meta().unwrap();
    assert_eq!((meta.model.as_str(), meta.dim), ("tiny-dpr-ctx", 16));
    let data = clustered(2000, 16, 7);
    // NaN is refused at write time, and nothing is committed.
    let mut bad = data[0].clone();
    bad[3] = f32::NAN;
    let err = store
        .commit(&[doc("nan", vec![("x".into(), bad)])])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("NaN"), "{err}");
    let docs: Vec<NewDocument> = data
        .chunks(100)
        .enumerate()
        .map(|(d, rows)| {
            doc(
                &format!("d{d:02}"),
                rows.iter().map(|v| ("t".to_string(), v.clone())).collect(),
            )
        })
        .collect();
    // Below ann_min_rows: exact search.
    store.commit(&docs[..10]).await.unwrap();
    let r = dense::ensure_ann_index(&mut store, &cfg.dense)
        .await
        .unwrap();
    assert!(!r.built);
    let vs = VectorSearch::new(e.clone(), dir.path(), cfg.dense.clone());
    let q = data[5].clone();
    let exact = vs.search_vector_blocking(q.clone(), 10).unwrap();
    let brute = |n: usize| -> Vec<String> {
        let mut s: Vec<(f32, String)> = data[..n]
            .iter()
            .enumerate()
            .map(|(i, v)| {
                (
                    v.iter().zip(&q).map(|(a, b)| a * b).sum(),
                    mitra::store::chunk_id(&format!("d{:02}", i / 100), 1, (i % 100) as i32),
                )
            })
            .collect();
        s.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        s.into_iter().take(10).map(|x| x.1).collect()
    };
    assert_eq!(
        exact.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>(),
        brute(1000)
    );
    assert!(exact.windows(2).all(|w| w[0].score >= w[1].score));
    // Above it: the IVF_PQ index is built and used; recall@10 against exact stays high.
    store.commit(&docs[10..]).await.unwrap();
    let r = dense::ensure_ann_index(&mut store, &cfg.dense)
        .await
        .unwrap();
    assert!(r.built, "{r:?}");
    assert!(dense::has_vector_index(store.chunks()).await.unwrap());
    let mut hit = 0;
    let queries = [5usize, 77, 301, 999, 1500, 1999];
    for &qi in &queries {
        let q = data[qi].clone();
        let ann = vs.search_vector_blocking(q.clone(), 10).unwrap();
        let mut s: Vec<(f32, usize)> = data
            .iter()
            .enumerate()
            .map(|(i, v)| (v.iter().zip(&q).map(|(a, b)| a * b).sum(), i))
            .collect();
        s.sort_by(|a, b| b.0.total_cmp(&a.0));
        let truth: Vec<String> = s[..10]
            .iter()
            .map(|(_, i)| mitra::store::chunk_id(&format!("d{:02}", i / 100), 1, (i % 100) as i32))
            .collect();
        hit += ann.iter().filter(|h| truth.contains(&h.chunk_id)).count();
    }
    let recall = hit as f64 / (10 * queries.len()) as f64;
    assert!(recall >= 0.9, "ANN recall@10 {recall}");
    // New rows after the index are still found (Lance searches unindexed fragments exactly).
    let fresh = clustered(1, 16, 99).remove(0);
    store
        .commit(&[doc("fresh", vec![("t".into(), fresh.clone())])])
        .await
        .unwrap();
    let top = vs.search_vector_blocking(fresh, 1).unwrap();
    assert_eq!(top[0].chunk_id, "fresh@1#0");
}

#[tokio::test]
async fn mixing_models_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = common::tiny_dpr("dpr-ctx");
    let cfg = common::tiny_dpr_config(dir.path(), model.path());
    let (mut store, index) = common::open(&cfg).await;
    dense::embedder_for_ingest(&mut store, &cfg).await.unwrap();
    drop((store, index));
    // Same dimensions, another model id: refused at ingest and at query time.
    let mut other = cfg.clone();
    other.embedding.model = "another-model".into();
    let (mut store, index) = common::open(&other).await;
    let err = dense::embedder_for_ingest(&mut store, &other)
        .await
        .unwrap_err();
    drop((store, index));
    assert!(
        matches!(err, dense::DenseError::ModelMismatch { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("mitra embed --rebuild"), "{err}");
    let vs = VectorSearch::new(
        Embedder::shared(&other.embedding).unwrap(),
        dir.path(),
        other.dense.clone(),
    );
    let err = vs.search_blocking("muon", 3).unwrap_err();
    assert!(
        matches!(err, dense::DenseError::ModelMismatch { .. }),
        "{err}"
    );
    // Another dimension: the question encoder (32-d) against the 16-d table.
    let mut q = cfg.clone();
    let question = common::tiny_dpr("dpr-question");
    q.embedding.model_dir = Some(question.path().to_path_buf());
    let (mut store, _index) = common::open(&q).await;
    let err = dense::embedder_for_ingest(&mut store, &q)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("16-d"), "{err}");
}

#[tokio::test]
async fn a_missing_model_names_the_fetch_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::config(dir.path());
    cfg.embedding.enabled = true;
    cfg.embedding.models_dir = dir.path().join("no-models");
    let (mut store, _index) = common::open(&cfg).await;
    let err = dense::embedder_for_ingest(&mut store, &cfg)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("mitra models fetch all-MiniLM-L6-v2"), "{err}");
    cfg.embedding.device = "cuda:0".into();
    let model = common::tiny_dpr("dpr-ctx");
    cfg.embedding.model_dir = Some(model.path().to_path_buf());
    cfg.embedding.model = "cuda-test".into();
    if !cfg!(feature = "cuda") {
        let err = Embedder::load(&cfg.embedding).unwrap_err().to_string();
        assert!(err.contains("without CUDA"), "{err}");
    }
}

/// The demo store with MiniLM vectors, served.
async fn dense_demo(dir: &Path) -> Option<mitra::Config> {
    let cfg = common::dense_config(dir)?;
    Some(common::demo_store_with(dir, cfg).await)
}

const QUERY: &str = "how is the muon momentum scale calibrated";

#[tokio::test]
async fn hybrid_equals_handwritten_rrf_sql() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cfg) = dense_demo(dir.path()).await else {
        return;
    };
    let ctx = common::session(&cfg).await;
    let rows = |sql: String| {
        let ctx = ctx.clone();
        async move {
            let b = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
            let mut out = Vec::new();
            for b in &b {
                let ids = b.column(0).as_string::<i32>();
                let sc = b.column(1).as_primitive::<arrow::datatypes::Float64Type>();
                for i in 0..b.num_rows() {
                    out.push((ids.value(i).to_string(), sc.value(i)));
                }
            }
            out
        }
    };
    for (extra, w_d, w_s, k, depth) in [
        ("", 0.25, 1.0, 60.0, 100),
        (", 0.5, 0.5, 30, 7", 0.5, 0.5, 30.0, 7),
        (", 0.0, 1.0, 60, 100", 0.0, 1.0, 60.0, 100),
    ] {
        let hybrid = rows(format!(
            "SELECT chunk_id, score FROM hybrid('{QUERY}', 10{extra}) ORDER BY rank"
        ))
        .await;
        let by_hand = rows(format!(
            "WITH d AS (SELECT chunk_id, rank FROM dense('{QUERY}', {depth})), \
                  s AS (SELECT chunk_id, rank FROM bm25('{QUERY}', {depth})) \
             SELECT COALESCE(d.chunk_id, s.chunk_id) AS chunk_id, \
                    {w_d} * rrf(d.rank, {k}) + {w_s} * rrf(s.rank, {k}) AS score \
             FROM d FULL OUTER JOIN s ON d.chunk_id = s.chunk_id \
             ORDER BY score DESC, chunk_id LIMIT 10"
        ))
        .await;
        assert_eq!(hybrid.len(), 10);
        assert_eq!(
            hybrid.iter().map(|r| &r.0).collect::<Vec<_>>(),
            by_hand.iter().map(|r| &r.0).collect::<Vec<_>>(),
            "weights {w_d}/{w_s} K {k} depth {depth}"
        );
        for (a, b) in hybrid.iter().zip(&by_hand) {
            assert!((a.1 - b.1).abs() < 1e-12, "{a:?} vs {b:?}");
        }
    }
    // dense_rank / sparse_rank are the sides' ranks, NULL where a side missed the chunk.
    let b = ctx
        .sql(&format!("SELECT h.chunk_id, h.dense_rank, h.sparse_rank, d.rank FROM hybrid('{QUERY}', 22, 0.9, 0.1, 60, 5) h LEFT JOIN dense('{QUERY}', 5) d USING (chunk_id)"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let mut nulls = 0;
    for b in &b {
        let dr = b.column(1).as_primitive::<arrow::datatypes::Int64Type>();
        let sr = b.column(2).as_primitive::<arrow::datatypes::Int64Type>();
        let want = b.column(3).as_primitive::<arrow::datatypes::Int64Type>();
        for i in 0..b.num_rows() {
            assert_eq!(dr.is_null(i), want.is_null(i));
            if !dr.is_null(i) {
                assert_eq!(dr.value(i), want.value(i));
            }
            assert!(!(dr.is_null(i) && sr.is_null(i)));
            nulls += dr.is_null(i) as usize + sr.is_null(i) as usize;
        }
    }
    assert!(nulls > 0, "depth 5 per side must leave some NULL ranks");
    // Joined with document metadata, like the SQL docs show.
    let b = ctx
        .sql(&format!("SELECT d.title, h.rank FROM hybrid('{QUERY}', 3) h JOIN documents d USING (doc_id) ORDER BY h.rank"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(b.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
    // embed() returns the query vector; dense() scores are inner products with it.
    let b = ctx
        .sql("SELECT embed('muon momentum scale') AS v, embed(NULL) AS n")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let list = b[0].column(0).as_list::<i32>();
    let v = list.value(0);
    let v = v.as_any().downcast_ref::<Float32Array>().unwrap();
    assert_eq!(v.len(), 384);
    assert!(b[0].column(1).is_null(0));
    let b = ctx
        .sql("SELECT score FROM dense('muon momentum scale', 1)")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let s = b[0]
        .column(0)
        .as_primitive::<arrow::datatypes::Float32Type>()
        .value(0);
    assert!(s > 0.3 && s <= 1.0001, "{s}");
}

#[tokio::test]
async fn dense_over_pgwire_with_bound_parameters_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let Some(cfg) = dense_demo(dir.path()).await else {
        return;
    };
    let addr = common::serve(&cfg).await;
    let c = common::connect(addr).await;
    let rows = c
        .query(
            "SELECT chunk_id, score, rank FROM dense($1, $2) ORDER BY rank",
            &[&QUERY, &3i64],
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), 3);
    let first: String = rows[0].get(0);
    assert!(first.starts_with("demo-notes/hmumu-run3.md"), "{first}");
    let rows = c
        .query(
            "SELECT h.chunk_id, h.rank, h.dense_rank, h.sparse_rank, d.title FROM hybrid($1, $2, $3, $4, $5, $6) h JOIN documents d USING (doc_id) ORDER BY h.rank",
            &[&QUERY, &5i64, &0.5f64, &0.5f64, &60f64, &50i64],
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), 5);
    let r: i64 = rows[4].get(1);
    assert_eq!(r, 5);
    let v = c
        .query_one("SELECT embed($1) AS v", &[&"dimuon resonance"])
        .await
        .unwrap();
    let v: Vec<f32> = v.get(0);
    assert_eq!(v.len(), 384);
    // Bad input: clear SQLSTATEs, and the session stays usable.
    for (sql, state) in [
        (
            "SELECT * FROM dense('', 3)",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT * FROM dense('muon', 0)",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        ("SELECT * FROM dense('muon')", SqlState::UNDEFINED_FUNCTION),
        (
            "SELECT * FROM hybrid('muon', 3, -1)",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
        (
            "SELECT * FROM hybrid('muon', 3, 0.5, 0.5, 60, 0)",
            SqlState::INVALID_PARAMETER_VALUE,
        ),
    ] {
        let e = c.simple_query(sql).await.unwrap_err();
        let db = e.as_db_error().unwrap_or_else(|| panic!("{sql}: {e}"));
        assert_eq!(db.code(), &state, "{sql}: {}", db.message());
    }
    let long = "muon ".repeat(4000);
    let e = c
        .query("SELECT * FROM dense($1, 3)", &[&long])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::INVALID_PARAMETER_VALUE));
    // Text far above the model's max length but within the query limit is truncated, not refused.
    let long_ok = "muon momentum ".repeat(500);
    assert_eq!(
        c.query("SELECT * FROM dense($1, 2)", &[&long_ok])
            .await
            .unwrap()
            .len(),
        2
    );
    assert_eq!(c.query("SELECT 1", &[]).await.unwrap().len(), 1);
}

#[tokio::test]
async fn embed_existing_store_then_ingest_keeps_vectors_complete() {
    let dir = tempfile::tempdir().unwrap();
    let Some(dcfg) = common::dense_config(dir.path()) else {
        return;
    };
    // A BM25-only store…
    let bm25_cfg = common::demo_store(dir.path()).await;
    assert!(!bm25_cfg.embedding.enabled);
    // …refuses to take vectors for new chunks only,
    let (mut store, _index) = common::open(&dcfg).await;
    let err = dense::embedder_for_ingest(&mut store, &dcfg)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("mitra embed"), "{err}");
    // `mitra embed` adds the column by schema evolution (the old version stays readable),
    let before = store.chunks_version();
    let e = Embedder::shared(&dcfg.embedding).unwrap();
    let n = dense::embed_store(&mut store, &e, false, false)
        .await
        .unwrap();
    assert_eq!(n, 22);
    assert!(store.chunks_version() > before);
    let old = store.chunks().checkout_version(before).await.unwrap();
    assert!(mitra::store::embedding_meta_of(&old).is_none());
    assert_eq!(old.count_rows(None).await.unwrap(), 22);
    // and a second run has nothing to do.
    assert_eq!(
        dense::embed_store(&mut store, &e, false, false)
            .await
            .unwrap(),
        0
    );
    drop(store);
    let vs = VectorSearch::new(e, dir.path(), dcfg.dense.clone());
    let hits = vs.search_blocking(QUERY, 3).unwrap();
    assert!(
        hits[0].chunk_id.starts_with("demo-notes/hmumu-run3.md"),
        "{hits:?}"
    );
}

/// Reference of issue #3 (sentence-transformers 6.2 with all-MiniLM-L6-v2, exact cosine,
/// document = title + " " + text truncated at 256 word pieces; BM25 as in issue #2; weighted RRF
/// over the top 100 of each side, K 60), regenerated by `benches/dense_reference.py`.
const REFERENCE: &[(&str, &str, f64, f64)] = &[
    ("cranfield", "dense", 0.382, 0.543),
    ("cranfield", "hybrid0.9/0.1", 0.400, 0.558),
    ("cranfield", "hybrid0.5/0.5", 0.418, 0.581),
    ("cisi", "dense", 0.419, 0.602),
    ("cisi", "hybrid0.9/0.1", 0.443, 0.658),
    ("cisi", "hybrid0.5/0.5", 0.441, 0.676),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dense_and_hybrid_quality_match_the_reference() {
    use mitra::eval::{self, Retriever};
    for name in ["cranfield", "cisi"] {
        let dir = tempfile::tempdir().unwrap();
        let Some(mut cfg) = common::dense_config(dir.path()) else {
            return;
        };
        // Whole documents (the reference truncates each at 256 word pieces), BM25 as in #2.
        cfg.bm25.stemming = Some(true);
        cfg.bm25.stopwords = Some(true);
        cfg.chunking.max_chars = 8000;
        cfg.chunking.overlap_chars = 800;
        let (mut store, mut index) = common::open(&cfg).await;
        let req = eval::EvalRequest {
            dataset: common::datasets().join(name),
            retrievers: ["dense", "hybrid", "hybrid:0.5/0.5"]
                .iter()
                .map(|r| Retriever::parse(r).unwrap())
                .collect(),
            k: 10,
            depth: 100,
            query_files: vec![],
            qrels: None,
        };
        let (rows, _) = eval::run(&mut store, &mut index, &cfg, &req).await.unwrap();
        for row in &rows {
            let (_, _, want_ndcg, want_mrr) = REFERENCE
                .iter()
                .find(|r| r.0 == name && r.1 == row.retriever)
                .unwrap();
            let (ndcg, mrr) = (row.mean.ndcg_10, row.mean.mrr);
            eprintln!(
                "{name} {}: nDCG@10 {ndcg:.4} (ref {want_ndcg}), MRR {mrr:.4} (ref {want_mrr})",
                row.retriever
            );
            assert!(
                (ndcg - want_ndcg).abs() <= 0.02,
                "{name} {} nDCG@10 {ndcg:.4} vs {want_ndcg}",
                row.retriever
            );
            assert!(
                (mrr - want_mrr).abs() <= 0.02,
                "{name} {} MRR {mrr:.4} vs {want_mrr}",
                row.retriever
            );
        }
    }
}
