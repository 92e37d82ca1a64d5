//! `mitra serve`: the store over the Postgres wire protocol.

use mitra::config::Config;
use mitra::{pg, AppError};

/// Arguments of `mitra serve` and `mitra demo`.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (default 127.0.0.1:5433).
    #[arg(long)]
    pub listen: Option<String>,
}

/// Runs `mitra serve`.
pub async fn run(mut cfg: Config, args: ServeArgs) -> Result<(), AppError> {
    // rustls logs clients' TLS alerts (a client closing with user_canceled) as warnings.
    super::init_logs("info,lance=warn,lance_core=warn,lance_io=warn,lance_file=warn,lance_table=warn,lance_encoding=warn,rustls=error");
    if let Some(l) = args.listen {
        cfg.server.listen = l;
    }
    serve(&cfg, true).await
}

/// Serves `cfg.data_dir` until Ctrl-C; `banner` prints how to connect.
pub async fn serve(cfg: &Config, banner: bool) -> Result<(), AppError> {
    let ctx = super::session(cfg).await?;
    let mut scfg = cfg.server.clone();
    scfg.users_file = Some(cfg.server.users_path(&cfg.data_dir));
    let server = pg::Server::bind(ctx, &scfg).await?;
    let addr = server.local_addr();
    tracing::info!(%addr, data = %cfg.data_dir.display(), "serving");
    if banner {
        println!("Mitra is serving {} on {addr}", cfg.data_dir.display());
        let ssl = match cfg.server.tls {
            mitra::config::TlsMode::Off => "",
            _ => " sslmode=require",
        };
        println!(
            "Connect with:  psql \"host={} port={} dbname=mitra user=physicist{ssl}\"",
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
