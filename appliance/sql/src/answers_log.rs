//! The opt-in `answers` Lance table: who asked what, what Mitra answered, from which evidence
//! and model (`llm.record_answers`).

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Int64Array, RecordBatch, RecordBatchIterator,
    StringArray, TimestampMicrosecondArray,
};
use lance::dataset::{WriteMode, WriteParams};

use crate::llm::{Abstention, AnswerRow};
use mitra_store::store::StoreError;

/// Directory of the table inside the data directory.
pub const TABLE_DIR: &str = "answers.lance";

/// Who asked, and inside which scope.
#[derive(Debug, Clone, Default)]
pub struct Asker {
    /// Login; `None` for the operator.
    pub user: Option<String>,
    /// Scope of the retrieval.
    pub scope: Option<Vec<String>>,
}

/// A one-row `text[]` column: `values`, or NULL.
pub(crate) fn text_list(values: Option<&[String]>) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for s in values.unwrap_or_default() {
        b.values().append_value(s);
    }
    b.append(values.is_some());
    Arc::new(b.finish())
}

/// The `abstention` column's value.
pub fn abstention_name(a: Abstention) -> &'static str {
    match a {
        Abstention::No => "no",
        Abstention::NoEvidence => "no_evidence",
        Abstention::Gate => "gate",
        Abstention::Model => "model",
        Abstention::Uncited => "uncited",
        Abstention::NotRelevant => "not_relevant",
        Abstention::Unmentioned => "unmentioned",
        Abstention::Unsupported => "unsupported",
        Abstention::Unanswered => "unanswered",
    }
}

/// Adds the columns an answers table written by an older Mitra lacks (all NULL: answers
/// recorded without them); nothing when there is no table yet or it is current.
pub async fn evolve(data_dir: &Path) -> Result<(), StoreError> {
    use lance::dataset::NewColumnTransform;
    let path = data_dir.join(TABLE_DIR);
    if !path.join("_versions").exists() {
        return Ok(());
    }
    let mut ds = lance::Dataset::open(&path.to_string_lossy()).await?;
    let schema: arrow_schema::Schema = ds.schema().into();
    let missing = mitra_store::schema::ANSWERS.missing_evolved(&schema);
    if missing.is_empty() {
        return Ok(());
    }
    tracing::info!(table = "answers", "adding new columns (schema evolution)");
    ds.add_columns(
        NewColumnTransform::AllNulls(Arc::new(arrow_schema::Schema::new(missing))),
        None,
        None,
    )
    .await?;
    Ok(())
}

/// Appends one answer (a new Lance version; the table is created on first use).
pub async fn record(
    data_dir: &Path,
    function: &str,
    question: &str,
    asker: &Asker,
    row: &AnswerRow,
) -> Result<(), StoreError> {
    let def = &mitra_store::schema::ANSWERS;
    let schema = def.arrow_schema();
    let now = chrono::Utc::now();
    let id = format!("{}#{:016x}", now.to_rfc3339(), rand::random::<u64>());
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![id])),
        Arc::new(
            TimestampMicrosecondArray::from(vec![now.timestamp_micros()]).with_timezone("UTC"),
        ),
        Arc::new(StringArray::from(vec![asker.user.clone()])),
        text_list(asker.scope.as_deref()),
        Arc::new(StringArray::from(vec![function])),
        Arc::new(StringArray::from(vec![question])),
        Arc::new(StringArray::from(vec![row.answer.as_str()])),
        Arc::new(StringArray::from(vec![row.raw.as_str()])),
        Arc::new(BooleanArray::from(vec![row.abstained])),
        Arc::new(StringArray::from(vec![abstention_name(row.abstention)])),
        Arc::new(BooleanArray::from(vec![row.grounded])),
        text_list(Some(&row.citations)),
        Arc::new(Int64Array::from(vec![row.invalid_citations as i64])),
        text_list(Some(&row.evidence)),
        Arc::new(StringArray::from(vec![row.model.as_str()])),
        Arc::new(Int64Array::from(vec![row.chunks_version.map(|v| v as i64)])),
        Arc::new(Int64Array::from(vec![row.prompt_tokens as i64])),
        Arc::new(Int64Array::from(vec![row.completion_tokens as i64])),
        Arc::new(Float32Array::from(vec![row.ms_prefill])),
        Arc::new(Float32Array::from(vec![row.ms_decode])),
        Arc::new(StringArray::from(vec![
            serde_json::to_string(&row.receipt).map_err(|e| StoreError::Schema(e.to_string()))?
        ])),
        Arc::new(Float32Array::from(vec![row.ms_checks.0])),
        Arc::new(Float32Array::from(vec![row.ms_checks.1])),
    ];
    let batch = RecordBatch::try_new(schema.clone(), cols)
        .map_err(|e| StoreError::Schema(e.to_string()))?;
    let path = data_dir.join(TABLE_DIR);
    let exists = path.join("_versions").exists();
    if exists {
        evolve(data_dir).await?;
    }
    let mode = if exists {
        WriteMode::Append
    } else {
        WriteMode::Create
    };
    let write = |mode| {
        let batch = batch.clone();
        let schema = schema.clone();
        let uri = path.to_string_lossy().into_owned();
        async move {
            let params = WriteParams {
                mode,
                ..Default::default()
            };
            lance::Dataset::write(
                RecordBatchIterator::new(vec![Ok(batch)], schema),
                &uri,
                Some(params),
            )
            .await
        }
    };
    match write(mode).await {
        Ok(_) => Ok(()),
        // Another session created the table first.
        Err(_) if !exists => Ok(write(WriteMode::Append).await.map(|_| ())?),
        Err(e) => Err(e.into()),
    }
}

/// The `chunks` and `documents` versions that receipts name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReceiptVersions {
    /// Versions of `chunks`.
    pub chunks: std::collections::HashSet<u64>,
    /// Versions of `documents`.
    pub documents: std::collections::HashSet<u64>,
}

/// The versions named by the receipts of answers recorded at or after `since` (maintenance
/// keeps them, so that `replay()` reopens those answers' exact passages).
pub async fn receipt_versions(
    data_dir: &Path,
    since: chrono::DateTime<chrono::Utc>,
) -> Result<ReceiptVersions, StoreError> {
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use futures::TryStreamExt;
    let mut out = ReceiptVersions::default();
    let path = data_dir.join(TABLE_DIR);
    if !path.join("_versions").exists() {
        return Ok(out);
    }
    evolve(data_dir).await?;
    let ds = lance::Dataset::open(&path.to_string_lossy()).await?;
    let mut scan = ds.scan();
    scan.project(&["asked_at", "receipt"])?;
    let batches: Vec<RecordBatch> = scan.try_into_stream().await?.try_collect().await?;
    let since = since.timestamp_micros();
    for b in batches {
        let at = b
            .column(0)
            .as_primitive::<arrow_array::types::TimestampMicrosecondType>();
        let receipts = b.column(1).as_string::<i32>();
        for i in 0..b.num_rows() {
            if at.is_null(i) || at.value(i) < since || receipts.is_null(i) {
                continue;
            }
            // A receipt that does not parse names nothing (recorded before receipts had
            // versions); it cannot be replayed either way.
            let Ok(r) = serde_json::from_str::<crate::llm::Receipt>(receipts.value(i)) else {
                continue;
            };
            if let Some(v) = r.store {
                out.chunks.insert(v.chunks);
                out.documents.insert(v.documents);
            }
        }
    }
    Ok(out)
}
