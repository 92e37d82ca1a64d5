//! `ask(question [, k] [, scope])`: a planned answer. The local model writes a plan (domain
//! tags, a class, at most five sub-queries, checked by `mitra_llm::plan`); each sub-query is
//! retrieved with `hybrid()` inside the session's scope and the user's access; the hits form
//! one pool (each chunk once, with its best fused score and the sub-queries that found it);
//! the pool's best are reranked when a reranker is configured and answered exactly as
//! `answer()` answers.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::SendableRecordBatchStream;
use mitra_llm::plan::{self, Plan, PlanRules};
use mitra_llm::{Event, Outcome};
use mitra_store::analyses::{AnalysisCatalog, Visibility};
use mitra_store::config::LimitsConfig;

use super::answer_fn::{
    answer_candidates, answer_fields, asker, columns, list, llm_err, question_args, text_list,
    QuestionArgs,
};
use super::dense_fn::HybridFunction;
use super::error::SqlFnError;
use crate::answers_log::Asker;
use crate::llm::Llm;
use crate::rerank::{Choice, Rerankers};
use crate::result_table::{CallRows, ResultTable};

const ASK: &str = "ask";
const ASK_SIG: &str = "(question text [, k bigint] [, scope text])";

/// Output schema of `ask()`: `answer()`'s row, then the plan and, per citation, the
/// sub-queries (1-based, comma-separated) whose retrieval found the cited chunk.
pub static ASK_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields: Vec<Field> = answer_fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(Field::new("tags", text_list(), false));
    fields.push(Field::new("class", DataType::Utf8, false));
    fields.push(Field::new("sub_queries", text_list(), false));
    fields.push(Field::new("found_by", text_list(), false));
    Arc::new(Schema::new(fields))
});

/// The `ask` table function.
#[derive(Clone)]
pub struct AskFunction {
    hybrid: HybridFunction,
    rerankers: Arc<Rerankers>,
    llm: Arc<Llm>,
    limits: LimitsConfig,
    catalog: Arc<AnalysisCatalog>,
    data_dir: std::path::PathBuf,
}

impl std::fmt::Debug for AskFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AskFunction")
    }
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
}

impl AskFunction {
    /// Creates the function over `hybrid()`'s retrieval.
    pub fn new(
        hybrid: HybridFunction,
        rerankers: Arc<Rerankers>,
        limits: LimitsConfig,
        catalog: Arc<AnalysisCatalog>,
        data_dir: std::path::PathBuf,
    ) -> Self {
        Self {
            hybrid,
            llm: rerankers.llm_arc(),
            rerankers,
            limits,
            catalog,
            data_dir,
        }
    }

