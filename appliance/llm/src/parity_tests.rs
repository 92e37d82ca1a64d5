//! Parity with the references of `benches/llm/parity.py` (transformers' tokenizer from the same
//! GGUF, Python jinja2 rendering the same template) for every shipped model.

use std::path::PathBuf;

use serde::Deserialize;

use crate::gguf::Gguf;
use crate::template::{ChatTemplate, Message};

#[derive(Deserialize)]
struct Fixture {
    strings: Vec<String>,
    conversation: Vec<Turn>,
    models: std::collections::BTreeMap<String, ModelRef>,
}

#[derive(Deserialize)]
struct Turn {
    role: String,
    content: String,
}

#[derive(Deserialize)]
struct ModelRef {
    sha256: String,
    ids: Vec<Vec<u32>>,
    decoded: Vec<String>,
    prompt_ids: Vec<u32>,
    rendered: Rendered,
    /// The template has no system role: the system text went into the first user turn.
    #[serde(default)]
    system_folded: bool,
    /// Built by the test from this registry tokenizer's SentencePiece `tokenizer.model`, with
    /// `chat_template`, as a tokenizer-only GGUF.
    spm_model: Option<String>,
    chat_template: Option<String>,
    /// Read the file as if its `general.architecture` were this.
    architecture: Option<String>,
}

/// The pieces of a SentencePiece `ModelProto` (field 1: piece, score, type), read from the
/// protobuf wire format: (piece, score, type; type 1 normal, 2 unknown, 3 control, 6 byte).
fn spm_pieces(bytes: &[u8]) -> Vec<(String, f32, i32)> {
    fn varint(b: &[u8], i: &mut usize) -> u64 {
        let (mut v, mut shift) = (0u64, 0);
        while *i < b.len() {
            let x = b[*i];
            *i += 1;
            v |= u64::from(x & 0x7f) << shift;
            if x < 0x80 {
                break;
            }
            shift += 7;
        }
        v
    }
    /// The fields of one message: (number, wire type, varint value or payload).
    fn fields(b: &[u8]) -> Vec<(u64, u64, u64, &[u8])> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let key = varint(b, &mut i);
            let (field, wire) = (key >> 3, key & 7);
            match wire {
                0 => out.push((field, wire, varint(b, &mut i), &b[0..0])),
                1 => i += 8,
                2 => {
                    let n = varint(b, &mut i) as usize;
                    out.push((field, wire, 0, &b[i..i + n]));
                    i += n;
                }
                5 => {
                    out.push((field, wire, 0, &b[i..i + 4]));
                    i += 4;
                }
                _ => panic!("unexpected wire type {wire}"),
            }
        }
        out
    }
    fields(bytes)
        .into_iter()
        .filter(|f| f.0 == 1 && f.1 == 2)
        .map(|(_, _, _, msg)| {
            let (mut piece, mut score, mut kind) = (String::new(), 0f32, 1i32);
            for (n, _, v, p) in fields(msg) {
                match n {
                    1 => piece = String::from_utf8(p.to_vec()).unwrap(),
                    2 => score = f32::from_le_bytes(p.try_into().unwrap()),
                    3 => kind = v as i32,
                    _ => {}
                }
            }
            (piece, score, kind)
        })
        .collect()
}

