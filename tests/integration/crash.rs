//! kill -9 during a large ingest: the store opens, every committed document is intact with all its
//! chunks, nothing uncommitted is visible, and BM25 answers exactly as a fresh rebuild does.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arrow::array::Array;
use futures::TryStreamExt;
use mitra::analyzer::AnalyzerOptions;
use mitra::index::{Bm25Index, Bm25Params, SyncOutcome};
use mitra::store::{i32_col, str_col, Store};

use crate::common;

const DOCS: usize = 12_000;
const WORDS: &[&str] = &[
    "muon",
    "jet",
    "calorimeter",
    "tracker",
    "vertex",
    "pileup",
    "trigger",
    "luminosity",
    "electron",
    "photon",
    "tau",
    "neutrino",
    "boson",
    "higgs",
    "top",
    "quark",
    "gluon",
    "lepton",
    "isolation",
    "efficiency",
    "resolution",
    "calibration",
    "systematic",
    "background",
    "signal",
    "fit",
    "likelihood",
    "unfolding",
    "acceptance",
    "scale",
    "factor",
    "simulation",
    "generator",
];

/// A deterministic BEIR corpus; some documents are long enough to become several chunks.
fn write_corpus(dir: &Path) -> HashMap<String, usize> {
    std::fs::create_dir_all(dir).unwrap();
    let mut f = std::io::BufWriter::new(std::fs::File::create(dir.join("corpus.jsonl")).unwrap());
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut lens = HashMap::new();
    for i in 0..DOCS {
        let n = if i % 50 == 0 { 700 } else { 20 + next() % 40 };
        let text: Vec<&str> = (0..n).map(|_| WORDS[next() % WORDS.len()]).collect();
        let id = format!("doc{i:05}");
        writeln!(
            f,
            "{}",
            serde_json::json!({"_id": id, "title": format!("Note {i}"), "text": text.join(" ")})
        )
        .unwrap();
        lens.insert(id, n);
    }
    lens
}

