//! Two tiers: analyses, scoping as a pre-filter, SCRAM logins and per-analysis read access.
//!
//! The store is the generated two-tier corpus (`benches/two_tier/gen_corpus.py`, written once per
//! test process into a temporary directory: eight analyses whose
//! notes share vocabulary) with tiny-DPR vectors, plus one note that belongs to no analysis.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use datafusion::prelude::SessionContext;
use mitra::config::Config;
use tokio_postgres::error::SqlState;

use crate::common;

const ALICE: (&str, &str) = ("alice", "alice's pass");
const BOB: (&str, &str) = ("bob", "bob's pass");

/// The generated corpus (seeded, stdlib Python), written once per test process.
fn data() -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let script = common::repo_root().join("benches/two_tier/gen_corpus.py");
        let out = std::process::Command::new("python3")
            .arg(&script)
            .arg("--out")
            .arg(dir.path())
            .output()
            .expect("python3 runs the corpus generator");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
    .path()
    .to_path_buf()
}

/// The two-tier store: analyses imported, the corpus ingested in small chunks (so that there are
/// enough rows for the ANN index), one unassigned note, and users alice (group hmumu) and bob
/// (no group). Keep the returned model directory alive.
pub async fn two_tier_store(dir: &Path) -> (Config, tempfile::TempDir) {
    let model = common::tiny_dpr("dpr-ctx");
    let mut cfg = common::tiny_dpr_config(dir, model.path());
    cfg.chunking.max_chars = 260;
    cfg.chunking.overlap_chars = 0;
    // Exact search until a test builds the ANN index.
    cfg.dense.ann_min_rows = usize::MAX;
    cfg.server.users_file = Some(dir.join("users.toml"));
    let (mut store, mut index) = common::open(&cfg).await;
    let dense = mitra::sql::dense_handle(&cfg).await.unwrap();
    let r = mitra::analyses::import_file(
        &store,
        &cfg.data_dir,
        &data().join("analyses.jsonl"),
        false,
        Some(dense.embedder().clone()),
    )
    .await
    .unwrap();
    assert_eq!((r.added, r.embedded), (8, 8));
    let rep = mitra::beir::ingest_corpus(&mut store, &mut index, &cfg, &data(), false)
        .await
        .unwrap();
    assert_eq!((rep.added, rep.failed), (182, 0), "{:?}", rep.errors);
    let loose = dir.join("loose");
    std::fs::create_dir_all(&loose).unwrap();
    std::fs::write(
        loose.join("trigger-faq.md"),
        "# Trigger FAQ\n\nThe dominant background of every dimuon trigger path is Drell–Yan; \
         ask the trigger conveners about prescales.\n",
    )
    .unwrap();
    mitra::ingest::ingest_paths(&mut store, &mut index, &cfg, &[loose], false)
        .await
        .unwrap();
    index.close_writer().unwrap();
    let mut users = mitra_auth::UsersFile::default();
    users.add(ALICE.0, ALICE.1, &["hmumu".into()]).unwrap();
    users.add(BOB.0, BOB.1, &[]).unwrap();
    users.save(&dir.join("users.toml")).unwrap();
    (cfg, model)
}

/// Rows of a query as strings (NULL as "NULL").
async fn rows(ctx: &SessionContext, sql: &str) -> Vec<Vec<String>> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut out = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            out.push(
                b.columns()
                    .iter()
                    .map(|c| datafusion::arrow::util::display::array_value_to_string(c, r).unwrap())
                    .map(|s| if s.is_empty() { "NULL".into() } else { s })
                    .collect(),
            );
        }
    }
    out
}

