//! Grounded prompts and their checks: numbered passages that fit the context budget, the
//! instruction to answer only from them, and what the answer's citations really point at.

use crate::engine::Engine;
use crate::LlmError;

/// The fixed reply for "the passages do not contain the answer".
pub const ABSTENTION: &str = "I don't know.";

/// One evidence passage as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// Chunk id (what citations resolve to).
    pub chunk_id: String,
    /// Document title.
    pub title: Option<String>,
    /// Heading path of the chunk.
    pub heading: Option<String>,
    /// Page the chunk starts on.
    pub page: Option<i64>,
    /// The text.
    pub text: String,
}

/// The instruction given as the system message.
pub const SYSTEM: &str = "You answer questions from physicists using only the numbered passages \
you are given. Every sentence of your answer must cite the passage it comes from with its number \
in square brackets, like [1] or [2][3]. Do not use anything you know that is not in the passages. \
If the passages do not contain the answer, reply exactly: I don't know.";

fn passage_block(i: usize, p: &Passage, engine: &Engine) -> String {
    let mut head = format!("[{}] (chunk {})", i + 1, p.chunk_id);
    if let Some(t) = p.title.as_deref().filter(|t| !t.is_empty()) {
        head.push_str(&format!(" {}", engine.neutralize(t)));
    }
    if let Some(h) = p.heading.as_deref().filter(|h| !h.is_empty()) {
        head.push_str(&format!(" — {}", engine.neutralize(h)));
    }
    if let Some(pg) = p.page {
        head.push_str(&format!(", p. {pg}"));
    }
    format!("{head}\n{}\n\n", engine.neutralize(p.text.trim()))
}

/// The user message for `question` over `passages`.
pub fn user_message(engine: &Engine, question: &str, passages: &[Passage]) -> String {
    let mut s = String::from("Passages:\n\n");
    for (i, p) in passages.iter().enumerate() {
        s.push_str(&passage_block(i, p, engine));
    }
    s.push_str(&format!(
        "Question: {}\n\nAnswer from the passages only, citing them by number. If they do not \
         contain the answer, reply exactly: {ABSTENTION}",
        engine.neutralize(question.trim())
    ));
    s
}

/// Token budget of a prompt.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Prompt plus answer must fit in this many tokens.
    pub context_tokens: usize,
    /// Tokens reserved for the answer.
    pub max_new_tokens: usize,
    /// Longest passage, in tokens (longer ones are cut).
    pub max_passage_tokens: usize,
}

/// Renders the grounded prompt with as many passages (in rank order) as fit the budget; returns
/// its token ids and the number of passages used.
pub fn build(
    engine: &Engine,
    question: &str,
    passages: &[Passage],
    budget: Budget,
) -> Result<(Vec<u32>, usize), LlmError> {
    let limit = budget
        .context_tokens
        .min(engine.info().context_length)
        .saturating_sub(budget.max_new_tokens);
    let mut cut: Vec<Passage> = Vec::with_capacity(passages.len());
    for p in passages {
        let mut p = p.clone();
        let enc = engine
            .tokenizer()
            .encode(p.text.as_str(), false)
            .map_err(|e| LlmError::Tokenizer(e.to_string()))?;
        if enc.len() > budget.max_passage_tokens {
            let end = enc.get_offsets()[budget.max_passage_tokens].0;
            p.text = format!("{} …", &p.text[..end]);
        }
        cut.push(p);
    }
    let render = |n: usize| -> Result<Vec<u32>, LlmError> {
        let user = user_message(engine, question, &cut[..n]);
        let text = engine.template().render_instruction(SYSTEM, &user)?;
        engine.encode_prompt(&text)
    };
    // Estimate from per-passage counts, then confirm on the real rendering.
    let base = render(0)?;
    if base.len() > limit {
        return Err(LlmError::PromptTooLong {
            tokens: base.len(),
            budget: limit,
        });
    }
    let mut n = 0;
    let mut used = base.len();
    for (i, p) in cut.iter().enumerate() {
        let t = engine.count_tokens(&passage_block(i, p, engine))?;
        if used + t > limit {
            break;
        }
        used += t;
        n += 1;
    }
    loop {
        let ids = render(n)?;
        if ids.len() <= limit || n == 0 {
            return Ok((ids, n));
        }
        n -= 1;
    }
}

