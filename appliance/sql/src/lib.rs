//! Mitra's SQL layer: the DataFusion session over the live Lance tables, the retrieval and answer functions, the process's language model and the answers log.

mod abstracts_fn;
pub mod answer_fn;
pub mod answers_log;
mod args;
mod ask_fn;
mod bm25_fn;
mod compare_fn;
mod dense_fn;
mod error;
pub mod interrupt;
mod join_pushdown;
mod literals;
mod live_table;
pub mod llm;
pub mod memory;
pub mod registry;
mod replay_fn;
pub mod rerank;
mod rerank_fn;
mod result_table;
mod rrf_fn;

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use abstracts_fn::{AbstractsFunction, ABSTRACTS_SCHEMA};
pub use answer_fn::{
    AnswerFromFunction, AnswerFunction, LlmStatusFunction, ANSWER_SCHEMA, LLM_STATUS_SCHEMA,
};
pub use args::{
    signature as table_fn_signature, TableFnSignature, PARAM_TYPES, SCALAR_PARAM_TYPES,
};
pub use ask_fn::{ASK_PLAN_SCHEMA, ASK_SCHEMA};
pub use bm25_fn::{Bm25Function, RANKED_SCHEMA};
pub use compare_fn::COMPARE_SCHEMA;
pub use dense_fn::{
    fuse, DenseFunction, DenseHandle, EmbedFunction, HybridFunction, HybridRow, HYBRID_SCHEMA,
};
pub use error::SqlFnError;
pub use live_table::{LiveLanceTable, RowAccess};
pub use replay_fn::REPLAY_SCHEMA;
pub use rerank::{Choice, Rerankers};
pub use rerank_fn::RerankFunction;
pub use rrf_fn::RrfFunction;

use mitra_store::analyses::AnalysisCatalog;
use mitra_store::config::{Config, ScopeStatistics};
use mitra_store::dense::{Embedder, VectorSearch};
use mitra_store::index::Bm25Index;
use mitra_store::store::StoreError;

/// `ctx` with untyped literals typed as PostgreSQL types them ([`literals::UnknownLiterals`]:
/// comparisons while planning, `IN` lists before DataFusion's type coercion).
pub fn with_unknown_literals(ctx: SessionContext) -> SessionContext {
    let state = ctx.state();
    let mut rules: Vec<Arc<dyn datafusion::optimizer::AnalyzerRule + Send + Sync>> =
        vec![Arc::new(literals::UnknownLiterals)];
    rules.extend(state.analyzer().rules.iter().cloned());
    let mut ctx = SessionContext::new_with_state(
        datafusion::execution::session_state::SessionStateBuilder::new_from_existing(state)
            .with_analyzer_rules(rules)
            .build(),
    );
    let planner = Arc::new(literals::UnknownLiterals);
    // Registering an expression planner cannot fail (the registry only appends).
    let _ = datafusion::execution::FunctionRegistry::register_expr_planner(&mut ctx, planner);
    ctx
}

/// Name of the database (catalog) clients connect to.
pub const DATABASE: &str = "mitra";

/// Dense search for a session: the store's encoder, loaded once per process. When it cannot be
/// loaded, the reason is kept and reported by `dense()`, `hybrid()` and `embed()` (SQLSTATE 55000).
pub async fn dense_handle(cfg: &Config) -> DenseHandle {
    let chunks = cfg.data_dir.join("chunks.lance");
    let has_vectors = match lance::dataset::Dataset::open(&chunks.to_string_lossy()).await {
        Ok(ds) => mitra_store::store::embedding_meta_of(&ds).is_some(),
        Err(_) => false,
    };
    if !has_vectors && !cfg.embedding.enabled {
        return Err("the store has no vectors and embedding.enabled is false".into());
    }
    match Embedder::shared(&cfg.embedding) {
        Ok(e) => Ok(VectorSearch::new(e, &cfg.data_dir, cfg.dense.clone())),
        Err(e) => {
            tracing::warn!(error = %e, "dense retrieval unavailable");
            Err(e.to_string())
        }
    }
}

/// Builds a session over the Lance tables in `cfg.data_dir` with the retrieval functions registered.
pub async fn build_session(
    cfg: &Config,
    index: Arc<Bm25Index>,
) -> Result<SessionContext, StoreError> {
    let dense = Arc::new(dense_handle(cfg).await);
    build_session_with(cfg, index, dense).await
}

