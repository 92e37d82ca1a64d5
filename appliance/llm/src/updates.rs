//! Values the passages say were changed ("the window is widened from [-90, +150] ps to
//! [-150, +250] ps", "now uses GN2v01 instead of DL1r"): an answer sentence giving the old
//! value is restated with the new one, from the passage stating the change (English notes).

use std::sync::LazyLock;

use regex::Regex;

use crate::{focus, grounding, kinds, locate, qualifiers};

/// Past forms that make "from A to B" a change made to the analysis, not a range ("masses
/// from 1 to 20 GeV") nor an effect ("the density rises from 270 to 390").
const CHANGED: &[&str] = &[
    "changed",
    "raised",
    "lowered",
    "widened",
    "narrowed",
    "tightened",
    "loosened",
    "relaxed",
    "updated",
    "redefined",
    "revised",
    "corrected",
    "moved",
    "increased",
    "decreased",
    "reduced",
    "shifted",
    "switched",
    "bumped",
];

/// Words of a question about an earlier state or about the change itself: its answer may be
/// the old value.
const PAST: &[&str] = &[
    "previous",
    "previously",
    "before",
    "originally",
    "original",
    "old",
    "older",
    "earlier",
    "initially",
    "initial",
    "formerly",
    "prior",
    "used to",
    "version",
    "change",
    "changed",
    "changes",
    "history",
];

/// Words of a question asking for a value as it stands now ("latest", "current", "these
/// days"): its answer is the value a later passage gives in place of an earlier one.
const LATEST: &[&str] = &[
    "latest",
    "current",
    "currently",
    "now",
    "newest",
    "updated",
    "these days",
    "today",
    "most recent",
];

/// Words marking the value after them as one replacing an earlier value ("the integrated
/// ratio is now 0.663", "New data/simulation ratio: 1.09 ± 0.05", "The updated prediction is
/// 16.2 pb").
const NEW: &[&str] = &[
    "now",
    "new",
    "newest",
    "updated",
    "latest",
    "revised",
    "corrected",
    "replaces",
    "supersedes",
];

/// Words after an opening parenthesis that give the old value: "380 GeV (previously 400 GeV)".
const WAS: &[&str] = &["previously", "formerly", "was", "before", "previous", "old"];

/// A value (a unit or noun after it), then in parentheses the version of the note that gave the
/// old one and that value ("14 ± 3% (an v1.1: 12 ± 3%)", "is now **1.13 ± 0.08** (an v1: 1.18
/// ± 0.09)", "1.1 ± 0.3 events (v3: 0.9 ± 0.3)"; lower case, [`grounding::normalize`]d): each
/// a central value and its uncertainty, if written.
static VERSIONED: LazyLock<Regex> = LazyLock::new(|| {
    let value = r"(\d+(?:\.\d+)?)(?:\s*±\s*(\d+(?:\.\d+)?))?";
    Regex::new(&format!(
        r"{value}(?:\s*[\p{{L}}%][\p{{L}}\d%/-]*)?\s*(?:\*\*)?\s*\((?:the )?(?:an |note |twiki |paper |pas )?v\d+(?:\.\d+)*\s*:\s*{value}"
    ))
    .expect("versioned value pattern")
});

/// The changes [`VERSIONED`] reads in `t`: the old value, then the new one, each its central
/// value and, where both write one, its uncertainty.
fn versioned(t: &str) -> Vec<(Value, Value)> {
    VERSIONED
        .captures_iter(t)
        .map(|c| {
            // Groups 1 and 3 (the central values) are in every match.
            let (mut new, mut old) = (vec![c[1].to_string()], vec![c[3].to_string()]);
            if let (Some(a), Some(b)) = (c.get(2), c.get(4)) {
                new.push(a.as_str().to_string());
                old.push(b.as_str().to_string());
            }
            (Value::Numbers(old), Value::Numbers(new))
        })
        .collect()
}

/// A value as the change parser reads it: numbers (one, or an interval's two; digits without
/// sign) or a name with letters and digits ("gn2v01"), lower case.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Numbers(Vec<String>),
    Name(String),
}

