//! Grounded prompts and their checks: numbered passages that fit the context budget, the
//! instruction to answer only from them, and what the answer's citations really point at.

use crate::engine::Engine;
use crate::LlmError;
use crate::{kinds, locate};

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

#[cfg(test)]
impl Passage {
    /// A passage of `text` alone (tests).
    pub(crate) fn of_text(text: &str) -> Passage {
        Passage {
            chunk_id: "c".into(),
            title: None,
            heading: None,
            page: None,
            text: text.into(),
        }
    }
}

/// The system message of the answer step.
pub const SYSTEM: &str = "You answer physicists' questions about their collaboration's \
analysis notes, using only the numbered excerpts in the message, never outside knowledge. \
Excerpts may say the same thing in other words than the question: match meaning, not wording.";

/// The system message of the relevance and support steps (yes/no judgments).
pub const JUDGE: &str = "You check facts in physics analysis notes. Read carefully and reply \
with Yes or No only.";

/// Header line of one excerpt: its number, document title and section (no ids or page
/// numbers, which the model would only copy or mistake for facts).
fn excerpt_block(i: usize, p: &Passage, engine: &Engine) -> String {
    let mut head = format!("[{}]", i + 1);
    head.push_str(&title_line(p, engine));
    format!("{head}\n{}\n\n", engine.neutralize(p.text.trim()))
}

/// " title — heading" of a passage (empty when it has neither).
pub(crate) fn title_line(p: &Passage, engine: &Engine) -> String {
    let mut s = String::new();
    if let Some(t) = p.title.as_deref().filter(|t| !t.is_empty()) {
        s.push_str(&format!(" {}", engine.neutralize(t)));
    }
    if let Some(h) = p.heading.as_deref().filter(|h| !h.is_empty()) {
        if p.title.as_deref() != Some(h) {
            s.push_str(&format!(" — {}", engine.neutralize(h)));
        }
    }
    s
}

/// The user message of the answer step: the question, the excerpts, the question again and
/// the rules.
pub fn answer_message(engine: &Engine, question: &str, passages: &[Passage]) -> String {
    let q = engine.neutralize(question.trim());
    let mut s = format!("Question: {q}\n\nExcerpts from the analysis notes:\n\n");
    for (i, p) in passages.iter().enumerate() {
        s.push_str(&excerpt_block(i, p, engine));
    }
    s.push_str(&format!(
        "Question: {q}\n\nAnswer the question from the excerpts in one to three sentences. Give \
         the requested fact directly, with numbers and units as the excerpts write them. End \
         every sentence with the number of the one excerpt it comes from in square brackets, \
         like [1]. Reply {ABSTENTION} only when no excerpt gives the requested fact."
    ));
    s
}

/// The user message of the relevance step for one passage: the passage, then the question
/// and the rule. (Measured on the development set's tuning part with the 1.5B model: this
/// order separates passages that give the fact from those that do not, pairwise AUC 0.87,
/// where the question-first order scored 0.55.)
pub fn relevance_message(engine: &Engine, question: &str, p: &Passage) -> String {
    format!(
        "Excerpt from the analysis notes:{}\n{}\n\nQuestion: {}\n\nCan the question be \
         answered from this excerpt alone? Reply Yes only if the excerpt states the requested \
         fact itself, for the same object the question names. Reply Yes or No.",
        title_line(p, engine),
        engine.neutralize(p.text.trim()),
        engine.neutralize(question.trim()),
    )
}