/// As [`build_session`], with dense search already set up (shared by many sessions).
pub async fn build_session_with(
    cfg: &Config,
    index: Arc<Bm25Index>,
    dense: Arc<DenseHandle>,
) -> Result<SessionContext, StoreError> {
    let data_dir: PathBuf = cfg.data_dir.clone();
    let limits = cfg.limits.clone();
    let config = SessionConfig::new()
        .with_default_catalog_and_schema(DATABASE, "public")
        .with_information_schema(true);
    // One pool for the server; this session's limit on it (connections take siblings).
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(memory::SessionPool::for_server(&limits)))
        .build_arc()
        .map_err(|e| StoreError::Schema(format!("runtime: {e}")))?;
    let (opts, params) = mitra_store::index_options(cfg);
    let catalog = Arc::new(
        AnalysisCatalog::new(&data_dir, opts, params)
            .map_err(|e| StoreError::Schema(format!("analyses: {e}")))?,
    );
    // The session commands (`SET mitra.analysis`) check scopes against the same catalog.
    let config = config
        .with_extension(catalog.clone())
        .with_extension(Arc::new(memory::ResultCaps::new(&limits)));
    let ctx = with_unknown_literals(SessionContext::new_with_config_rt(config, runtime));
    for (name, schema) in [
        ("documents", None),
        ("chunks", None),
        (
            "analyses",
            Some(mitra_store::schema::ANALYSES.arrow_schema()),
        ),
    ] {
        let rule = if name == "analyses" {
            RowAccess::Analysis
        } else {
            RowAccess::NullableAnalysis
        };
        let table = LiveLanceTable::open_with_access(
            data_dir.join(format!("{name}.lance")),
            schema,
            rule,
            catalog.clone(),
        )
        .await?;
        ctx.register_table(name, Arc::new(table))
            .map_err(|e| StoreError::Schema(e.to_string()))?;
    }
    let scoped_stats = cfg.bm25.scope_statistics == ScopeStatistics::Scope;
    // Plugin ingest runs (the operator's: sources, locations, error lines); a store that never
    // had one shows the table empty until its first run.
    let runs = data_dir.join("ingest_runs.lance");
    let runs_schema =
        (!runs.join("_versions").exists()).then(|| mitra_store::schema::INGEST_RUNS.arrow_schema());
    let runs_table = Arc::new(
        LiveLanceTable::open_with_access(runs, runs_schema, RowAccess::Operator, catalog.clone())
            .await?,
    );
    ctx.register_table("ingest_runs", runs_table)
        .map_err(|e| StoreError::Schema(e.to_string()))?;
    ctx.register_udtf(
        "bm25",
        Arc::new(Bm25Function::new(
            index.clone(),
            limits.clone(),
            catalog.clone(),
            scoped_stats,
        )),
    );
    ctx.register_udtf(
        "dense",
        Arc::new(DenseFunction::new(
            dense.clone(),
            limits.clone(),
            catalog.clone(),
        )),
    );
    let hybrid = HybridFunction::new(
        dense.clone(),
        index.clone(),
        limits.clone(),
        cfg.hybrid.clone(),
        catalog.clone(),
        scoped_stats,
    );
    ctx.register_udtf("hybrid", Arc::new(hybrid.clone()));
    let llm = Arc::new(crate::llm::Llm::new(cfg));
    let rerankers = Arc::new(Rerankers::new(cfg, llm.clone()));
    let question = answer_fn::QuestionContext::new(
        hybrid,
        rerankers.clone(),
        limits.clone(),
        catalog.clone(),
        data_dir.clone(),
    );
    let ask = ask_fn::AskFunction::new(question.clone(), cfg.ask.clone());
    ctx.register_udtf("ask_plan", Arc::new(ask.clone().plan_only()));
    ctx.register_udtf("ask", Arc::new(ask));
    ctx.register_udtf(
        "compare",
        Arc::new(compare_fn::CompareFunction::new(question.clone())),
    );
    ctx.register_udtf("answer", Arc::new(AnswerFunction::new(question)));
    ctx.register_udaf(AnswerFromFunction::udaf(
        llm.clone(),
        limits.clone(),
        data_dir.clone(),
    ));
    ctx.register_udtf(
        "replay",
        Arc::new(replay_fn::ReplayFunction::new(
            llm.clone(),
            data_dir.clone(),
        )),
    );
    ctx.register_udtf("llm_status", Arc::new(LlmStatusFunction::new(llm)));
    // The operator's audit log of answers (empty until the first recorded answer).
    let answers = data_dir.join(crate::answers_log::TABLE_DIR);
    if let Err(e) = crate::answers_log::evolve(&data_dir).await {
        tracing::warn!(error = %e, "the answers table could not be brought up to date");
    }
    let answers_schema =
        (!answers.join("_versions").exists()).then(|| mitra_store::schema::ANSWERS.arrow_schema());
    let answers_table = Arc::new(
        LiveLanceTable::open_with_access(
            answers,
            answers_schema,
            RowAccess::Operator,
            catalog.clone(),
        )
        .await?,
    );
    ctx.register_table("answers", answers_table)
        .map_err(|e| StoreError::Schema(e.to_string()))?;
    ctx.register_udtf(
        "abstracts",
        Arc::new(AbstractsFunction::new(
            catalog,
            dense.clone(),
            index,
            limits.clone(),
            cfg.abstracts.clone(),
            rerankers.clone(),
        )),
    );
    ctx.register_udf(RrfFunction::udf());
    ctx.register_udf(RerankFunction::udf(rerankers, limits.clone()));
    ctx.register_udf(EmbedFunction::udf(dense, limits));
    ctx.add_optimizer_rule(Arc::new(join_pushdown::RetrievalJoinPushdown));
    Ok(ctx)
}
