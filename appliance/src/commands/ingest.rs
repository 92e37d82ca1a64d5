//! `mitra ingest`: files and folders, a BEIR corpus, or sources through plugins.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mitra::config::{Config, SourceConfig};
use mitra::pipeline::SourceReport;
use mitra::{beir, ingest, AppError};

/// Arguments of `mitra ingest`.
#[derive(clap::Args)]
pub struct IngestArgs {
    /// Files or folders.
    paths: Vec<PathBuf>,
    /// A BEIR collection folder (corpus.jsonl): one document per line.
    #[arg(long, conflicts_with = "paths")]
    beir: Option<PathBuf>,
    /// Crawler plugin for `--source` (e.g. dir-crawler, http-index-crawler).
    #[arg(long, requires = "source", conflicts_with_all = ["paths", "beir"])]
    crawler: Option<String>,
    /// Where the source is: a directory (granted read-only to the crawler) or a URL (its
    /// origin granted to the crawler).
    #[arg(long, requires = "crawler")]
    source: Option<String>,
    /// Extractor plugin; default: chosen per document by media type.
    #[arg(long, requires = "crawler")]
    extractor: Option<String>,
    /// Name of the source (document ids are NAME/<id>); default: derived from the location.
    #[arg(long, requires = "crawler")]
    name: Option<String>,
    /// Analysis the documents belong to (it must exist: `mitra analyses import`). A BEIR
    /// row's own `analysis_id` field and a plugin's document metadata take precedence.
    #[arg(long)]
    analysis_id: Option<String>,
    /// Crawler settings, KEY=VALUE (e.g. secret=cds-cookie); repeatable.
    #[arg(long = "setting", requires = "crawler")]
    settings: Vec<String>,
    /// Ingest these configured `[[sources]]` (or `all`).
    #[arg(long = "sources", value_delimiter = ',', conflicts_with_all = ["paths", "beir", "crawler"])]
    sources: Vec<String>,
    /// Hide the progress bar.
    #[arg(long)]
    no_progress: bool,
}

