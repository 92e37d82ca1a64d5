//! `answer(question [, k] [, scope])`, the `answer_from(question, chunk_id, text ORDER BY …)`
//! aggregate and `llm_status()`: grounded answers from the local language model.

use crate::result_table::{CallRows, ResultTable};
use std::sync::{Arc, LazyLock};

use arrow::array::{Array, AsArray};
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Int64Array, RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::SendableRecordBatchStream;
use datafusion::scalar::ScalarValue;
use futures::TryStreamExt;
use mitra_llm::Passage;

use super::args;
use super::dense_fn::{HybridFunction, HybridRow};
use super::error::SqlFnError;
use crate::answers_log::{self, Asker};
use crate::interrupt::Interrupt;
use crate::llm::{self, AnswerRow, Evidence, Llm};
use crate::rerank::{Choice, Rerankers};
use mitra_store::analyses::{AnalysisCatalog, Principal, SessionAccess};
use mitra_store::config::LimitsConfig;
use mitra_store::store::TableVersions;

const ANSWER: &str = "answer";
const ANSWER_FROM: &str = "answer_from";
const ANSWER_SIG: &str = "(question text [, k bigint] [, scope text])";

pub(crate) fn text_list() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

pub(crate) fn answer_fields() -> Fields {
    Fields::from(vec![
        Field::new("answer", DataType::Utf8, false),
        Field::new("abstained", DataType::Boolean, false),
        Field::new("grounded", DataType::Boolean, false),
        Field::new("citations", text_list(), false),
        Field::new("invalid_citations", DataType::Int64, false),
        Field::new("evidence", text_list(), false),
        Field::new("model", DataType::Utf8, false),
        Field::new("chunks_version", DataType::Int64, true),
        Field::new("prompt_tokens", DataType::Int64, false),
        Field::new("completion_tokens", DataType::Int64, false),
        Field::new("ms_prefill", DataType::Float32, false),
        Field::new("ms_decode", DataType::Float32, false),
        Field::new("relevant", text_list(), false),
        Field::new("unsupported", DataType::Int64, false),
        Field::new("reranker", DataType::Utf8, true),
        Field::new("ms_relevance", DataType::Float32, false),
        Field::new("ms_support", DataType::Float32, false),
    ])
}

/// Output schema of `answer()` (and the fields of `answer_from()`'s struct).
pub static ANSWER_SCHEMA: LazyLock<SchemaRef> =
    LazyLock::new(|| Arc::new(Schema::new(answer_fields())));

pub(crate) fn list(v: &[String]) -> ArrayRef {
    answers_log::text_list(Some(v))
}

pub(crate) fn columns(r: &AnswerRow) -> Vec<ArrayRef> {
    vec![
        Arc::new(StringArray::from(vec![r.answer.as_str()])),
        Arc::new(BooleanArray::from(vec![r.abstained])),
        Arc::new(BooleanArray::from(vec![r.grounded])),
        list(&r.citations),
        Arc::new(Int64Array::from(vec![r.invalid_citations as i64])),
        list(&r.evidence),
        Arc::new(StringArray::from(vec![r.model.as_str()])),
        Arc::new(Int64Array::from(vec![r.chunks_version.map(|v| v as i64)])),
        Arc::new(Int64Array::from(vec![r.prompt_tokens as i64])),
        Arc::new(Int64Array::from(vec![r.completion_tokens as i64])),
        Arc::new(Float32Array::from(vec![r.ms_prefill])),
        Arc::new(Float32Array::from(vec![r.ms_decode])),
        list(&r.relevant),
        Arc::new(Int64Array::from(vec![r.unsupported as i64])),
        Arc::new(StringArray::from(vec![r.reranker.clone()])),
        Arc::new(Float32Array::from(vec![r.ms_checks.0])),
        Arc::new(Float32Array::from(vec![r.ms_checks.1])),
    ]
}

pub(crate) fn llm_err(function: &'static str, source: mitra_llm::LlmError) -> SqlFnError {
    SqlFnError::Llm { function, source }
}

fn user_of(p: Principal) -> Option<String> {
    match p {
        Principal::Operator => None,
        Principal::User { name, .. } => Some(name),
    }
}

