//! `compare(question, analysis_a, analysis_b [, k])`: the question answered inside each of two
//! analyses separately (each retrieval scoped to one analysis, each answer from its own
//! evidence, never both in one prompt), one row per analysis, and a `difference`: one
//! sentence written from the two checked answers alone (NULL when either abstains or the
//! sentence states a number neither answer gives).

use std::sync::{Arc, LazyLock};

use arrow_array::{ArrayRef, Float32Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::SendableRecordBatchStream;
use mitra_llm::compare::{self, Side};

use super::answer_fn::{
    answer_candidates, answer_fields, asker, columns, llm_err, rename_query, QuestionContext,
};
use super::args;
use super::ask_fn::model_text;
use super::error::SqlFnError;
use crate::answers_log::Asker;
use crate::llm::AnswerRow;
use crate::rerank::Choice;
use crate::result_table::{CallRows, ResultTable};

const COMPARE: &str = "compare";
const COMPARE_SIG: &str = "(question text, analysis_a text, analysis_b text [, k bigint])";

/// Output schema of `compare()`: the analysis, `answer()`'s row for it, and the difference
/// (the same on both rows) with the milliseconds it took.
pub static COMPARE_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![Field::new("analysis_id", DataType::Utf8, false)];
    fields.extend(answer_fields().iter().map(|f| f.as_ref().clone()));
    fields.push(Field::new("difference", DataType::Utf8, true));
    fields.push(Field::new("ms_difference", DataType::Float32, false));
    Arc::new(Schema::new(fields))
});

/// The `compare` table function.
#[derive(Debug, Clone)]
pub struct CompareFunction {
    q: QuestionContext,
}

/// One analysis of a call: its id, its candidates (best first), the best dense similarity,
/// and the record of the reader with this analysis as the scope.
#[derive(Debug, Clone)]
struct Part {
    analysis: String,
    ids: Vec<String>,
    best: Option<f64>,
    asker: Asker,
}

/// One `compare()` call with both retrievals done (generation runs when the result is read).
#[derive(Debug, Clone)]
struct Call {
    question: String,
    parts: [Part; 2],
    k: usize,
    rerank: Option<Choice>,
}

impl CompareFunction {
    /// Creates the function.
    pub fn new(q: QuestionContext) -> Self {
        Self { q }
    }

    fn run(&self, a: &TableFunctionArgs) -> std::result::Result<Option<Call>, SqlFnError> {
        let Some(vals) = args::values(a, COMPARE, COMPARE_SIG, 3..=4)? else {
            return Ok(None);
        };
        let question = args::query_text(COMPARE, &vals[0], &self.q.limits)
            .map_err(|e| rename_query(e, "question"))?;
        let id = |i: usize, name: &str| -> std::result::Result<String, SqlFnError> {
            let t = args::text(COMPARE, name, &vals[i])?;
            let t = t.trim();
            if t.is_empty() {
                return Err(SqlFnError::InvalidArgument {
                    function: COMPARE,
                    message: format!("{name} must name an analysis"),
                });
            }
            Ok(t.to_string())
        };
        let (a_id, b_id) = (id(1, "analysis_a")?, id(2, "analysis_b")?);
        if a_id == b_id {
            return Err(SqlFnError::InvalidArgument {
                function: COMPARE,
                message: format!(
                    "analysis_a and analysis_b are both \"{a_id}\"; name two analyses"
                ),
            });
        }
        let k = match vals.get(3) {
            Some(v) => args::count(COMPARE, "k", v, &self.q.limits)?,
            None => self.q.llm.config().k,
        };
        if let Some(why) = self.q.llm.unavailable() {
            return Err(llm_err(
                COMPARE,
                mitra_llm::LlmError::NotConfigured(why.to_string()),
            ));
        }
        let rerank = self.q.rerankers.configured_for(COMPARE)?;
        let depth = self.q.depth(k, rerank.as_ref());
        // Each analysis is its own scope, whatever the session's; the user's access decides
        // (an analysis the user may not read is the same error as a missing one).
        let part = |analysis: String| -> std::result::Result<Part, SqlFnError> {
            let vis = self
                .q
                .catalog
                .visibility(a.session(), Some(Some(vec![analysis.clone()])))
                .map_err(|source| SqlFnError::Analyses {
                    function: COMPARE,
                    source,
                })?;
            let (hits, best) =
                self.q
                    .hybrid
                    .search(&question, depth, self.q.hybrid.defaults(), &vis)?;
            Ok(Part {
                asker: asker(a.session().config(), Some(vec![analysis.clone()])),
                analysis,
                ids: hits.into_iter().map(|h| h.chunk_id).collect(),
                best,
            })
        };
        let parts = [part(a_id)?, part(b_id)?];
        Ok(Some(Call {
            question,
            parts,
            k,
            rerank,
        }))
    }
}

