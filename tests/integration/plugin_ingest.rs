//! The plugin ingest pipeline: crawl → extract → chunk → Lance + BM25, versions, tombstones,
//! `ingest_runs`, and the HTTP crawler against a local server that requires a cookie.

use arrow_array::{Array, Int64Array, StringArray};
use mitra::config::{GrantConfig, SecretConfig, SourceConfig};
use mitra::plugins::PluginHost;

use super::common;
use super::plugins_common::{plugin_config, TestServer};

const NOTE_MD: &str = "# Higgs to tau tau\n\nThe tau identification uses a deep neural network.\n\n| region | events |\n|---|---|\n| signal | 120 |\n\nFigure 1: The visible mass distribution.\n";
const WIKI_HTML: &str = "<html><body><nav>Home</nav><h1>Trigger menu</h1><p>The single muon trigger threshold is 24 GeV.</p><footer>Last edited</footer></body></html>";

fn source(name: &str, crawler: &str, location: &str) -> SourceConfig {
    SourceConfig {
        name: name.into(),
        crawler: crawler.into(),
        extractor: None,
        location: location.into(),
        analysis_id: Some("HIG-26-001".into()),
        settings: Default::default(),
    }
}

/// Runs SQL as a server started beside the ingest would (reader: no writer lock).
async fn sql(cfg: &mitra::config::Config, q: &str) -> Vec<arrow_array::RecordBatch> {
    let (_store, index, _) = mitra::open_reader(cfg).await.unwrap();
    let ctx = mitra::sql::build_session(cfg, std::sync::Arc::new(index))
        .await
        .unwrap();
    ctx.sql(q).await.unwrap().collect().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dir_source_versions_tombstones_and_runs() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(docs.path().join("note.md"), NOTE_MD).unwrap();
    std::fs::create_dir(docs.path().join("wiki")).unwrap();
    std::fs::write(docs.path().join("wiki/trigger.html"), WIKI_HTML).unwrap();
    let (pdf, _) = pdfgen::sample_paper();
    std::fs::write(docs.path().join("paper.pdf"), &pdf).unwrap();
    std::fs::write(docs.path().join("image.png"), b"not crawled").unwrap();
    let cfg = plugin_config(data.path(), None);
    let host = PluginHost::new(&cfg).unwrap();
    let src = source("notes", "dir-crawler", &docs.path().to_string_lossy());

    let (mut store, mut index) = common::open(&cfg).await;

    common::import_analyses(&store, &cfg, &["HIG-26-001"]).await;
    let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
        .await
        .unwrap();
    assert_eq!(r.errors, Vec::<String>::new());
    assert_eq!(
        (r.run.listed, r.run.added, r.run.status.as_str()),
        (3, 3, "ok")
    );
    assert!(
        r.run.extractors.contains("pdf-extractor@0.1.0"),
        "{}",
        r.run.extractors
    );
    let versions = (store.documents().version().version, store.chunks_version());

    // Chunks carry kind and page; furniture is gone; BM25 finds the extracted text.
    let rows = sql(
        &cfg,
        "SELECT kind, count(*) AS n FROM chunks GROUP BY kind ORDER BY kind",
    )
    .await;
    let kinds = rows[0]
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let kinds: Vec<&str> = (0..kinds.len()).map(|i| kinds.value(i)).collect();
    for k in ["body", "caption", "table"] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    let furniture = sql(&cfg, "SELECT count(*) FROM chunks WHERE text LIKE '%Last edited%' OR kind IN ('header', 'footer', 'page-number')").await;
    let n = furniture[0]
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .value(0);
    assert_eq!(n, 0);
    let pages = sql(
        &cfg,
        "SELECT count(*) FROM chunks WHERE doc_id = 'notes/paper.pdf' AND page IS NULL",
    )
    .await;
    assert_eq!(
        pages[0]
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(0),
        0
    );
    // Chunks know the pages their text starts and ends on, and sit under section headings
    // (the layout's "1 Introduction"), not under the title repeated.
    let paged = sql(
        &cfg,
        "SELECT count(*) FILTER (WHERE page_end IS NULL OR page_end < page), \
                count(*) FILTER (WHERE heading LIKE '1 Introduction%') \
         FROM chunks WHERE doc_id = 'notes/paper.pdf'",
    )
    .await;
    let count = |i: usize| {
        paged[0]
            .column(i)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(0)
    };
    assert_eq!(count(0), 0, "page_end missing or before page");
    assert!(count(1) > 0, "no chunk under 1 Introduction");
    let hits = sql(
        &cfg,
        "SELECT b.doc_id FROM bm25('single muon trigger threshold', 1) b",
    )
    .await;
    assert_eq!(
        hits[0]
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap()
            .value(0),
        "notes/wiki/trigger.html"
    );
    let analysis = sql(
        &cfg,
        "SELECT count(*) FROM documents WHERE analysis_id = 'HIG-26-001' AND source = 'notes'",
    )
    .await;
    assert_eq!(
        analysis[0]
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(0),
        3
    );

    // Unchanged source: nothing is written.
    let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
        .await
        .unwrap();
    assert_eq!(
        (
            r.run.unchanged,
            r.run.added,
            r.run.updated,
            r.run.tombstoned
        ),
        (3, 0, 0, 0)
    );
    assert_eq!(
        versions,
        (store.documents().version().version, store.chunks_version())
    );

    // One changed file: exactly one new version.
    std::fs::write(docs.path().join("note.md"), NOTE_MD.replace("120", "121")).unwrap();
    let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
        .await
        .unwrap();
    assert_eq!((r.run.unchanged, r.run.updated), (2, 1));
    let live = store.live_document_rows().await.unwrap();
    assert_eq!(live["notes/note.md"].version, 2);
    assert_eq!(live["notes/paper.pdf"].version, 1);

    // A file gone from the source is tombstoned; its old version stays readable by time travel.
    let before = store.chunks_version();
    std::fs::remove_file(docs.path().join("wiki/trigger.html")).unwrap();
    let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
        .await
        .unwrap();
    assert_eq!((r.run.tombstoned, r.run.unchanged), (1, 2));
    let live = store.live_document_rows().await.unwrap();
    assert!(live["notes/wiki/trigger.html"].deleted);
    let gone = sql(
        &cfg,
        "SELECT count(*) FROM chunks WHERE doc_id = 'notes/wiki/trigger.html'",
    )
    .await;
    assert_eq!(
        gone[0]
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(0),
        0
    );
    let hits = sql(&cfg, "SELECT b.doc_id FROM bm25('single muon trigger threshold', 5) b WHERE b.doc_id = 'notes/wiki/trigger.html'").await;
    assert_eq!(hits.iter().map(|b| b.num_rows()).sum::<usize>(), 0);
    let old = store.chunks().checkout_version(before).await.unwrap();
    let n = old
        .count_rows(Some("doc_id = 'notes/wiki/trigger.html'".into()))
        .await
        .unwrap();
    assert!(
        n > 0,
        "the older Lance version still has the tombstoned document"
    );
    let tomb = sql(&cfg, "SELECT version FROM documents WHERE doc_id = 'notes/wiki/trigger.html' AND deleted_at IS NOT NULL").await;
    assert_eq!(tomb[0].num_rows(), 1);

    // It comes back: a new version, counted as added.
    std::fs::write(docs.path().join("wiki/trigger.html"), WIKI_HTML).unwrap();
    let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
        .await
        .unwrap();
    assert_eq!((r.run.added, r.run.unchanged), (1, 2));
    assert_eq!(
        store.live_document_rows().await.unwrap()["notes/wiki/trigger.html"].version,
        3
    );
    drop(index);
    drop(store);

    // Every run is visible over SQL.
    let runs = sql(&cfg, "SELECT source, status, listed, added, updated, unchanged, tombstoned, failed, crawler, chunks_version FROM ingest_runs ORDER BY started_at").await;
    let n: usize = runs.iter().map(|b| b.num_rows()).sum();
    assert_eq!(n, 5);
    let b = &runs[0];
    let col = |i: usize| {
        b.column(i)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .clone()
    };
    assert_eq!(col(3).values().to_vec(), vec![3, 0, 0, 0, 1]);
    assert_eq!(col(4).values().to_vec(), vec![0, 0, 1, 0, 0]);
    assert_eq!(col(6).values().to_vec(), vec![0, 0, 0, 1, 0]);
    let crawler = b.column(8).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(crawler.value(0), "dir-crawler@0.1.0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_documents_do_not_abort_a_run() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(docs.path().join("good.md"), NOTE_MD).unwrap();
    std::fs::write(
        docs.path().join("broken.pdf"),
        b"%PDF-1.4 this is not a pdf",
    )
    .unwrap();
    std::fs::write(docs.path().join("latin1.md"), [0x63u8, 0x61, 0x66, 0xe9]).unwrap();
    let cfg = plugin_config(data.path(), None);
    let host = PluginHost::new(&cfg).unwrap();
    let src = source("mixed", "dir-crawler", &docs.path().to_string_lossy());
    let (mut store, mut index) = common::open(&cfg).await;
    common::import_analyses(&store, &cfg, &["HIG-26-001"]).await;
    let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
        .await
        .unwrap();
    assert_eq!(
        (r.run.added, r.run.failed, r.run.status.as_str()),
        (1, 2, "partial")
    );
    assert!(
        r.errors
            .iter()
            .any(|e| e.contains("mixed/broken.pdf") && e.contains("pdf-extractor")),
        "{:?}",
        r.errors
    );
    assert!(
        r.errors
            .iter()
            .any(|e| e.contains("mixed/latin1.md") && e.contains("UTF-8")),
        "{:?}",
        r.errors
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_index_crawler_sends_the_granted_cookie() {
    const COOKIE: &str = "session=s3cr3t-value";
    let (pdf, _) = pdfgen::sample_paper();
    // A second granted origin that the secret may not go to.
    let mirror = TestServer::start(|_| (200, vec![], b"mirror".to_vec()));
    let moved_to = format!("{}/x.pdf", mirror.origin());
    let server = TestServer::start(move |req| {
        if req.path == "/analyses/notes/moved.pdf" {
            return (302, vec![("Location".into(), moved_to.clone())], vec![]);
        }
        let authed = req
            .headers
            .iter()
            .any(|(k, v)| k == "cookie" && v == COOKIE);
        if !authed {
            return (401, vec![], b"login required".to_vec());
        }
        match req.path.as_str() {
            "/analyses/index.html" => (
                200,
                vec![("Content-Type".into(), "text/html".into())],
                br#"<html><body><h1>Notes</h1><ul>
                  <li><a href="notes/an-042.pdf">AN-2026/042</a></li>
                  <li><a href="/wiki/trigger.html">Trigger wiki</a></li>
                  <li><a href="notes/readme.md">Readme</a></li>
                  <li><a href="notes/moved.pdf">Moved note</a></li>
                  <li><a href="https://elsewhere.example/x.pdf">external</a></li>
                  <li><a href="mailto:conveners@example.org">mail</a></li>
                </ul></body></html>"#
                    .to_vec(),
            ),
            "/analyses/notes/an-042.pdf" => (
                200,
                vec![("Content-Type".into(), "application/pdf".into())],
                pdf.clone(),
            ),
            "/wiki/trigger.html" => (
                200,
                vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
                WIKI_HTML.as_bytes().to_vec(),
            ),
            "/analyses/notes/readme.md" => (200, vec![], NOTE_MD.as_bytes().to_vec()),
            _ => (404, vec![], b"no".to_vec()),
        }
    });
    let data = tempfile::tempdir().unwrap();
    let secret_file = data.path().join("cookie.txt");
    std::fs::write(&secret_file, "s3cr3t-value\n").unwrap();
    let mut cfg = plugin_config(data.path(), None);
    cfg.secrets.insert(
        "cds-session".into(),
        SecretConfig {
            header: "Cookie".into(),
            prefix: "session=".into(),
            value_file: Some(secret_file),
            origins: vec![server.origin()],
            ..Default::default()
        },
    );
    let listing = format!("{}/analyses/index.html", server.origin());
    let mut src = source("cds", "http-index-crawler", &listing);
    // Without the secret: the listing fails, nothing is tombstoned, the run says so.
    {
        let host = PluginHost::new(&cfg).unwrap();
        let (mut store, mut index) = common::open(&cfg).await;
        common::import_analyses(&store, &cfg, &["HIG-26-001"]).await;
        let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
            .await
            .unwrap();
        assert_eq!(r.run.status, "failed");
        assert!(r.errors[0].contains("401"), "{:?}", r.errors);
        // Naming a secret that is not granted is a denial.
        src.settings
            .insert("secret".into(), toml::Value::String("cds-session".into()));
        let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
            .await
            .unwrap();
        assert_eq!(r.run.status, "failed");
        assert!(
            r.errors[0].contains("denied") && r.errors[0].contains("cds-session"),
            "{:?}",
            r.errors
        );
    }
    cfg.plugins.grants.insert(
        "http-index-crawler".into(),
        GrantConfig {
            http: vec![mirror.origin()],
            secrets: vec!["cds-session".into()],
            ..Default::default()
        },
    );
    let host = PluginHost::new(&cfg).unwrap();
    let (mut store, mut index) = common::open(&cfg).await;
    common::import_analyses(&store, &cfg, &["HIG-26-001"]).await;
    let r = mitra::pipeline::ingest_source(&mut store, &mut index, &cfg, &host, &src, false)
        .await
        .unwrap();
    // A redirect to the mirror would carry the secret beyond its origins: refused. The external
    // link's origin is not granted. Those two documents fail; the rest land.
    assert_eq!(
        (r.run.listed, r.run.added, r.run.failed),
        (5, 3, 2),
        "{:?}",
        r.errors
    );
    assert!(
        r.errors[0].contains("moved.pdf") && r.errors[0].contains("may not be sent"),
        "{:?}",
        r.errors
    );
    assert!(
        r.errors[1].contains("elsewhere.example") && r.errors[1].contains("denied"),
        "{:?}",
        r.errors
    );
    assert!(
        mirror.seen.lock().unwrap().is_empty(),
        "the secret never reached the mirror"
    );
    let live = store.live_document_rows().await.unwrap();
    let pdf_id = "cds/analyses/notes/an-042.pdf";
    assert!(
        live.contains_key(pdf_id),
        "{:?}",
        live.keys().collect::<Vec<_>>()
    );
    // Every request the server saw carried the cookie the host attached.
    let seen = server.seen.lock().unwrap().clone();
    assert!(
        seen.iter()
            .filter(|s| s.headers.iter().any(|(k, v)| k == "cookie" && v == COOKIE))
            .count()
            >= 4
    );
}

#[test]
fn cli_ingests_a_directory_through_plugins() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(docs.path().join("note.md"), NOTE_MD).unwrap();
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_mitra"))
            .env("MITRA_EMBEDDING_ENABLED", "false")
            .arg("--data")
            .arg(data.path())
            .args([
                "ingest",
                "--crawler",
                "dir-crawler",
                "--name",
                "notes",
                "--source",
            ])
            .arg(docs.path())
            .output()
            .unwrap()
    };
    let out = run();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("source notes: ok") && text.contains("1 added"),
        "{text}"
    );
    let out = run();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("0 added") && text.contains("1 unchanged"),
        "{text}"
    );
}
