//! The server's bounds: one query-memory pool shared by all sessions, result caps, the idle
//! session timeout and `max_connections`.

use tokio_postgres::error::SqlState;

use crate::common;

/// A sort that spills, and its expected count.
const SPILLING_SORT: &str = "SELECT count(*) FROM (SELECT v, md5(v::text) AS h \
     FROM generate_series(1, 600000) t(v) ORDER BY h) s";
/// An aggregate that cannot spill and needs more than the pool.
const UNSPILLABLE: &str =
    "SELECT cardinality(array_agg(md5(v::text))) FROM generate_series(1, 3000000) t(v)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_memory_pool_for_the_server_shared_by_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    cfg.limits.server_memory_mb = 48;
    cfg.limits.max_query_memory_mb = 32;
    let addr = common::serve(&cfg).await;
    let mut tasks = Vec::new();
    for i in 0..6 {
        tasks.push(tokio::spawn(async move {
            let client = common::connect(addr).await;
            let sql = if i % 3 == 2 {
                UNSPILLABLE
            } else {
                SPILLING_SORT
            };
            match client.query_one(sql, &[]).await {
                Ok(row) => Ok(row.get::<_, i64>(0)),
                Err(e) => Err((
                    e.code().cloned(),
                    e.as_db_error().map(|d| d.message().to_string()),
                )),
            }
        }));
    }
    // A light session meanwhile.
    let light = common::connect(addr).await;
    let n: i64 = light
        .query_one("SELECT count(*) FROM documents", &[])
        .await
        .unwrap()
        .get(0);
    assert!(n > 0);
    let mut sorted = 0;
    let mut refused = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(count) => {
                assert_eq!(count, 600_000, "a spilled sort counts every row");
                sorted += 1;
            }
            Err((code, message)) => {
                assert_eq!(code, Some(SqlState::OUT_OF_MEMORY), "{message:?}");
                let m = message.unwrap_or_default();
                assert!(
                    m.contains("limits.max_query_memory_mb")
                        || m.contains("limits.server_memory_mb"),
                    "{m}"
                );
                refused += 1;
            }
        }
    }
    assert_eq!((sorted, refused), (4, 2));
    // The server and the light session carry on; the memory came back.
    let again: i64 = light.query_one(SPILLING_SORT, &[]).await.unwrap().get(0);
    assert_eq!(again, 600_000);
    let e = light.query_one(UNSPILLABLE, &[]).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::OUT_OF_MEMORY));
    let m = e.as_db_error().unwrap().message().to_string();
    assert!(m.contains("limits.max_query_memory_mb = 32 MiB"), "{m}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_caps_idle_sessions_and_too_many_clients() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    cfg.limits.max_result_rows = 100;
    cfg.limits.max_result_mb = 1;
    cfg.server.idle_session_timeout_s = 1;
    cfg.server.max_connections = 3;
    let addr = common::serve(&cfg).await;
    let client = common::connect(addr).await;
    // Rows: up to the cap; beyond it 54000 with the setting's name.
    let rows = client
        .query("SELECT v FROM generate_series(1, 100) t(v)", &[])
        .await
        .unwrap();
    assert_eq!(rows.len(), 100);
    let e = client
        .query("SELECT v FROM generate_series(1, 1000) t(v)", &[])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::PROGRAM_LIMIT_EXCEEDED));
    assert!(
        e.as_db_error()
            .unwrap()
            .message()
            .contains("limits.max_result_rows"),
        "{e:?}"
    );
    // Bytes: 90 rows of 20 kB.
    let e = client
        .simple_query("SELECT repeat('x', 20000) FROM generate_series(1, 90)")
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::PROGRAM_LIMIT_EXCEEDED));
    assert!(
        e.as_db_error()
            .unwrap()
            .message()
            .contains("limits.max_result_mb"),
        "{e:?}"
    );
    // The session is usable after either.
    client.simple_query("SELECT 1").await.unwrap();
    drop(client);

    // max_connections: the fourth client gets 53300.
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(common::connect(addr).await);
    }
    let conn = format!(
        "host=127.0.0.1 port={} dbname=mitra user=physicist",
        addr.port()
    );
    let e = tokio_postgres::connect(&conn, tokio_postgres::NoTls)
        .await
        .err()
        .expect("a fourth connection must be refused");
    assert_eq!(e.code(), Some(&SqlState::TOO_MANY_CONNECTIONS), "{e:?}");
    drop(held);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    // idle_session_timeout: an idle session is closed with 57P05; one inside a transaction
    // block is not.
    let (idle, idle_conn) = tokio_postgres::connect(&conn, tokio_postgres::NoTls)
        .await
        .unwrap();
    let ended = tokio::spawn(idle_conn);
    let (busy, busy_conn) = tokio_postgres::connect(&conn, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(busy_conn);
    busy.simple_query("BEGIN").await.unwrap();
    idle.simple_query("SELECT 1").await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    let e = ended.await.unwrap().unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::IDLE_SESSION_TIMEOUT), "{e:?}");
    assert!(idle.simple_query("SELECT 1").await.is_err());
    busy.simple_query("SELECT 1").await.unwrap();
    busy.simple_query("COMMIT").await.unwrap();
}
