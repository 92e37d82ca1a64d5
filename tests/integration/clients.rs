//! Real client programs against a real server: psql, psycopg 3, psycopg2, asyncpg,
//! SQLAlchemy 2 with pandas, the PostgreSQL JDBC driver.
//! Each runs where the client is installed (`.ci/run` installs all three); CI sets
//! `MITRA_TEST_REQUIRE_CLIENTS=1` so that a missing client fails instead of skipping.

use std::path::Path;
use std::process::Command;

use crate::common;

fn required() -> bool {
    std::env::var("MITRA_TEST_REQUIRE_CLIENTS").is_ok_and(|v| v == "1")
}

fn skip(what: &str) {
    assert!(
        !required(),
        "{what} is required (MITRA_TEST_REQUIRE_CLIENTS=1) but not installed"
    );
    eprintln!("skipping: {what} not installed");
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("client runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "client failed: {stdout}\n{stderr}");
    stdout + &stderr
}

/// Whether `python3` can import every one of `modules` (comma-separated).
fn has_python(modules: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `tests/clients/SCRIPT PORT` with python3 against a served store; its output.
async fn python_client(script: &str, addr: std::net::SocketAddr) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/clients")
        .join(script);
    let port = addr.port().to_string();
    tokio::task::spawn_blocking(move || run(Command::new("python3").arg(script).arg(port)))
        .await
        .unwrap()
}

/// psql against the server at `addr`, one `-c` per command, stopping at the first error.
async fn psql(addr: std::net::SocketAddr, commands: &[&str]) -> String {
    let conn = format!(
        "host=127.0.0.1 port={} dbname=mitra user=physicist",
        addr.port()
    );
    let commands: Vec<String> = commands.iter().map(|c| c.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let mut cmd = Command::new("psql");
        cmd.arg(&conn).args(["-X", "-v", "ON_ERROR_STOP=1"]);
        for c in &commands {
            cmd.args(["-c", c]);
        }
        run(&mut cmd)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psql_lists_and_queries() {
    if !common::has_program("psql") {
        return skip("psql");
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let out = psql(
        addr,
        &[
            "\\dt",
            "\\d chunks",
            "SELECT rank, chunk_id FROM bm25('Z+jets', 2) ORDER BY rank",
            "SELECT current_database()",
        ],
    )
    .await;
    for want in [
        "public | chunks",
        "public | documents",
        "Table \"public.chunks\"",
        "chunk_id",
        "demo-notes/zjets-met.md@1#0",
        "mitra",
    ] {
        assert!(out.contains(want), "psql output lacks {want:?}:\n{out}");
    }
    // Errors reach psql with their SQLSTATE.
    let conn = format!(
        "host=127.0.0.1 port={} dbname=mitra user=physicist",
        addr.port()
    );
    let out = tokio::task::spawn_blocking(move || {
        Command::new("psql")
            .arg(&conn)
            .args([
                "-X",
                "-v",
                "VERBOSITY=verbose",
                "-c",
                "SELECT * FROM bm25('muon', 0)",
            ])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("22023"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psycopg_binds_parameters() {
    if !has_python("psycopg") {
        return skip("python3 with psycopg");
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let out = python_client("psycopg_check.py", addr).await;
    assert!(out.contains("psycopg OK"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jdbc_prepared_statements() {
    let jar = Path::new("/usr/share/java/postgresql.jar");
    if !jar.exists() || !common::has_program("javac") {
        return skip("javac and libpostgresql-jdbc-java");
    }
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = common::demo_store_with_vectors(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/MitraJdbc.java");
    let classes = dir.path().join("classes");
    let url = format!("jdbc:postgresql://127.0.0.1:{}/mitra", addr.port());
    let out = tokio::task::spawn_blocking(move || {
        run(Command::new("javac").arg("-d").arg(&classes).arg(&src));
        let cp = format!("{}:{}", classes.display(), jar.display());
        run(Command::new("java").args(["-cp", &cp, "MitraJdbc", &url, "muon momentum"]))
    })
    .await
    .unwrap();
    assert!(out.contains("JDBC OK"), "{out}");
    assert!(out.contains("sqlstate 22023"), "{out}");
    for want in [
        "column chunks.embedding _float4 2003",
        "column documents.ingested_at timestamptz 93",
        "function bm25",
        "function hybrid",
        "fetched 22 rows in batches of 5",
        "readonly 42501",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    assert!(
        out.contains("table chunks") && out.contains("table documents"),
        "{out}"
    );
    // JDBC's getFunctions lists every function of the registry (aggregates are not functions
    // to JDBC).
    for f in mitra::pg::FUNCTIONS {
        if !matches!(f.returns, mitra::sql::registry::Returns::Aggregate) {
            assert!(
                out.contains(&format!("function {}\n", f.name)),
                "{}: {out}",
                f.name
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_matrix() {
    if !has_python("psycopg2, asyncpg, sqlalchemy, pandas, psycopg") {
        return skip("python3 with psycopg2, asyncpg, sqlalchemy, pandas");
    }
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = common::demo_store_with_vectors(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let out = python_client("python_matrix.py", addr).await;
    for want in [
        "psycopg2 OK",
        "asyncpg OK",
        "sqlalchemy+pandas OK",
        "python matrix OK",
    ] {
        assert!(out.contains(want), "{want} missing:\n{out}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psql_describes_vectors_and_lists_functions() {
    if !common::has_program("psql") {
        return skip("psql");
    }
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = common::demo_store_with_vectors(dir.path()).await;
    // Every table function, scalar and aggregate the SQL session adds to DataFusion's is in the
    // catalog (pg_proc, \\df, information_schema.routines): a new function cannot be forgotten.
    let (_store, index, _) = mitra::open_reader(&cfg).await.unwrap();
    let ctx = mitra::sql::build_session(&cfg, std::sync::Arc::new(index))
        .await
        .unwrap();
    let plain = datafusion::prelude::SessionContext::new();
    let listed: Vec<&str> = mitra::pg::FUNCTIONS.iter().map(|f| f.name).collect();
    let state = ctx.state();
    let plain_state = plain.state();
    let added = state
        .table_functions()
        .keys()
        .filter(|n| !plain_state.table_functions().contains_key(*n))
        .chain(
            state
                .scalar_functions()
                .keys()
                .filter(|n| !plain_state.scalar_functions().contains_key(*n)),
        )
        .chain(
            state
                .aggregate_functions()
                .keys()
                .filter(|n| !plain_state.aggregate_functions().contains_key(*n)),
        );
    for name in added {
        assert!(
            listed.contains(&name.as_str()),
            "{name} is not in the catalog"
        );
    }
    let addr = common::serve(&cfg).await;
    let out = psql(
        addr,
        &[
            "\\d chunks",
            "\\d documents",
            "\\df",
            "\\d+ chunks",
            "\\df+ bm25",
            "\\dt+",
            "\\sf bm25",
            "SELECT * FROM chunks LIMIT 2",
            "\\copy (SELECT doc_id FROM documents) TO STDOUT",
            "SELECT proname, pg_get_function_arguments(oid) FROM pg_proc WHERE proname = 'bm25'",
        ],
    )
    .await;
    for want in [
        "real[]",
        "timestamp with time zone",
        "bm25",
        "hybrid",
        "answer",
        "abstracts",
        "replay",
        "llm_status",
        "TABLE(chunk_id text, doc_id text, score real, rank bigint)",
        "query text, k bigint",
        "demo-notes/zjets-met.md",
        // \\d+ and \\dt+: descriptions from schemas/, sizes of the Lance datasets.
        "Stable id '<doc_id>@<version>#<ordinal>'; answers cite it.",
        "Searchable passages of the live document versions",
        " kB",
        // \\df+ and \\sf: the description and a readable definition.
        "BM25 ranking of chunks for a query (tantivy index)",
        "CREATE OR REPLACE FUNCTION public.bm25(query text, k bigint)",
    ] {
        assert!(out.contains(want), "psql output lacks {want:?}:\n{out}");
    }
    // Tab completion (in a pseudo-terminal, through pexpect).
    if !has_python("pexpect") {
        return skip("python3 with pexpect");
    }
    let out = python_client("psql_completion.py", addr).await;
    assert!(out.contains("psql completion OK"), "{out}");
}

/// Logins and the session scope from psql, psycopg and pgjdbc (SCRAM-SHA-256).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scram_logins_and_scope_from_every_client() {
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = crate::two_tier::two_tier_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let port = addr.port().to_string();
    if common::has_program("psql") {
        let conn = format!("host=127.0.0.1 port={port} dbname=mitra user=alice");
        let out = tokio::task::spawn_blocking(move || {
            let ok = run(Command::new("psql")
                .arg(&conn)
                .env("PGPASSWORD", "alice's pass")
                .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1"])
                .args(["-c", "SET mitra.analysis = 'tth-mumu'"])
                .args(["-c", "SHOW mitra.analysis"])
                .args(["-c", "SELECT string_agg(DISTINCT c.analysis_id, ',') FROM bm25('dominant background', 100) b JOIN chunks c USING (chunk_id)"])
                .args(["-c", "RESET mitra.analysis"])
                .args(["-c", "SELECT 'unscoped:' || count(DISTINCT c.analysis_id) FROM bm25('dominant background', 100) b JOIN chunks c USING (chunk_id)"]));
            // A new connection starts unscoped.
            let again = run(Command::new("psql")
                .arg(&conn)
                .env("PGPASSWORD", "alice's pass")
                .args(["-X", "-A", "-t", "-c", "SHOW mitra.analysis"]));
            assert_eq!(again.trim(), "", "scope must not survive a reconnect");
            let bad = Command::new("psql")
                .arg(&conn)
                .env("PGPASSWORD", "wrong")
                .args(["-X", "-c", "SELECT 1"])
                .output()
                .unwrap();
            (ok, bad)
        })
        .await
        .unwrap();
        let (ok, bad) = out;
        let lines: Vec<&str> = ok.lines().collect();
        assert!(lines.contains(&"tth-mumu"), "{ok}");
        assert_eq!(
            lines.iter().filter(|l| **l == "tth-mumu").count(),
            2,
            "scope kept: {ok}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("unscoped:") && *l != "unscoped:1"),
            "{ok}"
        );
        assert!(!bad.status.success());
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(
            err.contains("password authentication failed for user \"alice\""),
            "{err}"
        );
    } else {
        skip("psql");
    }
    if has_python("psycopg") {
        let out = python_client("scram_scope.py", addr).await;
        assert!(out.contains("psycopg SCRAM OK"), "{out}");
    } else {
        skip("psycopg");
    }
    let jar = Path::new("/usr/share/java/postgresql.jar");
    if !jar.exists() || !common::has_program("javac") {
        return skip("javac and libpostgresql-jdbc-java");
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/MitraJdbcScope.java");
    let classes = dir.path().join("classes");
    let url = format!("jdbc:postgresql://127.0.0.1:{port}/mitra");
    let out = tokio::task::spawn_blocking(move || {
        run(Command::new("javac").arg("-d").arg(&classes).arg(&src));
        let cp = format!("{}:{}", classes.display(), jar.display());
        run(Command::new("java").args(["-cp", &cp, "MitraJdbcScope", &url]))
    })
    .await
    .unwrap();
    assert!(out.contains("JDBC SCOPE OK"), "{out}");
    assert!(out.contains("scope kept hmumu-run3"), "{out}");
    assert!(out.contains("wrong password 28P01"), "{out}");
}

/// TLS from psql, psycopg 3, psycopg2, asyncpg and pgjdbc with `server.tls = required` and
/// a certificate made in the test: `sslmode=require` with channel binding required
/// (SCRAM-SHA-256-PLUS), `verify-full` against the test's CA, plaintext refused (28000).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_from_psql_psycopg_asyncpg_and_jdbc() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, _model) = crate::two_tier::two_tier_store(dir.path()).await;
    let (ca, cert, key) = common::test_certificates(dir.path());
    cfg.server.tls = mitra::config::TlsMode::Required;
    cfg.server.tls_cert = Some(cert);
    cfg.server.tls_key = Some(key);
    let addr = common::serve(&cfg).await;
    let port = addr.port().to_string();
    if common::has_program("psql") {
        let (port, ca) = (port.clone(), ca.clone());
        let (secure, verified, plain) = tokio::task::spawn_blocking(move || {
            let psql = |conn: String| {
                let mut c = Command::new("psql");
                c.arg(conn)
                    .env("PGPASSWORD", "alice's pass")
                    .args(["-X", "-A", "-t", "-c", "\\conninfo", "-c", "SELECT 40 + 2"]);
                c
            };
            let secure = run(&mut psql(format!(
                "host=127.0.0.1 port={port} dbname=mitra user=alice sslmode=require channel_binding=require"
            )));
            let verified = run(&mut psql(format!(
                "host=localhost port={port} dbname=mitra user=alice sslmode=verify-full sslrootcert={}",
                ca.display()
            )));
            let plain = psql(format!(
                "host=127.0.0.1 port={port} dbname=mitra user=alice sslmode=disable"
            ))
            .output()
            .unwrap();
            (secure, verified, plain)
        })
        .await
        .unwrap();
        for out in [&secure, &verified] {
            assert!(out.contains("SSL connection (protocol: TLSv1.3"), "{out}");
            assert!(out.contains("42"), "{out}");
        }
        assert!(!plain.status.success());
        let err = String::from_utf8_lossy(&plain.stderr);
        assert!(err.contains("accepts TLS connections only"), "{err}");
    } else {
        skip("psql");
    }
    if has_python("psycopg, psycopg2, asyncpg") {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/tls_check.py");
        let (port, ca) = (port.clone(), ca.clone());
        let out = tokio::task::spawn_blocking(move || {
            run(Command::new("python3").arg(script).arg(port).arg(ca))
        })
        .await
        .unwrap();
        assert!(out.contains("TLS clients OK"), "{out}");
    } else {
        skip("python3 with psycopg, psycopg2, asyncpg");
    }
    let jar = Path::new("/usr/share/java/postgresql.jar");
    if !jar.exists() || !common::has_program("javac") {
        return skip("javac and libpostgresql-jdbc-java");
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/MitraJdbcTls.java");
    let classes = dir.path().join("classes");
    let out = tokio::task::spawn_blocking(move || {
        run(Command::new("javac").arg("-d").arg(&classes).arg(&src));
        let cp = format!("{}:{}", classes.display(), jar.display());
        run(Command::new("java")
            .args(["-cp", &cp, "MitraJdbcTls"])
            .args([
                format!("127.0.0.1:{port}"),
                ca.display().to_string(),
                "alice".into(),
                "alice's pass".into(),
            ]))
    })
    .await
    .unwrap();
    for want in [
        "require 1",
        "verify-full 2",
        "plaintext refused 28000",
        "wrong password 28P01",
        "JDBC TLS OK",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
}

/// The venv of a SQL tool that `scripts/setup.sh` installs (`$MITRA_VENVS`, by default
/// `~/.cache/mitra-venvs/NAME`), when it has the tool.
fn venv_python(name: &str, probe: &str) -> Option<std::path::PathBuf> {
    let root = std::env::var_os("MITRA_VENVS")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/mitra-venvs")))?;
    let python = root.join(name).join("bin/python");
    Command::new(&python)
        .args(["-c", probe])
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(python)
}

/// Runs `tests/clients/SCRIPT PORT ARGS...` with `python`; what the known gaps are (checks that
/// fail for reasons the issue notes record) goes in `MITRA_KNOWN_GAPS`.
async fn tool_client(
    python: std::path::PathBuf,
    script: &str,
    addr: std::net::SocketAddr,
    args: &[&str],
    gaps: &str,
) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients");
    let mut cmd = Command::new(python);
    cmd.arg(dir.join(script))
        .arg(addr.port().to_string())
        .args(args)
        .env("MITRA_KNOWN_GAPS", gaps)
        .current_dir(&dir);
    tokio::task::spawn_blocking(move || run(&mut cmd))
        .await
        .unwrap()
}

/// The SQL tools people open, as they run them against a served store with vectors: pgcli's
/// start-up metadata queries, completions and backslash commands; Harlequin's catalog;
/// SQLAlchemy 1.4 (what Superset pins) and 2.x reflection of every table with pandas; the SQL
/// Superset 6.1 sent for its database, datasets, SQL Lab, chart and cost estimate (replayed;
/// `benches/superset/run.sh` runs Superset itself).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_tools_pgcli_harlequin_sqlalchemy_superset() {
    let pgcli = venv_python("pgcli", "import pgcli, pgspecial");
    let harlequin = venv_python("harlequin", "import harlequin_postgres");
    let sqla14 = venv_python(
        "sqla14",
        "import sqlalchemy, psycopg2, pandas; assert sqlalchemy.__version__.startswith('1.4')",
    );
    let (Some(pgcli), Some(harlequin), Some(sqla14)) = (pgcli, harlequin, sqla14) else {
        return skip("the pgcli, harlequin and sqla14 venvs (scripts/setup.sh)");
    };
    if !has_python("psycopg2, sqlalchemy, pandas, psycopg") {
        return skip("python3 with psycopg2, sqlalchemy, pandas");
    }
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = common::demo_store_with_vectors(dir.path()).await;
    let addr = common::serve(&cfg).await;
    // pgcli's casing file (off by default) needs regexp_split_to_table; \dp and \dD need
    // correlated subqueries (nested in ARRAY(), inside COALESCE) that DataFusion does not plan.
    let gaps = "pgexecute.casing,refresher.casing,special \\dp,special \\dD";
    let out = tool_client(pgcli, "pgcli_check.py", addr, &["--mitra"], gaps).await;
    assert!(out.contains("pgcli OK"), "{out}");
    for want in [
        "PASS special \\d+ chunks",
        "PASS special \\df+ bm25",
        "PASS special \\sf bm25",
        "PASS special \\du",
    ] {
        assert!(out.contains(want), "{want} missing:\n{out}");
    }
    let out = tool_client(harlequin, "harlequin_check.py", addr, &["--mitra"], "").await;
    assert!(out.contains("harlequin OK"), "{out}");
    let out = tool_client(sqla14, "sqlalchemy_reflect.py", addr, &["--mitra"], "").await;
    assert!(out.contains("sqlalchemy OK"), "SQLAlchemy 1.4: {out}");
    let out = python_client_args("sqlalchemy_reflect.py", addr, &["--mitra"]).await;
    assert!(out.contains("sqlalchemy OK"), "SQLAlchemy 2: {out}");
    let out = python_client_args("superset_replay.py", addr, &["fixtures/superset_sql.txt"]).await;
    assert!(out.contains("superset replay OK"), "{out}");
}

/// [`python_client`] with further arguments, run in `tests/clients`.
async fn python_client_args(script: &str, addr: std::net::SocketAddr, args: &[&str]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients");
    let mut cmd = Command::new("python3");
    cmd.arg(dir.join(script))
        .arg(addr.port().to_string())
        .args(args)
        .current_dir(&dir);
    tokio::task::spawn_blocking(move || run(&mut cmd))
        .await
        .unwrap()
}

/// `mitra serve` logs each failed statement with its SQLSTATE, message, the statement and the
/// session, as PostgreSQL's `log_min_error_statement` does: errors found while planning and
/// errors found while the rows are computed (a cast of one value) alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_logs_failed_statements_with_their_text() {
    if !common::has_program("psql") {
        return skip("psql");
    }
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_mitra"))
        .arg("--data")
        .arg(&cfg.data_dir)
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(std::time::Instant::now() < deadline, "server did not start");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let conn = format!("host=127.0.0.1 port={port} dbname=mitra user=physicist");
    for sql in [
        "SELECT no_such_column FROM documents",
        "SELECT CAST(title AS int) FROM documents",
    ] {
        let out = Command::new("psql")
            .args([&conn, "-X", "-c", sql])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{sql} should fail");
    }
    server.kill().unwrap();
    let out = server.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let failed: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("statement failed"))
        .collect();
    assert_eq!(failed.len(), 2, "{log}");
    assert!(
        failed[0].contains("SELECT no_such_column FROM documents"),
        "{log}"
    );
    assert!(failed[0].contains("42703"), "{log}");
    // Each statement of a simple query is logged as parsed (keywords and types upper case).
    assert!(
        failed[1]
            .to_lowercase()
            .contains("select cast(title as int) from documents"),
        "{log}"
    );
    assert!(failed[1].contains("22P02"), "{log}");
    assert!(failed.iter().all(|l| l.contains("physicist")), "{log}");
}