fn versions(table: &Path) -> usize {
    std::fs::read_dir(table.join("_versions"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Waits until `documents` has `min_versions` Lance versions (or the child exits), lets the
/// child run `extra_ms` more — into the middle of its next commit — and kills it with SIGKILL.
fn kill_after(child: &mut std::process::Child, data: &Path, min_versions: usize, extra_ms: u64) {
    let start = Instant::now();
    let docs_table = data.join("documents.lance");
    while versions(&docs_table) < min_versions && start.elapsed() < Duration::from_secs(300) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(extra_ms));
    child.kill().unwrap();
    child.wait().unwrap();
}

async fn check_store(data: &Path) -> usize {
    let cfg = common::config(data);
    let (store, report) = Store::open_with_report(data).await.unwrap();
    eprintln!("repair after kill: {report:?}");
    // Documents and their chunks.
    let live = store.live_documents().await.unwrap();
    let mut scan = store.chunks().scan();
    let has_vectors = store.embedding_meta().is_some();
    if has_vectors {
        scan.project(&["doc_id", "version", "ordinal", "embedding"])
            .unwrap();
    } else {
        scan.project(&["doc_id", "version", "ordinal"]).unwrap();
    }
    let batches: Vec<_> = scan
        .try_into_stream()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut per_doc: HashMap<String, HashSet<i32>> = HashMap::new();
    for b in &batches {
        for i in 0..b.num_rows() {
            let d = str_col(b, 0).value(i).to_string();
            assert_eq!(
                i32_col(b, 1).value(i),
                live[&d].0,
                "chunk of an uncommitted version: {d}"
            );
            if has_vectors {
                assert!(
                    b.column(3).is_valid(i),
                    "chunk of {d} committed without its vector"
                );
            }
            assert!(per_doc.entry(d).or_default().insert(i32_col(b, 2).value(i)));
        }
    }
    assert_eq!(
        per_doc.len(),
        live.len(),
        "every committed document has chunks, no orphans"
    );
    for (d, ords) in &per_doc {
        let n = ords.len() as i32;
        assert_eq!(
            *ords,
            (0..n).collect::<HashSet<_>>(),
            "{d}: chunks are complete"
        );
    }
    // BM25 after catch-up equals a fresh rebuild.
    let opts = AnalyzerOptions {
        stemming: false,
        stopwords: false,
    };
    let params = Bm25Params {
        k1: cfg.bm25.k1,
        b: cfg.bm25.b,
    };
    let (synced, outcome) = Bm25Index::open_synced(&data.join("bm25"), &store, opts, params)
        .await
        .unwrap();
    eprintln!("index after kill: {outcome:?}");
    let fresh_dir = tempfile::tempdir().unwrap();
    let (fresh, fo) = Bm25Index::open_synced(fresh_dir.path(), &store, opts, params)
        .await
        .unwrap();
    assert!(matches!(fo, SyncOutcome::Rebuilt(_)));
    assert_eq!(
        synced.num_docs(),
        store.chunks().count_rows(None).await.unwrap() as u64
    );
    assert_eq!(synced.num_docs(), fresh.num_docs());
    for q in [
        "muon jet",
        "higgs boson calibration",
        "pileup trigger efficiency",
        "tau",
    ] {
        let a = synced.search(q, 50).unwrap();
        let b = fresh.search(q, 50).unwrap();
        assert_eq!(a.len(), b.len(), "{q}");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.chunk_id, y.chunk_id, "{q}");
            assert!(
                (x.score - y.score).abs() < 1e-4,
                "{q}: {} vs {}",
                x.score,
                y.score
            );
        }
    }
    live.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_during_ingest_leaves_a_consistent_store() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let lens = write_corpus(&corpus);
    let data = dir.path().join("data");
    let bin = env!("CARGO_BIN_EXE_mitra");
    let tiny = common::tiny_dpr("dpr-ctx");
    let mut committed = 0;
    // Kill at three different points of progress, then let the last run finish.
    for (round, min_versions) in [(0, 4usize), (1, 9), (2, 15), (3, usize::MAX)].into_iter() {
        let mut child = Command::new(bin)
            .arg("--data")
            .arg(&data)
            .args(["ingest", "--no-progress", "--beir"])
            .arg(&corpus)
            .env("MITRA_INGEST_BATCH_DOCS", "150")
            .env("MITRA_CHUNKING_MAX_CHARS", "2000")
            // Vectors commit with their chunks: a tiny DPR encoder keeps the test fast.
            .env("MITRA_EMBEDDING_MODEL", "tiny-dpr-ctx")
            .env("MITRA_EMBEDDING_MODEL_DIR", tiny.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if min_versions == usize::MAX {
            assert!(child.wait().unwrap().success());
        } else {
            kill_after(&mut child, &data, min_versions, 37 * (round as u64 + 1));
        }
        let n = check_store(&data).await;
        assert!(
            n >= committed,
            "committed documents lost: {n} < {committed}"
        );
        committed = n;
        eprintln!("round {round}: {n} documents committed");
    }
    assert_eq!(committed, lens.len());
    let (store, _) = Store::open_with_report(&data).await.unwrap();
    let meta = store.embedding_meta().expect("the store has vectors");
    assert_eq!((meta.model.as_str(), meta.dim), ("tiny-dpr-ctx", 16));
}

/// The same for plugin ingest: kill -9 `mitra ingest --crawler dir-crawler` mid-run; every
/// committed document stays intact, the next run skips them and only the completed run is in
/// `ingest_runs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_during_plugin_ingest_leaves_a_consistent_store() {
    const FILES: usize = 1500;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("notes");
    std::fs::create_dir_all(&src).unwrap();
    let mut seed = 777u64;
    for i in 0..FILES {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = if i % 40 == 0 {
            600
        } else {
            30 + (seed >> 33) as usize % 40
        };
        let words: Vec<&str> = (0..n)
            .map(|k| WORDS[(k * 7 + (seed >> 40) as usize) % WORDS.len()])
            .collect();
        std::fs::write(
            src.join(format!("n{i:04}.md")),
            format!("# Note {i}\n\n{}\n", words.join(" ")),
        )
        .unwrap();
    }
    let data = dir.path().join("data");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_mitra"))
            .arg("--data")
            .arg(&data)
            .args([
                "ingest",
                "--no-progress",
                "--crawler",
                "dir-crawler",
                "--name",
                "notes",
                "--source",
            ])
            .arg(&src)
            .env("MITRA_INGEST_BATCH_DOCS", "100")
            .env("MITRA_EMBEDDING_ENABLED", "false")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut committed = 0;
    for (round, min_versions) in [(0usize, 3usize), (1, 7)] {
        let mut child = run();
        kill_after(&mut child, &data, min_versions, 23 * (round as u64 + 1));
        let n = check_store(&data).await;
        assert!(
            n >= committed,
            "committed documents lost: {n} < {committed}"
        );
        assert!(n < FILES, "round {round} was killed before the end");
        committed = n;
        eprintln!("plugin round {round}: {n} documents committed");
    }
    let out = run().wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!("{} added", FILES - committed))
            && text.contains(&format!("{committed} unchanged")),
        "{text}"
    );
    assert_eq!(check_store(&data).await, FILES);
    let (store, _) = Store::open_with_report(&data).await.unwrap();
    assert_eq!(
        store.runs().count_rows(None).await.unwrap(),
        1,
        "only the completed run is recorded"
    );
}
