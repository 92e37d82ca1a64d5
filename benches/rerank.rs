//! Cross-encoder speed: 50 (query, passage) pairs of about 256 tokens scored by Mitra's
//! cross-encoder, repeated; the same pairs and model directory as `benches/rerank_speed.py`
//! (sentence-transformers' `CrossEncoder`), which `benches/run_rerank.sh` runs in the same run.
//!
//! ```text
//! cargo bench --profile dev --bench rerank -- --model DIR --pairs PAIRS.json [--reps 5] [--kernel auto|candle]
//! ```
//! PAIRS.json: `{"query": "...", "passages": ["...", ...]}`. Prints one JSON line: the median
//! and best milliseconds per call, pairs, forward passes per call, tokens per pair.

use std::time::Instant;

use mitra_rerank::{BertKernel, CrossEncoder, CrossEncoderDir, Device};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let (Some(model), Some(pairs)) = (arg("--model"), arg("--pairs")) else {
        eprintln!("usage: --model DIR --pairs PAIRS.json [--reps N]");
        std::process::exit(2);
    };
    let reps: usize = arg("--reps").and_then(|r| r.parse().ok()).unwrap_or(5);
    let kernel_name = arg("--kernel").unwrap_or_else(|| "auto".into());
    let Some(kernel) = BertKernel::parse(&kernel_name) else {
        eprintln!("--kernel: auto or candle");
        std::process::exit(2);
    };
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pairs).expect("pairs file")).expect("json");
    let query = spec["query"].as_str().expect("query").to_string();
    let passages: Vec<String> = spec["passages"]
        .as_array()
        .expect("passages")
        .iter()
        .map(|p| p.as_str().unwrap_or_default().to_string())
        .collect();
    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    let dir = CrossEncoderDir::open(std::path::Path::new(&model), None).expect("model dir");
    let t = Instant::now();
    let ce = CrossEncoder::load_with(&dir, "bench", Device::Cpu, kernel).expect("load");
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let tokens: usize = ce
        .encode(&query, &refs)
        .expect("encode")
        .iter()
        .map(|e| e.get_ids().len())
        .sum();
    ce.score(&query, &refs, &|| false).expect("warm-up");
    let passes0 = ce
        .counters()
        .forward_passes
        .load(std::sync::atomic::Ordering::Relaxed);
    let mut ms = Vec::new();
    let mut scores = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        scores = ce.score(&query, &refs, &|| false).expect("score");
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let passes = ce
        .counters()
        .forward_passes
        .load(std::sync::atomic::Ordering::Relaxed)
        - passes0;
    ms.sort_by(f64::total_cmp);
    println!(
        "{}",
        serde_json::json!({
            "system": "mitra",
            "kernel": kernel_name,
            "pairs": refs.len(),
            "tokens_per_pair": tokens as f64 / refs.len() as f64,
            "ms_median": ms[ms.len() / 2],
            "ms_best": ms[0],
            "forward_passes_per_call": passes as f64 / reps as f64,
            "load_ms": load_ms,
            "threads": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "scores_head": &scores[..scores.len().min(3)],
        })
    );
}
