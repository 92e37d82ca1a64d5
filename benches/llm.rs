//! Generation speed of Mitra's runtime (mitra-llm on candle) on one GGUF: prefill and decode
//! tokens/s, time to first token and peak RSS, for a prompt of a fixed number of tokens.
//! `benches/run_llm.sh` runs it beside llama.cpp on the same file and prompt tokens.
//!
//! `cargo bench --profile dev --bench llm -- --model FILE.gguf [--prompt-tokens 1500] [--gen 64] [--ids-out FILE] [--reference]`
//! (`--reference`: candle-transformers' model instead of Mitra's decoder)

use std::time::Instant;

fn arg(name: &str) -> Option<String> {
    let a: Vec<String> = std::env::args().collect();
    a.iter()
        .position(|x| x == name)
        .and_then(|i| a.get(i + 1).cloned())
}

fn peak_rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
            })
        })
        .unwrap_or(0)
        / 1024
}

fn main() {
    // As the CLI and the server run (see `disable_transparent_huge_pages`).
    mitra::disable_transparent_huge_pages();
    let model = std::path::PathBuf::from(arg("--model").expect("--model FILE.gguf"));
    let n: usize = arg("--prompt-tokens").map_or(1500, |v| v.parse().expect("a number"));
    let gen: usize = arg("--gen").map_or(64, |v| v.parse().expect("a number"));
    let t0 = Instant::now();
    let mut e = mitra_llm::Engine::load(
        &model,
        &mitra_llm::LoadOptions {
            name: "bench".into(),
            sha256: None,
            device: arg("--device").unwrap_or_else(|| "cpu".into()),
            reference: std::env::args().any(|a| a == "--reference"),
            chat_template: None,
        },
    )
    .expect("load");
    let load_s = t0.elapsed().as_secs_f64();
    // A grounded prompt over the demo notes, repeated until long enough, cut to n tokens.
    let mut notes = String::new();
    for (name, text) in mitra::demo::NOTES {
        notes.push_str(&format!("[{name}]\n{text}\n\n"));
    }
    let mut user = String::new();
    while e.count_tokens(&user).unwrap() < n + 64 {
        user.push_str(&notes);
    }
    let rendered = e
        .template()
        .render_instruction(mitra_llm::grounding::SYSTEM, &user)
        .unwrap();
    let mut ids = e.encode_prompt(&rendered).unwrap();
    ids.truncate(n);
    if let Some(out) = arg("--ids-out") {
        std::fs::write(out, serde_json::to_string(&ids).unwrap()).unwrap();
    }
    let p = mitra_llm::Params {
        max_new_tokens: gen,
        ignore_eos: true,
        repeat_penalty: 1.0,
        ..Default::default()
    };
    let (_, s) = e.generate(&ids, &p, &|| false, &mut |_| true).unwrap();
    let decode = (s.completion_tokens.saturating_sub(1)) as f64 / (s.ms_decode as f64 / 1000.0);
    println!(
        "{}",
        serde_json::json!({
            "engine": "mitra-llm (candle 0.11, dev profile, candle opt-level 3)",
            "model": e.info().label(),
            "prompt_tokens": s.prompt_tokens,
            "prefill_tok_s": s.prompt_tokens as f64 / (s.ms_prefill as f64 / 1000.0),
            "ttft_ms": s.ms_prefill,
            "decode_tokens": s.completion_tokens,
            "decode_tok_s": decode,
            "load_s": (load_s * 100.0).round() / 100.0,
            "peak_rss_mib": peak_rss_mib(),
        })
    );
}
