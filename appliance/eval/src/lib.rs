//! `mitra eval`: runs a BEIR collection's queries through retrievers and reports trec_eval metrics.

pub mod answers;
pub mod beir;
pub mod fusion;
pub mod metrics;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::beir::Qrels;
use crate::metrics::QueryMetrics;
use mitra_store::config::Config;
use mitra_store::dense::VectorSearch;
use mitra_store::index::Bm25Index;
use mitra_store::store::Store;

/// Errors of an evaluation run: its inputs, the store it builds, the retrievers and the answerer.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A retriever name, a question file or a setting is invalid.
    #[error("configuration: {0}")]
    Config(String),
    /// The collection could not be imported.
    #[error(transparent)]
    Ingest(#[from] mitra_store::ingest::IngestError),
    /// The Lance store failed.
    #[error(transparent)]
    Store(#[from] mitra_store::store::StoreError),
    /// The BM25 index failed.
    #[error(transparent)]
    Index(#[from] mitra_store::index::IndexError),
    /// Dense retrieval failed (model, encoder, vectors).
    #[error(transparent)]
    Dense(#[from] mitra_store::dense::DenseError),
    /// A SQL statement failed.
    #[error("SQL: {0}")]
    Sql(#[from] datafusion::error::DataFusionError),
    /// File system error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// A retriever the harness can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Retriever {
    /// tantivy BM25 over chunks, max-pooled to documents.
    Bm25,
    /// Exact or ANN vector search over chunks, max-pooled to documents.
    Dense,
    /// Weighted RRF of the dense and BM25 document rankings (top `depth` of each);
    /// weights in thousandths, K = 60.
    Hybrid {
        /// w_dense × 1000.
        w_dense_milli: u32,
        /// w_sparse × 1000.
        w_sparse_milli: u32,
    },
}

impl Retriever {
    /// Parses `bm25`, `dense`, `hybrid` (w_dense 0.9, w_sparse 0.1) or `hybrid:W_DENSE/W_SPARSE`.
    pub fn parse(name: &str) -> Result<Self, EvalError> {
        let lower = name.trim().to_ascii_lowercase();
        let bad = || {
            EvalError::Config(format!(
                "unknown retriever '{name}'; available: bm25, dense, hybrid, hybrid:W_DENSE/W_SPARSE (e.g. hybrid:0.5/0.5)"
            ))
        };
        match lower.as_str() {
            "bm25" => Ok(Retriever::Bm25),
            "dense" => Ok(Retriever::Dense),
            "hybrid" => Ok(Retriever::Hybrid {
                w_dense_milli: 900,
                w_sparse_milli: 100,
            }),
            other => {
                let w = other.strip_prefix("hybrid:").ok_or_else(bad)?;
                let (a, b) = w.split_once('/').ok_or_else(bad)?;
                let milli = |x: &str| -> Result<u32, EvalError> {
                    let v: f64 = x.trim().parse().map_err(|_| bad())?;
                    if !(0.0..=1000.0).contains(&v) {
                        return Err(bad());
                    }
                    Ok((v * 1000.0).round() as u32)
                };
                Ok(Retriever::Hybrid {
                    w_dense_milli: milli(a)?,
                    w_sparse_milli: milli(b)?,
                })
            }
        }
    }

    /// Name used in tables, run tags and JSON.
    pub fn name(self) -> String {
        match self {
            Retriever::Bm25 => "bm25".into(),
            Retriever::Dense => "dense".into(),
            Retriever::Hybrid {
                w_dense_milli,
                w_sparse_milli,
            } => format!(
                "hybrid{}/{}",
                w_dense_milli as f64 / 1000.0,
                w_sparse_milli as f64 / 1000.0
            ),
        }
    }

    /// Whether the retriever needs vectors.
    pub fn needs_dense(self) -> bool {
        !matches!(self, Retriever::Bm25)
    }
}

/// One query's ranked documents with scores (max over the document's chunks).
pub type DocRun = Vec<(String, f64)>;

/// Retrieves the top `depth` documents for a query (`dense` is needed for dense and hybrid).
pub fn retrieve(
    index: &Bm25Index,
    dense: Option<&VectorSearch>,
    r: Retriever,
    query: &str,
    depth: usize,
) -> Result<DocRun, EvalError> {
    // Enough chunks to fill `depth` documents when documents are split into chunks.
    let chunks = (depth * 10).max(1000);
    let need = || {
        dense.ok_or_else(|| {
            EvalError::Config("dense retrieval is not set up for this evaluation".into())
        })
    };
    match r {
        Retriever::Bm25 => {
            let hits = index.search(query, chunks)?;
            Ok(metrics::best_per_doc(
                hits.iter().map(|h| (h.doc_id.as_str(), h.score as f64)),
                depth,
            ))
        }
        Retriever::Dense => {
            let hits = need()?.search_blocking(query, chunks)?;
            Ok(metrics::best_per_doc(
                hits.iter().map(|h| (h.doc_id.as_str(), h.score as f64)),
                depth,
            ))
        }
        Retriever::Hybrid {
            w_dense_milli,
            w_sparse_milli,
        } => {
            let d = retrieve(index, dense, Retriever::Dense, query, depth)?;
            let s = retrieve(index, dense, Retriever::Bm25, query, depth)?;
            Ok(fusion::rrf_fuse(
                &d,
                &s,
                w_dense_milli as f64 / 1000.0,
                w_sparse_milli as f64 / 1000.0,
                60.0,
                depth,
            ))
        }
    }
}

/// Results of one retriever on one query set.
#[derive(Debug, Clone, Serialize)]
pub struct EvalRow {
    /// Retriever name.
    pub retriever: String,
    /// Query set (file name).
    pub query_set: String,
    /// Judged queries evaluated.
    pub queries: usize,
    /// Mean of every metric.
    pub mean: QueryMetrics,
    /// Extra cutoff `k`: (nDCG@k, P@k, R@k) means.
    pub at_k: (usize, f64, f64, f64),
    /// Query latency percentiles in milliseconds (p50, p99).
    pub latency_ms: (f64, f64),
    /// Per-query metrics.
    pub per_query: BTreeMap<String, QueryMetrics>,
    /// Ranked documents per query (for the run file).
    #[serde(skip)]
    pub runs: BTreeMap<String, DocRun>,
}

/// Runs every query of `queries` that has judgments and computes metrics.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_set(
    index: &Bm25Index,
    dense: Option<&VectorSearch>,
    r: Retriever,
    set_name: &str,
    queries: &BTreeMap<String, String>,
    qrels: &Qrels,
    k: usize,
    depth: usize,
) -> Result<EvalRow, EvalError> {
    let mut per_query = BTreeMap::new();
    let mut runs = BTreeMap::new();
    let mut lat = Vec::new();
    let (mut nk, mut pk, mut rk) = (0.0, 0.0, 0.0);
    for (qid, text) in queries {
        let Some(rels) = qrels.get(qid) else { continue };
        let t = Instant::now();
        let run = retrieve(index, dense, r, text, depth)?;
        lat.push(t.elapsed().as_secs_f64() * 1e3);
        let ranked = metrics::trec_order(run.clone());
        let m = metrics::evaluate(&ranked, rels);
        nk += metrics::ndcg_at(&ranked, rels, k);
        pk += metrics::precision_at(&ranked, rels, k);
        rk += metrics::recall_at(&ranked, rels, k);
        per_query.insert(qid.clone(), m);
        runs.insert(qid.clone(), run);
    }
    let n = per_query.len();
    if n == 0 {
        return Err(EvalError::Config(format!(
            "query set {set_name}: no query has relevance judgments in the qrels"
        )));
    }
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() as f64 - 1.0) * p).round() as usize];
    let values: Vec<QueryMetrics> = per_query.values().copied().collect();
    Ok(EvalRow {
        retriever: r.name(),
        query_set: set_name.to_string(),
        queries: n,
        mean: metrics::mean(&values),
        at_k: (k, nk / n as f64, pk / n as f64, rk / n as f64),
        latency_ms: (pct(0.5), pct(0.99)),
        per_query,
        runs,
    })
}

