//! `mitra analyses`: the first tier: import the JSONL file that defines the analyses, list them.

use std::path::PathBuf;

use clap::Subcommand;
use mitra::config::Config;
use mitra::store::Store;
use mitra::{sql, table_fmt, AppError};

/// What `mitra analyses` does.
#[derive(Subcommand)]
pub enum AnalysesCommand {
    /// Replace the analyses with a JSONL file of {"analysis_id","title","abstract","tags",
    /// "status","groups"} (a new Lance version; unchanged rows keep their vectors).
    Import {
        /// The file.
        file: PathBuf,
        /// Remove analyses missing from the file even while documents name them.
        #[arg(long)]
        force: bool,
    },
    /// List the analyses.
    List,
}

/// Runs `mitra analyses`.
pub async fn run(cfg: Config, action: AnalysesCommand) -> Result<(), AppError> {
    super::init_logs("warn");
    match action {
        AnalysesCommand::Import { file, force } => {
            let store = Store::open(&cfg.data_dir).await?;
            let embedder = match sql::dense_handle(&cfg).await {
                Ok(vs) => Some(vs.embedder().clone()),
                Err(why) => {
                    eprintln!(
                        "note: abstracts are not embedded ({why}); abstracts() ranks by BM25 only"
                    );
                    None
                }
            };
            let r = mitra::analyses::import_file(&store, &cfg.data_dir, &file, force, embedder)
                .await
                .map_err(|e| AppError::Config(e.to_string()))?;
            println!(
                "analyses v{}: {} added, {} updated, {} unchanged, {} removed{}; {} abstracts embedded",
                r.version,
                r.added,
                r.updated,
                r.unchanged,
                r.removed.len(),
                if r.removed.is_empty() { String::new() } else { format!(" ({})", r.removed.join(", ")) },
                r.embedded
            );
        }
        AnalysesCommand::List => {
            let rows: Vec<Vec<String>> = mitra::analyses::read_analyses(&cfg.data_dir)
                .await
                .map_err(|e| AppError::Config(e.to_string()))?
                .into_iter()
                .map(|a| vec![a.id, a.status.to_string(), a.groups.join(","), a.title])
                .collect();
            let headers = ["analysis_id", "status", "groups", "title"].map(String::from);
            print!("{}", table_fmt::render_rows(&headers, &rows));
        }
    }
    Ok(())
}
