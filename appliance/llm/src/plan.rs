//! Question plans for `ask()`: the prompt that asks the model for domain tags, a class and at
//! most five sub-queries as JSON, and the checks its output must pass before any retrieval.
//!
//! The model's text is untrusted: it is parsed as JSON after one syntactic repair (code fences,
//! single quotes, trailing commas, missing closing brackets), or the plan falls back to the
//! question alone. Tags outside the vocabulary are dropped; a sub-query that brings a number,
//! a quoted title or an analysis id the question does not contain is dropped (the model may
//! widen the search, not invent what it searches for); the first sub-query is always the
//! question itself; a precise question is not expanded unless configured.

use serde::Deserialize;

use crate::engine::{Engine, Params};
use crate::error::LlmError;

/// Most sub-queries of a plan, the question included.
pub const MAX_SUB_QUERIES: usize = 5;

/// The default domain vocabulary (high-energy physics).
pub const DEFAULT_TAGS: [&str; 12] = [
    "accelerator",
    "beam-induced background",
    "detector",
    "tracking",
    "calorimetry",
    "muon system",
    "trigger",
    "simulation",
    "reconstruction",
    "physics analysis",
    "statistics",
    "theory",
];

/// What kind of question it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionClass {
    /// One fact (a number, a name): answered from one retrieval.
    Precise,
    /// A synthesis over several aspects.
    Broad,
    /// A why or how that needs several facts put together.
    Reasoning,
}

impl QuestionClass {
    /// The class's name in SQL results.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Precise => "precise",
            Self::Broad => "broad",
            Self::Reasoning => "reasoning",
        }
    }
}

/// A checked plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Domain tags from the vocabulary.
    pub tags: Vec<String>,
    /// The question's class.
    pub class: QuestionClass,
    /// 1 to [`MAX_SUB_QUERIES`] sub-queries, the question first.
    pub sub_queries: Vec<String>,
    /// Why the model's output was not used as it was (repaired, fallen back, what was dropped).
    pub notes: Vec<String>,
}

/// The rules a plan is checked against.
#[derive(Debug, Clone)]
pub struct PlanRules {
    /// Tags the model may choose from.
    pub vocabulary: Vec<String>,
    /// Analysis ids of the store: a sub-query may name only those the question names.
    pub analysis_ids: Vec<String>,
    /// Most sub-queries (at most [`MAX_SUB_QUERIES`]).
    pub max_sub_queries: usize,
    /// Whether precise questions get sub-queries too.
    pub expand_precise: bool,
}

impl Default for PlanRules {
    fn default() -> Self {
        Self {
            vocabulary: DEFAULT_TAGS.iter().map(|s| s.to_string()).collect(),
            analysis_ids: Vec::new(),
            max_sub_queries: MAX_SUB_QUERIES,
            expand_precise: false,
        }
    }
}

/// The instruction for the model (a user message; the caller renders the chat template).
pub fn prompt(question: &str, rules: &PlanRules) -> String {
    let extra = rules.max_sub_queries.clamp(1, MAX_SUB_QUERIES) - 1;
    format!(
        "Plan a search of internal physics notes for the question below.\n\
         Answer with one JSON object and nothing else:\n\
         {{\"tags\": [...], \"class\": \"precise\" | \"broad\" | \"reasoning\", \"sub_queries\": [...]}}\n\
         - tags: the question's domains, chosen only from: {}.\n\
         - class: precise (asks for one fact: a number, a name, a setting), broad (asks for an \
         overview of several aspects), reasoning (asks why or how, needing several facts).\n\
         - sub_queries: up to {extra} short searches for the different facts the answer needs, \
         each about one aspect. Use only words and names from the question or general terms of \
         the field: never a number, a title or an identifier that the question does not give.\n\n\
         Question: {question}",
        rules.vocabulary.join(", ")
    )
}

/// The system instruction of the planning prompt.
const SYSTEM: &str = "You plan literature searches for physicists. You answer with JSON only.";

/// Tokens the model may write for a plan.
const PLAN_TOKENS: usize = 160;

/// The start of the answer, written for the model: small models then continue the JSON
/// instead of answering the question in prose.
const PRIMER: &str = "{\"tags\": [";

