//! Plugin benchmarks: call overhead, PDF pages/s against pdftotext, end-to-end plugin ingest.
//!
//! `cargo bench --profile dev --bench plugins -- [--calls N] [--pdfs N] [--docs N] [--vector-docs N]`
//! (the commands and the recorded figures are in benches/PLUGINS.md).

#![recursion_limit = "256"]

#[path = "util.rs"]
mod util;

use std::path::Path;
use std::time::Instant;

use mitra::config::{Config, SourceConfig};
use mitra::plugins::PluginHost;
use util::percentile;

fn arg(args: &[String], name: &str) -> Option<usize> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

fn config(data: &Path) -> Config {
    let mut cfg = Config {
        data_dir: data.to_path_buf(),
        ..Config::default()
    };
    cfg.embedding.enabled = false;
    cfg
}

/// Instantiate + call of a trivial extraction, and the first-use compile of each built-in.
fn call_overhead(host: &PluginHost, calls: usize) {
    for p in host.registry().all() {
        let started = Instant::now();
        match p.manifest.world {
            mitra::plugins::World::Crawler => {
                drop(host.crawler(&p.manifest.name, &Default::default()).unwrap())
            }
            mitra::plugins::World::Extractor => drop(host.extractor(&p.manifest.name).unwrap()),
        }
        println!(
            "compile+link {:<20} {:>8.1} ms  ({} KiB component)",
            p.manifest.name,
            started.elapsed().as_secs_f64() * 1e3,
            p.wasm.len() / 1024
        );
    }
    let x = host.extractor("markdown-extractor").unwrap();
    let doc = b"# H\n\nOne short paragraph.\n";
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        let out = x.extract(doc, "text/markdown").unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(out.blocks.len(), 2);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "call overhead (fresh sandboxed instance + extract of a 25-byte document), {calls} calls: p50 {:.0} us, p90 {:.0} us, p99 {:.0} us",
        percentile(&times, 0.5),
        percentile(&times, 0.9),
        percentile(&times, 0.99)
    );
}

/// Pages per second through the pdf-extractor and through pdftotext on the same files.
fn pdf_throughput(host: &PluginHost, n: usize, dir: &Path) {
    let (paper, _) = pdfgen::sample_paper();
    let (plain, _) = pdfgen::one_column_doc();
    let pages_paper = 3;
    let pages_plain = count_pages(&plain);
    let mut files = Vec::new();
    let mut pages = 0usize;
    for i in 0..n {
        let (bytes, p) = if i % 2 == 0 {
            (&paper, pages_paper)
        } else {
            (&plain, pages_plain)
        };
        let f = dir.join(format!("doc{i}.pdf"));
        std::fs::write(&f, bytes).unwrap();
        files.push(f);
        pages += p;
    }
    let x = host.extractor("pdf-extractor").unwrap();
    let t = Instant::now();
    let mut blocks = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        blocks += x.extract(&bytes, "application/pdf").unwrap().blocks.len();
    }
    let ours = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for f in &files {
        let status = std::process::Command::new("pdftotext")
            .arg("-layout")
            .arg(f)
            .arg(f.with_extension("txt"))
            .status()
            .expect("pdftotext (poppler-utils) is installed");
        assert!(status.success());
    }
    let theirs = t.elapsed().as_secs_f64();
    println!(
        "pdf-extractor: {n} files, {pages} pages, {blocks} blocks in {ours:.2} s = {:.1} pages/s (one thread, sandboxed)",
        pages as f64 / ours
    );
    println!(
        "pdftotext -layout: same {pages} pages in {theirs:.2} s = {:.1} pages/s (one process per file)",
        pages as f64 / theirs
    );
    // One long document: per-process costs amortised.
    let pages = 200;
    let long = long_pdf(pages);
    let f = dir.join("long.pdf");
    std::fs::write(&f, &long).unwrap();
    let t = Instant::now();
    let out = x.extract(&long, "application/pdf").unwrap();
    let ours = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let status = std::process::Command::new("pdftotext")
        .arg("-layout")
        .arg(&f)
        .arg(f.with_extension("txt"))
        .status()
        .unwrap();
    assert!(status.success());
    let theirs = t.elapsed().as_secs_f64();
    println!(
        "one {pages}-page two-column PDF ({} KiB): pdf-extractor {ours:.2} s = {:.1} pages/s ({} blocks); pdftotext -layout {theirs:.2} s = {:.1} pages/s",
        long.len() / 1024,
        pages as f64 / ours,
        out.blocks.len(),
        pages as f64 / theirs
    );
}

/// One long two-column document: `pages` pages of generated body text with header, footer,
/// page number and a heading per page (Flate-compressed content).
fn long_pdf(pages: usize) -> Vec<u8> {
    use pdfgen::{Font, Style};
    let mut doc = pdfgen::Doc::new();
    doc.set_compress(true);
    let mut rng = util::Lcg(11);
    for n in 1..=pages {
        let page = doc.add_letter_page();
        page.text(
            72.0,
            756.0,
            Font::Helvetica,
            8.0,
            "Muon Collider Study Note MC-2026/007",
        );
        page.text(72.0, 40.0, Font::Helvetica, 8.0, "Internal");
        page.text(530.0, 40.0, Font::Helvetica, 8.0, &n.to_string());
        page.text(
            72.0,
            720.0,
            Font::HelveticaBold,
            12.0,
            &format!("{n} Section"),
        );
        for x in [72.0, 318.0] {
            let mut y = 700.0;
            while y > 90.0 {
                let words: Vec<String> = (0..60).map(|_| format!("w{}", rng.zipf(3000))).collect();
                y = page.paragraph(
                    x,
                    y,
                    222.0,
                    Style::new(Font::TimesRoman, 10.0).leading(12.0),
                    &words.join(" "),
                );
                y -= 6.0;
            }
        }
    }
    doc.to_bytes()
}

