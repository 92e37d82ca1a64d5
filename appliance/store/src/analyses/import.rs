//! `mitra analyses import FILE`: a JSONL of analyses replaces the table (a new Lance version).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatchIterator;
use lance::dataset::{Dataset, WriteMode, WriteParams};
use serde::Deserialize;

use super::rows::{batch, read_dataset, Analysis, TABLE_DIR};
use super::{valid_id, AnalysesError, Status};
use crate::dense::Embedder;
use crate::store::Store;

/// Longest title accepted, in bytes.
const MAX_TITLE: usize = 1_000;
/// Longest abstract accepted, in bytes.
const MAX_ABSTRACT: usize = 64 * 1024;
/// Most analyses in one file.
const MAX_ANALYSES: usize = 100_000;

/// One line of the import file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    analysis_id: String,
    title: String,
    #[serde(rename = "abstract")]
    abstract_text: String,
    #[serde(default)]
    tags: Vec<String>,
    status: String,
    #[serde(default)]
    groups: Vec<String>,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// New analyses.
    pub added: usize,
    /// Analyses whose title, abstract, tags, status or groups changed.
    pub updated: usize,
    /// Analyses that did not change.
    pub unchanged: usize,
    /// Analyses no longer in the file, removed.
    pub removed: Vec<String>,
    /// Abstracts embedded (0 without an encoder).
    pub embedded: usize,
    /// Lance version of the table after the import.
    pub version: u64,
}

/// Reads and checks an import file: one JSON object per line, unique valid ids, a known status.
pub fn read_file(path: &Path) -> Result<Vec<Analysis>, AnalysesError> {
    let f = std::fs::File::open(path).map_err(|source| AnalysesError::Io {
        path: path.into(),
        source,
    })?;
    let invalid = |line: usize, message: String| AnalysesError::Invalid {
        path: path.into(),
        line,
        message,
    };
    let mut out: Vec<Analysis> = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let n = i + 1;
        let line = line.map_err(|source| AnalysesError::Io {
            path: path.into(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let l: Line = serde_json::from_str(&line).map_err(|e| invalid(n, e.to_string()))?;
        if !valid_id(&l.analysis_id) {
            return Err(invalid(
                n,
                format!(
                    "analysis_id {:?} is not valid: use 1-128 letters, digits, '.', '_', '-'",
                    l.analysis_id
                ),
            ));
        }
        if !seen.insert(l.analysis_id.clone()) {
            return Err(invalid(
                n,
                format!("analysis_id {:?} appears twice", l.analysis_id),
            ));
        }
        if l.title.trim().is_empty() || l.title.len() > MAX_TITLE {
            return Err(invalid(n, format!("title must be 1-{MAX_TITLE} bytes")));
        }
        if l.abstract_text.trim().is_empty() || l.abstract_text.len() > MAX_ABSTRACT {
            return Err(invalid(
                n,
                format!("abstract must be 1-{MAX_ABSTRACT} bytes"),
            ));
        }
        let status: Status = l.status.parse().map_err(|m| invalid(n, m))?;
        if let Some(g) = l
            .groups
            .iter()
            .find(|g| !mitra_auth::UsersFile::valid_group(g))
        {
            return Err(invalid(n, format!("group {g:?} is not valid")));
        }
        if status.restricted() && l.groups.is_empty() {
            tracing::warn!(analysis = %l.analysis_id, %status, "an analysis of this status without groups is readable by no user (only the operator)");
        }
        if out.len() == MAX_ANALYSES {
            return Err(invalid(n, format!("more than {MAX_ANALYSES} analyses")));
        }
        let mut groups = l.groups;
        groups.sort();
        groups.dedup();
        out.push(Analysis {
            id: l.analysis_id,
            title: l.title,
            abstract_text: l.abstract_text,
            tags: l.tags,
            status,
            groups,
            updated_at: 0,
            embedding: None,
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

fn same(a: &Analysis, b: &Analysis) -> bool {
    a.title == b.title
        && a.abstract_text == b.abstract_text
        && a.tags == b.tags
        && a.status == b.status
        && a.groups == b.groups
}

/// Replaces the `analyses` table with the file's analyses. `store` holds the writer lock (so
/// no ingest runs meanwhile). Analyses missing from the file are removed, unless documents
/// still name them (then the import is refused, unless `force`). Abstracts are embedded with
/// `embedder` when given; unchanged analyses keep their vector and `updated_at`.
pub async fn import_file(
    store: &Store,
    data_dir: &Path,
    path: &Path,
    force: bool,
    embedder: Option<Arc<Embedder>>,
) -> Result<ImportReport, AnalysesError> {
    let mut rows = read_file(path)?;
    let table = data_dir.join(TABLE_DIR);
    let exists = table.join("_versions").exists();
    let (old, old_meta) = if exists {
        read_dataset(&Dataset::open(&table.to_string_lossy()).await?).await?
    } else {
        (Vec::new(), None)
    };
    let old: HashMap<String, Analysis> = old.into_iter().map(|a| (a.id.clone(), a)).collect();
    let new_ids: BTreeSet<&str> = rows.iter().map(|a| a.id.as_str()).collect();
    let removed: Vec<String> = old
        .keys()
        .filter(|id| !new_ids.contains(id.as_str()))
        .cloned()
        .collect();
    if !removed.is_empty() {
        let mut in_use: BTreeMap<String, usize> = BTreeMap::new();
        for d in store.live_document_rows().await?.into_values() {
            if let Some(a) = d.analysis_id.filter(|a| !d.deleted && removed.contains(a)) {
                *in_use.entry(a).or_default() += 1;
            }
        }
        if !in_use.is_empty() && !force {
            let list = in_use
                .iter()
                .map(|(a, n)| format!("{a} ({n} documents)"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(AnalysesError::InUse(list));
        }
    }
    let meta = embedder.as_ref().map(|e| e.meta());
    let reuse_vectors = meta.is_some() && meta == old_meta;
    let now = chrono::Utc::now().timestamp_micros();
    let mut report = ImportReport {
        removed,
        ..Default::default()
    };
    let mut to_embed = Vec::new();
    for (i, a) in rows.iter_mut().enumerate() {
        match old.get(&a.id) {
            Some(o) if same(o, a) => {
                report.unchanged += 1;
                a.updated_at = o.updated_at;
                if reuse_vectors {
                    a.embedding = o.embedding.clone();
                }
            }
            Some(_) => {
                report.updated += 1;
                a.updated_at = now;
            }
            None => {
                report.added += 1;
                a.updated_at = now;
            }
        }
        if a.embedding.is_none() {
            to_embed.push(i);
        }
    }
    if let Some(e) = &embedder {
        if !to_embed.is_empty() {
            let texts = to_embed.iter().map(|&i| rows[i].search_text()).collect();
            let vecs = e.embed_passages(texts).await?;
            report.embedded = vecs.len();
            for (&i, v) in to_embed.iter().zip(vecs) {
                rows[i].embedding = Some(v);
            }
        }
    }
    let b = batch(&rows, meta.as_ref())?;
    let schema = b.schema();
    let params = WriteParams {
        mode: if exists {
            WriteMode::Overwrite
        } else {
            WriteMode::Create
        },
        ..Default::default()
    };
    let ds = Dataset::write(
        RecordBatchIterator::new(vec![Ok(b)], schema),
        table.to_string_lossy().as_ref(),
        Some(params),
    )
    .await?;
    report.version = ds.version().version;
    Ok(report)
}