/// The user message of the support step: the cited passages, each under its document title
/// and section as the answer step showed them, the question and one sentence of the answer
/// (the question lets the judge see a fact given for the wrong object; the title, which
/// analysis the passage belongs to, when the sentence names it as the question does).
pub fn support_message(
    engine: &Engine,
    question: &str,
    statement: &str,
    cited: &[&Passage],
) -> String {
    let mut s = String::from("Excerpts from the analysis notes:\n\n");
    for p in cited {
        let title = title_line(p, engine);
        if !title.is_empty() {
            s.push_str(&format!("{}\n", title.trim_start()));
        }
        s.push_str(&format!("{}\n\n", engine.neutralize(p.text.trim())));
    }
    s.push_str(&format!(
        "Question: {}\nProposed answer: {}\n\nDo the excerpts state this answer, every \
         number, name and claim in it, for the same object the question names? Reply Yes or \
         No.",
        engine.neutralize(question.trim()),
        engine.neutralize(statement.trim())
    ));
    s
}

/// Answer text normalised for matching: Unicode minus and superscripts to ASCII, `×` to `x`.
pub fn normalize(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2212}' | '\u{2013}' | '\u{207B}' => '-',
            '\u{207A}' => '+',
            '\u{00D7}' => 'x',
            '\u{2070}' => '0',
            '\u{00B9}' => '1',
            '\u{00B2}' => '2',
            '\u{00B3}' => '3',
            c @ '\u{2074}'..='\u{2079}' => char::from_digit(c as u32 - 0x2070, 10).unwrap_or(c),
            c => c,
        })
        .collect()
}

/// Whether `number` occurs in `text` as a whole number (not inside a longer one: "14" is not
/// in "114" nor in "14.5"; it is in "14." ending a sentence).
pub fn has_number(text: &str, number: &str) -> bool {
    whole_numbers(text, number).next().is_some()
}

/// Where `number` occurs in `text` as a whole number ([`has_number`]'s reading): the byte
/// ranges, in order.
pub(crate) fn whole_numbers<'a>(
    text: &'a str,
    number: &'a str,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    number_occurrences(
        text,
        number,
        |c| c.is_ascii_digit() || c == '.',
        |c| c.is_ascii_digit(),
    )
}

/// Where `number` occurs in `text` as a whole number ([`occurrences`] with these boundaries),
/// not as the integer part of a decimal ("14" of "14.5"; "14." ending a sentence is one).
pub(crate) fn number_occurrences<'a>(
    text: &'a str,
    number: &'a str,
    joins_before: impl Fn(char) -> bool + 'a,
    joins_after: impl Fn(char) -> bool + 'a,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    occurrences(text, number, joins_before, joins_after).filter(|&(_, end)| {
        !text[end..]
            .strip_prefix('.')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// Whether `needle` occurs in `text` with no character `joins_before` accepts just before it
/// and none `joins_after` accepts just after it ([`occurrences`]).
pub(crate) fn occurs(
    text: &str,
    needle: &str,
    joins_before: impl Fn(char) -> bool,
    joins_after: impl Fn(char) -> bool,
) -> bool {
    occurrences(text, needle, joins_before, joins_after)
        .next()
        .is_some()
}

/// Where `needle` occurs in `text` with no character `joins_before` accepts just before it
/// and none `joins_after` accepts just after it: the byte ranges, in order.
pub(crate) fn occurrences<'a>(
    text: &'a str,
    needle: &'a str,
    joins_before: impl Fn(char) -> bool + 'a,
    joins_after: impl Fn(char) -> bool + 'a,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    text.match_indices(needle)
        .map(|(i, m)| (i, i + m.len()))
        .filter(move |&(s, e)| {
            let before = text[..s].chars().next_back();
            let after = text[e..].chars().next();
            !before.is_some_and(&joins_before) && !after.is_some_and(&joins_after)
        })
}

/// Numbers written in `s` (digits with their decimal part), Unicode minus and superscripts
/// normalised.
pub fn numbers(s: &str) -> Vec<String> {
    let s = normalize(s);
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars().chain([' ']) {
        if c.is_ascii_digit() || (c == '.' && !cur.is_empty()) {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(cur.trim_end_matches('.').to_string());
            cur.clear();
        }
    }
    out
}

