//! Lance storage: the `documents` and `chunks` tables, their commit protocol and crash repair.
//!
//! Commit protocol for a batch of documents (each step is one atomic Lance commit):
//! 1. append the new chunks, 2. append the document rows, 3. delete chunks of superseded versions.
//!
//! A document is committed once its `documents` row exists. On open, [`Store::repair`] deletes
//! chunks without a committed document (crash after step 1) and chunks of superseded versions
//! (crash after step 2), so every committed document is intact and nothing uncommitted is visible.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchIterator};
use futures::TryStreamExt;
use lance::dataset::{Dataset, WriteMode, WriteParams};

mod error;
pub mod faults;
mod recover;
mod rows;
mod vectors;

pub use error::{Result, StoreError};

pub use rows::*;
use rows::{chunks_batch, documents_batch, in_table_order, runs_batch};
pub use vectors::*;

use crate::schema::{TableDef, CHUNKS, DOCUMENTS, INGEST_RUNS};

/// The versions of the `chunks` and `documents` tables something was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableVersions {
    /// `chunks`.
    pub chunks: u64,
    /// `documents`.
    pub documents: u64,
}

/// What a repair removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RepairReport {
    /// Chunks whose document row was never committed.
    pub orphan_chunks: usize,
    /// Chunks of superseded document versions.
    pub superseded_chunks: usize,
}

/// Row counts and versions of the tables.
#[derive(Debug, Clone)]
pub struct TableStatus {
    /// Table name.
    pub name: String,
    /// Live rows.
    pub rows: usize,
    /// Current Lance version.
    pub version: u64,
    /// Number of Lance versions kept (time travel).
    pub versions: usize,
    /// Number of data fragments.
    pub fragments: usize,
}

/// The Lance tables of one data directory.
pub struct Store {
    root: PathBuf,
    documents: Dataset,
    chunks: Dataset,
    runs: Dataset,
    /// Exclusive lock on `writer.lock`, held by the one process that may write.
    writer_lock: Option<std::fs::File>,
}

fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// An empty table of `def` in memory (a reader's view of a table not created yet).
async fn empty_table(def: &TableDef) -> Result<Dataset> {
    let schema = def.arrow_schema();
    let empty = RecordBatchIterator::new(Vec::<std::result::Result<RecordBatch, _>>::new(), schema);
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let uri = format!("memory://{}-{n}", def.table);
    Ok(Dataset::write(empty, uri.as_str(), None).await?)
}

/// An object-store wrapper every table of a store is opened through (fault injection).
pub type Wrapper = Arc<dyn lance::io::WrappingObjectStore>;

async fn open_or_create(
    path: &Path,
    def: &TableDef,
    wrapper: Option<&Wrapper>,
    writable: bool,
) -> Result<Dataset> {
    // Wrapped, the table goes through object_store itself, where the wrapper sees every write.
    let (uri, store_params) = match wrapper {
        None => (path.to_string_lossy().to_string(), None),
        Some(w) => (
            format!("file-object-store://{}", path.to_string_lossy()),
            Some(lance::io::ObjectStoreParams {
                object_store_wrapper: Some(w.clone()),
                ..Default::default()
            }),
        ),
    };
    if path.join("_versions").exists() {
        let ds = recover::open_table(path, &uri, store_params.as_ref(), writable).await?;
        let schema: arrow_schema::Schema = ds.schema().into();
        def.check(&schema).map_err(StoreError::Schema)?;
        return Ok(ds);
    }
    let schema = def.arrow_schema();
    let empty = RecordBatchIterator::new(Vec::<std::result::Result<RecordBatch, _>>::new(), schema);
    let params = WriteParams {
        mode: WriteMode::Create,
        store_params,
        ..Default::default()
    };
    Ok(Dataset::write(empty, uri.as_str(), Some(params)).await?)
}

impl Store {
    /// Opens the store under `root` for writing: takes the writer lock (failing with
    /// [`StoreError::Busy`] if another process holds it), creates missing tables, repairs.
    pub async fn open(root: &Path) -> Result<Self> {
        let (store, _) = Self::open_with_report(root).await?;
        Ok(store)
    }

