//! Changes a passage states: the value before and the value after ("from A to B", "now B
//! (previously A)", "B (AN v1: A)"), read segment by segment.

use std::sync::LazyLock;

use regex::Regex;

use crate::{focus, grounding, qualifiers};

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

/// The version of the note that gave A, between "from A" and "to B": it makes "from A to B" a
/// change of the analysis whatever the verb ("moves from the 3.2σ in v2.0 of the note to
/// 3.4σ"; "moves from −0.470 to −0.493" alone may be an effect).
static FROM_VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:in|of) (?:the )?(?:an |note |pas |paper )?v\d+(?:\.\d+)*(?: of the (?:note|an|pas|paper))? to$",
    )
    .expect("version between from and to")
});

/// Words of a question about an earlier state or about the change itself: its answer may be
/// the old value.
pub(super) const PAST: &[&str] = &[
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
pub(super) const LATEST: &[&str] = &[
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
pub(super) const NEW: &[&str] = &[
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
    let value = VALUE;
    Regex::new(&format!(
        r"{value}(?:\s*[\p{{L}}%][\p{{L}}\d%/-]*)?\s*(?:\*\*)?\s*\((?:the )?(?:an |note |twiki |paper |pas )?v\d+(?:\.\d+)*\s*:\s*{value}"
    ))
    .expect("versioned value pattern")
});

/// A central value and, where written, its uncertainty ("1.13 ± 0.08"): two groups.
const VALUE: &str = r"(\d+(?:\.\d+)?)(?:\s*±\s*(\d+(?:\.\d+)?))?";

/// An old and a new value, each its central value and, where both write one, its uncertainty.
fn old_new(old: (&str, Option<&str>), new: (&str, Option<&str>)) -> (Value, Value) {
    let (mut o, mut n) = (vec![old.0.to_string()], vec![new.0.to_string()]);
    if let (Some(a), Some(b)) = (old.1, new.1) {
        o.push(a.to_string());
        n.push(b.to_string());
    }
    (Value::Numbers(o), Value::Numbers(n))
}

/// The changes [`VERSIONED`] reads in `t`: the old value, then the new one, each its central
/// value and, where both write one, its uncertainty.
fn versioned(t: &str) -> Vec<(Value, Value)> {
    VERSIONED
        .captures_iter(t)
        .map(|c| {
            // Groups 1 and 3 (the central values) are in every match.
            let new = (
                c.get(1).map_or("", |m| m.as_str()),
                c.get(2).map(|m| m.as_str()),
            );
            let old = (
                c.get(3).map_or("", |m| m.as_str()),
                c.get(4).map(|m| m.as_str()),
            );
            old_new(old, new)
        })
        .collect()
}

/// A value as the change parser reads it: numbers (one, or an interval's two; digits without
/// sign) or a name with letters and digits ("gn2v01"), lower case.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Numbers(Vec<String>),
    Name(String),
}

impl Value {
    /// Same type and, for numbers, as many.
    pub(super) fn pairs_with(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Numbers(a), Value::Numbers(b)) => a.len() == b.len() && a != b,
            (Value::Name(a), Value::Name(b)) => a != b,
            _ => false,
        }
    }

    /// Its numbers (none for a name).
    pub(super) fn numbers(&self) -> &[String] {
        match self {
            Value::Numbers(ns) => ns,
            Value::Name(_) => &[],
        }
    }

    /// Its values: the numbers, or the name.
    pub(super) fn items(&self) -> &[String] {
        match self {
            Value::Numbers(ns) => ns,
            Value::Name(n) => std::slice::from_ref(n),
        }
    }

    /// Whether segment `s` writes `item`, one of its values: a number standing alone, a name
    /// as a whole word.
    pub(super) fn written_in(&self, s: &str, item: &str) -> bool {
        match self {
            Value::Numbers(_) => grounding::has_number(s, item),
            Value::Name(_) => focus::has_phrase(s, item),
        }
    }
}

