//! `abstracts(query, k [, w_dense, w_sparse, rrf_k])`: tier 1, the readable analyses ranked by a question (reranked when a reranker is configured).

use crate::result_table::{CallRows, ResultTable};
use std::sync::{Arc, LazyLock};

use arrow_array::{Float32Array, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::error::Result;

use super::args::{self, Arg};
use super::dense_fn::DenseHandle;
use super::error::SqlFnError;
use crate::answer_fn::wait_here;
use crate::rerank::Rerankers;
use mitra_llm::Passage;
use mitra_store::analyses::{AnalysisCatalog, Tier1Hit};
use mitra_store::config::{AbstractsConfig, LimitsConfig};
use mitra_store::index::Bm25Index;

const NAME: &str = "abstracts";
const SIGNATURE: &str = "(query text, k bigint [, w_dense float8, w_sparse float8, rrf_k float8])";

/// Output schema of `abstracts()`.
pub static ABSTRACTS_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("analysis_id", DataType::Utf8, false),
        Field::new("title", DataType::Utf8, false),
        Field::new("status", DataType::Utf8, false),
        Field::new("score", DataType::Float64, false),
        Field::new("rank", DataType::Int64, false),
        Field::new("rerank_score", DataType::Float32, true),
    ]))
});

/// The `abstracts` table function.
#[derive(Clone)]
pub struct AbstractsFunction {
    catalog: Arc<AnalysisCatalog>,
    dense: Arc<DenseHandle>,
    index: Arc<Bm25Index>,
    limits: LimitsConfig,
    defaults: AbstractsConfig,
    rerankers: Arc<Rerankers>,
}

impl std::fmt::Debug for AbstractsFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AbstractsFunction")
    }
}

impl AbstractsFunction {
    /// Creates the function; `index` supplies the query analyzer (the store's options).
    pub fn new(
        catalog: Arc<AnalysisCatalog>,
        dense: Arc<DenseHandle>,
        index: Arc<Bm25Index>,
        limits: LimitsConfig,
        defaults: AbstractsConfig,
        rerankers: Arc<Rerankers>,
    ) -> Self {
        Self {
            catalog,
            dense,
            index,
            limits,
            defaults,
            rerankers,
        }
    }

    fn run(&self, a: &TableFunctionArgs) -> std::result::Result<Option<Vec<Ranked>>, SqlFnError> {
        let exprs = a.exprs();
        if !(2..=5).contains(&exprs.len()) {
            return Err(SqlFnError::WrongArity {
                function: NAME,
                expected: SIGNATURE,
                got: exprs.len(),
            });
        }
        let mut vals = Vec::new();
        for e in exprs {
            match args::eval(a.session(), NAME, e)? {
                Arg::Value(v) => vals.push(v),
                Arg::Placeholder => return Ok(None),
            }
        }
        let query = args::query_text(NAME, &vals[0], &self.limits)?;
        let k = args::count(NAME, "k", &vals[1], &self.limits)?;
        let mut w = (
            self.defaults.w_dense,
            self.defaults.w_sparse,
            self.defaults.rrf_k,
        );
        if let Some(v) = vals.get(2) {
            w.0 = args::weight(NAME, "w_dense", v)?;
        }
        if let Some(v) = vals.get(3) {
            w.1 = args::weight(NAME, "w_sparse", v)?;
        }
        if let Some(v) = vals.get(4) {
            w.2 = args::weight(NAME, "rrf_k", v)?;
        }
        let analyses = |source| SqlFnError::Analyses {
            function: NAME,
            source,
        };
        // Tier 1 ranks what the user may read; the session scope does not apply (it is what
        // tier 1 helps choose).
        let vis = self
            .catalog
            .visibility(a.session(), Some(None))
            .map_err(analyses)?;
        let snap = self.catalog.snapshot_blocking().map_err(analyses)?;
        let terms = self.index.analyzer().terms(&query);
        // The question's vector, when the encoder that embedded the abstracts is loaded.
        let qv = match (self.dense.as_ref(), &snap.meta) {
            (Ok(vs), Some(m)) if w.0 > 0.0 && vs.embedder().meta() == *m => Some(
                vs.embedder()
                    .embed_query_blocking(&query)
                    .map_err(|source| SqlFnError::Dense {
                        function: NAME,
                        source,
                    })?,
            ),
            _ => None,
        };
        let rerank = self.rerankers.configured_for(NAME)?;
        let top = self.rerankers.config().abstracts_candidates;
        let depth = if rerank.is_some() { k.max(top) } else { k };
        let hits = snap
            .rank(&terms, qv.as_deref(), vis.readable.as_deref(), w, depth)
            .map_err(analyses)?;
        let mut ranked: Vec<Ranked> = hits.into_iter().map(|h| (h, None)).collect();
        if let Some(choice) = rerank {
            // The top candidates, in the reranker's order, before the rest in fused order.
            let n = top.min(ranked.len());
            let passages: Vec<Passage> = ranked[..n]
                .iter()
                .map(|(h, _)| Passage {
                    chunk_id: h.analysis_id.clone(),
                    title: Some(h.title.clone()),
                    heading: None,
                    page: None,
                    text: snap
                        .get(&h.analysis_id)
                        .map(|r| r.abstract_text.clone())
                        .unwrap_or_default(),
                })
                .collect();
            let scores = wait_here(self.rerankers.score(NAME, &choice, &query, passages, None))?;
            for (r, s) in ranked.iter_mut().zip(scores) {
                r.1 = Some(s);
            }
            ranked[..n].sort_by(|a, b| b.1.unwrap_or(0.0).total_cmp(&a.1.unwrap_or(0.0)));
        }
        ranked.truncate(k);
        Ok(Some(ranked))
    }
}

impl TableFunctionImpl for AbstractsFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let batch = match self.run(&a).map_err(SqlFnError::into_df)? {
            Some(rows) => Some(abstracts_batch(&rows)?),
            None => None,
        };
        Ok(Arc::new(ResultTable::new(
            NAME,
            ABSTRACTS_SCHEMA.clone(),
            batch.map(CallRows::Batch),
        )))
    }
}

/// A tier-1 hit and its reranker score, when a reranker ran over it.
type Ranked = (Tier1Hit, Option<f32>);

fn abstracts_batch(rows: &[Ranked]) -> Result<RecordBatch> {
    Ok(RecordBatch::try_new(
        ABSTRACTS_SCHEMA.clone(),
        vec![
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|(r, _)| r.analysis_id.as_str()),
            )),
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|(r, _)| r.title.as_str()),
            )),
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|(r, _)| r.status.as_str()),
            )),
            Arc::new(Float64Array::from_iter_values(
                rows.iter().map(|(r, _)| r.score),
            )),
            Arc::new(Int64Array::from_iter_values(1..=rows.len() as i64)),
            Arc::new(Float32Array::from_iter(rows.iter().map(|(_, s)| *s))),
        ],
    )?)
}
