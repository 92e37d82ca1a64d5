//! answer(), answer_from() and llm_status() on the real SmolLM2-135M GGUF over the wire:
//! citations only from the evidence, abstention, determinism, receipts, the queue bound,
//! disconnects, and clear errors for bad input and bad model files.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mitra::config::Config;

use crate::common;

const SMOL: &str = "smollm2-135m-instruct-q4_1";

/// The demo store with tiny-DPR vectors and the SmolLM2 model; `None` when it is not fetched
/// (with `MITRA_TEST_REQUIRE_MODELS=1` a missing model fails instead).
pub(crate) async fn llm_store(dir: &Path) -> Option<(Config, tempfile::TempDir)> {
    if !smol_present() {
        return None;
    }
    let (mut cfg, model) = common::demo_store_with_vectors(dir).await;
    with_smol(&mut cfg);
    Some((cfg, model))
}

/// Whether SmolLM2 is fetched (with `MITRA_TEST_REQUIRE_MODELS=1` a missing model fails).
pub(crate) fn smol_present() -> bool {
    match mitra::models::locate(SMOL, &common::models_dir()) {
        Ok(_) => true,
        Err(e) if std::env::var("MITRA_TEST_REQUIRE_MODELS").as_deref() == Ok("1") => {
            panic!("{e}")
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            false
        }
    }
}

/// `cfg` answering with SmolLM2, short answers over 3 short passages.
pub(crate) fn with_smol(cfg: &mut Config) {
    cfg.embedding.models_dir = common::models_dir();
    cfg.llm.model = SMOL.into();
    cfg.llm.max_new_tokens = 40;
    cfg.llm.context_tokens = 1024;
    cfg.llm.max_passage_tokens = 96;
    cfg.llm.k = 3;
}

/// As [`llm_store`], without the relevance and support steps: the mechanics of generation
/// (citations, receipts, queueing, cancellation) on every question.
pub(crate) async fn generation_store(dir: &Path) -> Option<(Config, tempfile::TempDir)> {
    let (mut cfg, model) = llm_store(dir).await?;
    cfg.llm.relevance_check = false;
    cfg.llm.support_check = false;
    Some((cfg, model))
}

/// As [`llm_store`], with answers that would generate for minutes (end of turn ignored) and
/// `queue_depth` requests allowed to wait.
async fn long_generation_store(
    dir: &Path,
    queue_depth: usize,
) -> Option<(Config, tempfile::TempDir)> {
    let (mut cfg, model) = generation_store(dir).await?;
    cfg.llm.ignore_eos = true;
    cfg.llm.context_tokens = 2048;
    cfg.llm.max_new_tokens = 1500;
    cfg.llm.queue_depth = queue_depth;
    Some((cfg, model))
}

fn strings(row: &tokio_postgres::Row, i: usize) -> Vec<String> {
    row.get::<_, Vec<String>>(i)
}

