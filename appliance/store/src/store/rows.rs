//! The rows of the store's tables and the Arrow batches they are written as.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray};

use super::error::{Result, StoreError};
use super::vectors::{embedding_array, embedding_type, EMBEDDING_COLUMN};
use crate::schema::{CHUNKS, DOCUMENTS, INGEST_RUNS};

/// A document version row.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentRow {
    /// Stable document id.
    pub doc_id: String,
    /// Version, from 1.
    pub version: i32,
    /// Title.
    pub title: String,
    /// Source URI.
    pub source_uri: String,
    /// Hex SHA-256 of the source bytes.
    pub content_sha256: String,
    /// Commit time, microseconds since the Unix epoch (UTC).
    pub ingested_at: i64,
    /// Owning analysis, if known.
    pub analysis_id: Option<String>,
    /// JSON object with free-form metadata.
    pub metadata: String,
    /// Configured source the document came from (plugin ingest).
    pub source: Option<String>,
    /// Set on a tombstone row (microseconds since the epoch, UTC).
    pub deleted_at: Option<i64>,
}

/// The newest version of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveDoc {
    /// Newest version.
    pub version: i32,
    /// Its content hash ("" for a tombstone).
    pub sha256: String,
    /// Its source, if it came from one.
    pub source: Option<String>,
    /// Whether the newest version is a tombstone.
    pub deleted: bool,
    /// The analysis the newest version belongs to.
    pub analysis_id: Option<String>,
}

/// One row of `ingest_runs` (see `schemas/ingest_runs.json`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunRow {
    /// Unique id.
    pub run_id: String,
    /// Source name.
    pub source: String,
    /// Source location.
    pub location: String,
    /// `name@version` of the crawler.
    pub crawler: String,
    /// `name@version` of the extractors used, comma-separated.
    pub extractors: String,
    /// Start, microseconds since the epoch.
    pub started_at: i64,
    /// End, microseconds since the epoch.
    pub finished_at: i64,
    /// ok, partial or failed.
    pub status: String,
    /// Documents listed.
    pub listed: i64,
    /// New documents.
    pub added: i64,
    /// Changed documents.
    pub updated: i64,
    /// Unchanged documents.
    pub unchanged: i64,
    /// Tombstoned documents.
    pub tombstoned: i64,
    /// Failed documents.
    pub failed: i64,
    /// Chunks written.
    pub chunks: i64,
    /// JSON array of error lines.
    pub errors: String,
    /// documents version after the run.
    pub documents_version: i64,
    /// chunks version after the run.
    pub chunks_version: i64,
}

/// A chunk row.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRow {
    /// Stable chunk id (see [`chunk_id`]).
    pub chunk_id: String,
    /// Owning document.
    pub doc_id: String,
    /// Owning document version.
    pub version: i32,
    /// Position in the document.
    pub ordinal: i32,
    /// Section heading.
    pub heading: Option<String>,
    /// Text.
    pub text: String,
    /// Page number, for paginated sources.
    pub page: Option<i32>,
    /// Page the chunk's text ends on, for paginated sources.
    pub page_end: Option<i32>,
    /// Block kind (body, caption, table).
    pub kind: String,
    /// Owning analysis, if known.
    pub analysis_id: Option<String>,
    /// Dense vector (`chunks.embedding`), when the store has one.
    pub embedding: Option<Vec<f32>>,
}

/// A document version with its chunks, ready to commit.
#[derive(Debug, Clone)]
pub struct NewDocument {
    /// The document row.
    pub doc: DocumentRow,
    /// Its chunks.
    pub chunks: Vec<ChunkRow>,
}

/// The stable id of a chunk: `<doc_id>@<version>#<ordinal>`.
pub fn chunk_id(doc_id: &str, version: i32, ordinal: i32) -> String {
    format!("{doc_id}@{version}#{ordinal}")
}

/// Downcasts a Utf8 column.
pub fn str_col(batch: &RecordBatch, i: usize) -> &StringArray {
    batch
        .column(i)
        .as_any()
        .downcast_ref::<StringArray>()
        .expect("utf8 column")
}

/// Downcasts an Int32 column.
pub fn i32_col(batch: &RecordBatch, i: usize) -> &Int32Array {
    batch
        .column(i)
        .as_any()
        .downcast_ref::<Int32Array>()
        .expect("int32 column")
}

pub(super) fn documents_batch(rows: &[&DocumentRow]) -> Result<RecordBatch> {
    let def = &*DOCUMENTS;
    let mut cols: Vec<(usize, ArrayRef)> = vec![
        (
            def.col("doc_id"),
            strs(rows.iter().map(|r| Some(r.doc_id.as_str()))),
        ),
        (
            def.col("version"),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.version))),
        ),
        (
            def.col("title"),
            strs(rows.iter().map(|r| Some(r.title.as_str()))),
        ),
        (
            def.col("source_uri"),
            strs(rows.iter().map(|r| Some(r.source_uri.as_str()))),
        ),
        (
            def.col("content_sha256"),
            strs(rows.iter().map(|r| Some(r.content_sha256.as_str()))),
        ),
        (
            def.col("ingested_at"),
            Arc::new(
                TimestampMicrosecondArray::from_iter_values(rows.iter().map(|r| r.ingested_at))
                    .with_timezone("UTC"),
            ),
        ),
        (
            def.col("analysis_id"),
            strs(rows.iter().map(|r| r.analysis_id.as_deref())),
        ),
        (
            def.col("metadata"),
            strs(rows.iter().map(|r| Some(r.metadata.as_str()))),
        ),
        (
            def.col("source"),
            strs(rows.iter().map(|r| r.source.as_deref())),
        ),
        (
            def.col("deleted_at"),
            Arc::new(
                TimestampMicrosecondArray::from(
                    rows.iter().map(|r| r.deleted_at).collect::<Vec<_>>(),
                )
                .with_timezone("UTC"),
            ),
        ),
    ];
    cols.sort_by_key(|(i, _)| *i);
    Ok(RecordBatch::try_new(
        def.arrow_schema(),
        cols.into_iter().map(|(_, a)| a).collect(),
    )?)
}