/// chunk id → analysis (or "NULL"), for every chunk.
async fn chunk_analyses(ctx: &SessionContext) -> BTreeMap<String, String> {
    rows(ctx, "SELECT chunk_id, analysis_id FROM chunks")
        .await
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

const QUERY: &str = "dominant background in the dimuon signal region";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scope_is_a_prefilter_in_every_retrieval_function() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, _model) = two_tier_store(dir.path()).await;
    // Global statistics: a scoped call must then equal the unscoped ranking filtered.
    cfg.bm25.scope_statistics = mitra::config::ScopeStatistics::Global;
    for ann in [false, true] {
        if ann {
            let mut store = mitra::store::Store::open(&cfg.data_dir).await.unwrap();
            let mut dense = cfg.dense.clone();
            dense.ann_min_rows = 256;
            let r = mitra::dense::ensure_ann_index(&mut store, &dense)
                .await
                .unwrap();
            assert!(r.built, "{r:?}");
            assert!(mitra::dense::has_vector_index(store.chunks())
                .await
                .unwrap());
        }
        let ctx = common::session(&cfg).await;
        let of = chunk_analyses(&ctx).await;
        let total = of.len();
        assert!(total > 256, "{total} chunks");
        let mut sizes: BTreeMap<String, usize> = BTreeMap::new();
        for a in of.values() {
            *sizes.entry(a.clone()).or_default() += 1;
        }
        // The whole unscoped BM25 and exact dense rankings: a scoped call must return them
        // filtered to the scope (global statistics), k rows however many others outrank them.
        let full =
            |f: &str| format!("SELECT chunk_id, score FROM {f}('{QUERY}', {total}) ORDER BY rank");
        let bm25_all = rows(&ctx, &full("bm25")).await;
        let dense_all = rows(&ctx, &full("dense")).await;
        for (analysis, &n) in sizes.iter().filter(|(a, _)| *a != "NULL") {
            for k in [1, 5, n, n + 1, total] {
                let scoped = |f: &str, extra: &str| {
                    format!(
                        "SELECT chunk_id, score FROM {f}('{QUERY}', {k}{extra}, '{analysis}') ORDER BY rank"
                    )
                };
                let b = rows(&ctx, &scoped("bm25", "")).await;
                let want: Vec<Vec<String>> = bm25_all
                    .iter()
                    .filter(|r| &of[&r[0]] == analysis)
                    .take(k)
                    .cloned()
                    .collect();
                assert_eq!(b, want, "bm25 k={k} scope {analysis}");
                let d = rows(&ctx, &scoped("dense", "")).await;
                assert_eq!(
                    d.len(),
                    k.min(n),
                    "dense k={k} scope {analysis} (ann {ann})"
                );
                assert!(d.iter().all(|r| &of[&r[0]] == analysis), "dense leaked");
                if !ann {
                    let want: Vec<Vec<String>> = dense_all
                        .iter()
                        .filter(|r| &of[&r[0]] == analysis)
                        .take(k)
                        .cloned()
                        .collect();
                    assert_eq!(d, want, "dense k={k} scope {analysis}");
                }
                let h = rows(&ctx, &scoped("hybrid", &format!(", 1.0, 1.0, 60, {total}"))).await;
                assert_eq!(h.len(), k.min(n), "hybrid k={k} scope {analysis}");
                assert!(h.iter().all(|r| &of[&r[0]] == analysis), "hybrid leaked");
                let h3 = rows(&ctx, &scoped("hybrid", "")).await;
                assert!(h3.iter().all(|r| &of[&r[0]] == analysis), "hybrid leaked");
            }
        }
        if !ann {
            scope_statistics_equal_a_store_of_the_scope_alone(&cfg, dir.path()).await;
        }
        // Two analyses at once; '*' is every analysis again.
        let two = rows(
            &ctx,
            &format!("SELECT chunk_id FROM dense('{QUERY}', {total}, 'hmumu-run2,hmumu-run3')"),
        )
        .await;
        assert_eq!(two.len(), sizes["hmumu-run2"] + sizes["hmumu-run3"]);
        let star = rows(
            &ctx,
            &format!("SELECT chunk_id FROM dense('{QUERY}', {total}, '*')"),
        )
        .await;
        assert_eq!(star.len(), total);
        // An unknown analysis is an error, not an empty result.
        let e = ctx
            .sql(&format!(
                "SELECT * FROM bm25('{QUERY}', 5, 'no-such-analysis')"
            ))
            .await
            .expect_err("unknown scope must fail");
        assert_eq!(mitra::pg::classify(&e).0, "22023");
        assert!(
            e.to_string()
                .contains("analysis \"no-such-analysis\" does not exist"),
            "{e}"
        );
    }
}