impl Value {
    /// Same type and, for numbers, as many.
    fn pairs_with(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Numbers(a), Value::Numbers(b)) => a.len() == b.len() && a != b,
            (Value::Name(a), Value::Name(b)) => a != b,
            _ => false,
        }
    }

    /// Its numbers (none for a name).
    fn numbers(&self) -> &[String] {
        match self {
            Value::Numbers(ns) => ns,
            Value::Name(_) => &[],
        }
    }

    /// Its values: the numbers, or the name.
    fn items(&self) -> &[String] {
        match self {
            Value::Numbers(ns) => ns,
            Value::Name(n) => std::slice::from_ref(n),
        }
    }

    /// Whether segment `s` writes `item`, one of its values: a number standing alone, a name
    /// as a whole word.
    fn written_in(&self, s: &str, item: &str) -> bool {
        match self {
            Value::Numbers(_) => grounding::has_number(s, item),
            Value::Name(_) => focus::has_phrase(s, item),
        }
    }
}

/// A value found in a text, with its byte range.
#[derive(Debug, Clone)]
struct Found {
    start: usize,
    end: usize,
    value: Value,
}

/// A change a passage states: the value before and the value after it, and the segment that
/// states it ([`qualifiers::segments`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    old: Value,
    new: Value,
    segment: String,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Digits with a decimal part at the start of `s`: their length.
fn digits(s: &str) -> usize {
    let len = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    s[..len].trim_end_matches('.').len()
}

/// A number at the start of `s` (a sign dropped), not followed by a letter: its digits and
/// the length read.
fn number(s: &str) -> Option<(String, usize)> {
    let sign = usize::from(s.starts_with(['+', '-']));
    let len = digits(&s[sign..]);
    if len == 0 || s[sign + len..].chars().next().is_some_and(is_word) {
        return None;
    }
    Some((s[sign..sign + len].to_string(), sign + len))
}

/// An interval "[a, b]" or "(a, b)" at the start of `s`: its two numbers and the length read.
fn interval(s: &str) -> Option<(Vec<String>, usize)> {
    let close = match s.chars().next()? {
        '[' => ']',
        '(' => ')',
        _ => return None,
    };
    let mut at = 1;
    let mut out = Vec::new();
    for sep in [[',', ';'], [close, close]] {
        at += s[at..].len() - s[at..].trim_start().len();
        let (n, len) = number(&s[at..])?;
        out.push(n);
        at += len;
        at += s[at..].len() - s[at..].trim_start().len();
        if !s[at..].starts_with(sep) {
            return None;
        }
        at += 1;
    }
    Some((out, at))
}

/// A name at the start of `s`: a word of ASCII letters, digits, `_` and inner `-`, three
/// characters or more, starting with a letter and holding a digit ("gn2v01", "hlt_isomu24").
fn name(s: &str) -> Option<(String, usize)> {
    let len = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(s.len());
    let w = s[..len].trim_end_matches('-');
    let ok = w.len() >= 3
        && w.starts_with(|c: char| c.is_ascii_alphabetic())
        && w.chars().any(|c| c.is_ascii_digit());
    ok.then(|| (w.to_string(), w.len()))
}

