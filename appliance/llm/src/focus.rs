//! Whether an answer answers: sentences that only restate the question, and questions asking
//! for a quantity that the answer gives no number for (English questions).

use std::collections::HashSet;

use crate::{conditions, grounding, kinds};

/// Words that carry no content of their own (a sentence made of these and the question's words
/// states nothing).
const FILLER: &[&str] = &[
    "the",
    "and",
    "for",
    "are",
    "was",
    "were",
    "been",
    "being",
    "its",
    "this",
    "that",
    "these",
    "those",
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "how",
    "does",
    "did",
    "with",
    "from",
    "into",
    "about",
    "than",
    "then",
    "there",
    "their",
    "they",
    "them",
    "has",
    "have",
    "had",
    "use",
    "used",
    "uses",
    "using",
    "one",
    "ones",
    "any",
    "some",
    "all",
    "each",
    "per",
    "also",
    "very",
    "more",
    "most",
    "less",
    "when",
    "where",
    "why",
    "analysis",
    "analyses",
    "note",
    "notes",
    "excerpt",
    "excerpts",
    "passage",
    "passages",
    "given",
    "following",
    "listed",
    "mentioned",
    "stated",
    "described",
    "shown",
    "provided",
    "specified",
    "based",
    "can",
    "not",
    "will",
    "would",
    "should",
    "could",
    "here",
    "our",
    "your",
    "you",
    "his",
    "her",
];

/// Whether `word` (lower case) carries no content of its own ([`FILLER`]).
pub(crate) fn is_filler(word: &str) -> bool {
    FILLER.contains(&word)
}

/// Content words of `s`: letters or digits with inner hyphens or underscores, three characters
/// or more (or any number), case folded, a plural `s` dropped, filler words left out. A
/// symbol with a subscript is one word ("R_t", "F_L": their letters alone are too short to
/// count), and a letter with a bar over it is written out ("tt̄" is "ttbar", "σ(t̄q)" holds
/// "tbarq"), as physicists type them.
pub(crate) fn content(s: &str) -> HashSet<String> {
    let s = barred(s);
    s.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.' || c == '_'))
        .map(|w| {
            w.trim_matches(|c: char| c == '-' || c == '.' || c == '_')
                .to_lowercase()
        })
        .filter(|w| {
            w.chars().any(|c| c.is_ascii_digit())
                || (w.chars().count() >= 3 && !FILLER.contains(&w.as_str()))
        })
        .map(|w| singular(&w))
        .collect()
}

/// `s` with each combining bar (macron U+0304, overline U+0305) after a letter written as
/// "bar" ("t̄" is "tbar").
fn barred(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\u{304}', '\u{305}']) {
        s.replace(['\u{304}', '\u{305}'], "bar").into()
    } else {
        s.into()
    }
}

/// `w` without a plural `s` where three characters or more remain and it does not end in
/// "ss" ("jets" → "jet"; "bias", "loss" kept).
pub(crate) fn singular(w: &str) -> String {
    match w.strip_suffix('s') {
        Some(stem) if stem.chars().count() >= 3 && !w.ends_with("ss") => stem.to_string(),
        _ => w.to_string(),
    }
}

/// Words (as [`content`] reads them) that point to where an answer would be without giving it:
/// "This can be found in Excerpts [3].", "as stated in the analysis notes".
const POINTERS: &[&str] = &[
    "can",
    "could",
    "found",
    "find",
    "see",
    "excerpt",
    "shown",
    "show",
    "stated",
    "state",
    "given",
    "listed",
    "described",
    "mentioned",
    "indicated",
    "reported",
    "provided",
    "according",
    "analysi",
    "note",
    "document",
    "information",
    "detail",
];