/// Writes a TREC run file: `qid Q0 docid rank score tag`, scores exactly as evaluated.
pub fn write_run(path: &Path, rows: &[&EvalRow]) -> Result<(), EvalError> {
    let mut out = String::new();
    for row in rows {
        let tag = format!("mitra-{}", row.retriever);
        for (qid, run) in &row.runs {
            for (i, (doc, score)) in run.iter().enumerate() {
                out.push_str(&format!("{qid} Q0 {doc} {} {score} {tag}\n", i + 1));
            }
        }
    }
    std::fs::write(path, out).map_err(|source| EvalError::Io {
        context: format!("writing run file {}", path.display()),
        source,
    })
}

/// Renders rows as a fixed-width table.
pub fn render_table(rows: &[EvalRow]) -> String {
    let mut head = vec!["retriever".to_string(), "queries".into(), "n".into()];
    head.extend(metrics::COLUMNS.iter().map(|(n, _)| n.to_string()));
    let k = rows.first().map_or(10, |r| r.at_k.0);
    if k != 5 && k != 10 {
        head.push(format!("nDCG@{k}"));
    }
    if ![1, 3, 5].contains(&k) {
        head.push(format!("P@{k}"));
    }
    if ![1, 3, 5, 100].contains(&k) {
        head.push(format!("R@{k}"));
    }
    head.push("p50 ms".into());
    head.push("p99 ms".into());
    let mut body = Vec::new();
    for r in rows {
        let mut cells = vec![
            r.retriever.clone(),
            r.query_set.clone(),
            r.queries.to_string(),
        ];
        cells.extend(
            metrics::COLUMNS
                .iter()
                .map(|(_, f)| format!("{:.4}", f(&r.mean))),
        );
        if k != 5 && k != 10 {
            cells.push(format!("{:.4}", r.at_k.1));
        }
        if ![1, 3, 5].contains(&k) {
            cells.push(format!("{:.4}", r.at_k.2));
        }
        if ![1, 3, 5, 100].contains(&k) {
            cells.push(format!("{:.4}", r.at_k.3));
        }
        cells.push(format!("{:.3}", r.latency_ms.0));
        cells.push(format!("{:.3}", r.latency_ms.1));
        body.push(cells);
    }
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            body.iter()
                .map(|c| c[i].len())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut s = line(&head) + "\n";
    for c in &body {
        s += &(line(c) + "\n");
    }
    s
}

