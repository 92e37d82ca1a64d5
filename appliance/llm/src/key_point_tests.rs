//! The model-free checks against right answers: each answerable question of the realistic
//! sets, answered with its key point alone, against the sections of its analysis's notes that
//! write it; every check that refuses such an answer is a right answer lost whatever the model
//! does (benches/ANSWERS.md). Also which unanswerable questions the checks before the model
//! refuse on all of their analysis's notes (a lower bound: fewer passages are shown).
//!
//! `cargo test -p mitra-llm --lib key_points_through_the_checks -- --ignored --nocapture`
//! (`MITRA_KP_SETS`: comma-separated set folders; default every `benches/answers/realistic*`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::grounding::Passage;
use crate::{cells, conditions, counts, focus, grounding, kinds, qualifiers, terms, topic};

/// The sets' folders: `MITRA_KP_SETS`, else every realistic set of the repository.
fn sets() -> Vec<PathBuf> {
    if let Ok(list) = std::env::var("MITRA_KP_SETS") {
        return list.split(',').map(PathBuf::from).collect();
    }
    let answers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/answers");
    let mut out: Vec<PathBuf> = std::fs::read_dir(answers)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("realistic"))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The notes of a set, each cut at its Markdown headings into sections that open with their
/// heading's words (as chunks do): (file name, section).
fn sections(set: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(set.join("notes")) else {
        return out;
    };
    for entry in dir.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().to_string();
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let mut current = String::new();
        for line in text.lines() {
            if line.starts_with('#') && !current.is_empty() {
                out.push((name.clone(), std::mem::take(&mut current)));
            }
            current.push_str(line.trim_start_matches('#').trim_start());
            current.push('\n');
        }
        out.push((name, current));
    }
    out
}

/// Calls `visit` with each question of the sets (its JSON line) and the sections of its
/// analysis's notes.
fn each_question(mut visit: impl FnMut(&serde_json::Value, &[&str])) {
    for set in sets() {
        let notes = sections(&set);
        let Ok(questions) = std::fs::read_to_string(set.join("questions.jsonl")) else {
            continue;
        };
        for line in questions.lines() {
            let Ok(q) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let analysis = q["analysis_id"].as_str().unwrap_or("\u{0}");
            let own: Vec<&str> = notes
                .iter()
                .filter(|(n, _)| n.starts_with(analysis))
                .map(|(_, s)| s.as_str())
                .collect();
            visit(&q, &own);
        }
    }
}

/// The checks that refuse `claim`, a right answer to `question`, against `cited`.
fn refusing(question: &str, claim: &str, cited: &[Passage]) -> Vec<&'static str> {
    let refs: Vec<&Passage> = cited.iter().collect();
    let texts: Vec<&str> = cited.iter().map(|p| p.text.as_str()).collect();
    let mut out = Vec::new();
    if !terms::unmentioned(question, texts.iter().copied()).is_empty() {
        out.push("unmentioned name");
    }
    if !conditions::unwritten(question, &texts).is_empty() {
        out.push("unwritten condition");
    }
    if focus::restates(question, claim) {
        out.push("restates");
    }
    if !grounding::unwritten_numbers(claim, question, &refs).is_empty() {
        out.push("unwritten number");
    }
    if qualifiers::other_qualifier(question, claim, &refs) {
        out.push("other qualifier");
    }
    if counts::miscounted(question, claim, &refs) {
        out.push("other noun");
    }
    if cells::other_cell(question, claim, &texts) {
        out.push("other cell");
    }
    if topic::off_topic(question, claim, &texts) {
        out.push("off topic");
    }
    if focus::asks_for_number(question) && !focus::gives_number(question, claim) {
        out.push("no number");
    }
    if kinds::other_kind(question, &[claim]) {
        out.push("other kind");
    }
    out
}

#[test]
#[ignore]
fn key_points_through_the_checks() {
    let (mut answered, mut caught) = (0, 0);
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    let mut lost = 0;
    each_question(|q, own| {
        let question = q["text"].as_str().unwrap_or_default();
        let id = q["_id"].as_str().unwrap_or_default();
        if q["answerable"].as_bool() != Some(true) {
            let names = terms::unmentioned(question, own.iter().copied());
            let cases = conditions::unwritten(question, own);
            if !names.is_empty() || !cases.is_empty() {
                caught += 1;
                println!("CAUGHT {id} {question:?} {names:?} {cases:?}");
            }
            return;
        }
        let Some(kp) = q["key_points"].get(0).and_then(|k| k.as_str()) else {
            return;
        };
        // The sections writing the key point: all its numbers, or its words.
        let numbers = grounding::claimed_numbers(kp, question);
        let cited: Vec<Passage> = own
            .iter()
            .filter(|s| {
                if numbers.is_empty() {
                    s.to_lowercase().contains(&kp.to_lowercase())
                } else {
                    numbers.iter().all(|n| grounding::has_number(s, n))
                }
            })
            .map(|s| Passage::of_text(s))
            .collect();
        if cited.is_empty() {
            return;
        }
        answered += 1;
        // Worded as the model words an answer: the question's own words, then the value.
        let asked = question.trim_end_matches(['?', '.', ' ']);
        let claim = format!("For {asked}, the answer is {kp}.");
        let checks = refusing(question, &claim, &cited);
        if !checks.is_empty() {
            lost += 1;
            for c in &checks {
                *refused.entry(c).or_default() += 1;
            }
            println!("REFUSED {id} {question:?} kp={kp:?} {checks:?}");
        }
    });
    println!(
        "key points {answered}, refused {lost} {refused:?}; unanswerable caught before the model {caught}"
    );
}

/// Each realistic question that the glossary changes, as the model steps read it beside all of
/// its analysis's notes ([`crate::glossary::read`], after [`crate::glossary::decimals`]): `cargo test -p mitra-llm --lib
/// glosses_of_the_questions -- --ignored --nocapture`.
#[test]
#[ignore]
fn glosses_of_the_questions() {
    let mut changed = 0;
    each_question(|q, own| {
        let question = q["text"].as_str().unwrap_or_default();
        let glossed = crate::glossary::read(&crate::glossary::decimals(question), own);
        if glossed != question {
            changed += 1;
            let id = q["_id"].as_str().unwrap_or_default();
            let answerable = q["answerable"].as_bool() == Some(true);
            println!("GLOSS {id} answerable={answerable} {glossed:?}");
        }
    });
    println!("questions glossed {changed}");
}