/// With `bm25.scope_statistics = "scope"`, a scoped BM25 call scores exactly as BM25 over a
/// store that holds only the scope's documents (N, document frequencies, average lengths).
async fn scope_statistics_equal_a_store_of_the_scope_alone(cfg: &Config, root: &Path) {
    let scope = "hmumu-run2";
    let mut scoped_cfg = cfg.clone();
    scoped_cfg.bm25.scope_statistics = mitra::config::ScopeStatistics::Scope;
    let ctx = common::session(&scoped_cfg).await;
    let alone_dir = root.join("alone");
    let beir = alone_dir.join("beir");
    std::fs::create_dir_all(&beir).unwrap();
    let corpus = std::fs::read_to_string(data().join("corpus.jsonl")).unwrap();
    let mine: String = corpus
        .lines()
        .filter(|l| l.contains(&format!("\"analysis_id\": \"{scope}\"")))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(mine.lines().count() > 10);
    std::fs::write(beir.join("corpus.jsonl"), mine).unwrap();
    let mut alone = common::config(&alone_dir.join("data"));
    alone.chunking = cfg.chunking.clone();
    // The same collection name, so that document ids and chunk ids agree.
    let (mut store, mut index) = common::open(&alone).await;
    mitra::analyses::import_file(
        &store,
        &alone.data_dir,
        &data().join("analyses.jsonl"),
        false,
        None,
    )
    .await
    .unwrap();
    mitra::beir::ingest_corpus(&mut store, &mut index, &alone, &beir, false)
        .await
        .unwrap();
    index.close_writer().unwrap();
    drop((store, index));
    let reference = common::session(&alone).await;
    for q in [
        QUERY,
        "leading systematic uncertainty",
        "muon pT trigger threshold 24 GeV",
    ] {
        let got = rows(
            &ctx,
            &format!("SELECT chunk_id, score FROM bm25('{q}', 20, '{scope}') ORDER BY rank"),
        )
        .await;
        let want = rows(
            &reference,
            &format!("SELECT chunk_id, score FROM bm25('{q}', 20) ORDER BY rank"),
        )
        .await;
        assert!(!want.is_empty());
        assert_eq!(got, want, "{q}");
    }
}

/// A SCRAM connection as `user`.
async fn login(
    addr: std::net::SocketAddr,
    (user, password): (&str, &str),
) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let mut c = tokio_postgres::Config::new();
    c.host("127.0.0.1")
        .port(addr.port())
        .dbname("mitra")
        .user(user)
        .password(password);
    let (client, conn) = c.connect(tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    Ok(client)
}

