//! Categories named by how many jets, b tags or leptons they hold ("the 0j SR", "2-jet",
//! "≥2b", "the 4l CR", "events with exactly one jet"): a value the cited segments state only
//! for another number of them than the question names does not answer it, and a question
//! naming a number that none of the shown passages writes asks about a category they do not
//! have (English notes and questions; texts here are [`crate::focus::phrase_text`]).

use std::sync::LazyLock;

use regex::Regex;

/// What a category counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Object {
    Jet,
    BTag,
    Lepton,
}

/// One multiplicity a text names: `n` of `object`, or at least `n` ("≥2j", "2+ jets", "two or
/// more jets").
#[derive(Clone, Debug, PartialEq, Eq)]
struct Multiplicity {
    object: Object,
    n: u32,
    at_least: bool,
    /// The words naming it, as written ("2-jet").
    written: String,
}

impl Multiplicity {
    /// Whether a value stated for `self` may be the one asked for `asked`: the same number, or
    /// one inside the other's open range ("3j" in "≥2j", "≥2j" for "2-jet", which analyses
    /// also write for the category of two jets and more).
    fn meets(&self, asked: &Multiplicity) -> bool {
        self.object == asked.object
            && (self.n == asked.n
                || (asked.at_least && self.n >= asked.n)
                || (self.at_least && asked.n >= self.n))
    }
}

/// The objects, each with the words naming it after a number: letters glued to the digit
/// ("2j", "0b", "4l", "3ℓ") and words ("2 jets", "1-lep", "2 b-tagged jets").
const OBJECTS: &[(Object, &str, &str)] = &[
    (Object::Jet, "j", "jets?"),
    (
        Object::BTag,
        "b",
        "b-?tagged jets?|b-?tags?|b-?tagged|b[- ]?jets?|btags?",
    ),
    (Object::Lepton, "l|ℓ", "leptons?|leps?"),
];

/// The largest number of objects a category is named by; a larger number before "jets" is a
/// count of something else.
const MOST: u32 = 12;

/// Small numbers in words ("exactly one jet", "no b tags", "two or more jets").
const WORDS: &[(&str, u32)] = &[
    ("no", 0),
    ("zero", 0),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
];

/// Words that name a number of objects without a digit, read only as mentions in passages
/// ([`unwritten`]): a question asking for "the two-lepton channel" is answered by a note
/// writing "dilepton", but a "dijet mass" is no category of two jets.
const LOOSE: &[(Object, u32, &str)] = &[
    (Object::Jet, 1, "+jet"),
    (Object::Jet, 1, "monojet"),
    (Object::Jet, 1, "single-jet"),
    (Object::Jet, 2, "dijet"),
    (Object::Jet, 3, "trijet"),
    // A Z or a lepton pair with two jets (realistic21 SMP-26-171-q01: "Z+2-jet" events in a
    // table of "QCD Zjj" yields).
    (Object::Jet, 2, "zjj"),
    (Object::Jet, 2, "lljj"),
    (Object::Jet, 2, "ℓℓjj"),
    (Object::Lepton, 1, "single-lepton"),
    (Object::Lepton, 1, "single lepton"),
    (Object::Lepton, 1, "single-muon"),
    (Object::Lepton, 1, "single-electron"),
    (Object::Lepton, 2, "dilepton"),
    (Object::Lepton, 2, "dimuon"),
    (Object::Lepton, 2, "dielectron"),
    (Object::Lepton, 3, "trilepton"),
    // A final state without leptons (realistic21 EXO-26-157-q04: "the 0ℓ signal sample" of a
    // search "in the fully hadronic final state").
    (Object::Lepton, 0, "fully hadronic"),
    (Object::Lepton, 0, "fully-hadronic"),
    (Object::Lepton, 0, "all-hadronic"),
    (Object::Lepton, 0, "all hadronic"),
    (Object::Lepton, 0, "lepton veto"),
    (Object::Lepton, 0, "zero-lepton"),
    (Object::Lepton, 0, "0-lepton"),
];

