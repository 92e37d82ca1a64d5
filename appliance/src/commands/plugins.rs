//! `mitra plugins`: the built-in and site plugins, and extraction of local files as ingest does it.

use std::path::PathBuf;

use clap::Subcommand;
use mitra::config::Config;
use mitra::{table_fmt, AppError};

/// What `mitra plugins` does.
#[derive(Subcommand)]
pub enum PluginsCommand {
    /// List every plugin: version, API, source, requested and granted capabilities.
    List,
    /// Run an extractor (in its sandbox, as ingest does) on local files and print, one JSON
    /// line per file, its blocks or, with --chunks, the chunks ingest would store.
    Extract {
        /// Files to extract.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Extractor plugin (default: the one declaring the file's media type).
        #[arg(long)]
        extractor: Option<String>,
        /// Media type handed to the extractor (default: from the file extension).
        #[arg(long)]
        media_type: Option<String>,
        /// Print chunks (heading path, pages, kind, text) instead of blocks.
        #[arg(long)]
        chunks: bool,
    },
}

/// Runs `mitra plugins`.
pub fn run(cfg: Config, action: PluginsCommand) -> Result<(), AppError> {
    super::init_logs("warn");
    match action {
        PluginsCommand::List => list(&cfg),
        PluginsCommand::Extract {
            files,
            extractor,
            media_type,
            chunks,
        } => extract(
            &cfg,
            &files,
            extractor.as_deref(),
            media_type.as_deref(),
            chunks,
        ),
    }
}

/// `mitra plugins list`: every plugin with what it requests and what it is granted.
fn list(cfg: &Config) -> Result<(), AppError> {
    let host = mitra::plugins::PluginHost::new(cfg)?;
    let rows: Vec<Vec<String>> = host
        .registry()
        .all()
        .map(|p| {
            let m = &p.manifest;
            let granted = host
                .effective(p)
                .map(|e| e.describe())
                .unwrap_or_else(|e| e.to_string());
            vec![
                m.name.clone(),
                m.version.clone(),
                m.api.clone(),
                m.world.to_string(),
                p.source.to_string(),
                p.sha256[..12].to_string(),
                m.capabilities.describe(),
                granted,
            ]
        })
        .collect();
    let headers = [
        "name", "version", "api", "world", "source", "sha256", "requests", "granted",
    ]
    .map(String::from);
    print!("{}", table_fmt::render_rows(&headers, &rows));
    for (name, e) in host.registry().refused() {
        println!("refused {name}: {e}");
    }
    println!("(grants come from [plugins.grants.NAME]; a source also grants its crawler its own location at ingest)");
    Ok(())
}

/// `mitra plugins extract`: one JSON line per file, `{"file", "blocks"|"chunks", "skipped"}`
/// or `{"file", "error"}`.
fn extract(
    cfg: &Config,
    files: &[PathBuf],
    extractor: Option<&str>,
    media_type: Option<&str>,
    chunks: bool,
) -> Result<(), AppError> {
    use std::io::Write;
    let host = mitra::plugins::PluginHost::new(cfg)?;
    let mut instances: std::collections::HashMap<String, mitra::plugins::PluginInstance> =
        std::collections::HashMap::new();
    let mut out = std::io::stdout().lock();
    for file in files {
        let mt = media_type
            .map(str::to_string)
            .unwrap_or_else(|| mitra::pipeline::media_type_of(file).to_string());
        let result = (|| -> Result<serde_json::Value, String> {
            let name = match extractor {
                Some(n) => n.to_string(),
                None => host
                    .extractor_for(&mt)
                    .map(|p| p.manifest.name.clone())
                    .ok_or_else(|| format!("no extractor handles {mt}"))?,
            };
            if !instances.contains_key(&name) {
                let inst = host.extractor(&name).map_err(|e| e.to_string())?;
                instances.insert(name.clone(), inst);
            }
            let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
            let x = instances[&name]
                .extract(&bytes, &mt)
                .map_err(|e| e.to_string())?;
            let skipped: Vec<serde_json::Value> = x
                .skipped
                .iter()
                .map(|s| serde_json::json!({"page": s.page, "reason": s.reason}))
                .collect();
            let blocks = mitra::pipeline::block_texts(x.blocks);
            let body = if chunks {
                let cs: Vec<serde_json::Value> =
                    mitra::chunker::chunk_blocks(&blocks, &cfg.chunking)
                        .into_iter()
                        .map(|c| {
                            serde_json::json!({
                                "kind": c.kind, "page": c.page, "page_end": c.page_end,
                                "heading": c.chunk.heading, "text": c.chunk.text,
                            })
                        })
                        .collect();
                ("chunks", cs)
            } else {
                let bs: Vec<serde_json::Value> = blocks
                    .into_iter()
                    .map(|b| {
                        serde_json::json!({
                            "kind": b.kind, "page": b.page, "level": b.level, "text": b.text,
                        })
                    })
                    .collect();
                ("blocks", bs)
            };
            Ok(serde_json::json!({
                "file": file.display().to_string(),
                "extractor": name,
                body.0: body.1,
                "skipped": skipped,
            }))
        })();
        let line = result.unwrap_or_else(
            |e| serde_json::json!({"file": file.display().to_string(), "error": e}),
        );
        writeln!(out, "{line}").map_err(|source| AppError::Io {
            context: "writing to stdout".into(),
            source,
        })?;
    }
    Ok(())
}
