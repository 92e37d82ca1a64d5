//! `cargo run -p mitra-llm --example generate -- MODEL.gguf "question"`: one chat turn, streamed.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::PathBuf::from(&args[1]);
    let opts = mitra_llm::LoadOptions {
        name: "cli".into(),
        sha256: None,
        device: "cpu".into(),
        reference: false,
        chat_template: None,
    };
    let mut e = mitra_llm::Engine::load(&path, &opts).expect("load");
    let text = e
        .template()
        .render(&[mitra_llm::Message::new("user", args[2].clone())], true)
        .expect("render");
    let ids = e.encode_prompt(&text).expect("encode");
    let p = mitra_llm::Params {
        max_new_tokens: 64,
        ..Default::default()
    };
    let (_, s) = e
        .generate(&ids, &p, &|| false, &mut |t| {
            print!("{t}");
            std::io::stdout().flush().ok();
            true
        })
        .expect("generate");
    println!("\n{s:?}");
}
