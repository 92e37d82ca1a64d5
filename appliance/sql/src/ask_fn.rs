//! `ask(question [, k] [, scope])`: a planned answer. The local model writes a plan (domain
//! tags, a class, at most five sub-queries, checked by `mitra_llm::plan`); each sub-query is
//! retrieved with `hybrid()` inside the session's scope and the user's access; the hits form
//! one pool (each chunk once, with its best fused score and the sub-queries that found it);
//! the pool's best are reranked when a reranker is configured and answered exactly as
//! `answer()` answers. `ask_plan(question [, k] [, scope] [, plan])` shows the plan and the
//! pool without generating an answer (and checks a plan given as JSON instead of the model's).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use arrow_array::{ArrayRef, Float32Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::SendableRecordBatchStream;
use mitra_llm::plan::{self, Plan, PlanRules};
use mitra_llm::{Event, Outcome};
use mitra_store::analyses::Visibility;
use mitra_store::config::AskConfig;

use super::answer_fn::{
    answer_candidates, answer_fields, asker, columns, list, llm_err, question_args, text_list,
    QuestionArgs, QuestionContext,
};
use super::dense_fn::HybridFunction;
use super::error::SqlFnError;
use crate::answers_log::Asker;
use crate::llm::Llm;
use crate::rerank::Choice;
use crate::result_table::{CallRows, ResultTable};

const ASK: &str = "ask";
const ASK_SIG: &str = "(question text [, k bigint] [, scope text])";
const ASK_PLAN: &str = "ask_plan";
const ASK_PLAN_SIG: &str = "(question text [, k bigint] [, scope text] [, plan text])";

/// Output schema of `ask()`: `answer()`'s row, then the plan and, per citation, the
/// sub-queries (1-based, comma-separated) whose retrieval found the cited chunk.
pub static ASK_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields: Vec<Field> = answer_fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(Field::new("tags", text_list(), false));
    fields.push(Field::new("class", DataType::Utf8, false));
    fields.push(Field::new("sub_queries", text_list(), false));
    fields.push(Field::new("found_by", text_list(), false));
    fields.push(Field::new("plan_notes", text_list(), false));
    fields.push(Field::new("ms_plan", DataType::Float32, false));
    fields.push(Field::new("ms_retrieval", DataType::Float32, false));
    fields.push(Field::new("ms_rerank", DataType::Float32, false));
    Arc::new(Schema::new(fields))
});

/// Output schema of `ask_plan()`: one row with the plan, the pool (chunk ids best first, their
/// fused scores, the sub-queries that found each) and the time of each step.
pub static ASK_PLAN_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("tags", text_list(), false),
        Field::new("class", DataType::Utf8, false),
        Field::new("sub_queries", text_list(), false),
        Field::new("plan_notes", text_list(), false),
        Field::new("pool", text_list(), false),
        Field::new(
            "scores",
            DataType::List(Arc::new(Field::new("item", DataType::Float64, true))),
            false,
        ),
        Field::new("found_by", text_list(), false),
        Field::new("ms_plan", DataType::Float32, false),
        Field::new("ms_retrieval", DataType::Float32, false),
    ]))
});

/// The `ask` (and `ask_plan`) table function.
#[derive(Debug, Clone)]
pub struct AskFunction {
    q: QuestionContext,
    cfg: AskConfig,
    /// `ask_plan()`: the plan and pool only.
    plan_only: bool,
}

/// One `ask()` call, checked (planning, retrieval and generation run when the result is read).
#[derive(Debug, Clone)]
struct Call {
    question: String,
    k: usize,
    vis: Visibility,
    asker: Asker,
    rules: PlanRules,
    rerank: Option<Choice>,
    /// A plan given as JSON (`ask_plan`), checked instead of asking the model.
    given_plan: Option<String>,
}

impl AskFunction {
    /// Creates `ask()`.
    pub fn new(q: QuestionContext, cfg: AskConfig) -> Self {
        Self {
            q,
            cfg,
            plan_only: false,
        }
    }

    /// `ask_plan()`: the same plan and pool, without the answer.
    pub fn plan_only(self) -> Self {
        Self {
            plan_only: true,
            ..self
        }
    }