/// The tokenizer-only GGUF `benches/llm/spm_tokenizer_gguf.py` writes, built from the same
/// tokenizer.model (as llama.cpp's converter lays a SentencePiece vocabulary out).
fn spm_gguf(model: &std::path::Path, arch: &str, template: &str, out: &std::path::Path) {
    use candle_core::quantized::gguf_file::{self, Value};
    let pieces = spm_pieces(&std::fs::read(model).unwrap());
    let id = |p: &str| pieces.iter().position(|x| x.0 == p).unwrap() as u32;
    let unk = pieces.iter().position(|x| x.2 == 2).unwrap() as u32;
    let meta: Vec<(&str, Value)> = vec![
        ("general.architecture", Value::String(arch.into())),
        ("tokenizer.ggml.model", Value::String("llama".into())),
        (
            "tokenizer.ggml.tokens",
            Value::Array(pieces.iter().map(|p| Value::String(p.0.clone())).collect()),
        ),
        (
            "tokenizer.ggml.scores",
            Value::Array(pieces.iter().map(|p| Value::F32(p.1)).collect()),
        ),
        (
            "tokenizer.ggml.token_type",
            Value::Array(pieces.iter().map(|p| Value::I32(p.2)).collect()),
        ),
        ("tokenizer.ggml.bos_token_id", Value::U32(id("<s>"))),
        ("tokenizer.ggml.eos_token_id", Value::U32(id("</s>"))),
        ("tokenizer.ggml.unknown_token_id", Value::U32(unk)),
        ("tokenizer.ggml.add_bos_token", Value::Bool(true)),
        ("tokenizer.ggml.add_eos_token", Value::Bool(false)),
        ("tokenizer.chat_template", Value::String(template.into())),
    ];
    let refs: Vec<(&str, &Value)> = meta.iter().map(|(k, v)| (*k, v)).collect();
    gguf_file::write(&mut std::fs::File::create(out).unwrap(), &refs, &[]).unwrap();
}

#[derive(Deserialize)]
struct Rendered {
    with_generation_prompt: String,
    without: String,
}

fn models_dir() -> PathBuf {
    std::env::var("MITRA_TEST_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/mitra-models")
        })
}

/// The model's GGUF in the models directory (`NAME/*.gguf`), or `None` (a failure in CI).
fn gguf_of(name: &str) -> Option<PathBuf> {
    let dir = models_dir().join(name);
    let found = std::fs::read_dir(&dir).ok().and_then(|rd| {
        rd.filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "gguf"))
    });
    if found.is_none() {
        assert!(
            std::env::var("MITRA_TEST_REQUIRE_MODELS").as_deref() != Ok("1"),
            "{name} is not fetched into {}",
            dir.display()
        );
        eprintln!("skipping {name}: not fetched");
    }
    found
}

/// `NAME/FILE` in the models directory, or `None` (a failure in CI).
fn fetched(name: &str, file: &str) -> Option<PathBuf> {
    let p = models_dir().join(name).join(file);
    if !p.is_file() {
        assert!(
            std::env::var("MITRA_TEST_REQUIRE_MODELS").as_deref() != Ok("1"),
            "{name} is not fetched into {}",
            models_dir().display()
        );
        eprintln!("skipping {name}: not fetched");
        return None;
    }
    Some(p)
}

#[test]
fn tokenizer_and_chat_template_match_the_references() {
    let fx: Fixture =
        serde_json::from_str(include_str!("../../../tests/fixtures/llm/parity.json")).unwrap();
    assert!(fx.models.len() >= 5);
    let tmp = tempfile::tempdir().unwrap();
    for (name, want) in &fx.models {
        let path = match (&want.spm_model, &want.chat_template) {
            (Some(spm), Some(template)) => {
                let Some(model) = fetched(spm, "tokenizer.model.v1") else {
                    continue;
                };
                let arch = want.architecture.as_deref().unwrap_or("llama");
                let out = tmp.path().join(format!("{arch}.gguf"));
                spm_gguf(&model, arch, template, &out);
                out
            }
            _ => match gguf_of(name) {
                Some(p) => p,
                None => continue,
            },
        };
        let g = Gguf::open(&path).unwrap();
        let (tok, _) = crate::tokenizer::load(&g).unwrap();
        for ((s, ids), text) in fx.strings.iter().zip(&want.ids).zip(&want.decoded) {
            let got = tok.encode(s.as_str(), false).unwrap();
            assert_eq!(got.get_ids(), ids.as_slice(), "{name}: {s:?}");
            assert_eq!(&tok.decode(got.get_ids(), false).unwrap(), text, "{name}");
        }
        let id = |k: &str| {
            g.u32(k)
                .and_then(|i| tok.id_to_token(i))
                .unwrap_or_default()
        };
        let t = ChatTemplate::new(
            &g.str("tokenizer.chat_template").unwrap(),
            &id("tokenizer.ggml.bos_token_id"),
            &id("tokenizer.ggml.eos_token_id"),
        )
        .unwrap();
        let mut conv: Vec<Message> = fx
            .conversation
            .iter()
            .map(|m| Message::new(&m.role, m.content.clone()))
            .collect();
        let mut first_exchange = 3;
        if want.system_folded {
            // As render_instruction does for templates without a system role.
            let system = conv.remove(0);
            conv[0].content = format!("{}\n\n{}", system.content, conv[0].content);
            first_exchange = 2;
            assert!(
                t.render(&[system, conv[0].clone()], true).is_err(),
                "{name}"
            );
        }
        let rendered = t.render(&conv, true).unwrap();
        assert_eq!(rendered, want.rendered.with_generation_prompt, "{name}");
        assert_eq!(
            t.render(&conv[..first_exchange], false).unwrap(),
            want.rendered.without,
            "{name}"
        );
        // The rendered prompt, special tokens written as text included, encodes the same.
        let ids = tok.encode(rendered.as_str(), false).unwrap();
        assert_eq!(ids.get_ids(), want.prompt_ids.as_slice(), "{name}");
        assert_eq!(want.sha256.len(), 64);
    }
}

