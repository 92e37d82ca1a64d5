//! `bm25(query, k [, scope])`: the top-k chunks by BM25 as a table `(chunk_id, doc_id, score, rank)`.

use std::sync::{Arc, LazyLock};

use arrow_array::{Float32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::TableType;
use datafusion::error::Result;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;

use super::args::{self, Arg};
use super::error::SqlFnError;
use mitra_store::analyses::{AnalysisCatalog, Visibility};
use mitra_store::analyzer::Stream;
use mitra_store::config::LimitsConfig;
use mitra_store::index::Bm25Index;

const NAME: &str = "bm25";
const SIGNATURE: &str = "(query text, k bigint [, scope text])";

/// Output schema of every ranked retrieval function.
pub static RANKED_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("chunk_id", DataType::Utf8, false),
        Field::new("doc_id", DataType::Utf8, false),
        Field::new("score", DataType::Float32, false),
        Field::new("rank", DataType::Int64, false),
    ]))
});

/// An analysed query, its k, and what the call may see.
type Request = (Vec<(Stream, String)>, usize, Visibility);

/// The `bm25` table function.
#[derive(Clone)]
pub struct Bm25Function {
    index: Arc<Bm25Index>,
    limits: LimitsConfig,
    catalog: Arc<AnalysisCatalog>,
    scoped_stats: bool,
}

impl std::fmt::Debug for Bm25Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Function").finish_non_exhaustive()
    }
}

impl Bm25Function {
    /// Creates the function over an index; `scoped_stats` scores a scoped call with the
    /// statistics of its scope (`bm25.scope_statistics`).
    pub fn new(
        index: Arc<Bm25Index>,
        limits: LimitsConfig,
        catalog: Arc<AnalysisCatalog>,
        scoped_stats: bool,
    ) -> Self {
        Self {
            index,
            limits,
            catalog,
            scoped_stats,
        }
    }

    fn resolve(
        &self,
        session: &dyn Session,
        exprs: &[Expr],
    ) -> std::result::Result<Option<Request>, SqlFnError> {
        if !(2..=3).contains(&exprs.len()) {
            return Err(SqlFnError::WrongArity {
                function: NAME,
                expected: SIGNATURE,
                got: exprs.len(),
            });
        }
        let mut vals = Vec::new();
        for e in exprs {
            match args::eval(session, NAME, e)? {
                Arg::Value(v) => vals.push(v),
                Arg::Placeholder => return Ok(None),
            }
        }
        let (q, k) = (&vals[0], &vals[1]);
        let scope = vals.get(2).map(|v| args::scope(NAME, v)).transpose()?;
        let query = args::query_text(NAME, q, &self.limits)?;
        let k = args::count(NAME, "k", k, &self.limits)?;
        let vis =
            self.catalog
                .visibility(session, scope)
                .map_err(|source| SqlFnError::Analyses {
                    function: NAME,
                    source,
                })?;
        let terms = self.index.analyzer().terms(&query);
        if terms.is_empty() {
            return Err(SqlFnError::InvalidArgument {
                function: NAME,
                message: "query has no searchable terms (only punctuation or stop words)".into(),
            });
        }
        Ok(Some((terms, k, vis)))
    }
}

impl TableFunctionImpl for Bm25Function {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let resolved = self
            .resolve(args.session(), args.exprs())
            .map_err(SqlFnError::into_df)?;
        // The search runs at planning time, so that joins can push the result ids into the
        // scans of other tables (see `join_pushdown`).
        let rows = match resolved {
            Some((terms, k, vis)) => Some(
                search(&self.index, &terms, k, &vis, self.scoped_stats)
                    .map_err(|e| SqlFnError::Index(e).into_df())?
                    .into_iter()
                    .map(|h| (h.chunk_id, h.doc_id, h.score))
                    .collect(),
            ),
            None => None,
        };
        Ok(Arc::new(RankedTable::new(NAME, rows)))
    }
}

/// BM25 among the chunks `vis` allows (unfiltered when nothing is hidden).
pub fn search(
    index: &Bm25Index,
    terms: &[(Stream, String)],
    k: usize,
    vis: &Visibility,
    scoped_stats: bool,
) -> Result<Vec<mitra_store::index::Hit>, mitra_store::index::IndexError> {
    if vis.is_unrestricted() {
        return index.search_terms(terms, k);
    }
    // Statistics never count what the user may not read (no score reveals it); within that,
    // a scoped call uses its scope's statistics when `scoped_stats`, else the readable ones.
    let readable = |a: Option<&str>| a.is_none_or(|a| vis.readable(a));
    let allows = |a: Option<&str>| vis.allows(a);
    let stats: Option<mitra_store::index::AnalysisPredicate<'_>> = match (&vis.scope, &vis.readable)
    {
        (Some(_), _) if scoped_stats => Some(&allows),
        (_, Some(_)) => Some(&readable),
        (_, None) => None,
    };
    index.search_scoped(terms, k, &allows, stats)
}

/// The result of one ranked retrieval call (`bm25()`, `dense()`).
#[derive(Debug)]
pub struct RankedTable {
    function: &'static str,
    /// `None` while the statement is being prepared with unbound parameters.
    rows: Option<Vec<(String, String, f32)>>,
}

impl RankedTable {
    /// A result of `function`, or `None` rows while parameters are unbound.
    pub fn new(function: &'static str, rows: Option<Vec<(String, String, f32)>>) -> Self {
        Self { function, rows }
    }

    /// The ranked (chunk_id, doc_id, score) rows, once parameters are bound.
    pub fn rows(&self) -> Option<&[(String, String, f32)]> {
        self.rows.as_deref()
    }
}

/// The plan of a table function's result: its one in-memory batch, `projection` applied.
pub fn batch_plan(
    batch: RecordBatch,
    projection: Option<&Vec<usize>>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let schema = batch.schema();
    Ok(MemorySourceConfig::try_new_exec(
        &[vec![batch]],
        schema,
        projection.cloned(),
    )?)
}

/// Builds the ranked result batch.
pub fn ranked_batch(rows: &[(String, String, f32)]) -> Result<RecordBatch> {
    let batch = RecordBatch::try_new(
        RANKED_SCHEMA.clone(),
        vec![
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|r| r.0.as_str()),
            )),
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|r| r.1.as_str()),
            )),
            Arc::new(Float32Array::from_iter_values(rows.iter().map(|r| r.2))),
            Arc::new(Int64Array::from_iter_values(1..=rows.len() as i64)),
        ],
    )?;
    Ok(batch)
}

#[async_trait]
impl TableProvider for RankedTable {
    fn schema(&self) -> SchemaRef {
        RANKED_SCHEMA.clone()
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
            return Err(SqlFnError::unbound(self.function));
        };
        batch_plan(ranked_batch(rows)?, projection)
    }
}
