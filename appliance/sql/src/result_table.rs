//! The table a table-function call returns: rows computed at planning time, or a stream that
//! computes them when read; "parameters are not bound" while the call waits for them.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::Result;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;

use crate::SqlFnError;

/// What a call produced.
#[derive(Debug)]
pub enum CallRows {
    /// Rows computed at planning time (retrieval).
    Batch(RecordBatch),
    /// Rows computed when the result is read (generation), so that a dropped stream stops it.
    Stream(Arc<dyn PartitionStream>),
}

/// The result of one table-function call (`rows` is `None` while parameters are unbound).
#[derive(Debug)]
pub struct ResultTable {
    function: &'static str,
    schema: SchemaRef,
    rows: Option<CallRows>,
}

impl ResultTable {
    /// The result of `function`, with `schema`.
    pub fn new(function: &'static str, schema: SchemaRef, rows: Option<CallRows>) -> Self {
        Self {
            function,
            schema,
            rows,
        }
    }
}

#[async_trait]
impl TableProvider for ResultTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
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
        match &self.rows {
            None => Err(SqlFnError::unbound(self.function)),
            Some(CallRows::Batch(b)) => crate::bm25_fn::batch_plan(b.clone(), projection),
            Some(CallRows::Stream(part)) => Ok(Arc::new(StreamingTableExec::try_new(
                self.schema.clone(),
                vec![part.clone()],
                projection,
                vec![],
                false,
                None,
            )?)),
        }
    }
}