/// Numbers of `claim` that `question` does not write: what the claim asserts, not what it
/// restates ("the Run 3 luminosity uncertainty is 1.4%" asserts 1.4, not 3, when asked about
/// Run 3), nor where it points ("as shown in Table 2": [`focus::without_references`]).
pub fn claimed_numbers(claim: &str, question: &str) -> Vec<String> {
    let question = normalize(question);
    numbers(&without_ids(&crate::focus::without_references(claim)))
        .into_iter()
        .filter(|n| !has_number(&question, n))
        .collect()
}

/// `s` with its analysis ids blanked ("HIN-25-006", "AN-2026-009": [`kinds::ids`] with two
/// numbers or more): their digits name a note, they assert no value.
fn without_ids(s: &str) -> String {
    let mut out = s.to_string();
    for (from, to) in kinds::ids(s, 2) {
        out.replace_range(from..to, &" ".repeat(to - from));
    }
    out
}

/// Numbers `claim` asserts ([`claimed_numbers`]) that none of `cited` writes (whole numbers,
/// after [`normalize`]): a sentence with one is not shown, whatever the judge says.
pub fn unwritten_numbers(claim: &str, question: &str, cited: &[&Passage]) -> Vec<String> {
    let texts: Vec<String> = cited.iter().map(|p| normalize(&p.text)).collect();
    claimed_numbers(claim, question)
        .into_iter()
        .filter(|n| !texts.iter().any(|t| has_number(t, n)))
        .collect()
}

/// Index of the passage sharing the most distinct words (letters or digits, two or more
/// characters, case folded) with `claim`; the first on ties.
pub fn closest(claim: &str, passages: &[Passage]) -> usize {
    fn words(t: &str) -> std::collections::HashSet<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '.'))
            .map(|w| w.trim_matches('.').to_lowercase())
            .filter(|w| w.chars().count() >= 2)
            .collect()
    }
    let c = words(claim);
    let mut best = (0, 0);
    for (i, p) in passages.iter().enumerate() {
        let n = words(&p.text).intersection(&c).count();
        if n > best.1 {
            best = (i, n);
        }
    }
    best.0
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

/// Byte offsets just after each sentence end of `text` (`.`, `?`, `!` or a line break followed
/// by white space, not after a decimal point or a common abbreviation).
pub(crate) fn sentence_ends(text: &str) -> Vec<usize> {
    const ABBREV: [&str; 14] = [
        "e.g.", "i.e.", "etc.", "vs.", "approx.", "Fig.", "Figs.", "Eq.", "Eqs.", "Ref.", "Refs.",
        "Sec.", "cf.", "al.",
    ];
    let mut ends = Vec::new();
    let b = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let next_ws = b.get(end).is_none_or(|n| n.is_ascii_whitespace());
        let is_end = match c {
            '\n' => true,
            '.' | '?' | '!' => {
                // The number of a list item ("\n2. The …") opens its sentence.
                let list_item = c == '.' && is_list_number(&text[..i]);
                next_ws && !list_item && !ABBREV.iter().any(|a| text[..end].ends_with(a))
                    // "No. 3", single initials ("J. Smith").
                    && !text[..i].rsplit(|c: char| !c.is_alphanumeric()).next().is_some_and(|w| w.chars().count() == 1 && w.chars().all(char::is_uppercase))
            }
            _ => false,
        };
        if is_end {
            ends.push(end);
        }
    }
    ends
}

/// Whether `before` ends in a line holding only a list item's number ("2" of "\n2. The …").
fn is_list_number(before: &str) -> bool {
    let line = before.rsplit('\n').next().unwrap_or(before).trim_start();
    (1..=2).contains(&line.len()) && line.bytes().all(|b| b.is_ascii_digit())
}

/// `claim` without the number of a list item opening it ("2. The …" → "The …").
fn strip_list_number(claim: &str) -> &str {
    match claim.split_once(". ") {
        Some((n, rest)) if is_list_number(n) && !rest.is_empty() => rest,
        _ => claim,
    }
}

