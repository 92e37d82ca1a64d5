//! BM25 benchmark: ingest throughput, query latency in-process and over pgwire, peak memory.
//!
//! Runs in the dev profile (see README "Build profiles"):
//!   cargo bench --profile dev --bench bm25 -- --dataset ../shared/datasets/cranfield
//!   cargo bench --profile dev --bench bm25 -- --generate 1000000
//! Prints one JSON object per run.

#![recursion_limit = "256"]

#[path = "util.rs"]
mod util;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use util::{peak_rss_mib, percentile, Lcg};

use mitra::analyzer::AnalyzerOptions;
use mitra::config::Config;
use mitra::index::{Bm25Index, Bm25Params};
use mitra::ingest::{sha256_hex, Ingestor, SourceDoc};
use mitra::store::Store;
use mitra::{beir, sql};

struct Args {
    dataset: Option<PathBuf>,
    generate: Option<usize>,
    data: Option<PathBuf>,
    stemming: bool,
    repeat: usize,
    pg_queries: usize,
}

fn parse_args() -> Args {
    let mut a = Args {
        dataset: None,
        generate: None,
        data: None,
        stemming: true,
        repeat: 3,
        pg_queries: 2000,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let val = || argv.get(i + 1).cloned().expect("flag needs a value");
        let takes_value = match argv[i].as_str() {
            "--dataset" => {
                a.dataset = Some(val().into());
                true
            }
            "--generate" => {
                a.generate = Some(val().parse().expect("number"));
                true
            }
            "--data" => {
                a.data = Some(val().into());
                true
            }
            "--repeat" => {
                a.repeat = val().parse().expect("number");
                true
            }
            "--pg-queries" => {
                a.pg_queries = val().parse().expect("number");
                true
            }
            "--no-stemming" => {
                a.stemming = false;
                false
            }
            "--bench" => false,
            other => panic!("unknown argument {other}"),
        };
        i += if takes_value { 2 } else { 1 };
    }
    a
}

/// Deterministic pseudo-random generator (no external dependency, reproducible corpora).
fn word(i: usize) -> String {
    const SYL: [&str; 16] = [
        "mu", "on", "jet", "ka", "lo", "ri", "tra", "ck", "ver", "tex", "pi", "le", "up", "bo",
        "son", "ta",
    ];
    let mut s = String::new();
    let mut x = i + 1;
    while x > 0 {
        s.push_str(SYL[x % 16]);
        x /= 16;
    }
    s
}

