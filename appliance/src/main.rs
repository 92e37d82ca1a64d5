//! The `mitra` command line: serve, ingest, sql, status, demo.

#![recursion_limit = "256"]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use mitra::config::{Config, SourceConfig};
use mitra::index::{Bm25Index, SyncOutcome};
use mitra::store::Store;
use mitra::{beir, demo, eval, ingest, pg, sql, table_fmt, AppError};

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
    /// Ingest .txt/.md files and folders, a BEIR corpus, or a source through plugins
    /// (`--crawler NAME --source LOCATION [--extractor NAME]`, or configured `[[sources]]`).
    Ingest {
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
    },
    /// Run one SQL statement on the local store and print the result.
    Sql {
        /// The statement.
        query: String,
    },
    /// Show tables, row counts, Lance versions and the BM25 index state.
    Status,
    /// Evaluate retrievers on a BEIR collection (trec_eval metrics, run files, answer checks),
    /// or, with `--questions` and no `--dataset`, answers on the configured store.
    Eval {
        /// BEIR collection folder (corpus.jsonl, queries.jsonl, qrels/test.tsv).
        #[arg(long, required_unless_present = "questions")]
        dataset: Option<PathBuf>,
        /// Retrievers, comma-separated; one row each.
        #[arg(long, default_value = "bm25", value_delimiter = ',')]
        retriever: Vec<String>,
        /// Extra cutoff reported as nDCG@k, P@k and R@k.
        #[arg(long, default_value_t = 10)]
        k: usize,
        /// Documents retrieved per query (run depth).
        #[arg(long, default_value_t = 100)]
        depth: usize,
        /// Query files (repeatable); each is reported separately. Default DATASET/queries.jsonl.
        #[arg(long = "queries")]
        queries: Vec<PathBuf>,
        /// Qrels file. Default DATASET/qrels/test.tsv.
        #[arg(long)]
        qrels: Option<PathBuf>,
        /// Write a TREC run file (qid Q0 docid rank score tag).
        #[arg(long)]
        run: Option<PathBuf>,
        /// Write every metric, per retriever, query set and query, as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Sweep fusion weights and K over the first two retrievers.
        #[arg(long)]
        sweep: bool,
        /// Question file for answer evaluation (abstention, key-point coverage).
        #[arg(long)]
        questions: Option<PathBuf>,
        /// The baseline answerer abstains when the best BM25 score is below this.
        #[arg(long, default_value_t = 5.0)]
        abstain_below: f32,
        /// Who answers `--questions`: `baseline` (retrieval threshold) or `llm` (answer() with
        /// the configured language model).
        #[arg(long, default_value = "baseline")]
        answerer: String,
        /// Passages per answer (`--answerer llm`).
        #[arg(long, default_value_t = 5)]
        answer_k: usize,
        /// Only the questions of this part of the set (their `split` field: `tune`, `measure`).
        #[arg(long)]
        split: Option<String>,
        /// Write one JSON line per question (`--answerer llm`): evidence, relevance scores, the
        /// raw and the checked answer, support of each sentence, timings.
        #[arg(long)]
        traces: Option<PathBuf>,
    },
    /// Obtain and inspect encoder and language models (offline after the first fetch).
    Models {
        #[command(subcommand)]
        action: ModelsCommand,
    },
    /// Add vectors to an existing store (Lance schema evolution), then build the ANN index if large enough.
    Embed {
        /// Replace vectors from another model (older Lance versions keep them).
        #[arg(long)]
        rebuild: bool,
        /// Hide the progress bar.
        #[arg(long)]
        no_progress: bool,
    },
    /// WebAssembly plugins: built-in and site plugins, their versions and capabilities.
    Plugins {
        /// What to do.
        #[command(subcommand)]
        action: PluginsCommand,
    },
    /// Analyses (the first tier): import the JSONL file that defines them, list them.
    Analyses {
        /// What to do.
        #[command(subcommand)]
        action: AnalysesCommand,
    },
    /// Users who may log in over the wire (SCRAM-SHA-256) and their groups.
    Users {
        /// What to do.
        #[command(subcommand)]
        action: UsersCommand,
    },
    /// Ask questions in a terminal: choose the analysis from its abstract (tier 1), then search
    /// only its documents for the following questions (tier 2).
    Ask {
        /// The first question (else read from the terminal).
        question: Option<String>,
        /// Passages shown per question.
        #[arg(long, default_value_t = 5)]
        k: usize,
        /// Analyses offered for confirmation.
        #[arg(long, default_value_t = 5)]
        choices: usize,
        /// Start scoped to this analysis (skips the confirmation).
        #[arg(long)]
        analysis: Option<String>,
        /// See what this user of the users file may read (default: the operator, everything).
        #[arg(long)]
        user: Option<String>,
        /// Print the passages instead of answering with the language model.
        #[arg(long)]
        passages: bool,
    },
    /// Ingest the bundled demo notes and serve them.
    Demo {
        /// Address to listen on (default 127.0.0.1:5433).
        #[arg(long)]
        listen: Option<String>,
    },
}

