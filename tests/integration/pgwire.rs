//! The Postgres wire protocol through tokio-postgres: simple and extended protocol, SQLSTATEs, auth.

use tokio_postgres::error::SqlState;
use tokio_postgres::SimpleQueryMessage;

use crate::common;

fn rows_of(msgs: &[SimpleQueryMessage]) -> Vec<Vec<String>> {
    msgs.iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(
                (0..r.len())
                    .map(|i| r.get(i).unwrap_or("").to_string())
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simple_and_extended_protocol_agree() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;

    let simple = client
        .simple_query("SELECT chunk_id, rank FROM bm25('muon momentum scale', 4) ORDER BY rank")
        .await
        .unwrap();
    let simple = rows_of(&simple);
    assert_eq!(simple.len(), 4);
    assert_eq!(simple[0][1], "1");

    // Extended protocol with bound parameters inside the table function (typed text, bigint).
    let rows = client
        .query(
            "SELECT chunk_id, doc_id, score, rank FROM bm25($1, $2) ORDER BY rank",
            &[&"muon momentum scale", &4i64],
        )
        .await
        .unwrap();
    let ids: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
    let simple_ids: Vec<String> = simple.iter().map(|r| r[0].clone()).collect();
    assert_eq!(ids, simple_ids);
    let scores: Vec<f32> = rows.iter().map(|r| r.get::<_, f32>(2)).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(rows[0].get::<_, i64>(3), 1);

    // A prepared statement reused with other values, joined with metadata and filtered.
    let stmt = client
        .prepare(
            "SELECT d.title, b.rank FROM bm25($1, $2) b JOIN documents d ON d.doc_id = b.doc_id \
             WHERE b.rank <= $3 ORDER BY b.rank",
        )
        .await
        .unwrap();
    let t = client
        .query(&stmt, &[&"b-tagging", &10i64, &1i64])
        .await
        .unwrap();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].get::<_, String>(0), "ttH(bb) with improved b-tagging");
    let t = client
        .query(&stmt, &[&"dark photon", &10i64, &1i64])
        .await
        .unwrap();
    assert_eq!(
        t[0].get::<_, String>(0),
        "Search for a dark photon decaying to muon pairs"
    );

    // GROUP BY over retrieval results.
    let g = client
        .query(
            "SELECT doc_id, count(*) AS n, max(score) AS best FROM bm25($1, 50) GROUP BY doc_id ORDER BY best DESC LIMIT 2",
            &[&"muon"],
        )
        .await
        .unwrap();
    assert_eq!(g.len(), 2);

    // rrf() with bound parameters, and SQL fusion equal to the harness's weighted RRF.
    let r = client
        .query("SELECT rrf($1), rrf($1, $2)", &[&3i64, &10.0f64])
        .await
        .unwrap();
    assert!((r[0].get::<_, f64>(0) - 1.0 / 63.0).abs() < 1e-12);
    assert!((r[0].get::<_, f64>(1) - 1.0 / 13.0).abs() < 1e-12);
    let fused = client
        .query(
            "SELECT coalesce(a.doc_id, b.doc_id) AS d, 0.7 * rrf(a.rank) + 0.3 * rrf(b.rank) AS s \
             FROM bm25($1, 20) a FULL OUTER JOIN bm25($2, 20) b ON a.chunk_id = b.chunk_id \
             ORDER BY s DESC, d",
            &[&"muon momentum", &"background estimate"],
        )
        .await
        .unwrap();
    let side = |q: &'static str| {
        let client = &client;
        async move {
            client
                .query(
                    "SELECT chunk_id, score FROM bm25($1, 20) ORDER BY rank",
                    &[&q],
                )
                .await
                .unwrap()
                .iter()
                .map(|r| (r.get::<_, String>(0), r.get::<_, f32>(1) as f64))
                .collect::<Vec<_>>()
        }
    };
    let (a, b) = (
        side("muon momentum").await,
        side("background estimate").await,
    );
    let want = mitra::eval::fusion::rrf_fuse(&a, &b, 0.7, 0.3, 60.0, 100);
    assert_eq!(fused.len(), want.len());
    for (row, (_, score)) in fused.iter().zip(&want) {
        assert!((row.get::<_, f64>(1) - score).abs() < 1e-12);
    }

    // Huge k is capped, not a crash.
    let all = client
        .query("SELECT count(*) FROM bm25('the', 9223372036854775807)", &[])
        .await
        .unwrap();
    assert!(all[0].get::<_, i64>(0) > 0);
}

