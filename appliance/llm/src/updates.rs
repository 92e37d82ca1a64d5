//! Values the passages say were changed ("the window is widened from [-90, +150] ps to
//! [-150, +250] ps", "now uses GN2v01 instead of DL1r"): an answer sentence giving the old
//! value is restated with the new one, from the passage stating the change (English notes).

use crate::{focus, grounding, kinds, locate, qualifiers};

mod changes;

use changes::{
    changes, digits, is_word, joins_number, scan, Change, Found, Value, LATEST, NEW, PAST,
};

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

/// The segments of `text` ([`qualifiers::segments`]), each with the text its topic is read
/// from: itself and the segment before it, a heading or the sentence naming what a bare
/// statement is about (realistic19 TOP-26-089-q06: "…the measurement constrains the coupling
/// modifier κ_t. Assuming the ttH background scales with κ_t², we obtain |κ_t| < 1.7 at 95%
/// CL." is about the top Yukawa modifier that a changelog row names).
fn in_context(text: &str) -> Vec<Segment> {
    let segments = qualifiers::segments(text);
    (0..segments.len())
        .map(|i| Segment {
            context: match i.checked_sub(1) {
                Some(before) => format!("{} {}", segments[before], segments[i]),
                None => segments[i].clone(),
            },
            text: segments[i].clone(),
        })
        .collect()
}

/// A segment of a passage and the text its topic is read from ([`in_context`]).
struct Segment {
    /// The segment, as [`qualifiers::segments`] reads it.
    text: String,
    /// The segment before it and the segment: what its topic is read from.
    context: String,
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
            if rest[len..].chars().next().is_some_and(joins_number) {
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
/// two topic words shared, read with the segment before it: [`in_context`]; or the change
/// withdraws the value wherever written), the sentence does not give the new value too, and
/// the question does not ask about an earlier state ("before", "originally", "changed"). The
/// first such change in `shown` (most relevant first) is taken.
pub fn restate(
    question: &str,
    text: &str,
    claim: &str,
    against: &[&grounding::Passage],
    shown: &[&grounding::Passage],
) -> Option<Restated> {
    let q = focus::phrase_text(&grounding::normalize(question));
    if asks_earlier(&q) {
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
    let segments: Vec<Segment> = against.iter().flat_map(|p| in_context(&p.text)).collect();
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
                .any(|s| writes(&s.text) && (c.everywhere || same_topic(&s.context, &c.segment)))
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
/// Whether question `q` (phrase text) asks about an earlier state or the change itself
/// ([`PAST`]): not "the latest version", which asks for the value now.
fn asks_earlier(q: &str) -> bool {
    PAST.iter()
        .any(|w| focus::has_phrase(q, w) && !(*w == "version" && asks_latest(q)))
}

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
/// "now R = 0.663", "New ratio for the support tube: 1.09", "is now taken as 9.0%").
const INTRODUCE: &[&str] = &[
    "=", ":", "is", "are", "to", "of", "gives", "give", "be", "taken as",
];

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
    segments: &[Segment],
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
/// [`value_len`]), each taking the place of the old number in the same position. The marking
/// segment must be about the same thing ([`same_topic`], the old value's segment read with the
/// one before it; or all it names before the word of [`NEW`] is named by the old value's
/// segment: [`subject_in`]) or write the old value after the new one
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
    segments: &[Segment],
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
                .filter(|s| s.text != n)
                .map(|s| (s.text.as_str(), s.context.as_str(), false));
            for (s, context, itself) in others.chain(std::iter::once((marked, marked, true))) {
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
                    || same_topic(context, &n)
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

/// Whether segment `s` of a passage ([`in_context`]) states what change `c` (of another
/// passage) replaced: it writes every old value and none of the new ones that are not old
/// too, and is about what the change is about (read with the segment before it).
fn outdated_by(s: &Segment, c: &Change) -> bool {
    let old = c.old.items();
    old.iter().all(|n| c.old.written_in(&s.text, n))
        && !c
            .new
            .items()
            .iter()
            .any(|n| !old.contains(n) && c.new.written_in(&s.text, n))
        && (c.everywhere || same_topic(&s.context, &c.segment))
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
    if !asks_latest(&q) || asks_earlier(&q) {
        return Vec::new();
    }
    let segments: Vec<Segment> = shown
        .iter()
        .filter_map(|&i| used.get(i))
        .flat_map(|p| in_context(&p.text))
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
    let segments: Vec<Vec<Segment>> = passages.iter().map(|p| in_context(&p.text)).collect();
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
