//! BEIR-format collections: corpus import, queries and relevance judgments.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use mitra_store::config::Config;
use mitra_store::index::Bm25Index;
use mitra_store::ingest::{
    self, sha256_hex, IngestError, IngestReport, Ingestor, Result, SourceDoc,
};
use mitra_store::store::Store;

/// Relevance judgments: query id → (doc id → grade).
pub type Qrels = HashMap<String, HashMap<String, i32>>;

fn open_lines(path: &Path) -> Result<impl Iterator<Item = (usize, std::io::Result<String>)>> {
    let f = std::fs::File::open(path).map_err(|source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(BufReader::new(f)
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l)))
}

/// A BEIR `_id`, written as a string or an integer.
fn json_id(v: &serde_json::Value) -> Option<String> {
    let x = v.get("_id")?;
    x.as_str()
        .map(str::to_string)
        .or_else(|| x.as_i64().map(|n| n.to_string()))
}

fn corpus_err(path: &Path, line: usize, message: impl Into<String>) -> IngestError {
    IngestError::Corpus {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// Imports `DIR/corpus.jsonl`: one document per line, doc_id = `_id`, text = title + " " + text.
pub async fn ingest_corpus(
    store: &mut Store,
    index: &mut Bm25Index,
    cfg: &Config,
    dir: &Path,
    show_progress: bool,
) -> Result<IngestReport> {
    let path = dir.join("corpus.jsonl");
    let total = open_lines(&path)?.count() as u64;
    let name = dir
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "beir".into());
    let mut ing = Ingestor::new(store, index, cfg, total, show_progress).await?;
    for (line_no, line) in open_lines(&path)? {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                ing.fail(&format!("{}:{line_no}", path.display()), e);
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                ing.fail(&format!("{}:{line_no}", path.display()), e);
                continue;
            }
        };
        let Some(id) = json_id(&v) else {
            ing.fail(&format!("{}:{line_no}", path.display()), "missing _id");
            continue;
        };
        let title = v
            .get("title")
            .and_then(|x| x.as_str())
            .unwrap_or("")
            .to_string();
        let body = v.get("text").and_then(|x| x.as_str()).unwrap_or("");
        let text = format!("{title} {body}");
        ing.add(SourceDoc {
            sha256: sha256_hex(line.as_bytes()),
            source_uri: format!("beir://{name}/{id}"),
            title,
            metadata: serde_json::json!({"collection": name}),
            doc_id: id,
            text,
            analysis_id: v
                .get("analysis_id")
                .and_then(|x| x.as_str())
                .map(str::to_string),
            ..Default::default()
        })
        .await?;
    }
    let report = ing.finish().await?;
    ingest::compact(store, index, 16).await?;
    Ok(report)
}

/// Reads `queries.jsonl` (or another query file): query id → text.
pub fn read_queries(path: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for (n, line) in open_lines(path)? {
        let line = line.map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| corpus_err(path, n, e.to_string()))?;
        let id = json_id(&v).ok_or_else(|| corpus_err(path, n, "missing _id"))?;
        let text = v
            .get("text")
            .and_then(|x| x.as_str())
            .ok_or_else(|| corpus_err(path, n, "missing text"))?;
        out.insert(id, text.to_string());
    }
    Ok(out)
}

/// Reads a qrels TSV (`query-id  corpus-id  score`, header optional).
pub fn read_qrels(path: &Path) -> Result<Qrels> {
    let mut out: Qrels = HashMap::new();
    for (n, line) in open_lines(path)? {
        let line = line.map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 || (n == 1 && cols[2].parse::<i32>().is_err()) {
            continue;
        }
        let grade: i32 = cols[2]
            .trim()
            .parse()
            .map_err(|_| corpus_err(path, n, "score is not an integer"))?;
        out.entry(cols[0].to_string())
            .or_default()
            .insert(cols[1].to_string(), grade);
    }
    Ok(out)
}

/// The default test qrels of a BEIR collection.
pub fn qrels_path(dir: &Path) -> PathBuf {
    dir.join("qrels").join("test.tsv")
}
