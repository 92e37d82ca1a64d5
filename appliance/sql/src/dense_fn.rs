//! `dense(query, k [, scope])`, `hybrid(query, k [, w_dense, w_sparse, rrf_k, depth] [, scope])`
//! and `embed(text)`.

use std::sync::{Arc, LazyLock};

use arrow::array::{Array, AsArray};
use arrow_array::{Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::datasource::TableType;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::physical_plan::ExecutionPlan;

use super::args::{self, Arg};
use super::bm25_fn::RankedTable;
use super::error::SqlFnError;
use mitra_store::analyses::AnalysisCatalog;
use mitra_store::config::{HybridConfig, LimitsConfig};
use mitra_store::dense::{DenseError, VectorSearch};
use mitra_store::index::Bm25Index;

/// One ranked row: chunk id, document id, score.
type RankedRow = (String, String, f32);

/// Dense search as the session sees it: ready, or the reason it is not (shown on use).
pub type DenseHandle = std::result::Result<VectorSearch, String>;

fn dense_err(function: &'static str, source: DenseError) -> SqlFnError {
    SqlFnError::Dense { function, source }
}

fn handle<'a>(
    h: &'a DenseHandle,
    function: &'static str,
) -> std::result::Result<&'a VectorSearch, SqlFnError> {
    h.as_ref()
        .map_err(|why| dense_err(function, DenseError::Unavailable(why.clone())))
}

/// The `dense` table function.
#[derive(Clone)]
pub struct DenseFunction {
    dense: Arc<DenseHandle>,
    limits: LimitsConfig,
    catalog: Arc<AnalysisCatalog>,
}

impl std::fmt::Debug for DenseFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DenseFunction")
    }
}

impl DenseFunction {
    /// Creates the function.
    pub fn new(
        dense: Arc<DenseHandle>,
        limits: LimitsConfig,
        catalog: Arc<AnalysisCatalog>,
    ) -> Self {
        Self {
            dense,
            limits,
            catalog,
        }
    }
}

const DENSE: &str = "dense";

impl TableFunctionImpl for DenseFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let run = || -> std::result::Result<Option<Vec<RankedRow>>, SqlFnError> {
            let exprs = a.exprs();
            if !(2..=3).contains(&exprs.len()) {
                return Err(SqlFnError::WrongArity {
                    function: DENSE,
                    expected: "(query text, k bigint [, scope text])",
                    got: exprs.len(),
                });
            }
            let mut vals = Vec::new();
            for e in exprs {
                match args::eval(a.session(), DENSE, e)? {
                    Arg::Value(v) => vals.push(v),
                    Arg::Placeholder => return Ok(None),
                }
            }
            let query = args::query_text(DENSE, &vals[0], &self.limits)?;
            let k = args::count(DENSE, "k", &vals[1], &self.limits)?;
            let scope = vals.get(2).map(|v| args::scope(DENSE, v)).transpose()?;
            let vis = self
                .catalog
                .visibility(a.session(), scope)
                .map_err(|source| SqlFnError::Analyses {
                    function: DENSE,
                    source,
                })?;
            let vs = handle(&self.dense, DENSE)?;
            let hits = vs
                .search_visible_blocking(&query, k, &vis)
                .map_err(|e| dense_err(DENSE, e))?;
            Ok(Some(
                hits.into_iter()
                    .map(|h| (h.chunk_id, h.doc_id, h.score))
                    .collect(),
            ))
        };
        let rows = run().map_err(SqlFnError::into_df)?;
        Ok(Arc::new(RankedTable::new(DENSE, rows)))
    }
}

/// One fused row of `hybrid()`.
#[derive(Debug, Clone, PartialEq)]
pub struct HybridRow {
    /// Chunk id.
    pub chunk_id: String,
    /// Document id.
    pub doc_id: String,
    /// w_dense·rrf(dense_rank) + w_sparse·rrf(sparse_rank).
    pub score: f64,
    /// Rank on the dense side, if it returned the chunk.
    pub dense_rank: Option<i64>,
    /// Rank on the BM25 side, if it returned the chunk.
    pub sparse_rank: Option<i64>,
}

/// Output schema of `hybrid()`.
pub static HYBRID_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("chunk_id", DataType::Utf8, false),
        Field::new("doc_id", DataType::Utf8, false),
        Field::new("score", DataType::Float64, false),
        Field::new("rank", DataType::Int64, false),
        Field::new("dense_rank", DataType::Int64, true),
        Field::new("sparse_rank", DataType::Int64, true),
    ]))
});

