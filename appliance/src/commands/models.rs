//! `mitra models`: obtain and inspect encoder and language models (offline after the first fetch).

use std::path::PathBuf;

use clap::Subcommand;
use mitra::config::Config;
use mitra::AppError;

/// What `mitra models` does.
#[derive(Subcommand)]
pub enum ModelsCommand {
    /// Fetch a registered model (default: embedding.model) into embedding.models_dir and verify it.
    Fetch {
        /// Registry name.
        name: Option<String>,
        /// Target directory (overrides embedding.models_dir).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// List registered models and whether each is present and verified.
    List {
        /// Directory to check (overrides embedding.models_dir).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

/// Runs `mitra models`.
pub fn run(cfg: Config, action: ModelsCommand) -> Result<(), AppError> {
    super::init_logs("info");
    match action {
        ModelsCommand::Fetch { name, dir } => {
            let dir = dir.unwrap_or(cfg.embedding.models_dir.clone());
            let name = name.unwrap_or(cfg.embedding.model.clone());
            let (path, downloaded) = mitra::models::fetch(&name, &dir)?;
            println!(
                "{name}: {} {}",
                if downloaded {
                    "fetched and verified in"
                } else {
                    "already present and verified in"
                },
                path.display()
            );
        }
        ModelsCommand::List { dir } => {
            let dir = dir.unwrap_or(cfg.embedding.models_dir.clone());
            println!("models directory: {}", dir.display());
            for m in mitra::models::REGISTRY.iter() {
                let state = match mitra::models::check(m, &dir.join(&m.name), true) {
                    mitra::models::ModelState::Verified => "present, verified".to_string(),
                    mitra::models::ModelState::Missing(f) => {
                        format!("missing ({f}); run `mitra models fetch {}`", m.name)
                    }
                    mitra::models::ModelState::Corrupt(f) => format!(
                        "CORRUPT ({f} checksum); run `mitra models fetch {}`",
                        m.name
                    ),
                };
                let configured = match m.kind {
                    mitra::models::ModelKind::Encoder => m.name == cfg.embedding.model,
                    mitra::models::ModelKind::Llm => {
                        m.name == cfg.llm.model && cfg.llm.model_path.is_none()
                    }
                    mitra::models::ModelKind::Tokenizer => false,
                    mitra::models::ModelKind::Reranker => m.name == cfg.rerank.model,
                };
                let default = if configured { " (configured)" } else { "" };
                let kind = match m.kind {
                    mitra::models::ModelKind::Encoder => format!("{:>4}-d", m.dim),
                    mitra::models::ModelKind::Llm => "   llm".to_string(),
                    mitra::models::ModelKind::Tokenizer => "   tok".to_string(),
                    mitra::models::ModelKind::Reranker => "rerank".to_string(),
                };
                println!(
                    "{:<20} {kind}  {state}{default}\n    {}",
                    m.name, m.description
                );
            }
        }
    }
    Ok(())
}
