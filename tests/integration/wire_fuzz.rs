//! Seeded wire fuzzing against a real server over loopback: mutated startup, simple and
//! extended-protocol message streams. No panic in any connection task, and the server keeps
//! serving ordinary clients. `MITRA_FUZZ_SESSIONS` sets the count (the benchmark's long run).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common;

fn frame(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut f = vec![kind];
    f.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    f.extend_from_slice(body);
    f
}

fn startup() -> Vec<u8> {
    let mut body = 196_608i32.to_be_bytes().to_vec();
    for (k, v) in [("user", "fuzzer"), ("database", "mitra")] {
        body.extend_from_slice(k.as_bytes());
        body.push(0);
        body.extend_from_slice(v.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut f = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    f.extend_from_slice(&body);
    f
}

fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

/// One message of a well-formed session after startup.
fn message(rng: &mut StdRng) -> Vec<u8> {
    const QUERIES: &[&str] = &[
        "SELECT 1",
        "SELECT chunk_id, rank FROM bm25('muon', 3)",
        "SELECT * FROM documents",
        "SELECT $1::text",
        "BEGIN",
        "COMMIT",
        "DECLARE c CURSOR FOR SELECT 1",
        "FETCH 1 FROM c",
        "COPY (SELECT 1) TO STDOUT",
        "SELECT * FROM bm25($1, $2)",
    ];
    let q = QUERIES[rng.random_range(0..QUERIES.len())];
    match rng.random_range(0..8) {
        0 | 1 => frame(b'Q', &cstr(q)),
        2 => {
            let mut b = cstr("s1");
            b.extend(cstr(q));
            b.extend_from_slice(&1u16.to_be_bytes());
            b.extend_from_slice(&25u32.to_be_bytes());
            frame(b'P', &b)
        }
        3 => {
            let mut b = cstr("");
            b.extend(cstr("s1"));
            b.extend_from_slice(&1u16.to_be_bytes());
            b.extend_from_slice(&0u16.to_be_bytes());
            b.extend_from_slice(&2u16.to_be_bytes());
            for p in ["muon", "3"] {
                b.extend_from_slice(&(p.len() as i32).to_be_bytes());
                b.extend_from_slice(p.as_bytes());
            }
            b.extend_from_slice(&1u16.to_be_bytes());
            b.extend_from_slice(&1u16.to_be_bytes());
            frame(b'B', &b)
        }
        4 => {
            let mut b = vec![if rng.random() { b'S' } else { b'P' }];
            b.extend(cstr(if rng.random() { "s1" } else { "" }));
            frame(b'D', &b)
        }
        5 => {
            let mut b = cstr("");
            b.extend_from_slice(&rng.random_range(-2i32..5).to_be_bytes());
            frame(b'E', &b)
        }
        6 => frame(b'S', &[]),
        _ => frame(b'H', &[]),
    }
}

/// A session's bytes, then mutated.
fn session(rng: &mut StdRng) -> (Vec<u8>, usize) {
    let mut bytes = Vec::new();
    if rng.random_ratio(1, 5) {
        bytes.extend_from_slice(&8i32.to_be_bytes());
        bytes.extend_from_slice(&80_877_103i32.to_be_bytes());
    }
    bytes.extend(startup());
    let n = rng.random_range(1..12);
    for _ in 0..n {
        bytes.extend(message(rng));
    }
    let mutations = rng.random_range(0..4);
    mutate(&mut bytes, rng, mutations);
    (bytes, n + 1)
}

/// Applies `rounds` random mutations: bit flips, truncation, random bytes, deletions,
/// insertions, length fields made huge, negative or tiny, duplications.
fn mutate(bytes: &mut Vec<u8>, rng: &mut StdRng, rounds: usize) {
    for _ in 0..rounds {
        if bytes.is_empty() {
            break;
        }
        let at = rng.random_range(0..bytes.len());
        match rng.random_range(0..7) {
            0 => bytes[at] ^= 1 << rng.random_range(0..8),
            1 => bytes.truncate(at),
            2 => bytes[at] = rng.random(),
            3 => {
                let end = (at + rng.random_range(1..16)).min(bytes.len());
                bytes.drain(at..end);
            }
            4 => {
                let junk: Vec<u8> = (0..rng.random_range(1..16)).map(|_| rng.random()).collect();
                bytes.splice(at..at, junk);
            }
            5 => {
                // A length field made huge, negative or tiny.
                let v: i32 = [0, 1, 3, 4, 5, -1, i32::MAX, 0x7fff_0000][rng.random_range(0..8)];
                let end = (at + 4).min(bytes.len());
                let src = v.to_be_bytes();
                bytes[at..end].copy_from_slice(&src[..end - at]);
            }
            _ => {
                let end = (at + rng.random_range(1..64)).min(bytes.len());
                let dup = bytes[at..end].to_vec();
                bytes.splice(at..at, dup);
            }
        }
    }
}

async fn run_session(addr: SocketAddr, bytes: &[u8]) {
    let Ok(mut s) = TcpStream::connect(addr).await else {
        return;
    };
    let _ = s.write_all(bytes).await;
    let _ = s.shutdown().await;
    let mut buf = vec![0u8; 64 * 1024];
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(_)) => {}
        }
    }
}

