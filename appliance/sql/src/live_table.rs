//! A Lance table provider that follows the latest committed version on every scan and shows a
//! session only the rows of analyses its user may read.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::DFSchema;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::TableType;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_expr::{create_physical_expr, expressions::Column, PhysicalExpr};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::limit::LocalLimitExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::{col as col_expr, lit};
use lance::datafusion::LanceTableProvider;
use lance::dataset::Dataset;
use tokio::sync::Mutex;

use mitra_store::analyses::AnalysisCatalog;
use mitra_store::store::StoreError;

/// How a table's rows belong to analyses, for the read rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowAccess {
    /// `analysis_id` may be NULL (readable by all) or name an analysis (its readers only).
    NullableAnalysis,
    /// Every row is an analysis (`analyses`): its readers only.
    Analysis,
    /// Operational rows (`ingest_runs`: sources, locations, error lines naming documents):
    /// the operator only.
    Operator,
}

/// A Lance dataset registered as a SQL table; new commits (by this or another process) are
/// visible to the next statement.
#[derive(Debug)]
pub struct LiveLanceTable {
    path: PathBuf,
    schema: SchemaRef,
    current: Mutex<Option<Arc<Dataset>>>,
    access: Option<(RowAccess, Arc<AnalysisCatalog>)>,
}

impl LiveLanceTable {
    /// Opens the dataset at `path` (every row readable).
    pub async fn open(path: PathBuf) -> std::result::Result<Self, StoreError> {
        let ds = Dataset::open(&path.to_string_lossy()).await?;
        let schema: arrow_schema::Schema = ds.schema().into();
        Ok(Self {
            path,
            schema: Arc::new(schema),
            current: Mutex::new(Some(Arc::new(ds))),
            access: None,
        })
    }

    /// Opens the dataset at `path` with the read rule `access`; a dataset that does not exist
    /// yet is an empty table of `schema` until it is created.
    pub async fn open_with_access(
        path: PathBuf,
        schema: Option<SchemaRef>,
        access: RowAccess,
        catalog: Arc<AnalysisCatalog>,
    ) -> std::result::Result<Self, StoreError> {
        let ds = if path.join("_versions").exists() || schema.is_none() {
            Some(Arc::new(Dataset::open(&path.to_string_lossy()).await?))
        } else {
            None
        };
        let schema = match (schema, &ds) {
            (Some(s), _) => s,
            (None, Some(ds)) => Arc::new(ds.schema().into()),
            (None, None) => unreachable!("opened above when no schema is given"),
        };
        Ok(Self {
            path,
            schema,
            current: Mutex::new(ds),
            access: Some((access, catalog)),
        })
    }

    /// The dataset's directory.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    async fn latest(&self) -> Result<Option<Arc<Dataset>>> {
        let ext = |e: lance::Error| DataFusionError::External(Box::new(e));
        let mut cur = self.current.lock().await;
        let Some(ds) = cur.as_ref() else {
            if !self.path.join("_versions").exists() {
                return Ok(None);
            }
            let ds = Arc::new(
                Dataset::open(&self.path.to_string_lossy())
                    .await
                    .map_err(ext)?,
            );
            *cur = Some(ds.clone());
            return Ok(Some(ds));
        };
        let latest = ds.latest_version_id().await.map_err(ext)?;
        if latest != ds.version().version {
            let mut next = (**ds).clone();
            next.checkout_latest().await.map_err(ext)?;
            tracing::debug!(path = %self.path.display(), version = latest, "table refreshed");
            *cur = Some(Arc::new(next));
        }
        Ok(cur.clone())
    }

    fn provider(ds: Arc<Dataset>) -> LanceTableProvider {
        LanceTableProvider::new(ds, false, false)
    }
}

#[async_trait]
impl TableProvider for LiveLanceTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        match self.current.try_lock() {
            Ok(ds) if ds.is_some() => {
                Self::provider(ds.clone().expect("checked")).supports_filters_pushdown(filters)
            }
            _ => Ok(vec![
                TableProviderFilterPushDown::Unsupported;
                filters.len()
            ]),
        }
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let projection = projection.unwrap_or(&all);
        let Some(ds) = self.latest().await? else {
            let schema = Arc::new(self.schema.project(projection)?);
            return Ok(MemorySourceConfig::try_new_exec(&[vec![]], schema, None)?);
        };
        let readable = match &self.access {
            Some((rule, catalog)) => catalog
                .readable(state)
                .await
                .map_err(|e| DataFusionError::External(Box::new(e)))?
                .map(|r| (*rule, r)),
            _ => None,
        };
        // Columns added by schema evolution after this table was registered (e.g. `mitra embed`
        // while serving) stay invisible until the next start: scan the registered columns only.
        let Some((rule, readable)) = readable else {
            return Self::provider(ds)
                .scan(state, Some(projection), filters, limit)
                .await;
        };
        // The read rule as a filter over the scan, below everything the query does: the
        // analysis column is scanned too, filtered, and projected away again.
        let mut inner: Vec<usize> = projection.clone();
        if rule != RowAccess::Operator {
            let col = self.schema.index_of("analysis_id")?;
            if !inner.contains(&col) {
                inner.push(col);
            }
        }
        let scan = Self::provider(ds)
            .scan(state, Some(&inner), filters, None)
            .await?;
        let scan_schema = scan.schema();
        let mut ids: Vec<&String> = readable.iter().collect();
        ids.sort();
        let list: Vec<Expr> = ids.into_iter().map(|i| lit(i.as_str())).collect();
        let member = if list.is_empty() {
            lit(false)
        } else {
            col_expr("analysis_id").in_list(list, false)
        };
        let rule_expr = match rule {
            RowAccess::NullableAnalysis => col_expr("analysis_id").is_null().or(member),
            RowAccess::Operator => lit(false),
            _ => member,
        };
        let df_schema = DFSchema::try_from(scan_schema.as_ref().clone())?;
        let predicate = create_physical_expr(&rule_expr, &df_schema, state.execution_props())?;
        let filtered: Arc<dyn ExecutionPlan> = Arc::new(FilterExec::try_new(predicate, scan)?);
        let exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = projection
            .iter()
            .map(|&i| {
                let name = self.schema.field(i).name();
                let idx = scan_schema.index_of(name)?;
                Ok((
                    Arc::new(Column::new(name, idx)) as Arc<dyn PhysicalExpr>,
                    name.clone(),
                ))
            })
            .collect::<Result<_>>()?;
        let projected: Arc<dyn ExecutionPlan> = Arc::new(ProjectionExec::try_new(exprs, filtered)?);
        Ok(match limit {
            Some(n) => Arc::new(LocalLimitExec::new(projected, n)),
            None => projected,
        })
    }
}