/// Asks the model for a plan of `question` (greedy, so equal inputs give equal plans) and
/// checks it; also returns the model's text as written.
pub fn generate(
    engine: &mut Engine,
    question: &str,
    rules: &PlanRules,
    cancelled: &dyn Fn() -> bool,
) -> Result<(Plan, String), LlmError> {
    engine.forget();
    let rendered = engine
        .template()
        .render_instruction(SYSTEM, &prompt(question, rules))?;
    let ids = engine.encode_prompt(&format!("{rendered}{PRIMER}"))?;
    let params = Params {
        max_new_tokens: PLAN_TOKENS,
        temperature: 0.0,
        ..Params::default()
    };
    let (text, _) = engine.generate(&ids, &params, cancelled, &mut |_| !cancelled())?;
    let text = format!("{PRIMER}{text}");
    Ok((parse(&text, question, rules), text))
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    tags: Vec<serde_json::Value>,
    #[serde(default)]
    class: Option<String>,
    #[serde(default, alias = "subqueries", alias = "queries")]
    sub_queries: Vec<serde_json::Value>,
}

/// The first `{ … }` of `text`, with code fences, single quotes, trailing commas and missing
/// closing brackets repaired.
fn repair(text: &str) -> Option<String> {
    let start = text.find('{')?;
    let body = text[start..].replace("```", "");
    let mut out = String::with_capacity(body.len());
    let mut stack = Vec::new();
    let mut in_string: Option<char> = None;
    let mut escaped = false;
    for c in body.chars() {
        if let Some(q) = in_string {
            if escaped {
                escaped = false;
                out.push(c);
                continue;
            }
            match c {
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                c if c == q => {
                    in_string = None;
                    out.push('"');
                }
                '"' => out.push_str("\\\""),
                '\n' => out.push(' '),
                _ => out.push(c),
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                in_string = Some(c);
                out.push('"');
            }
            '{' => {
                stack.push('}');
                out.push(c);
            }
            '[' => {
                stack.push(']');
                out.push(c);
            }
            '}' | ']' => {
                // A trailing comma before a closing bracket.
                let trimmed = out.trim_end().trim_end_matches(',').len();
                out.truncate(trimmed);
                if stack.pop() != Some(c) {
                    return None;
                }
                out.push(c);
                if stack.is_empty() {
                    return Some(out);
                }
            }
            _ => out.push(c),
        }
    }
    if in_string.is_some() {
        out.push('"');
    }
    let trimmed = out.trim_end().trim_end_matches(',').len();
    out.truncate(trimmed);
    while let Some(c) = stack.pop() {
        out.push(c);
    }
    Some(out)
}

fn parse_raw(text: &str) -> Result<(Raw, bool), String> {
    let strict = text
        .find('{')
        .and_then(|s| text.rfind('}').map(|e| &text[s..=e]))
        .and_then(|j| serde_json::from_str::<Raw>(j).ok());
    if let Some(r) = strict {
        return Ok((r, false));
    }
    let repaired = repair(text).ok_or("no JSON object in the model's output")?;
    serde_json::from_str::<Raw>(&repaired)
        .map(|r| (r, true))
        .map_err(|e| format!("the model's output is not valid JSON even repaired: {e}"))
}

/// Quoted spans of `text` ("…", “…”, '…' of at least two words).
fn quoted(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('"', '"'), ('“', '”'), ('\'', '\''), ('«', '»')] {
        let mut rest = text;
        while let Some(s) = rest.find(open) {
            let after = &rest[s + open.len_utf8()..];
            let Some(e) = after.find(close) else { break };
            let span = after[..e].trim();
            if span.split_whitespace().count() >= 2 || (open != '\'' && !span.is_empty()) {
                out.push(span.to_lowercase());
            }
            rest = &after[e + close.len_utf8()..];
        }
    }
    out
}

