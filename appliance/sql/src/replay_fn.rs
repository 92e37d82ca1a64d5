//! `replay(answer_id)`: re-runs a recorded answer from its receipt (the same chunk versions
//! through Lance time travel, the same model file, the same settings) and says whether the
//! new answer is identical to the recorded one.

use crate::result_table::{CallRows, ResultTable};
use std::sync::{Arc, LazyLock};

use arrow::array::{Array, AsArray};
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::SendableRecordBatchStream;
use datafusion::scalar::ScalarValue;
use futures::TryStreamExt;
use mitra_llm::Passage;

use super::answer_fn::read_passages;
use super::args::{self, Arg};
use super::error::SqlFnError;
use crate::answers_log::{self, TABLE_DIR};
use crate::llm::{self, Evidence, Llm, Receipt};
use mitra_store::analyses::{Principal, SessionAccess};
use mitra_store::store::StoreError;

const REPLAY: &str = "replay";

fn text_list() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

/// Output schema of `replay()`.
pub static REPLAY_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("answer_id", DataType::Utf8, false),
        Field::new("function", DataType::Utf8, false),
        Field::new("question", DataType::Utf8, false),
        Field::new("recorded_answer", DataType::Utf8, false),
        Field::new("answer", DataType::Utf8, false),
        Field::new("identical", DataType::Boolean, false),
        Field::new("recorded_citations", text_list(), false),
        Field::new("citations", text_list(), false),
        Field::new("same_prompt", DataType::Boolean, false),
        Field::new("model", DataType::Utf8, false),
        Field::new("chunks_version", DataType::Int64, true),
    ]))
});

/// The `replay` table function (the operator's, as the `answers` table is).
#[derive(Debug, Clone)]
pub struct ReplayFunction {
    llm: Arc<Llm>,
    data_dir: std::path::PathBuf,
}

impl ReplayFunction {
    /// Creates the function over the answers table in `data_dir`.
    pub fn new(llm: Arc<Llm>, data_dir: std::path::PathBuf) -> Self {
        Self { llm, data_dir }
    }

    fn run(&self, a: &TableFunctionArgs) -> std::result::Result<Option<String>, SqlFnError> {
        let exprs = a.exprs();
        if exprs.len() != 1 {
            return Err(SqlFnError::WrongArity {
                function: REPLAY,
                expected: "(answer_id text)",
                got: exprs.len(),
            });
        }
        if !matches!(
            SessionAccess::principal_of(a.session().config()),
            Principal::Operator
        ) {
            return Err(SqlFnError::OperatorOnly { function: REPLAY });
        }
        match args::eval(a.session(), REPLAY, &exprs[0])? {
            Arg::Placeholder => Ok(None),
            Arg::Value(ScalarValue::Utf8(Some(id)) | ScalarValue::LargeUtf8(Some(id))) => {
                Ok(Some(id))
            }
            Arg::Value(v) => Err(SqlFnError::InvalidArgument {
                function: REPLAY,
                message: format!("answer_id must be text, not {}", v.data_type()),
            }),
        }
    }
}

impl TableFunctionImpl for ReplayFunction {
    fn call_with_args(&self, a: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let id = self.run(&a).map_err(SqlFnError::into_df)?;
        let rows = id.map(|id| {
            CallRows::Stream(Arc::new(ReplayStream {
                id,
                llm: self.llm.clone(),
                data_dir: self.data_dir.clone(),
            }))
        });
        Ok(Arc::new(ResultTable::new(
            REPLAY,
            REPLAY_SCHEMA.clone(),
            rows,
        )))
    }
}

/// Replays when read; dropping the stream stops the generation.
#[derive(Debug)]
struct ReplayStream {
    id: String,
    llm: Arc<Llm>,
    data_dir: std::path::PathBuf,
}

impl PartitionStream for ReplayStream {
    fn schema(&self) -> &SchemaRef {
        &REPLAY_SCHEMA
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (id, llm, data_dir) = (self.id.clone(), self.llm.clone(), self.data_dir.clone());
        let fut = async move {
            replay(&id, &llm, &data_dir)
                .await
                .map_err(SqlFnError::into_df)
        };
        Box::pin(RecordBatchStreamAdapter::new(
            REPLAY_SCHEMA.clone(),
            futures::stream::once(fut),
        ))
    }
}

/// One recorded answer, as `replay()` reads it.
struct Recorded {
    function: String,
    question: String,
    answer: String,
    citations: Vec<String>,
    abstained: bool,
    evidence: Vec<String>,
    model: String,
    chunks_version: Option<u64>,
    receipt: Option<String>,
}

fn store_err(e: StoreError) -> SqlFnError {
    match e {
        StoreError::VersionGone { .. } => not_replayable(e.to_string()),
        source => SqlFnError::Store {
            function: REPLAY,
            source,
        },
    }
}

fn not_replayable(message: String) -> SqlFnError {
    SqlFnError::NotReplayable {
        function: REPLAY,
        message,
    }
}