/// Weighted RRF ([`mitra_store::fusion::weighted_rrf`]) of two `(chunk_id, doc_id)` rankings, top `k`.
pub fn fuse(
    dense: &[(String, String)],
    sparse: &[(String, String)],
    p: &HybridConfig,
    k: usize,
) -> Vec<HybridRow> {
    let doc_of: std::collections::HashMap<&str, &str> = dense
        .iter()
        .chain(sparse)
        .map(|(c, d)| (c.as_str(), d.as_str()))
        .collect();
    mitra_store::fusion::weighted_rrf(
        dense.iter().map(|(c, _)| c.as_str()),
        sparse.iter().map(|(c, _)| c.as_str()),
        p.w_dense,
        p.w_sparse,
        p.rrf_k,
    )
    .into_iter()
    .take(k)
    .map(|f| HybridRow {
        chunk_id: f.id.to_string(),
        doc_id: doc_of[f.id].to_string(),
        score: f.score,
        dense_rank: f.rank_a.map(|r| r as i64),
        sparse_rank: f.rank_b.map(|r| r as i64),
    })
    .collect()
}

/// The `hybrid` table function.
#[derive(Clone)]
pub struct HybridFunction {
    dense: Arc<DenseHandle>,
    index: Arc<Bm25Index>,
    limits: LimitsConfig,
    defaults: HybridConfig,
    catalog: Arc<AnalysisCatalog>,
    scoped_stats: bool,
}

impl std::fmt::Debug for HybridFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HybridFunction")
    }
}

const HYBRID: &str = "hybrid";
const HYBRID_SIG: &str = "(query text, k bigint [, w_dense float8, w_sparse float8, rrf_k float8, depth bigint] [, scope text])";

impl HybridFunction {
    /// Creates the function with the configured defaults.
    pub fn new(
        dense: Arc<DenseHandle>,
        index: Arc<Bm25Index>,
        limits: LimitsConfig,
        defaults: HybridConfig,
        catalog: Arc<AnalysisCatalog>,
        scoped_stats: bool,
    ) -> Self {
        Self {
            dense,
            index,
            limits,
            defaults,
            catalog,
            scoped_stats,
        }
    }

    fn run(
        &self,
        a: &TableFunctionArgs,
    ) -> std::result::Result<Option<Vec<HybridRow>>, SqlFnError> {
        let exprs = a.exprs();
        if !(2..=7).contains(&exprs.len()) {
            return Err(SqlFnError::WrongArity {
                function: HYBRID,
                expected: HYBRID_SIG,
                got: exprs.len(),
            });
        }
        let mut vals = Vec::new();
        for e in exprs {
            match args::eval(a.session(), HYBRID, e)? {
                Arg::Value(v) => vals.push(v),
                Arg::Placeholder => return Ok(None),
            }
        }
        // A final text argument that is not a number is the scope: (q, k, scope) or the
        // seven-argument form.
        let short_scope = args::signature(HYBRID)
            .is_some_and(|sig| sig.scope_last_at.contains(&vals.len()))
            && vals.last().is_some_and(args::is_scope_text);
        let scope = match vals.len() {
            7 => Some(args::scope(HYBRID, &vals[6])?),
            n if short_scope => Some(args::scope(HYBRID, &vals[n - 1])?),
            _ => None,
        };
        if short_scope || vals.len() == 7 {
            vals.pop();
        }
        let query = args::query_text(HYBRID, &vals[0], &self.limits)?;
        let k = args::count(HYBRID, "k", &vals[1], &self.limits)?;
        let vis = self
            .catalog
            .visibility(a.session(), scope)
            .map_err(|source| SqlFnError::Analyses {
                function: HYBRID,
                source,
            })?;
        let mut p = self.defaults.clone();
        if let Some(v) = vals.get(2) {
            p.w_dense = args::weight(HYBRID, "w_dense", v)?;
        }
        if let Some(v) = vals.get(3) {
            p.w_sparse = args::weight(HYBRID, "w_sparse", v)?;
        }
        if let Some(v) = vals.get(4) {
            p.rrf_k = args::weight(HYBRID, "rrf_k", v)?;
        }
        if let Some(v) = vals.get(5) {
            p.depth = args::count(HYBRID, "depth", v, &self.limits)?;
        }
        Ok(Some(self.search(&query, k, &p, &vis)?.0))
    }

    /// Fused top `k` for `query` among the chunks `vis` allows, and the best dense similarity.
    pub fn search(
        &self,
        query: &str,
        k: usize,
        p: &HybridConfig,
        vis: &mitra_store::analyses::Visibility,
    ) -> std::result::Result<(Vec<HybridRow>, Option<f64>), SqlFnError> {
        let vs = handle(&self.dense, HYBRID)?;
        let hits = vs
            .search_visible_blocking(query, p.depth, vis)
            .map_err(|e| dense_err(HYBRID, e))?;
        let best = hits.first().map(|h| h.score as f64);
        let dense: Vec<(String, String)> =
            hits.into_iter().map(|h| (h.chunk_id, h.doc_id)).collect();
        let terms = self.index.analyzer().terms(query);
        let sparse: Vec<(String, String)> = if terms.is_empty() {
            Vec::new()
        } else {
            super::bm25_fn::search(&self.index, &terms, p.depth, vis, self.scoped_stats)?
                .into_iter()
                .map(|h| (h.chunk_id, h.doc_id))
                .collect()
        };
        Ok((fuse(&dense, &sparse, p, k), best))
    }