/// The model at `path` on the CPU (`reference`: candle-transformers' model).
fn cpu_engine(path: &std::path::Path, reference: bool) -> crate::Engine {
    crate::Engine::load(
        path,
        &crate::LoadOptions {
            name: "t".into(),
            sha256: None,
            device: "cpu".into(),
            reference,
            chat_template: None,
        },
    )
    .unwrap()
}

/// Greedy tokens of `path` over a prompt of about `words` words, with Mitra's decoder or
/// candle-transformers' model.
fn greedy(path: &std::path::Path, reference: bool, words: usize, n: usize) -> (String, usize) {
    let mut e = cpu_engine(path, reference);
    let text: String = "Muons with pT above 26 GeV and |η| < 2.4 are selected; the Drell-Yan background dominates. "
        .repeat(words / 16 + 1);
    let prompt = e
        .template()
        .render(&[Message::new("user", format!("{text}\nSummarise."))], true)
        .unwrap();
    let ids = e.encode_prompt(&prompt).unwrap();
    let p = crate::Params {
        max_new_tokens: n,
        ignore_eos: true,
        ..Default::default()
    };
    let (out, s) = e.generate(&ids, &p, &|| false, &mut |_| true).unwrap();
    (out, s.prompt_tokens)
}

#[test]
fn mitra_decoder_generates_what_candle_transformers_generates() {
    for (name, words, n) in [
        ("smollm2-135m-instruct-q4_1", 150, 40),
        ("qwen2.5-coder-1.5b-instruct-q4_k_m", 60, 12),
    ] {
        let Some(path) = gguf_of(name) else { continue };
        let (ours, prompt) = greedy(&path, false, words, n);
        let (theirs, _) = greedy(&path, true, words, n);
        // The prompt spans full prefill chunks and the power-of-two remainder.
        assert!(prompt > crate::engine::PREFILL_CHUNK, "{prompt}");
        assert_eq!(ours, theirs, "{name}");
    }
}

#[test]
fn a_chat_template_given_replaces_the_files() {
    let name = std::env::var("MITRA_TEST_PLAN_MODEL")
        .unwrap_or_else(|_| "smollm2-135m-instruct-q4_1".into());
    let Some(path) = gguf_of(&name) else {
        return;
    };
    let opts = |chat_template: Option<String>| crate::LoadOptions {
        name: "t".into(),
        sha256: None,
        device: "cpu".into(),
        reference: false,
        chat_template,
    };
    let own = crate::Engine::load(&path, &opts(None)).unwrap();
    let custom = "{% for m in messages %}<<{{ m.role }}>> {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<<assistant>>{% endif %}";
    let e = crate::Engine::load(&path, &opts(Some(custom.into()))).unwrap();
    let msgs = [Message::new("user", "pT > 26 GeV?")];
    assert_eq!(
        e.template().render(&msgs, true).unwrap(),
        "<<user>> pT > 26 GeV?\n<<assistant>>"
    );
    assert!(own
        .template()
        .render(&msgs, true)
        .unwrap()
        .contains("<|im_start|>user"));
    // A template that does not parse is refused at load, not at the first question.
    let bad = crate::Engine::load(&path, &opts(Some("{% for %}".into()))).unwrap_err();
    assert!(matches!(bad, crate::LlmError::Template(_)), "{bad}");
}