    fn name(&self) -> &'static str {
        if self.plan_only {
            ASK_PLAN
        } else {
            ASK
        }
    }

    fn run(&self, a: &TableFunctionArgs) -> std::result::Result<Option<Call>, SqlFnError> {
        let (name, sig) = match self.plan_only {
            true => (ASK_PLAN, ASK_PLAN_SIG),
            false => (ASK, ASK_SIG),
        };
        let Some(QuestionArgs {
            question,
            k,
            vis,
            plan,
        }) = question_args(
            a,
            name,
            sig,
            &self.q.limits,
            &self.q.llm,
            &self.q.catalog,
            self.plan_only,
        )?
        else {
            return Ok(None);
        };
        // A sub-query may name only the analyses the question names: every id of the store
        // counts, readable or not.
        let analysis_ids = self
            .q
            .catalog
            .snapshot_blocking()
            .map(|s| s.rows.iter().map(|r| r.id.clone()).collect())
            .unwrap_or_default();
        Ok(Some(Call {
            asker: asker(a.session().config(), vis.scope.clone()),
            question,
            k,
            vis,
            rules: rules(&self.cfg, analysis_ids),
            rerank: match self.plan_only {
                true => None,
                false => self.q.rerankers.configured_for(ASK)?,
            },
            given_plan: plan,
        }))
    }
}

impl TableFunctionImpl for AskFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let call = self.run(&a).map_err(SqlFnError::into_df)?;
        let rows = call.map(|call| {
            CallRows::Stream(Arc::new(AskStream {
                call,
                f: self.clone(),
            }))
        });
        let schema = match self.plan_only {
            true => ASK_PLAN_SCHEMA.clone(),
            false => ASK_SCHEMA.clone(),
        };
        Ok(Arc::new(ResultTable::new(self.name(), schema, rows)))
    }
}

/// The plan rules of the configuration (`[ask]`) for a store with these analyses.
fn rules(cfg: &AskConfig, analysis_ids: Vec<String>) -> PlanRules {
    let mut r = PlanRules {
        analysis_ids,
        max_sub_queries: cfg.max_sub_queries.clamp(1, plan::MAX_SUB_QUERIES),
        expand_precise: cfg.expand_precise,
        ..PlanRules::default()
    };
    if !cfg.vocabulary.is_empty() {
        r.vocabulary = cfg.vocabulary.clone();
    }
    r
}

#[derive(Debug)]
struct AskStream {
    call: Call,
    f: AskFunction,
}

/// The text a one-off task writes on the model's worker (a dropped future stops it): the
/// planning and difference steps.
pub(crate) async fn model_text(
    llm: &Llm,
    function: &'static str,
    task: impl FnOnce(
            &mut mitra_llm::engine::Engine,
            &mitra_llm::worker::Control<'_>,
        ) -> std::result::Result<String, mitra_llm::LlmError>
        + Send
        + 'static,
) -> std::result::Result<String, SqlFnError> {
    let worker = llm.worker().map_err(|e| llm_err(function, e))?;
    let mut ticket = worker
        .submit(Box::new(move |engine, ctl| {
            Ok(Outcome {
                raw: task(engine, ctl)?,
                ..Outcome::default()
            })
        }))
        .map_err(|e| llm_err(function, e))?;
    loop {
        match ticket.events.recv().await {
            Some(Event::Text(_)) => {}
            Some(Event::Done(o)) => return Ok(o.raw),
            Some(Event::Failed(e)) => return Err(llm_err(function, e)),
            None => {
                return Err(llm_err(
                    function,
                    mitra_llm::LlmError::Generation("the generation worker stopped".into()),
                ))
            }
        }
    }
}

/// The plan of `question`, written by the model on its worker (a dropped future stops it).
pub async fn make_plan(
    llm: &Llm,
    question: &str,
    rules: &PlanRules,
) -> std::result::Result<Plan, SqlFnError> {
    let (q, r) = (question.to_string(), rules.clone());
    let raw = model_text(llm, ASK, move |engine, ctl| {
        plan::generate(engine, &q, &r, &|| ctl.cancelled()).map(|(_, raw)| raw)
    })
    .await?;
    Ok(plan::parse(&raw, question, rules))
}

/// The plan within `budget_s` seconds (0: no budget); past it, the question alone (the
/// model's request is dropped, which stops it).
pub async fn plan_within(
    llm: &Llm,
    question: &str,
    rules: &PlanRules,
    budget_s: f64,
) -> std::result::Result<Plan, SqlFnError> {
    if budget_s <= 0.0 {
        return make_plan(llm, question, rules).await;
    }
    let budget = std::time::Duration::from_secs_f64(budget_s);
    match tokio::time::timeout(budget, make_plan(llm, question, rules)).await {
        Ok(plan) => plan,
        Err(_) => Ok(plan::fallback(
            question,
            format!("planning took longer than {budget_s} s (ask.plan_budget_s); the question alone was searched"),
        )),
    }
}

/// A chunk of the pool: its id, best fused score, and the sub-queries (1-based) that found it.
pub type Pooled = (String, f64, Vec<usize>);