/// One object's patterns: a number before its words, a number in words, "N or more", a
/// variable ("n_jets = 2", "nb ≥ 1") and a list ("0 and 1 jet", "1, 2 and 3 jets").
struct Patterns {
    object: Object,
    digits: Regex,
    worded: Regex,
    or_more: Regex,
    variable: Regex,
    listed: Regex,
}

/// Word numbers as one alternation ("no|zero|one|…").
fn word_numbers() -> String {
    WORDS.iter().map(|(w, _)| *w).collect::<Vec<_>>().join("|")
}

static PATTERNS: LazyLock<Vec<Patterns>> = LazyLock::new(|| {
    let numbers = word_numbers();
    OBJECTS
        .iter()
        .map(|&(object, letters, words)| {
            let any = format!("(?:{words}|{letters})");
            let build = |p: String| Regex::new(&p).expect("multiplicity pattern");
            Patterns {
                object,
                // A letter only right after the digit ("2j", "≥2b"), a word after a space or
                // hyphen too ("2 jets", "1-lep").
                digits: build(format!(
                    r"(≥|>=|>|at least )?\s*(\d+)(\+)?(?:(?:{letters})|\s*-?\s*(?:{words}))(?:[^\w]|$)"
                )),
                worded: build(format!(
                    r"\b(at least |exactly )?({numbers})[- ](?:{words})(?:[^\w]|$)"
                )),
                or_more: build(format!(
                    r"\b(\d+|{numbers}) or more (?:{words})(?:[^\w]|$)"
                )),
                variable: build(format!(r"\bn_?\{{?{any}\}}?\s*(=|≥|>=|>)\s*(\d+)")),
                listed: build(format!(
                    r"(\d+)\s*(?:,|and|or)\s*(?:\d+\s*(?:,|and|or)\s*)*\d+\s*-?\s*(?:{any})(?:[^\w]|$)"
                )),
            }
        })
        .collect()
});

/// The number a word or digits say.
fn number(s: &str) -> Option<u32> {
    s.parse()
        .ok()
        .or_else(|| WORDS.iter().find(|(w, _)| *w == s).map(|&(_, n)| n))
}

/// Whether the match at `start` follows a character that makes its digits part of something
/// else: a longer number or word ("2.4 jets", "x2j"), a range ("0-2 jets"), a year ("'22
/// jets").
fn glued(text: &str, start: usize) -> bool {
    text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | ',' | '_' | '-' | '\'' | '’'))
}

/// The multiplicities `text` (phrase text) names in the forms written for a category.
fn named(text: &str) -> Vec<Multiplicity> {
    let mut out = Vec::new();
    for p in PATTERNS.iter() {
        let mut push = |n: Option<u32>, at_least: bool, written: &str| {
            if let Some(n) = n.filter(|&n| n <= MOST) {
                out.push(Multiplicity {
                    object: p.object,
                    n,
                    at_least,
                    written: written
                        .trim()
                        .trim_end_matches(|c: char| !c.is_alphanumeric())
                        .into(),
                });
            }
        };
        for c in p.digits.captures_iter(text) {
            let (Some(all), Some(n)) = (c.get(0), c.get(2)) else {
                continue;
            };
            let at = if c.get(1).is_some() {
                all.start()
            } else {
                n.start()
            };
            if !glued(text, at) {
                push(
                    number(n.as_str()),
                    c.get(1).is_some() || c.get(3).is_some(),
                    all.as_str(),
                );
            }
        }
        for c in p.worded.captures_iter(text) {
            let at_least = c.get(1).is_some_and(|m| m.as_str().starts_with("at"));
            push(c.get(2).and_then(|m| number(m.as_str())), at_least, &c[0]);
        }
        for c in p.or_more.captures_iter(text) {
            push(c.get(1).and_then(|m| number(m.as_str())), true, &c[0]);
        }
        for c in p.variable.captures_iter(text) {
            let at_least = c.get(1).is_some_and(|m| m.as_str() != "=");
            push(c.get(2).and_then(|m| number(m.as_str())), at_least, &c[0]);
        }
        // Every number of a list but its last, which `digits` reads.
        for c in p.listed.captures_iter(text) {
            if c.get(1).is_some_and(|m| !glued(text, m.start())) {
                for n in c[0]
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|d| !d.is_empty())
                {
                    push(number(n), false, &c[0]);
                }
            }
        }
    }
    out
}