pub(crate) fn asker(
    session_cfg: &datafusion::prelude::SessionConfig,
    scope: Option<Vec<String>>,
) -> Asker {
    Asker {
        user: user_of(SessionAccess::principal_of(session_cfg)),
        scope,
    }
}

/// Opens the table `name` at `version` (Lance time travel), or its latest version.
async fn open_at(
    data_dir: &std::path::Path,
    name: &str,
    version: Option<u64>,
) -> std::result::Result<lance::Dataset, mitra_store::store::StoreError> {
    let ds =
        lance::Dataset::open(&data_dir.join(format!("{name}.lance")).to_string_lossy()).await?;
    match version {
        None => Ok(ds),
        Some(v) => {
            ds.checkout_version(v)
                .await
                .map_err(|_| mitra_store::store::StoreError::VersionGone {
                    table: name.to_string(),
                    version: v,
                })
        }
    }
}

/// The chunks `ids` (text, heading, page, document title) at the versions `at` (latest when
/// `None`), and the versions read.
pub async fn read_passages(
    data_dir: &std::path::Path,
    ids: &[String],
    at: Option<TableVersions>,
) -> std::result::Result<(Vec<Passage>, TableVersions), mitra_store::store::StoreError> {
    let chunks = open_at(data_dir, "chunks", at.map(|v| v.chunks)).await?;
    let docs = open_at(data_dir, "documents", at.map(|v| v.documents)).await?;
    let version = TableVersions {
        chunks: chunks.version().version,
        documents: docs.version().version,
    };
    if ids.is_empty() {
        return Ok((Vec::new(), version));
    }
    let quoted = |v: &[String]| {
        v.iter()
            .map(|s| format!("'{}'", s.replace('\'', "''")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut scan = chunks.scan();
    scan.project(&["chunk_id", "doc_id", "version", "text", "heading", "page"])?;
    scan.filter(&format!("chunk_id IN ({})", quoted(ids)))?;
    let batches: Vec<RecordBatch> = scan.try_into_stream().await?.try_collect().await?;
    let mut found: std::collections::HashMap<String, (String, i32, Passage)> = Default::default();
    for b in &batches {
        let (c, d, t) = (
            mitra_store::store::str_col(b, 0),
            mitra_store::store::str_col(b, 1),
            mitra_store::store::str_col(b, 3),
        );
        let ver = mitra_store::store::i32_col(b, 2);
        let heading = mitra_store::store::str_col(b, 4);
        let page = b.column(5).as_primitive::<arrow_array::types::Int32Type>();
        for r in 0..b.num_rows() {
            found.insert(
                c.value(r).to_string(),
                (
                    d.value(r).to_string(),
                    ver.value(r),
                    Passage {
                        chunk_id: c.value(r).to_string(),
                        title: None,
                        heading: heading.is_valid(r).then(|| heading.value(r).to_string()),
                        page: page.is_valid(r).then(|| page.value(r) as i64),
                        text: t.value(r).to_string(),
                    },
                ),
            );
        }
    }
    // Document titles.
    let doc_ids: Vec<String> = found.values().map(|(d, _, _)| d.clone()).collect();
    let mut titles: std::collections::HashMap<(String, i32), String> = Default::default();
    if !doc_ids.is_empty() {
        let mut scan = docs.scan();
        scan.project(&["doc_id", "version", "title"])?;
        scan.filter(&format!("doc_id IN ({})", quoted(&doc_ids)))?;
        let batches: Vec<RecordBatch> = scan.try_into_stream().await?.try_collect().await?;
        for b in &batches {
            let (d, v, t) = (
                mitra_store::store::str_col(b, 0),
                mitra_store::store::i32_col(b, 1),
                mitra_store::store::str_col(b, 2),
            );
            for r in 0..b.num_rows() {
                if t.is_valid(r) {
                    titles.insert((d.value(r).to_string(), v.value(r)), t.value(r).to_string());
                }
            }
        }
    }
    let passages = ids
        .iter()
        .filter_map(|id| found.remove(id))
        .map(|(d, v, mut p)| {
            p.title = titles.get(&(d, v)).cloned();
            p
        })
        .collect();
    Ok((passages, version))
}

/// What the question functions (`answer`, `ask`, `ask_plan`, `compare`) work with: hybrid
/// retrieval, the rerankers and the language model, the limits, the analyses and the store.
#[derive(Clone)]
pub struct QuestionContext {
    pub(crate) hybrid: HybridFunction,
    pub(crate) llm: Arc<Llm>,
    pub(crate) rerankers: Arc<Rerankers>,
    pub(crate) limits: LimitsConfig,
    pub(crate) catalog: Arc<AnalysisCatalog>,
    pub(crate) data_dir: std::path::PathBuf,
}

impl std::fmt::Debug for QuestionContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QuestionContext")
    }
}

impl QuestionContext {
    /// The context over `hybrid()`'s retrieval (the model is the rerankers').
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

    /// Candidates to retrieve for `k` passages: more when a reranker chooses among them
    /// (`rerank.candidates`), or for the relevance step's second look (`llm.second_look_k`),
    /// among which [`crate::llm::Llm::with_updates`] also finds passages stating changes of
    /// first-look values; at most `limits.max_k`.
    pub(crate) fn depth(&self, k: usize, rerank: Option<&Choice>) -> usize {
        match rerank {
            Some(_) => k.max(self.rerankers.config().candidates.min(self.limits.max_k)),
            None => k.max(self.llm.second_look_depth().min(self.limits.max_k)),
        }
    }
}

/// The `answer` table function.
#[derive(Debug, Clone)]
pub struct AnswerFunction {
    q: QuestionContext,
}

impl AnswerFunction {
    /// Creates the function.
    pub fn new(q: QuestionContext) -> Self {
        Self { q }
    }

    fn run(&self, a: &TableFunctionArgs) -> std::result::Result<Option<Call>, SqlFnError> {
        let Some(QuestionArgs {
            question, k, vis, ..
        }) = question_args(
            a,
            ANSWER,
            ANSWER_SIG,
            &self.q.limits,
            &self.q.llm,
            &self.q.catalog,
            false,
        )?
        else {
            return Ok(None);
        };
        // With a reranker, more candidates are retrieved and the best k of its order kept.
        let rerank = self.q.rerankers.configured_for(ANSWER)?;
        let depth = self.q.depth(k, rerank.as_ref());
        let (hits, best) =
            self.q
                .hybrid
                .search(&question, depth, self.q.hybrid.defaults(), &vis)?;
        let cfg = a.session().config();
        Ok(Some(Call {
            asker: asker(cfg, vis.scope.clone()),
            question,
            hits,
            best,
            k,
            rerank,
        }))
    }
}

/// Answers `question` from the candidate chunks `ids` (best first), as `answer()` and `ask()`
/// do: the passages read at the store's current versions, reranked to the best `k` when a
/// reranker is chosen, the grounded answer, and its record when answers are recorded; also
/// the milliseconds the reranking took.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn answer_candidates(
    function: &'static str,
    rerankers: &Rerankers,
    data_dir: &std::path::Path,
    question: &str,
    ids: &[String],
    best: Option<f64>,
    k: usize,
    rerank: Option<&Choice>,
    asker: &Asker,
) -> Result<(AnswerRow, f32)> {
    let external = |e| datafusion::error::DataFusionError::External(Box::new(e));
    let llm = rerankers.llm_arc();
    let (passages, version) = read_passages(data_dir, ids, None).await.map_err(external)?;
    let started = std::time::Instant::now();
    let (passages, relevance) = match rerank {
        Some(choice) => rerankers
            .rerank_evidence(function, choice, question, passages, k, None)
            .await
            .map_err(SqlFnError::into_df)?,
        None => (passages, None),
    };
    let ms_rerank = started.elapsed().as_secs_f32() * 1000.0;
    // More than k without a reranker: candidates for the relevance step's second look, and
    // passages stating changes of first-look values.
    let (ev, settings) = llm.with_updates(
        k,
        Evidence {
            passages,
            best_similarity: best,
            chunks_version: Some(version.chunks),
            store: Some(version),
            reranker: rerank.map(|c| c.label(&llm)),
            relevance,
        },
    );
    let row = llm::submit_with(&llm, settings, question, ev)
        .map_err(|e| llm_err(function, e).into_df())?
        .finish()
        .await
        .map_err(|e| llm_err(function, e).into_df())?;
    if llm.config().record_answers {
        answers_log::record(data_dir, function, question, asker, &row)
            .await
            .map_err(external)?;
    }
    Ok((row, ms_rerank))
}