/// Runs `mitra ingest`.
pub async fn run(mut cfg: Config, args: IngestArgs) -> Result<(), AppError> {
    super::init_logs("warn");
    let progress = super::progress(args.no_progress);
    if args.crawler.is_some() || !args.sources.is_empty() {
        let selected = match (args.crawler, args.source) {
            (Some(crawler), Some(location)) => vec![SourceConfig {
                name: args.name.unwrap_or_else(|| default_source_name(&location)),
                crawler,
                extractor: args.extractor,
                location,
                analysis_id: args.analysis_id,
                settings: parse_settings(&args.settings)?,
            }],
            _ => configured_sources(&cfg, &args.sources)?,
        };
        return run_sources(&cfg, &selected, progress).await;
    }
    if let Some(a) = args.analysis_id {
        let known = mitra::analyses::read_analyses(&cfg.data_dir)
            .await
            .map_err(|e| AppError::Config(e.to_string()))?;
        if !known.iter().any(|x| x.id == a) {
            return Err(AppError::Config(format!(
                "analysis \"{a}\" does not exist; import it first (mitra analyses import FILE)"
            )));
        }
        cfg.ingest.analysis_id = Some(a);
    }
    let (mut store, mut index) = super::open(&cfg).await?;
    let started = std::time::Instant::now();
    let report = match args.beir {
        Some(dir) => beir::ingest_corpus(&mut store, &mut index, &cfg, &dir, progress).await?,
        None if args.paths.is_empty() => {
            return Err(AppError::Config(
                "nothing to ingest: give files/folders, or --beir DIR".into(),
            ))
        }
        None => ingest::ingest_paths(&mut store, &mut index, &cfg, &args.paths, progress).await?,
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
    after_ingest(&cfg, &mut store, &mut index).await?;
    index.close_writer()?;
    Ok(())
}

/// Maintenance after an ingest (`maintain.after_ingest`).
async fn after_ingest(
    cfg: &Config,
    store: &mut mitra::store::Store,
    index: &mut mitra::index::Bm25Index,
) -> Result<(), AppError> {
    if cfg.maintain.after_ingest {
        let r = mitra::maintain::run(cfg, store, index).await?;
        let (versions, bytes) = r
            .tables
            .iter()
            .fold((0, 0), |(v, b), (_, c)| (v + c.versions, b + c.bytes));
        if versions > 0 {
            println!(
                "maintenance: {versions} old versions removed, {} freed",
                mitra::table_fmt::size_pretty(bytes)
            );
        }
    }
    Ok(())
}

/// Ingests sources and prints one line per run; a failed listing fails the command.
async fn run_sources(
    cfg: &Config,
    selected: &[SourceConfig],
    progress: bool,
) -> Result<(), AppError> {
    let mut failed = false;
    for (r, secs) in ingest_sources(cfg, selected, progress).await? {
        let run = &r.run;
        println!(
            "source {}: {} in {secs:.1}s: {} listed, {} added, {} updated, {} unchanged, {} tombstoned, {} failed, {} chunks ({:.1} docs/s); run {}",
            run.source,
            run.status,
            run.listed,
            run.added,
            run.updated,
            run.unchanged,
            run.tombstoned,
            run.failed,
            run.chunks,
            run.listed as f64 / secs.max(1e-9),
            run.run_id
        );
        for e in &r.errors {
            eprintln!("  {e}");
        }
        failed |= run.status == "failed";
    }
    if failed {
        return Err(AppError::Config(
            "a source listing failed; nothing of it was tombstoned (see ingest_runs)".into(),
        ));
    }
    Ok(())
}

/// `--setting KEY=VALUE` pairs as a source's settings table.
fn parse_settings(settings: &[String]) -> Result<BTreeMap<String, toml::Value>, AppError> {
    settings
        .iter()
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| AppError::Config(format!("--setting {kv:?}: expected KEY=VALUE")))?;
            Ok((k.to_string(), toml::Value::String(v.to_string())))
        })
        .collect()
}

/// The `[[sources]]` named on the command line (`all`: every one).
fn configured_sources(cfg: &Config, names: &[String]) -> Result<Vec<SourceConfig>, AppError> {
    let selected: Vec<SourceConfig> = if names.iter().any(|s| s == "all") {
        cfg.sources.clone()
    } else {
        names
            .iter()
            .map(|s| {
                cfg.sources
                    .iter()
                    .find(|c| &c.name == s)
                    .cloned()
                    .ok_or_else(|| AppError::Config(format!("no [[sources]] entry named {s}")))
            })
            .collect::<Result<_, _>>()?
    };
    if selected.is_empty() {
        return Err(AppError::Config("no sources configured".into()));
    }
    Ok(selected)
}

/// Ingests sources through their plugins (one `ingest_runs` row each): reports and seconds.
pub async fn ingest_sources(
    cfg: &Config,
    sources: &[SourceConfig],
    progress: bool,
) -> Result<Vec<(SourceReport, f64)>, AppError> {
    let host = mitra::plugins::PluginHost::new(cfg)?;
    let (mut store, mut index) = super::open(cfg).await?;
    let mut out = Vec::new();
    for src in sources {
        let started = std::time::Instant::now();
        let r = mitra::pipeline::ingest_source(&mut store, &mut index, cfg, &host, src, progress)
            .await?;
        out.push((r, started.elapsed().as_secs_f64()));
    }
    after_ingest(cfg, &mut store, &mut index).await?;
    index.close_writer()?;
    Ok(out)
}

/// A source name from a location: the last path segment or the host.
fn default_source_name(location: &str) -> String {
    let trimmed = location.trim_end_matches('/');
    let last = match url::Url::parse(trimmed) {
        Ok(u) if u.has_host() => u.host_str().unwrap_or("source").to_string(),
        _ => trimmed.rsplit('/').next().unwrap_or("source").to_string(),
    };
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        "source".into()
    } else {
        name
    }
}
