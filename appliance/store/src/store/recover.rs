//! Opening a table whose newest version cannot be read (a manifest torn by a failing disk):
//! the writer sets the unreadable manifests aside (renamed, kept for inspection) so that the
//! newest readable version is the latest again; nothing committed before the torn write is
//! lost. A reader opens the newest readable version.

use std::panic::AssertUnwindSafe;
use std::path::Path;

use futures::FutureExt;
use lance::dataset::builder::DatasetBuilder;
use lance::dataset::{Dataset, ReadParams};
use lance::io::ObjectStoreParams;

use super::{Result, StoreError};

/// Loads `uri` (at `version`, or the latest), turning a panic inside Lance's manifest decoding
/// (it panics on some truncated manifests) into an error.
async fn load(
    uri: &str,
    params: Option<&ObjectStoreParams>,
    version: Option<u64>,
) -> Result<Dataset> {
    let mut b = DatasetBuilder::from_uri(uri).with_read_params(ReadParams {
        store_options: params.cloned(),
        ..Default::default()
    });
    if let Some(v) = version {
        b = b.with_version(v);
    }
    match AssertUnwindSafe(b.load()).catch_unwind().await {
        Ok(r) => Ok(r?),
        Err(_) => Err(StoreError::Schema(format!(
            "{uri}: a manifest cannot be decoded"
        ))),
    }
}

/// The manifests under `path/_versions` with their versions, newest first (both of Lance's
/// naming schemes: the version, or `u64::MAX - version` in 20 digits).
fn manifests(path: &Path) -> Vec<(u64, std::path::PathBuf)> {
    let mut out: Vec<(u64, std::path::PathBuf)> = std::fs::read_dir(path.join("_versions"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let stem = name.strip_suffix(".manifest")?;
            let n: u64 = stem.parse().ok()?;
            let v = if stem.len() == 20 { u64::MAX - n } else { n };
            Some((v, e.path()))
        })
        .collect();
    out.sort_unstable_by_key(|m| std::cmp::Reverse(m.0));
    out
}

/// Opens the table at `path` (through `uri`); when its latest version cannot be read, opens the
/// newest version that can, the writer first setting the unreadable newer manifests aside.
pub async fn open_table(
    path: &Path,
    uri: &str,
    params: Option<&ObjectStoreParams>,
    writable: bool,
) -> Result<Dataset> {
    let first = match load(uri, params, None).await {
        Ok(ds) => return Ok(ds),
        Err(e) => e,
    };
    let all = manifests(path);
    for (i, (v, _)) in all.iter().enumerate() {
        if load(uri, params, Some(*v)).await.is_err() {
            continue;
        }
        tracing::warn!(table = %path.display(), version = v, error = %first,
            "the table's latest version is unreadable (a torn write?): going back to the newest readable version");
        if !writable {
            return load(uri, params, Some(*v)).await;
        }
        for (_, torn) in &all[..i] {
            let aside = torn.with_extension("manifest.unreadable");
            std::fs::rename(torn, &aside).map_err(|source| StoreError::Io {
                path: torn.clone(),
                source,
            })?;
        }
        // The hint may name a version set aside; Lance lists the manifests without it.
        let _ = std::fs::remove_file(path.join("_versions").join("latest_version_hint.json"));
        return load(uri, params, None).await;
    }
    Err(first)
}