/// The checked arguments of a question function (`answer`, `ask`, `ask_plan`).
pub(crate) struct QuestionArgs {
    /// The question.
    pub question: String,
    /// Passages to answer from.
    pub k: usize,
    /// What the call may see (the user's access, the session's or the call's scope).
    pub vis: mitra_store::analyses::Visibility,
    /// A plan given as JSON (`ask_plan`'s last argument), checked instead of the model's.
    pub plan: Option<String>,
}

/// Whether a text argument is a plan (a JSON object) rather than a scope.
fn is_plan_text(v: &datafusion::scalar::ScalarValue) -> bool {
    use datafusion::scalar::ScalarValue as S;
    matches!(v, S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s))
        if s.trim_start().starts_with('{'))
}

/// `(question text [, k bigint] [, scope text])`, and with `with_plan` a last `plan text`
/// (a JSON object): checks the arguments and that the language model is available (not
/// needed when a plan is given); `None` while parameters are unbound (planning a prepared
/// statement).
pub(crate) fn question_args(
    a: &TableFunctionArgs,
    function: &'static str,
    expected: &'static str,
    limits: &LimitsConfig,
    llm: &Llm,
    catalog: &AnalysisCatalog,
    with_plan: bool,
) -> std::result::Result<Option<QuestionArgs>, SqlFnError> {
    let most = if with_plan { 4 } else { 3 };
    let Some(mut vals) = args::values(a, function, expected, 1..=most)? else {
        return Ok(None);
    };
    let question =
        args::query_text(function, &vals[0], limits).map_err(|e| rename_query(e, "question"))?;
    let plan = match vals.last() {
        Some(v) if with_plan && vals.len() > 1 && is_plan_text(v) => {
            let text =
                args::query_text(function, v, limits).map_err(|e| rename_query(e, "plan"))?;
            vals.pop();
            Some(text)
        }
        _ => None,
    };
    if vals.len() > 3 {
        return Err(SqlFnError::InvalidArgument {
            function,
            message: "the fourth argument must be a plan (a JSON object)".into(),
        });
    }
    let mut k = llm.config().k;
    let mut scope = None;
    for v in &vals[1..] {
        if args::is_scope_text(v) {
            scope = Some(args::scope(function, v)?);
        } else {
            k = args::count(function, "k", v, limits)?;
        }
    }
    if let Some(why) = llm.unavailable().filter(|_| plan.is_none()) {
        return Err(llm_err(
            function,
            mitra_llm::LlmError::NotConfigured(why.to_string()),
        ));
    }
    let vis = catalog
        .visibility(a.session(), scope)
        .map_err(|source| SqlFnError::Analyses { function, source })?;
    Ok(Some(QuestionArgs {
        question,
        k,
        vis,
        plan,
    }))
}