/// What `mitra eval` was asked to do.
#[derive(Debug, Clone)]
pub struct EvalRequest {
    /// BEIR collection folder.
    pub dataset: PathBuf,
    /// Retrievers, one table row each (per query set).
    pub retrievers: Vec<Retriever>,
    /// Extra metric cutoff.
    pub k: usize,
    /// Documents per query in the run (R@100 needs 100).
    pub depth: usize,
    /// Query files; default `DATASET/queries.jsonl`.
    pub query_files: Vec<PathBuf>,
    /// Qrels file; default `DATASET/qrels/test.tsv`.
    pub qrels: Option<PathBuf>,
}

/// Ingests the collection into `store` (unchanged documents are skipped) and evaluates; also
/// returns the judgments read, for a fusion sweep over the rows.
pub async fn run(
    store: &mut Store,
    index: &mut Bm25Index,
    cfg: &Config,
    req: &EvalRequest,
) -> Result<(Vec<EvalRow>, Qrels), EvalError> {
    let mut cfg = cfg.clone();
    let needs_dense = req.retrievers.iter().any(|r| r.needs_dense());
    cfg.embedding.enabled = needs_dense;
    beir::ingest_corpus(store, index, &cfg, &req.dataset, false).await?;
    let dense = if needs_dense {
        let e = mitra_store::dense::Embedder::shared(&cfg.embedding)?;
        if store.embedding_meta().is_none() {
            mitra_store::dense::embed_store(store, &e, false, false).await?;
        }
        mitra_store::dense::ensure_ann_index(store, &cfg.dense).await?;
        Some(VectorSearch::new(e, &cfg.data_dir, cfg.dense.clone()))
    } else {
        None
    };
    let qrels_path = req
        .qrels
        .clone()
        .unwrap_or_else(|| beir::qrels_path(&req.dataset));
    let qrels = beir::read_qrels(&qrels_path)?;
    let files = if req.query_files.is_empty() {
        vec![req.dataset.join("queries.jsonl")]
    } else {
        req.query_files.clone()
    };
    let mut rows = Vec::new();
    for f in &files {
        let queries = beir::read_queries(f)?;
        let set = f
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        for &r in &req.retrievers {
            rows.push(evaluate_set(
                index,
                dense.as_ref(),
                r,
                &set,
                &queries,
                &qrels,
                req.k,
                req.depth,
            )?);
        }
    }
    Ok((rows, qrels))
}

/// One point of the fusion sweep.
#[derive(Debug, Clone, Serialize)]
pub struct SweepPoint {
    /// Weight of the first retriever.
    pub w_a: f64,
    /// Weight of the second retriever.
    pub w_b: f64,
    /// RRF constant K.
    pub k: f64,
    /// Mean metrics of the fused ranking.
    pub mean: QueryMetrics,
}

/// Fuses two rows' runs (same query set) over [`fusion::sweep_grid`] and evaluates each point.
pub fn sweep(a: &EvalRow, b: &EvalRow, qrels: &Qrels, depth: usize) -> Vec<SweepPoint> {
    fusion::sweep_grid()
        .into_iter()
        .map(|(w_a, w_b, k)| {
            let per: Vec<QueryMetrics> = a
                .runs
                .iter()
                .filter_map(|(qid, run_a)| {
                    let rels = qrels.get(qid)?;
                    let empty = Vec::new();
                    let run_b = b.runs.get(qid).unwrap_or(&empty);
                    let fused = fusion::rrf_fuse(run_a, run_b, w_a, w_b, k, depth);
                    Some(metrics::evaluate(&metrics::trec_order(fused), rels))
                })
                .collect();
            SweepPoint {
                w_a,
                w_b,
                k,
                mean: metrics::mean(&per),
            }
        })
        .collect()
}
