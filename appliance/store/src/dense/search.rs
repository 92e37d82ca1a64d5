//! Vector search over `chunks.embedding`: an exact in-memory scan, or the Lance ANN index when one exists.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::{Array, FixedSizeListArray, Float32Array, RecordBatch};
use futures::TryStreamExt;
use lance::dataset::Dataset;

use super::{has_vector_index, DenseError, Embedder};
use crate::config::DenseConfig;
use crate::store::{embedding_meta_of, str_col, EMBEDDING_COLUMN};
use crate::visibility::Visibility;

const NO_ANALYSIS: u32 = u32::MAX;

/// One dense result.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseHit {
    /// Chunk id.
    pub chunk_id: String,
    /// Document id.
    pub doc_id: String,
    /// Inner product of query and chunk vectors (cosine for normalised encoders).
    pub score: f32,
}

/// The vectors of one `chunks` version, held for exact search (no ANN index).
struct Snapshot {
    version: u64,
    ann: bool,
    ids: Vec<(String, String)>,
    /// Per row: index into `analysis_names`, [`NO_ANALYSIS`] for chunks without one.
    analysis: Vec<u32>,
    analysis_names: Vec<String>,
    matrix: Vec<f32>,
    dim: usize,
}

#[derive(Default)]
struct State {
    ds: Option<Dataset>,
    snap: Option<Arc<Snapshot>>,
}

/// Dense search over the `chunks` table of a data directory; follows new commits.
#[derive(Clone)]
pub struct VectorSearch {
    embedder: Arc<Embedder>,
    chunks_path: PathBuf,
    cfg: DenseConfig,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for VectorSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorSearch")
            .field("chunks", &self.chunks_path)
            .finish()
    }
}

fn vectors(batch: &RecordBatch, i: usize) -> (&FixedSizeListArray, &Float32Array) {
    let list = batch
        .column(i)
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .expect("embedding is a fixed-size list");
    let values = list
        .values()
        .as_any()
        .downcast_ref::<Float32Array>()
        .expect("embedding values are float32");
    (list, values)
}

impl VectorSearch {
    /// Search over `data_dir/chunks.lance` with `embedder` for queries.
    pub fn new(embedder: Arc<Embedder>, data_dir: &std::path::Path, cfg: DenseConfig) -> Self {
        Self {
            embedder,
            chunks_path: data_dir.join("chunks.lance"),
            cfg,
            state: Arc::new(Mutex::new(State::default())),
        }
    }

    /// The embedder.
    pub fn embedder(&self) -> &Arc<Embedder> {
        &self.embedder
    }

    /// Embeds `query` and returns the `k` nearest chunks, best first (blocks the caller; the work
    /// runs on the encoder worker thread).
    pub fn search_blocking(&self, query: &str, k: usize) -> Result<Vec<DenseHit>, DenseError> {
        self.search_visible_blocking(query, k, &Visibility::all())
    }

    /// As [`VectorSearch::search_blocking`], among the chunks `vis` allows (a pre-filter).
    pub fn search_visible_blocking(
        &self,
        query: &str,
        k: usize,
        vis: &Visibility,
    ) -> Result<Vec<DenseHit>, DenseError> {
        let v = self.embedder.embed_query_blocking(query)?;
        self.search_vector_visible_blocking(v, k, vis)
    }

    /// The `k` chunks nearest to a query vector, best first.
    pub fn search_vector_blocking(
        &self,
        query: Vec<f32>,
        k: usize,
    ) -> Result<Vec<DenseHit>, DenseError> {
        self.search_vector_visible_blocking(query, k, &Visibility::all())
    }

    /// The `k` chunks nearest to a query vector among those `vis` allows, best first.
    pub fn search_vector_visible_blocking(
        &self,
        query: Vec<f32>,
        k: usize,
        vis: &Visibility,
    ) -> Result<Vec<DenseHit>, DenseError> {
        let me = self.clone();
        let vis = vis.clone();
        self.embedder
            .worker()
            .call(move |rt| rt.block_on(me.search_on_worker(query, k, &vis)))?
    }