    fn run(&self, a: &TableFunctionArgs) -> std::result::Result<Option<Call>, SqlFnError> {
        let Some(QuestionArgs { question, k, vis }) =
            question_args(a, ASK, ASK_SIG, &self.limits, &self.llm, &self.catalog)?
        else {
            return Ok(None);
        };
        // A sub-query may name only the analyses the question names: every id of the store
        // counts, readable or not.
        let analysis_ids = self
            .catalog
            .snapshot_blocking()
            .map(|s| s.rows.iter().map(|r| r.id.clone()).collect())
            .unwrap_or_default();
        Ok(Some(Call {
            asker: asker(a.session().config(), vis.scope.clone()),
            question,
            k,
            vis,
            rules: PlanRules {
                analysis_ids,
                ..PlanRules::default()
            },
            rerank: self.rerankers.configured_for(ASK)?,
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
        Ok(Arc::new(ResultTable::new(ASK, ASK_SCHEMA.clone(), rows)))
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
    }
}

#[derive(Debug)]
struct AskStream {
    call: Call,
    f: AskFunction,
}

/// The plan of `question`, written by the model on its worker (a dropped future stops it).
pub async fn make_plan(
    llm: &Llm,
    question: &str,
    rules: &PlanRules,
) -> std::result::Result<Plan, SqlFnError> {
    let worker = llm.worker().map_err(|e| llm_err(ASK, e))?;
    let (q, r) = (question.to_string(), rules.clone());
    let mut ticket = worker
        .submit(Box::new(move |engine, ctl| {
            let (_, raw) = plan::generate(engine, &q, &r, &|| ctl.cancelled())?;
            Ok(Outcome {
                raw,
                ..Outcome::default()
            })
        }))
        .map_err(|e| llm_err(ASK, e))?;
    loop {
        match ticket.events.recv().await {
            Some(Event::Text(_)) => {}
            Some(Event::Done(o)) => return Ok(plan::parse(&o.raw, question, rules)),
            Some(Event::Failed(e)) => return Err(llm_err(ASK, e)),
            None => {
                return Err(llm_err(
                    ASK,
                    mitra_llm::LlmError::Generation("the generation worker stopped".into()),
                ))
            }
        }
    }
}

/// A chunk of the pool: its id, best fused score, and the sub-queries (1-based) that found it.
pub type Pooled = (String, f64, Vec<usize>);

/// Merges the hits (chunk id, score) of each sub-query into the pool: each chunk once with its
/// best score and the sub-queries that found it, best first (ties by chunk id), at most `depth`.
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
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.truncate(depth);
    out
}

/// The pool of `plan` (see [`merge`]) and the best dense similarity any sub-query saw (the
/// retrieval gate's input).
fn pool(
    hybrid: &HybridFunction,
    plan: &Plan,
    depth: usize,
    vis: &Visibility,
) -> std::result::Result<(Vec<Pooled>, Option<f64>), SqlFnError> {
    let mut per_query = Vec::new();
    let mut best: Option<f64> = None;
    for q in &plan.sub_queries {
        let (hits, b) = hybrid.search(q, depth, hybrid.defaults(), vis)?;
        best = match (best, b) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        per_query.push(hits.into_iter().map(|h| (h.chunk_id, h.score)).collect());
    }
    Ok((merge(per_query, depth), best))
}

impl PartitionStream for AskStream {
    fn schema(&self) -> &SchemaRef {
        &ASK_SCHEMA
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let call = self.call.clone();
        let f = self.f.clone();
        let fut = async move {
            let df = |e: SqlFnError| e.into_df();
            let plan = make_plan(&f.llm, &call.question, &call.rules)
                .await
                .map_err(df)?;
            let depth = match call.rerank {
                Some(_) => call
                    .k
                    .max(f.rerankers.config().candidates.min(f.limits.max_k)),
                None => call.k,
            };
            let (pooled, best) = pool(&f.hybrid, &plan, depth, &call.vis).map_err(df)?;
            let ids: Vec<String> = pooled.iter().map(|p| p.0.clone()).collect();
            let row = answer_candidates(
                ASK,
                &f.rerankers,
                &f.data_dir,
                &call.question,
                &ids,
                best,
                call.k,
                call.rerank.as_ref(),
                &call.asker,
            )
            .await?;
            let by: HashMap<&str, &Vec<usize>> =
                pooled.iter().map(|p| (p.0.as_str(), &p.2)).collect();
            let found_by: Vec<String> = row
                .citations
                .iter()
                .map(|c| {
                    by.get(c.as_str())
                        .map(|v| {
                            v.iter()
                                .map(|i| i.to_string())
                                .collect::<Vec<_>>()
                                .join(",")
                        })
                        .unwrap_or_default()
                })
                .collect();
            let mut cols: Vec<ArrayRef> = columns(&row);
            cols.push(list(&plan.tags));
            cols.push(Arc::new(StringArray::from(vec![plan.class.as_str()])));
            cols.push(list(&plan.sub_queries));
            cols.push(list(&found_by));
            RecordBatch::try_new(ASK_SCHEMA.clone(), cols).map_err(Into::into)
        };
        Box::pin(RecordBatchStreamAdapter::new(
            ASK_SCHEMA.clone(),
            futures::stream::once(fut),
        ))
    }
}
