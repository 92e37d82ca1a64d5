//! The DataFusion session: Lance tables, retrieval table functions, Postgres catalog emulation.

mod args;
mod bm25_fn;
mod error;
mod join_pushdown;
mod live_table;
mod rrf_fn;

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use args::{TableFnSignature, PARAM_TYPES, SCALAR_PARAM_TYPES};
pub use bm25_fn::Bm25Function;
pub use error::SqlFnError;
pub use live_table::LiveLanceTable;
pub use rrf_fn::RrfFunction;

use crate::config::LimitsConfig;
use crate::index::Bm25Index;
use crate::store::StoreError;

/// Name of the database (catalog) clients connect to.
pub const DATABASE: &str = "mitra";

/// Builds a session over the Lance tables in `data_dir` with the retrieval functions registered.
pub async fn build_session(
    data_dir: PathBuf,
    index: Arc<Bm25Index>,
    limits: LimitsConfig,
) -> Result<SessionContext, StoreError> {
    let config = SessionConfig::new()
        .with_default_catalog_and_schema(DATABASE, "public")
        .with_information_schema(true);
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_limit(limits.max_query_memory_mb.saturating_mul(1024 * 1024), 1.0)
        .build_arc()
        .map_err(|e| StoreError::Schema(format!("runtime: {e}")))?;
    let ctx = SessionContext::new_with_config_rt(config, runtime);
    for name in ["documents", "chunks"] {
        let table = LiveLanceTable::open(data_dir.join(format!("{name}.lance"))).await?;
        ctx.register_table(name, Arc::new(table))
            .map_err(|e| StoreError::Schema(e.to_string()))?;
    }
    ctx.register_udtf("bm25", Arc::new(Bm25Function::new(index, limits)));
    ctx.register_udf(RrfFunction::udf());
    ctx.add_optimizer_rule(Arc::new(join_pushdown::RetrievalJoinPushdown));
    Ok(ctx)
}