#[tokio::main]
async fn main() {
    let args = parse_args();
    let tmp = tempfile::tempdir().unwrap();
    let data = args.data.clone().unwrap_or_else(|| tmp.path().join("data"));
    let mut cfg = Config {
        data_dir: data.clone(),
        ..Config::default()
    };
    cfg.embedding.enabled = false;
    cfg.bm25.stemming = Some(args.stemming);
    cfg.bm25.stopwords = Some(args.stemming);
    cfg.ingest.batch_docs = 5000;
    let opts = AnalyzerOptions {
        stemming: args.stemming,
        stopwords: args.stemming,
    };
    let params = Bm25Params { k1: 1.2, b: 0.75 };
    let mut store = Store::open(&data).await.unwrap();
    let (mut index, _) = Bm25Index::open_synced(&data.join("bm25"), &store, opts, params)
        .await
        .unwrap();

    let started = Instant::now();
    let (name, report, queries): (String, _, Vec<String>) = if let Some(ds) = &args.dataset {
        let r = beir::ingest_corpus(&mut store, &mut index, &cfg, ds, false)
            .await
            .unwrap();
        let q = beir::read_queries(&ds.join("queries.jsonl")).unwrap();
        (
            ds.file_name().unwrap().to_string_lossy().to_string(),
            r,
            q.into_values().collect(),
        )
    } else {
        let n = args.generate.unwrap_or(100_000);
        let vocab = 50_000;
        let mut rng = Lcg(42);
        let mut ing = Ingestor::new(&mut store, &mut index, &cfg, n as u64, false)
            .await
            .unwrap();
        for i in 0..n {
            let len = 30 + (rng.next() % 60) as usize;
            let text: Vec<String> = (0..len).map(|_| word(rng.zipf(vocab))).collect();
            let text = text.join(" ");
            ing.add(SourceDoc {
                doc_id: format!("g{i}"),
                title: String::new(),
                source_uri: format!("gen://{i}"),
                sha256: sha256_hex(text.as_bytes()),
                text,
                metadata: serde_json::json!({}),
                ..Default::default()
            })
            .await
            .unwrap();
        }
        let r = ing.finish().await.unwrap();
        mitra::ingest::compact(&mut store, &mut index, 16)
            .await
            .unwrap();
        let mut rng = Lcg(7);
        let q = (0..1000)
            .map(|_| {
                let len = 2 + (rng.next() % 4) as usize;
                (0..len)
                    .map(|_| word(rng.zipf(vocab)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        (format!("generated-{n}"), r, q)
    };
    let ingest_secs = started.elapsed().as_secs_f64();
    index.close_writer().unwrap();
    let rss_after_ingest = peak_rss_mib();

    // In-process, single thread, k = 10.
    let mut lat = Vec::new();
    let t0 = Instant::now();
    for _ in 0..args.repeat {
        for q in &queries {
            let t = Instant::now();
            std::hint::black_box(index.search(q, 10).unwrap());
            lat.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let total = t0.elapsed().as_secs_f64();
    let qps = lat.len() as f64 / total;
    lat.sort_by(f64::total_cmp);

    // The same SQL in process (DataFusion planning and execution, no wire): the reference for
    // what the wire front adds.
    let index = Arc::new(index);
    let ctx = sql::build_session(&cfg, index.clone()).await.unwrap();
    let mut sql_lat = Vec::new();
    for q in queries
        .iter()
        .cycle()
        .take(args.pg_queries.min(queries.len() * args.repeat))
    {
        let text = format!(
            "SELECT chunk_id, score FROM bm25('{}', 10)",
            q.replace('\'', "''")
        );
        let t = Instant::now();
        let df = ctx.sql(&text).await.unwrap();
        std::hint::black_box(df.collect().await.unwrap());
        sql_lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    sql_lat.sort_by(f64::total_cmp);

    // Over pgwire: one client, extended protocol, prepared statement.
    let client = util::serve_and_connect(ctx, &cfg.server).await;
    let stmt = client
        .prepare("SELECT chunk_id, score FROM bm25($1, 10)")
        .await
        .unwrap();
    let mut pg_lat = Vec::new();
    for q in queries
        .iter()
        .cycle()
        .take(args.pg_queries.min(queries.len() * args.repeat))
    {
        let t = Instant::now();
        std::hint::black_box(client.query(&stmt, &[q]).await.unwrap());
        pg_lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    pg_lat.sort_by(f64::total_cmp);

    let out = serde_json::json!({
        "collection": name,
        "documents": report.added + report.updated,
        "chunks": report.chunks,
        "ingest_seconds": (ingest_secs * 100.0).round() / 100.0,
        "ingest_docs_per_s": ((report.added + report.updated) as f64 / ingest_secs).round(),
        "ingest_chunks_per_s": (report.chunks as f64 / ingest_secs).round(),
        "queries": queries.len(),
        "inproc_p50_ms": (percentile(&lat, 0.5) * 1000.0).round() / 1000.0,
        "inproc_p99_ms": (percentile(&lat, 0.99) * 1000.0).round() / 1000.0,
        "inproc_qps_single_thread": qps.round(),
        "sql_inproc_p50_ms": (percentile(&sql_lat, 0.5) * 1000.0).round() / 1000.0,
        "pgwire_p50_ms": (percentile(&pg_lat, 0.5) * 1000.0).round() / 1000.0,
        "pgwire_p99_ms": (percentile(&pg_lat, 0.99) * 1000.0).round() / 1000.0,
        "peak_rss_mib_after_ingest": rss_after_ingest.round(),
        "peak_rss_mib": peak_rss_mib().round(),
    });
    println!("{out}");
}