fn count_pages(pdf: &[u8]) -> usize {
    let s = String::from_utf8_lossy(pdf);
    s.matches("/Type /Page").count() - s.matches("/Type /Pages").count()
}

/// Documents per second of `ingest_source` over a directory of markdown, HTML and PDF files.
async fn ingest_throughput(docs: usize, root: &Path) {
    let src_dir = root.join("src");
    std::fs::create_dir_all(&src_dir).unwrap();
    let (paper, _) = pdfgen::sample_paper();
    let mut rng = util::Lcg(7);
    for i in 0..docs {
        match i % 3 {
            0 => {
                let words: Vec<String> = (0..300).map(|_| format!("w{}", rng.zipf(5000))).collect();
                std::fs::write(
                    src_dir.join(format!("n{i}.md")),
                    format!("# Note {i}\n\n{}\n", words.join(" ")),
                )
                .unwrap();
            }
            1 => {
                let words: Vec<String> = (0..300).map(|_| format!("w{}", rng.zipf(5000))).collect();
                std::fs::write(
                    src_dir.join(format!("w{i}.html")),
                    format!(
                        "<html><body><h1>Wiki {i}</h1><p>{}</p></body></html>",
                        words.join(" ")
                    ),
                )
                .unwrap();
            }
            _ => {
                // Distinct bytes per file so that none is skipped as unchanged.
                let mut p = paper.clone();
                p.extend_from_slice(format!("\n% {i}\n").as_bytes());
                std::fs::write(src_dir.join(format!("p{i}.pdf")), p).unwrap();
            }
        }
    }
    let cfg = config(&root.join("data"));
    let (r, secs) = timed_ingest(&cfg, &src_dir, 2).await;
    assert_eq!(r[0].run.added as usize, docs, "{:?}", r[0].errors);
    println!(
        "plugin ingest (dir-crawler -> md/html/pdf extractors -> chunk -> Lance + BM25, no vectors): {docs} docs, {} chunks in {:.2} s = {:.1} docs/s",
        r[0].run.chunks,
        secs[0],
        docs as f64 / secs[0]
    );
    println!(
        "re-ingest of the unchanged source: {} unchanged in {:.2} s = {:.1} docs/s",
        r[1].run.unchanged,
        secs[1],
        docs as f64 / secs[1]
    );
}

/// Ingests the directory `runs` times as one dir-crawler source; the reports and seconds of each.
async fn timed_ingest(
    cfg: &Config,
    dir: &Path,
    runs: usize,
) -> (Vec<mitra::pipeline::SourceReport>, Vec<f64>) {
    let host = PluginHost::new(cfg).unwrap();
    let (mut store, mut index, _) = mitra::open(cfg).await.unwrap();
    let src = SourceConfig {
        name: "bench".into(),
        crawler: "dir-crawler".into(),
        location: dir.to_string_lossy().into(),
        ..Default::default()
    };
    let (mut reports, mut secs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        reports.push(
            mitra::pipeline::ingest_source(&mut store, &mut index, cfg, &host, &src, false)
                .await
                .unwrap(),
        );
        secs.push(t.elapsed().as_secs_f64());
    }
    (reports, secs)
}

/// As [`ingest_throughput`] with all-MiniLM-L6-v2 vectors (needs `mitra models fetch`).
async fn ingest_with_vectors(docs: usize, root: &Path) {
    let src_dir = root.join("src");
    std::fs::create_dir_all(&src_dir).unwrap();
    let mut rng = util::Lcg(5);
    for i in 0..docs {
        let words: Vec<String> = (0..300).map(|_| format!("w{}", rng.zipf(5000))).collect();
        std::fs::write(
            src_dir.join(format!("n{i}.md")),
            format!("# Note {i}\n\n{}\n", words.join(" ")),
        )
        .unwrap();
    }
    let mut cfg = config(&root.join("data"));
    cfg.embedding.enabled = true;
    cfg.embedding.models_dir = std::env::var_os("MITRA_EMBEDDING_MODELS_DIR")
        .map(Into::into)
        .unwrap_or_else(|| Path::new(&std::env::var("HOME").unwrap()).join(".cache/mitra-models"));
    let (r, secs) = timed_ingest(&cfg, &src_dir, 1).await;
    println!(
        "plugin ingest with MiniLM vectors: {docs} markdown docs, {} chunks in {:.1} s = {:.2} docs/s",
        r[0].run.chunks,
        secs[0],
        docs as f64 / secs[0]
    );
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(&tmp.path().join("data"));
    let host = PluginHost::new(&cfg).unwrap();
    call_overhead(&host, arg(&args, "--calls").unwrap_or(500));
    let pdf_dir = tmp.path().join("pdf");
    std::fs::create_dir_all(&pdf_dir).unwrap();
    pdf_throughput(&host, arg(&args, "--pdfs").unwrap_or(200), &pdf_dir);
    ingest_throughput(
        arg(&args, "--docs").unwrap_or(600),
        &tmp.path().join("ingest"),
    )
    .await;
    if let Some(n) = arg(&args, "--vector-docs") {
        ingest_with_vectors(n, &tmp.path().join("vectors")).await;
    }
    println!("peak RSS {:.0} MiB", util::peak_rss_mib());
}
