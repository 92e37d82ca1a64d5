//! The demo corpus: a handful of analysis notes written for this project, embedded in the binary.

use std::path::{Path, PathBuf};

/// (file name, contents) of each demo note.
pub const NOTES: &[(&str, &str)] = &[
    ("hmumu-run3.md", include_str!("../demo/hmumu-run3.md")),
    ("tth-bb.md", include_str!("../demo/tth-bb.md")),
    ("zjets-met.md", include_str!("../demo/zjets-met.md")),
    (
        "muon-collider-bib.md",
        include_str!("../demo/muon-collider-bib.md"),
    ),
    ("dark-photon.md", include_str!("../demo/dark-photon.md")),
];

/// Writes the demo notes into `dir/demo-notes/` and returns that folder.
pub fn write_corpus(dir: &Path) -> std::io::Result<PathBuf> {
    let folder = dir.join("demo-notes");
    std::fs::create_dir_all(&folder)?;
    for (name, text) in NOTES {
        let p = folder.join(name);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(*text) {
            std::fs::write(p, text)?;
        }
    }
    Ok(folder)
}