pub(crate) fn rename_query(e: SqlFnError, name: &str) -> SqlFnError {
    match e {
        SqlFnError::InvalidArgument { function, message } => SqlFnError::InvalidArgument {
            function,
            message: message.replacen("query", name, 1),
        },
        e => e,
    }
}

/// One `answer()` call with its evidence retrieved (generation runs when the result is read).
#[derive(Debug, Clone)]
struct Call {
    question: String,
    hits: Vec<HybridRow>,
    best: Option<f64>,
    asker: Asker,
    /// Passages to keep after reranking.
    k: usize,
    /// The reranker to run over the candidates, if any.
    rerank: Option<Choice>,
}

impl TableFunctionImpl for AnswerFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let call = self.run(&a).map_err(SqlFnError::into_df)?;
        let rows = call.map(|call| {
            CallRows::Stream(Arc::new(AnswerStream {
                call,
                rerankers: self.q.rerankers.clone(),
                data_dir: self.q.data_dir.clone(),
            }))
        });
        Ok(Arc::new(ResultTable::new(
            ANSWER,
            ANSWER_SCHEMA.clone(),
            rows,
        )))
    }
}

/// Generates when read; dropping the stream (a client that disconnects or cancels) drops the
/// request's ticket, which stops the worker.
#[derive(Debug)]
struct AnswerStream {
    call: Call,
    rerankers: Arc<Rerankers>,
    data_dir: std::path::PathBuf,
}

