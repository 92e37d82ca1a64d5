//! The vector column of `chunks`: its Arrow type, the model recorded with it, building it.

use std::sync::Arc;

use lance::dataset::Dataset;

use super::error::{Result, StoreError};

/// Name of the vector column of `chunks`, added by schema evolution.
pub const EMBEDDING_COLUMN: &str = "embedding";
/// `chunks` schema metadata key naming the model that wrote the vectors.
pub const META_EMBEDDING_MODEL: &str = "mitra.embedding.model";
/// `chunks` schema metadata key holding the vector size.
pub const META_EMBEDDING_DIM: &str = "mitra.embedding.dim";

/// The model and size recorded with the `chunks` vector column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingMeta {
    /// Model id (registry name or configured name).
    pub model: String,
    /// Vector size.
    pub dim: usize,
}

/// Computes vectors for chunk texts (used to backfill the vector column).
pub type EmbedFn = Box<dyn Fn(&[&str]) -> std::result::Result<Vec<Vec<f32>>, String> + Send + Sync>;

/// The Arrow type of the vector column.
pub fn embedding_type(dim: usize) -> arrow_schema::DataType {
    arrow_schema::DataType::FixedSizeList(
        Arc::new(arrow_schema::Field::new(
            "item",
            arrow_schema::DataType::Float32,
            true,
        )),
        dim as i32,
    )
}

/// Builds the vector column from per-row vectors (`None` = NULL). Non-finite values are refused.
pub fn embedding_array(
    rows: impl Iterator<Item = Option<Vec<f32>>>,
    dim: usize,
) -> Result<arrow_array::FixedSizeListArray> {
    let mut flat: Vec<f32> = Vec::new();
    let mut valid: Vec<bool> = Vec::new();
    for r in rows {
        match r {
            Some(v) if v.len() == dim => {
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(StoreError::Schema(
                        "refusing to store a vector with NaN or infinite values".into(),
                    ));
                }
                flat.extend_from_slice(&v);
                valid.push(true);
            }
            Some(v) => {
                return Err(StoreError::Schema(format!(
                    "vector has {} values; the chunks table stores {dim}",
                    v.len()
                )))
            }
            None => {
                flat.extend(std::iter::repeat_n(0.0, dim));
                valid.push(false);
            }
        }
    }
    let nulls = valid
        .iter()
        .any(|v| !v)
        .then(|| arrow_buffer::NullBuffer::from(valid));
    Ok(arrow_array::FixedSizeListArray::try_new(
        Arc::new(arrow_schema::Field::new(
            "item",
            arrow_schema::DataType::Float32,
            true,
        )),
        dim as i32,
        Arc::new(arrow_array::Float32Array::from(flat)),
        nulls,
    )?)
}

/// The model and size recorded with a `chunks` dataset's vector column, if it has one.
pub fn embedding_meta_of(ds: &Dataset) -> Option<EmbeddingMeta> {
    let schema: arrow_schema::Schema = ds.schema().into();
    let field = schema.field_with_name(EMBEDDING_COLUMN).ok()?;
    let arrow_schema::DataType::FixedSizeList(_, dim) = field.data_type() else {
        return None;
    };
    let model = schema
        .metadata()
        .get(META_EMBEDDING_MODEL)
        .cloned()
        .unwrap_or_else(|| "unknown".into());
    Some(EmbeddingMeta {
        model,
        dim: *dim as usize,
    })
}
