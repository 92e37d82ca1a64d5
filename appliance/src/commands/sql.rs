//! `mitra sql`: one statement on the local store, printed as a table.

use mitra::config::Config;
use mitra::{table_fmt, AppError};

/// Arguments of `mitra sql`.
#[derive(clap::Args)]
pub struct SqlArgs {
    /// The statement.
    pub query: String,
    /// Unaligned output, as `psql -A`: values in full (not cut at 80 characters), separated
    /// by `|`.
    #[arg(short = 'A', long)]
    pub unaligned: bool,
}

/// Runs `mitra sql`.
pub async fn run(cfg: Config, args: SqlArgs) -> Result<(), AppError> {
    super::init_logs("warn");
    let ctx = super::session(&cfg).await?;
    let batches = ctx.sql(&args.query).await?.collect().await?;
    if args.unaligned {
        print!("{}", table_fmt::render_unaligned(&batches));
    } else {
        print!("{}", table_fmt::render(&batches));
    }
    Ok(())
}