async fn sqlstate(client: &tokio_postgres::Client, sql: &str) -> (SqlState, String) {
    let e = client.simple_query(sql).await.unwrap_err();
    let db = e
        .as_db_error()
        .unwrap_or_else(|| panic!("{sql}: not a db error: {e}"));
    (db.code().clone(), db.message().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_carry_sqlstates_and_the_session_survives() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    let cases = [
        ("SELEC 1", SqlState::SYNTAX_ERROR, "syntax"),
        (
            "SELECT * FROM no_such_table",
            SqlState::UNDEFINED_TABLE,
            "not found",
        ),
        (
            "SELECT * FROM no_such_fn('x', 1)",
            SqlState::UNDEFINED_FUNCTION,
            "not found",
        ),
        ("SELECT nope(1)", SqlState::UNDEFINED_FUNCTION, "nope"),
        (
            "SELECT * FROM bm25('muon', 0)",
            SqlState::INVALID_PARAMETER_VALUE,
            "positive",
        ),
        (
            "SELECT * FROM bm25('muon', -5)",
            SqlState::INVALID_PARAMETER_VALUE,
            "positive",
        ),
        (
            "SELECT * FROM bm25('', 5)",
            SqlState::INVALID_PARAMETER_VALUE,
            "empty",
        ),
        (
            "SELECT * FROM bm25('  ...  ', 5)",
            SqlState::INVALID_PARAMETER_VALUE,
            "searchable",
        ),
        (
            "SELECT * FROM bm25(NULL, 5)",
            SqlState::INVALID_PARAMETER_VALUE,
            "NULL",
        ),
        (
            "SELECT * FROM bm25('muon', 'ten')",
            SqlState::INVALID_PARAMETER_VALUE,
            "integer",
        ),
        (
            "SELECT * FROM bm25('muon')",
            SqlState::UNDEFINED_FUNCTION,
            "takes",
        ),
        (
            "SELECT no_col FROM chunks",
            SqlState::UNDEFINED_COLUMN,
            "no_col",
        ),
        // A quoted name is taken exactly as written, as in PostgreSQL.
        (
            "SELECT * FROM \"BM25\"('muon', 3)",
            SqlState::UNDEFINED_FUNCTION,
            "not found",
        ),
        // An untyped literal that is no value of the other side's type.
        (
            "SELECT count(*) FROM documents WHERE (deleted_at IS NULL) = 'maybe'",
            SqlState::INVALID_TEXT_REPRESENTATION,
            "boolean",
        ),
    ];
    for (sql, want, fragment) in cases {
        let (code, msg) = sqlstate(&client, sql).await;
        assert_eq!(code, want, "{sql}: {msg}");
        assert!(
            msg.contains(fragment),
            "{sql}: message {msg:?} lacks {fragment:?}"
        );
    }
    // Extended protocol errors too.
    let e = client
        .query("SELECT * FROM bm25($1, $2)", &[&"muon", &0i64])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::INVALID_PARAMETER_VALUE));
    let big = "muon ".repeat(4000);
    let e = client
        .query("SELECT * FROM bm25($1, $2)", &[&big.as_str(), &5i64])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::INVALID_PARAMETER_VALUE));
    // The connection is still usable.
    let r = client
        .query("SELECT count(*) FROM documents", &[])
        .await
        .unwrap();
    assert_eq!(r[0].get::<_, i64>(0), mitra::demo::NOTES.len() as i64);
    // Names and literals as PostgreSQL resolves and types them (what Superset's sqlglot and
    // SQLAlchemy 1.4's reflection send): unquoted table-function names fold to lower case, a
    // quoted one matches exactly, and an untyped literal takes the other side's type.
    for sql in [
        "SELECT count(*) FROM BM25('muon', 3)",
        "SELECT count(*) FROM Bm25('muon', 3)",
        "SELECT count(*) FROM \"bm25\"('muon', 3)",
    ] {
        let r = client.query(sql, &[]).await.unwrap();
        assert_eq!(r[0].get::<_, i64>(0), 3, "{sql}");
    }
    // PostgreSQL's date/time templates (Superset's time-range filter), never echoed back.
    let r = client
        .query(
            "SELECT to_char(TIMESTAMP '2026-12-03 08:05:09.25', 'YYYY-MM-DD HH24:MI:SS.MS'), \
             to_char(to_timestamp('2000-01-02 03:04:05.000006', 'YYYY-MM-DD HH24:MI:SS.US'), 'FMDD Mon YYYY')",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(r[0].get::<_, String>(0), "2026-12-03 08:05:09.250");
    assert_eq!(r[0].get::<_, String>(1), "2 Jan 2000");
    let (code, msg) = sqlstate(
        &client,
        "SELECT to_char(TIMESTAMP '2026-12-03 08:05:09', 'Q')",
    )
    .await;
    assert_eq!(code, SqlState::FEATURE_NOT_SUPPORTED, "{msg}");
    // Repeated result columns, as PostgreSQL allows them (Harlequin's catalog queries).
    let r = client
        .simple_query("SELECT 1, 1, doc_id, d.doc_id FROM documents d LIMIT 1")
        .await
        .unwrap();
    let SimpleQueryMessage::RowDescription(cols) = &r[0] else {
        panic!("no row description: {r:?}");
    };
    let names: Vec<&str> = cols.iter().map(|c| c.name()).collect();
    assert_eq!(names, ["?column?", "?column?", "doc_id", "doc_id"]);
    let n = mitra::demo::NOTES.len() as i64;
    for (sql, want) in [
        (
            "SELECT count(*) FROM documents WHERE (deleted_at IS NULL) = 't'",
            n,
        ),
        (
            "SELECT count(*) FROM documents WHERE 'f' = (deleted_at IS NULL)",
            0,
        ),
        (
            "SELECT count(*) FROM documents WHERE (deleted_at IS NULL) IN ('t', 'f')",
            n,
        ),
        ("SELECT count(*) FROM documents WHERE version = '1'", n),
    ] {
        let r = client.query(sql, &[]).await.unwrap();
        assert_eq!(r[0].get::<_, i64>(0), want, "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn database_name_auth_and_listen_policy() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    // Any user name on loopback, but only the database "mitra".
    let bad = format!("host=127.0.0.1 port={} dbname=other user=x", addr.port());
    let e = tokio_postgres::connect(&bad, tokio_postgres::NoTls)
        .await
        .err()
        .expect("wrong database must be refused");
    assert_eq!(e.code(), Some(&SqlState::INVALID_CATALOG_NAME));

    // Non-loopback without users is refused.
    let mut scfg = cfg.server.clone();
    scfg.listen = "0.0.0.0:0".into();
    let addr0: std::net::SocketAddr = "0.0.0.0:0".parse().unwrap();
    let err = mitra::pg::check_listen(&addr0, &scfg).unwrap_err();
    assert!(err.to_string().contains("without authentication"));

    // With users configured, SCRAM-SHA-256 passwords are checked.
    let users = dir.path().join("users.toml");
    let mut file = mitra_auth::UsersFile::default();
    file.add("alice", "s3cret", &[]).unwrap();
    file.save(&users).unwrap();
    cfg.server.users_file = Some(users);
    let addr = common::serve(&cfg).await;
    let ok = format!(
        "host=127.0.0.1 port={} dbname=mitra user=alice password=s3cret",
        addr.port()
    );
    let (client, conn) = tokio_postgres::connect(&ok, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client.simple_query("SELECT 1").await.unwrap();
    let wrong = format!(
        "host=127.0.0.1 port={} dbname=mitra user=alice password=nope",
        addr.port()
    );
    let e = tokio_postgres::connect(&wrong, tokio_postgres::NoTls)
        .await
        .err()
        .unwrap();
    assert_eq!(e.code(), Some(&SqlState::INVALID_PASSWORD));
    mitra::pg::check_listen(&addr0, &cfg.server).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sees_documents_ingested_while_serving() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    let n = |rows: Vec<tokio_postgres::Row>| rows[0].get::<_, i64>(0);
    // Prepared before the ingest, without parameters: executions must not reuse Parse-time results.
    let prepared = client
        .prepare("SELECT count(*) FROM bm25('zeppelin', 10)")
        .await
        .unwrap();
    assert_eq!(n(client.query(&prepared, &[]).await.unwrap()), 0);
    assert_eq!(
        n(client
            .query("SELECT count(*) FROM bm25('zeppelin', 10)", &[])
            .await
            .unwrap()),
        0
    );
    // Another writer (as `mitra ingest` would be) adds a note.
    let extra = dir.path().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(
        extra.join("z.md"),
        "# Zeppelin\n\nA zeppelin-borne muon detector.\n",
    )
    .unwrap();
    {
        let (mut store, mut index) = common::open(&cfg).await;
        mitra::ingest::ingest_paths(&mut store, &mut index, &cfg, &[extra], false)
            .await
            .unwrap();
        index.close_writer().unwrap();
    }
    let mut found = 0;
    for _ in 0..50 {
        found = n(client.query(&prepared, &[]).await.unwrap());
        if found > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(found, 1);
    assert_eq!(
        n(client
            .query("SELECT count(*) FROM documents", &[])
            .await
            .unwrap()),
        mitra::demo::NOTES.len() as i64 + 1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_memory_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    cfg.limits.max_query_memory_mb = 1;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    let e = client
        .simple_query("SELECT array_agg(value) IS NULL FROM generate_series(1, 3000000)")
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::OUT_OF_MEMORY), "{e}");
    // Small queries still run in the same session.
    let r = client
        .query("SELECT count(*) FROM bm25('muon', 5)", &[])
        .await
        .unwrap();
    assert!(r[0].get::<_, i64>(0) > 0);
}