/// Why `sub` may not be searched for `question`, if it may not.
fn invented(sub: &str, question: &str, rules: &PlanRules) -> Option<String> {
    let q = question.to_lowercase();
    let s = sub.to_lowercase();
    let q_numbers = crate::grounding::numbers(&q);
    if let Some(n) = crate::grounding::numbers(&s)
        .into_iter()
        .find(|n| !q_numbers.contains(n))
    {
        return Some(format!("a number the question does not give ({n})"));
    }
    if let Some(t) = quoted(sub).into_iter().find(|t| !q.contains(t.as_str())) {
        return Some(format!("a title the question does not give (\"{t}\")"));
    }
    if let Some(id) = rules
        .analysis_ids
        .iter()
        .map(|a| a.to_lowercase())
        .find(|a| s.contains(a.as_str()) && !q.contains(a.as_str()))
    {
        return Some(format!("an analysis the question does not name ({id})"));
    }
    None
}

fn text_of(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.trim().to_string()),
        // {"query": "..."} items, as small models sometimes write them.
        serde_json::Value::Object(o) => o
            .values()
            .find_map(|x| x.as_str().map(|s| s.trim().to_string())),
        _ => None,
    }
    .filter(|s| !s.is_empty())
}

/// The question alone (the plan when the model's output cannot be used).
pub fn fallback(question: &str, why: String) -> Plan {
    Plan {
        tags: Vec::new(),
        class: QuestionClass::Precise,
        sub_queries: vec![question.to_string()],
        notes: vec![why],
    }
}