/// Every value of every row of a simple query, as text.
async fn texts(c: &tokio_postgres::Client, sql: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for m in c
        .simple_query(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {:?}", e.as_db_error().map(|d| d.message())))
    {
        if let tokio_postgres::SimpleQueryMessage::Row(r) = m {
            out.push(
                (0..r.len())
                    .map(|i| r.get(i).unwrap_or("NULL").to_string())
                    .collect(),
            );
        }
    }
    out
}

async fn error_of(c: &tokio_postgres::Client, sql: &str) -> (String, String) {
    let e = c
        .simple_query(sql)
        .await
        .err()
        .unwrap_or_else(|| panic!("{sql} must fail"));
    let db = e.as_db_error().unwrap_or_else(|| panic!("{sql}: {e}"));
    (db.code().code().to_string(), db.message().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logins_see_only_the_analyses_they_may_read() {
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = two_tier_store(dir.path()).await;
    let operator = common::session(&cfg).await;
    let of = chunk_analyses(&operator).await;
    let total = of.len();
    let addr = common::serve(&cfg).await;

    // Wrong password and unknown user: the same 28P01.
    for (who, pw) in [(ALICE.0, "wrong"), ("mallory", "x")] {
        let e = login(addr, (who, pw)).await.expect_err("must be refused");
        assert_eq!(e.code(), Some(&SqlState::INVALID_PASSWORD), "{e}");
        let msg = e
            .as_db_error()
            .map(|d| d.message().to_string())
            .unwrap_or_default();
        assert_eq!(
            msg,
            format!("password authentication failed for user \"{who}\"")
        );
    }
    let log_has_no_password = !std::fs::read_to_string(dir.path().join("users.toml"))
        .unwrap()
        .contains(ALICE.1);
    assert!(log_has_no_password, "the users file holds verifiers only");

    let statuses: BTreeMap<String, String> =
        rows(&operator, "SELECT analysis_id, status FROM analyses")
            .await
            .into_iter()
            .map(|r| (r[0].clone(), r[1].clone()))
            .collect();
    let open: BTreeSet<String> = statuses
        .iter()
        .filter(|(_, s)| *s == "approved" || *s == "public")
        .map(|(a, _)| a.clone())
        .collect();
    let hidden: BTreeSet<String> = statuses
        .keys()
        .filter(|a| !open.contains(*a))
        .cloned()
        .collect();
    assert!(hidden.len() >= 2, "{statuses:?}");

    let bob = login(addr, BOB).await.unwrap();
    let visible = |a: &str| a == "NULL" || open.contains(a);
    let readable_chunks = of.values().filter(|a| visible(a)).count();
    let mut statements: Vec<String> = vec![
        "SELECT analysis_id, title, status FROM analyses".into(),
        "SELECT * FROM analyses".into(),
        "SELECT analysis_id FROM documents".into(),
        "SELECT DISTINCT analysis_id FROM chunks".into(),
        "SELECT analysis_id, count(*) FROM chunks GROUP BY analysis_id".into(),
        "SELECT d.analysis_id, c.chunk_id FROM documents d JOIN chunks c ON c.doc_id = d.doc_id".into(),
        "SELECT a.analysis_id, count(c.chunk_id) FROM analyses a LEFT JOIN chunks c USING (analysis_id) GROUP BY 1".into(),
        "SELECT analysis_id FROM chunks WHERE analysis_id IN (SELECT analysis_id FROM analyses)".into(),
        "SELECT max(analysis_id), min(analysis_id), string_agg(DISTINCT analysis_id, ',') FROM chunks".into(),
        "SELECT chunk_id, text FROM chunks WHERE text LIKE '%top%'".into(),
        format!("SELECT c.analysis_id, b.chunk_id FROM bm25('{QUERY}', {total}) b JOIN chunks c USING (chunk_id)"),
        format!("SELECT c.analysis_id, b.chunk_id FROM dense('{QUERY}', {total}) b JOIN chunks c USING (chunk_id)"),
        format!("SELECT c.analysis_id, b.chunk_id FROM hybrid('{QUERY}', {total}, 1, 1, 60, {total}) b JOIN chunks c USING (chunk_id)"),
        format!("SELECT b.chunk_id FROM bm25('{QUERY}', {total}, '*') b"),
        "SELECT analysis_id, title FROM abstracts('top quark associated production dimuon', 100)".into(),
        "SELECT analysis_id FROM abstracts('W prime muon missing transverse momentum', 100)".into(),
    ];
    for t in ["analyses", "documents", "chunks"] {
        statements.push(format!("EXPLAIN SELECT * FROM {t}"));
        statements.push(format!("EXPLAIN ANALYZE SELECT count(*) FROM {t}"));
        statements.push(format!(
            "EXPLAIN VERBOSE SELECT * FROM {t} WHERE analysis_id <> 'x'"
        ));
    }
    statements.push(format!("EXPLAIN SELECT * FROM bm25('{QUERY}', 10)"));
    statements.push(
        "SELECT * FROM pg_catalog.pg_class WHERE relname IN ('chunks', 'documents', 'analyses')"
            .into(),
    );
    statements.push("SELECT * FROM information_schema.tables".into());
    statements
        .push("SELECT * FROM information_schema.columns WHERE table_name = 'analyses'".into());
    for sql in &statements {
        let out = texts(&bob, sql).await;
        let flat = format!("{out:?}");
        for h in &hidden {
            assert!(!flat.contains(h.as_str()), "{sql} reveals {h}: {flat}");
        }
    }
    // Counts agree with what bob may read, not with the store.
    let n = |v: Vec<Vec<String>>| v[0][0].parse::<usize>().unwrap();
    assert_eq!(
        n(texts(&bob, "SELECT count(*) FROM chunks").await),
        readable_chunks
    );
    assert_eq!(
        n(texts(&bob, "SELECT count(*) FROM analyses").await),
        open.len()
    );
    assert_eq!(
        n(texts(
            &bob,
            "SELECT count(*) FROM chunks WHERE analysis_id = 'tth-mumu'"
        )
        .await),
        0
    );
    assert_eq!(
        texts(
            &bob,
            &format!("SELECT count(*) FROM dense('{QUERY}', {total})")
        )
        .await[0][0],
        readable_chunks.to_string()
    );
    // The unassigned note is readable by all, but outside every scope.
    assert_eq!(
        n(texts(
            &bob,
            "SELECT count(*) FROM chunks WHERE analysis_id IS NULL"
        )
        .await),
        1
    );
    // A hidden analysis and a missing one fail alike, as a scope and as a call argument.
    for shape in [
        "SET mitra.analysis = '{}'",
        "SELECT * FROM bm25('x', 5, '{}')",
        "SELECT * FROM hybrid('x', 5, '{}')",
    ] {
        let (c1, m1) = error_of(&bob, &shape.replace("{}", "tth-mumu")).await;
        let (c2, m2) = error_of(&bob, &shape.replace("{}", "zz-none")).await;
        assert_eq!(c1, "22023", "{shape}: {m1}");
        assert_eq!(
            (c1, m1.replace("tth-mumu", "X")),
            (c2, m2.replace("zz-none", "X")),
            "{shape}"
        );
    }

    // alice (group hmumu) reads the hmumu drafts and reviews, not the others.
    let alice = login(addr, ALICE).await.unwrap();
    let hers: BTreeSet<String> = texts(&alice, "SELECT analysis_id FROM analyses")
        .await
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert!(
        hers.contains("tth-mumu") && hers.contains("hmumu-run3"),
        "{hers:?}"
    );
    assert!(
        !hers.contains("wprime-munu") && !hers.contains("lfv-higgs-mutau"),
        "{hers:?}"
    );

    // The scope holds across statements (simple and extended protocol) and ends with the session.
    texts(&alice, "SET mitra.analysis = 'tth-mumu'").await;
    assert_eq!(
        texts(&alice, "SHOW mitra.analysis").await,
        vec![vec!["tth-mumu".to_string()]]
    );
    for _ in 0..3 {
        let got = alice
            .query(
                "SELECT c.analysis_id FROM hybrid($1, $2) h JOIN chunks c USING (chunk_id)",
                &[&QUERY, &(total as i64)],
            )
            .await
            .unwrap();
        assert!(!got.is_empty());
        assert!(got
            .iter()
            .all(|r| r.get::<_, Option<String>>(0).as_deref() == Some("tth-mumu")));
    }
    // A bound scope argument (`hybrid($1, $2, $3)`, the third argument text here, a weight in
    // the longer forms) and a cast one overrides the session scope as a literal does.
    for sql in [
        "SELECT c.analysis_id FROM hybrid($1, $2, $3) h JOIN chunks c USING (chunk_id)",
        "SELECT c.analysis_id FROM hybrid($1, $2::bigint, $3::text) h JOIN chunks c USING (chunk_id)",
    ] {
        let got = alice
            .query(sql, &[&QUERY, &(total as i64), &"hmumu-run2"])
            .await
            .unwrap();
        assert!(!got.is_empty(), "{sql}");
        assert!(
            got.iter()
                .all(|r| r.get::<_, Option<String>>(0).as_deref() == Some("hmumu-run2")),
            "{sql}"
        );
    }
    // Plain tables are not filtered by the scope (only by access).
    assert!(n(texts(&alice, "SELECT count(DISTINCT analysis_id) FROM chunks").await) > 1);
    // The per-call argument overrides the session scope.
    let star = texts(
        &alice,
        &format!("SELECT count(*) FROM dense('{QUERY}', {total}, '*')"),
    )
    .await;
    assert!(n(star) > sizes_of(&of, "tth-mumu"));
    texts(&alice, "RESET mitra.analysis").await;
    assert_eq!(
        texts(&alice, "SHOW mitra.analysis").await,
        vec![vec![String::new()]]
    );
    texts(&alice, "SET mitra.analysis TO 'hmumu-run2', 'hmumu-run3'").await;
    assert_eq!(
        texts(&alice, "SHOW mitra.analysis").await,
        vec![vec!["hmumu-run2,hmumu-run3".to_string()]]
    );
    drop(alice);
    let again = login(addr, ALICE).await.unwrap();
    assert_eq!(
        texts(&again, "SHOW mitra.analysis").await,
        vec![vec![String::new()]]
    );
    // Pool resets clear it.
    texts(&again, "SET mitra.analysis = 'hmumu-run2'").await;
    texts(&again, "DISCARD ALL").await;
    assert_eq!(
        texts(&again, "SHOW mitra.analysis").await,
        vec![vec![String::new()]]
    );
}

fn sizes_of(of: &BTreeMap<String, String>, analysis: &str) -> usize {
    of.values().filter(|a| *a == analysis).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyses_import_and_ingest_rules() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::config(dir.path());
    let (mut store, mut index) = common::open(&cfg).await;
    let file = dir.path().join("analyses.jsonl");
    let line = |id: &str, status: &str| {
        format!(
            "{{\"analysis_id\":\"{id}\",\"title\":\"T {id}\",\"abstract\":\"About {id}.\",\"tags\":[\"x\"],\"status\":\"{status}\",\"groups\":[\"g\"]}}\n"
        )
    };
    std::fs::write(&file, line("a", "draft") + &line("b", "public")).unwrap();
    let imp = |force| mitra::analyses::import_file(&store, &cfg.data_dir, &file, force, None);
    let r1 = imp(false).await.unwrap();
    assert_eq!((r1.added, r1.updated, r1.unchanged), (2, 0, 0));
    let before = mitra::analyses::read_analyses(&cfg.data_dir).await.unwrap();
    let r2 = imp(false).await.unwrap();
    assert_eq!((r2.added, r2.unchanged, r2.version), (0, 2, r1.version + 1));
    let after = mitra::analyses::read_analyses(&cfg.data_dir).await.unwrap();
    assert_eq!(before, after, "unchanged rows keep updated_at");
    std::fs::write(&file, line("a", "approved") + &line("b", "public")).unwrap();

    let r3 = mitra::analyses::import_file(&store, &cfg.data_dir, &file, false, None)
        .await
        .unwrap();
    assert_eq!((r3.updated, r3.unchanged), (1, 1));

    // Documents may name only existing analyses.
    let beir = dir.path().join("beir");
    std::fs::create_dir_all(&beir).unwrap();
    std::fs::write(
        beir.join("corpus.jsonl"),
        "{\"_id\":\"d1\",\"title\":\"one\",\"text\":\"muon\",\"analysis_id\":\"a\"}\n\
         {\"_id\":\"d2\",\"title\":\"two\",\"text\":\"muon\",\"analysis_id\":\"ghost\"}\n\
         {\"_id\":\"d3\",\"title\":\"three\",\"text\":\"muon\"}\n",
    )
    .unwrap();
    let rep = mitra::beir::ingest_corpus(&mut store, &mut index, &cfg, &beir, false)
        .await
        .unwrap();
    assert_eq!((rep.added, rep.failed), (2, 1), "{:?}", rep.errors);
    assert!(
        rep.errors[0].contains("analysis \"ghost\" does not exist"),
        "{:?}",
        rep.errors
    );
    index.close_writer().unwrap();
    drop((store, index));
    let ctx = common::session(&cfg).await;
    let (store, index) = common::open(&cfg).await;
    assert_eq!(
        rows(
            &ctx,
            "SELECT doc_id, analysis_id FROM documents ORDER BY doc_id"
        )
        .await,
        vec![
            vec!["d1".to_string(), "a".into()],
            vec!["d3".into(), "NULL".into()]
        ]
    );
    assert_eq!(
        rows(&ctx, "SELECT analysis_id FROM chunks WHERE doc_id = 'd1'").await,
        vec![vec!["a".to_string()]]
    );

    // Removing an analysis that documents name is refused unless forced.
    std::fs::write(&file, line("b", "public")).unwrap();
    let e = mitra::analyses::import_file(&store, &cfg.data_dir, &file, false, None)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("a (1 documents)"), "{e}");
    assert_eq!(
        mitra::analyses::read_analyses(&cfg.data_dir)
            .await
            .unwrap()
            .len(),
        2
    );
    let r = mitra::analyses::import_file(&store, &cfg.data_dir, &file, true, None)
        .await
        .unwrap();
    assert_eq!(r.removed, vec!["a".to_string()]);

    // Bad files are refused whole, with the line.
    for (bad, why) in [
        (line("Bad Id", "public"), "is not valid"),
        (line("-x", "public"), "is not valid"),
        (line("a", "public") + &line("a", "draft"), "appears twice"),
        (line("a", "secret"), "unknown status"),
        ("{\"analysis_id\":\"a\",\"title\":\"t\",\"abstract\":\"x\",\"status\":\"public\",\"owner\":\"me\"}\n".into(), "unknown field"),
        ("{\"analysis_id\":\"a\",\"title\":\"\",\"abstract\":\"x\",\"status\":\"public\"}\n".into(), "title"),
        ("not json\n".into(), ":1:"),
    ] {
        std::fs::write(&file, &bad).unwrap();
        let e = mitra::analyses::import_file(&store, &cfg.data_dir, &file, true, None)
            .await
            .unwrap_err();
        assert!(e.to_string().contains(why), "{bad}: {e}");
    }
    assert_eq!(
        mitra::analyses::read_analyses(&cfg.data_dir)
            .await
            .unwrap()
            .len(),
        1
    );
    drop((store, index));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_confirms_the_analysis_then_stays_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = two_tier_store(dir.path()).await;
    let ctx = common::session(&cfg).await;
    let of = chunk_analyses(&ctx).await;
    let top = rows(&ctx, "SELECT analysis_id FROM abstracts('top quark pair associated Higgs to muons', 3) ORDER BY rank").await;
    assert!(top.len() >= 2);
    let second = top[1][0].clone();
    // First question: choose the second analysis offered; the next question stays inside it;
    // :all searches everything; :switch asks again (the first is confirmed with Enter).
    let script = "2\nWhich trigger is used?\n:scope\n:all\nWhich trigger is used?\n:switch\nWhich trigger is used?\n\n:quit\n";
    let mut input = std::io::Cursor::new(script.as_bytes().to_vec());
    let mut out = Vec::new();
    let opts = mitra::ask::AskOptions {
        k: 5,
        choices: 3,
        analysis: None,
        llm: None,
    };
    mitra::ask::run(
        &ctx,
        &opts,
        Some("top quark pair associated Higgs to muons".into()),
        &mut input,
        &mut out,
    )
    .await
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("Which analysis is this about?"), "{out}");
    assert!(out.contains(&format!("Searching only {second}")), "{out}");
    assert!(out.contains(&format!("scope: {second}")), "{out}");
    // Answers are printed with their citations; group them by the blocks between prompts.
    let blocks: Vec<&str> = out.split("question> ").collect();
    let cited = |block: &str| -> BTreeSet<String> {
        block
            .lines()
            .filter_map(|l| {
                l.rsplit_once('(')
                    .map(|(_, id)| id.trim_end_matches(')').to_string())
            })
            .filter(|id| of.contains_key(id))
            .map(|id| of[&id].clone())
            .collect()
    };
    // blocks[0]: first question's answer, [1]: "Which trigger" inside the scope.
    assert_eq!(
        cited(blocks[0]),
        BTreeSet::from([second.clone()]),
        "{}",
        blocks[0]
    );
    assert_eq!(
        cited(blocks[1]),
        BTreeSet::from([second.clone()]),
        "{}",
        blocks[1]
    );
    // [2] ":scope", [3] ":all", [4] the question over every analysis.
    assert!(blocks[3].contains("Searching every analysis"), "{out}");
    assert!(
        cited(blocks[4]).len() > 1,
        "':all' searches every analysis: {}",
        blocks[4]
    );
    assert!(
        out.matches("Which analysis is this about?").count() == 2,
        "{out}"
    );
    // With the model: ask()'s plan is printed, and what the answer cites stays in the scope.
    if !crate::answer::smol_present() {
        return;
    }
    let mut cfg = cfg.clone();
    crate::answer::with_smol(&mut cfg);
    cfg.llm.relevance_check = false;
    cfg.llm.support_check = false;
    let ctx = common::session(&cfg).await;
    let opts = mitra::ask::AskOptions {
        k: 3,
        choices: 3,
        analysis: Some("hmumu-run2".into()),
        llm: Some(std::sync::Arc::new(mitra::sql::llm::Llm::new(&cfg))),
    };
    let mut input = std::io::Cursor::new(b"Which trigger is used?\n:quit\n".to_vec());
    let mut out = Vec::new();
    mitra::ask::run(&ctx, &opts, None, &mut input, &mut out)
        .await
        .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("plan: "), "{out}");
    assert!(out.contains("searches: Which trigger is used?"), "{out}");
    let scoped = cited(&out);
    assert!(scoped.iter().all(|a| a == "hmumu-run2"), "{out}");
}