/// What an answer's citations and wording say, against the passages it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The model replied with the abstention.
    pub abstained: bool,
    /// Chunk ids cited that were given, in first-cited order.
    pub citations: Vec<String>,
    /// Citations naming no given passage (dropped).
    pub invalid: usize,
}

fn norm(s: &str) -> String {
    s.to_lowercase()
        .replace(['\u{2019}', '\u{2018}', '`'], "'")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a reply is the abstention (or says the same at its start).
pub fn is_abstention(answer: &str) -> bool {
    let a = norm(answer);
    let a = a.trim_start_matches(|c: char| !c.is_alphanumeric());
    [
        "i don't know",
        "i do not know",
        "i dont know",
        "the passages do not contain",
        "the passages don't contain",
        "the provided passages do not contain",
        "there is no information",
    ]
    .iter()
    .any(|p| a.starts_with(p))
}

/// Parses `[n]`, `[n, m]`, `[n][m]`, `[passage n]` and `[chunk-id]` citations in `answer`
/// against `evidence` (the chunk ids given, in prompt order).
pub fn check(answer: &str, evidence: &[String]) -> Checked {
    let mut citations: Vec<String> = Vec::new();
    let mut invalid = 0;
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let inner = &after[..close];
        rest = &after[close + 1..];
        if inner.len() > 200 {
            continue;
        }
        for part in inner.split([',', ';']) {
            let mut t = part.trim();
            for prefix in ["passage", "Passage", "chunk", "Chunk", "source", "Source"] {
                t = t.strip_prefix(prefix).map(str::trim).unwrap_or(t);
            }
            if t.is_empty() {
                continue;
            }
            let hit = if let Ok(n) = t.parse::<usize>() {
                n.checked_sub(1).and_then(|i| evidence.get(i)).cloned()
            } else if let Some(id) = evidence.iter().find(|e| e.as_str() == t) {
                Some(id.clone())
            } else if t.chars().any(|c| c.is_ascii_digit()) && !t.contains(' ') {
                None
            } else {
                // Not a citation (e.g. "[GeV]" or "[citation needed]").
                continue;
            };
            match hit {
                Some(id) => {
                    if !citations.contains(&id) {
                        citations.push(id);
                    }
                }
                None => invalid += 1,
            }
        }
    }
    let abstained = is_abstention(answer);
    if abstained {
        citations.clear();
    }
    Checked {
        abstained,
        citations,
        invalid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev() -> Vec<String> {
        vec!["d1#1#0".into(), "d2#1#3".into(), "d3#1#1".into()]
    }

    #[test]
    fn citations_resolve_to_given_passages_and_others_are_dropped() {
        let c = check(
            "The cut is 26 GeV [1]. Muons are isolated [2, 3][1]. See also [7] and [x9#1#0].",
            &ev(),
        );
        assert_eq!(c.citations, vec!["d1#1#0", "d2#1#3", "d3#1#1"]);
        assert_eq!(c.invalid, 2);
        assert!(!c.abstained);
        let c = check("Energy is in [GeV] [passage 2] [d3#1#1]", &ev());
        assert_eq!(c.citations, vec!["d2#1#3", "d3#1#1"]);
        assert_eq!(c.invalid, 0);
        let c = check("No citation at all.", &ev());
        assert!(c.citations.is_empty() && c.invalid == 0);
        assert_eq!(check("[0] [4]", &ev()).invalid, 2);
    }

    #[test]
    fn abstentions_are_recognised() {
        for a in [
            "I don't know.",
            "I don’t know based on these passages",
            "  I do not know [1]",
            "The passages do not contain the answer.",
        ] {
            let c = check(a, &ev());
            assert!(c.abstained, "{a}");
            assert!(c.citations.is_empty());
        }
        assert!(!is_abstention("The trigger threshold is 24 GeV [1]."));
    }
}
