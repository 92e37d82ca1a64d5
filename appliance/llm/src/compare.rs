//! The difference step of `compare()`: one sentence that says how two analyses' answers to
//! the same question differ, written from the two answers alone and checked against them.
//!
//! The model sees only the two checked answers (without their citation markers), never the
//! passages: whatever the sentence states must already be in an answer. A sentence with a
//! number that neither answer writes is not returned.

use crate::engine::{Engine, Params};
use crate::error::LlmError;
use crate::grounding;

/// System message of the difference step.
const SYSTEM: &str = "You compare two answers to the same question about two physics \
analyses. You write one short sentence and use only what the two answers say.";

/// Tokens the difference may take.
const DIFFERENCE_TOKENS: usize = 80;

/// One analysis's side of a comparison: its id and its checked answer.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    /// The analysis id.
    pub analysis: &'a str,
    /// Its checked answer.
    pub answer: &'a str,
}

/// An answer without its citation markers (`[1]`, `[doc#3]`): the difference names
/// analyses, not excerpts.
pub fn without_citations(answer: &str) -> String {
    let mut out = String::with_capacity(answer.len());
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else {
            break;
        };
        out.push_str(rest[..open].trim_end());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The user message of the difference step.
pub fn prompt(question: &str, a: Side<'_>, b: Side<'_>) -> String {
    format!(
        "Question: {question}\n\nAnswer for analysis {}: {}\n\nAnswer for analysis {}: {}\n\n\
         In one sentence, state how the two answers differ, naming each analysis by its id. \
         Use only numbers, names and facts that the two answers state. If they give the same \
         answer, say that they agree.",
        a.analysis,
        without_citations(a.answer),
        b.analysis,
        without_citations(b.answer),
    )
}

/// The first sentence of the model's reply, if it has one and every number in it is written
/// in one of the two answers (the analysis ids aside).
pub fn check(reply: &str, a: Side<'_>, b: Side<'_>) -> Option<String> {
    let first = grounding::sentences(reply)
        .into_iter()
        .map(|s| s.claim.trim().to_string())
        .find(|s| !s.is_empty())?;
    let answers = grounding::normalize(&format!(
        "{} {}",
        without_citations(a.answer),
        without_citations(b.answer)
    ));
    // The analysis ids may carry digits ("hmumu-run2"): they are names, not numbers.
    let names_removed = first.replace(a.analysis, " ").replace(b.analysis, " ");
    let invented = grounding::numbers(&names_removed)
        .iter()
        .any(|n| !grounding::has_number(&answers, n));
    (!invented && !grounding::is_abstention(&first)).then_some(first)
}

/// Asks the model how the answers differ (greedy) and checks the reply; also returns the
/// reply as written.
pub fn difference(
    engine: &mut Engine,
    question: &str,
    a: Side<'_>,
    b: Side<'_>,
    cancelled: &dyn Fn() -> bool,
) -> Result<(Option<String>, String), LlmError> {
    engine.forget();
    let q = engine.neutralize(question.trim());
    let (qa, qb) = (engine.neutralize(a.answer), engine.neutralize(b.answer));
    let user = prompt(
        &q,
        Side {
            analysis: a.analysis,
            answer: &qa,
        },
        Side {
            analysis: b.analysis,
            answer: &qb,
        },
    );
    let ids = grounding::render(engine, SYSTEM, &user)?;
    let params = Params {
        max_new_tokens: DIFFERENCE_TOKENS,
        temperature: 0.0,
        ..Params::default()
    };
    let (text, _) = engine.generate(&ids, &params, cancelled, &mut |_| !cancelled())?;
    Ok((check(&text, a, b), text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Side = Side {
        analysis: "hmumu-run2",
        answer: "The dataset is 138 fb⁻¹ of 13 TeV collisions [1].",
    };
    const B: Side = Side {
        analysis: "hmumu-run3",
        answer: "They use 62.4 fb-1 [2], taken in 2022 and 2023 [3].",
    };

    #[test]
    fn citation_markers_are_removed() {
        assert_eq!(
            without_citations(B.answer),
            "They use 62.4 fb-1, taken in 2022 and 2023."
        );
        assert_eq!(without_citations("no markers"), "no markers");
        assert_eq!(without_citations("open [ only"), "open [ only");
    }

    #[test]
    fn a_difference_may_state_only_numbers_of_the_answers() {
        let ok = "hmumu-run2 uses 138 fb-1 and hmumu-run3 uses 62.4 fb-1. More text.";
        assert_eq!(
            check(ok, A, B).as_deref(),
            Some("hmumu-run2 uses 138 fb-1 and hmumu-run3 uses 62.4 fb-1.")
        );
        assert_eq!(
            check("hmumu-run2 uses 140 fb-1, hmumu-run3 62.4 fb-1.", A, B),
            None
        );
        assert_eq!(check("I don't know.", A, B), None);
        assert_eq!(check("   ", A, B), None);
    }

    #[test]
    fn the_prompt_names_both_analyses_without_markers() {
        let p = prompt("How much data?", A, B);
        assert!(p.contains("analysis hmumu-run2: The dataset is 138"));
        assert!(p.contains("analysis hmumu-run3: They use 62.4 fb-1, taken"));
        assert!(!p.contains("[1]"));
    }
}
