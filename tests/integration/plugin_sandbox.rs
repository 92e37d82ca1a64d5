//! The sandbox: adversarial guests (.wat under plugins/testdata) each get their typed error, and
//! the same host then runs a good plugin; manifests are checked before anything is instantiated.

use mitra::config::GrantConfig;
use mitra::plugins::{PluginError, PluginHost, RunGrant, API_VERSION};

use super::plugins_common::{component_from_wat, install, plugin_config, TestServer};

const MD: &[u8] = b"# Muon selection\n\nMuons with pT above 20 GeV.\n";

fn good_extraction_works(host: &PluginHost) {
    let x = host.extractor("markdown-extractor").unwrap();
    let out = x
        .extract(MD, "text/markdown")
        .expect("a good plugin runs after a bad one");
    assert_eq!(out.blocks.len(), 2);
    assert_eq!(out.blocks[1].text, "Muons with pT above 20 GeV.");
}

#[test]
fn adversarial_guests_get_typed_errors_and_the_host_stays_healthy() {
    let data = tempfile::tempdir().unwrap();
    let pdir = tempfile::tempdir().unwrap();
    for (name, file) in [
        ("loop", "loop.wat"),
        ("grow", "grow.wat"),
        ("recurse", "recurse.wat"),
        ("oversized", "oversized.wat"),
        ("panic", "panic.wat"),
    ] {
        install(
            pdir.path(),
            name,
            "extractor",
            API_VERSION,
            &component_from_wat(file, "extractor"),
            "",
        );
    }
    let mut cfg = plugin_config(data.path(), Some(pdir.path()));
    cfg.plugins.memory_mb = 40;
    cfg.plugins.max_output_mb = 1;
    cfg.plugins.timeout_ms = 1_000;
    let host = PluginHost::new(&cfg).unwrap();
    good_extraction_works(&host);

    let started = std::time::Instant::now();
    let err = host
        .extractor("loop")
        .unwrap()
        .extract(b"x", "text/plain")
        .unwrap_err();
    assert!(
        matches!(&err, PluginError::Timeout { plugin, ms: 1000, .. } if plugin == "loop"),
        "{err}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    good_extraction_works(&host);

    let err = host
        .extractor("grow")
        .unwrap()
        .extract(b"x", "text/plain")
        .unwrap_err();
    assert!(
        matches!(&err, PluginError::MemoryLimit { plugin, limit_mb: 40, .. } if plugin == "grow"),
        "{err}"
    );
    good_extraction_works(&host);

    let err = host
        .extractor("recurse")
        .unwrap()
        .extract(b"x", "text/plain")
        .unwrap_err();
    assert!(
        matches!(&err, PluginError::StackOverflow { plugin, .. } if plugin == "recurse"),
        "{err}"
    );
    good_extraction_works(&host);

    let err = host
        .extractor("oversized")
        .unwrap()
        .extract(b"x", "text/plain")
        .unwrap_err();
    assert!(
        matches!(&err, PluginError::OutputTooLarge { plugin, limit: 1048576, bytes, .. } if plugin == "oversized" && *bytes > 16_000_000),
        "{err}"
    );
    good_extraction_works(&host);

    let err = host
        .extractor("panic")
        .unwrap()
        .extract(b"x", "text/plain")
        .unwrap_err();
    assert!(
        matches!(&err, PluginError::Trap { plugin, .. } if plugin == "panic"),
        "{err}"
    );
    assert!(err.to_string().contains("plugin panic"), "{err}");
    good_extraction_works(&host);

    // A Rust plugin's panic (the markdown extractor refuses invalid UTF-8 with an error, not a
    // panic) is a plain failure with the plugin's message.
    let err = host
        .extractor("markdown-extractor")
        .unwrap()
        .extract(&[0xff, 0xfe], "text/markdown")
        .unwrap_err();
    assert!(matches!(&err, PluginError::Failed { .. }), "{err}");
    good_extraction_works(&host);
}

#[test]
fn network_and_files_are_denied_unless_granted() {
    let data = tempfile::tempdir().unwrap();
    let pdir = tempfile::tempdir().unwrap();
    let other = TestServer::start(|_| (200, vec![], b"secret internal page".to_vec()));
    let other_url = format!("{}/", other.origin());
    let redirect_to = other_url.clone();
    let server = TestServer::start(move |req| {
        if req.path == "/redirect" {
            (302, vec![("Location".into(), redirect_to.clone())], vec![])
        } else {
            (200, vec![], b"ok".to_vec())
        }
    });
    install(
        pdir.path(),
        "fetcher",
        "crawler",
        API_VERSION,
        &component_from_wat("fetch.wat", "crawler"),
        "http = [\"*\"]",
    );
    install(
        pdir.path(),
        "reader",
        "crawler",
        API_VERSION,
        &component_from_wat("read.wat", "crawler"),
        "directory = true",
    );
    let mut cfg = plugin_config(data.path(), Some(pdir.path()));
    let port = server.addr.port();
    cfg.plugins.grants.insert(
        "fetcher".into(),
        GrantConfig {
            http: vec![server.origin(), format!("http://localhost:{port}")],
            ..Default::default()
        },
    );
    let host = PluginHost::new(&cfg).unwrap();
    let fetcher = host.crawler("fetcher", &RunGrant::default()).unwrap();
    let denied = |source: &str| match fetcher.list_documents(source) {
        Err(PluginError::Denied { plugin, what, .. }) => {
            assert_eq!(plugin, "fetcher");
            what
        }
        other => panic!("{source}: expected Denied, got {other:?}"),
    };
    // The granted origin itself is fine: the guest's own error comes back.
    match fetcher.list_documents(&format!("{}/x", server.origin())) {
        Err(PluginError::Failed { message, .. }) => assert_eq!(message, "fetch failed"),
        other => panic!("expected the guest's error, got {other:?}"),
    }
    assert!(denied(&other_url).contains("not granted"));
    assert!(denied("http://127.0.0.1:9/").contains("127.0.0.1"));
    assert!(denied("http://169.254.169.254/latest/meta-data/").contains("169.254.169.254"));
    assert!(denied("http://[::1]:9/").contains("not granted"));
    // A granted *name* that resolves to loopback is refused at resolution.
    let what = denied(&format!("http://localhost:{port}/"));
    assert!(what.contains("loopback"), "{what}");
    // A redirect from a granted origin to one that is not.
    let what = denied(&format!("{}/redirect", server.origin()));
    assert!(what.contains("redirect to"), "{what}");
    assert!(
        other.seen.lock().unwrap().is_empty(),
        "nothing reached the origin that was not granted"
    );
    good_extraction_works(&host);

    // Files: nothing without a grant; escapes refused with one.
    let reader = host.crawler("reader", &RunGrant::default()).unwrap();
    assert!(matches!(
        reader.list_documents("a.md"),
        Err(PluginError::Denied { .. })
    ));
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("a.md"), "x").unwrap();
    let reader = host
        .crawler(
            "reader",
            &RunGrant {
                directory: Some(root.path().to_path_buf()),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(matches!(
        reader.list_documents("a.md"),
        Err(PluginError::Failed { .. })
    ));
    for escape in ["../etc/passwd", "/etc/passwd", "sub/../../x"] {
        match reader.list_documents(escape) {
            Err(PluginError::Denied { what, .. }) => assert!(what.contains(escape), "{what}"),
            other => panic!("{escape}: expected Denied, got {other:?}"),
        }
    }
    good_extraction_works(&host);
}

#[test]
fn modules_are_checked_before_instantiation() {
    let data = tempfile::tempdir().unwrap();
    let pdir = tempfile::tempdir().unwrap();
    let wasm = component_from_wat("panic.wat", "extractor");
    install(
        pdir.path(),
        "future",
        "extractor",
        "mitra:plugin@0.3.0",
        &wasm,
        "",
    );
    install(pdir.path(), "pinned", "extractor", API_VERSION, &wasm, "");
    install(pdir.path(), "liar", "crawler", API_VERSION, &wasm, "");
    let mut cfg = plugin_config(data.path(), Some(pdir.path()));
    cfg.plugins.pins.insert("pinned".into(), "00".repeat(32));
    let host = PluginHost::new(&cfg).unwrap();
    assert!(matches!(
        host.extractor("future"),
        Err(PluginError::ApiVersion { found, .. }) if found == "mitra:plugin@0.3.0"
    ));
    assert!(matches!(
        host.extractor("pinned"),
        Err(PluginError::HashMismatch { .. })
    ));
    // A component that does not export the world its manifest declares.
    assert!(matches!(
        host.crawler("liar", &RunGrant::default()),
        Err(PluginError::Invalid { .. })
    ));
    assert!(matches!(
        host.crawler("markdown-extractor", &RunGrant::default()),
        Err(PluginError::WrongWorld { .. })
    ));
    assert!(matches!(
        host.extractor("nope"),
        Err(PluginError::NotFound { .. })
    ));
    // The right pin loads.
    let sha = mitra::ingest::sha256_hex(&wasm);
    cfg.plugins.pins.insert("pinned".into(), sha);
    let host = PluginHost::new(&cfg).unwrap();
    assert!(host.extractor("pinned").is_ok());
}

#[test]
fn builtins_are_listed_with_versions_and_capabilities() {
    let data = tempfile::tempdir().unwrap();
    let cfg = plugin_config(data.path(), None);
    let host = PluginHost::new(&cfg).unwrap();
    let names: Vec<&str> = host
        .registry()
        .all()
        .map(|p| p.manifest.name.as_str())
        .collect();
    assert_eq!(
        names,
        vec![
            "dir-crawler",
            "html-extractor",
            "http-index-crawler",
            "markdown-extractor",
            "pdf-extractor"
        ]
    );
    for p in host.registry().all() {
        assert_eq!(p.manifest.api, API_VERSION);
        // Every built-in links and instantiates.
        match p.manifest.world {
            mitra::plugins::World::Crawler => drop(
                host.crawler(&p.manifest.name, &RunGrant::default())
                    .unwrap(),
            ),
            mitra::plugins::World::Extractor => drop(host.extractor(&p.manifest.name).unwrap()),
        }
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mitra"))
        .args(["--data"])
        .arg(data.path())
        .args(["plugins", "list"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "dir-crawler",
        "pdf-extractor",
        "built-in",
        "mitra:plugin@0.2.0",
        "http *",
        "dir (ro)",
        "ocr",
    ] {
        assert!(text.contains(needle), "{needle} missing in\n{text}");
    }
}

/// `mitra plugins extract` runs the sandboxed extractor (chosen by media type) and the chunker
/// on local files: one JSON line per file, blocks with heading levels or chunks with heading
/// paths and pages; a file no extractor reads is an error line, not a failure of the others.
#[test]
fn plugins_extract_prints_blocks_and_chunks_of_local_files() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    let pdf = docs.path().join("paper.pdf");
    std::fs::write(&pdf, pdfgen::sample_paper().0).unwrap();
    let md = docs.path().join("note.md");
    std::fs::write(
        &md,
        "# H to mumu\n\n## Selection\n\n### Muons\n\nTight muons.\n",
    )
    .unwrap();
    let bad = docs.path().join("broken.pdf");
    std::fs::write(&bad, b"%PDF-1.4 not a pdf").unwrap();
    let run = |chunks: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mitra"));
        cmd.arg("--data")
            .arg(data.path())
            .args(["plugins", "extract"]);
        if chunks {
            cmd.arg("--chunks");
        }
        let out = cmd.arg(&pdf).arg(&md).arg(&bad).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let blocks = run(false);
    assert_eq!(blocks.len(), 3);
    assert_eq!(blocks[0]["extractor"], "pdf-extractor");
    let heads: Vec<(String, i64)> = blocks[0]["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["kind"] == "heading")
        .map(|b| {
            (
                b["text"].as_str().unwrap().to_string(),
                b["level"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(heads.contains(&("1 Introduction".into(), 1)), "{heads:?}");
    assert_eq!(heads[0].1, 0, "the title is level 0: {heads:?}");
    assert_eq!(blocks[1]["extractor"], "markdown-extractor");
    assert!(blocks[2]["error"]
        .as_str()
        .unwrap()
        .contains("pdf-extractor"));
    let chunks = run(true);
    let md_chunks = chunks[1]["chunks"].as_array().unwrap();
    assert_eq!(md_chunks[0]["heading"], "Selection › Muons");
    let pdf_chunks = chunks[0]["chunks"].as_array().unwrap();
    assert!(pdf_chunks
        .iter()
        .all(|c| c["page"].as_i64().unwrap() <= c["page_end"].as_i64().unwrap()));
    assert!(pdf_chunks.iter().any(|c| c["heading"]
        .as_str()
        .is_some_and(|h| h.starts_with("2 Data"))));
}
