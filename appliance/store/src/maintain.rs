//! Storage hygiene: which old Lance versions may go (outside the retention window, named by no
//! receipt, held by no reader), what removing them reclaims, and removing them.
//!
//! A version is removable when it is not the latest, was superseded (its successor committed)
//! more than the retention window ago, and is not kept. Counting from when a version was
//! superseded rather than created means a reader that opened the latest version just before a
//! commit keeps it for the whole window, however old the version itself is.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use lance::dataset::cleanup::CleanupPolicy;
use lance::dataset::Dataset;

use crate::store::Result;

/// The end of a retention window: versions superseded before it may go.
pub type Cutoff = DateTime<Utc>;

/// The Lance tables of a data directory that maintenance covers.
pub const TABLES: [&str; 5] = ["documents", "chunks", "ingest_runs", "analyses", "answers"];

/// One table's versions, and what maintenance would remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePlan {
    /// Table name.
    pub table: String,
    /// Versions kept now.
    pub versions: usize,
    /// Versions maintenance would remove.
    pub removable: BTreeSet<u64>,
    /// Old versions outside the window kept because a receipt names them.
    pub kept_for_receipts: usize,
    /// Bytes of the table's directory.
    pub bytes_on_disk: u64,
    /// Bytes removing `removable` frees.
    pub reclaimable_bytes: u64,
}

/// What cleaning one table did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Versions removed.
    pub versions: u64,
    /// Bytes freed.
    pub bytes: u64,
}

/// Bytes of the files under `dir`.
pub fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => bytes_under(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// The versions of `ds` that may be removed: not the latest, superseded before `cutoff`, not
/// in `keep`; and how many old ones `keep` saved.
pub async fn removable_versions(
    ds: &Dataset,
    cutoff: DateTime<Utc>,
    keep: &HashSet<u64>,
) -> Result<(BTreeSet<u64>, usize)> {
    let mut versions = ds.versions().await?;
    versions.sort_by_key(|v| v.version);
    let mut out = BTreeSet::new();
    let mut kept = 0;
    for pair in versions.windows(2) {
        let (v, next) = (&pair[0], &pair[1]);
        if next.timestamp >= cutoff {
            continue;
        }
        if keep.contains(&v.version) {
            kept += 1;
        } else {
            out.insert(v.version);
        }
    }
    Ok((out, kept))
}

fn policy(versions: &BTreeSet<u64>) -> CleanupPolicy {
    CleanupPolicy {
        versions: Some(versions.iter().copied().collect()),
        ..Default::default()
    }
}

/// The plan for the table `name` under `data_dir` (`None` when the table does not exist).
pub async fn plan_table(
    data_dir: &Path,
    name: &str,
    cutoff: DateTime<Utc>,
    keep: &HashSet<u64>,
) -> Result<Option<TablePlan>> {
    let path = data_dir.join(format!("{name}.lance"));
    if !path.join("_versions").exists() {
        return Ok(None);
    }
    let ds = Dataset::open(&path.to_string_lossy()).await?;
    let (removable, kept_for_receipts) = removable_versions(&ds, cutoff, keep).await?;
    let reclaimable_bytes = if removable.is_empty() {
        0
    } else {
        ds.cleanup(policy(&removable))
            .explain()
            .await?
            .stats
            .bytes_removed
    };
    Ok(Some(TablePlan {
        table: name.to_string(),
        versions: ds.versions().await?.len(),
        removable,
        kept_for_receipts,
        bytes_on_disk: bytes_under(&path),
        reclaimable_bytes,
    }))
}

/// Removes the versions of `plan` from its table (the caller holds the writer lock).
pub async fn clean_table(data_dir: &Path, plan: &TablePlan) -> Result<Cleaned> {
    if plan.removable.is_empty() {
        return Ok(Cleaned::default());
    }
    let path = data_dir.join(format!("{}.lance", plan.table));
    let ds = Dataset::open(&path.to_string_lossy()).await?;
    let stats = ds.cleanup_with_policy(policy(&plan.removable)).await?;
    Ok(Cleaned {
        versions: stats.old_versions,
        bytes: stats.bytes_removed,
    })
}

/// The cutoff of a retention window ending now (the beginning of time for a window longer
/// than the calendar).
pub fn cutoff(retention: std::time::Duration) -> Cutoff {
    chrono::Duration::from_std(retention)
        .ok()
        .and_then(|w| Utc::now().checked_sub_signed(w))
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}