/// This process's resident set size.
fn rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kb| kb / 1024)
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_wire_sessions_never_panic_and_the_server_stays_healthy() {
    let sessions: usize = std::env::var("MITRA_FUZZ_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::demo_store(dir.path()).await;
    let addr = common::serve(&cfg).await;
    let before = mitra::pg::connection_panics();
    let mut rng = StdRng::seed_from_u64(0x006d_6974_7261);
    let started = Instant::now();
    let mut messages = 0usize;
    let mut pending = Vec::new();
    let mut rss = Vec::new();
    for i in 0..sessions {
        if i % (sessions / 10).max(1) == 0 {
            rss.push(rss_mib());
        }
        let (bytes, n) = session(&mut rng);
        messages += n;
        pending.push(tokio::spawn(async move { run_session(addr, &bytes).await }));
        if pending.len() >= 16 {
            for p in pending.drain(..) {
                p.await.unwrap();
            }
        }
    }
    for p in pending {
        p.await.unwrap();
    }
    let panics = mitra::pg::connection_panics() - before;
    rss.push(rss_mib());
    eprintln!(
        "wire fuzz: {sessions} sessions, {messages} messages, {panics} panics, {:.1} s, RSS MiB at each tenth: {rss:?}",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(panics, 0, "connection tasks panicked");
    let client = common::connect(addr).await;
    let rows = client
        .query("SELECT chunk_id FROM bm25($1, 2)", &[&"muon"])
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);
}

/// A SASL initial response or response ('p'), well-formed or not, as SCRAM clients send them.
fn sasl_message(rng: &mut StdRng, first: bool) -> Vec<u8> {
    const MECHS: &[&str] = &[
        "SCRAM-SHA-256",
        "SCRAM-SHA-256-PLUS",
        "OAUTHBEARER",
        "x",
        "",
    ];
    const FIRSTS: &[&str] = &[
        "n,,n=,r=fyko+d2lbbFgONRv9qkxdawL",
        "y,,n=alice,r=abc",
        "p=tls-server-end-point,,n=,r=x",
        "n,a=eve,n=,r=",
        "n,,",
        "",
        "n,,n=,r=\u{7f}\u{0}",
    ];
    const FINALS: &[&str] = &[
        "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
        "c=biws,r=,p=",
        "c=eSws,r=abc,p=AAAA",
        "r=abc",
        "c=biws,r=abc,p=!!!",
        "",
    ];
    if first {
        let mut b = cstr(MECHS[rng.random_range(0..MECHS.len())]);
        let data = FIRSTS[rng.random_range(0..FIRSTS.len())].as_bytes();
        if rng.random_ratio(1, 6) {
            b.extend_from_slice(&(-1i32).to_be_bytes());
        } else {
            b.extend_from_slice(&(data.len() as i32).to_be_bytes());
            b.extend_from_slice(data);
        }
        frame(b'p', &b)
    } else if rng.random_ratio(1, 4) {
        let junk: Vec<u8> = (0..rng.random_range(0..40)).map(|_| rng.random()).collect();
        frame(b'p', &junk)
    } else {
        frame(b'p', FINALS[rng.random_range(0..FINALS.len())].as_bytes())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutated_scram_handshakes_never_panic_and_logins_still_work() {
    let sessions: usize = std::env::var("MITRA_FUZZ_SESSIONS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(800, |n| n / 2);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = common::demo_store(dir.path()).await;
    let users = dir.path().join("users.toml");
    let mut file = mitra_auth::UsersFile::default();
    file.add("physicist", "s3cret", &[]).unwrap();
    file.save(&users).unwrap();
    cfg.server.users_file = Some(users);
    // Every mutated exchange fails: the failed-login limit would lock the fuzzer out.
    cfg.server.login_max_failures = 0;
    let addr = common::serve(&cfg).await;
    let before = mitra::pg::connection_panics();
    let mut rng = StdRng::seed_from_u64(0x0073_6372_616d);
    let mut pending = Vec::new();
    for _ in 0..sessions {
        let mut bytes = startup();
        bytes.extend(sasl_message(&mut rng, true));
        for _ in 0..rng.random_range(0..3) {
            bytes.extend(sasl_message(&mut rng, false));
        }
        bytes.extend(frame(b'Q', &cstr("SELECT 1")));
        let rounds = rng.random_range(0..3);
        mutate(&mut bytes, &mut rng, rounds);
        pending.push(tokio::spawn(async move { run_session(addr, &bytes).await }));
        if pending.len() >= 16 {
            for p in pending.drain(..) {
                p.await.unwrap();
            }
        }
    }
    for p in pending {
        p.await.unwrap();
    }
    assert_eq!(
        mitra::pg::connection_panics() - before,
        0,
        "connection tasks panicked"
    );
    let mut c = tokio_postgres::Config::new();
    c.host("127.0.0.1")
        .port(addr.port())
        .dbname("mitra")
        .user("physicist")
        .password("s3cret");
    let (client, conn) = c.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let rows = client.simple_query("SELECT 1").await.unwrap();
    assert!(rows
        .iter()
        .any(|m| matches!(m, tokio_postgres::SimpleQueryMessage::Row(_))));
}