#[test]
fn a_split_model_loads_as_its_parts_joined() {
    use candle_core::quantized::{gguf_file, QTensor};
    use candle_core::Device;
    let name = std::env::var("MITRA_TEST_PLAN_MODEL")
        .unwrap_or_else(|_| "smollm2-135m-instruct-q4_1".into());
    let Some(path) = gguf_of(&name) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut f = std::fs::File::open(&path).unwrap();
    let c = gguf_file::Content::read(&mut f).unwrap();
    let mut names: Vec<&String> = c.tensor_infos.keys().collect();
    names.sort();
    let tensors: Vec<(String, QTensor)> = names
        .iter()
        .map(|n| (n.to_string(), c.tensor(&mut f, n, &Device::Cpu).unwrap()))
        .collect();
    // llama.cpp's gguf-split layout: all metadata in part 1, split.* keys in every part.
    let half = tensors.len() / 2;
    let count = gguf_file::Value::U16(2);
    for (i, chunk) in [&tensors[..half], &tensors[half..]].into_iter().enumerate() {
        let no = gguf_file::Value::U16(i as u16);
        let n = gguf_file::Value::I32(chunk.len() as i32);
        let mut meta: Vec<(&str, &gguf_file::Value)> = if i == 0 {
            c.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect()
        } else {
            Vec::new()
        };
        meta.extend([
            ("split.no", &no),
            ("split.count", &count),
            ("split.tensors.count", &n),
        ]);
        let refs: Vec<(&str, &QTensor)> = chunk.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let out = dir.path().join(format!("smol-{:05}-of-00002.gguf", i + 1));
        gguf_file::write(&mut std::fs::File::create(out).unwrap(), &meta, &refs).unwrap();
    }
    let first = dir.path().join("smol-00001-of-00002.gguf");
    assert_eq!(greedy(&first, false, 40, 12), greedy(&path, false, 40, 12));
    std::fs::remove_file(dir.path().join("smol-00002-of-00002.gguf")).unwrap();
    let e = Gguf::open(&first).unwrap_err().to_string();
    assert!(e.contains("smol-00002-of-00002.gguf"), "{e}");
}

/// A passage of `text` with chunk id `id` and document title `title`.
fn passage(id: &str, title: Option<&str>, text: &str) -> crate::Passage {
    crate::Passage {
        chunk_id: id.into(),
        title: title.map(Into::into),
        heading: None,
        page: None,
        text: text.into(),
    }
}

/// The relevance prompt of `question` over `passage`, encoded.
fn judge_ids(e: &crate::Engine, question: &str, title: &str, text: &str) -> Vec<u32> {
    let p = passage("c", Some(title), text);
    crate::grounding::render(
        e,
        crate::grounding::JUDGE,
        &crate::grounding::relevance_message(e, question, &p),
    )
    .unwrap()
}

