//! A Lance table provider that follows the latest committed version on every scan.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::datasource::TableType;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use lance::datafusion::LanceTableProvider;
use lance::dataset::Dataset;
use tokio::sync::Mutex;

use crate::store::StoreError;

/// A Lance dataset registered as a SQL table; new commits (by this or another process) are
/// visible to the next statement.
#[derive(Debug)]
pub struct LiveLanceTable {
    path: PathBuf,
    schema: SchemaRef,
    current: Mutex<Arc<Dataset>>,
}

impl LiveLanceTable {
    /// Opens the dataset at `path`.
    pub async fn open(path: PathBuf) -> std::result::Result<Self, StoreError> {
        let ds = Dataset::open(&path.to_string_lossy()).await?;
        let schema: arrow_schema::Schema = ds.schema().into();
        Ok(Self {
            path,
            schema: Arc::new(schema),
            current: Mutex::new(Arc::new(ds)),
        })
    }

    async fn latest(&self) -> Result<Arc<Dataset>> {
        let mut cur = self.current.lock().await;
        let latest = cur
            .latest_version_id()
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        if latest != cur.version().version {
            let mut ds = (**cur).clone();
            ds.checkout_latest()
                .await
                .map_err(|e| DataFusionError::External(Box::new(e)))?;
            tracing::debug!(path = %self.path.display(), version = latest, "table refreshed");
            *cur = Arc::new(ds);
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
            Ok(ds) => Self::provider(ds.clone()).supports_filters_pushdown(filters),
            Err(_) => Ok(vec![
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
        let ds = self.latest().await?;
        // Columns added by schema evolution after this table was registered (e.g. `mitra embed`
        // while serving) stay invisible until the next start: scan the registered columns only.
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let projection = Some(projection.unwrap_or(&all));
        Self::provider(ds)
            .scan(state, projection, filters, limit)
            .await
    }
}