pub(crate) async fn code(c: &tokio_postgres::Client, sql: &str) -> (String, String) {
    let e = c.simple_query(sql).await.expect_err(sql);
    let db = e.as_db_error().unwrap_or_else(|| panic!("{sql}: {e}"));
    (db.code().code().to_string(), db.message().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_cite_only_their_evidence_and_are_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let Some((mut cfg, _model)) = generation_store(dir.path()).await else {
        return;
    };
    cfg.llm.record_answers = true;
    let addr = common::serve(&cfg).await;
    let c = common::connect(addr).await;
    let ids: Vec<String> = c
        .query("SELECT chunk_id FROM chunks", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let sql = "SELECT answer, abstained, grounded, citations, invalid_citations, evidence, model, \
               chunks_version, prompt_tokens, completion_tokens FROM answer($1, 3)";
    // Several questions: whether a 135M model cites or abstains changes with the CPU's
    // kernels (on AVX-512 machines it abstains on the first two), and the checks need to see
    // citations, kept or dropped.
    let questions = [
        "How is the Z+jets background of the monojet search estimated?",
        "What is the beam-induced background at a muon collider?",
        "Which control regions are used for the Z+jets background?",
        "What does the dimuon control region require?",
        "What mass window does the dimuon control region use?",
        "What is the photon pT threshold in the photon control region?",
    ];
    let mut seen_citations = 0i64;
    let mut first = None;
    let mut answers: Vec<String> = Vec::new();
    for q in questions {
        let r = c.query_one(sql, &[&q]).await.unwrap();
        let (answer, abstained, grounded): (String, bool, bool) = (r.get(0), r.get(1), r.get(2));
        let (citations, evidence) = (strings(&r, 3), strings(&r, 5));
        let invalid: i64 = r.get(4);
        assert_eq!(evidence.len(), 3, "{q}");
        assert!(evidence.iter().all(|e| ids.contains(e)), "{evidence:?}");
        assert!(
            citations.iter().all(|x| evidence.contains(x)),
            "{citations:?} ⊄ {evidence:?}"
        );
        assert_eq!(grounded, !citations.is_empty(), "{q}");
        assert!(!(abstained && grounded));
        if abstained {
            assert_eq!(answer, mitra_llm::ABSTENTION);
        }
        let model: String = r.get(6);
        assert!(
            model.starts_with(SMOL) && model.contains("b179c9523d0e6a0f"),
            "{model}"
        );
        assert!(r.get::<_, Option<i64>>(7).unwrap() >= 1);
        assert!(r.get::<_, i64>(8) > 100 && r.get::<_, i64>(9) > 0);
        seen_citations += citations.len() as i64 + invalid;
        answers.push(answer.clone());
        if first.is_none() {
            first = Some((answer, citations, invalid, r.get::<_, i64>(9)));
        }
    }
    // The checks saw citations (kept or dropped), so they were exercised.
    assert!(
        seen_citations > 0,
        "the model cited nothing in any answer: {answers:?}"
    );
    // Greedy decoding: the same question over the same evidence gives the same answer.
    let r = c.query_one(sql, &[&questions[0]]).await.unwrap();
    let again = (r.get(0), strings(&r, 3), r.get(4), r.get(9));
    assert_eq!(first.unwrap(), again);
    // Receipts: every answer is in the operator's audit table with its raw text and evidence.
    let log = c
        .query(
            "SELECT function, question, raw_answer, evidence, model, chunks_version FROM answers ORDER BY asked_at",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(log.len(), questions.len() + 1);
    assert_eq!(log[0].get::<_, String>(1), questions[0]);
    assert!(log
        .iter()
        .take(questions.len() + 1)
        .all(|r| !r.get::<_, String>(2).is_empty()));
    // Each step's time is recorded with the answer.
    let steps = c
        .query("SELECT ms_relevance, ms_support FROM answers", &[])
        .await
        .unwrap();
    assert!(steps
        .iter()
        .all(|r| r.get::<_, Option<f32>>(0).is_some_and(|v| v >= 0.0)
            && r.get::<_, Option<f32>>(1).is_some_and(|v| v >= 0.0)));
    // answer_from over a retrieval written in SQL: the evidence is the query's rows, in order.
    let ranked: Vec<String> = c
        .query(
            "SELECT chunk_id FROM bm25('control regions monojet', 2) ORDER BY rank",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let r = c
        .query_one(
            "SELECT a['evidence'], a['citations'], a['abstained'] FROM (SELECT answer_from($1, c.chunk_id, c.text ORDER BY b.rank) AS a \
             FROM bm25('control regions monojet', 2) b JOIN chunks c USING (chunk_id)) t",
            &[&"Which control regions constrain the Z+jets background?"],
        )
        .await
        .unwrap();
    assert_eq!(strings(&r, 0), ranked);
    assert!(strings(&r, 1).iter().all(|x| ranked.contains(x)));
    // The worker is the process's, shared with the tests running beside this one: it is
    // generating only while one of them asks, and idle again after.
    wait_status(&c, 600, |s, _| s == "idle").await;
    let st = c
        .query_one("SELECT state, served, sha256 FROM llm_status()", &[])
        .await
        .unwrap();
    assert!(st.get::<_, i64>(1) >= 5);
    // Replay: each recorded answer re-runs from its receipt to the same answer, through the
    // chunks version it was read at, after the store has moved on.
    let log = c
        .query(
            "SELECT answer_id, function, answer FROM answers ORDER BY asked_at",
            &[],
        )
        .await
        .unwrap();
    let from = log
        .iter()
        .position(|r| r.get::<_, String>(1) == "answer_from")
        .expect("an answer_from row");
    let later = dir.path().join("later");
    std::fs::create_dir_all(&later).unwrap();
    std::fs::write(
        later.join("moved-on.md"),
        "# Later note\n\nThe Z+jets background was re-estimated with a new control region.\n",
    )
    .unwrap();
    let (mut store, mut index) = common::open(&cfg).await;
    mitra::ingest::ingest_paths(&mut store, &mut index, &cfg, &[later], false)
        .await
        .unwrap();
    index.close_writer().unwrap();
    drop((store, index));
    for i in [0, from] {
        let id: String = log[i].get(0);
        let r = c
            .query_one(
                "SELECT answer_id, recorded_answer, answer, identical, same_prompt, recorded_citations, citations FROM replay($1)",
                &[&id],
            )
            .await
            .unwrap();
        assert_eq!(r.get::<_, String>(0), id);
        assert_eq!(r.get::<_, String>(1), log[i].get::<_, String>(2));
        assert_eq!(r.get::<_, String>(2), r.get::<_, String>(1), "{id}");
        assert!(r.get::<_, bool>(3) && r.get::<_, bool>(4), "{id}");
        assert_eq!(strings(&r, 5), strings(&r, 6));
    }
    let (state, msg) = code(&c, "SELECT * FROM replay('no-such-answer')").await;
    assert_eq!(state, "42704", "{msg}");
    assert!(msg.contains("no-such-answer"), "{msg}");
}

/// One `answer()` row as the checks tests read it.
#[derive(Debug, Clone, PartialEq)]
struct Checked {
    answer: String,
    abstained: bool,
    citations: Vec<String>,
    completion_tokens: i64,
    relevant: Vec<String>,
    unsupported: i64,
}

async fn checked(c: &tokio_postgres::Client, q: &str) -> Checked {
    checked_ms(c, q).await.0
}

/// [`checked`], with the milliseconds of the relevance step and of the support check.
async fn checked_ms(c: &tokio_postgres::Client, q: &str) -> (Checked, f32, f32) {
    let r = c
        .query_one(
            "SELECT answer, abstained, citations, completion_tokens, relevant, unsupported, evidence, \
             ms_relevance, ms_support FROM answer($1, 3)",
            &[&q],
        )
        .await
        .unwrap();
    let row = Checked {
        answer: r.get(0),
        abstained: r.get(1),
        citations: strings(&r, 2),
        completion_tokens: r.get(3),
        relevant: strings(&r, 4),
        unsupported: r.get(5),
    };
    let evidence = strings(&r, 6);
    assert!(row.relevant.iter().all(|x| evidence.contains(x)), "{row:?}");
    assert!(
        row.citations.iter().all(|x| evidence.contains(x)),
        "{row:?}"
    );
    (row, r.get(7), r.get(8))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relevance_and_support_steps_change_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    let Some((cfg, _model)) = llm_store(dir.path()).await else {
        return;
    };
    let server = |f: fn(&mut Config)| {
        let mut c = cfg.clone();
        f(&mut c);
        async move { common::connect(common::serve(&c).await).await }
    };
    // Every step with the defaults; a relevance bar no passage can pass; a support bar no
    // sentence can pass; and generation alone. One store, one model worker.
    let defaults = server(|_| {}).await;
    let strict_relevance = server(|c| c.llm.min_relevance = f32::MAX).await;
    let strict_support = server(|c| {
        c.llm.relevance_check = false;
        c.llm.min_support = f32::MAX;
    })
    .await;
    let plain = server(|c| {
        c.llm.relevance_check = false;
        c.llm.support_check = false;
    })
    .await;
    let questions = [
        "How is the Z+jets background of the monojet search estimated?",
        "What mass window does the dimuon control region use?",
        "What is the photon pT threshold in the photon control region?",
    ];
    let mut generated_cited = 0;
    for q in questions {
        let all = checked(&defaults, q).await;
        // Identical calls give identical rows, checks included.
        assert_eq!(all, checked(&defaults, q).await, "{q}");
        if all.abstained {
            assert_eq!(all.answer, mitra_llm::ABSTENTION, "{q}");
            assert!(all.citations.is_empty(), "{q}");
        } else {
            assert!(!all.citations.is_empty(), "{q}: {all:?}");
        }
        if all.relevant.is_empty() {
            assert!(all.abstained && all.completion_tokens == 0, "{q}: {all:?}");
        }
        // No relevant passage: abstention before any generation (the judge ran, timed).
        let (r, r_relevance, r_support) = checked_ms(&strict_relevance, q).await;
        assert!(
            r.abstained && r.relevant.is_empty() && r.completion_tokens == 0,
            "{q}: {r:?}"
        );
        assert!(
            r_relevance > 0.0 && r_support == 0.0,
            "{q}: {r_relevance} {r_support}"
        );
        let (p, p_relevance, p_support) = checked_ms(&plain, q).await;
        assert!(p.completion_tokens > 0, "{q}: {p:?}");
        assert_eq!(p.unsupported, 0, "{q}");
        assert_eq!((p_relevance, p_support), (0.0, 0.0), "{q}: no step ran");
        // No supported sentence: every sentence removed, the answer abstains.
        let (s, s_relevance, s_support) = checked_ms(&strict_support, q).await;
        assert!(s.completion_tokens > 0, "{q}: {s:?}");
        assert!(
            s_relevance == 0.0 && s_support > 0.0,
            "{q}: {s_relevance} {s_support}"
        );
        if !p.abstained {
            generated_cited += 1;
            assert!(s.abstained && s.unsupported > 0, "{q}: {s:?} vs {p:?}");
            assert_ne!(s.answer, p.answer, "{q}");
        }
    }
    assert!(
        generated_cited > 0,
        "the model answered none of the questions with a citation"
    );
}

/// A connection whose driver task the test can abort (the client vanishes mid-statement).
async fn connect_droppable(
    addr: std::net::SocketAddr,
) -> (tokio_postgres::Client, tokio::task::JoinHandle<()>) {
    let (client, conn) = tokio_postgres::connect(
        &format!(
            "host={} port={} dbname=mitra user=physicist",
            addr.ip(),
            addr.port()
        ),
        tokio_postgres::NoTls,
    )
    .await
    .unwrap();
    (
        client,
        tokio::spawn(async move {
            let _ = conn.await;
        }),
    )
}

/// Polls `llm_status()` until `f` holds (or fails after `secs`).
async fn wait_status(
    c: &tokio_postgres::Client,
    secs: u64,
    f: impl Fn(&str, i64) -> bool,
) -> (String, i64) {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        let r = c
            .query_one("SELECT state, cancelled FROM llm_status()", &[])
            .await
            .unwrap();
        let (s, n): (String, i64) = (r.get(0), r.get(1));
        if f(&s, n) {
            return (s, n);
        }
        assert!(
            Instant::now() < until,
            "llm_status stayed {s}, cancelled {n}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_is_53300_and_a_disconnect_stops_the_generation() {
    let dir = tempfile::tempdir().unwrap();
    // No room to wait behind the running generation.
    let Some((cfg, _model)) = long_generation_store(dir.path(), 0).await else {
        return;
    };
    let addr = common::serve(&cfg).await;
    let watcher = common::connect(addr).await;
    let (long, conn) = connect_droppable(addr).await;
    let running = tokio::spawn(async move {
        let r = long
            .simple_query("SELECT answer FROM answer('What dominates the monojet background?')")
            .await;
        eprintln!("the long answer ended: {:?}", r.map(|_| ()));
    });
    wait_status(&watcher, 120, |s, _| s == "generating").await;
    let (state, msg) = code(
        &watcher,
        "SELECT answer FROM answer('Muon collider backgrounds?')",
    )
    .await;
    assert_eq!(state, "53300", "{msg}");
    assert!(msg.contains("busy"), "{msg}");
    // The client goes away mid-generation: the worker stops within a bounded time.
    running.abort();
    conn.abort();
    let _ = running.await;
    let _ = conn.await;
    let t = Instant::now();
    let (s, n) = wait_status(&watcher, 20, |s, n| s == "idle" && n >= 1).await;
    assert_eq!((s.as_str(), n), ("idle", 1));
    eprintln!("worker idle {:?} after the disconnect", t.elapsed());
    // The server keeps serving.
    let r = watcher
        .query_one("SELECT count(*) FROM chunks", &[])
        .await
        .unwrap();
    assert!(r.get::<_, i64>(0) > 0);
}

/// Runs `sql` on `c` in a task; its error's SQLSTATE and message (or "ok").
fn spawn_statement(
    c: std::sync::Arc<tokio_postgres::Client>,
    sql: &'static str,
) -> tokio::task::JoinHandle<(String, String)> {
    tokio::spawn(async move {
        match c.simple_query(sql).await {
            Ok(_) => ("ok".into(), String::new()),
            Err(e) => match e.as_db_error() {
                Some(db) => (db.code().code().to_string(), db.message().to_string()),
                None => ("no sqlstate".into(), e.to_string()),
            },
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_requests_timeouts_and_disconnects_stop_answer_answer_from_and_ask() {
    let dir = tempfile::tempdir().unwrap();
    // A worker of its own (workers are per process, keyed by file, device and queue depth):
    // the other tests' answers do not show in its status.
    let Some((cfg, _model)) = long_generation_store(dir.path(), 1).await else {
        return;
    };
    let addr = common::serve(&cfg).await;
    let watcher = common::connect(addr).await;
    let c = std::sync::Arc::new(common::connect(addr).await);
    const ANSWER: &str = "SELECT answer FROM answer('What dominates the monojet background?')";
    const ANSWER_FROM: &str = "SELECT a['answer'] FROM (SELECT answer_from('Which control regions constrain Z+jets?', c.chunk_id, c.text ORDER BY b.rank) AS a \
         FROM bm25('control regions monojet', 3) b JOIN chunks c USING (chunk_id)) t";
    const ASK: &str = "SELECT answer FROM ask('What dominates the monojet background?')";
    let mut cancelled = 0;
    for (what, sql) in [
        ("answer()", ANSWER),
        ("answer_from()", ANSWER_FROM),
        ("ask()", ASK),
    ] {
        // A cancel request (psql's Ctrl-C) while the answer is generated: 57014, and the
        // worker stops; the connection stays usable.
        let running = spawn_statement(c.clone(), sql);
        wait_status(&watcher, 120, |s, _| s == "generating").await;
        c.cancel_token()
            .cancel_query(tokio_postgres::NoTls)
            .await
            .unwrap();
        let (state, msg) = tokio::time::timeout(Duration::from_secs(20), running)
            .await
            .unwrap_or_else(|_| panic!("{what} went on after the cancel request"))
            .unwrap();
        assert_eq!(state, "57014", "{what}: {msg}");
        assert!(msg.contains("user request"), "{what}: {msg}");
        cancelled += 1;
        wait_status(&watcher, 20, |s, n| s == "idle" && n >= cancelled).await;
        // statement_timeout covers the generation too.
        c.simple_query("SET statement_timeout = 4000")
            .await
            .unwrap();
        let t = Instant::now();
        let (state, msg) = spawn_statement(c.clone(), sql).await.unwrap();
        assert_eq!(state, "57014", "{what}: {msg}");
        assert!(msg.contains("statement timeout"), "{what}: {msg}");
        assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
        cancelled += 1;
        wait_status(&watcher, 20, |s, n| s == "idle" && n >= cancelled).await;
        c.simple_query("SET statement_timeout = 0").await.unwrap();
        let r = c
            .query_one("SELECT count(*) FROM chunks", &[])
            .await
            .unwrap();
        assert!(r.get::<_, i64>(0) > 0);
    }
    // answer_from's client goes away mid-generation: the worker stops (the aggregate waits
    // synchronously, so this is watched apart from the statement's task).
    let (gone, conn) = connect_droppable(addr).await;
    let running = spawn_statement(std::sync::Arc::new(gone), ANSWER_FROM);
    wait_status(&watcher, 120, |s, _| s == "generating").await;
    running.abort();
    conn.abort();
    let _ = running.await;
    let _ = conn.await;
    let t = Instant::now();
    cancelled += 1;
    wait_status(&watcher, 20, |s, n| s == "idle" && n >= cancelled).await;
    eprintln!(
        "answer_from: worker idle {:?} after the disconnect",
        t.elapsed()
    );
    let (state, msg) = spawn_statement(c.clone(), "SELECT count(*) FROM chunks")
        .await
        .unwrap();
    assert_eq!(state, "ok", "{msg}");
}

/// A GGUF header with one string metadata entry and no tensors.
fn tiny_gguf(path: &Path, arch: &str) {
    let mut b = Vec::new();
    b.extend_from_slice(b"GGUF");
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes());
    let key = b"general.architecture";
    b.extend_from_slice(&(key.len() as u64).to_le_bytes());
    b.extend_from_slice(key);
    b.extend_from_slice(&8u32.to_le_bytes());
    b.extend_from_slice(&(arch.len() as u64).to_le_bytes());
    b.extend_from_slice(arch.as_bytes());
    std::fs::write(path, b).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_questions_and_bad_model_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let Some((cfg, _model)) = llm_store(dir.path()).await else {
        return;
    };
    let addr = common::serve(&cfg).await;
    let c = common::connect(addr).await;
    let long = format!("SELECT * FROM answer('{}')", "muon ".repeat(4000));
    for (sql, want) in [
        ("SELECT * FROM answer(NULL)", "22023"),
        ("SELECT * FROM answer('')", "22023"),
        ("SELECT * FROM answer('   ')", "22023"),
        ("SELECT * FROM answer('muons', 0)", "22023"),
        ("SELECT * FROM answer('muons', -3)", "22023"),
        (
            "SELECT * FROM answer('muons', 1, 'NO-SUCH-ANALYSIS')",
            "22023",
        ),
        ("SELECT * FROM answer()", "42883"),
        (long.as_str(), "22023"),
    ] {
        let (got, msg) = code(&c, sql).await;
        assert_eq!(got, want, "{}: {msg}", &sql[..sql.len().min(60)]);
        assert!(msg.starts_with("answer()"), "{msg}");
    }
    // Bad model files, each its own server: missing, truncated, wrong checksum, unknown
    // architecture, not fetched.
    let smol = mitra::models::locate(SMOL, &cfg.embedding.models_dir).unwrap();
    let gguf = std::fs::read_dir(&smol)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "gguf"))
        .unwrap();
    let bad = dir.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let truncated = bad.join("truncated.gguf");
    let bytes = std::fs::read(&gguf).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let unknown = bad.join("gpt2.gguf");
    tiny_gguf(&unknown, "gpt2");
    // A registry model whose file was changed: the pinned sha256 fails.
    let models = bad.join("models");
    let entry = models.join(SMOL);
    std::fs::create_dir_all(&entry).unwrap();
    let mut changed = bytes.clone();
    let n = changed.len();
    changed[n - 10] ^= 0xff;
    std::fs::write(entry.join(gguf.file_name().unwrap()), changed).unwrap();
    let cases: Vec<(Option<PathBuf>, Option<PathBuf>, &str, &str)> = vec![
        (
            Some(bad.join("missing.gguf")),
            None,
            "58P01",
            "no such file",
        ),
        (Some(truncated), None, "XX001", "truncated"),
        (
            Some(unknown),
            None,
            "0A000",
            "unsupported architecture \"gpt2\"",
        ),
        (None, Some(models), "XX001", "does not match the pinned"),
        (None, Some(bad.join("empty")), "55000", "mitra models fetch"),
    ];
    for (path, models_dir, want, text) in cases {
        let mut cfg = cfg.clone();
        cfg.llm.model_path = path;
        if let Some(m) = models_dir {
            // The encoder is the tiny DPR model by directory; only the LLM looks here.
            cfg.embedding.models_dir = m;
        }
        let addr = common::serve(&cfg).await;
        let c2 = common::connect(addr).await;
        let (got, msg) = code(
            &c2,
            "SELECT * FROM answer('What is the Z+jets background?')",
        )
        .await;
        assert_eq!(got, want, "{msg}");
        assert!(msg.contains(text), "{msg}");
    }
    // Other sessions are still served.
    let r = c
        .query_one("SELECT count(*) FROM bm25('muon', 3)", &[])
        .await
        .unwrap();
    assert_eq!(r.get::<_, i64>(0), 3);
}

/// ask(): the plan (SmolLM2 falls back to the question alone; the checks are unit-tested on
/// injected outputs), citations only from its pool, each citation with the sub-queries that
/// found it, the same row twice, and a scope that does not exist refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_cites_only_its_pool_and_is_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let Some((cfg, _model)) = generation_store(dir.path()).await else {
        return;
    };
    let addr = common::serve(&cfg).await;
    let c = common::connect(addr).await;
    let q = "How is the Z+jets background of the monojet search estimated?";
    let sql = "SELECT answer, abstained, citations, evidence, tags, class, sub_queries, found_by \
               FROM ask($1, 3)";
    let r = c.query_one(sql, &[&q]).await.unwrap();
    let (citations, evidence) = (strings(&r, 2), strings(&r, 3));
    let (tags, class, subs, found_by): (Vec<String>, String, Vec<String>, Vec<String>) =
        (r.get(4), r.get(5), r.get(6), r.get(7));
    assert!(!evidence.is_empty() && evidence.len() <= 3, "{evidence:?}");
    assert!(
        citations.iter().all(|x| evidence.contains(x)),
        "{citations:?}"
    );
    assert_eq!(subs[0], q);
    assert!(subs.len() <= 5);
    assert!(["precise", "broad", "reasoning"].contains(&class.as_str()));
    assert!(tags.len() <= 12);
    assert_eq!(found_by.len(), citations.len());
    for f in &found_by {
        assert!(
            f.split(',').all(|i| i
                .parse::<usize>()
                .is_ok_and(|i| (1..=subs.len()).contains(&i))),
            "{found_by:?}"
        );
    }
    let again = c.query_one(sql, &[&q]).await.unwrap();
    assert_eq!(again.get::<_, String>(0), r.get::<_, String>(0));
    assert_eq!(again.get::<_, bool>(1), r.get::<_, bool>(1));
    assert_eq!(again.get::<_, String>(5), class);
    for i in [2, 3, 4, 6, 7] {
        assert_eq!(strings(&again, i), strings(&r, i), "column {i}");
    }
    let (state, msg) = code(&c, "SELECT * FROM ask('x', 3, 'no-such-analysis')").await;
    assert_eq!(state, "22023", "{msg}");
    let (state, _) = code(&c, "SELECT * FROM ask('')").await;
    assert_eq!(state, "22023");
}