impl PartitionStream for AnswerStream {
    fn schema(&self) -> &SchemaRef {
        &ANSWER_SCHEMA
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let call = self.call.clone();
        let rerankers = self.rerankers.clone();
        let data_dir = self.data_dir.clone();
        let fut = async move {
            let ids: Vec<String> = call.hits.iter().map(|h| h.chunk_id.clone()).collect();
            let (row, _) = answer_candidates(
                ANSWER,
                &rerankers,
                &data_dir,
                &call.question,
                &ids,
                call.best,
                call.k,
                call.rerank.as_ref(),
                &call.asker,
            )
            .await?;
            RecordBatch::try_new(ANSWER_SCHEMA.clone(), columns(&row)).map_err(Into::into)
        };
        Box::pin(RecordBatchStreamAdapter::new(
            ANSWER_SCHEMA.clone(),
            futures::stream::once(fut),
        ))
    }
}

/// `answer_from(question, chunk_id, text ORDER BY …)`: answers over the rows of any query, in
/// the aggregate's order; returns a struct with the fields of `answer()`.
#[derive(Debug, Clone)]
pub struct AnswerFromFunction {
    signature: Signature,
    llm: Arc<Llm>,
    limits: LimitsConfig,
    data_dir: std::path::PathBuf,
    access: Option<Arc<SessionAccess>>,
    interrupt: Option<Arc<Interrupt>>,
}

impl PartialEq for AnswerFromFunction {
    fn eq(&self, o: &Self) -> bool {
        self.signature == o.signature
    }
}
impl Eq for AnswerFromFunction {}
impl std::hash::Hash for AnswerFromFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        ANSWER_FROM.hash(state)
    }
}

impl AnswerFromFunction {
    /// The aggregate.
    pub fn udaf(
        llm: Arc<Llm>,
        limits: LimitsConfig,
        data_dir: std::path::PathBuf,
    ) -> datafusion::logical_expr::AggregateUDF {
        datafusion::logical_expr::AggregateUDF::new_from_impl(Self {
            signature: Signature::exact(
                vec![DataType::Utf8, DataType::Utf8, DataType::Utf8],
                Volatility::Volatile,
            ),
            llm,
            limits,
            data_dir,
            access: None,
            interrupt: None,
        })
    }

    /// The same aggregate bound to one connection: its reader (recorded in `answers`) and its
    /// interrupts (a cancel request, the statement timeout or a disconnect stop the generation).
    pub fn for_session(
        &self,
        access: Arc<SessionAccess>,
        interrupt: Arc<Interrupt>,
    ) -> datafusion::logical_expr::AggregateUDF {
        datafusion::logical_expr::AggregateUDF::new_from_impl(Self {
            access: Some(access),
            interrupt: Some(interrupt),
            ..self.clone()
        })
    }
}

impl AggregateUDFImpl for AnswerFromFunction {
    fn name(&self) -> &str {
        ANSWER_FROM
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Struct(answer_fields()))
    }

    fn accumulator(&self, _acc: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let asker = match &self.access {
            Some(a) => Asker {
                user: user_of(a.principal()),
                scope: a.scope(),
            },
            None => Asker::default(),
        };
        Ok(Box::new(AnswerFromAcc {
            question: None,
            rows: Vec::new(),
            llm: self.llm.clone(),
            limits: self.limits.clone(),
            data_dir: self.data_dir.clone(),
            asker,
            interrupt: self.interrupt.clone(),
        }))
    }

    fn state_fields(&self, _args: StateFieldsArgs) -> Result<Vec<Arc<Field>>> {
        Ok(vec![
            Arc::new(Field::new("question", DataType::Utf8, true)),
            Arc::new(Field::new("chunk_ids", text_list(), true)),
            Arc::new(Field::new("texts", text_list(), true)),
        ])
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::HardRequirement
    }
}

