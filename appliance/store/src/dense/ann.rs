//! The Lance ANN index on `chunks.embedding`: built once the table is large enough, kept current.

use std::time::Instant;

use lance::index::vector::VectorIndexParams;
use lance::index::DatasetIndexExt;
use lance_index::optimize::OptimizeOptions;
use lance_index::vector::hnsw::builder::HnswBuildParams;
use lance_index::vector::ivf::IvfBuildParams;
use lance_index::vector::sq::builder::SQBuildParams;
use lance_index::IndexType;
use lance_linalg::distance::MetricType;

use super::DenseError;
use crate::config::DenseConfig;
use crate::store::{Store, EMBEDDING_COLUMN};

/// Name of the vector index.
pub const INDEX_NAME: &str = "embedding_ann";
/// Name of the scalar index on `chunks.analysis_id` (scoped ANN pre-filter).
pub const SCOPE_INDEX_NAME: &str = "analysis_id_bitmap";

/// What [`ensure_ann_index`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnnReport {
    /// Rows in `chunks`.
    pub rows: usize,
    /// A new index was trained and built.
    pub built: bool,
    /// New rows were added to an existing index.
    pub optimized: bool,
    /// Seconds spent.
    pub seconds: f64,
}

/// Whether `ds` has a vector index on the embedding column.
pub async fn has_vector_index(ds: &lance::dataset::Dataset) -> Result<bool, DenseError> {
    let Some(field) = ds.schema().field(EMBEDDING_COLUMN) else {
        return Ok(false);
    };
    let id = field.id;
    let indices = ds.load_indices().await?;
    Ok(indices
        .iter()
        .any(|i| i.name == INDEX_NAME && i.fields.first() == Some(&id)))
}

/// Builds the ANN index when `chunks` has at least `dense.ann_min_rows` vectors and none
/// exists; adds new rows to an existing one. Vectors are compared by inner product (cosine for
/// normalised encoders, the DPR score otherwise).
pub async fn ensure_ann_index(
    store: &mut Store,
    cfg: &DenseConfig,
) -> Result<AnnReport, DenseError> {
    let Some(meta) = store.embedding_meta() else {
        return Ok(AnnReport::default());
    };
    let started = Instant::now();
    let rows = store.chunks().count_rows(None).await?;
    let mut report = AnnReport {
        rows,
        ..Default::default()
    };
    let exists = has_vector_index(store.chunks()).await?;
    if !exists && rows < cfg.ann_min_rows.max(256) {
        return Ok(report);
    }
    let ds = store.chunks_mut()?;
    if exists {
        ds.optimize_indices(&OptimizeOptions::append()).await?;
        report.optimized = true;
    } else {
        let partitions = if cfg.ivf_partitions > 0 {
            cfg.ivf_partitions
        } else {
            ((rows as f64).sqrt() as usize).clamp(1, 4096)
        };
        let params = match cfg.ann_index.as_str() {
            "ivf_hnsw_sq" => VectorIndexParams::with_ivf_hnsw_sq_params(
                MetricType::Dot,
                IvfBuildParams::new(partitions),
                HnswBuildParams::default(),
                SQBuildParams::default(),
            ),
            _ => {
                let sub = if cfg.pq_sub_vectors > 0 {
                    cfg.pq_sub_vectors
                } else {
                    (meta.dim / 8).max(1)
                };
                VectorIndexParams::ivf_pq(partitions, 8, sub, MetricType::Dot, 50)
            }
        };
        tracing::info!(rows, partitions, index = %cfg.ann_index, "building the vector index");
        ds.create_index(
            &[EMBEDDING_COLUMN],
            IndexType::Vector,
            Some(INDEX_NAME.to_string()),
            &params,
            true,
        )
        .await?;
        report.built = true;
    }
    // Scoped ANN search pre-filters on analysis_id: a bitmap index answers the filter
    // (few distinct values, many rows each). Appended rows are added by optimize_indices.
    let ds = store.chunks_mut()?;
    let indexed = ds
        .load_indices()
        .await?
        .iter()
        .any(|i| i.name == SCOPE_INDEX_NAME);
    if !indexed {
        ds.create_index(
            &["analysis_id"],
            IndexType::Bitmap,
            Some(SCOPE_INDEX_NAME.to_string()),
            &lance_index::scalar::ScalarIndexParams::for_builtin(
                lance_index::scalar::BuiltinIndexType::Bitmap,
            ),
            true,
        )
        .await?;
    }
    store.mark_clean()?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}