/// A value found in a text, with its byte range.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) value: Value,
}

/// A change a passage states: the value before and the value after it, and the segment that
/// states it ([`qualifiers::segments`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub(super) old: Value,
    pub(super) new: Value,
    pub(super) segment: String,
    /// Whether the change withdraws the old value wherever it is written ([`withdrawn`]): no
    /// topic need be shared with a segment writing it.
    pub(super) everywhere: bool,
}

pub(super) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Digits with a decimal part at the start of `s`: their length.
pub(super) fn digits(s: &str) -> usize {
    let len = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    s[..len].trim_end_matches('.').len()
}

/// Whether `c` after digits makes them part of a word ("v2", "4mu"): a letter but the σ of a
/// significance ("3.4σ"), a digit, an underscore.
pub(super) fn joins_number(c: char) -> bool {
    is_word(c) && c != 'σ'
}

/// A number at the start of `s` (a sign dropped), not part of a word ([`joins_number`]): its
/// digits and the length read.
fn number(s: &str) -> Option<(String, usize)> {
    let sign = usize::from(s.starts_with(['+', '-']));
    let len = digits(&s[sign..]);
    if len == 0 || s[sign + len..].chars().next().is_some_and(joins_number) {
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
pub(super) fn scan(t: &str) -> Vec<Found> {
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
    if crate::kinds::is_unit(&g[..end]) {
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

/// The changes segment `t` ([`qualifiers::segments`]: lower case) states, `found` its values
/// ([`scan`]).
fn changes_in(t: &str, found: &[Found]) -> Vec<(Value, Value)> {
    let words: Vec<&str> = t.split(|c: char| !c.is_alphanumeric()).collect();
    let changed = words.iter().any(|w| CHANGED.contains(w));
    let mut out = Vec::new();
    for (k, a) in found.iter().enumerate() {
        let Some(b) = found.get(k + 1) else { break };
        let gap = &t[a.end..b.start];
        let before = t[..a.start].trim_end();
        // "widened from A to B", with a verb of change in the segment, or "moves from the A in
        // v2.0 of the note to B" (the version's own number is no value here).
        if led_by(before, &["from"]) {
            let to = found[k + 1..].iter().take(3).find(|f| {
                let g = after_unit(&t[a.end..f.start]).trim_end();
                (changed && g == "to") || FROM_VERSION.is_match(g)
            });
            if let Some(to) = to {
                out.push((a.value.clone(), to.value.clone()));
                continue;
            }
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

/// Verbs that ask a reader to take a value as withdrawn: "please consider the 0.011 … as
/// wrong".
const CONSIDER: &[&str] = &["consider", "treat", "regard"];

/// What a withdrawn value is taken as.
const WRONG: &[&str] = &[
    "as wrong",
    "as incorrect",
    "as obsolete",
    "as outdated",
    "as superseded",
    "as invalid",
];

/// Verbs leading to the value that stands instead: "v1.4 of the AN will carry 0.014".
const CARRY: &[&str] = &[
    "carry", "carries", "give", "gives", "quote", "quotes", "read", "reads", "be", "is",
];

/// "Please consider the 0.011 in Section 6 … as wrong; v1.4 of the AN will carry 0.014"
/// (realistic19 EXO-26-095-q06): the value [`CONSIDER`] leads to, taken [`WRONG`], is the old
/// one, and the first value of its type a verb of [`CARRY`] leads to after that, the new one:
/// the old value is withdrawn wherever the note writes it ("in Section 6 and in the
/// summary").
fn withdrawn(found: &[Found], t: &str) -> Vec<(Value, Value)> {
    let mut out = Vec::new();
    for (k, old) in found.iter().enumerate() {
        if !led_by(&t[..old.start], CONSIDER) {
            continue;
        }
        let Some(at) = WRONG
            .iter()
            .filter_map(|w| {
                grounding::occurrences(&t[old.end..], w, is_word, is_word)
                    .next()
                    .map(|(_, end)| old.end + end)
            })
            .min()
        else {
            continue;
        };
        let new = found[k + 1..].iter().find(|f| {
            f.start >= at && f.value.pairs_with(&old.value) && led_by(&t[at..f.start], CARRY)
        });
        if let Some(new) = new {
            out.push((old.value.clone(), new.value.clone()));
        }
    }
    out
}

/// The changes `text` states, each with its segment.
pub(crate) fn changes(text: &str) -> Vec<Change> {
    let mut out: Vec<Change> = qualifiers::segments(text)
        .into_iter()
        .flat_map(|segment| {
            let found = scan(&segment);
            let withdrawn = withdrawn(&found, &segment)
                .into_iter()
                .map(|change| (change, true));
            changes_in(&segment, &found)
                .into_iter()
                .map(|change| (change, false))
                .chain(withdrawn)
                .map(move |((old, new), everywhere)| Change {
                    old,
                    new,
                    segment: segment.clone(),
                    everywhere,
                })
        })
        .collect();
    out.extend(version_columns(text));
    out
}

/// A version of the note heading a column ("v3", "AN v1.4"; lower case): its numbers.
static VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:an |note |pas |paper |twiki )?v(\d+(?:\.\d+)*)$").expect("version column")
});

/// Whether column headers `a` then `b` are an earlier and a later state: two versions of the
/// note in order ("v2", "v3"), or "before"/"after", "old"/"new", "previous"/"updated".
fn earlier_later(a: &str, b: &str) -> bool {
    let version = |h: &str| -> Option<Vec<u32>> {
        let c = VERSION.captures(h)?;
        c[1].split('.').map(|d| d.parse().ok()).collect()
    };
    match (version(a), version(b)) {
        (Some(x), Some(y)) => x < y,
        _ => matches!(
            (a, b),
            ("before", "after")
                | ("old", "new")
                | ("previous", "new")
                | ("previous", "updated")
                | ("previous", "current")
                | ("old", "updated")
        ),
    }
}

/// The value of a table cell as a change reads it: its first number, with its uncertainty
/// where it writes one ("1.13 ± 0.08").
static CELL_VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"(?:^|[^\w.]){VALUE}")).expect("cell value"));

/// A table cell's value ([`CELL_VALUE`]): its central value and uncertainty.
fn cell_value(cell: &str) -> Option<(&str, Option<&str>)> {
    let c = CELL_VALUE.captures(cell)?;
    Some((c.get(1)?.as_str(), c.get(2).map(|m| m.as_str())))
}

/// The changes of tables in `text` whose last two columns are an earlier and a later state
/// ([`earlier_later`]: "| Quantity | v2 | v3 |" over "| Limit on κ_t | < 1.7 | < 1.6 |", as a
/// changelog tabulates them): each row's value moves from the one column to the other, with
/// the row read with its header as its segment.
fn version_columns(text: &str) -> Vec<Change> {
    let text = grounding::normalize(text).to_lowercase();
    let mut out = Vec::new();
    let mut header: Option<&str> = None;
    for line in text.lines().map(str::trim) {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        if line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
            continue;
        }
        let Some(header_line) = header else {
            header = Some(line);
            continue;
        };
        let Some((row, head)) = crate::locate::paired_cells(line, header_line) else {
            continue;
        };
        let n = row.len();
        if n < 3 || !earlier_later(&head[n - 2], &head[n - 1]) {
            continue;
        }
        let (Some(a), Some(b)) = (cell_value(&row[n - 2]), cell_value(&row[n - 1])) else {
            continue;
        };
        let (old, new) = old_new(a, b);
        if old.pairs_with(&new) {
            out.push(Change {
                old,
                new,
                segment: focus::phrase_text(&format!("{line} {header_line}")),
                everywhere: false,
            });
        }
    }
    out
}
