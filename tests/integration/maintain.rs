//! `mitra maintain`: old versions removed outside the retention window, the versions that a
//! recorded answer's receipt names kept (its replay reopens the same passages), versions
//! superseded inside the window kept for readers, the BM25 index still in step.

use std::path::Path;

use crate::common;

async fn chunk_versions(data_dir: &Path) -> Vec<u64> {
    let ds = lance::Dataset::open(&data_dir.join("chunks.lance").to_string_lossy())
        .await
        .unwrap();
    ds.versions()
        .await
        .unwrap()
        .iter()
        .map(|v| v.version)
        .collect()
}

async fn ingest_note(cfg: &mitra::config::Config, name: &str, text: &str) {
    let dir = cfg.data_dir.join(format!("notes-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.md")), text).unwrap();
    let (mut store, mut index) = common::open(cfg).await;
    mitra::ingest::ingest_paths(&mut store, &mut index, cfg, &[dir], false)
        .await
        .unwrap();
    index.close_writer().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintenance_keeps_what_receipts_name_and_removes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let Some((mut cfg, _model)) = crate::answer::generation_store(dir.path()).await else {
        return;
    };
    cfg.llm.record_answers = true;
    let addr = common::serve(&cfg).await;
    let c = common::connect(addr).await;
    c.query_one(
        "SELECT answer FROM answer('How is the Z+jets background of the monojet search estimated?', 3)",
        &[],
    )
    .await
    .unwrap();
    let row = c
        .query_one("SELECT answer_id, receipt FROM answers", &[])
        .await
        .unwrap();
    let (id, receipt): (String, String) = (row.get(0), row.get(1));
    let receipt: serde_json::Value = serde_json::from_str(&receipt).unwrap();
    let named = receipt["store"]["chunks"].as_u64().unwrap();

    // New versions after the answer: two notes, then one of them changed (its old chunks are
    // deleted in the latest version, so only time travel still has them).
    ingest_note(
        &cfg,
        "a",
        "# Later note\n\nThe Z+jets estimate was redone.\n",
    )
    .await;
    ingest_note(
        &cfg,
        "b",
        "# Other note\n\nThe photon control region changed.\n",
    )
    .await;
    ingest_note(
        &cfg,
        "a",
        "# Later note\n\nThe Z+jets estimate was redone twice.\n",
    )
    .await;
    let before = chunk_versions(&cfg.data_dir).await;
    assert!(before.len() >= 5, "{before:?}");

    // Inside a one-hour window, nothing superseded a minute ago goes (a reader may hold it).
    cfg.maintain.retention_hours = 1;
    let plan = mitra::maintain::plan(&cfg).await.unwrap();
    let chunks = plan.iter().find(|p| p.table == "chunks").unwrap();
    assert!(chunks.removable.is_empty(), "{chunks:?}");

    // With no window: everything old goes but the receipt's version and the latest.
    cfg.maintain.retention_hours = 0;
    let (mut store, mut index) = common::open(&cfg).await;
    let report = mitra::maintain::run(&cfg, &mut store, &mut index)
        .await
        .unwrap();
    index.close_writer().unwrap();
    let latest = store.chunks_version();
    drop((store, index));
    let after = chunk_versions(&cfg.data_dir).await;
    assert!(
        after.contains(&named),
        "receipt's version {named} removed: {after:?}"
    );
    assert!(after.contains(&latest), "{after:?}");
    assert!(after.len() < before.len(), "{before:?} -> {after:?}");
    let (plan, cleaned) = report
        .tables
        .iter()
        .find(|(p, _)| p.table == "chunks")
        .unwrap();
    assert_eq!(plan.kept_for_receipts, 1);
    assert!(cleaned.versions > 0 && cleaned.bytes > 0, "{cleaned:?}");
    let gone = before.iter().find(|v| !after.contains(v)).unwrap();
    let ds = lance::Dataset::open(&cfg.data_dir.join("chunks.lance").to_string_lossy())
        .await
        .unwrap();
    assert!(
        ds.checkout_version(*gone).await.is_err(),
        "v{gone} still opens"
    );

    // The recorded answer replays from the very passages it was given.
    let r = c
        .query_one(
            "SELECT identical, same_prompt, recorded_citations, citations FROM replay($1)",
            &[&id],
        )
        .await
        .unwrap();
    assert!(r.get::<_, bool>(0) && r.get::<_, bool>(1), "replay differs");
    assert_eq!(r.get::<_, Vec<String>>(2), r.get::<_, Vec<String>>(3));

    // The BM25 index is in step with the store, and finds the newest text.
    let (store, index) = common::open(&cfg).await;
    assert_eq!(
        index.meta().map(|m| m.chunks_version),
        Some(store.chunks_version())
    );
    drop((store, index));
    let n: i64 = c
        .query_one("SELECT count(*) FROM bm25('redone twice', 5)", &[])
        .await
        .unwrap()
        .get(0);
    assert!(n >= 1);
    // A second run has nothing left to remove.
    let plan = mitra::maintain::plan(&cfg).await.unwrap();
    assert!(plan.iter().all(|p| p.removable.is_empty()), "{plan:?}");
}
