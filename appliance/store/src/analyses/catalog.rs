//! The live analyses catalog: a snapshot per `analyses` version, visibility, and tier-1 ranking.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use datafusion::catalog::Session;
use lance::dataset::Dataset;

use super::rows::{read_dataset, Analysis, TABLE_DIR};
use super::session::SessionAccess;
use super::{AnalysesError, Principal, Status};
use crate::analyzer::{AnalyzerOptions, Stream};
use crate::dense::Worker;
use crate::index::{Bm25Index, Bm25Params};
use crate::store::EmbeddingMeta;
use crate::visibility::Visibility;

/// One tier-1 result.
#[derive(Debug, Clone, PartialEq)]
pub struct Tier1Hit {
    /// Analysis id.
    pub analysis_id: String,
    /// Title.
    pub title: String,
    /// Status.
    pub status: Status,
    /// Fused score: w_dense·rrf(dense rank) + w_sparse·rrf(BM25 rank).
    pub score: f64,
}

/// The analyses of one table version, with their tier-1 indexes.
pub struct CatalogSnapshot {
    /// Lance version of `analyses` (0: no table yet).
    pub version: u64,
    /// Analyses by id order.
    pub rows: Vec<Analysis>,
    by_id: HashMap<String, usize>,
    /// BM25 over title + abstract (in memory).
    index: Bm25Index,
    /// Model of the abstract vectors, if the import had an encoder.
    pub meta: Option<EmbeddingMeta>,
    /// Abstract vectors of `vector_rows`, row-major.
    matrix: Vec<f32>,
    vector_rows: Vec<usize>,
}

impl std::fmt::Debug for CatalogSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogSnapshot")
            .field("version", &self.version)
            .field("rows", &self.rows.len())
            .finish()
    }
}

impl CatalogSnapshot {
    fn build(
        version: u64,
        rows: Vec<Analysis>,
        meta: Option<EmbeddingMeta>,
        opts: (AnalyzerOptions, Bm25Params),
    ) -> Result<Self, AnalysesError> {
        let mut index = Bm25Index::in_ram(opts.0, opts.1)?;
        let mut matrix = Vec::new();
        let mut vector_rows = Vec::new();
        for (i, a) in rows.iter().enumerate() {
            index.add_chunk(&a.id, &a.id, Some(&a.id), &a.search_text())?;
            if let (Some(v), Some(m)) = (&a.embedding, &meta) {
                if v.len() == m.dim {
                    matrix.extend_from_slice(v);
                    vector_rows.push(i);
                }
            }
        }
        index.commit(version)?;
        let by_id = rows
            .iter()
            .enumerate()
            .map(|(i, a)| (a.id.clone(), i))
            .collect();
        Ok(Self {
            version,
            rows,
            by_id,
            index,
            meta,
            matrix,
            vector_rows,
        })
    }

    /// The analysis with this id.
    pub fn get(&self, id: &str) -> Option<&Analysis> {
        self.by_id.get(id).map(|&i| &self.rows[i])
    }

    /// Ids of the analyses `p` may read (`None` for the operator: all, including documents of
    /// analyses that no longer exist).
    pub fn readable_by(&self, p: &Principal) -> Option<Arc<HashSet<String>>> {
        if p.is_operator() {
            return None;
        }
        Some(Arc::new(
            self.rows
                .iter()
                .filter(|a| p.may_read(a.status, &a.groups))
                .map(|a| a.id.clone())
                .collect(),
        ))
    }

    /// Checks a scope against what `readable` allows: an id that does not exist and one that
    /// may not be read give the same error.
    pub fn check_scope(
        &self,
        scope: &[String],
        readable: Option<&HashSet<String>>,
    ) -> Result<(), AnalysesError> {
        for id in scope {
            let ok = self.by_id.contains_key(id) && readable.is_none_or(|r| r.contains(id));
            if !ok {
                return Err(AnalysesError::Unknown(id.clone()));
            }
        }
        Ok(())
    }

    /// Tier 1: readable analyses ranked by weighted RRF of BM25 over title + abstract and the
    /// query vector's inner product with abstract vectors (when both exist), best first.
    pub fn rank(
        &self,
        terms: &[(Stream, String)],
        query_vector: Option<&[f32]>,
        readable: Option<&HashSet<String>>,
        weights: (f64, f64, f64),
        k: usize,
    ) -> Result<Vec<Tier1Hit>, AnalysesError> {
        let may = |id: &str| readable.is_none_or(|r| r.contains(id));
        let depth = self.rows.len().max(1);
        let sparse: Vec<String> = if terms.is_empty() {
            Vec::new()
        } else {
            self.index
                .search_scoped(
                    terms,
                    depth,
                    &|a| a.is_some_and(may),
                    Some(&|a| a.is_some_and(may)),
                )?
                .into_iter()
                .map(|h| h.chunk_id)
                .collect()
        };
        let dense: Vec<String> = match (query_vector, &self.meta) {
            (Some(q), Some(m)) if q.len() == m.dim && !self.vector_rows.is_empty() => {
                mitra_embed::top_k_where(&self.matrix, m.dim, q, depth, |r| {
                    may(&self.rows[self.vector_rows[r]].id)
                })
                .into_iter()
                .map(|h| self.rows[self.vector_rows[h.row as usize]].id.clone())
                .collect()
            }
            _ => Vec::new(),
        };
        let (w_dense, w_sparse, rrf_k) = weights;
        Ok(crate::fusion::weighted_rrf(
            dense.iter().map(String::as_str),
            sparse.iter().map(String::as_str),
            w_dense,
            w_sparse,
            rrf_k,
        )
        .into_iter()
        .filter(|f| f.score > 0.0)
        .take(k)
        .filter_map(|f| {
            let a = self.get(f.id)?;
            Some(Tier1Hit {
                analysis_id: a.id.clone(),
                title: a.title.clone(),
                status: a.status,
                score: f.score,
            })
        })
        .collect())
    }
}