/// Merges the hits (chunk id, score) of each sub-query into the pool: each chunk once with its
/// best score and the sub-queries that found it, best first, at most `depth`. Equal scores
/// (the same rank in different sub-queries) go to the chunk more sub-queries found, then to
/// the earlier sub-query (the question first), then by chunk id.
pub fn merge(per_query: Vec<Vec<(String, f64)>>, depth: usize) -> Vec<Pooled> {
    let mut found: HashMap<String, (f64, Vec<usize>)> = HashMap::new();
    for (i, hits) in per_query.into_iter().enumerate() {
        for (id, score) in hits {
            let e = found.entry(id).or_insert((score, Vec::new()));
            e.0 = e.0.max(score);
            if !e.1.contains(&(i + 1)) {
                e.1.push(i + 1);
            }
        }
    }
    let mut out: Vec<Pooled> = found.into_iter().map(|(id, (s, by))| (id, s, by)).collect();
    out.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| b.2.len().cmp(&a.2.len()))
            .then_with(|| a.2.first().cmp(&b.2.first()))
            .then_with(|| a.0.cmp(&b.0))
    });
    out.truncate(depth);
    out
}

/// A pool, the best dense similarity of its searches, and a note of skipped sub-queries.
type PoolOutcome = (Vec<Pooled>, Option<f64>, Option<String>);

/// The pool of `plan` (see [`merge`]), the best dense similarity any sub-query saw (the
/// retrieval gate's input), and a note when the budget (seconds, 0 = none) left sub-queries
/// unsearched. Every sub-query is searched with the call's visibility.
fn pool(
    hybrid: &HybridFunction,
    plan: &Plan,
    depth: usize,
    vis: &Visibility,
    budget_s: f64,
) -> std::result::Result<PoolOutcome, SqlFnError> {
    let started = std::time::Instant::now();
    let mut per_query = Vec::new();
    let mut best: Option<f64> = None;
    let mut skipped = None;
    for (i, q) in plan.sub_queries.iter().enumerate() {
        if i > 0 && budget_s > 0.0 && started.elapsed().as_secs_f64() >= budget_s {
            skipped = Some(format!(
                "sub-queries {}-{} were not searched: the retrieval budget of {budget_s} s \
                 (ask.retrieval_budget_s) was spent",
                i + 1,
                plan.sub_queries.len()
            ));
            break;
        }
        let (hits, b) = hybrid.search(q, depth, hybrid.defaults(), vis)?;
        best = match (best, b) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        per_query.push(hits.into_iter().map(|h| (h.chunk_id, h.score)).collect());
    }
    Ok((merge(per_query, depth), best, skipped))
}