/// The checked plan of the model's output `text` for `question`.
pub fn parse(text: &str, question: &str, rules: &PlanRules) -> Plan {
    let (raw, repaired) = match parse_raw(text) {
        Ok(r) => r,
        Err(why) => return fallback(question, why),
    };
    let mut notes = Vec::new();
    if repaired {
        notes.push("the model's JSON was repaired".to_string());
    }
    let mut tags: Vec<String> = Vec::new();
    for t in raw.tags.iter().filter_map(text_of) {
        match rules.vocabulary.iter().find(|v| v.eq_ignore_ascii_case(&t)) {
            Some(v) if !tags.contains(v) => tags.push(v.clone()),
            Some(_) => {}
            None => notes.push(format!("tag \"{t}\" is not in the vocabulary")),
        }
    }
    let class = match raw.class.as_deref().map(str::to_lowercase).as_deref() {
        Some("precise") => QuestionClass::Precise,
        Some("broad") => QuestionClass::Broad,
        Some("reasoning") => QuestionClass::Reasoning,
        other => {
            notes.push(format!(
                "class {other:?} is not one of precise, broad, reasoning"
            ));
            QuestionClass::Precise
        }
    };
    let max = rules.max_sub_queries.clamp(1, MAX_SUB_QUERIES);
    let mut sub_queries = vec![question.to_string()];
    if class != QuestionClass::Precise || rules.expand_precise {
        for s in raw.sub_queries.iter().filter_map(text_of) {
            if sub_queries.len() >= max {
                notes.push(format!("sub-queries beyond {max} dropped"));
                break;
            }
            if s.chars().count() > 300 {
                notes.push("a sub-query longer than 300 characters dropped".into());
                continue;
            }
            if sub_queries.iter().any(|x| x.eq_ignore_ascii_case(&s)) {
                continue;
            }
            match invented(&s, question, rules) {
                Some(why) => notes.push(format!("sub-query \"{s}\" dropped: {why}")),
                None => sub_queries.push(s),
            }
        }
    }
    Plan {
        tags,
        class,
        sub_queries,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> PlanRules {
        PlanRules {
            analysis_ids: vec!["hmumu-run3".into(), "tth-mumu".into()],
            ..Default::default()
        }
    }

    const Q: &str = "How is the beam-induced background reduced in the tracker?";

    #[test]
    fn a_good_plan_is_taken_as_it_is() {
        let out = r#"{"tags": ["Tracking", "beam-induced background", "cooking"], "class": "reasoning",
            "sub_queries": ["nozzle design", "timing cuts in the tracker", "shielding material"]}"#;
        let p = parse(out, Q, &rules());
        assert_eq!(p.tags, vec!["tracking", "beam-induced background"]);
        assert_eq!(p.class, QuestionClass::Reasoning);
        assert_eq!(
            p.sub_queries,
            vec![
                Q,
                "nozzle design",
                "timing cuts in the tracker",
                "shielding material"
            ]
        );
        assert!(
            p.notes.iter().any(|n| n.contains("cooking")),
            "{:?}",
            p.notes
        );
    }

    #[test]
    fn invented_numbers_titles_and_analyses_are_dropped() {
        let out = r#"{"tags": [], "class": "broad", "sub_queries": [
            "timing window of 0.5 ns", "results of \"The Muon Collider Detector Note\"",
            "background in hmumu-run3", "tungsten nozzle", "timing cuts 3 sigma"]}"#;
        let p = parse(out, Q, &rules());
        assert_eq!(p.sub_queries, vec![Q, "tungsten nozzle"], "{:?}", p.notes);
        assert_eq!(p.notes.len(), 4, "{:?}", p.notes);
        // What the question gives may be used.
        let q = "What did hmumu-run3 find at 13.6 TeV for \"the dimuon channel\"?";
        let out = r#"{"class": "broad", "sub_queries": ["hmumu-run3 dimuon at 13.6 TeV", "the dimuon channel background"]}"#;
        let p = parse(out, q, &rules());
        assert_eq!(p.sub_queries.len(), 3, "{:?}", p.notes);
    }

    #[test]
    fn never_more_than_five_and_precise_questions_stay_whole() {
        let many: Vec<String> = (0..12)
            .map(|i| format!("\"aspect {}\"", "x".repeat(i + 1)))
            .collect();
        let out = format!(
            "{{\"class\": \"broad\", \"sub_queries\": [{}]}}",
            many.join(",")
        );
        let p = parse(&out, Q, &rules());
        assert_eq!(p.sub_queries.len(), MAX_SUB_QUERIES);
        let p = parse(
            &out,
            Q,
            &PlanRules {
                max_sub_queries: 9,
                ..rules()
            },
        );
        assert_eq!(p.sub_queries.len(), MAX_SUB_QUERIES);
        let precise = r#"{"class": "precise", "sub_queries": ["nozzle design"]}"#;
        assert_eq!(parse(precise, Q, &rules()).sub_queries, vec![Q]);
        let expand = PlanRules {
            expand_precise: true,
            ..rules()
        };
        assert_eq!(parse(precise, Q, &expand).sub_queries.len(), 2);
        // Duplicates of the question or of each other are not searched twice.
        let dup = format!(r#"{{"class": "broad", "sub_queries": ["{Q}", "nozzle", "Nozzle"]}}"#);
        assert_eq!(parse(&dup, Q, &rules()).sub_queries, vec![Q, "nozzle"]);
    }

    #[test]
    fn malformed_json_is_repaired_or_falls_back() {
        // Code fences, single quotes, a trailing comma, a missing closing bracket.
        let out = "Sure!\n```json\n{'tags': ['trigger',], 'class': 'broad', 'sub_queries': ['nozzle design', 'timing cuts',\n```";
        let p = parse(out, Q, &rules());
        assert_eq!(p.sub_queries, vec![Q, "nozzle design", "timing cuts"]);
        assert_eq!(p.tags, vec!["trigger"]);
        assert!(p.notes[0].contains("repaired"));
        // Objects as items, and another key name.
        let out = r#"{"class": "broad", "subqueries": [{"query": "nozzle design"}]}"#;
        assert_eq!(
            parse(out, Q, &rules()).sub_queries,
            vec![Q, "nozzle design"]
        );
        for bad in [
            "",
            "I cannot help with that.",
            "{]",
            "[1, 2]",
            "{\"class\": 3}",
        ] {
            let p = parse(bad, Q, &rules());
            assert_eq!(p.sub_queries, vec![Q], "{bad:?}");
            assert_eq!(p.class, QuestionClass::Precise, "{bad:?}");
            assert!(!p.notes.is_empty());
        }
    }

    #[test]
    fn the_prompt_names_the_vocabulary_and_the_limit() {
        let p = prompt(Q, &rules());
        assert!(p.contains("muon system, trigger"));
        assert!(p.contains("up to 4 short searches"));
        assert!(p.ends_with(Q));
    }
}