    /// The configured fusion defaults.
    pub fn defaults(&self) -> &HybridConfig {
        &self.defaults
    }
}

impl TableFunctionImpl for HybridFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let rows = self.run(&a).map_err(SqlFnError::into_df)?;
        Ok(Arc::new(HybridTable { rows }))
    }
}

/// The result of one `hybrid()` call.
#[derive(Debug)]
pub struct HybridTable {
    rows: Option<Vec<HybridRow>>,
}

impl HybridTable {
    /// The fused rows, once parameters are bound.
    pub fn rows(&self) -> Option<&[HybridRow]> {
        self.rows.as_deref()
    }
}

#[async_trait]
impl TableProvider for HybridTable {
    fn schema(&self) -> SchemaRef {
        HYBRID_SCHEMA.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(rows) = &self.rows else {
            return Err(SqlFnError::unbound(HYBRID));
        };
        let batch = RecordBatch::try_new(
            HYBRID_SCHEMA.clone(),
            vec![
                Arc::new(StringArray::from_iter_values(
                    rows.iter().map(|r| r.chunk_id.as_str()),
                )),
                Arc::new(StringArray::from_iter_values(
                    rows.iter().map(|r| r.doc_id.as_str()),
                )),
                Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.score))),
                Arc::new(Int64Array::from_iter_values(1..=rows.len() as i64)),
                Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.dense_rank))),
                Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.sparse_rank))),
            ],
        )?;
        super::bm25_fn::batch_plan(batch, projection)
    }
}

/// The `embed(text)` scalar: the query encoder's vector as `real[]`.
#[derive(Debug)]
pub struct EmbedFunction {
    signature: Signature,
    dense: Arc<DenseHandle>,
    limits: LimitsConfig,
}

impl PartialEq for EmbedFunction {
    fn eq(&self, o: &Self) -> bool {
        self.signature == o.signature
    }
}
impl Eq for EmbedFunction {}
impl std::hash::Hash for EmbedFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        "embed".hash(state)
    }
}

const EMBED: &str = "embed";

impl EmbedFunction {
    /// The UDF.
    pub fn udf(dense: Arc<DenseHandle>, limits: LimitsConfig) -> ScalarUDF {
        ScalarUDF::new_from_impl(Self {
            signature: Signature::user_defined(Volatility::Stable),
            dense,
            limits,
        })
    }
}

fn item_field() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Float32, true))
}

impl ScalarUDFImpl for EmbedFunction {
    fn name(&self) -> &str {
        EMBED
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        match arg_types {
            [t] if t.is_null()
                || matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) =>
            {
                Ok(vec![DataType::Utf8])
            }
            _ => Err(SqlFnError::WrongArity {
                function: EMBED,
                expected: "(text)",
                got: arg_types.len(),
            }
            .into_df()),
        }
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::List(item_field()))
    }

    fn invoke_with_args(&self, a: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = a.number_rows;
        let texts = a.args[0].clone().into_array(n)?;
        let texts = texts.as_string::<i32>();
        let mut inputs = Vec::new();
        for i in 0..n {
            if texts.is_valid(i) {
                let t = texts.value(i);
                if t.len() > self.limits.max_query_bytes {
                    return Err(SqlFnError::InvalidArgument {
                        function: EMBED,
                        message: format!(
                            "text is {} bytes; the limit is {} (limits.max_query_bytes)",
                            t.len(),
                            self.limits.max_query_bytes
                        ),
                    }
                    .into_df());
                }
                inputs.push(t.to_string());
            }
        }
        let vs = handle(&self.dense, EMBED).map_err(SqlFnError::into_df)?;
        let mut vecs = if inputs.is_empty() {
            Vec::new().into_iter()
        } else {
            vs.embedder()
                .embed_queries_blocking(inputs)
                .map_err(|e| dense_err(EMBED, e).into_df())?
                .into_iter()
        };
        let mut b = arrow::array::ListBuilder::new(arrow::array::Float32Builder::new())
            .with_field(item_field());
        for i in 0..n {
            if texts.is_valid(i) {
                let v = vecs.next().unwrap_or_default();
                b.values().append_slice(&v);
                b.append(true);
            } else {
                b.append(false);
            }
        }
        Ok(ColumnarValue::Array(Arc::new(b.finish())))
    }
}