/// "1,3": the sub-queries (1-based) that found a chunk.
fn finders(by: &[usize]) -> String {
    by.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn ms_since(t: std::time::Instant) -> f32 {
    t.elapsed().as_secs_f32() * 1000.0
}

impl AskStream {
    /// The plan (given or the model's), its pool, and the milliseconds of each.
    async fn plan_and_pool(
        &self,
        depth: usize,
    ) -> std::result::Result<(Plan, Vec<Pooled>, Option<f64>, f32, f32), SqlFnError> {
        let (call, f) = (&self.call, &self.f);
        let t = std::time::Instant::now();
        let mut plan = match &call.given_plan {
            Some(json) => plan::parse(json, &call.question, &call.rules),
            None => plan_within(&f.q.llm, &call.question, &call.rules, f.cfg.plan_budget_s).await?,
        };
        let ms_plan = ms_since(t);
        let t = std::time::Instant::now();
        let (pooled, best, skipped) = pool(
            &f.q.hybrid,
            &plan,
            depth,
            &call.vis,
            f.cfg.retrieval_budget_s,
        )?;
        plan.notes.extend(skipped);
        Ok((plan, pooled, best, ms_plan, ms_since(t)))
    }

    /// `ask_plan()`'s row.
    async fn plan_row(&self) -> Result<RecordBatch> {
        let (plan, pooled, _, ms_plan, ms_retrieval) = self
            .plan_and_pool(self.call.k)
            .await
            .map_err(SqlFnError::into_df)?;
        let ids: Vec<String> = pooled.iter().map(|p| p.0.clone()).collect();
        let by: Vec<String> = pooled.iter().map(|p| finders(&p.2)).collect();
        let scores =
            arrow_array::ListArray::from_iter_primitive::<arrow_array::types::Float64Type, _, _>([
                Some(pooled.iter().map(|p| Some(p.1)).collect::<Vec<_>>()),
            ]);
        let cols: Vec<ArrayRef> = vec![
            list(&plan.tags),
            Arc::new(StringArray::from(vec![plan.class.as_str()])),
            list(&plan.sub_queries),
            list(&plan.notes),
            list(&ids),
            Arc::new(scores),
            list(&by),
            Arc::new(Float32Array::from(vec![ms_plan])),
            Arc::new(Float32Array::from(vec![ms_retrieval])),
        ];
        RecordBatch::try_new(ASK_PLAN_SCHEMA.clone(), cols).map_err(Into::into)
    }

    /// `ask()`'s row.
    async fn answer_row(&self) -> Result<RecordBatch> {
        let (call, f) = (&self.call, &self.f);
        let depth = f.q.depth(call.k, call.rerank.as_ref());
        let (plan, pooled, best, ms_plan, ms_retrieval) = self
            .plan_and_pool(depth)
            .await
            .map_err(SqlFnError::into_df)?;
        let ids: Vec<String> = pooled.iter().map(|p| p.0.clone()).collect();
        let (row, ms_rerank) = answer_candidates(
            ASK,
            &f.q.rerankers,
            &f.q.data_dir,
            &call.question,
            &ids,
            best,
            call.k,
            call.rerank.as_ref(),
            &call.asker,
        )
        .await?;
        let by: HashMap<&str, &Vec<usize>> = pooled.iter().map(|p| (p.0.as_str(), &p.2)).collect();
        let found_by: Vec<String> = row
            .citations
            .iter()
            .map(|c| by.get(c.as_str()).map(|v| finders(v)).unwrap_or_default())
            .collect();
        let mut cols: Vec<ArrayRef> = columns(&row);
        cols.push(list(&plan.tags));
        cols.push(Arc::new(StringArray::from(vec![plan.class.as_str()])));
        cols.push(list(&plan.sub_queries));
        cols.push(list(&found_by));
        cols.push(list(&plan.notes));
        cols.push(Arc::new(Float32Array::from(vec![ms_plan])));
        cols.push(Arc::new(Float32Array::from(vec![ms_retrieval])));
        cols.push(Arc::new(Float32Array::from(vec![ms_rerank])));
        RecordBatch::try_new(ASK_SCHEMA.clone(), cols).map_err(Into::into)
    }
}

impl PartitionStream for AskStream {
    fn schema(&self) -> &SchemaRef {
        match self.f.plan_only {
            true => &ASK_PLAN_SCHEMA,
            false => &ASK_SCHEMA,
        }
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let me = AskStream {
            call: self.call.clone(),
            f: self.f.clone(),
        };
        let schema = self.schema().clone();
        let fut = async move {
            match me.f.plan_only {
                true => me.plan_row().await,
                false => me.answer_row().await,
            }
        };
        Box::pin(RecordBatchStreamAdapter::new(
            schema,
            futures::stream::once(fut),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_keeps_each_chunk_once_with_its_best_score_and_finders() {
        let hits = |v: &[(&str, f64)]| v.iter().map(|(i, s)| (i.to_string(), *s)).collect();
        let pool = merge(
            vec![
                hits(&[("a", 0.5), ("b", 0.4)]),
                hits(&[("b", 0.9), ("c", 0.1)]),
                hits(&[("a", 0.2), ("d", 0.4)]),
            ],
            3,
        );
        assert_eq!(
            pool,
            vec![
                ("b".to_string(), 0.9, vec![1, 2]),
                ("a".to_string(), 0.5, vec![1, 3]),
                ("d".to_string(), 0.4, vec![3]),
            ]
        );
        assert!(merge(vec![], 5).is_empty());
        // Equal scores: found by more sub-queries first, then by the earlier sub-query.
        let pool = merge(
            vec![
                hits(&[("q1", 0.5)]),
                hits(&[("s2", 0.5), ("both", 0.4)]),
                hits(&[("both", 0.5)]),
            ],
            3,
        );
        let order: Vec<&str> = pool.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(order, vec!["both", "q1", "s2"]);
    }

    #[test]
    fn the_configuration_sets_the_plan_rules() {
        let mut cfg = AskConfig::default();
        let r = rules(&cfg, vec!["a1".into()]);
        assert_eq!(r.vocabulary.len(), plan::DEFAULT_TAGS.len());
        assert_eq!((r.max_sub_queries, r.expand_precise), (5, false));
        assert_eq!(r.analysis_ids, vec!["a1".to_string()]);
        cfg.vocabulary = vec!["optics".into(), "rf".into()];
        cfg.max_sub_queries = 2;
        cfg.expand_precise = true;
        let r = rules(&cfg, vec![]);
        assert_eq!(r.vocabulary, vec!["optics".to_string(), "rf".to_string()]);
        assert_eq!((r.max_sub_queries, r.expand_precise), (2, true));
    }
}