impl TableFunctionImpl for CompareFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let call = self.run(&a).map_err(SqlFnError::into_df)?;
        let rows = call.map(|call| {
            CallRows::Stream(Arc::new(CompareStream {
                call,
                f: self.clone(),
            }))
        });
        Ok(Arc::new(ResultTable::new(
            COMPARE,
            COMPARE_SCHEMA.clone(),
            rows,
        )))
    }
}

fn side<'a>(analysis: &'a str, answer: &'a str) -> Side<'a> {
    Side { analysis, answer }
}

#[derive(Debug)]
struct CompareStream {
    call: Call,
    f: CompareFunction,
}

impl CompareStream {
    /// The difference of two answers (`None` when either abstained or the sentence fails its
    /// check) and the milliseconds it took.
    async fn difference(&self, rows: &[AnswerRow; 2]) -> Result<(Option<String>, f32)> {
        if rows.iter().any(|r| r.abstained) {
            return Ok((None, 0.0));
        }
        let t = std::time::Instant::now();
        let q = self.call.question.clone();
        let (a, b) = (&self.call.parts[0].analysis, &self.call.parts[1].analysis);
        let (sa, sb) = (
            (a.clone(), rows[0].answer.clone()),
            (b.clone(), rows[1].answer.clone()),
        );
        let raw = model_text(&self.f.q.llm, COMPARE, move |engine, ctl| {
            compare::difference(engine, &q, side(&sa.0, &sa.1), side(&sb.0, &sb.1), &|| {
                ctl.cancelled()
            })
            .map(|(_, raw)| raw)
        })
        .await
        .map_err(SqlFnError::into_df)?;
        let checked = compare::check(&raw, side(a, &rows[0].answer), side(b, &rows[1].answer));
        Ok((checked, t.elapsed().as_secs_f32() * 1000.0))
    }

    async fn rows(&self) -> Result<RecordBatch> {
        let (call, f) = (&self.call, &self.f);
        let mut answers = Vec::with_capacity(2);
        for p in &call.parts {
            let (row, _) = answer_candidates(
                COMPARE,
                &f.q.rerankers,
                &f.q.data_dir,
                &call.question,
                &p.ids,
                p.best,
                call.k,
                call.rerank.as_ref(),
                &p.asker,
            )
            .await?;
            answers.push(row);
        }
        let rows: [AnswerRow; 2] = answers
            .try_into()
            .map_err(|_| datafusion::error::DataFusionError::Internal("two answers".into()))?;
        let (difference, ms) = self.difference(&rows).await?;
        let mut batches = Vec::with_capacity(2);
        for (p, row) in call.parts.iter().zip(&rows) {
            let mut cols: Vec<ArrayRef> =
                vec![Arc::new(StringArray::from(vec![p.analysis.as_str()]))];
            cols.extend(columns(row));
            cols.push(Arc::new(StringArray::from(vec![difference.clone()])));
            cols.push(Arc::new(Float32Array::from(vec![ms])));
            batches.push(RecordBatch::try_new(COMPARE_SCHEMA.clone(), cols)?);
        }
        arrow::compute::concat_batches(&COMPARE_SCHEMA, &batches).map_err(Into::into)
    }
}

impl PartitionStream for CompareStream {
    fn schema(&self) -> &SchemaRef {
        &COMPARE_SCHEMA
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let me = CompareStream {
            call: self.call.clone(),
            f: self.f.clone(),
        };
        Box::pin(RecordBatchStreamAdapter::new(
            COMPARE_SCHEMA.clone(),
            futures::stream::once(async move { me.rows().await }),
        ))
    }
}
