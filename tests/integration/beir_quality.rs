//! BM25 quality on Cranfield and CISI matches the bm25s + pytrec_eval reference within 0.02.
//!
//! Reference (issue #2): bm25s 0.3.16, Lucene BM25 k1 1.2 b 0.75, Lucene's 33 stop words, Snowball
//! English stemming, document = title + " " + text; ranking at document level (max over chunks),
//! top 100; nDCG@10 (trec_eval ndcg_cut_10) and MRR (recip_rank).

use std::path::Path;

use mitra::{beir, metrics};

use crate::common;

/// (nDCG@10, MRR) of BM25 on a BEIR collection with the given chunk limit.
pub async fn bm25_quality(dataset: &Path, max_chars: usize) -> (f64, f64, usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::config(dir.path());
    cfg.bm25.stemming = Some(true);
    cfg.bm25.stopwords = Some(true);
    cfg.chunking.max_chars = max_chars;
    cfg.chunking.overlap_chars = max_chars / 10;
    let (mut store, mut index) = common::open(&cfg).await;
    let r = beir::ingest_corpus(&mut store, &mut index, &cfg, dataset, false)
        .await
        .unwrap();
    assert_eq!(r.failed, 0, "{:?}", r.errors);
    let queries = beir::read_queries(&dataset.join("queries.jsonl")).unwrap();
    let qrels = beir::read_qrels(&beir::qrels_path(dataset)).unwrap();
    let (mut ndcg, mut mrr, mut n) = (0.0, 0.0, 0usize);
    for (qid, text) in &queries {
        let Some(rels) = qrels.get(qid) else { continue };
        // Enough chunks to fill 100 documents even when documents were split.
        let hits = index.search(text, 1000).unwrap();
        let docs = metrics::doc_ranking(hits.iter().map(|h| h.doc_id.as_str()), 100);
        ndcg += metrics::ndcg_at(&docs, rels, 10);
        mrr += metrics::mrr(&docs, rels);
        n += 1;
    }
    (ndcg / n as f64, mrr / n as f64, n)
}

async fn check(name: &str, want_ndcg: f64, want_mrr: f64) {
    let ds = common::datasets().join(name);
    assert!(
        ds.join("corpus.jsonl").exists(),
        "dataset missing: {}",
        ds.display()
    );
    let (ndcg, mrr, n) = bm25_quality(&ds, 8000).await;
    eprintln!("{name}: BM25 nDCG@10 {ndcg:.4} MRR {mrr:.4} over {n} queries (whole documents)");
    assert!(
        (ndcg - want_ndcg).abs() <= 0.02,
        "{name} nDCG@10 {ndcg:.4} vs {want_ndcg}"
    );
    assert!(
        (mrr - want_mrr).abs() <= 0.02,
        "{name} MRR {mrr:.4} vs {want_mrr}"
    );
    // With the default chunk limit long documents are split; the document ranking must stay close.
    let (ndcg_c, mrr_c, _) = bm25_quality(&ds, 2000).await;
    eprintln!("{name}: BM25 nDCG@10 {ndcg_c:.4} MRR {mrr_c:.4} (default 2000-char chunks, max over chunks)");
    assert!(
        (ndcg_c - want_ndcg).abs() <= 0.05,
        "{name} chunked nDCG@10 {ndcg_c:.4}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cranfield_matches_reference() {
    check("cranfield", 0.369, 0.538).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cisi_matches_reference() {
    check("cisi", 0.381, 0.628).await;
}