#[test]
fn a_verdict_after_a_reused_prefix_equals_a_fresh_one() {
    for name in [
        "smollm2-135m-instruct-q4_1",
        "qwen2.5-coder-1.5b-instruct-q4_k_m",
    ] {
        if name.starts_with("qwen") && std::env::var("MITRA_TEST_LARGE").is_err() {
            continue;
        }
        let Some(path) = gguf_of(name) else { continue };
        let mut e = cpu_engine(&path, false);
        let q = "What is the single-muon trigger threshold?";
        let on = judge_ids(&e, q, "Trigger", "Events were recorded with a single-muon trigger requiring pT > 24 GeV (27 GeV in 2017).");
        let off = judge_ids(&e, q, "Backgrounds", "The Drell-Yan background is estimated from simulation and normalised in a control region.");
        let mut verdicts = Vec::new();
        for ids in [&on, &off] {
            e.forget();
            let fresh = e.yes_no(ids, &|| false).unwrap();
            verdicts.push(fresh);
        }
        // Off after on: the shared prefix (system prompt and question) is reused.
        e.forget();
        e.yes_no(&on, &|| false).unwrap();
        let reused = e.yes_no(&off, &|| false).unwrap();
        assert!(e.last_fed() < off.len(), "{name}: nothing reused");
        eprintln!(
            "{name}: on {:.3} off {:.3} reused-off {reused:.3}",
            verdicts[0], verdicts[1]
        );
        assert!(
            (reused - verdicts[1]).abs() < 0.25,
            "{name}: {reused} vs {}",
            verdicts[1]
        );
        if name.starts_with("qwen") {
            // The judge discriminates: a passage giving the fact against one that does not.
            assert!(verdicts[0] > verdicts[1] + 2.0, "{name}: {verdicts:?}");
        }
    }
}

/// Development harness (not a check): the verdict, or the greedy reply, of the model
/// `MITRA_HARNESS_MODEL` for each `{"system","user","gen"}` line of `MITRA_HARNESS_CASES`,
/// printed as JSON lines; for trying judging prompts without rebuilding.
#[test]
#[ignore]
fn prompt_harness() {
    let (Ok(model), Ok(cases)) = (
        std::env::var("MITRA_HARNESS_MODEL"),
        std::env::var("MITRA_HARNESS_CASES"),
    ) else {
        return;
    };
    let path = gguf_of(&model).unwrap();
    let mut e = cpu_engine(&path, false);
    for line in std::fs::read_to_string(cases).unwrap().lines() {
        let c: serde_json::Value = serde_json::from_str(line).unwrap();
        let ids = crate::grounding::render(
            &e,
            c["system"].as_str().unwrap(),
            c["user"].as_str().unwrap(),
        )
        .unwrap();
        let gen = c["gen"].as_u64().unwrap_or(0) as usize;
        let t = std::time::Instant::now();
        let mut out = if gen > 0 {
            let p = crate::Params {
                max_new_tokens: gen,
                ..Default::default()
            };
            let (text, _) = e.generate(&ids, &p, &|| false, &mut |_| true).unwrap();
            serde_json::json!({"id": c["id"], "text": text})
        } else {
            serde_json::json!({"id": c["id"], "score": e.yes_no(&ids, &|| false).unwrap()})
        };
        out["ms"] = serde_json::json!(t.elapsed().as_secs_f64() * 1000.0);
        out["tokens"] = serde_json::json!(ids.len());
        println!("HARNESS {out}");
    }
}

/// SmolLM2 writes a plan that passes the checks (or falls back to the question): never more
/// than five sub-queries, the question first, the same plan twice.
#[test]
fn a_small_model_plans_within_the_rules() {
    let name = std::env::var("MITRA_TEST_PLAN_MODEL")
        .unwrap_or_else(|_| "smollm2-135m-instruct-q4_1".into());
    let Some(path) = gguf_of(&name) else {
        return;
    };
    let mut engine = cpu_engine(&path, false);
    let rules = crate::plan::PlanRules::default();
    let q = "How is the beam-induced background reduced in the tracker of a muon collider?";
    let (plan, raw) = crate::plan::generate(&mut engine, q, &rules, &|| false).unwrap();
    eprintln!("{name}'s plan: {raw}\n-> {plan:?}");
    assert!(!raw.is_empty());
    assert_eq!(plan.sub_queries[0], q);
    assert!(
        plan.sub_queries.len() <= crate::plan::MAX_SUB_QUERIES,
        "{plan:?}"
    );
    assert!(plan.tags.iter().all(|t| rules.vocabulary.contains(t)));
    let (again, raw_again) = crate::plan::generate(&mut engine, q, &rules, &|| false).unwrap();
    assert_eq!((plan, raw), (again, raw_again));
    // Stopped at once: a clear error, not a plan.
    assert!(crate::plan::generate(&mut engine, q, &rules, &|| true).is_err());
}

