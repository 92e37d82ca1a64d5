//! `mitra demo`: ingests the bundled analysis notes through the plugin pipeline, then serves them.

use mitra::config::{Config, SourceConfig};
use mitra::AppError;

use super::serve::ServeArgs;

/// Runs `mitra demo`.
pub async fn run(mut cfg: Config, args: ServeArgs) -> Result<(), AppError> {
    super::init_logs("warn");
    if let Some(l) = args.listen {
        cfg.server.listen = l;
    }
    let folder = mitra::demo::write_corpus(&cfg.data_dir).map_err(|source| AppError::Io {
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
    for (r, _) in super::ingest::ingest_sources(&cfg, &[src], false).await? {
        println!(
            "Demo corpus: {} added, {} updated, {} unchanged, {} chunks",
            r.run.added, r.run.updated, r.run.unchanged, r.run.chunks
        );
        for e in &r.errors {
            eprintln!("  {e}");
        }
    }
    super::serve::serve(&cfg, true).await
}
