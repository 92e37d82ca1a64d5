//! Reads a JSON array of PDF file paths on stdin and prints, for each, its blocks as
//! `[kind, page, text]` triples, or `{"error": …}`: the native harness of `benches/pdf_real.py`.

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
    let out: Vec<serde_json::Value> = paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap_or_default();
            match pdf_extractor::extract(&bytes, &pdf_extractor::ocr::NoOcr) {
                Ok(x) => serde_json::Value::Array(
                    x.blocks
                        .iter()
                        .map(|b| {
                            let kind = format!("{:?}", b.kind);
                            let kind = kind.rsplit("::").next().unwrap_or(&kind).to_lowercase();
                            serde_json::json!([kind, b.page, b.text])
                        })
                        .collect(),
                ),
                Err(e) => serde_json::json!({ "error": e.to_string() }),
            }
        })
        .collect();
    eprintln!(
        "{} files in {:.2} s",
        paths.len(),
        t.elapsed().as_secs_f64()
    );
    println!(
        "{}",
        serde_json::to_string(&out).unwrap_or_else(|_| "[]".into())
    );
}