#[derive(Subcommand)]
enum AnalysesCommand {
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

#[derive(Subcommand)]
enum UsersCommand {
    /// Add a user (or set its password and groups); the password is read from a prompt, or
    /// from the first line of stdin with --password-stdin.
    Add {
        /// Login name.
        name: String,
        /// Groups, comma-separated.
        #[arg(long, value_delimiter = ',')]
        groups: Vec<String>,
        /// Read the password from stdin instead of a prompt.
        #[arg(long)]
        password_stdin: bool,
    },
    /// List users and their groups.
    List,
    /// Remove a user.
    Remove {
        /// Login name.
        name: String,
    },
}

#[derive(Subcommand)]
enum PluginsCommand {
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

#[derive(Subcommand)]
enum ModelsCommand {
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

fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("MITRA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

async fn open(cfg: &Config) -> Result<(Store, Bm25Index), AppError> {
    let (store, index, outcome) = mitra::open(cfg).await?;
    if outcome != SyncOutcome::UpToDate {
        tracing::info!(?outcome, "BM25 index synced with Lance");
    }
    Ok((store, index))
}

/// `--setting KEY=VALUE` pairs as a source's settings table.
fn parse_settings(
    settings: &[String],
) -> Result<std::collections::BTreeMap<String, toml::Value>, AppError> {
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
async fn ingest_sources(
    cfg: &Config,
    sources: &[SourceConfig],
    progress: bool,
) -> Result<Vec<(mitra::pipeline::SourceReport, f64)>, AppError> {
    let host = mitra::plugins::PluginHost::new(cfg)?;
    let (mut store, mut index) = open(cfg).await?;
    let mut out = Vec::new();
    for src in sources {
        let started = std::time::Instant::now();
        let r = mitra::pipeline::ingest_source(&mut store, &mut index, cfg, &host, src, progress)
            .await?;
        out.push((r, started.elapsed().as_secs_f64()));
    }
    index.close_writer()?;
    Ok(out)
}

/// `mitra plugins list`: every plugin with what it requests and what it is granted.
fn list_plugins(cfg: &Config) -> Result<(), AppError> {
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
fn extract_files(
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

/// Opens for reading: does not hold the writer lock, so `mitra ingest` can run alongside.
async fn open_reader(cfg: &Config) -> Result<(Store, Bm25Index), AppError> {
    let (store, index, outcome) = mitra::open_reader(cfg).await?;
    if outcome != SyncOutcome::UpToDate {
        tracing::info!(?outcome, "BM25 index synced with Lance");
    }
    Ok((store, index))
}

async fn serve(cfg: &Config, banner: bool) -> Result<(), AppError> {
    let (store, mut index) = open_reader(cfg).await?;
    drop(store);
    index.close_writer()?;
    let ctx = sql::build_session(cfg, Arc::new(index)).await?;
    let mut scfg = cfg.server.clone();
    scfg.users_file = Some(cfg.server.users_path(&cfg.data_dir));
    let server = pg::Server::bind(ctx, &scfg).await?;
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

/// A fresh scratch data directory for `mitra eval`, unless a store was named explicitly.
fn tempdir_for_eval(explicit: bool) -> Option<PathBuf> {
    if explicit {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("mitra-eval-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Some(dir)
}

/// Chunk texts by id (for quoting answers).
async fn chunk_texts(store: &Store) -> Result<std::collections::HashMap<String, String>, AppError> {
    use futures::TryStreamExt;
    let mut out = std::collections::HashMap::new();
    let mut scan = store.chunks().scan();
    scan.project(&["chunk_id", "text"])
        .map_err(mitra::store::StoreError::from)?;
    let mut stream = scan
        .try_into_stream()
        .await
        .map_err(mitra::store::StoreError::from)?;
    while let Some(b) = stream
        .try_next()
        .await
        .map_err(mitra::store::StoreError::from)?
    {
        let (ids, texts) = (mitra::store::str_col(&b, 0), mitra::store::str_col(&b, 1));
        for i in 0..b.num_rows() {
            out.insert(ids.value(i).to_string(), texts.value(i).to_string());
        }
    }
    Ok(out)
}

/// Writes `value` as pretty JSON to `path`.
fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), AppError> {
    std::fs::write(
        path,
        serde_json::to_string_pretty(value).expect("serialisable"),
    )
    .map_err(|source| AppError::Io {
        context: format!("writing {}", path.display()),
        source,
    })
}

/// The retrieval-threshold baseline over `questions`.
async fn baseline_answers(
    store: &Store,
    index: &mitra::index::Bm25Index,
    abstain_below: f32,
    questions: &[eval::answers::Question],
) -> Result<eval::answers::AnswerReport, AppError> {
    let a = eval::answers::RetrievalThresholdAnswerer {
        index,
        texts: chunk_texts(store).await?,
        threshold: abstain_below,
        top: 3,
    };
    Ok(eval::answers::evaluate(
        &a,
        index.analyzer(),
        questions,
        None,
    )?)
}

fn print_answers(qpath: &Path, answerer: &str, cfg: &Config, rep: &eval::answers::AnswerReport) {
    let who = if answerer == "llm" {
        format!(
            "llm {}",
            cfg.llm
                .model_path
                .as_ref()
                .map_or(cfg.llm.model.clone(), |p| p.display().to_string())
        )
    } else {
        "retrieval-threshold baseline".to_string()
    };
    println!(
        "answers ({}: {who}): {} questions, abstention accuracy {:.4}, answered when answerable {:.4}, abstained when unanswerable {:.4}, answered unanswerable {:.4}, key-point coverage {:.4}, citation precision {:.4}, cited answers {:.4}, support rate {:.4}, shown sentences with an unsupported number {:.4}, {:.1} s per answer (max {:.1})",
        qpath.display(),
        rep.questions,
        rep.abstention_accuracy,
        rep.answered_when_answerable,
        rep.abstained_when_unanswerable,
        rep.answered_unanswerable,
        rep.key_point_coverage,
        rep.citation_precision,
        rep.cited_answers,
        rep.support_rate,
        rep.shown_unsupported_numbers,
        rep.mean_seconds,
        rep.max_seconds
    );
}

async fn run(cli: Cli) -> Result<(), AppError> {
    let mut cfg = Config::load(cli.config.as_deref())?;
    let explicit_data = cli.data.is_some() || std::env::var_os("MITRA_DATA").is_some();
    if let Some(d) = cli.data {
        cfg.data_dir = d;
    }
    match cli.command {
        Command::Serve { listen } => {
            init_logs("info,lance=warn,lance_core=warn,lance_io=warn,lance_file=warn,lance_table=warn,lance_encoding=warn");
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
            // Through the plugin pipeline: dir-crawler, then the markdown extractor by media type.
            let src = SourceConfig {
                name: "demo-notes".into(),
                crawler: "dir-crawler".into(),
                location: folder.to_string_lossy().into(),
                ..Default::default()
            };
            for (r, _) in ingest_sources(&cfg, &[src], false).await? {
                println!(
                    "Demo corpus: {} added, {} updated, {} unchanged, {} chunks",
                    r.run.added, r.run.updated, r.run.unchanged, r.run.chunks
                );
                for e in &r.errors {
                    eprintln!("  {e}");
                }
            }
            serve(&cfg, true).await
        }
        Command::Ingest {
            paths,
            beir: beir_dir,
            no_progress,
            crawler,
            source,
            extractor,
            name,
            analysis_id,
            settings,
            sources,
        } => {
            init_logs("warn");
            let progress = !no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr());
            if crawler.is_some() || !sources.is_empty() {
                let selected = match (crawler, source) {
                    (Some(crawler), Some(location)) => vec![SourceConfig {
                        name: name.unwrap_or_else(|| default_source_name(&location)),
                        crawler,
                        extractor,
                        location,
                        analysis_id,
                        settings: parse_settings(&settings)?,
                    }],
                    _ => configured_sources(&cfg, &sources)?,
                };
                let mut failed = false;
                for (r, secs) in ingest_sources(&cfg, &selected, progress).await? {
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
                        "a source listing failed; nothing of it was tombstoned (see ingest_runs)"
                            .into(),
                    ));
                }
                return Ok(());
            }
            if let Some(a) = analysis_id {
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
            let (mut store, mut index) = open(&cfg).await?;
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
        Command::Eval {
            dataset,
            retriever,
            k,
            depth,
            queries,
            qrels,
            run,
            json,
            sweep,
            questions,
            abstain_below,
            answerer,
            answer_k,
            split,
            traces,
        } => {
            init_logs("warn");
            if !matches!(answerer.as_str(), "baseline" | "llm") {
                return Err(AppError::Config(format!(
                    "--answerer must be baseline or llm, not {answerer:?}"
                )));
            }
            if dataset.is_some() && answerer == "llm" {
                return Err(AppError::Config(
                    "--answerer llm answers on the configured store: give --questions without --dataset"
                        .into(),
                ));
            }
            let Some(dataset) = dataset else {
                // Answers on the configured store (e.g. the demo corpus).
                let qpath = questions.expect("clap: --questions when no --dataset");
                let mut qs = eval::answers::read_questions(&qpath)?;
                if let Some(part) = &split {
                    qs.retain(|q| q.split.as_deref() == Some(part.as_str()));
                    if qs.is_empty() {
                        return Err(AppError::Config(format!(
                            "no question of {} is in split {part:?}",
                            qpath.display()
                        )));
                    }
                }
                let (store, mut index) = open_reader(&cfg).await?;
                index.close_writer()?;
                let analyzer = index.analyzer().clone();
                let rep = if answerer == "llm" {
                    drop(store);
                    let ctx = sql::build_session(&cfg, Arc::new(index)).await?;
                    let llm = mitra::llm::Llm::new(&cfg);
                    let a = eval::answers::LlmAnswerer {
                        ctx: &ctx,
                        llm: &llm,
                        data_dir: &cfg.data_dir,
                        k: answer_k,
                    };
                    let mut file = match &traces {
                        Some(p) => Some(std::io::BufWriter::new(
                            std::fs::File::create(p).map_err(|source| AppError::Io {
                                context: format!("creating {}", p.display()),
                                source,
                            })?,
                        )),
                        None => None,
                    };
                    eval::answers::evaluate(
                        &a,
                        &analyzer,
                        &qs,
                        file.as_mut().map(|f| f as &mut dyn std::io::Write),
                    )?
                } else {
                    baseline_answers(&store, &index, abstain_below, &qs).await?
                };
                print_answers(&qpath, &answerer, &cfg, &rep);
                if let Some(path) = &json {
                    write_json(path, &rep)?;
                }
                return Ok(());
            };
            let retrievers = retriever
                .iter()
                .map(|r| eval::Retriever::parse(r))
                .collect::<Result<Vec<_>, _>>()?;
            let distinct: std::collections::HashSet<_> = retrievers.iter().collect();
            if sweep && distinct.len() < 2 {
                return Err(AppError::Config(
                    "--sweep fuses the first two retrievers with weighted RRF: give two, e.g. --retriever dense,bm25"
                        .into(),
                ));
            }
            if k == 0 || depth == 0 {
                return Err(AppError::Config(
                    "--k and --depth must be at least 1".into(),
                ));
            }
            // A scratch store unless one was named with --data or MITRA_DATA.
            let scratch = tempdir_for_eval(explicit_data);
            if let Some(dir) = &scratch {
                cfg.data_dir = dir.clone();
            }
            let (mut store, mut index) = open(&cfg).await?;
            let req = eval::EvalRequest {
                dataset: dataset.clone(),
                retrievers,
                k,
                depth,
                query_files: queries,
                qrels,
            };
            let (rows, qrels) = eval::run(&mut store, &mut index, &cfg, &req).await?;
            println!(
                "dataset {}  store {}  analyzer {:?}  k1 {} b {}",
                dataset.display(),
                if scratch.is_some() {
                    "scratch".to_string()
                } else {
                    cfg.data_dir.display().to_string()
                },
                index.analyzer().options(),
                cfg.bm25.k1,
                cfg.bm25.b
            );
            print!("{}", eval::render_table(&rows));
            if sweep {
                println!(
                    "sweep: {} + {} (weighted RRF)",
                    rows[0].retriever, rows[1].retriever
                );
                println!(
                    "{:>5} {:>5} {:>5} {:>8} {:>8} {:>8}",
                    "w_a", "w_b", "K", "nDCG@10", "MRR", "P@1"
                );
                for p in eval::sweep(&rows[0], &rows[1], &qrels, depth) {
                    println!(
                        "{:>5.1} {:>5.1} {:>5} {:>8.4} {:>8.4} {:>8.4}",
                        p.w_a, p.w_b, p.k, p.mean.ndcg_10, p.mean.mrr, p.mean.p_1
                    );
                }
            }
            if let Some(path) = &run {
                if rows.len() == 1 {
                    eval::write_run(path, &[&rows[0]])?;
                } else {
                    for r in &rows {
                        let p = path.with_extension(format!(
                            "{}.{}.run",
                            r.retriever,
                            r.query_set.trim_end_matches(".jsonl")
                        ));
                        eval::write_run(&p, &[r])?;
                    }
                }
            }
            let answers = match &questions {
                Some(qpath) => {
                    let qs = eval::answers::read_questions(qpath)?;
                    let rep = baseline_answers(&store, &index, abstain_below, &qs).await?;
                    print_answers(qpath, "baseline", &cfg, &rep);
                    Some(rep)
                }
                None => None,
            };
            if let Some(path) = &json {
                let doc = serde_json::json!({
                    "dataset": dataset.display().to_string(),
                    "analyzer": index.analyzer().options(),
                    "bm25": {"k1": cfg.bm25.k1, "b": cfg.bm25.b},
                    "rows": rows,
                    "answers": answers,
                });
                write_json(path, &doc)?;
            }
            index.close_writer()?;
            drop(index);
            drop(store);
            if let Some(dir) = scratch {
                let _ = std::fs::remove_dir_all(dir);
            }
            Ok(())
        }
        Command::Plugins {
            action: PluginsCommand::List,
        } => {
            init_logs("warn");
            list_plugins(&cfg)
        }
        Command::Plugins {
            action:
                PluginsCommand::Extract {
                    files,
                    extractor,
                    media_type,
                    chunks,
                },
        } => {
            init_logs("warn");
            extract_files(
                &cfg,
                &files,
                extractor.as_deref(),
                media_type.as_deref(),
                chunks,
            )
        }
        Command::Models { action } => {
            init_logs("info");
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
                        };
                        let default = if configured { " (configured)" } else { "" };
                        let kind = match m.kind {
                            mitra::models::ModelKind::Encoder => format!("{:>4}-d", m.dim),
                            mitra::models::ModelKind::Llm => "   llm".to_string(),
                            mitra::models::ModelKind::Tokenizer => "   tok".to_string(),
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
        Command::Embed {
            rebuild,
            no_progress,
        } => {
            init_logs("warn");
            let (mut store, index) = open(&cfg).await?;
            let embedder = mitra::dense::Embedder::shared(&cfg.embedding)?;
            let progress = !no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr());
            let started = std::time::Instant::now();
            let n = mitra::dense::embed_store(&mut store, &embedder, rebuild, progress).await?;
            let secs = started.elapsed().as_secs_f64();
            let ann = mitra::dense::ensure_ann_index(&mut store, &cfg.dense).await?;
            if n == 0 && !rebuild {
                println!(
                    "chunks already carry {} vectors ({}-d)",
                    embedder.info().model_id,
                    embedder.info().dim
                );
            } else {
                println!(
                    "embedded {n} chunks with {} in {secs:.1}s ({:.0} chunks/s)",
                    embedder.info().model_id,
                    n as f64 / secs.max(1e-9)
                );
            }
            if ann.built || ann.optimized {
                println!(
                    "vector index ({}) over {} rows updated in {:.1}s",
                    cfg.dense.ann_index, ann.rows, ann.seconds
                );
            }
            drop(index);
            Ok(())
        }
        Command::Analyses { action } => {
            init_logs("warn");
            match action {
                AnalysesCommand::Import { file, force } => {
                    let store = Store::open(&cfg.data_dir).await?;
                    let embedder = match sql::dense_handle(&cfg).await {
                        Ok(vs) => Some(vs.embedder().clone()),
                        Err(why) => {
                            eprintln!("note: abstracts are not embedded ({why}); abstracts() ranks by BM25 only");
                            None
                        }
                    };
                    let r =
                        mitra::analyses::import_file(&store, &cfg.data_dir, &file, force, embedder)
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
        Command::Users { action } => {
            init_logs("warn");
            users_command(&cfg, action)
        }
        Command::Ask {
            question,
            k,
            choices,
            analysis,
            user,
            passages,
        } => {
            init_logs("warn");
            let (_store, mut index) = open_reader(&cfg).await?;
            index.close_writer()?;
            let ctx = sql::build_session(&cfg, Arc::new(index)).await?;
            if let Some(u) = user {
                let users = mitra_auth::UsersFile::load(&cfg.server.users_path(&cfg.data_dir))
                    .map_err(|e| AppError::Config(e.to_string()))?;
                let entry = users
                    .users
                    .get(&u)
                    .ok_or_else(|| AppError::Config(format!("no user {u:?} in the users file")))?;
                let principal = mitra::analyses::Principal::User {
                    name: u.clone(),
                    groups: entry.groups.clone(),
                };
                ctx.state_ref()
                    .write()
                    .config_mut()
                    .set_extension(Arc::new(mitra::analyses::SessionAccess::new(principal)));
            }
            let llm = Arc::new(mitra::llm::Llm::new(&cfg));
            let llm = match (passages, llm.unavailable()) {
                (true, _) => None,
                (false, Some(why)) => {
                    eprintln!("No language model ({why}); showing the passages.");
                    None
                }
                (false, None) => Some(llm),
            };
            let opts = mitra::ask::AskOptions {
                k,
                choices,
                analysis,
                llm,
            };
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            let mut out = std::io::stdout();
            mitra::ask::run(&ctx, &opts, question, &mut input, &mut out).await
        }
        Command::Sql { query } => {
            init_logs("warn");
            let (_store, mut index) = open_reader(&cfg).await?;
            index.close_writer()?;
            let ctx = sql::build_session(&cfg, Arc::new(index)).await?;
            let batches = ctx.sql(&query).await?.collect().await?;
            print!("{}", table_fmt::render(&batches));
            Ok(())
        }
        Command::Status => {
            init_logs("warn");
            let (store, index) = open_reader(&cfg).await?;
            println!("data directory: {}", cfg.data_dir.display());
            for t in store.status().await? {
                println!(
                    "table {:<10} rows {:>9}  lance version {:>5}  versions kept {:>5}  fragments {:>4}",
                    t.name, t.rows, t.version, t.versions, t.fragments
                );
            }
            let analyses_dir = cfg.data_dir.join(mitra::analyses::TABLE_DIR);
            if analyses_dir.join("_versions").exists() {
                let ds = lance::dataset::Dataset::open(&analyses_dir.to_string_lossy())
                    .await
                    .map_err(mitra::store::StoreError::from)?;
                let rows = ds
                    .count_rows(None)
                    .await
                    .map_err(mitra::store::StoreError::from)?;
                println!(
                    "table {:<10} rows {:>9}  lance version {:>5}",
                    "analyses",
                    rows,
                    ds.version().version
                );
            } else {
                println!("table analyses   none (mitra analyses import FILE)");
            }
            let users_path = cfg.server.users_path(&cfg.data_dir);
            match mitra_auth::UsersFile::load(&users_path) {
                Ok(u) if u.users.is_empty() => {
                    println!("logins           none: loopback only, no authentication")
                }
                Ok(u) => println!(
                    "logins           {} users, SCRAM-SHA-256 ({})",
                    u.users.len(),
                    users_path.display()
                ),
                Err(e) => println!("logins           users file unusable: {e}"),
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
            match store.embedding_meta() {
                Some(m) => println!(
                    "vectors          model {} ({}-d)  search {}",
                    m.model,
                    m.dim,
                    if mitra::dense::has_vector_index(store.chunks()).await? {
                        "Lance ANN index"
                    } else {
                        "exact"
                    }
                ),
                None => println!("vectors          none (run `mitra embed` to add them)"),
            }
            Ok(())
        }
    }
}

/// `mitra users add/list/remove` on the users file.
fn users_command(cfg: &Config, action: UsersCommand) -> Result<(), AppError> {
    let path = cfg.server.users_path(&cfg.data_dir);
    let err = |e: mitra_auth::AuthError| AppError::Config(e.to_string());
    let mut users = mitra_auth::UsersFile::load(&path).map_err(err)?;
    match action {
        UsersCommand::Add {
            name,
            groups,
            password_stdin,
        } => {
            let password = if password_stdin {
                let mut line = String::new();
                std::io::stdin()
                    .read_line(&mut line)
                    .map_err(|source| AppError::Io {
                        context: "reading the password from stdin".into(),
                        source,
                    })?;
                line.trim_end_matches(['\r', '\n']).to_string()
            } else {
                let io = |source| AppError::Io {
                    context: "reading the password".into(),
                    source,
                };
                let p = rpassword::prompt_password(format!("password for {name}: ")).map_err(io)?;
                let again = rpassword::prompt_password("again: ").map_err(io)?;
                if p != again {
                    return Err(AppError::Config("the passwords differ".into()));
                }
                p
            };
            let groups: Vec<String> = groups.into_iter().filter(|g| !g.is_empty()).collect();
            users.add(&name, &password, &groups).map_err(err)?;
            users.save(&path).map_err(err)?;
            println!(
                "user {name} saved in {} (groups: {})",
                path.display(),
                groups.join(",")
            );
        }
        UsersCommand::List => {
            let rows: Vec<Vec<String>> = users
                .users
                .iter()
                .map(|(n, u)| {
                    vec![
                        n.clone(),
                        u.groups.iter().cloned().collect::<Vec<_>>().join(","),
                    ]
                })
                .collect();
            print!(
                "{}",
                table_fmt::render_rows(&["user", "groups"].map(String::from), &rows)
            );
        }
        UsersCommand::Remove { name } => {
            if !users.remove(&name) {
                return Err(AppError::Config(format!("no user {name:?}")));
            }
            users.save(&path).map_err(err)?;
            println!("user {name} removed");
        }
    }
    Ok(())
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
