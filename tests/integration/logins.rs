//! Logins and TLS at the server's edge: certificates that fail closed, plaintext refused or
//! allowed by `server.tls`, the failed-login limit, and users files of the first format.

use std::path::Path;

use tokio_postgres::error::SqlState;

use crate::common;

async fn bind_error(cfg: &mitra::config::Config) -> String {
    let ctx = common::session(cfg).await;
    let mut scfg = cfg.server.clone();
    scfg.listen = "127.0.0.1:0".into();
    match mitra::pg::Server::bind(ctx, &scfg).await {
        Ok(_) => panic!("the server started"),
        Err(e) => e.to_string(),
    }
}

/// A connection attempt without TLS; its error code, or `None` when it logged in.
async fn plain_login(port: u16, user: &str, password: &str) -> Option<SqlState> {
    let conn = format!(
        "host=127.0.0.1 port={port} dbname=mitra user={user} password={password} sslmode=disable"
    );
    match tokio_postgres::connect(&conn, tokio_postgres::NoTls).await {
        Ok((client, conn)) => {
            tokio::spawn(conn);
            client.simple_query("SELECT 1").await.unwrap();
            None
        }
        Err(e) => Some(e.code().cloned().unwrap_or(SqlState::CONNECTION_FAILURE)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_certificates_fail_closed() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    let (_ca, cert, key) = common::test_certificates(dir.path());
    let other = tempfile::tempdir().unwrap();
    let (_, other_cert, _) = common::test_certificates(other.path());
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(
        &garbage,
        "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let missing = dir.path().join("missing.pem");
    for mode in [
        mitra::config::TlsMode::Optional,
        mitra::config::TlsMode::Required,
    ] {
        cfg.server.tls = mode;
        let cases: [(Option<&Path>, Option<&Path>, &str); 7] = [
            (None, Some(&key), "tls_cert or server.tls_key is not set"),
            (Some(&cert), None, "tls_cert or server.tls_key is not set"),
            (
                Some(&missing),
                Some(&key),
                "cannot read the TLS certificate",
            ),
            (Some(&cert), Some(&missing), "cannot read the TLS key"),
            (Some(&empty), Some(&key), "no certificate"),
            (Some(&garbage), Some(&key), "not a PEM certificate chain"),
            // A certificate whose key is another's.
            (Some(&other_cert), Some(&key), "are not usable together"),
        ];
        for (c, k, want) in cases {
            cfg.server.tls_cert = c.map(Path::to_path_buf);
            cfg.server.tls_key = k.map(Path::to_path_buf);
            let e = bind_error(&cfg).await;
            assert!(e.contains(want), "{mode:?} {c:?} {k:?}: {e}");
        }
    }
    // Off: the certificate settings are not read.
    cfg.server.tls = mitra::config::TlsMode::Off;
    let addr = common::serve(&cfg).await;
    assert_eq!(plain_login(addr.port(), "physicist", "x").await, None);
    // Optional: plaintext clients are served; required: refused before authentication.
    cfg.server.tls_cert = Some(cert);
    cfg.server.tls_key = Some(key);
    cfg.server.tls = mitra::config::TlsMode::Optional;
    let addr = common::serve(&cfg).await;
    assert_eq!(plain_login(addr.port(), "physicist", "x").await, None);
    cfg.server.tls = mitra::config::TlsMode::Required;
    let addr = common::serve(&cfg).await;
    assert_eq!(
        plain_login(addr.port(), "physicist", "x").await,
        Some(SqlState::INVALID_AUTHORIZATION_SPECIFICATION)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_logins_lock_out_the_address() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    let users = dir.path().join("users.toml");
    let mut file = mitra_auth::UsersFile::default();
    file.add("alice", "s3cret", &[]).unwrap();
    file.save(&users).unwrap();
    cfg.server.users_file = Some(users);
    cfg.server.login_max_failures = 3;
    let addr = common::serve(&cfg).await;
    let port = addr.port();
    assert_eq!(plain_login(port, "alice", "s3cret").await, None);
    for user in ["alice", "nobody", "alice"] {
        assert_eq!(
            plain_login(port, user, "wrong").await,
            Some(SqlState::INVALID_PASSWORD)
        );
    }
    // Locked out: even the right password is refused, before any exchange.
    assert_eq!(
        plain_login(port, "alice", "s3cret").await,
        Some(SqlState::INVALID_AUTHORIZATION_SPECIFICATION)
    );
    let conn = format!("host=127.0.0.1 port={port} dbname=mitra user=alice password=s3cret");
    let e = tokio_postgres::connect(&conn, tokio_postgres::NoTls)
        .await
        .err()
        .unwrap();
    let message = e.as_db_error().map(|d| d.message().to_string());
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.starts_with("too many failed logins from 127.0.0.1; try again in")),
        "{e:?}"
    );
    // Another server (another limit) is not affected; the lockout ends after its time.
    cfg.server.login_lockout_s = 1;
    let addr = common::serve(&cfg).await;
    for _ in 0..3 {
        plain_login(addr.port(), "alice", "wrong").await;
    }
    assert!(plain_login(addr.port(), "alice", "s3cret").await.is_some());
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(plain_login(addr.port(), "alice", "s3cret").await, None);
}

/// A users file of Mitra's first format (SaltedPassword, which logs in if stolen) is rewritten
/// as StoredKey/ServerKey when the server starts, and its users still log in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_format_users_files_are_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    let users = dir.path().join("users.toml");
    // alice / "s3cret pass": the salt of a PostgreSQL 15 verifier, the SaltedPassword as the
    // first format stored it.
    let salted = "U54nTU5IyBmwIEOzmcIPI0wHsLOo/AtIqdEUNvNuz5g=";
    std::fs::write(
        &users,
        format!(
            "[users.alice]\nscram = \"SCRAM-SHA-256$4096:S+1q3aKPxHGC20ReBHskew==${salted}\"\n"
        ),
    )
    .unwrap();
    cfg.server.users_file = Some(users.clone());
    let addr = common::serve(&cfg).await;
    let text = std::fs::read_to_string(&users).unwrap();
    assert!(!text.contains(salted), "{text}");
    // What PostgreSQL stores for that password and salt.
    assert!(text.contains("SCRAM-SHA-256$4096:S+1q3aKPxHGC20ReBHskew==$v7gCjtGMZ0TJvJG4NsKkhoAtd9+3+QIlYXiahQcZjYg=:v3LD02GMNpoHpbAGhznZbzXx4zfQnIJai1WzsZ5jd5A="), "{text}");
    let conn = format!(
        "host=127.0.0.1 port={} dbname=mitra user=alice password='s3cret pass'",
        addr.port()
    );
    let (client, conn) = tokio_postgres::connect(&conn, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client.simple_query("SELECT 1").await.unwrap();
    assert_eq!(
        plain_login(addr.port(), "alice", "wrong").await,
        Some(SqlState::INVALID_PASSWORD)
    );
}
