//! Storage faults during an ingest commit: every write Lance makes in one commit (documents,
//! chunks, vectors, the ANN index build, deletion files, manifests) fails in turn with EIO,
//! ENOSPC or a torn write; each ends in a clear error, the store reopens with every committed
//! document intact and searchable, and the next ingest completes. Then a real filesystem that
//! fills up (a small tmpfs; skipped where it cannot be mounted) under the BM25 index and the
//! markers too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mitra::config::Config;
use mitra::store::faults::{Fault, FaultPlan, FaultWrapper};
use mitra::store::Store;

use crate::common;

/// Base documents: below the ANN threshold (256 rows) so that the faulted commit builds it.
const BASE_NOTES: usize = 250;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn write_notes(dir: &Path, from: usize, to: usize, tag: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for i in from..to {
        std::fs::write(
            dir.join(format!("note{i:03}.md")),
            format!("# Note {i}\n\nMeasurement {tag}{i} of the muon trigger efficiency.\n"),
        )
        .unwrap();
    }
    dir.to_path_buf()
}

/// The store's committed documents (id -> version, sha).
async fn committed(cfg: &Config) -> HashMap<String, (i32, String)> {
    let (store, mut index) = common::open(cfg).await;
    index.close_writer().unwrap();
    store.live_documents().await.unwrap()
}

/// Every document of `want` is committed as it was, or at a newer version the failed ingest
/// committed before the fault; the BM25 index is in step and finds `probe`.
async fn intact(cfg: &Config, want: &HashMap<String, (i32, String)>, probe: &str) {
    let (store, mut index) = common::open(cfg).await;
    let have = store.live_documents().await.unwrap();
    for (id, (version, sha)) in want {
        match have.get(id) {
            Some((v, s)) if v == version => assert_eq!(s, sha, "{id} changed"),
            Some((v, _)) => assert!(v > version, "{id} went back to v{v}"),
            None => panic!("{id} lost"),
        }
    }
    let rows = store.chunks().count_rows(None).await.unwrap();
    assert_eq!(rows as u64, index.num_docs(), "BM25 index out of step");
    assert!(
        !index.search(probe, 5).unwrap().is_empty(),
        "{probe} not found"
    );
    index.close_writer().unwrap();
}

/// Ingests `notes` into the store of `cfg` without faults.
async fn ingest(cfg: &Config, notes: &Path) -> Result<mitra::ingest::IngestReport, String> {
    let (mut store, mut index, _) = mitra::open(cfg).await.map_err(|e| e.to_string())?;
    let r = mitra::ingest::ingest_paths(&mut store, &mut index, cfg, &[notes.to_path_buf()], false)
        .await
        .map_err(|e| e.to_string());
    let _ = index.close_writer();
    r
}

