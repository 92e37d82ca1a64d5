//! Ingest semantics: unchanged files are skipped, a changed file becomes exactly one new version whose
//! old chunks stop being searchable (but stay reachable by Lance time travel), bad files don't abort.

use futures::TryStreamExt;
use mitra::ingest;
use mitra::store::str_col;

use crate::common;

async fn chunk_ids_at(store: &mitra::store::Store, version: Option<u64>) -> Vec<String> {
    let ds = match version {
        Some(v) => store.chunks().checkout_version(v).await.unwrap(),
        None => store.chunks().clone(),
    };
    let mut scan = ds.scan();
    scan.project(&["chunk_id"]).unwrap();
    let batches: Vec<_> = scan
        .try_into_stream()
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let mut ids: Vec<String> = batches
        .iter()
        .flat_map(|b| (0..b.num_rows()).map(move |i| str_col(b, 0).value(i).to_string()))
        .collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_skips_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("notes");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    std::fs::write(src.join("a.md"), "# Alpha\n\nThe quokka calibration.\n").unwrap();
    std::fs::write(src.join("sub/b.txt"), "Beta note about pileup.\n").unwrap();
    std::fs::write(src.join("ignored.pdf"), "not a text file").unwrap();
    let cfg = common::config(&dir.path().join("data"));

    let (mut store, mut index) = common::open(&cfg).await;
    let r = ingest::ingest_paths(
        &mut store,
        &mut index,
        &cfg,
        std::slice::from_ref(&src),
        false,
    )
    .await
    .unwrap();
    assert_eq!((r.added, r.updated, r.unchanged, r.failed), (2, 0, 0, 0));
    let v1 = store.chunks_version();
    let ids_v1 = chunk_ids_at(&store, None).await;
    assert_eq!(ids_v1, ["notes/a.md@1#0", "notes/sub/b.txt@1#0"]);

    // Unchanged: nothing is written.
    let r = ingest::ingest_paths(
        &mut store,
        &mut index,
        &cfg,
        std::slice::from_ref(&src),
        false,
    )
    .await
    .unwrap();
    assert_eq!((r.added, r.updated, r.unchanged), (0, 0, 2));
    assert_eq!(store.chunks_version(), v1);

    // One changed file: exactly one new version, old chunks no longer searchable.
    std::fs::write(src.join("a.md"), "# Alpha\n\nThe wombat calibration.\n").unwrap();
    std::fs::write(src.join("bad.txt"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let r = ingest::ingest_paths(
        &mut store,
        &mut index,
        &cfg,
        std::slice::from_ref(&src),
        false,
    )
    .await
    .unwrap();
    assert_eq!((r.added, r.updated, r.unchanged, r.failed), (0, 1, 1, 1));
    assert!(r.errors[0].contains("UTF-8"), "{:?}", r.errors);
    assert!(index.search("quokka", 10).unwrap().is_empty());
    let hits = index.search("wombat", 10).unwrap();
    assert_eq!(hits[0].chunk_id, "notes/a.md@2#0");
    assert_eq!(
        chunk_ids_at(&store, None).await,
        ["notes/a.md@2#0", "notes/sub/b.txt@1#0"]
    );
    let live = store.live_documents().await.unwrap();
    assert_eq!(live["notes/a.md"].0, 2);
    assert_eq!(store.documents().count_rows(None).await.unwrap(), 3);
    // Time travel: the old version of the chunks table still has the old chunk.
    assert_eq!(chunk_ids_at(&store, Some(v1)).await, ids_v1);
    index.close_writer().unwrap();
    drop(index);
    drop(store);

    // Stable across restarts: reopening changes nothing and ids are the same.
    let (store, index) = common::open(&cfg).await;
    assert_eq!(
        chunk_ids_at(&store, None).await,
        ["notes/a.md@2#0", "notes/sub/b.txt@1#0"]
    );
    assert_eq!(
        index.search("wombat", 1).unwrap()[0].chunk_id,
        "notes/a.md@2#0"
    );
}

/// Opens the store's BM25 index with or without stemming, reporting how it was synced.
async fn reopen_index(
    cfg: &mitra::Config,
    store: &mitra::store::Store,
    stemming: bool,
) -> (mitra::index::Bm25Index, mitra::index::SyncOutcome) {
    let opts = mitra::analyzer::AnalyzerOptions {
        stemming,
        stopwords: false,
    };
    let params = mitra::index::Bm25Params { k1: 1.2, b: 0.75 };
    mitra::index::Bm25Index::open_synced(&cfg.data_dir.join("bm25"), store, opts, params)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_behind_is_caught_up_and_corrupt_index_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let expected = {
        let (_s, idx) = common::open(&cfg).await;
        idx.search("muon momentum scale", 5).unwrap()
    };
    // Corrupt the index: replace every file in it with garbage. Written beside and renamed over
    // (a new inode): truncating in place could SIGBUS a still-mapped page of this process.
    for e in std::fs::read_dir(cfg.data_dir.join("bm25")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            let tmp = p.with_extension("garbage-tmp");
            std::fs::write(&tmp, b"garbage").unwrap();
            std::fs::rename(&tmp, &p).unwrap();
        }
    }
    let store = mitra::store::Store::open(&cfg.data_dir).await.unwrap();
    let (idx, outcome) = reopen_index(&cfg, &store, false).await;
    assert!(
        matches!(outcome, mitra::index::SyncOutcome::Rebuilt(_)),
        "{outcome:?}"
    );
    assert_eq!(idx.search("muon momentum scale", 5).unwrap(), expected);
    drop(idx);

    // Changing the analyzer options forces a rebuild too.
    let (idx, outcome) = reopen_index(&cfg, &store, true).await;
    assert!(
        matches!(outcome, mitra::index::SyncOutcome::Rebuilt(_)),
        "{outcome:?}"
    );
    assert!(!idx.search("muon", 5).unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_writer_at_a_time_and_readers_alongside() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let (writer, _index) = common::open(&cfg).await;
    // A second writer is refused with a clear error; nothing is repaired behind the writer's back.
    let err = mitra::store::Store::open(&cfg.data_dir)
        .await
        .err()
        .unwrap();
    assert!(err.to_string().contains("another mitra process"), "{err}");
    let (reader, writer_active) = mitra::store::Store::open_reader(&cfg.data_dir)
        .await
        .unwrap();
    assert!(writer_active);
    assert_eq!(reader.chunks().count_rows(None).await.unwrap(), 22);
    let mut reader = reader;
    assert!(reader.repair().await.is_err(), "a reader must not repair");
    drop(writer);
    let (_reader, writer_active) = mitra::store::Store::open_reader(&cfg.data_dir)
        .await
        .unwrap();
    assert!(!writer_active);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_keeps_the_analyzer_it_was_built_with() {
    use mitra::analyzer::AnalyzerOptions;
    let dir = tempfile::tempdir().unwrap();
    // A new store with the analyzer left unset: stemming and stop words.
    let mut cfg = common::config(dir.path());
    cfg.bm25.stemming = None;
    cfg.bm25.stopwords = None;
    let both = AnalyzerOptions {
        stemming: true,
        stopwords: true,
    };
    assert_eq!(mitra::index_options(&cfg).0, both);
    let cfg = common::demo_store_with(dir.path(), cfg).await;
    assert_eq!(mitra::recorded_analyzer(&cfg.data_dir), Some(both));
    let (_s, idx) = common::open(&cfg).await;
    assert_eq!(idx.analyzer().options(), both);
    // "detectors" finds "detector" only through the stemmer.
    assert!(!idx.search("detectors", 3).unwrap().is_empty());
    drop(idx);

    // A store built without them keeps its analyzer while the configuration leaves it unset.
    let old = tempfile::tempdir().unwrap();
    let built = common::demo_store(old.path()).await;
    let none = AnalyzerOptions {
        stemming: false,
        stopwords: false,
    };
    assert_eq!(mitra::recorded_analyzer(&built.data_dir), Some(none));
    let mut unset = built.clone();
    unset.bm25.stemming = None;
    unset.bm25.stopwords = None;
    assert_eq!(mitra::index_options(&unset).0, none);
    let store = mitra::store::Store::open(&unset.data_dir).await.unwrap();
    let (opts, params) = mitra::index_options(&unset);
    let (_idx, outcome) =
        mitra::index::Bm25Index::open_synced(&unset.data_dir.join("bm25"), &store, opts, params)
            .await
            .unwrap();
    assert_eq!(outcome, mitra::index::SyncOutcome::UpToDate);
    // Setting an option explicitly is a change of analyzer: the index is rebuilt with it.
    let mut stem = unset.clone();
    stem.bm25.stemming = Some(true);
    assert!(mitra::index_options(&stem).0.stemming);
    assert!(!mitra::index_options(&stem).0.stopwords);
}