#[derive(Default)]
struct State {
    ds: Option<Dataset>,
    snap: Option<Arc<CatalogSnapshot>>,
    /// When the table's latest version was last looked up.
    checked: Option<std::time::Instant>,
}

/// How long a snapshot is used before the table's latest version is looked up again: a new
/// import (a status or group change included) is seen within this time.
const RECHECK: std::time::Duration = std::time::Duration::from_millis(500);

/// The `analyses` table of a data directory as the server sees it: reloaded when a new
/// version is committed (by `mitra analyses import` in another process).
#[derive(Clone)]
pub struct AnalysisCatalog {
    path: PathBuf,
    opts: (AnalyzerOptions, Bm25Params),
    worker: Worker,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for AnalysisCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisCatalog")
            .field("path", &self.path)
            .finish()
    }
}

impl AnalysisCatalog {
    /// The catalog of `data_dir`, with tier-1 BM25 using the store's analyzer options.
    pub fn new(
        data_dir: &Path,
        analyzer: AnalyzerOptions,
        params: Bm25Params,
    ) -> Result<Self, AnalysesError> {
        Ok(Self {
            path: data_dir.join(TABLE_DIR),
            opts: (analyzer, params),
            worker: Worker::spawn("mitra-analyses")?,
            state: Arc::new(Mutex::new(State::default())),
        })
    }

    async fn refresh(&self) -> Result<Arc<CatalogSnapshot>, AnalysesError> {
        let (ds, snap) = {
            let st = self.state.lock().expect("catalog lock");
            if let (Some(s), Some(t)) = (&st.snap, st.checked) {
                if t.elapsed() < RECHECK {
                    return Ok(s.clone());
                }
            }
            (st.ds.clone(), st.snap.clone())
        };
        let ds = match ds {
            Some(d) => Some(d),
            None if self.path.join("_versions").exists() => {
                Some(Dataset::open(&self.path.to_string_lossy()).await?)
            }
            None => None,
        };
        let Some(mut ds) = ds else {
            if let Some(s) = snap {
                return Ok(s);
            }
            let s = Arc::new(CatalogSnapshot::build(0, Vec::new(), None, self.opts)?);
            self.state.lock().expect("catalog lock").snap = Some(s.clone());
            return Ok(s);
        };
        let latest = ds.latest_version_id().await?;
        if latest != ds.version().version {
            ds.checkout_latest().await?;
        }
        if let Some(s) = snap.filter(|s| s.version == ds.version().version) {
            let mut st = self.state.lock().expect("catalog lock");
            st.ds = Some(ds);
            st.checked = Some(std::time::Instant::now());
            return Ok(s);
        }
        let (rows, meta) = read_dataset(&ds).await?;
        let s = Arc::new(CatalogSnapshot::build(
            ds.version().version,
            rows,
            meta,
            self.opts,
        )?);
        tracing::debug!(
            version = s.version,
            analyses = s.rows.len(),
            "analyses catalog loaded"
        );
        let mut st = self.state.lock().expect("catalog lock");
        st.ds = Some(ds);
        st.snap = Some(s.clone());
        st.checked = Some(std::time::Instant::now());
        Ok(s)
    }

    /// The current snapshot, blocking the caller (planning-time table functions).
    pub fn snapshot_blocking(&self) -> Result<Arc<CatalogSnapshot>, AnalysesError> {
        let me = self.clone();
        self.worker.call(move |rt| rt.block_on(me.refresh()))?
    }

    /// The current snapshot (async callers: table scans).
    pub async fn snapshot(&self) -> Result<Arc<CatalogSnapshot>, AnalysesError> {
        let me = self.clone();
        self.worker
            .call_async(move |rt| rt.block_on(me.refresh()))
            .await?
    }

    /// What a retrieval call of `session` may see: the user's readable analyses and the
    /// session scope, or `scope_override` (`Some(None)`: unscoped for this call).
    pub fn visibility(
        &self,
        session: &dyn Session,
        scope_override: Option<Option<Vec<String>>>,
    ) -> Result<Visibility, AnalysesError> {
        let scope = match scope_override {
            Some(s) => s,
            None => session
                .config()
                .get_extension::<SessionAccess>()
                .and_then(|a| a.scope()),
        };
        let principal = SessionAccess::principal_of(session.config());
        if principal.is_operator() && scope.is_none() {
            return Ok(Visibility::all());
        }
        let snap = self.snapshot_blocking()?;
        let readable = snap.readable_by(&principal);
        if let Some(s) = &scope {
            snap.check_scope(s, readable.as_deref())?;
        }
        Ok(Visibility { readable, scope })
    }

    /// Checks that every id of `scope` exists and that `principal` may read it (the same
    /// error for both).
    pub async fn check_scope(
        &self,
        principal: &Principal,
        scope: &[String],
    ) -> Result<(), AnalysesError> {
        let snap = self.snapshot().await?;
        let readable = snap.readable_by(principal);
        snap.check_scope(scope, readable.as_deref())
    }

    /// The readable analyses of a session's user, for table scans (`None`: all).
    pub async fn readable(
        &self,
        session: &dyn Session,
    ) -> Result<Option<Arc<HashSet<String>>>, AnalysesError> {
        let principal = SessionAccess::principal_of(session.config());
        if principal.is_operator() {
            return Ok(None);
        }
        Ok(self.snapshot().await?.readable_by(&principal))
    }
}
