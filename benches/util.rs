//! Helpers shared by the benchmarks: a seeded generator, percentiles, peak memory.

/// A 64-bit LCG (Knuth's constants): reproducible generated corpora and vectors.
pub struct Lcg(pub u64);

#[allow(dead_code)] // each benchmark uses a subset
impl Lcg {
    /// The next 31-bit value.
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// Zipf-like word index over `n` words.
    pub fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }

    /// Uniform in [-0.5, 0.5).
    pub fn unit(&mut self) -> f32 {
        (self.next() as f32 / (1u64 << 31) as f32) - 0.5
    }

    /// A unit vector near `centre`: each coordinate moved by `spread` × [-0.5, 0.5), normalised.
    pub fn unit_near(&mut self, centre: &[f32], spread: f32) -> Vec<f32> {
        let mut v: Vec<f32> = centre.iter().map(|x| x + spread * self.unit()).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
        v
    }
}

/// A generated document (version 1, id as title and hash) holding `chunks`.
#[allow(dead_code)] // not every benchmark writes documents
pub fn generated_doc(
    doc_id: &str,
    analysis_id: Option<String>,
    chunks: Vec<mitra::store::ChunkRow>,
) -> mitra::store::NewDocument {
    mitra::store::NewDocument {
        doc: mitra::store::DocumentRow {
            doc_id: doc_id.to_string(),
            version: 1,
            title: doc_id.to_string(),
            source_uri: String::new(),
            content_sha256: doc_id.to_string(),
            ingested_at: 0,
            analysis_id,
            metadata: "{}".into(),
            source: None,
            deleted_at: None,
        },
        chunks,
    }
}

/// The `p` quantile of ascending `sorted` (nearest rank); 0 when empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Peak resident memory of this process (VmHWM), MiB.
pub fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// Serves `ctx` over pgwire on an ephemeral loopback port and connects one tokio-postgres client.
#[allow(dead_code)] // not every benchmark serves SQL
pub async fn serve_and_connect(
    ctx: datafusion::prelude::SessionContext,
    server: &mitra::config::ServerConfig,
) -> tokio_postgres::Client {
    let mut scfg = server.clone();
    scfg.listen = "127.0.0.1:0".into();
    let server = mitra::pg::Server::bind(ctx, &scfg).await.unwrap();
    let addr = server.local_addr();
    tokio::spawn(server.run());
    let (client, conn) = tokio_postgres::connect(
        &format!(
            "host={} port={} dbname=mitra user=bench",
            addr.ip(),
            addr.port()
        ),
        tokio_postgres::NoTls,
    )
    .await
    .unwrap();
    tokio::spawn(conn);
    client
}
