//! Rows of the `analyses` Lance table: reading them, and the Arrow batch that writes them.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, AsArray, ListBuilder, StringBuilder};
use arrow_array::{
    ArrayRef, FixedSizeListArray, Float32Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::{Field, Schema};
use futures::TryStreamExt;
use lance::dataset::Dataset;

use super::{AnalysesError, Status};
use crate::schema::ANALYSES;
use crate::store::{EmbeddingMeta, EMBEDDING_COLUMN, META_EMBEDDING_DIM, META_EMBEDDING_MODEL};

/// Directory of the table in the data directory.
pub const TABLE_DIR: &str = "analyses.lance";

/// One analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Abstract.
    pub abstract_text: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Review status.
    pub status: Status,
    /// Groups that may read it while draft or in-review.
    pub groups: Vec<String>,
    /// Last change, microseconds since the epoch (UTC).
    pub updated_at: i64,
    /// Vector of title + abstract, when the import had an encoder.
    pub embedding: Option<Vec<f32>>,
}

impl Analysis {
    /// What tier 1 ranks: title and abstract.
    pub fn search_text(&self) -> String {
        format!("{}\n\n{}", self.title, self.abstract_text)
    }
}

fn list(values: impl Iterator<Item = Vec<String>>) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        arrow_schema::DataType::Utf8,
        true,
    )));
    for v in values {
        for s in v {
            b.values().append_value(s);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

/// The batch that writes `rows` (with vectors of `meta`'s size when given).
pub fn batch(
    rows: &[Analysis],
    meta: Option<&EmbeddingMeta>,
) -> Result<RecordBatch, AnalysesError> {
    let base = ANALYSES.arrow_schema();
    let mut fields: Vec<Field> = base.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.id.as_str()),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.title.as_str()),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.abstract_text.as_str()),
        )),
        list(rows.iter().map(|r| r.tags.clone())),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.status.as_str()),
        )),
        list(rows.iter().map(|r| r.groups.clone())),
        Arc::new(
            TimestampMicrosecondArray::from_iter_values(rows.iter().map(|r| r.updated_at))
                .with_timezone("UTC"),
        ),
    ];
    if let Some(m) = meta {
        let arr = crate::store::embedding_array(rows.iter().map(|r| r.embedding.clone()), m.dim)
            .map_err(AnalysesError::Store)?;
        // The model is metadata of the vector column (not of the table: the SQL table shows
        // the other columns, whose schema must not change with the encoder).
        let metadata = [
            (META_EMBEDDING_MODEL.to_string(), m.model.clone()),
            (META_EMBEDDING_DIM.to_string(), m.dim.to_string()),
        ]
        .into();
        fields.push(
            Field::new(EMBEDDING_COLUMN, crate::store::embedding_type(m.dim), true)
                .with_metadata(metadata),
        );
        cols.push(Arc::new(arr));
    }
    let schema = Arc::new(Schema::new(fields));
    RecordBatch::try_new(schema, cols)
        .map_err(|e| AnalysesError::Store(crate::store::StoreError::Schema(e.to_string())))
}

fn strings(a: &dyn Array, i: usize) -> Vec<String> {
    let l = a.as_list::<i32>();
    if l.is_null(i) {
        return Vec::new();
    }
    let v = l.value(i);
    let s = v.as_string::<i32>();
    (0..s.len())
        .filter(|&j| s.is_valid(j))
        .map(|j| s.value(j).to_string())
        .collect()
}

/// Every row of a dataset, with the embedding metadata if it has vectors.
pub async fn read_dataset(
    ds: &Dataset,
) -> Result<(Vec<Analysis>, Option<EmbeddingMeta>), AnalysesError> {
    let schema: Schema = ds.schema().into();
    let meta = schema.field_with_name(EMBEDDING_COLUMN).ok().and_then(|f| {
        let arrow_schema::DataType::FixedSizeList(_, dim) = f.data_type() else {
            return None;
        };
        Some(EmbeddingMeta {
            model: f.metadata().get(META_EMBEDDING_MODEL)?.clone(),
            dim: *dim as usize,
        })
    });
    ANALYSES
        .check(&schema)
        .map_err(|m| AnalysesError::Store(crate::store::StoreError::Schema(m)))?;
    // The schema file's columns, in order (the indexes below follow it).
    let mut cols: Vec<&str> = ANALYSES.fields.iter().map(|f| f.name.as_str()).collect();
    if meta.is_some() {
        cols.push(EMBEDDING_COLUMN);
    }
    let mut scan = ds.scan();
    scan.project(&cols)?;
    let mut stream = scan.try_into_stream().await?;
    let mut out = Vec::new();
    while let Some(b) = stream.try_next().await? {
        let s = |i: usize| b.column(i).as_string::<i32>();
        let ts = b
            .column(6)
            .as_any()
            .downcast_ref::<TimestampMicrosecondArray>()
            .map(|a| a.values().to_vec())
            .unwrap_or_default();
        for r in 0..b.num_rows() {
            let status = s(4).value(r).parse::<Status>().map_err(|m| {
                AnalysesError::Store(crate::store::StoreError::Schema(format!(
                    "analyses row {}: {m}",
                    s(0).value(r)
                )))
            })?;
            let embedding = meta.as_ref().and_then(|m| {
                let list = b.column(7).as_any().downcast_ref::<FixedSizeListArray>()?;
                if list.is_null(r) {
                    return None;
                }
                let vals = list.values().as_any().downcast_ref::<Float32Array>()?;
                let off = list.value_offset(r) as usize;
                Some(vals.values()[off..off + m.dim].to_vec())
            });
            out.push(Analysis {
                id: s(0).value(r).to_string(),
                title: s(1).value(r).to_string(),
                abstract_text: s(2).value(r).to_string(),
                tags: strings(b.column(3).as_ref(), r),
                status,
                groups: strings(b.column(5).as_ref(), r),
                updated_at: ts.get(r).copied().unwrap_or_default(),
                embedding,
            });
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((out, meta))
}

/// The analyses of a data directory (none when the table does not exist yet).
pub async fn read_analyses(data_dir: &Path) -> Result<Vec<Analysis>, AnalysesError> {
    let path = data_dir.join(TABLE_DIR);
    if !path.join("_versions").exists() {
        return Ok(Vec::new());
    }
    let ds = Dataset::open(&path.to_string_lossy()).await?;
    Ok(read_dataset(&ds).await?.0)
}
