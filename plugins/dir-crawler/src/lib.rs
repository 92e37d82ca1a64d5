//! dir-crawler: lists and reads the documents under the directory the operator granted.

use mitra_plugin_sdk::crawler::{files, Crawl, DocumentRef, Fetched};
use mitra_plugin_sdk::text::media_type_for_path;
use mitra_plugin_sdk::{source_settings, source_str};

/// The plugin.
pub struct DirCrawler;

/// Most entries one listing may return (a bound on guest memory).
const MAX_DOCS: usize = 200_000;

impl Crawl for DirCrawler {
    fn list_documents(source: String) -> Result<Vec<DocumentRef>, String> {
        let settings = source_settings(&source)?;
        let root = source_str(&settings, "location").unwrap_or_else(|| ".".into());
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let mut entries = files::list_dir(&dir)?;
            entries.sort_by(|a, b| a.path.cmp(&b.path));
            for e in entries {
                let name = e.path.rsplit('/').next().unwrap_or(&e.path);
                if name.starts_with('.') {
                    continue;
                }
                if e.is_dir {
                    stack.push(e.path);
                } else if let Some(mt) = media_type_for_path(&e.path) {
                    if out.len() >= MAX_DOCS {
                        return Err(format!("more than {MAX_DOCS} documents under {dir}"));
                    }
                    // The title is left to the extractor (first heading), as files carry none.
                    out.push(DocumentRef {
                        id: e.path.clone(),
                        uri: e.path.clone(),
                        title: String::new(),
                        modified_ms: Some(e.modified_ms),
                        media_type: Some(mt.to_string()),
                        metadata: vec![("bytes".into(), e.size.to_string())],
                    });
                }
            }
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    fn fetch_document(_source: String, doc: DocumentRef) -> Result<Fetched, String> {
        let bytes = files::read_file(&doc.id)?;
        let media_type = doc
            .media_type
            .or_else(|| media_type_for_path(&doc.id).map(str::to_string))
            .unwrap_or_else(|| "application/octet-stream".into());
        Ok(Fetched { bytes, media_type })
    }
}

mitra_plugin_sdk::crawler::export_crawler!(DirCrawler);