/// The answer pipeline on `given` with `checks`: a 2048-token context, passages cut at 320
/// tokens, greedy decoding of at most `max_new_tokens`, never cancelled.
fn answer_with(
    e: &mut crate::Engine,
    q: &str,
    given: &[crate::Passage],
    checks: crate::Checks,
    max_new_tokens: usize,
) -> crate::answer::Outcome {
    let budget = crate::Budget {
        context_tokens: 2048,
        max_new_tokens,
        max_passage_tokens: 320,
    };
    let params = crate::Params {
        max_new_tokens,
        ..Default::default()
    };
    crate::answer::answer(
        e,
        q,
        given,
        budget,
        &params,
        checks,
        None,
        crate::answer::Hooks {
            cancelled: &|| false,
            on_text: &mut |_| true,
        },
    )
    .unwrap()
}

/// The relevance step's second look: the passages after the first look are judged only when
/// none of it is relevant, and can then be shown; otherwise they are neither judged nor used.
#[test]
fn the_second_look_judges_the_next_passages_only_when_the_first_finds_nothing() {
    let Some(path) = gguf_of("smollm2-135m-instruct-q4_1") else {
        return;
    };
    let mut e = cpu_engine(&path, false);
    let untitled = |text: &str| passage(&text[..12], None, text);
    let q = "What is the single-muon trigger threshold?";
    let a = untitled(
        "Events were recorded with a single-muon trigger requiring pT > 24 GeV (27 GeV in 2017).",
    );
    let b = untitled(
        "The Drell-Yan background is estimated from simulation and normalised in a control region.",
    );
    let scores =
        crate::answer::rerank(&mut e, q, &[a.clone(), b.clone()], 320, 0, &|| false).unwrap();
    assert_ne!(scores[0], scores[1]);
    // The first look gets the passage the judge likes less; the bar lies between the two.
    let (low, high) = if scores[0] < scores[1] {
        (a, b)
    } else {
        (b, a)
    };
    let checks = crate::Checks {
        relevance: true,
        min_relevance: (scores[0] + scores[1]) / 2.0,
        min_shown_relevance: None,
        relevance_paragraphs: 0,
        answer_paragraphs: 0,
        first_look: Some(1),
        support: false,
        min_support: 0.0,
        min_answer_support: None,
    };
    let mut run = |given: &[crate::Passage]| answer_with(&mut e, q, given, checks, 8);
    // Nothing relevant at first: the second passage is judged, relevant, and shown.
    let o = run(&[low.clone(), high.clone()]);
    assert_eq!((o.used, o.relevance.len()), (2, 2), "{o:?}");
    assert_eq!(
        (o.relevant().to_vec(), o.shown.clone()),
        (vec![1], vec![1]),
        "{o:?}"
    );
    assert!(o.stats.is_some(), "{o:?}");
    // The same first look with nothing after it abstains.
    let o = run(std::slice::from_ref(&low));
    assert_eq!(o.refusal, Some(crate::Refusal::NotRelevant), "{o:?}");
    // A relevant passage at first: the one after it is neither judged nor used.
    let o = run(&[high, low]);
    assert_eq!(
        (o.used, o.relevance.len(), o.shown.clone()),
        (1, 1, vec![0]),
        "{o:?}"
    );
}

