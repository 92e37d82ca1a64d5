//! The `files` import: read-only access to the one granted directory, escapes refused.

use std::path::{Component, Path, PathBuf};

use super::bindings::files::{Entry, Host};
use super::runtime::HostState;

/// Most entries one `list-dir` returns.
const MAX_ENTRIES: usize = 100_000;

impl HostState {
    /// Records a refused request and returns its message for the guest.
    pub(super) fn deny(&mut self, what: String) -> String {
        tracing::warn!(plugin = %self.plugin, "denied: {what}");
        self.violations.push(what.clone());
        what
    }

    fn granted_path(&mut self, rel: &str) -> Result<(PathBuf, PathBuf), String> {
        let Some(root) = self.caps.directory.clone() else {
            return Err(self.deny(format!("read of {rel:?}: no directory is granted")));
        };
        match checked_join(&root, rel) {
            Ok(Some(p)) => Ok(p),
            Ok(None) => Err(format!("{rel}: not found")),
            Err(why) => Err(self.deny(format!("read of {rel:?}: {why}"))),
        }
    }
}

/// Joins a guest path to the granted root. `Err` for an escape (absolute path, `..`, a symlink
/// leading outside); `Ok(None)` when the path does not exist. Returns (canonical root, path).
pub(super) fn checked_join(root: &Path, rel: &str) -> Result<Option<(PathBuf, PathBuf)>, String> {
    if rel.starts_with('/') || rel.starts_with('\\') || Path::new(rel).is_absolute() {
        return Err("absolute paths are not allowed".into());
    }
    if rel.contains('\0') {
        return Err("NUL in path".into());
    }
    let rel_path = Path::new(rel);
    for c in rel_path.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err("`..` leaves the granted directory".into()),
            Component::RootDir | Component::Prefix(_) => {
                return Err("absolute paths are not allowed".into())
            }
        }
    }
    let root = std::fs::canonicalize(root).map_err(|e| format!("granted directory: {e}"))?;
    let full = match std::fs::canonicalize(root.join(rel_path)) {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !full.starts_with(&root) {
        return Err("a symbolic link leads outside the granted directory".into());
    }
    Ok(Some((root, full)))
}

fn rel_of(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect::<Vec<_>>()
        .join("/")
}

fn mtime_ms(m: &std::fs::Metadata) -> i64 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Host for HostState {
    fn list_dir(&mut self, path: String) -> Result<Vec<Entry>, String> {
        let (root, dir) = self.granted_path(if path.is_empty() { "." } else { &path })?;
        let rd = std::fs::read_dir(&dir).map_err(|e| format!("{path}: {e}"))?;
        let mut out = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| format!("{path}: {e}"))?;
            // Follow symlinks only when they stay inside the root.
            let Ok(target) = std::fs::canonicalize(entry.path()) else {
                continue;
            };
            if !target.starts_with(&root) {
                continue;
            }
            let Ok(meta) = std::fs::metadata(&target) else {
                continue;
            };
            out.push(Entry {
                path: rel_of(&root, &entry.path()),
                is_dir: meta.is_dir(),
                size: meta.len(),
                modified_ms: mtime_ms(&meta),
            });
            if out.len() >= MAX_ENTRIES {
                return Err(format!("{path}: more than {MAX_ENTRIES} entries"));
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn read_file(&mut self, path: String) -> Result<Vec<u8>, String> {
        let (_, file) = self.granted_path(&path)?;
        let meta = std::fs::metadata(&file).map_err(|e| format!("{path}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("{path}: not a file"));
        }
        if meta.len() > self.limits.max_output {
            return Err(format!(
                "{path}: {} bytes, above plugins.max_output_mb",
                meta.len()
            ));
        }
        std::fs::read(&file).map_err(|e| format!("{path}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.md"), "x").unwrap();
        assert!(checked_join(d.path(), "a.md").unwrap().is_some());
        assert!(checked_join(d.path(), "./a.md").unwrap().is_some());
        assert!(checked_join(d.path(), "missing").unwrap().is_none());
        assert!(checked_join(d.path(), "../etc/passwd").is_err());
        assert!(checked_join(d.path(), "sub/../../x").is_err());
        assert!(checked_join(d.path(), "/etc/passwd").is_err());
        std::os::unix::fs::symlink("/etc", d.path().join("out")).unwrap();
        assert!(checked_join(d.path(), "out/passwd").is_err());
    }
}
