//! The SQL front as a hostile or ordinary client meets it: read-only by construction (both
//! protocols), per-connection sessions, wire types of vectors and timestamps, parameters as
//! drivers send them, COPY TO STDOUT, cursors, what the server says it is.

use std::time::{Duration, SystemTime};

use tokio_postgres::types::Type;
use tokio_postgres::SimpleQueryMessage;

use crate::common;

fn rows_of(msgs: &[SimpleQueryMessage]) -> Vec<Vec<Option<String>>> {
    msgs.iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => {
                Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
            _ => None,
        })
        .collect()
}

async fn code_of(client: &tokio_postgres::Client, sql: &str, extended: bool) -> String {
    let r = if extended {
        client.query(sql, &[]).await.map(|_| ())
    } else {
        client.simple_query(sql).await.map(|_| ())
    };
    let e = r.expect_err(sql);
    e.code()
        .map(|c| c.code().to_string())
        .unwrap_or_else(|| format!("no SQLSTATE: {e}"))
}

/// Statements that would write, reach the server's files or change shared state; every one
/// must be refused in both protocols, also when nested.
const ATTACKS: &[(&str, &[&str])] = &[
    ("COPY (SELECT 1) TO '{file}'", &["42501"]),
    ("COPY documents TO '{file}'", &["42501"]),
    ("COPY (SELECT 1) TO PROGRAM 'touch {file}'", &["42501"]),
    ("COPY documents FROM '/etc/passwd'", &["42501"]),
    ("COPY documents FROM STDIN", &["42501"]),
    ("DROP TABLE documents", &["42501"]),
    ("DROP TABLE IF EXISTS chunks", &["42501"]),
    ("DROP SCHEMA public CASCADE", &["42501"]),
    ("CREATE TABLE t AS SELECT * FROM documents", &["42501"]),
    ("CREATE TABLE t (x int)", &["42501"]),
    ("CREATE VIEW v AS SELECT * FROM documents", &["42501"]),
    ("CREATE OR REPLACE VIEW documents AS SELECT 1", &["42501"]),
    (
        "CREATE EXTERNAL TABLE e STORED AS CSV LOCATION '/etc/passwd'",
        &["42501", "42601"],
    ),
    ("CREATE SCHEMA s", &["42501"]),
    (
        "CREATE FUNCTION f() RETURNS int AS 'select 1'",
        &["42501", "42601"],
    ),
    ("INSERT INTO documents (doc_id) VALUES ('x')", &["42501"]),
    ("UPDATE documents SET title = 'x'", &["42501"]),
    ("DELETE FROM documents", &["42501"]),
    ("TRUNCATE documents", &["42501"]),
    ("SELECT * INTO t2 FROM documents", &["42501"]),
    (
        "WITH d AS (DELETE FROM documents RETURNING *) SELECT * FROM d",
        &["42501", "42601"],
    ),
    ("EXPLAIN ANALYZE DELETE FROM documents", &["42501"]),
    ("PREPARE p AS DELETE FROM documents", &["42501"]),
    ("GRANT ALL ON documents TO public", &["42501"]),
    ("ALTER TABLE documents RENAME TO d2", &["42501"]),
    ("SET datafusion.runtime.memory_limit = '100G'", &["42501"]),
    ("SET datafusion.execution.batch_size = 1", &["42501"]),
    ("SELECT * FROM '/etc/passwd'", &["42P01", "42601"]),
    ("SELECT * FROM read_csv('/etc/passwd')", &["42883", "42P01"]),
    ("SELECT pg_read_file('/etc/passwd')", &["42883"]),
    ("SELECT * FROM pg_ls_dir('/')", &["42883", "42P01"]),
    ("LISTEN x", &["42501"]),
    ("VACUUM documents", &["42501", "42601"]),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_and_file_access_are_refused_in_both_protocols() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    let before = client
        .query_one("SELECT count(*) FROM documents", &[])
        .await
        .unwrap()
        .get::<_, i64>(0);
    let file = dir.path().join("stolen.txt");
    for (attack, codes) in ATTACKS {
        let sql = attack.replace("{file}", &file.to_string_lossy());
        for extended in [false, true] {
            let code = code_of(&client, &sql, extended).await;
            assert!(
                codes.contains(&code.as_str()),
                "{sql} (extended: {extended}) gave {code}, expected one of {codes:?}"
            );
        }
        // Nested in a transaction block: refused as well, and the block is then aborted.
        client.simple_query("BEGIN").await.unwrap();
        assert!(client.simple_query(&sql).await.is_err());
        assert_eq!(code_of(&client, "SELECT 1", false).await, "25P02");
        client.simple_query("ROLLBACK").await.unwrap();
    }
    assert!(!file.exists(), "a COPY wrote a server file");
    // Nothing changed, for this session or another one.
    let other = common::connect(addr).await;
    for c in [&client, &other] {
        let n = c
            .query_one("SELECT count(*) FROM documents", &[])
            .await
            .unwrap()
            .get::<_, i64>(0);
        assert_eq!(n, before);
        let tables = rows_of(&c.simple_query("SHOW TABLES").await.unwrap());
        assert!(!tables
            .iter()
            .any(|r| r.iter().any(|v| v.as_deref() == Some("t"))));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_isolated_and_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let a = common::connect(addr).await;
    let b = common::connect(addr).await;
    a.simple_query("SET application_name = 'session-a'")
        .await
        .unwrap();
    a.simple_query("SET TIME ZONE 'Europe/Zurich'")
        .await
        .unwrap();
    a.simple_query("DECLARE c CURSOR FOR SELECT doc_id FROM documents ORDER BY doc_id")
        .await
        .unwrap();
    let show = |m: Vec<SimpleQueryMessage>| rows_of(&m)[0][0].clone().unwrap_or_default();
    assert_eq!(
        show(a.simple_query("SHOW application_name").await.unwrap()),
        "session-a"
    );
    assert_ne!(
        show(b.simple_query("SHOW application_name").await.unwrap()),
        "session-a"
    );
    assert_ne!(
        show(b.simple_query("SHOW TIME ZONE").await.unwrap()),
        "Europe/Zurich"
    );
    assert_eq!(code_of(&b, "FETCH 1 FROM c", false).await, "34000");
    let first = rows_of(&a.simple_query("FETCH 2 FROM c").await.unwrap());
    assert_eq!(first.len(), 2);

    // What the server says it is, in the forms drivers parse.
    let v: String = a.query_one("SELECT version()", &[]).await.unwrap().get(0);
    assert!(v.starts_with("PostgreSQL 16.6 (Mitra "), "{v}");
    let v2: String = a
        .query_one("SELECT pg_catalog.version()", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(v, v2);
    let sv = show(a.simple_query("SHOW server_version").await.unwrap());
    assert!(sv.starts_with("16.6"), "{sv}");
    let user: String = a
        .query_one("SELECT current_user", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(user, "physicist");
    let user = rows_of(&a.simple_query("SELECT session_user").await.unwrap());
    assert_eq!(user[0][0].as_deref(), Some("physicist"));

    // Savepoints as SQLAlchemy uses them; a failed block answers 25P02 until it ends.
    a.simple_query("BEGIN").await.unwrap();
    a.simple_query("SAVEPOINT sa_1").await.unwrap();
    assert_eq!(
        code_of(&a, "SELECT nope FROM documents", false).await,
        "42703"
    );
    assert_eq!(code_of(&a, "SELECT 1", false).await, "25P02");
    a.simple_query("ROLLBACK TO SAVEPOINT sa_1").await.unwrap();
    a.simple_query("RELEASE SAVEPOINT sa_1").await.unwrap();
    assert_eq!(rows_of(&a.simple_query("SELECT 1").await.unwrap()).len(), 1);
    a.simple_query("COMMIT").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_and_timestamps_travel_as_real_arrays_and_timestamptz() {
    let dir = tempfile::tempdir().unwrap();
    let (cfg, _model) = common::demo_store_with_vectors(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    // Text (simple protocol): every table, every column.
    for table in ["documents", "chunks", "ingest_runs"] {
        client
            .simple_query(&format!("SELECT * FROM {table}"))
            .await
            .unwrap_or_else(|e| panic!("SELECT * FROM {table}: {e}"));
    }
    let rows = rows_of(
        &client
            .simple_query("SELECT embedding FROM chunks ORDER BY chunk_id LIMIT 1")
            .await
            .unwrap(),
    );
    let text = rows[0][0].clone().unwrap();
    assert!(text.starts_with('{') && text.ends_with('}'), "{text}");
    assert_eq!(text.split(',').count(), 16);
    // Binary (extended protocol): real[] and timestamptz.
    let stmt = client
        .prepare("SELECT chunk_id, embedding FROM chunks ORDER BY chunk_id")
        .await
        .unwrap();
    assert_eq!(stmt.columns()[1].type_(), &Type::FLOAT4_ARRAY);
    let rows = client.query(&stmt, &[]).await.unwrap();
    let v: Vec<f32> = rows[0].get(1);
    assert_eq!(v.len(), 16);
    let stmt = client
        .prepare("SELECT ingested_at FROM documents LIMIT 1")
        .await
        .unwrap();
    assert_eq!(stmt.columns()[0].type_(), &Type::TIMESTAMPTZ);
    let t: SystemTime = client.query_one(&stmt, &[]).await.unwrap().get(0);
    assert!(t.elapsed().unwrap() < Duration::from_secs(3600));
    // The same after a join with a retrieval function.
    let rows = client
        .query(
            "SELECT b.rank, c.embedding FROM bm25($1, 3) b JOIN chunks c USING (chunk_id)",
            &[&"muon"],
        )
        .await
        .unwrap();
    assert!(!rows.is_empty());
    let _: Vec<f32> = rows[0].get(1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_as_drivers_send_them() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    // A typed timestamptz parameter (binary, as psycopg 3, asyncpg, pgjdbc send it).
    let since = SystemTime::UNIX_EPOCH + Duration::from_secs(1_704_067_200);
    let stmt = client
        .prepare_typed(
            "SELECT count(*) FROM documents WHERE ingested_at > $1",
            &[Type::TIMESTAMPTZ],
        )
        .await
        .unwrap();
    let n: i64 = client.query_one(&stmt, &[&since]).await.unwrap().get(0);
    assert_eq!(n as usize, mitra::demo::NOTES.len());
    let stmt = client
        .prepare_typed(
            "SELECT count(*) FROM documents WHERE ingested_at < $1",
            &[Type::TIMESTAMP],
        )
        .await
        .unwrap();
    let n: i64 = client.query_one(&stmt, &[&since]).await.unwrap().get(0);
    assert_eq!(n, 0);
    // A parameter only the client types: the description and the row carry the client's type.
    let stmt = client
        .prepare_typed("SELECT $1 AS n", &[Type::INT4])
        .await
        .unwrap();
    assert_eq!(stmt.columns()[0].type_(), &Type::INT4);
    let n: i32 = client.query_one(&stmt, &[&7i32]).await.unwrap().get(0);
    assert_eq!(n, 7);
    // A NULL for a parameter the server types as text (untyped NULLs: the psycopg check).
    let r = client
        .query_one("SELECT $1::text IS NULL", &[&None::<String>])
        .await
        .unwrap();
    assert!(r.get::<_, bool>(0));
    // Casts and expressions around placeholders inside table-function arguments.
    let plain = client
        .query(
            "SELECT chunk_id FROM bm25($1, $2) ORDER BY rank",
            &[&"z+jets", &3i64],
        )
        .await
        .unwrap();
    for sql in [
        "SELECT chunk_id FROM bm25($1::text, $2::int) ORDER BY rank",
        "SELECT chunk_id FROM bm25(lower($1), $2) ORDER BY rank",
    ] {
        let rows = client
            .query(sql, &[&"Z+jets", &3i64])
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        let a: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
        let b: Vec<String> = plain.iter().map(|r| r.get(0)).collect();
        assert_eq!(a, b, "{sql}");
    }
    // A parameter typed by its cast, bound as an array (asyncpg's type introspection).
    let stmt = client
        .prepare("SELECT typname FROM pg_type WHERE oid = any($1::oid[]) ORDER BY typname")
        .await
        .unwrap();
    assert_eq!(stmt.params(), &[Type::OID_ARRAY]);
    let rows = client.query(&stmt, &[&vec![700u32, 1021]]).await.unwrap();
    let names: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(names, ["_float4", "float4"]);
    let x: f32 = client
        .query_one("SELECT ($1::real[])[2]", &[&vec![0.5f32, 1.5, 2.5]])
        .await
        .unwrap()
        .get(0);
    assert_eq!(x, 1.5);
    // Catalog oids are `oid`; `regtype::text` is the type's name, as Postgres prints it.
    let row = client
        .query_one(
            "SELECT oid, typelem::regtype::text FROM pg_type WHERE typname = '_float4'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.columns()[0].type_(), &Type::OID);
    assert_eq!(
        (row.get::<_, u32>(0), row.get::<_, String>(1)),
        (1021, "real".into())
    );
    // asyncpg takes a domain's base type from `typbasetype` alone (pg/type_queries.rs): that
    // holds while no domain is over another domain.
    let nested: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_type t JOIN pg_type b ON t.typbasetype = b.oid \
             WHERE t.typtype = 'd' AND b.typtype = 'd'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(nested, 0);
    // Parameters in DECLARE CURSOR, fetched through the extended protocol with a description.
    client.simple_query("BEGIN").await.unwrap();
    client
        .execute(
            "DECLARE cur CURSOR FOR SELECT chunk_id, rank FROM bm25($1, 3)",
            &[&"muon"],
        )
        .await
        .unwrap();
    let fetch = client.prepare("FETCH 2 FROM cur").await.unwrap();
    assert_eq!(fetch.columns().len(), 2);
    let rows = client.query(&fetch, &[]).await.unwrap();
    assert_eq!(rows.len(), 2);
    let _: String = rows[0].get(0);
    client.simple_query("COMMIT").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_to_stdout_in_text_and_csv() {
    use futures::StreamExt;
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    let read = |sql: &'static str| {
        let client = &client;
        async move {
            let stream = client
                .copy_out(sql)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            futures::pin_mut!(stream);
            let mut out = Vec::new();
            while let Some(chunk) = stream.next().await {
                out.extend_from_slice(&chunk.unwrap());
            }
            String::from_utf8(out).unwrap()
        }
    };
    let csv = read(
        "COPY (SELECT doc_id, title FROM documents ORDER BY doc_id) TO STDOUT WITH (FORMAT csv, HEADER true)",
    )
    .await;
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "doc_id,title");
    assert_eq!(lines.len(), 1 + mitra::demo::NOTES.len());
    let text = read("COPY (SELECT 'a\tb' AS x, NULL AS y) TO STDOUT").await;
    assert_eq!(text, "a\\tb\t\\N\n");
    let table = read("COPY documents (doc_id) TO STDOUT").await;
    assert_eq!(table.lines().count(), mitra::demo::NOTES.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scalar_subqueries_have_postgres_values() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    for extended in [false, true] {
        let q = "SELECT d.doc_id, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id) AS n, \
                 (SELECT count(*) FROM chunks) AS total FROM documents d ORDER BY d.doc_id";
        let rows: Vec<(String, i64, i64)> = if extended {
            client
                .query(q, &[])
                .await
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect()
        } else {
            rows_of(&client.simple_query(q).await.unwrap())
                .into_iter()
                .map(|r| {
                    let n = |i: usize| r[i].as_deref().unwrap().parse::<i64>().unwrap();
                    (r[0].clone().unwrap(), n(1), n(2))
                })
                .collect()
        };
        // Each document's own count (not NULL, as a select-list subquery once answered).
        let counted: i64 = rows.iter().map(|r| r.1).sum();
        assert!(rows.iter().all(|r| r.1 > 0), "{rows:?}");
        assert_eq!(counted, rows[0].2, "{rows:?}");
        // Without an aggregate, correlated and inside CASE, with a condition on the outer row.
        let q = "SELECT d.doc_id, CASE WHEN d.version > 0 THEN (SELECT c.heading FROM chunks c \
                 WHERE d.version > 0 AND c.doc_id = d.doc_id AND c.ordinal = 0) END AS h, \
                 (SELECT d.title || ' / ' || c.kind FROM chunks c WHERE c.doc_id = d.doc_id \
                 AND c.ordinal = 0) AS mixed FROM documents d ORDER BY d.doc_id";
        let rows = rows_of(&client.simple_query(q).await.unwrap());
        assert_eq!(rows.len(), 5);
        assert!(
            rows.iter().all(|r| r[1].is_some() && r[2].is_some()),
            "{rows:?}"
        );
        // No row: NULL. More than one: 21000, as in Postgres (not a silent LIMIT 1).
        let rows = rows_of(
            &client
                .simple_query("SELECT (SELECT doc_id FROM documents WHERE doc_id = 'none') AS x")
                .await
                .unwrap(),
        );
        assert_eq!(rows, vec![vec![None]]);
        assert_eq!(
            code_of(
                &client,
                "SELECT (SELECT doc_id FROM documents) AS x",
                extended
            )
            .await,
            "21000"
        );
        // Division by zero is an error for floats too; integer and float division otherwise
        // keep DataFusion's results.
        for sql in ["SELECT 1.0 / 0", "SELECT 1.0::real % 0", "SELECT 1 / 0"] {
            assert_eq!(code_of(&client, sql, extended).await, "22012", "{sql}");
        }
    }
    let rows = rows_of(
        &client
            .simple_query("SELECT 7 / 2, 7 % 3, 7.0 / 2, 'Infinity'::float8, -'Infinity'::float8, make_array('Infinity'::float8)")
            .await
            .unwrap(),
    );
    assert_eq!(
        rows[0],
        ["3", "1", "3.5", "Infinity", "-Infinity", "{Infinity}"]
            .map(|s| Some(s.to_string()))
            .to_vec()
    );
}
