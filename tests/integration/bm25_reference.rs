//! BM25 scores equal a hand computation of Lucene's formula on a tiny corpus.

use mitra::config::Config;
use mitra::ingest::{sha256_hex, Ingestor, SourceDoc};

use crate::common;

const DOCS: &[(&str, &str)] = &[
    ("d1", "muon muon jet"),
    ("d2", "muon electron"),
    ("d3", "jet jet jet photon"),
    ("d4", "photon"),
    ("d5", "electron electron electron electron electron"),
];

/// Lucene BM25: idf = ln(1 + (N - n + 0.5) / (n + 0.5)), tf part = tf / (tf + k1 (1 - b + b dl / avgdl)).
fn reference(query: &[&str], k1: f64, b: f64) -> Vec<(String, f64)> {
    let docs: Vec<Vec<&str>> = DOCS.iter().map(|(_, t)| t.split(' ').collect()).collect();
    let n = docs.len() as f64;
    let avgdl = docs.iter().map(|d| d.len() as f64).sum::<f64>() / n;
    let mut out = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let mut s = 0.0;
        for q in query {
            let df = docs.iter().filter(|d| d.contains(q)).count() as f64;
            let tf = d.iter().filter(|w| *w == q).count() as f64;
            if tf > 0.0 {
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                s += idf * tf / (tf + k1 * (1.0 - b + b * d.len() as f64 / avgdl));
            }
        }
        if s > 0.0 {
            out.push((DOCS[i].0.to_string(), s));
        }
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

async fn check(k1: f32, b: f32) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg: Config = common::config(dir.path());
    cfg.bm25.k1 = k1;
    cfg.bm25.b = b;
    let (mut store, mut index) = common::open(&cfg).await;
    let mut ing = Ingestor::new(&mut store, &mut index, &cfg, 0, false)
        .await
        .unwrap();
    for (id, text) in DOCS {
        ing.add(SourceDoc {
            doc_id: id.to_string(),
            title: id.to_string(),
            source_uri: format!("test://{id}"),
            text: text.to_string(),
            sha256: sha256_hex(text.as_bytes()),
            metadata: serde_json::json!({}),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    ing.finish().await.unwrap();
    for query in [
        vec!["muon", "jet"],
        vec!["electron"],
        vec!["photon", "muon", "muon"],
    ] {
        let want = reference(&query, k1 as f64, b as f64);
        let got = index.search(&query.join(" "), 10).unwrap();
        assert_eq!(got.len(), want.len(), "{query:?}");
        for (g, (doc, score)) in got.iter().zip(&want) {
            assert_eq!(&g.doc_id, doc, "{query:?}: {got:?} vs {want:?}");
            assert!(
                (g.score as f64 - score).abs() < 1e-5,
                "{query:?} {doc}: {} vs {score}",
                g.score
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lucene_bm25_default_parameters() {
    check(1.2, 0.75).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lucene_bm25_configured_parameters() {
    check(0.9, 0.4).await;
    check(2.0, 1.0).await;
}
