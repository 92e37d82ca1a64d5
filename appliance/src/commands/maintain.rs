//! `mitra maintain`: compaction, one BM25 segment, old versions removed outside the retention
//! window (receipts' versions kept); `--dry-run` shows what it would remove.

use clap::Args;
use mitra::config::Config;
use mitra::AppError;

/// Arguments of `mitra maintain`.
#[derive(Args)]
pub struct MaintainArgs {
    /// Show what would be removed and reclaimed, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Versions superseded more recently stay (overrides maintain.retention_hours).
    #[arg(long)]
    retention_hours: Option<u64>,
}

use mitra::table_fmt::size_pretty;

/// Runs `mitra maintain`.
pub async fn run(mut cfg: Config, args: MaintainArgs) -> Result<(), AppError> {
    super::init_logs("warn");
    if let Some(h) = args.retention_hours {
        cfg.maintain.retention_hours = h;
    }
    if args.dry_run {
        for p in mitra::maintain::plan(&cfg).await? {
            println!(
                "table {:<12} versions {:>5}  on disk {:>10}  would remove {:>5} versions, {:>10}  (kept for receipts {})",
                p.table,
                p.versions,
                size_pretty(p.bytes_on_disk),
                p.removable.len(),
                size_pretty(p.reclaimable_bytes),
                p.kept_for_receipts
            );
        }
        return Ok(());
    }
    let (mut store, mut index) = super::open(&cfg).await?;
    let report = mitra::maintain::run(&cfg, &mut store, &mut index).await?;
    index.close_writer()?;
    print_report(&report);
    Ok(())
}

/// The report's lines.
pub fn print_report(r: &mitra::maintain::Report) {
    println!(
        "compacted: documents {} -> {} fragments, chunks {} -> {} fragments; bm25 {} -> {} segments",
        r.fragments[0].0, r.fragments[0].1, r.fragments[1].0, r.fragments[1].1, r.segments.0, r.segments.1
    );
    for (p, c) in &r.tables {
        println!(
            "table {:<12} removed {:>5} of {:>5} versions, {:>10} freed (kept for receipts {})",
            p.table,
            c.versions,
            p.versions,
            size_pretty(c.bytes),
            p.kept_for_receipts
        );
    }
}
