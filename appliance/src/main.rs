//! The `mitra` command line: a dispatcher over one module per command (`commands/`).

#![recursion_limit = "256"]

mod commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use commands::{analyses, ask, embed, eval, ingest, maintain, models, plugins, serve, sql, users};
use mitra::config::Config;
use mitra::{pg, AppError};

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
    Serve(serve::ServeArgs),
    /// Ingest .txt/.md files and folders, a BEIR corpus, or a source through plugins
    /// (`--crawler NAME --source LOCATION [--extractor NAME]`, or configured `[[sources]]`).
    Ingest(ingest::IngestArgs),
    /// Compact the tables, merge the BM25 index, remove old versions outside the retention
    /// window (versions that recorded answers' receipts name are kept).
    Maintain(maintain::MaintainArgs),
    /// Run one SQL statement on the local store and print the result.
    Sql(sql::SqlArgs),
    /// Show tables, row counts, Lance versions and the BM25 index state.
    Status,
    /// Evaluate retrievers on a BEIR collection (trec_eval metrics, run files, answer checks),
    /// or, with `--questions` and no `--dataset`, answers on the configured store.
    Eval(eval::EvalArgs),
    /// Obtain and inspect encoder and language models (offline after the first fetch).
    Models {
        #[command(subcommand)]
        action: models::ModelsCommand,
    },
    /// Add vectors to an existing store (Lance schema evolution), then build the ANN index if large enough.
    Embed(embed::EmbedArgs),
    /// WebAssembly plugins: built-in and site plugins, their versions and capabilities.
    Plugins {
        /// What to do.
        #[command(subcommand)]
        action: plugins::PluginsCommand,
    },
    /// Analyses (the first tier): import the JSONL file that defines them, list them.
    Analyses {
        /// What to do.
        #[command(subcommand)]
        action: analyses::AnalysesCommand,
    },
    /// Users who may log in over the wire (SCRAM-SHA-256) and their groups.
    Users {
        /// What to do.
        #[command(subcommand)]
        action: users::UsersCommand,
    },
    /// Ask questions in a terminal: choose the analysis from its abstract (tier 1), then search
    /// only its documents for the following questions (tier 2).
    Ask(ask::AskArgs),
    /// Ingest the bundled demo notes and serve them.
    Demo(serve::ServeArgs),
}

async fn run(cli: Cli) -> Result<(), AppError> {
    let mut cfg = Config::load(cli.config.as_deref())?;
    let explicit_data = cli.data.is_some() || std::env::var_os("MITRA_DATA").is_some();
    if let Some(d) = cli.data {
        cfg.data_dir = d;
    }
    match cli.command {
        Command::Serve(a) => serve::run(cfg, a).await,
        Command::Demo(a) => commands::demo::run(cfg, a).await,
        Command::Ingest(a) => ingest::run(cfg, a).await,
        Command::Maintain(a) => maintain::run(cfg, a).await,
        Command::Sql(a) => sql::run(cfg, a).await,
        Command::Status => commands::status::run(cfg).await,
        Command::Eval(a) => eval::run(cfg, a, explicit_data).await,
        Command::Models { action } => models::run(cfg, action),
        Command::Embed(a) => embed::run(cfg, a).await,
        Command::Plugins { action } => plugins::run(cfg, action),
        Command::Analyses { action } => analyses::run(cfg, action).await,
        Command::Users { action } => users::run(cfg, action),
        Command::Ask(a) => ask::run(cfg, a).await,
    }
}

/// Output piped into a reader that stops early (`mitra sql ... | head`) ends the process quietly,
/// as for other Unix tools, instead of a panic in `println!`.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: signal(2) only sets the process-wide disposition of SIGPIPE; no Rust state is
    // touched, and Mitra installs no SIGPIPE handler of its own.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    default_sigpipe();
    mitra::disable_transparent_huge_pages();
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