/// `text` cut for `question` to at most `max_tokens` tokens: the paragraphs (or table rows)
/// sharing most content words with the question that fit, in their order
/// ([`locate::select`]); when not even the best paragraph fits, its beginning ([`head`]).
pub fn cut(
    engine: &Engine,
    question: &str,
    text: &str,
    max_tokens: usize,
) -> Result<String, LlmError> {
    let mut count = |s: &str| engine.count_tokens(s);
    if count(text)? <= max_tokens {
        return Ok(text.to_string());
    }
    match locate::select(question, text, max_tokens, &mut count)? {
        locate::Selected::Kept(s) => Ok(s),
        locate::Selected::Best(p) => head(engine, p, max_tokens),
    }
}

/// `text` cut to at most `max_tokens` tokens, at the last sentence end that keeps at least half
/// of the allowance (else at the token limit, marked with [`locate::GAP`]).
fn head(engine: &Engine, text: &str, max_tokens: usize) -> Result<String, LlmError> {
    let enc = engine
        .tokenizer()
        .encode(text, false)
        .map_err(|e| LlmError::Tokenizer(e.to_string()))?;
    if enc.len() <= max_tokens {
        return Ok(text.to_string());
    }
    let limit = enc.get_offsets()[max_tokens].0;
    let half = enc.get_offsets()[max_tokens / 2].0;
    match sentence_ends(text)
        .into_iter()
        .rfind(|&e| e <= limit && e >= half)
    {
        Some(e) => Ok(text[..e].trim_end().to_string()),
        None => Ok(format!("{} {}", text[..limit].trim_end(), locate::GAP)),
    }
}

/// The passages cut to the budget's passage length at sentence ends, as many as fit (in
/// order) in the answer prompt.
pub fn fit(
    engine: &Engine,
    question: &str,
    passages: &[Passage],
    budget: Budget,
) -> Result<Vec<Passage>, LlmError> {
    let limit = budget
        .context_tokens
        .min(engine.info().context_length)
        .saturating_sub(budget.max_new_tokens);
    let mut cut_p: Vec<Passage> = Vec::with_capacity(passages.len());
    for p in passages {
        let mut p = p.clone();
        p.text = cut(engine, question, &p.text, budget.max_passage_tokens)?;
        cut_p.push(p);
    }
    let size = |n: usize| -> Result<usize, LlmError> {
        Ok(render(
            engine,
            SYSTEM,
            &answer_message(engine, question, &cut_p[..n]),
        )?
        .len())
    };
    let base = size(0)?;
    if base > limit {
        return Err(LlmError::PromptTooLong {
            tokens: base,
            budget: limit,
        });
    }
    // Estimate from per-passage counts, then confirm on the real rendering.
    let mut n = 0;
    let mut used = base;
    for (i, p) in cut_p.iter().enumerate() {
        let t = engine.count_tokens(&excerpt_block(i, p, engine))?;
        if used + t > limit {
            break;
        }
        used += t;
        n += 1;
    }
    while n > 0 && size(n)? > limit {
        n -= 1;
    }
    cut_p.truncate(n);
    Ok(cut_p)
}

/// Token ids of the prompt `system` + `user`, ready for the reply.
pub fn render(engine: &Engine, system: &str, user: &str) -> Result<Vec<u32>, LlmError> {
    let text = engine.template().render_instruction(system, user)?;
    engine.encode_prompt(&text)
}

/// One sentence of an answer with the citations at its end or inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// The sentence as written (with its citation marks).
    pub text: String,
    /// The sentence without its citation marks.
    pub claim: String,
}