/// Whether two model labels (`name sha256:…`) name the same file: by checksum when both
/// carry one, else by label.
fn same_model(a: &str, b: &str) -> bool {
    let sha = |l: &str| l.split_once("sha256:").map(|(_, h)| h.trim().to_string());
    match (sha(a), sha(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn model_changed(recorded: &str, loaded: &str) -> SqlFnError {
    not_replayable(format!(
        "it was made by {recorded}; this server's model is {loaded} (install that file and set \
         llm.model or llm.model_path)"
    ))
}

fn strings(a: &ArrayRef, row: usize) -> Vec<String> {
    let list = a.as_list::<i32>();
    if list.is_null(row) {
        return Vec::new();
    }
    let v = list.value(row);
    let s = v.as_string::<i32>();
    (0..s.len()).map(|i| s.value(i).to_string()).collect()
}

async fn read_recorded(
    data_dir: &std::path::Path,
    id: &str,
) -> std::result::Result<Recorded, SqlFnError> {
    let not_found = || SqlFnError::NotFound {
        function: REPLAY,
        what: format!("no recorded answer has answer_id '{id}' (llm.record_answers records them)"),
    };
    let path = data_dir.join(TABLE_DIR);
    if !path.join("_versions").exists() {
        return Err(not_found());
    }
    answers_log::evolve(data_dir).await.map_err(store_err)?;
    let ds = lance::Dataset::open(&path.to_string_lossy())
        .await
        .map_err(|e| store_err(e.into()))?;
    let mut scan = ds.scan();
    let cols = [
        "function",
        "question",
        "answer",
        "citations",
        "abstained",
        "evidence",
        "model",
        "chunks_version",
        "receipt",
    ];
    let filter = format!("answer_id = '{}'", id.replace('\'', "''"));
    let batches: Vec<RecordBatch> = async {
        scan.project(&cols)?;
        scan.filter(&filter)?;
        scan.try_into_stream().await?.try_collect().await
    }
    .await
    .map_err(|e: lance::Error| store_err(e.into()))?;
    let b = batches
        .into_iter()
        .find(|b| b.num_rows() > 0)
        .ok_or_else(not_found)?;
    let s = |i: usize| b.column(i).as_string::<i32>();
    let version = b.column(7).as_primitive::<arrow_array::types::Int64Type>();
    let receipt = s(8);
    Ok(Recorded {
        function: s(0).value(0).to_string(),
        question: s(1).value(0).to_string(),
        answer: s(2).value(0).to_string(),
        citations: strings(b.column(3), 0),
        abstained: b.column(4).as_boolean().value(0),
        evidence: strings(b.column(5), 0),
        model: s(6).value(0).to_string(),
        chunks_version: version.is_valid(0).then(|| version.value(0) as u64),
        receipt: receipt.is_valid(0).then(|| receipt.value(0).to_string()),
    })
}

/// Re-runs the recorded answer `id`.
async fn replay(
    id: &str,
    llm: &Llm,
    data_dir: &std::path::Path,
) -> std::result::Result<RecordBatch, SqlFnError> {
    let rec = read_recorded(data_dir, id).await?;
    let receipt: Receipt = match &rec.receipt {
        Some(r) => serde_json::from_str(r)
            .map_err(|e| not_replayable(format!("its receipt cannot be read: {e}")))?,
        None => {
            return Err(not_replayable(
                "it was recorded before answers carried receipts".into(),
            ))
        }
    };
    let Some(at) = receipt.store else {
        return Err(not_replayable(
            "its receipt names no store version (it was made over no stored passage)".into(),
        ));
    };
    let (mut passages, _) = read_passages(data_dir, &rec.evidence, Some(at))
        .await
        .map_err(store_err)?;
    if passages.len() != rec.evidence.len() {
        return Err(not_replayable(format!(
            "{} of its {} evidence chunks are not in chunks version {}",
            rec.evidence.len() - passages.len(),
            rec.evidence.len(),
            at.chunks
        )));
    }
    if rec.function == "answer_from" {
        // answer_from's passages are the caller's (chunk id, text) rows.
        passages = passages
            .into_iter()
            .map(|p| Passage {
                title: None,
                heading: None,
                page: None,
                ..p
            })
            .collect();
    }
    if llm::evidence_sha256(&passages) != receipt.evidence_sha256 {
        return Err(not_replayable(format!(
            "its evidence is not the text of its chunks at version {} (answer_from over text \
             the caller's query computed?)",
            at.chunks
        )));
    }
    // A loaded model that is not the recorded one: say so before generating.
    if let Some(Some(Ok(info))) = llm.status().map(|s| s.model) {
        if !receipt.prompt_sha256.is_empty() && !same_model(&info.label(), &rec.model) {
            return Err(model_changed(&rec.model, &info.label()));
        }
    }
    let ev = Evidence {
        passages,
        best_similarity: receipt.best_similarity,
        chunks_version: rec.chunks_version,
        store: receipt.store,
        reranker: receipt.reranker.clone(),
        relevance: None,
    };
    let row = llm::submit_with(llm, receipt.settings.clone(), &rec.question, ev)
        .map_err(|source| SqlFnError::Llm {
            function: REPLAY,
            source,
        })?
        .finish()
        .await
        .map_err(|source| SqlFnError::Llm {
            function: REPLAY,
            source,
        })?;
    if !receipt.prompt_sha256.is_empty() && !same_model(&row.model, &rec.model) {
        return Err(model_changed(&rec.model, &row.model));
    }
    let identical = row.answer == rec.answer
        && row.citations == rec.citations
        && row.abstained == rec.abstained;
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![id])),
        Arc::new(StringArray::from(vec![rec.function.as_str()])),
        Arc::new(StringArray::from(vec![rec.question.as_str()])),
        Arc::new(StringArray::from(vec![rec.answer.as_str()])),
        Arc::new(StringArray::from(vec![row.answer.as_str()])),
        Arc::new(BooleanArray::from(vec![identical])),
        answers_log::text_list(Some(&rec.citations)),
        answers_log::text_list(Some(&row.citations)),
        Arc::new(BooleanArray::from(vec![
            row.receipt.prompt_sha256 == receipt.prompt_sha256,
        ])),
        Arc::new(StringArray::from(vec![rec.model.as_str()])),
        Arc::new(Int64Array::from(vec![rec.chunks_version.map(|v| v as i64)])),
    ];
    RecordBatch::try_new(REPLAY_SCHEMA.clone(), cols).map_err(|e| SqlFnError::Store {
        function: REPLAY,
        source: e.into(),
    })
}
