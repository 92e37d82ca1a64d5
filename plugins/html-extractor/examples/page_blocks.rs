//! Reads a JSON array of HTML file paths on stdin and prints, for each, its blocks as
//! `[kind, text]` pairs (a JSON array of arrays): the native harness of
//! `benches/html_main_content.py`.

use std::io::Read;

fn main() {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("reading stdin: {e}");
        std::process::exit(2);
    }
    let paths: Vec<String> = match serde_json::from_str(&input) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("stdin is not a JSON array of paths: {e}");
            std::process::exit(2);
        }
    };
    let t = std::time::Instant::now();
    let mut bytes = 0usize;
    let out: Vec<Vec<(String, String)>> = paths
        .iter()
        .map(|p| {
            let raw = std::fs::read(p).unwrap_or_default();
            bytes += raw.len();
            html_extractor::html_blocks(&String::from_utf8_lossy(&raw))
                .into_iter()
                .map(|b| {
                    let kind = format!("{:?}", b.kind);
                    let kind = kind.rsplit("::").next().unwrap_or(&kind).to_lowercase();
                    (kind, b.text)
                })
                .collect()
        })
        .collect();
    eprintln!(
        "{} pages, {:.1} MB in {:.2} s",
        paths.len(),
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    println!(
        "{}",
        serde_json::to_string(&out).unwrap_or_else(|_| "[]".into())
    );
}