/// The multiplicities a passage mentions: those [`named`], and the words of [`LOOSE`].
fn mentioned(text: &str) -> Vec<Multiplicity> {
    let mut out = named(text);
    for &(object, n, word) in LOOSE {
        if text.contains(word) {
            out.push(Multiplicity {
                object,
                n,
                at_least: false,
                written: word.into(),
            });
        }
    }
    out
}

/// The multiplicities `question` (phrase text) names in digits that `passages` (phrase text) do not
/// mention in any form ([`mentioned`], [`Multiplicity::meets`] either way): "the 2-jet SR"
/// where the notes have only 0j and 1j regions ("events with two or more jets are rejected"
/// mentions two), "R43 (4j/3j)" where they write 2- and 3-jet events. Each as written in
/// the question, once.
pub(crate) fn unwritten(question: &str, passages: &str) -> Vec<String> {
    // In digits only: notes name the category of "the two-lepton channel" in their own
    // words ("DL"), the "2L" of a question is a label they write.
    let asked: Vec<Multiplicity> = named(question)
        .into_iter()
        .filter(|m| m.written.contains(|c: char| c.is_ascii_digit()))
        .collect();
    if asked.is_empty() {
        return Vec::new();
    }
    let written = mentioned(passages);
    let mut out: Vec<String> = Vec::new();
    for a in asked {
        if !written.iter().any(|w| w.meets(&a) || a.meets(w)) && !out.contains(&a.written) {
            out.push(a.written);
        }
    }
    out
}