fn is_clear(e: &str) -> bool {
    [
        "os error 28",
        "os error 5",
        "No space left",
        "Input/output error",
    ]
    .iter()
    .any(|m| e.contains(m))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_write_of_an_ingest_commit_may_fail_and_nothing_committed_is_lost() {
    let root = tempfile::tempdir().unwrap();
    let model = common::tiny_dpr("dpr-ctx");
    let mut cfg = common::tiny_dpr_config(&root.path().join("base"), model.path());
    cfg.maintain.after_ingest = false;
    cfg.dense.ann_min_rows = 256;
    // Both folders are named `notes`: the same document ids.
    let base_notes = write_notes(&root.path().join("base-src/notes"), 0, BASE_NOTES, "b");
    let (mut store, mut index) = common::open(&cfg).await;
    mitra::ingest::ingest_paths(&mut store, &mut index, &cfg, &[base_notes], false)
        .await
        .unwrap();
    index.close_writer().unwrap();
    drop((store, index));
    let base = committed(&cfg).await;
    assert_eq!(base.len(), BASE_NOTES);
    // The commit under test: ten new notes and one changed (its old chunks deleted), crossing
    // the ANN threshold.
    let new_notes = write_notes(
        &root.path().join("new-src/notes"),
        BASE_NOTES,
        BASE_NOTES + 10,
        "n",
    );
    std::fs::write(
        new_notes.join("note000.md"),
        "# Note 0\n\nMeasurement changed of the muon trigger efficiency.\n",
    )
    .unwrap();

    // A clean run counts the writes.
    let run = |n: usize, fault: Fault, dir: PathBuf| {
        let mut cfg = cfg.clone();
        let (base_dir, new_notes) = (cfg.data_dir.clone(), new_notes.clone());
        async move {
            copy_dir(&base_dir, &dir);
            cfg.data_dir = dir;
            let plan = FaultPlan::new(n, fault);
            let mut store = Store::open_wrapped(
                &cfg.data_dir,
                std::sync::Arc::new(FaultWrapper(plan.clone())),
            )
            .await
            .unwrap();
            let (opts, params) = mitra::index_options(&cfg);
            let (mut index, _) = mitra::index::Bm25Index::open_synced(
                &cfg.data_dir.join("bm25"),
                &store,
                opts,
                params,
            )
            .await
            .unwrap();
            let r = mitra::ingest::ingest_paths(&mut store, &mut index, &cfg, &[new_notes], false)
                .await;
            let _ = index.close_writer();
            drop((store, index));
            (
                cfg,
                r.map(|r| r.added).map_err(|e| e.to_string()),
                plan.writes(),
            )
        }
    };
    let (_, clean, writes) = run(usize::MAX, Fault::Eio, root.path().join("clean")).await;
    assert_eq!(clean, Ok(10));
    let kinds = |w: &[String]| {
        [
            "documents.lance/data",
            "chunks.lance/data",
            "_deletions",
            "_indices",
            "_versions",
        ]
        .iter()
        .filter(|k| w.iter().any(|x| x.contains(*k)))
        .count()
    };
    assert_eq!(kinds(&writes), 5, "writes seen: {writes:#?}");
    eprintln!("{} writes in one ingest commit", writes.len());

    let faults = [Fault::Eio, Fault::Enospc, Fault::Torn];
    for n in 0..writes.len() {
        let fault = faults[n % 3];
        let dir = root.path().join(format!("fault{n}"));
        let (cfg, result, seen) = run(n, fault, dir.clone()).await;
        let what = &seen[n.min(seen.len() - 1)];
        match &result {
            Err(e) => assert!(
                is_clear(e),
                "write {n} ({what}, {fault:?}): unclear error {e}"
            ),
            // Lance's version hint is best effort: losing it loses nothing.
            Ok(added) if what.contains("latest_version_hint") => assert_eq!(*added, 10),
            Ok(_) => panic!("write {n} ({what}, {fault:?}) failed but the ingest succeeded"),
        }
        // Reopened without faults: every committed document intact and searchable.
        if result.is_err() {
            intact(&cfg, &base, "b17").await;
        }
        // The next ingest completes and holds all of it.
        let again = ingest(&cfg, &new_notes)
            .await
            .unwrap_or_else(|e| panic!("after write {n} ({what}): {e}"));
        assert_eq!(again.failed, 0);
        let now = committed(&cfg).await;
        assert_eq!(now.len(), BASE_NOTES + 10, "after write {n}");
        intact(&cfg, &now, "n255").await;
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A small tmpfs, unmounted when dropped.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(size: &str) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "mitra-test"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then_some(Self(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .output();
    }
}

/// Fills the filesystem of `dir` with `filler`, then gives `room` bytes back.
fn fill(filler: &Path, room: u64) {
    use std::io::Write;
    let mut f = std::fs::File::create(filler).unwrap();
    let block = vec![0u8; 64 * 1024];
    let mut written = 0u64;
    loop {
        match f.write(&block) {
            Ok(0) | Err(_) => break,
            Ok(n) => written += n as u64,
        }
    }
    let _ = f.sync_all();
    f.set_len(written.saturating_sub(room)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_ends_ingests_with_a_clear_error_and_loses_nothing() {
    let Some(fs) = Tmpfs::mount("24m") else {
        eprintln!("skipping: cannot mount a tmpfs here (needs root); the object-store fault walk still runs");
        return;
    };
    let model = common::tiny_dpr("dpr-ctx");
    let src = tempfile::tempdir().unwrap();
    let mut cfg = common::tiny_dpr_config(&fs.0.path().join("data"), model.path());
    cfg.maintain.after_ingest = false;
    let base_notes = write_notes(&src.path().join("base/notes"), 0, 40, "b");
    let (mut store, mut index) = common::open(&cfg).await;
    mitra::ingest::ingest_paths(&mut store, &mut index, &cfg, &[base_notes], false)
        .await
        .unwrap();
    index.close_writer().unwrap();
    drop((store, index));
    let mut committed_now = committed(&cfg).await;
    let filler = fs.0.path().join("filler");
    let mut failures = 0;
    // Room left from nothing to enough: the disk fills at a different write each time (Lance
    // data and manifests, the BM25 index, the markers).
    for (round, room) in [0u64, 8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20]
        .into_iter()
        .enumerate()
    {
        let start = 100 + 20 * round;
        let notes = write_notes(
            &src.path().join(format!("r{round}/notes")),
            start,
            start + 20,
            "f",
        );
        fill(&filler, room);
        let result = ingest(&cfg, &notes).await.map(|r| r.added);
        std::fs::remove_file(&filler).unwrap();
        match &result {
            Err(e) => {
                assert!(is_clear(e), "room {room}: unclear error {e}");
                failures += 1;
            }
            Ok(added) => assert_eq!(*added, 20, "room {room}"),
        }
        // Space back: everything committed is there and the ingest completes.
        intact(&cfg, &committed_now, "b17").await;
        ingest(&cfg, &notes)
            .await
            .unwrap_or_else(|e| panic!("room {room}: the next ingest failed: {e}"));
        committed_now = committed(&cfg).await;
        assert_eq!(committed_now.len(), 40 + 20 * (round + 1), "room {room}");
        intact(&cfg, &committed_now, &format!("f{start}")).await;
    }
    assert!(failures >= 3, "the disk filled in only {failures} rounds");
}