#[derive(Debug)]
struct AnswerFromAcc {
    question: Option<String>,
    rows: Vec<(String, String)>,
    llm: Arc<Llm>,
    limits: LimitsConfig,
    data_dir: std::path::PathBuf,
    asker: Asker,
    interrupt: Option<Arc<Interrupt>>,
}

impl AnswerFromAcc {
    /// The store's latest versions, for the receipt of a recorded answer (`None` when answers
    /// are not recorded).
    fn store_versions(&self) -> Result<Option<TableVersions>> {
        if !self.llm.config().record_answers {
            return Ok(None);
        }
        let (_, v) = wait_here(read_passages(&self.data_dir, &[], None))
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        Ok(Some(v))
    }

    fn set_question(&mut self, q: &str) -> std::result::Result<(), SqlFnError> {
        match &self.question {
            Some(have) if have != q => Err(SqlFnError::InvalidArgument {
                function: ANSWER_FROM,
                message: "the question must be the same on every row".into(),
            }),
            Some(_) => Ok(()),
            None => {
                self.question = Some(q.to_string());
                Ok(())
            }
        }
    }

    fn push(&mut self, id: &str, text: &str) -> std::result::Result<(), SqlFnError> {
        if self.rows.len() >= self.limits.max_k {
            return Err(SqlFnError::InvalidArgument {
                function: ANSWER_FROM,
                message: format!(
                    "more than {} passages (limits.max_k); limit the query",
                    self.limits.max_k
                ),
            });
        }
        self.rows.push((id.to_string(), text.to_string()));
        Ok(())
    }
}

impl Accumulator for AnswerFromAcc {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let q = values[0].as_string::<i32>();
        let ids = values[1].as_string::<i32>();
        let texts = values[2].as_string::<i32>();
        for r in 0..q.len() {
            if q.is_valid(r) {
                self.set_question(q.value(r)).map_err(SqlFnError::into_df)?;
            }
            if ids.is_valid(r) && texts.is_valid(r) {
                self.push(ids.value(r), texts.value(r))
                    .map_err(SqlFnError::into_df)?;
            }
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let question = self.question.clone().unwrap_or_default();
        let q = args::query_text(
            ANSWER_FROM,
            &ScalarValue::Utf8(Some(question.clone())),
            &self.limits,
        )
        .map_err(|e| rename_query(e, "question").into_df())?;
        let ev = Evidence {
            passages: self
                .rows
                .iter()
                .map(|(id, text)| Passage {
                    chunk_id: id.clone(),
                    title: None,
                    heading: None,
                    page: None,
                    text: text.clone(),
                })
                .collect(),
            best_similarity: None,
            chunks_version: None,
            store: self.store_versions()?,
            ..Default::default()
        };
        let pending =
            llm::submit(&self.llm, &q, ev).map_err(|e| llm_err(ANSWER_FROM, e).into_df())?;
        // Aggregates evaluate synchronously: wait off the async workers where the runtime
        // allows. The connection's task is blocked here, so its interrupts are watched here:
        // dropping the pending answer stops the generation.
        let stop = self.interrupt.as_ref().map(|i| i.statement());
        let row = wait_here(async {
            match stop {
                Some(s) => tokio::select! {
                    r = pending.finish() => r.map_err(|e| llm_err(ANSWER_FROM, e)),
                    why = s.stopped() => Err(SqlFnError::Stopped(why)),
                },
                None => pending.finish().await.map_err(|e| llm_err(ANSWER_FROM, e)),
            }
        })
        .map_err(SqlFnError::into_df)?;
        if self.llm.config().record_answers {
            wait_here(answers_log::record(
                &self.data_dir,
                ANSWER_FROM,
                &q,
                &self.asker,
                &row,
            ))
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        }
        let arrays = columns(&row);
        Ok(ScalarValue::Struct(Arc::new(StructArray::new(
            answer_fields(),
            arrays,
            None,
        ))))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self
                .rows
                .iter()
                .map(|(a, b)| a.len() + b.len() + 48)
                .sum::<usize>()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let ids: Vec<String> = self.rows.iter().map(|r| r.0.clone()).collect();
        let texts: Vec<String> = self.rows.iter().map(|r| r.1.clone()).collect();
        let as_list = |v: &[String]| ScalarValue::List(Arc::new(list(v).as_list::<i32>().clone()));
        Ok(vec![
            ScalarValue::Utf8(self.question.clone()),
            as_list(&ids),
            as_list(&texts),
        ])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let q = states[0].as_string::<i32>();
        let ids = states[1].as_list::<i32>();
        let texts = states[2].as_list::<i32>();
        for r in 0..q.len() {
            if q.is_valid(r) {
                self.set_question(q.value(r)).map_err(SqlFnError::into_df)?;
            }
            if ids.is_valid(r) && texts.is_valid(r) {
                let (i, t) = (ids.value(r), texts.value(r));
                let (i, t) = (i.as_string::<i32>(), t.as_string::<i32>());
                for j in 0..i.len().min(t.len()) {
                    self.push(i.value(j), t.value(j))
                        .map_err(SqlFnError::into_df)?;
                }
            }
        }
        Ok(())
    }
}