    async fn refresh(&self) -> Result<(Dataset, Arc<Snapshot>), DenseError> {
        let (mut ds, snap) = {
            let st = self.state.lock().expect("state lock");
            (st.ds.clone(), st.snap.clone())
        };
        let mut ds = match ds.take() {
            Some(d) => d,
            None => Dataset::open(&self.chunks_path.to_string_lossy()).await?,
        };
        let latest = ds.latest_version_id().await?;
        if latest != ds.version().version {
            ds.checkout_latest().await?;
        }
        if let Some(s) = snap.filter(|s| s.version == ds.version().version) {
            return Ok((ds, s));
        }
        let Some(meta) = embedding_meta_of(&ds) else {
            return Err(DenseError::NoEmbeddings);
        };
        self.embedder.check_store(Some(&meta))?;
        let ann = has_vector_index(&ds).await?;
        let mut ids = Vec::new();
        let mut analysis = Vec::new();
        let mut analysis_names: Vec<String> = Vec::new();
        let mut name_ord: std::collections::HashMap<String, u32> = Default::default();
        let mut matrix = Vec::new();
        let mut skipped = 0usize;
        if !ann {
            let mut scan = ds.scan();
            scan.project(&["chunk_id", "doc_id", EMBEDDING_COLUMN, "analysis_id"])?;
            let mut stream = scan.try_into_stream().await?;
            while let Some(batch) = stream.try_next().await? {
                let (c, d) = (str_col(&batch, 0), str_col(&batch, 1));
                let (list, values) = vectors(&batch, 2);
                let an = str_col(&batch, 3);
                for r in 0..batch.num_rows() {
                    if list.is_null(r) {
                        skipped += 1;
                        continue;
                    }
                    let off = list.value_offset(r) as usize;
                    ids.push((c.value(r).to_string(), d.value(r).to_string()));
                    analysis.push(if an.is_null(r) {
                        NO_ANALYSIS
                    } else {
                        let name = an.value(r);
                        match name_ord.get(name) {
                            Some(&o) => o,
                            None => {
                                let o = analysis_names.len() as u32;
                                analysis_names.push(name.to_string());
                                name_ord.insert(name.to_string(), o);
                                o
                            }
                        }
                    });
                    matrix.extend_from_slice(&values.values()[off..off + meta.dim]);
                }
            }
            // Rows in chunk-id order: equal scores rank the smaller chunk id first.
            let mut order: Vec<usize> = (0..ids.len()).collect();
            order.sort_by(|&a, &b| ids[a].0.cmp(&ids[b].0));
            let mut sorted_m = Vec::with_capacity(matrix.len());
            let mut sorted_ids = Vec::with_capacity(ids.len());
            let mut sorted_an = Vec::with_capacity(ids.len());
            for &i in &order {
                sorted_m.extend_from_slice(&matrix[i * meta.dim..(i + 1) * meta.dim]);
                sorted_ids.push(std::mem::take(&mut ids[i]));
                sorted_an.push(analysis[i]);
            }
            ids = sorted_ids;
            matrix = sorted_m;
            analysis = sorted_an;
        }
        if skipped > 0 {
            tracing::warn!(
                skipped,
                "chunks without a vector are not searchable densely; run `mitra embed --rebuild`"
            );
        }
        let snap = Arc::new(Snapshot {
            version: ds.version().version,
            ann,
            ids,
            analysis,
            analysis_names,
            matrix,
            dim: meta.dim,
        });
        let mut st = self.state.lock().expect("state lock");
        st.ds = Some(ds.clone());
        st.snap = Some(snap.clone());
        Ok((ds, snap))
    }

    async fn search_on_worker(
        &self,
        query: Vec<f32>,
        k: usize,
        vis: &Visibility,
    ) -> Result<Vec<DenseHit>, DenseError> {
        let (ds, snap) = self.refresh().await?;
        if query.len() != snap.dim {
            return Err(DenseError::Unavailable(format!(
                "query vector has {} values; the chunks table stores {}",
                query.len(),
                snap.dim
            )));
        }
        if query.iter().any(|x| !x.is_finite()) {
            return Err(DenseError::Unavailable(
                "query vector has NaN or infinite values".into(),
            ));
        }
        if !snap.ann {
            let hits = if vis.is_unrestricted() {
                mitra_embed::top_k(&snap.matrix, snap.dim, &query, k)
            } else {
                let names: Vec<bool> = snap
                    .analysis_names
                    .iter()
                    .map(|a| vis.allows(Some(a)))
                    .collect();
                let none = vis.allows(None);
                mitra_embed::top_k_where(&snap.matrix, snap.dim, &query, k, |r| {
                    match snap.analysis[r] {
                        NO_ANALYSIS => none,
                        o => names[o as usize],
                    }
                })
            };
            return Ok(hits
                .into_iter()
                .map(|h| {
                    let (c, d) = &snap.ids[h.row as usize];
                    DenseHit {
                        chunk_id: c.clone(),
                        doc_id: d.clone(),
                        score: h.score,
                    }
                })
                .collect());
        }
        let q = Float32Array::from(query);
        let mut scan = ds.scan();
        scan.nearest(EMBEDDING_COLUMN, &q, k)?;
        let predicate = vis.lance_predicate();
        if let Some(pred) = &predicate {
            // A pre-filter (served by the scalar index on analysis_id): k rows of the scope.
            scan.filter(pred)?;
            scan.prefilter(true);
        }
        scan.distance_metric(lance_linalg::distance::MetricType::Dot);
        if predicate.is_some() {
            // Scoped: probe further partitions until k rows of the scope are found.
            scan.minimum_nprobes(self.cfg.nprobes);
        } else {
            scan.nprobes(self.cfg.nprobes);
        }
        if self.cfg.refine_factor > 0 {
            scan.refine(self.cfg.refine_factor);
        }
        scan.project(&["chunk_id", "doc_id"])?;
        let batches: Vec<RecordBatch> = scan.try_into_stream().await?.try_collect().await?;
        let mut hits = Vec::with_capacity(k);
        for b in &batches {
            let (c, d) = (str_col(b, 0), str_col(b, 1));
            let dist = b
                .column_by_name("_distance")
                .and_then(|a| a.as_any().downcast_ref::<Float32Array>())
                .ok_or_else(|| {
                    DenseError::Unavailable("vector search returned no distances".into())
                })?;
            for r in 0..b.num_rows() {
                let score = 1.0 - dist.value(r);
                if score.is_nan() {
                    continue;
                }
                hits.push(DenseHit {
                    chunk_id: c.value(r).to_string(),
                    doc_id: d.value(r).to_string(),
                    score,
                });
            }
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.chunk_id.cmp(&b.chunk_id))
        });
        hits.truncate(k);
        Ok(hits)
    }
}