/// A question naming an identifier no given passage writes abstains before any judgment
/// (`Refusal::Unmentioned`); once a passage writes it, the passages are judged as usual.
#[test]
fn a_question_about_a_name_no_passage_writes_is_not_judged() {
    let Some(path) = gguf_of("smollm2-135m-instruct-q4_1") else {
        return;
    };
    let mut e = cpu_engine(&path, false);
    let q = "Which DeepTau working point vetoes hadronic taus?";
    let jets = passage(
        "jets",
        None,
        "Jets are b-tagged with DeepJet at the medium working point; events with a hadronic \
         tau are vetoed.",
    );
    let checks = crate::Checks {
        relevance: true,
        min_relevance: 0.0,
        min_shown_relevance: None,
        relevance_paragraphs: 0,
        answer_paragraphs: 0,
        first_look: None,
        support: false,
        min_support: 0.0,
        min_answer_support: None,
    };
    let o = answer_with(&mut e, q, std::slice::from_ref(&jets), checks, 8);
    assert_eq!(o.refusal, Some(crate::Refusal::Unmentioned), "{o:?}");
    assert_eq!(o.unmentioned, ["DeepTau"], "{o:?}");
    assert!(o.relevance.is_empty() && o.stats.is_none(), "{o:?}");
    let taus = passage(
        "taus",
        None,
        "Hadronic taus are vetoed with the DeepTau medium working point against jets.",
    );
    let o = answer_with(&mut e, q, &[jets, taus], checks, 8);
    assert!(o.unmentioned.is_empty(), "{o:?}");
    assert_eq!(o.relevance.len(), 2, "{o:?}");
}

/// A question, the paragraph of a note that answers it, and the note: that paragraph between
/// two others, each of 30 words or more (shorter blocks are read with the next one).
fn three_paragraphs() -> (&'static str, &'static str, String) {
    let trigger = "Events were recorded with a single-muon trigger requiring pT > 24 GeV, \
                   whose efficiency is measured with tag and probe on Z boson decays in data \
                   and in simulation, and corrected with scale factors binned in pT and eta.";
    let note = format!(
        "The Drell-Yan background is estimated from simulation, normalised to the data in a \
         control region around the Z peak, with the shape of the dimuon mass taken from the \
         simulated events after all corrections are applied.\n\n{trigger}\n\nJets are \
         clustered with the anti-kT algorithm with a distance parameter of 0.4 and must have \
         pT > 25 GeV, pass the tight identification and lie within the tracker acceptance."
    );
    ("What is the single-muon trigger threshold?", trigger, note)
}

/// With `relevance_paragraphs`, the judge reads the paragraphs of a passage that share most
/// words with the question, not the whole passage: the verdict on a three-paragraph passage
/// with a window of one is the verdict on that paragraph alone.
#[test]
fn the_judge_reads_the_window_of_paragraphs_sharing_the_questions_words() {
    let Some(path) = gguf_of("smollm2-135m-instruct-q4_1") else {
        return;
    };
    let mut e = cpu_engine(&path, false);
    let (q, trigger, note) = three_paragraphs();
    let mut judge = |text: &str, paragraphs: usize| {
        e.forget();
        crate::answer::rerank(
            &mut e,
            q,
            &[passage("c", Some("Selection"), text)],
            320,
            paragraphs,
            &|| false,
        )
        .unwrap()[0]
    };
    let window = judge(&note, 1);
    assert_eq!(window, judge(trigger, 0));
    assert_ne!(window, judge(&note, 0));
    // A window as large as the passage is the passage.
    assert_eq!(judge(&note, 3), judge(&note, 0));
}

/// With `answer_paragraphs`, the answer step is shown the window of each passage: the prompt
/// for a three-paragraph passage with a window of one is the prompt for that paragraph alone.
#[test]
fn the_answer_step_reads_the_window_when_asked() {
    let Some(path) = gguf_of("smollm2-135m-instruct-q4_1") else {
        return;
    };
    let mut e = cpu_engine(&path, false);
    let (q, trigger, note) = three_paragraphs();
    let mut run = |text: &str, answer_paragraphs: usize| {
        let checks = crate::Checks {
            relevance: false,
            min_relevance: 0.0,
            min_shown_relevance: None,
            relevance_paragraphs: 0,
            answer_paragraphs,
            first_look: None,
            support: false,
            min_support: 0.0,
            min_answer_support: None,
        };
        answer_with(
            &mut e,
            q,
            &[passage("c", Some("Selection"), text)],
            checks,
            4,
        )
        .prompt_sha256
    };
    let window = run(&note, 1);
    assert_eq!(window, run(trigger, 0));
    assert_ne!(window, run(&note, 0));
    assert_eq!(run(&note, 3), run(&note, 0));
}