/// [`content`] words without a past ending, where three letters or more remain ("added" →
/// "add"; not "used", whose stem would be too short to compare), and without words only
/// pointing to the passages ([`POINTERS`]).
fn content_stems(s: &str) -> HashSet<String> {
    content(s)
        .into_iter()
        .filter(|w| !POINTERS.contains(&w.as_str()))
        .map(|w| match w.strip_suffix("ed") {
            Some(stem) if stem.chars().count() >= 3 => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// Whether `claim` (a sentence without its citation marks) states nothing the question does
/// not: "The b-tagging working point used is [1]." asked "Which b-tagging working point is
/// used?", or "The JES uncertainty … is given in the notes." asked "JES unc …?" (an
/// abbreviation by its opening letters). Such a sentence is not an answer, whatever a judge
/// says of it.
///
/// A yes/no or either/or question ("Is it a BDT or a DNN?") is answered in its own words, so
/// no sentence restates one.
pub fn restates(question: &str, claim: &str) -> bool {
    if is_closed(question) {
        return false;
    }
    // Superscripts as digits: "10 ab⁻¹" states "ab-1", which "for the 10 TeV run" does not.
    let q = content_stems(&grounding::normalize(question));
    content_stems(&grounding::normalize(claim))
        .iter()
        .all(|w| q.contains(w) || q.iter().any(|a| abbreviates(a, w)))
}

/// Whether question word `short` is an abbreviation of claim word `word` by its opening
/// letters, as physicists type them ("unc" for uncertainty, "ideo" for ideogram, "lumi" for
/// luminosity): three letters or more, and `word` longer and no symbol or identifier joined
/// with underscores ("HLT" does not abbreviate "HLT_VBF_DiPFJet125").
fn abbreviates(short: &str, word: &str) -> bool {
    short.chars().count() >= 3
        && short.chars().all(char::is_alphabetic)
        && !word.contains('_')
        && word.len() > short.len()
        && word.starts_with(short)
}

/// Whether `question` is a yes/no question (it opens with an auxiliary verb) or an
/// either/or one (it has "or" or "whether").
pub(crate) fn is_closed(question: &str) -> bool {
    let lower = question.to_lowercase();
    let mut words = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    words.next().is_some_and(|w| AUXILIARIES.contains(&w))
        || words.any(|w| w == "or" || w == "whether")
}

/// Auxiliary verbs that open a yes/no question ([`is_closed`]).
const AUXILIARIES: &[&str] = &[
    "is", "are", "does", "do", "did", "was", "were", "can", "could", "has", "have", "had", "will",
    "would", "should",
];

/// Words of a number written out; the first thirteen are zero to twelve, in order
/// ([`number_word`]).
const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "fifteen", "twenty", "thirty", "fifty", "hundred", "thousand", "million",
    "half", "twice", "dozen",
];

/// The word a whole number up to twelve is written out as ("three" for 3).
pub(crate) fn number_word(n: usize) -> Option<&'static str> {
    NUMBER_WORDS[..13].get(n).copied()
}

/// Whether `text` writes a number in words; "one" only where `count` (the question asks how
/// many: "one major request" gives no precision).
fn states_number_word(text: &str, count: bool) -> bool {
    text.split(|c: char| !c.is_alphabetic()).any(|w| {
        let w = w.to_lowercase();
        NUMBER_WORDS.contains(&w.as_str()) && (count || w != "one")
    })
}

/// Phrases of a question that asks when: a year answers it.
const WHEN: &[&str] = &["when", "year", "years", "date", "since", "until"];

/// Whether `claim` gives a number as an answer to `question`: one in words ("one" for a count
/// only), or in digits that the question does not write ("Run 3" restated from the question
/// gives none), that do not number a table, figure or section ("given in Table 2" gives
/// none) and that are no year, unless the question asks when ("calibrated at the SPS in
/// 2018" gives no MPV).
pub fn gives_number(question: &str, claim: &str) -> bool {
    let q = phrase_text(question);
    let count = ["how many", "number of", "count"]
        .iter()
        .any(|p| has_phrase(&q, p));
    let claim = without_references(claim);
    let years: Vec<String> = if WHEN.iter().any(|p| has_phrase(&q, p)) {
        Vec::new()
    } else {
        conditions::years(&phrase_text(&claim))
            .into_iter()
            .map(|(y, _)| y.to_string())
            .collect()
    };
    states_number_word(&claim, count)
        || kinds::values(question, &claim)
            .iter()
            .any(|(n, _)| !years.contains(n))
}

/// Words that a number after them points with: "Table 2", "Fig. 3", "Section 4.1".
const REFERENCES: &[&str] = &[
    "table",
    "tables",
    "fig",
    "figs",
    "figure",
    "figures",
    "section",
    "sections",
    "sec",
    "appendix",
    "eq",
    "eqs",
    "equation",
    "equations",
    "ref",
    "refs",
    "chapter",
    "page",
    "pages",
    "excerpt",
    "excerpts",
    "line",
    "lines",
    "slide",
    "slides",
];

/// `claim` without the numbers that point to a part of a document ([`REFERENCES`]).
pub(crate) fn without_references(claim: &str) -> String {
    let words: Vec<&str> = claim.split_whitespace().collect();
    let points = |w: &str| {
        let w = w.trim_end_matches(['.', ':']).to_lowercase();
        REFERENCES.contains(&w.as_str())
    };
    words
        .iter()
        .enumerate()
        .filter(|&(i, w)| {
            !(i > 0 && points(words[i - 1]) && w.starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Phrases of a question that asks for a quantity ("how many", "in percent", "in GeV").
const QUANTITY: &[&str] = &[
    "how many",
    "how much",
    "how large",
    "how big",
    "how high",
    "how low",
    "how far",
    "how tight",
    "how wide",
    "how long",
    "how strong",
    "how heavy",
    "how often",
    "how precise",
    "how dominant",
    "how soft",
    "how hard",
    "how energetic",
    "how efficient",
    "how pure",
    "how lossy",
    "how finely",
    "how deep",
    "how narrow",
    "how small",
    "how fast",
    "how slow",
    "how thick",
    "how heavy",
    "how massive",
    "how loose",
    "by how",
    "what percentage",
    "what fraction",
    "what share",
    "what value",
    "what number",
    "numerically",
    "any number",
    "percent",
    "in units of",
];

/// Units whose mention after "in" ("in GeV", "in inverse femtobarns") asks for a quantity.
/// (No one-letter units: "in s-channel" is not "in seconds".)
const UNITS: &[&str] = &[
    "ev", "kev", "mev", "gev", "tev", "fb", "pb", "nb", "inverse", "cm", "mm", "µm", "um", "nm",
    "km", "ns", "ps", "µs", "us", "ms", "sec", "seconds", "hz", "khz", "mhz", "ghz", "rad",
    "radians", "mrad", "degrees", "sigma", "σ", "tesla", "kg", "bytes", "gb", "tb",
];

/// Nouns that name a quantity: "what is the expected significance?" asks for a number.
/// (Not "uncertainty" or "background": "what is the leading uncertainty?" asks for a name.)
const QUANTITY_NOUNS: &[&str] = &[
    "significance",
    "luminosity",
    "threshold",
    "efficiency",
    "resolution",
    "lifetime",
    "acceptance",
    "cross section",
    "cross-section",
    "branching ratio",
    "branching fraction",
    "upper limit",
    "lower limit",
    "signal strength",
    "scale factor",
    "sf",
    "precision",
    "lumi",
    "mpv",
    "most probable value",
    "offset",
    "correction",
    "norm",
    "normalisation",
    "normalization",
    // A nuclear modification factor, a width, a response, a rate (a mistag, fake, trigger or
    // event rate: the last word decides), an exclusion reach: values (realistic7
    // HIN-25-006-q07: "oxygen 50-70% R_AA at high pt?" answered with prose).
    "r_aa",
    "raa",
    "width",
    "response",
    "rate",
    "reach",
    "exclusion",
    "excl",
    // A limit, a value, a current, an angle (a Lorentz angle, "LA"): realistic8
    // SMP-26-003-q07 ("afb value in the … bin?"), realistic9 HIG-26-014-q08 ("lim from '24
    // data only?"), TRK-26-006-q08/q09 ("L1 inner LA right after …", "leakage current per
    // module …") answered with prose or years.
    "limit",
    "lim",
    "value",
    "current",
    "angle",
    "la",
    // Cross sections, ratios, fractions, yields, signal strengths and bounds as physicists type
    // them (realistic16 HIN-26-021-q08 "coherent psi(2S) xsec per neutron class?" and
    // HIG-26-031-q07 "ggf mu from 2024 data alone", answered with prose); not "uncertainty":
    // "the leading systematic uncertainty" is a name.
    "xsec",
    "x-sec",
    "ratio",
    "fraction",
    "yield",
    "purity",
    "contamination",
    "bound",
    "mu",
    "μ",
    // A band's spread (realistic10 B2G-26-009-q02 "1-sigma spread on the median sensitivity
    // for a 5000 GeV resonance?", answered with prose).
    "spread",
    "band",
];

/// Words after which the noun phrase a "what" question asks about ends (verbs of coming out
/// too: "what SF comes out for DM1"; a bound of a bin: "k0s raa above 20 gev").
const PHRASE_END: &[&str] = &[
    "of", "on", "for", "per", "in", "at", "does", "do", "did", "is", "are", "was", "were", "has",
    "have", "had", "with", "w/", "from", "to", "by", "after", "before", "that", "which", "used",
    "they", "comes", "come", "came", "goes", "went", "gets", "got", "ends", "turns", "above",
    "below", "between", "under", "within", "beyond",
];

/// Verbs that can follow "what" directly ("what motivates the width", "what sets the
/// threshold"): the question then asks for a reason or a cause, not the quantity.
const WHAT_VERBS: &[&str] = &[
    "motivates",
    "sets",
    "limits",
    "determines",
    "drives",
    "dominates",
    "causes",
    "explains",
    "defines",
    "fixes",
    "makes",
    "affects",
    "changes",
];

/// Words besides the [`AUXILIARIES`] that open a question or a request other than a
/// "what/which" one or a fragment.
const OPENERS: &[&str] = &[
    "how",
    "why",
    "where",
    "when",
    "who",
    "whom",
    "whose",
    "whether",
    "if",
    "shall",
    "may",
    "might",
    "must",
    "tell",
    "give",
    "name",
    "list",
    "remind",
    "describe",
    "explain",
    "walk",
    "show",
    "summarise",
    "summarize",
    "please",
    "any",
    "so",
    "and",
    "but",
    "i",
    "we",
    "you",
    "they",
    "it",
    "there",
    "hey",
    "ok",
];

/// Whether the thing a "what/which" question, or a fragment ("κλ precision at 3 TeV?"), asks
/// about is a quantity noun: "what is the expected significance of …", "what mistag rate does
/// … have".
fn asks_for_quantity_noun(q: &str) -> bool {
    // A remark in parentheses ("(the legacy paper)") is not part of the phrase; a state's
    // label ("psi(2S)") is.
    let q = q.split(" (").next().unwrap_or_default();
    let words: Vec<&str> = q
        .split(|c: char| c.is_whitespace() || c == '?' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let Some(first) = words.first() else {
        return false;
    };
    let mut rest = match *first {
        "what" | "which" | "what's" => &words[1..],
        // A fragment ("κλ precision at the 3 TeV stage?") is the phrase itself.
        w if !OPENERS.contains(&w) && !AUXILIARIES.contains(&w) => &words[..],
        _ => return false,
    };
    if let Some((w, tail)) = rest.split_first() {
        if WHAT_VERBS.contains(w) {
            return false;
        }
        if ["is", "was", "are", "were"].contains(w) {
            rest = tail;
        }
    }
    if let Some((w, tail)) = rest.split_first() {
        if ["the", "a", "an"].contains(w) {
            rest = tail;
        }
    }
    let end = (0..rest.len())
        .position(|i| {
            PHRASE_END.contains(&rest[i])
                || (JUST.contains(&rest[i])
                    && rest
                        .get(i + 1)
                        .is_some_and(|n| ["after", "before"].contains(n)))
        })
        .unwrap_or(rest.len());
    let phrase = &rest[..end];
    // "which correction" picks one by its name.
    let which = *first == "which";
    let last = |n: usize| {
        phrase.len() >= n && {
            let noun = phrase[phrase.len() - n..].join(" ");
            QUANTITY_NOUNS.contains(&noun.as_str()) && !(which && NAMED.contains(&noun.as_str()))
        }
    };
    last(1) || last(2)
}

/// Quantity nouns that also name a thing one picks by its name ("which correction do we
/// apply?").
const NAMED: &[&str] = &[
    "correction",
    "offset",
    "norm",
    "normalisation",
    "normalization",
    "limit",
];

/// Adverbs that, before "after" or "before", end a noun phrase as those do ("the LA right
/// after the replacement").
const JUST: &[&str] = &["right", "just", "shortly", "immediately"];

/// `question` as the phrase lists read it: lower case, each run of white space one space.
pub(crate) fn phrase_text(question: &str) -> String {
    question
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `phrase` occurs in `q` ([`phrase_text`]) as whole words.
pub(crate) fn has_phrase(q: &str, phrase: &str) -> bool {
    let word = char::is_alphanumeric;
    grounding::occurs(q, phrase, word, word)
}

/// Words that make a question ask why: "why", "reason", "rationale", "motivation", "how
/// come", "justify" (not "what for": "what for '23?" asks for a value).
const WHY: &[&str] = &[
    "why",
    "reason",
    "reasons",
    "reasoning",
    "rationale",
    "motivation",
    "motivate",
    "motivates",
    "motivated",
    "justification",
    "justify",
    "justifies",
    "justified",
    "purpose",
];

/// Whether `question` asks why (a reason, a rationale, a motivation): its answer is a
/// sentence of prose, not a table's cell.
pub fn asks_why(question: &str) -> bool {
    let q = question.to_lowercase();
    let words: Vec<&str> = q.split(|c: char| !c.is_alphanumeric()).collect();
    words.iter().any(|w| WHY.contains(w)) || words.windows(2).any(|p| p == ["how", "come"])
}

/// Whether `question` asks for a quantity, so that an answer without a number does not answer
/// it.
pub fn asks_for_number(question: &str) -> bool {
    let q = phrase_text(question);
    // "What criterion fixes how many terms …?" asks for the criterion: a quantity phrase
    // inside a question opening with "what" or "which" and a noun is that noun's clause.
    let mut words = q.split_whitespace();
    let opens_with_noun = matches!(words.next(), Some("what" | "which"))
        && words
            .next()
            .is_some_and(|w| !matches!(w, "is" | "was" | "are" | "were" | "do" | "does" | "did"));
    let embedded = |p: &&str| opens_with_noun && q.find(p).is_some_and(|at| at > 0);
    if QUANTITY.iter().any(|p| has_phrase(&q, p) && !embedded(p)) || asks_for_quantity_noun(&q) {
        return true;
    }
    let words: Vec<&str> = q
        .split(|c: char| !(c.is_alphanumeric() || c == 'µ' || c == 'σ'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "in" && UNITS.contains(&w[1]))
}

#[cfg(test)]
mod tests;