/// Runs `fut` to completion from synchronous code: on a multi-thread runtime off its async
/// workers (`block_in_place`), elsewhere on this thread.
pub(crate) fn wait_here<F: std::future::Future>(fut: F) -> F::Output {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| h.block_on(fut))
        }
        _ => futures::executor::block_on(fut),
    }
}

/// `llm_status()`: the language model and its worker (state, queue, counters).
#[derive(Debug, Clone)]
pub struct LlmStatusFunction {
    llm: Arc<Llm>,
}

impl LlmStatusFunction {
    /// Creates the function.
    pub fn new(llm: Arc<Llm>) -> Self {
        Self { llm }
    }
}

/// Output schema of `llm_status()`.
pub static LLM_STATUS_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("model", DataType::Utf8, false),
        Field::new("sha256", DataType::Utf8, true),
        Field::new("state", DataType::Utf8, false),
        Field::new("detail", DataType::Utf8, true),
        Field::new("queued", DataType::Int64, false),
        Field::new("queue_depth", DataType::Int64, false),
        Field::new("served", DataType::Int64, false),
        Field::new("cancelled", DataType::Int64, false),
        Field::new("rejected", DataType::Int64, false),
        Field::new("failed", DataType::Int64, false),
    ]))
});

impl TableFunctionImpl for LlmStatusFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        if !a.exprs().is_empty() {
            return Err(SqlFnError::WrongArity {
                function: "llm_status",
                expected: "()",
                got: a.exprs().len(),
            }
            .into_df());
        }
        let st = self.llm.status();
        let (state, detail, sha) = match (&st, self.llm.unavailable()) {
            (_, Some(why)) => ("unavailable", Some(why.to_string()), None),
            (None, _) => ("not started", None, None),
            (Some(s), _) => match &s.model {
                Some(Ok(m)) => (s.state.as_str(), None, Some(m.sha256.clone())),
                Some(Err(e)) => (s.state.as_str(), Some(e.to_string()), None),
                None => (s.state.as_str(), None, None),
            },
        };
        let n = |f: fn(&mitra_llm::WorkerStatus) -> u64| st.as_ref().map_or(0, f) as i64;
        let batch = RecordBatch::try_new(
            LLM_STATUS_SCHEMA.clone(),
            vec![
                Arc::new(StringArray::from(vec![self.llm.name()])),
                Arc::new(StringArray::from(vec![sha])),
                Arc::new(StringArray::from(vec![state])),
                Arc::new(StringArray::from(vec![detail])),
                Arc::new(Int64Array::from(vec![n(|s| s.queued as u64)])),
                Arc::new(Int64Array::from(vec![self.llm.config().queue_depth as i64])),
                Arc::new(Int64Array::from(vec![n(|s| s.served)])),
                Arc::new(Int64Array::from(vec![n(|s| s.cancelled)])),
                Arc::new(Int64Array::from(vec![n(|s| s.rejected)])),
                Arc::new(Int64Array::from(vec![n(|s| s.failed)])),
            ],
        )?;
        Ok(Arc::new(datafusion::datasource::MemTable::try_new(
            LLM_STATUS_SCHEMA.clone(),
            vec![vec![batch]],
        )?))
    }
}