/// The values written in `t`, in order.
fn scan(t: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let rest = &t[i..];
        let boundary = !t[..i].chars().next_back().is_some_and(is_word);
        let read = boundary
            .then(|| {
                interval(rest)
                    .map(|(n, len)| (Value::Numbers(n), len))
                    .or_else(|| number(rest).map(|(n, len)| (Value::Numbers(vec![n]), len)))
                    .or_else(|| name(rest).map(|(n, len)| (Value::Name(n), len)))
            })
            .flatten();
        match read {
            Some((value, len)) => {
                out.push(Found {
                    start: i,
                    end: i + len,
                    value,
                });
                i += len;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// `gap` without a leading unit word ("gev to" → "to"): a word of no digits that is a unit.
fn after_unit(gap: &str) -> &str {
    let g = gap.trim_start();
    let end = g.find(char::is_whitespace).unwrap_or(g.len());
    if kinds::is_unit(&g[..end]) {
        g[end..].trim_start()
    } else {
        g
    }
}

/// Whether `gap` (between a word and the value after it) holds nothing but an article, a
/// comparison sign or "about".
fn leads_in(gap: &str) -> bool {
    gap.split_whitespace().all(|w| {
        matches!(
            w,
            "the" | "a" | "an" | "about" | "<" | ">" | "=" | "≤" | "≥" | "~" | ":" | "±"
        )
    })
}

/// Whether `before` (the text before a value) ends with one of `words`, then at most what
/// [`leads_in`] allows ("becomes ±").
fn led_by(before: &str, words: &[&str]) -> bool {
    let mut rest = before.trim_end();
    loop {
        let cut = rest.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let (head, last) = rest.split_at(cut);
        if words.contains(&last) {
            return true;
        }
        if last.is_empty() || !leads_in(last) {
            return false;
        }
        rest = head.trim_end();
    }
}

/// The changes segment `t` ([`qualifiers::segments`]: lower case) states.
fn changes_in(t: &str) -> Vec<(Value, Value)> {
    let found = scan(t);
    let words: Vec<&str> = t.split(|c: char| !c.is_alphanumeric()).collect();
    let changed = words.iter().any(|w| CHANGED.contains(w));
    let mut out = Vec::new();
    for (k, a) in found.iter().enumerate() {
        let Some(b) = found.get(k + 1) else { break };
        let gap = &t[a.end..b.start];
        let before = t[..a.start].trim_end();
        // "widened from A to B", with a verb of change in the segment.
        if changed
            && before.ends_with("from")
            && !before[..before.len() - 4].ends_with(is_word)
            && after_unit(gap).trim_end() == "to"
        {
            out.push((a.value.clone(), b.value.clone()));
            continue;
        }
        // "0.90 → 0.92": numbers only ("v3 → v4" is a heading, "B → μμ" a decay).
        let arrow = after_unit(gap).trim_end();
        if matches!(a.value, Value::Numbers(_)) && (arrow == "→" || arrow == "->") {
            out.push((a.value.clone(), b.value.clone()));
            continue;
        }
        // "380 GeV (previously < 400 GeV)", "0.72 TeV for both years (it was 0.65 TeV)": a
        // few words may stand before the parenthesis, and "it" or "this" inside it.
        if let Some((words, inner)) = after_unit(gap).split_once('(') {
            let inner = inner.trim_start();
            let inner = ["it ", "this "]
                .iter()
                .find_map(|p| inner.strip_prefix(p))
                .unwrap_or(inner);
            let was = WAS.iter().find(|w| {
                inner.starts_with(**w) && !inner[w.len()..].starts_with(|c: char| is_word(c))
            });
            if let Some(w) = was {
                if words.split_whitespace().count() <= 4 && leads_in(&inner[w.len()..]) {
                    out.push((b.value.clone(), a.value.clone()));
                }
            }
        }
        // "becomes ±5.6% at 68% CL, compared with ±4.8% in v1.3": the value "becomes" leads
        // to is the new one.
        let compared = ["compared with", "compared to"]
            .iter()
            .any(|m| gap.split_once(m).is_some_and(|(_, post)| leads_in(post)));
        if compared {
            if let Some(new) = found[..=k]
                .iter()
                .rev()
                .find(|f| led_by(&t[..f.start], &["becomes", "became"]))
            {
                out.push((b.value.clone(), new.value.clone()));
            }
        }
    }
    // "now uses B at the 77% working point instead of A", "A replaced by B": the nearest
    // value of the same type on the other side.
    for (marker, new_first) in [
        ("instead of", true),
        ("replaced by", false),
        ("replaced with", false),
    ] {
        for (at, _) in t.match_indices(marker) {
            let end = at + marker.len();
            if t[..at].ends_with(is_word) || t[end..].starts_with(is_word) {
                continue;
            }
            let after = found
                .iter()
                .find(|f| f.start >= end && leads_in(&t[end..f.start]));
            let Some(after) = after else { continue };
            let Some(before) = found
                .iter()
                .rev()
                .find(|f| f.end <= at && f.value.pairs_with(&after.value))
            else {
                continue;
            };
            let (old, new) = if new_first {
                (after, before)
            } else {
                (before, after)
            };
            out.push((old.value.clone(), new.value.clone()));
        }
    }
    out.extend(versioned(t));
    out.retain(|(old, new)| old.pairs_with(new));
    out
}

/// The changes `text` states, each with its segment.
pub(crate) fn changes(text: &str) -> Vec<Change> {
    qualifiers::segments(text)
        .into_iter()
        .flat_map(|segment| {
            changes_in(&segment)
                .into_iter()
                .map(move |(old, new)| Change {
                    old,
                    new,
                    segment: segment.clone(),
                })
        })
        .collect()
}

/// Whether two numbers are equal ("0.9" and "0.90").
fn same_number(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Content words of a segment that name what it is about: not numbers, units nor names.
fn topic(segment: &str) -> std::collections::HashSet<String> {
    focus::content(segment)
        .into_iter()
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()) && !kinds::is_unit(w))
        .collect()
}

/// Whether two segments are about the same thing: the same segment, or two topic words shared.
fn same_topic(a: &str, b: &str) -> bool {
    a == b || topic(a).intersection(&topic(b)).count() >= 2
}

/// `s` with each old value of `pairs` replaced by its new one: numbers standing alone (sign
/// kept), names as whole words (case folded; `spelled` gives the passage's spelling).
fn replace(s: &str, pairs: &[(String, String)], names: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let boundary = !s[..i].chars().next_back().is_some_and(is_word);
        let token = if names {
            rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(rest.len())
        } else {
            let len = digits(rest);
            if rest[len..].chars().next().is_some_and(is_word) {
                0
            } else {
                len
            }
        };
        if boundary && token > 0 {
            let word = rest[..token].trim_end_matches('-');
            let hit = pairs.iter().find(|(old, _)| {
                if names {
                    old.eq_ignore_ascii_case(word)
                } else {
                    same_number(old, word)
                }
            });
            match hit {
                Some((_, new)) => out.push_str(new),
                None => out.push_str(word),
            }
            i += word.len().max(1);
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The spelling `text` gives a name (`lower`, lower case), if it writes it as a word.
fn spelled(text: &str, lower: &str) -> String {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .find(|w| w.eq_ignore_ascii_case(lower))
        .map_or_else(|| lower.to_string(), str::to_string)
}

/// An answer sentence restated with new values.
#[derive(Debug, Clone, PartialEq)]
pub struct Restated {
    /// The sentence as shown, old values replaced.
    pub text: String,
    /// Its claim (without citation marks), old values replaced.
    pub claim: String,
    /// The passage stating the change (index into the `shown` given).
    pub passage: usize,
}

/// `text` (an answer sentence to `question`; `claim`: without its citation marks) restated
/// with the new values when it gives a value that a passage of `shown` says was changed:
/// "from A to B" with a verb of change, "A → B", "B (previously A)", "B instead of A", "A
/// replaced by B". Only when the segment of `against` (the passages the sentence is judged
/// against) that writes the old value is about what the change is about (the same segment, or
/// two topic words shared), the sentence does not give the new value too, and the question
/// does not ask about an earlier state ("before", "originally", "changed"). The first such
/// change in `shown` (most relevant first) is taken.
pub fn restate(
    question: &str,
    text: &str,
    claim: &str,
    against: &[&grounding::Passage],
    shown: &[&grounding::Passage],
) -> Option<Restated> {
    let q = focus::phrase_text(&grounding::normalize(question));
    if PAST.iter().any(|w| focus::has_phrase(&q, w)) {
        return None;
    }
    let numbers: Vec<String> = kinds::values(question, claim)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let lower = focus::phrase_text(&grounding::normalize(claim));
    let names: Vec<String> = scan(&lower)
        .into_iter()
        .filter_map(|f| match f.value {
            Value::Name(n) => Some(n),
            Value::Numbers(_) => None,
        })
        .collect();
    let gives = |v: &Value| -> Vec<String> {
        v.items()
            .iter()
            .filter(|n| match v {
                Value::Numbers(_) => numbers.iter().any(|m| same_number(m, n)),
                Value::Name(_) => names.contains(n),
            })
            .cloned()
            .collect()
    };
    let segments: Vec<String> = against
        .iter()
        .flat_map(|p| qualifiers::segments(&p.text))
        .collect();
    for (k, p) in shown.iter().enumerate() {
        for c in changes(&p.text) {
            // The new values that are not old ones too ([-90, +150] to [-150, +250]: 250).
            let old = gives(&c.old);
            let new = gives(&c.new);
            if old.is_empty() || new.iter().any(|n| !old.contains(n)) {
                continue;
            }
            let writes = |s: &String| old.iter().all(|n| c.old.written_in(s, n));
            if !segments
                .iter()
                .any(|s| writes(s) && same_topic(s, &c.segment))
            {
                continue;
            }
            let names = matches!(c.new, Value::Name(_));
            let pairs: Vec<(String, String)> = c
                .old
                .items()
                .iter()
                .cloned()
                .zip(c.new.items().iter().map(|n| {
                    if names {
                        spelled(&p.text, n)
                    } else {
                        n.clone()
                    }
                }))
                .collect();
            return Some(Restated {
                text: replace(text, &pairs, names),
                claim: replace(claim, &pairs, names),
                passage: k,
            });
        }
    }
    if asks_latest(&q) {
        return marked(text, claim, &numbers, &segments, shown);
    }
    None
}

/// Whether question `q` (lower case) asks for a value as it stands now ([`LATEST`]); not a
/// "charged-current" process nor a "leakage current".
fn asks_latest(q: &str) -> bool {
    let word = char::is_alphanumeric;
    LATEST.iter().any(|w| {
        grounding::occurrences(q, w, word, word).any(|(at, _)| {
            let before = q[..at].trim_end();
            *w != "current"
                || !(before.ends_with('-')
                    || ["leakage", "dark", "beam", "bias"]
                        .iter()
                        .any(|n| before.ends_with(n)))
        })
    })
}

/// The numbers written in `t`, in order (those of an interval one by one).
fn numbers_in(t: &str) -> Vec<String> {
    scan(t)
        .iter()
        .flat_map(|f| f.value.numbers().to_vec())
        .collect()
}

/// Words that introduce the value a word of [`NEW`] marks ("the updated prediction is 16.2",
/// "now R = 0.663", "New ratio for the support tube: 1.09").
const INTRODUCE: &[&str] = &["=", ":", "is", "are", "to", "of", "gives", "give", "be"];

/// Where in `rest` (the text after `marker`, a word of [`NEW`]) the value it marks starts:
/// its first number, at most eight words on, after a word of [`INTRODUCE`] ("(" and Markdown
/// emphasis aside), or right after "now" ("is now 1.38", "is now **1.13**"); the ends of a
/// range before it are a bin the value is given for ("updated fraction in 0–10%: 14%").
/// `None` when the first number is something else's ("will be updated in version 4", "the
/// updated 13 TeV spectrum").
fn leads_to(marker: &str, rest: &str) -> Option<usize> {
    let found = scan(rest);
    let numbers: Vec<&Found> = found
        .iter()
        .filter(|f| matches!(f.value, Value::Numbers(_)))
        .collect();
    let start = numbers
        .iter()
        .find(|f| !range_end(rest, f.start, f.end))?
        .start;
    let gap = rest[..start]
        .trim_end()
        .trim_end_matches(['(', '[', '*', '_'])
        .trim_end();
    let words = gap.split_whitespace().count();
    let introduced = INTRODUCE.iter().any(|w| {
        gap.ends_with(w)
            && (!w.starts_with(char::is_alphabetic)
                || !gap[..gap.len() - w.len()].ends_with(char::is_alphanumeric))
    });
    ((gap.trim_start_matches(['*', '_']).is_empty() && marker == "now")
        || (introduced && words <= 8))
        .then_some(start)
}

/// Whether the number at `start..end` of `text` is an end of a range ("0" or "10" of "0–10%"):
/// a dash and a digit after it, or a digit and a dash before it.
fn range_end(text: &str, start: usize, end: usize) -> bool {
    let digit = |c: char| c.is_ascii_digit();
    text[end..]
        .strip_prefix(['–', '-'])
        .is_some_and(|a| a.starts_with(digit))
        || text[..start]
            .strip_suffix(['–', '-'])
            .is_some_and(|b| b.ends_with(digit))
}

/// How many numbers the value at the start of `marked` writes: its central value and the
/// uncertainties joined to it ("14 ± 3% (AN v1.1: 12 ± 3%)": 2; "16.2 pb (+0.7/−0.6)": 3).
fn value_len(marked: &str) -> usize {
    let found: Vec<Found> = scan(marked)
        .into_iter()
        .filter(|f| matches!(f.value, Value::Numbers(_)))
        .collect();
    let joins = |gap: &str| {
        gap.split(|c: char| c.is_whitespace() || "±+-−/()%*".contains(c))
            .all(|w| w.is_empty() || kinds::is_unit(w) || ["stat", "syst", "lumi"].contains(&w))
    };
    let mut n = usize::from(!found.is_empty());
    for pair in found.windows(2) {
        if !joins(&marked[pair[0].end..pair[1].start]) {
            break;
        }
        n += 1;
    }
    n
}

/// Whether the content words of `subject` ([`focus::content`]: what a segment names before a
/// word of [`NEW`], "the 2023 data/MC SF is"), two or more, are all content words of segment
/// `s`.
fn subject_in(subject: &str, s: &str) -> bool {
    let named = focus::content(subject);
    named.len() >= 2 && named.is_subset(&focus::content(s))
}

/// Where in `t` the value holding its `i`-th number ([`numbers_in`]) starts.
fn value_start(t: &str, i: usize) -> Option<usize> {
    let mut seen = 0;
    for f in scan(t) {
        let count = f.value.numbers().len();
        if i < seen + count {
            return Some(f.start);
        }
        seen += count;
    }
    None
}

/// [`marked_from`] from each number the claim gives as a value (not the ends of a range it
/// writes, a bin the answer repeats: "(20–50) jets is 1.18"), the first that finds a change.
fn marked(
    text: &str,
    claim: &str,
    numbers: &[String],
    segments: &[String],
    shown: &[&grounding::Passage],
) -> Option<Restated> {
    let ranged = |n: &str| {
        let at: Vec<(usize, usize)> = grounding::whole_numbers(claim, n).collect();
        !at.is_empty() && at.iter().all(|&(s, e)| range_end(claim, s, e))
    };
    numbers
        .iter()
        .filter(|n| !ranged(n))
        .find_map(|first| marked_from(text, claim, numbers, first, segments, shown))
}

/// The value a segment of `against` gives that the claim gives (`numbers`, in claim order),
/// and the value a segment of `shown` marks as its replacement: the claim restated with it.
/// The old value is the run of the claim's numbers a segment writes from `first`, opened by
/// "=", ":", a table's `|`, a list's "," or ";" or a word ("R = (0.672 ± 0.021 ± 0.036)%", "|
/// 1.14 ± 0.05 |", "1.31 (2022), 1.44 (2023)"); the new one is as many numbers from where a
/// word of [`NEW`] leads ([`leads_to`]; the old run cut to the count of the new value's own:
/// [`value_len`]), each taking the place of the old number in the same position. The marking segment must be
/// about the same thing ([`same_topic`], or all it names before the word of [`NEW`] is named
/// by the old value's segment: [`subject_in`]) or write the old value after the new one
/// ("16.2 pb, to be compared with 16.7 pb", "1.09 ± 0.05 (AN v1: 1.14 ± 0.05)"). For
/// questions asking for the value as it is now ([`LATEST`]): a later note, e-log entry or
/// review answer giving "the ratio is now 0.663" outdates the analysis note's 0.672 without
/// saying "from 0.672 to 0.663" (realistic16 BPH-26-023-q06, realistic15 TRK-26-010-q06 and
/// SMP-26-029-q06, realistic13 TOP-26-021-q06).
fn marked_from(
    text: &str,
    claim: &str,
    numbers: &[String],
    first: &str,
    segments: &[String],
    shown: &[&grounding::Passage],
) -> Option<Restated> {
    let claimed = |n: &String| numbers.iter().any(|m| same_number(m, n));
    for (k, p) in shown.iter().enumerate() {
        for n in qualifiers::segments(&p.text) {
            let word = char::is_alphanumeric;
            // The first word of NEW that leads to a value, and that value on.
            let Some((at, marked)) = NEW
                .iter()
                .flat_map(|w| grounding::occurrences(&n, w, word, word))
                .filter_map(|(at, end)| {
                    leads_to(&n[at..end], &n[end..]).map(|v| (at, &n[end + v..]))
                })
                .min_by_key(|&(at, _)| at)
            else {
                continue;
            };
            let after = numbers_in(marked);
            // The old value in another segment, or after the new one in the marking segment.
            let others = segments
                .iter()
                .filter(|s| **s != n)
                .map(|s| (s.as_str(), false));
            for (s, itself) in others.chain(std::iter::once((marked, true))) {
                let nums = numbers_in(s);
                let from = usize::from(itself);
                let Some(i) = (from..nums.len()).find(|&i| same_number(&nums[i], first)) else {
                    continue;
                };
                let run = nums[i..].iter().take_while(|x| claimed(x)).count();
                let len = run.min(if itself { i } else { value_len(marked) });
                if len == 0 || same_number(&after[0], &nums[i]) {
                    continue;
                }
                let (old, new) = (&nums[i..i + len], &after[..len]);
                if new.iter().any(|x| claimed(x) && !old.contains(x)) {
                    continue;
                }
                // Where the value opens: after "=", ":", "|", ",", ";" or a word, not "±" or "/".
                let opens = value_start(s, i).is_some_and(|start| {
                    s[..start]
                        .trim_end()
                        .trim_end_matches('(')
                        .trim_end()
                        .ends_with(|c: char| {
                            matches!(c, '=' | ':' | '|' | ',' | ';') || c.is_alphabetic()
                        })
                });
                let about = itself
                    || same_topic(s, &n)
                    || grounding::has_number(marked, &old[0])
                    || subject_in(&n[..at], s);
                if !opens || !about {
                    continue;
                }
                let pairs: Vec<(String, String)> =
                    old.iter().cloned().zip(new.iter().cloned()).collect();
                return Some(Restated {
                    text: replace(text, &pairs, false),
                    claim: replace(claim, &pairs, false),
                    passage: k,
                });
            }
        }
    }
    None
}

/// Whether segment `s` of a passage ([`qualifiers::segments`]) states what change `c` (of
/// another passage) replaced: it writes every old value and none of the new ones that are not
/// old too, and is about what the change is about.
fn outdated_by(s: &str, c: &Change) -> bool {
    let old = c.old.items();
    old.iter().all(|n| c.old.written_in(s, n))
        && !c
            .new
            .items()
            .iter()
            .any(|n| !old.contains(n) && c.new.written_in(s, n))
        && same_topic(s, &c.segment)
}

/// The passages outside `shown` (indexes of `used`, the passages as cut for the prompt) whose
/// whole text (`passages`, in the same order) states a change ([`changes`]) of a value a shown
/// passage gives, each with the paragraph stating it ([`locate::paragraphs`]), for a question
/// asking for the value as it stands now ([`LATEST`], not for an earlier one): shown beside
/// the old value whatever the judge said of them, as the old value alone reads as current, and
/// as that paragraph, which the cut for the question's words may have left out (realistic17
/// HIN-26-046-q06: the e-log's "updated feed-down fraction in 0–10%: 14 ± 3% (AN v1.1: 12 ±
/// 3%)" judged 0.01, the note's 12 ± 3% given).
pub(crate) fn updating(
    question: &str,
    passages: &[grounding::Passage],
    used: &[grounding::Passage],
    shown: &[usize],
) -> Vec<(usize, String)> {
    let q = focus::phrase_text(&grounding::normalize(question));
    if !asks_latest(&q) || PAST.iter().any(|w| focus::has_phrase(&q, w)) {
        return Vec::new();
    }
    let segments: Vec<String> = shown
        .iter()
        .filter_map(|&i| used.get(i))
        .flat_map(|p| qualifiers::segments(&p.text))
        .collect();
    let outdates = |c: &Change| segments.iter().any(|s| outdated_by(s, c));
    (0..used.len().min(passages.len()))
        .filter(|j| !shown.contains(j))
        .filter_map(|j| {
            locate::paragraphs(&passages[j].text)
                .into_iter()
                .find(|p| changes(p).iter().any(outdates))
                .map(|p| (j, p.to_string()))
        })
        .collect()
}

/// An order of `passages` (rank order, the first `first` of them judged first) in which each
/// passage from beyond the first look that states a change of a value a first-look passage
/// gives ("the window is widened from [-90, +150] ps to [-150, +250] ps" for a table writing
/// [-90, +150] ps) joins the first look, right after the passage it updates; and the new size
/// of the first look. The old value alone reads as current to a model and to a physicist, so
/// the passage saying it changed is judged beside it. Repeated until none moves, so that the
/// order of its result is its own.
pub fn bring_forward(passages: &[grounding::Passage], first: usize) -> (Vec<usize>, usize) {
    let mut order: Vec<usize> = (0..passages.len()).collect();
    let mut first = first.min(passages.len());
    let changes: Vec<Vec<Change>> = passages.iter().map(|p| changes(&p.text)).collect();
    let segments: Vec<Vec<String>> = passages
        .iter()
        .map(|p| qualifiers::segments(&p.text))
        .collect();
    let updates = |j: usize, i: usize| {
        changes[j]
            .iter()
            .any(|c| segments[i].iter().any(|s| outdated_by(s, c)))
    };
    while let Some((pos, at)) = (first..order.len()).find_map(|pos| {
        (0..first)
            .find(|&a| updates(order[pos], order[a]))
            .map(|a| (pos, a))
    }) {
        let j = order.remove(pos);
        order.insert(at + 1, j);
        first += 1;
    }
    (order, first)
}

#[cfg(test)]
mod tests;
