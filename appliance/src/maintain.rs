//! `mitra maintain` (and maintenance after ingests): compaction of the Lance tables, one BM25
//! segment, and removal of old versions outside `maintain.retention_hours`, keeping every
//! version that a receipt of an answer recorded within `maintain.receipt_retention_hours`
//! names.

use std::collections::HashSet;
use std::time::Duration;

use mitra_store::index::Bm25Index;
use mitra_store::maintain::{self, Cleaned, TablePlan};
use mitra_store::store::Store;

use crate::config::Config;
use crate::AppError;

/// What maintenance did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Fragments of `documents` and `chunks` before and after compaction.
    pub fragments: [(usize, usize); 2],
    /// BM25 index segments before and after the merge.
    pub segments: (usize, usize),
    /// Each table's plan and what cleaning it did.
    pub tables: Vec<(TablePlan, Cleaned)>,
}

/// The cutoff of the versions' window, and the versions of `documents` and `chunks` that
/// receipts inside the audit window keep.
async fn kept(cfg: &Config) -> Result<(maintain::Cutoff, [HashSet<u64>; 2]), AppError> {
    let hours = |h: u64| maintain::cutoff(Duration::from_secs(h.saturating_mul(3600)));
    let cutoff = hours(cfg.maintain.retention_hours);
    let audit = hours(cfg.maintain.receipt_retention_hours);
    let r = mitra_sql::answers_log::receipt_versions(&cfg.data_dir, audit).await?;
    Ok((cutoff, [r.documents, r.chunks]))
}

/// What maintenance would remove from each table now (for `mitra status` and `--dry-run`).
pub async fn plan(cfg: &Config) -> Result<Vec<TablePlan>, AppError> {
    let (cutoff, [documents, chunks]) = kept(cfg).await?;
    let none = HashSet::new();
    let mut out = Vec::new();
    for table in maintain::TABLES {
        let keep = match table {
            "documents" => &documents,
            "chunks" => &chunks,
            _ => &none,
        };
        if let Some(p) = maintain::plan_table(&cfg.data_dir, table, cutoff, keep).await? {
            out.push(p);
        }
    }
    Ok(out)
}

/// Compacts, merges the BM25 segments and removes old versions (the caller holds the store
/// for writing, so no ingest runs meanwhile).
pub async fn run(
    cfg: &Config,
    store: &mut Store,
    index: &mut Bm25Index,
) -> Result<Report, AppError> {
    let before = [
        store.documents().get_fragments().len(),
        store.chunks().get_fragments().len(),
    ];
    mitra_store::ingest::compact(store, index, 1).await?;
    let fragments = [
        (before[0], store.documents().get_fragments().len()),
        (before[1], store.chunks().get_fragments().len()),
    ];
    let segments = index.merge_segments()?;
    let mut tables = Vec::new();
    for p in plan(cfg).await? {
        let cleaned = maintain::clean_table(&cfg.data_dir, &p).await?;
        tables.push((p, cleaned));
    }
    Ok(Report {
        fragments,
        segments,
        tables,
    })
}