/// Splits an answer into sentences; citation marks that open a sentence ("… GeV. [1] The …")
/// belong to the sentence before.
pub fn sentences(answer: &str) -> Vec<Sentence> {
    let mut out: Vec<String> = Vec::new();
    let mut start = 0;
    for end in sentence_ends(answer).into_iter().chain([answer.len()]) {
        if end <= start {
            continue;
        }
        let mut piece = &answer[start..end];
        // Leading citation groups go to the previous sentence.
        let lead = leading_citations(piece);
        if lead > 0 && !out.is_empty() {
            let last = out.last_mut().expect("a previous sentence");
            last.push(' ');
            last.push_str(piece[..lead].trim());
            piece = &piece[lead..];
        }
        if !piece.trim().is_empty() {
            out.push(piece.trim().to_string());
        }
        start = end;
    }
    out.into_iter()
        .map(|text| Sentence {
            claim: strip_list_number(&strip_citations(&text)).to_string(),
            text,
        })
        .filter(|s| s.claim.chars().any(char::is_alphanumeric))
        .collect()
}

/// Bytes of citation groups (`[1]`, `[2, 3]`) and white space at the start of `s`.
fn leading_citations(s: &str) -> usize {
    let mut i = 0;
    loop {
        let rest = &s[i..];
        let r = rest.trim_start();
        let r = r.strip_prefix(',').map_or(r, str::trim_start);
        let ws = rest.len() - r.len();
        if r.starts_with('[') {
            if let Some(close) = r.find(']') {
                let inner = &r[1..close];
                if !inner.is_empty()
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == ',' || c == ' ')
                {
                    i += ws + close + 1;
                    // A full stop after the marks ("[1].") stays with them.
                    if s[i..].starts_with('.') {
                        i += 1;
                    }
                    continue;
                }
            }
        }
        return i;
    }
}

/// Byte ranges of the bracketed citation marks of numbers in `s` (`[1]`, `[2, 3]`), marks
/// joined only by a connective (`[2] and [4]`, `[1], [3]`, `[1][2]`) taken as one.
fn citation_marks(s: &str) -> Vec<std::ops::Range<usize>> {
    let mut marks: Vec<std::ops::Range<usize>> = Vec::new();
    for m in bracket_marks(s) {
        match marks.last_mut() {
            Some(last) if is_connective(&s[last.end..m.start]) => last.end = m.end,
            _ => marks.push(m),
        }
    }
    marks
}

/// Whether the text between two citation marks only joins them (`, `, ` and `, ` or `).
fn is_connective(gap: &str) -> bool {
    let gap = gap.trim_matches(|c: char| c.is_whitespace() || c == ',' || c == ';');
    gap.is_empty() || ["and", "or", "&"].contains(&gap)
}

/// Byte ranges of each bracketed group of numbers in `s`.
fn bracket_marks(s: &str) -> Vec<std::ops::Range<usize>> {
    let mut marks = Vec::new();
    let mut from = 0;
    while let Some(open) = s[from..].find('[').map(|o| from + o) {
        let after = &s[open + 1..];
        match after.find(']') {
            Some(close)
                if !after[..close].is_empty()
                    && after[..close]
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == ',' || c == ' ') =>
            {
                marks.push(open..open + close + 2);
                from = open + close + 2;
            }
            _ => from = open + 1,
        }
    }
    marks
}

/// `s` citing excerpt `n` instead: its first bracketed group of numbers becomes `[n]` and
/// later groups are dropped; without a group, ` [n]` is appended.
pub fn recite(s: &str, n: usize) -> String {
    let marks = citation_marks(s);
    if marks.is_empty() {
        return format!("{} [{n}]", s.trim_end());
    }
    let mut out = String::new();
    let mut at = 0;
    for (i, m) in marks.iter().enumerate() {
        out.push_str(s[at..m.start].trim_end_matches(' '));
        if i == 0 {
            out.push_str(&format!(" [{n}]"));
        }
        at = m.end;
    }
    out.push_str(&s[at..]);
    out.trim_start().to_string()
}

/// `s` without bracketed citation marks of numbers.
fn strip_citations(s: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for m in citation_marks(s) {
        out.push_str(&s[at..m.start]);
        at = m.end;
    }
    out.push_str(&s[at..]);
    let t = out.split_whitespace().collect::<Vec<_>>().join(" ");
    t.replace(" .", ".").replace(" ,", ",")
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
mod tests;
