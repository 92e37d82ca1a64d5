//! The `mitra` command line: serve, ingest, sql, status, demo.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use mitra::analyzer::AnalyzerOptions;
use mitra::config::Config;
use mitra::index::{Bm25Index, Bm25Params, SyncOutcome};
use mitra::store::Store;
use mitra::{beir, demo, ingest, pg, sql, table_fmt, AppError};

#[derive(Parser)]
#[command(
    name = "mitra",
    version,
    about = "On-premise retrieval appliance: Lance + tantivy BM25 + SQL over the Postgres wire"
)]
struct Cli {
    /// Config file (TOML). Default: $MITRA_CONFIG, else ./mitra.toml if present.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Data directory (overrides config and MITRA_DATA).
    #[arg(long, global = true)]
    data: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the store over the Postgres wire protocol.
    Serve {
        /// Address to listen on (default 127.0.0.1:5433).
        #[arg(long)]
        listen: Option<String>,
    },
    /// Ingest .txt/.md files and folders, or a BEIR corpus.
    Ingest {
        /// Files or folders.
        paths: Vec<PathBuf>,
        /// A BEIR collection folder (corpus.jsonl): one document per line.
        #[arg(long, conflicts_with = "paths")]
        beir: Option<PathBuf>,
        /// Hide the progress bar.
        #[arg(long)]
        no_progress: bool,
    },
    /// Run one SQL statement on the local store and print the result.
    Sql {
        /// The statement.
        query: String,
    },
    /// Show tables, row counts, Lance versions and the BM25 index state.
    Status,
    /// Ingest the bundled demo notes and serve them.
    Demo {
        /// Address to listen on (default 127.0.0.1:5433).
        #[arg(long)]
        listen: Option<String>,
    },
}

fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("MITRA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

async fn open(cfg: &Config) -> Result<(Store, Bm25Index), AppError> {
    let store = Store::open(&cfg.data_dir).await?;
    let (index, outcome) = Bm25Index::open_synced(
        &cfg.data_dir.join("bm25"),
        &store,
        AnalyzerOptions {
            stemming: cfg.bm25.stemming,
            stopwords: cfg.bm25.stopwords,
        },
        Bm25Params {
            k1: cfg.bm25.k1,
            b: cfg.bm25.b,
        },
    )
    .await?;
    match outcome {
        SyncOutcome::UpToDate => {}
        other => tracing::info!(?other, "BM25 index synced with Lance"),
    }
    Ok((store, index))
}

async fn serve(cfg: &Config, banner: bool) -> Result<(), AppError> {
    let (_store, mut index) = open(cfg).await?;
    index.close_writer()?;
    let ctx = sql::build_session(cfg.data_dir.clone(), Arc::new(index), cfg.limits.clone()).await?;
    let server = pg::Server::bind(ctx, &cfg.server).await?;
    let addr = server.local_addr();
    tracing::info!(%addr, data = %cfg.data_dir.display(), "serving");
    if banner {
        println!("Mitra is serving {} on {addr}", cfg.data_dir.display());
        println!(
            "Connect with:  psql \"host={} port={} dbname=mitra user=physicist\"",
            addr.ip(),
            addr.port()
        );
        println!("Try:           SELECT b.rank, d.title, b.score FROM bm25('muon momentum scale', 5) b JOIN documents d USING (doc_id);");
        println!("Stop with Ctrl-C.");
    }
    tokio::select! {
        _ = server.run() => {},
        _ = tokio::signal::ctrl_c() => { tracing::info!("shutting down"); }
    }
    Ok(())
}

async fn run(cli: Cli) -> Result<(), AppError> {
    let mut cfg = Config::load(cli.config.as_deref())?;
    if let Some(d) = cli.data {
        cfg.data_dir = d;
    }
    match cli.command {
        Command::Serve { listen } => {
            init_logs("info");
            if let Some(l) = listen {
                cfg.server.listen = l;
            }
            serve(&cfg, true).await
        }
        Command::Demo { listen } => {
            init_logs("warn");
            if let Some(l) = listen {
                cfg.server.listen = l;
            }
            let folder = demo::write_corpus(&cfg.data_dir).map_err(|source| AppError::Io {
                context: format!("writing the demo notes under {}", cfg.data_dir.display()),
                source,
            })?;
            let (mut store, mut index) = open(&cfg).await?;
            let report =
                ingest::ingest_paths(&mut store, &mut index, &cfg, &[folder], false).await?;
            println!(
                "Demo corpus: {} added, {} updated, {} unchanged, {} chunks",
                report.added, report.updated, report.unchanged, report.chunks
            );
            drop(index);
            drop(store);
            serve(&cfg, true).await
        }
        Command::Ingest {
            paths,
            beir: beir_dir,
            no_progress,
        } => {
            init_logs("warn");
            let (mut store, mut index) = open(&cfg).await?;
            let progress = !no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr());
            let started = std::time::Instant::now();
            let report = match beir_dir {
                Some(dir) => {
                    beir::ingest_corpus(&mut store, &mut index, &cfg, &dir, progress).await?
                }
                None if paths.is_empty() => {
                    return Err(AppError::Config(
                        "nothing to ingest: give files/folders, or --beir DIR".into(),
                    ))
                }
                None => {
                    ingest::ingest_paths(&mut store, &mut index, &cfg, &paths, progress).await?
                }
            };
            let secs = started.elapsed().as_secs_f64();
            println!(
                "ingested in {secs:.1}s: {} added, {} updated, {} unchanged, {} failed, {} chunks ({:.0} docs/s)",
                report.added,
                report.updated,
                report.unchanged,
                report.failed,
                report.chunks,
                (report.added + report.updated) as f64 / secs.max(1e-9)
            );
            for e in &report.errors {
                eprintln!("  failed: {e}");
            }
            index.close_writer()?;
            Ok(())
        }
        Command::Sql { query } => {
            init_logs("warn");
            let (_store, mut index) = open(&cfg).await?;
            index.close_writer()?;
            let ctx = sql::build_session(cfg.data_dir.clone(), Arc::new(index), cfg.limits.clone())
                .await?;
            let batches = ctx.sql(&query).await?.collect().await?;
            print!("{}", table_fmt::render(&batches));
            Ok(())
        }
        Command::Status => {
            init_logs("warn");
            let (store, index) = open(&cfg).await?;
            println!("data directory: {}", cfg.data_dir.display());
            for t in store.status().await? {
                println!(
                    "table {:<10} rows {:>9}  lance version {:>5}  versions kept {:>5}  fragments {:>4}",
                    t.name, t.rows, t.version, t.versions, t.fragments
                );
            }
            let meta = index.meta();
            println!(
                "bm25 index       docs {:>9}  reflects chunks v{}  (store at v{})  analyzer {:?}  k1 {} b {}",
                index.num_docs(),
                meta.as_ref().map(|m| m.chunks_version.to_string()).unwrap_or("-".into()),
                store.chunks_version(),
                index.analyzer().options(),
                cfg.bm25.k1,
                cfg.bm25.b
            );
            Ok(())
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(AppError::Sql(e)) => {
            let (code, msg) = pg::classify(&e);
            eprintln!("ERROR [{code}]: {msg}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