    /// As [`Store::open`], also returning what the repair removed.
    pub async fn open_with_report(root: &Path) -> Result<(Self, RepairReport)> {
        let lock = Self::try_lock(root)?.ok_or_else(|| StoreError::Busy(root.to_path_buf()))?;
        Self::open_locked(root, Some(lock), None).await
    }

    /// As [`Store::open`], every table reached through `wrapper` (see [`faults`]).
    pub async fn open_wrapped(root: &Path, wrapper: Wrapper) -> Result<Self> {
        let lock = Self::try_lock(root)?.ok_or_else(|| StoreError::Busy(root.to_path_buf()))?;
        Ok(Self::open_locked(root, Some(lock), Some(&wrapper)).await?.0)
    }

    /// Opens the store for reading. When no writer is active it repairs first (and releases the
    /// lock); while a writer is active its in-flight commit is left alone.
    pub async fn open_reader(root: &Path) -> Result<(Self, bool)> {
        match Self::try_lock(root)? {
            Some(lock) => {
                let (mut store, _) = Self::open_locked(root, Some(lock), None).await?;
                store.writer_lock = None;
                Ok((store, false))
            }
            None => {
                let (store, _) = Self::open_locked(root, None, None).await?;
                Ok((store, true))
            }
        }
    }

    /// The writer lock, or `None` when another process holds it.
    fn try_lock(root: &Path) -> Result<Option<std::fs::File>> {
        let io = |source| StoreError::Io {
            path: root.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(root).map_err(io)?;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(root.join("writer.lock"))
            .map_err(io)?;
        match f.try_lock() {
            Ok(()) => Ok(Some(f)),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
        }
    }

    async fn open_locked(
        root: &Path,
        lock: Option<std::fs::File>,
        wrapper: Option<&Wrapper>,
    ) -> Result<(Self, RepairReport)> {
        let writable = lock.is_some();
        let documents =
            open_or_create(&root.join("documents.lance"), &DOCUMENTS, wrapper, writable).await?;
        let chunks = open_or_create(&root.join("chunks.lance"), &CHUNKS, wrapper, writable).await?;
        let runs_path = root.join("ingest_runs.lance");
        let runs = if writable || runs_path.join("_versions").exists() {
            open_or_create(&runs_path, &INGEST_RUNS, wrapper, writable).await?
        } else {
            // A reader of a store that never had a plugin run: an empty in-memory table.
            empty_table(&INGEST_RUNS).await?
        };
        let mut store = Store {
            root: root.to_path_buf(),
            documents,
            chunks,
            runs,
            writer_lock: lock,
        };
        if !writable {
            return Ok((store, RepairReport::default()));
        }
        store.evolve().await?;
        // A clean marker naming the current versions means the last commit completed: skip the
        // O(rows) repair scan. Any interrupted commit has moved a version past the marker.
        if store.read_clean_marker() == Some(store.versions()) {
            return Ok((store, RepairReport::default()));
        }
        let report = store.repair().await?;
        if report != RepairReport::default() {
            tracing::warn!(?report, "repaired store after an interrupted commit");
        }
        store.write_clean_marker()?;
        Ok((store, report))
    }

    /// Adds evolved columns that an older store lacks (all NULL), one Lance commit each table.
    async fn evolve(&mut self) -> Result<()> {
        use lance::dataset::NewColumnTransform;
        let mut evolved = false;
        for (def, ds) in [
            (&*DOCUMENTS, &mut self.documents),
            (&*CHUNKS, &mut self.chunks),
        ] {
            let schema: arrow_schema::Schema = ds.schema().into();
            let missing = def.missing_evolved(&schema);
            if missing.is_empty() {
                continue;
            }
            let names: Vec<String> = missing.iter().map(|f| f.name().clone()).collect();
            tracing::info!(table = %def.table, columns = ?names, "adding new columns (schema evolution)");
            ds.add_columns(
                NewColumnTransform::AllNulls(Arc::new(arrow_schema::Schema::new(missing))),
                None,
                None,
            )
            .await?;
            evolved = true;
        }
        if evolved {
            self.write_clean_marker()?;
        }
        Ok(())
    }

    fn versions(&self) -> (u64, u64) {
        (
            self.documents.version().version,
            self.chunks.version().version,
        )
    }

    fn marker_path(&self) -> PathBuf {
        self.root.join("clean-commit.json")
    }

    fn read_clean_marker(&self) -> Option<(u64, u64)> {
        let text = std::fs::read_to_string(self.marker_path()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Records that the current versions are the result of complete commits (atomic rename).
    fn write_clean_marker(&self) -> Result<()> {
        let tmp = self.root.join("clean-commit.json.tmp");
        let io = |source| StoreError::Io {
            path: tmp.clone(),
            source,
        };
        std::fs::write(
            &tmp,
            serde_json::to_string(&self.versions()).expect("tuple serialises"),
        )
        .map_err(io)?;
        std::fs::rename(&tmp, self.marker_path()).map_err(io)
    }

    /// The current `chunks` dataset.
    pub fn chunks(&self) -> &Dataset {
        &self.chunks
    }

    /// The current `documents` dataset.
    pub fn documents(&self) -> &Dataset {
        &self.documents
    }

    /// Current Lance version of the `chunks` table (what the BM25 index records).
    pub fn chunks_version(&self) -> u64 {
        self.chunks.version().version
    }

    /// The newest version of every document, tombstones included.
    pub async fn live_document_rows(&self) -> Result<HashMap<String, LiveDoc>> {
        let mut out: HashMap<String, LiveDoc> = HashMap::new();
        let schema: arrow_schema::Schema = self.documents.schema().into();
        let evolved = schema.field_with_name("deleted_at").is_ok();
        let mut cols = vec!["doc_id", "version", "content_sha256", "analysis_id"];
        if evolved {
            cols.extend(["source", "deleted_at"]);
        }
        let mut scan = self.documents.scan();
        scan.project(&cols)?;
        let mut stream = scan.try_into_stream().await?;
        while let Some(batch) = stream.try_next().await? {
            let ids = str_col(&batch, 0);
            let vers = i32_col(&batch, 1);
            let shas = str_col(&batch, 2);
            for i in 0..batch.num_rows() {
                let v = vers.value(i);
                if out.get(ids.value(i)).is_some_and(|d| d.version >= v) {
                    continue;
                }
                let (source, deleted) = if evolved {
                    let src = str_col(&batch, 4);
                    (
                        (!arrow_array::Array::is_null(src, i)).then(|| src.value(i).to_string()),
                        !batch.column(5).is_null(i),
                    )
                } else {
                    (None, false)
                };
                let analyses = str_col(&batch, 3);
                let analysis_id = (!arrow_array::Array::is_null(analyses, i))
                    .then(|| analyses.value(i).to_string());
                out.insert(
                    ids.value(i).to_string(),
                    LiveDoc {
                        version: v,
                        sha256: shas.value(i).to_string(),
                        source,
                        deleted,
                        analysis_id,
                    },
                );
            }
        }
        Ok(out)
    }

    /// Appends one `ingest_runs` row.
    pub async fn append_run(&mut self, row: &RunRow) -> Result<()> {
        if self.writer_lock.is_none() {
            return Err(StoreError::ReadOnly);
        }
        let batch = runs_batch(row)?;
        let schema = batch.schema();
        self.runs
            .append(RecordBatchIterator::new(vec![Ok(batch)], schema), None)
            .await?;
        Ok(())
    }

    /// The current `ingest_runs` dataset.
    pub fn runs(&self) -> &Dataset {
        &self.runs
    }

    /// Latest committed version and content hash of every document ("" for a tombstone).
    pub async fn live_documents(&self) -> Result<HashMap<String, (i32, String)>> {
        Ok(self
            .live_document_rows()
            .await?
            .into_iter()
            .map(|(id, d)| (id, (d.version, d.sha256)))
            .collect())
    }

    /// Deletes chunks that belong to no committed document or to a superseded version.
    pub async fn repair(&mut self) -> Result<RepairReport> {
        if self.writer_lock.is_none() {
            return Err(StoreError::ReadOnly);
        }
        let mut committed: HashSet<(String, i32)> = HashSet::new();
        let mut live: HashMap<String, i32> = HashMap::new();
        let mut scan = self.documents.scan();
        scan.project(&["doc_id", "version"])?;
        let mut stream = scan.try_into_stream().await?;
        while let Some(batch) = stream.try_next().await? {
            let ids = str_col(&batch, 0);
            let vers = i32_col(&batch, 1);
            for i in 0..batch.num_rows() {
                let (d, v) = (ids.value(i).to_string(), vers.value(i));
                let e = live.entry(d.clone()).or_insert(v);
                *e = (*e).max(v);
                committed.insert((d, v));
            }
        }
        let mut pairs: HashMap<(String, i32), usize> = HashMap::new();
        let mut scan = self.chunks.scan();
        scan.project(&["doc_id", "version"])?;
        let mut stream = scan.try_into_stream().await?;
        while let Some(batch) = stream.try_next().await? {
            let ids = str_col(&batch, 0);
            let vers = i32_col(&batch, 1);
            for i in 0..batch.num_rows() {
                *pairs
                    .entry((ids.value(i).to_string(), vers.value(i)))
                    .or_default() += 1;
            }
        }
        let mut report = RepairReport::default();
        let mut bad = Vec::new();
        for ((d, v), n) in pairs {
            if !committed.contains(&(d.clone(), v)) {
                report.orphan_chunks += n;
                bad.push((d, v));
            } else if live.get(&d).is_some_and(|&lv| lv > v) {
                report.superseded_chunks += n;
                bad.push((d, v));
            }
        }
        bad.sort();
        self.delete_chunk_versions(&bad).await?;
        Ok(report)
    }

    async fn delete_chunk_versions(&mut self, pairs: &[(String, i32)]) -> Result<()> {
        for group in pairs.chunks(256) {
            let pred = group
                .iter()
                .map(|(d, v)| format!("(doc_id = {} AND version = {v})", sql_str(d)))
                .collect::<Vec<_>>()
                .join(" OR ");
            self.chunks.delete(&pred).await?;
        }
        Ok(())
    }

    /// Commits a batch of document versions (see the module docs for the protocol).
    /// Returns the `chunks` table version after the commit.
    pub async fn commit(&mut self, docs: &[NewDocument]) -> Result<u64> {
        if self.writer_lock.is_none() {
            return Err(StoreError::ReadOnly);
        }
        if docs.is_empty() {
            return Ok(self.chunks_version());
        }
        let chunk_rows: Vec<&ChunkRow> = docs.iter().flat_map(|d| d.chunks.iter()).collect();
        if !chunk_rows.is_empty() {
            let batch = chunks_batch(&chunk_rows, self.embedding_meta().map(|m| m.dim))?;
            // Columns added by schema evolution sit after the embedding in older stores.
            let table: arrow_schema::Schema = self.chunks.schema().into();
            let batch = in_table_order(batch, &table)?;
            let schema = batch.schema();
            self.chunks
                .append(RecordBatchIterator::new(vec![Ok(batch)], schema), None)
                .await?;
        }
        let doc_rows: Vec<&DocumentRow> = docs.iter().map(|d| &d.doc).collect();
        let batch = documents_batch(&doc_rows)?;
        let schema = batch.schema();
        self.documents
            .append(RecordBatchIterator::new(vec![Ok(batch)], schema), None)
            .await?;
        let superseded: Vec<&NewDocument> = docs.iter().filter(|d| d.doc.version > 1).collect();
        for group in superseded.chunks(256) {
            let pred = group
                .iter()
                .map(|d| {
                    format!(
                        "(doc_id = {} AND version < {})",
                        sql_str(&d.doc.doc_id),
                        d.doc.version
                    )
                })
                .collect::<Vec<_>>()
                .join(" OR ");
            self.chunks.delete(&pred).await?;
        }
        self.write_clean_marker()?;
        Ok(self.chunks_version())
    }

    /// Compacts small fragments left by many small commits in tables with more than
    /// `min_fragments` fragments (keeps old versions for time travel).
    pub async fn compact(&mut self, min_fragments: usize) -> Result<()> {
        if self.writer_lock.is_none() {
            return Err(StoreError::ReadOnly);
        }
        use lance::dataset::optimize::{compact_files, CompactionOptions};
        for ds in [&mut self.documents, &mut self.chunks, &mut self.runs] {
            if ds.get_fragments().len() > min_fragments {
                compact_files(ds, CompactionOptions::default(), None).await?;
            }
        }
        self.write_clean_marker()
    }

    /// The model and size of the `chunks` vector column, if the table has one.
    pub fn embedding_meta(&self) -> Option<EmbeddingMeta> {
        embedding_meta_of(&self.chunks)
    }

    /// Adds the vector column to `chunks` (Lance schema evolution) and records `meta` with the
    /// table. `fill` computes vectors for existing rows from their text; without it (empty
    /// table) the column starts all NULL.
    pub async fn add_embedding_column(
        &mut self,
        meta: &EmbeddingMeta,
        fill: Option<EmbedFn>,
    ) -> Result<()> {
        use lance::dataset::{BatchUDF, NewColumnTransform};
        if self.writer_lock.is_none() {
            return Err(StoreError::ReadOnly);
        }
        if let Some(have) = self.embedding_meta() {
            return Err(StoreError::Schema(format!(
                "chunks already has vectors from {} ({}-d)",
                have.model, have.dim
            )));
        }
        let dim = meta.dim;
        let out_schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            EMBEDDING_COLUMN,
            embedding_type(dim),
            true,
        )]));
        let transform = match fill {
            None => NewColumnTransform::AllNulls(out_schema),
            Some(f) => {
                let schema = out_schema.clone();
                NewColumnTransform::BatchUDF(BatchUDF {
                    mapper: Box::new(move |batch: &RecordBatch| {
                        let texts = str_col(batch, 0);
                        let refs: Vec<&str> =
                            (0..batch.num_rows()).map(|i| texts.value(i)).collect();
                        let vecs = f(&refs).map_err(|e| {
                            lance::Error::from(arrow_schema::ArrowError::ComputeError(e))
                        })?;
                        let arr =
                            embedding_array(vecs.into_iter().map(Some), dim).map_err(|e| {
                                lance::Error::from(arrow_schema::ArrowError::ComputeError(
                                    e.to_string(),
                                ))
                            })?;
                        Ok(RecordBatch::try_new(schema.clone(), vec![Arc::new(arr)])?)
                    }),
                    output_schema: out_schema,
                    result_checkpoint: None,
                })
            }
        };
        self.chunks
            .add_columns(transform, Some(vec!["text".to_string()]), Some(256))
            .await?;
        self.chunks
            .update_schema_metadata([
                (META_EMBEDDING_MODEL, meta.model.as_str()),
                (META_EMBEDDING_DIM, dim.to_string().as_str()),
            ])
            .await?;
        self.write_clean_marker()
    }

    /// Drops the vector column and its model record (older versions keep them: time travel).
    pub async fn drop_embedding_column(&mut self) -> Result<()> {
        if self.writer_lock.is_none() {
            return Err(StoreError::ReadOnly);
        }
        if self.embedding_meta().is_some() {
            self.chunks.drop_columns(&[EMBEDDING_COLUMN]).await?;
            self.chunks
                .update_schema_metadata([
                    (META_EMBEDDING_MODEL, None::<&str>),
                    (META_EMBEDDING_DIM, None::<&str>),
                ])
                .await?;
        }
        self.write_clean_marker()
    }

    /// Mutable access to `chunks` for index maintenance (vector indexes); the caller must hold the writer lock.
    pub fn chunks_mut(&mut self) -> Result<&mut Dataset> {
        if self.writer_lock.is_none() {
            return Err(StoreError::ReadOnly);
        }
        Ok(&mut self.chunks)
    }

    /// Records that the tables are consistent after a maintenance operation on `chunks_mut`.
    pub fn mark_clean(&self) -> Result<()> {
        self.write_clean_marker()
    }

    /// Row counts and versions of both tables.
    pub async fn status(&self) -> Result<Vec<TableStatus>> {
        let mut out = Vec::new();
        for (name, ds) in [
            ("documents", &self.documents),
            ("chunks", &self.chunks),
            ("ingest_runs", &self.runs),
        ] {
            out.push(TableStatus {
                name: name.to_string(),
                rows: ds.count_rows(None).await?,
                version: ds.version().version,
                versions: ds.versions().await?.len(),
                fragments: ds.get_fragments().len(),
            });
        }
        Ok(out)
    }
}
