//! `mitra status`: tables, row counts, Lance versions, logins, the BM25 index and the vectors.

use mitra::config::Config;
use mitra::AppError;

/// Runs `mitra status`.
pub async fn run(cfg: Config) -> Result<(), AppError> {
    super::init_logs("warn");
    let (store, index) = super::open_reader(&cfg).await?;
    println!("data directory: {}", cfg.data_dir.display());
    for t in store.status().await? {
        println!(
            "table {:<10} rows {:>9}  lance version {:>5}  versions kept {:>5}  fragments {:>4}",
            t.name, t.rows, t.version, t.versions, t.fragments
        );
    }
    // What old versions cost, and what `mitra maintain` would reclaim now.
    for p in mitra::maintain::plan(&cfg).await? {
        println!(
            "storage {:<12} {:>5} versions  {:>10} on disk  maintain would remove {} versions, {} (retention {} h; kept for receipts {})",
            p.table,
            p.versions,
            mitra::table_fmt::size_pretty(p.bytes_on_disk),
            p.removable.len(),
            mitra::table_fmt::size_pretty(p.reclaimable_bytes),
            cfg.maintain.retention_hours,
            p.kept_for_receipts
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
    let r = &cfg.rerank;
    match (r.model.as_str(), &r.model_dir) {
        ("none", _) => println!("reranker         none ([rerank] model)"),
        ("llm", _) => println!(
            "reranker         llm: the language model's relevance judge ({})",
            cfg.llm.model
        ),
        (name, Some(dir)) => println!("reranker         {name} ({})", dir.display()),
        (name, None) => println!(
            "reranker         {name} ({})",
            match mitra::models::locate(name, &cfg.embedding.models_dir) {
                Ok(d) => d.display().to_string(),
                Err(e) => e.to_string(),
            }
        ),
    }
    Ok(())
}