/// ask_plan(), ask() and compare() as bob (public and approved analyses only): every sub-query
/// of a plan is searched inside the call's scope, the session's scope or bob's access, never
/// outside them, and compare() answers each analysis from its own evidence; a hidden analysis
/// is the same error as a missing one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sub_query_and_both_sides_of_compare_keep_scope_and_access() {
    if !crate::answer::smol_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, _model) = two_tier_store(dir.path()).await;
    crate::answer::with_smol(&mut cfg);
    cfg.llm.relevance_check = false;
    cfg.llm.support_check = false;
    let of = chunk_analyses(&common::session(&cfg).await).await;
    let open: BTreeSet<&str> = [
        "hmumu-run2",
        "darkphoton-dimuon",
        "zprime-dimuon",
        "hee-run2",
    ]
    .into_iter()
    .collect();
    let addr = common::serve(&cfg).await;
    let bob = login(addr, BOB).await.unwrap();
    let q = "Which backgrounds and triggers matter most?";
    // Sub-queries aimed at hidden analyses' notes (the ttH single-electron trigger, the
    // ttH graph network, the W′ transverse mass), and one with a number the question lacks.
    let plan = r#"{"tags": ["trigger"], "class": "broad", "sub_queries": ["Which backgrounds and triggers matter most?", "single electron trigger of the top pair channel", "graph neural network classifier", "W prime transverse mass tail", "trigger threshold 24 GeV"]}"#;
    let sql = "SELECT sub_queries, plan_notes, pool, found_by FROM ask_plan($1, 40, $2)";
    let pooled = |r: &tokio_postgres::Row| -> (Vec<String>, Vec<String>, Vec<String>, Vec<String>) {
        (r.get(0), r.get(1), r.get(2), r.get(3))
    };
    // Unscoped: bob's access.
    let r = bob.query_one(sql, &[&q, &plan]).await.unwrap();
    let (subs, notes, pool, found_by) = pooled(&r);
    assert_eq!(subs.len(), 4, "{subs:?} {notes:?}");
    assert!(notes.iter().any(|n| n.contains("24")), "{notes:?}");
    assert!(!pool.is_empty() && pool.len() <= 40);
    for id in &pool {
        let a = of[id].as_str();
        assert!(a == "NULL" || open.contains(a), "{id} of {a} leaked");
    }
    assert!(
        found_by.iter().any(|f| !f.split(',').any(|i| i == "1")),
        "the other sub-queries were searched: {found_by:?}"
    );
    // The call's scope, then the session's: every pooled chunk is inside it.
    let scoped = "SELECT pool FROM ask_plan($1, 40, $2, $3)";
    let r = bob
        .query_one(scoped, &[&q, &"hmumu-run2", &plan])
        .await
        .unwrap();
    let pool: Vec<String> = r.get(0);
    assert!(!pool.is_empty());
    assert!(pool.iter().all(|id| of[id] == "hmumu-run2"), "{pool:?}");
    texts(&bob, "SET mitra.analysis = 'zprime-dimuon'").await;
    let r = bob.query_one(sql, &[&q, &plan]).await.unwrap();
    let (_, _, pool, _) = pooled(&r);
    assert!(!pool.is_empty());
    assert!(pool.iter().all(|id| of[id] == "zprime-dimuon"), "{pool:?}");
    // ask() with the model's plan, inside the session's scope.
    let r = bob
        .query_one("SELECT evidence, citations FROM ask($1, 3)", &[&q])
        .await
        .unwrap();
    let evidence: Vec<String> = r.get(0);
    assert!(!evidence.is_empty());
    assert!(
        evidence.iter().all(|id| of[id] == "zprime-dimuon"),
        "{evidence:?}"
    );
    // compare(): both named analyses, whatever the session's scope, each from its own notes.
    let r = bob
        .query(
            "SELECT analysis_id, evidence, citations, abstained, difference FROM compare($1, 'hmumu-run2', 'hee-run2', 3)",
            &[&"What is the dominant background?"],
        )
        .await
        .unwrap();
    assert_eq!(r.len(), 2);
    for (row, want) in r.iter().zip(["hmumu-run2", "hee-run2"]) {
        assert_eq!(row.get::<_, String>(0), want);
        let (ev, cited): (Vec<String>, Vec<String>) = (row.get(1), row.get(2));
        assert!(!ev.is_empty());
        assert!(ev.iter().all(|id| of[id] == want), "{want}: {ev:?}");
        assert!(cited.iter().all(|id| ev.contains(id)), "{cited:?}");
    }
    let diff: Vec<Option<String>> = r.iter().map(|row| row.get(4)).collect();
    assert_eq!(diff[0], diff[1]);
    if r.iter().any(|row| row.get::<_, bool>(3)) {
        assert_eq!(diff[0], None);
    }
    // A hidden analysis fails as a missing one; one analysis twice is an error.
    let shape = "SELECT * FROM compare('background?', 'hmumu-run2', '{}')";
    let (c1, m1) = error_of(&bob, &shape.replace("{}", "tth-mumu")).await;
    let (c2, m2) = error_of(&bob, &shape.replace("{}", "zz-none")).await;
    assert_eq!(c1, "22023", "{m1}");
    assert_eq!(
        (c1, m1.replace("tth-mumu", "X")),
        (c2, m2.replace("zz-none", "X"))
    );
    let (c, m) = error_of(
        &bob,
        "SELECT * FROM compare('background?', 'hee-run2', 'hee-run2')",
    )
    .await;
    assert_eq!(c, "22023", "{m}");
    let (c, m) = error_of(&bob, "SELECT * FROM ask_plan('x', 3, 'tth-mumu', '{}')").await;
    assert_eq!(c, "22023", "{m}");
}