/// Whether the question (phrase text) names one multiplicity of an object, and every segment
/// in `writing` (phrase text) names multiplicities of that object, none that one
/// ([`Multiplicity::meets`]): "602 events" in the row "0j-1" for "observed yield in the 2-jet
/// SR". A segment naming none is not judged (a value for all categories).
pub(crate) fn other(question: &str, writing: &[String]) -> bool {
    let asked = named(question);
    let segments: Vec<Vec<Multiplicity>> = writing.iter().map(|s| named(s)).collect();
    asked.iter().any(|a| {
        asked.iter().filter(|b| b.object == a.object).count() == 1
            && segments.iter().all(|named| {
                let same: Vec<&Multiplicity> =
                    named.iter().filter(|m| m.object == a.object).collect();
                !same.is_empty() && !same.iter().any(|m| m.meets(a))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(Object, u32, bool)> {
        let mut v: Vec<(Object, u32, bool)> = named(text)
            .into_iter()
            .map(|m| (m.object, m.n, m.at_least))
            .collect();
        v.sort_by_key(|&(o, n, a)| (o as u8, n, a));
        v.dedup();
        v
    }

    #[test]
    fn categories_are_read_in_the_forms_notes_and_questions_write() {
        use Object::*;
        assert_eq!(read("observed yield in 2-jet sr"), [(Jet, 2, false)]);
        assert_eq!(read("0j sr ttbar+single top count"), [(Jet, 0, false)]);
        assert_eq!(read("| 0j-1 | 100-140 | 602 |"), [(Jet, 0, false)]);
        assert_eq!(read("exp unc for the >=2b resolved cat"), [(BTag, 2, true)]);
        assert_eq!(read("the ≥ 6 jet bin"), [(Jet, 6, true)]);
        assert_eq!(
            read("zz rescaling from the 4l fit, 4ℓ"),
            [(Lepton, 4, false)]
        );
        assert_eq!(read("the 1-lep fat-jet category"), [(Lepton, 1, false)]);
        assert_eq!(read("exactly 3 b jets"), [(BTag, 3, false)]);
        assert_eq!(read("no b-tagged jets"), [(BTag, 0, false)]);
        assert_eq!(read("with exactly one jet"), [(Jet, 1, false)]);
        assert_eq!(read("events with two or more jets"), [(Jet, 2, true)]);
        assert_eq!(read("obs yield nj=2, met bin"), [(Jet, 2, false)]);
        assert_eq!(read("n_b ≥ 1 (pnet m)"), [(BTag, 1, true)]);
        assert_eq!(
            read("separately for 0 and 1 jet"),
            [(Jet, 0, false), (Jet, 1, false)]
        );
        assert_eq!(
            read("the 1, 2 and 3 jet bins"),
            [(Jet, 1, false), (Jet, 2, false), (Jet, 3, false)]
        );
        assert_eq!(read("r43 (4j/3j)"), [(Jet, 3, false), (Jet, 4, false)]);
        // Not categories: a decimal, a range's end, a word glued before the digit.
        assert!(read("|η| < 2.4 jets").is_empty());
        assert!(read("pt > 30 gev jets").is_empty());
        assert!(read("hlt_isomu24 and ele32").is_empty());
        assert!(read("the dijet mass").is_empty());
        assert!(read("b-tag sf for '22 jets, 2000 jets").is_empty());
    }

    #[test]
    fn a_category_no_passage_has_is_unwritten() {
        let notes = "the signal regions are split by mt2 for events without jets (0j) and \
                     with exactly one jet (1j). events with two or more jets are rejected.";
        assert!(unwritten("observed yield in the 1j sr", notes).is_empty());
        // "two or more jets" mentions two: the question may be about the veto.
        assert!(unwritten("why veto 2-jet events?", notes).is_empty());
        // An open category mentions the counts above it.
        assert!(unwritten("yield with 4 jets?", notes).is_empty());
        let ratio = "the ratio r32 of 3-jet to 2-jet event rates, in bins of ht2/2.";
        assert_eq!(unwritten("r43 (4j/3j) in the first bin?", ratio), ["4j"]);
        assert_eq!(unwritten("diff xsec in the ≥6 jet bin?", ratio), ["≥6 jet"]);
        // Loose words mention a category in passages ("dilepton" for two leptons).
        assert!(unwritten(
            "softer lepton pt in the two-lepton channel?",
            "the dilepton (dl) channel"
        )
        .is_empty());
        assert!(unwritten("how q-rich is dy+1j?", "the z+jet sample").is_empty());
        // A fully hadronic final state has no leptons (realistic21 EXO-26-157-q04).
        let hadronic = "a search in the fully hadronic final state; events with electrons or \
                        muons are rejected.";
        assert!(unwritten("which hlt path fills the 0ℓ signal sample?", hadronic).is_empty());
        assert_eq!(unwritten("yield in the 1ℓ cr?", hadronic), ["1ℓ"]);
        // "Zjj" is a Z with two jets (realistic21 SMP-26-171-q01).
        let zjj = "| channel | era | ew zjj | qcd zjj |";
        assert!(unwritten("how many non-ew z+2-jet events predicted for e⁺e⁻?", zjj).is_empty());
    }

    #[test]
    fn a_value_stated_only_for_another_category_does_not_answer() {
        let header = "| sr | mt2 [gev] | total pred. | observed |";
        let row = |r: &str| format!("{r} {header}");
        let writing = [row("| 0j-1 | 100-140 | 617 ± 31 | 602 |")];
        assert!(other("observed yield in 2-jet sr", &writing));
        assert!(!other(
            "observed yield in the 0j sr, lowest mt2 bin",
            &writing
        ));
        // A segment naming no category is not judged, nor a question naming two.
        assert!(!other(
            "observed yield in 2-jet sr",
            &["the total is 602.".into()]
        ));
        assert!(!other("r43 (4j/3j)?", &writing));
        // An open category holds the counts above it.
        assert!(!other(
            "yield with >=2b?",
            &["in the 3b category the yield is 41.".into()]
        ));
    }
}
