//! `mitra embed`: vectors for an existing store (Lance schema evolution), then the ANN index.

use mitra::config::Config;
use mitra::AppError;

/// Arguments of `mitra embed`.
#[derive(clap::Args)]
pub struct EmbedArgs {
    /// Replace vectors from another model (older Lance versions keep them).
    #[arg(long)]
    rebuild: bool,
    /// Hide the progress bar.
    #[arg(long)]
    no_progress: bool,
}

/// Runs `mitra embed`.
pub async fn run(cfg: Config, args: EmbedArgs) -> Result<(), AppError> {
    super::init_logs("warn");
    let (mut store, index) = super::open(&cfg).await?;
    let embedder = mitra::dense::Embedder::shared(&cfg.embedding)?;
    let progress = super::progress(args.no_progress);
    let started = std::time::Instant::now();
    let n = mitra::dense::embed_store(&mut store, &embedder, args.rebuild, progress).await?;
    let secs = started.elapsed().as_secs_f64();
    let ann = mitra::dense::ensure_ann_index(&mut store, &cfg.dense).await?;
    if n == 0 && !args.rebuild {
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