pub(super) fn runs_batch(r: &RunRow) -> Result<RecordBatch> {
    let def = &*INGEST_RUNS;
    let ts = |v: i64| -> ArrayRef {
        Arc::new(TimestampMicrosecondArray::from_iter_values([v]).with_timezone("UTC"))
    };
    let int = |v: i64| -> ArrayRef { Arc::new(arrow_array::Int64Array::from_iter_values([v])) };
    let s = |v: &str| strs(std::iter::once(Some(v)));
    let mut cols: Vec<(usize, ArrayRef)> = vec![
        (def.col("run_id"), s(&r.run_id)),
        (def.col("source"), s(&r.source)),
        (def.col("location"), s(&r.location)),
        (def.col("crawler"), s(&r.crawler)),
        (def.col("extractors"), s(&r.extractors)),
        (def.col("started_at"), ts(r.started_at)),
        (def.col("finished_at"), ts(r.finished_at)),
        (def.col("status"), s(&r.status)),
        (def.col("listed"), int(r.listed)),
        (def.col("added"), int(r.added)),
        (def.col("updated"), int(r.updated)),
        (def.col("unchanged"), int(r.unchanged)),
        (def.col("tombstoned"), int(r.tombstoned)),
        (def.col("failed"), int(r.failed)),
        (def.col("chunks"), int(r.chunks)),
        (def.col("errors"), s(&r.errors)),
        (def.col("documents_version"), int(r.documents_version)),
        (def.col("chunks_version"), int(r.chunks_version)),
    ];
    cols.sort_by_key(|(i, _)| *i);
    Ok(RecordBatch::try_new(
        def.arrow_schema(),
        cols.into_iter().map(|(_, a)| a).collect(),
    )?)
}

pub(super) fn chunks_batch(
    rows: &[&ChunkRow],
    embedding_dim: Option<usize>,
) -> Result<RecordBatch> {
    let def = &*CHUNKS;
    let mut cols: Vec<(usize, ArrayRef)> = vec![
        (
            def.col("chunk_id"),
            strs(rows.iter().map(|r| Some(r.chunk_id.as_str()))),
        ),
        (
            def.col("doc_id"),
            strs(rows.iter().map(|r| Some(r.doc_id.as_str()))),
        ),
        (
            def.col("version"),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.version))),
        ),
        (
            def.col("ordinal"),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.ordinal))),
        ),
        (
            def.col("heading"),
            strs(rows.iter().map(|r| r.heading.as_deref())),
        ),
        (
            def.col("text"),
            strs(rows.iter().map(|r| Some(r.text.as_str()))),
        ),
        (
            def.col("page"),
            Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.page))),
        ),
        (
            def.col("page_end"),
            Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.page_end))),
        ),
        (
            def.col("kind"),
            strs(rows.iter().map(|r| Some(r.kind.as_str()))),
        ),
        (
            def.col("analysis_id"),
            strs(rows.iter().map(|r| r.analysis_id.as_deref())),
        ),
    ];
    cols.sort_by_key(|(i, _)| *i);
    let mut arrays: Vec<ArrayRef> = cols.into_iter().map(|(_, a)| a).collect();
    let mut fields: Vec<arrow_schema::FieldRef> =
        def.arrow_schema().fields().iter().cloned().collect();
    if let Some(dim) = embedding_dim {
        arrays.push(Arc::new(embedding_array(
            rows.iter().map(|r| r.embedding.clone()),
            dim,
        )?));
        fields.push(Arc::new(arrow_schema::Field::new(
            EMBEDDING_COLUMN,
            embedding_type(dim),
            true,
        )));
    } else if rows.iter().any(|r| r.embedding.is_some()) {
        return Err(StoreError::Schema(
            "chunks carry vectors but the chunks table has no embedding column".into(),
        ));
    }
    Ok(RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(fields)),
        arrays,
    )?)
}

/// The batch's columns in the order of the stored table's, when it has the same columns.
pub(super) fn in_table_order(
    batch: RecordBatch,
    table: &arrow_schema::Schema,
) -> Result<RecordBatch> {
    let schema = batch.schema();
    let idx: Option<Vec<usize>> = table
        .fields()
        .iter()
        .map(|f| schema.index_of(f.name()).ok())
        .collect();
    match idx {
        Some(idx) if idx.len() == batch.num_columns() => Ok(batch.project(&idx)?),
        _ => Ok(batch),
    }
}

fn strs<'a>(it: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(it))
}
