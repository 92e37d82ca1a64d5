//! Reads a JSON array of Markdown documents on stdin and prints, for each, its blocks as
//! `[kind, text]` pairs (a JSON array of arrays): the native harness of
//! `benches/commonmark_blocks.py`.

use std::io::Read;

fn main() {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("reading stdin: {e}");
        std::process::exit(2);
    }
    let docs: Vec<String> = match serde_json::from_str(&input) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("stdin is not a JSON array of strings: {e}");
            std::process::exit(2);
        }
    };
    let out: Vec<Vec<(String, String)>> = docs
        .iter()
        .map(|md| {
            markdown_extractor::markdown_blocks(md)
                .into_iter()
                .map(|b| {
                    let kind = format!("{:?}", b.kind);
                    let kind = kind.rsplit("::").next().unwrap_or(&kind).to_lowercase();
                    (kind, b.text)
                })
                .collect()
        })
        .collect();
    println!(
        "{}",
        serde_json::to_string(&out).unwrap_or_else(|_| "[]".into())
    );
}
