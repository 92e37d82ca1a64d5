//! Qualifiers that tell a fact from its neighbour (expected or observed, electron or muon,
//! signal or control region): a value the cited passages write only beside another qualifier
//! than the question names does not answer it (English notes and questions).

use crate::{focus, grounding, kinds};

/// Spellings of an expected value ("predicted", "sensitivity" too).
const EXPECTED: &[&str] = &[
    "expected",
    "expect",
    "expects",
    "a priori",
    "a-priori",
    "predicted",
    "prediction",
    "sensitivity",
];

/// Spellings of an observed value ("measured", "fitted" too).
const OBSERVED: &[&str] = &["observed", "observe", "observes", "measured", "fitted"];

/// Groups of mutually exclusive qualifiers; each member lists its spellings (lower case, whole
/// words). A member's spellings include the words notes use for it in other terms ("predicted"
/// for expected, "measured" for observed), so that a value stated in those terms is not taken
/// for the other member's. Only qualifiers that notes state beside the value they qualify are
/// listed: data/simulation is not, as notes often leave the default implicit; years are judged
/// apart, clause by clause ([`other_year`]: "26 GeV, 24 GeV in 2016"). In the group of
/// [`EXPECTED`] and [`OBSERVED`], a limit stated with neither is the observed one
/// ([`observed_by_default`]).
const GROUPS: &[&[&[&str]]] = &[
    &[EXPECTED, OBSERVED],
    &[&["majorana"], &["dirac"]],
    // Quarkonium states: "Υ(2S)", "ψ(2S)", "the 3S".
    &[&["1s"], &["2s"], &["3s"]],
    // How often a tagger keeps the real thing, or takes something else for it.
    &[
        &["efficiency", "efficiencies", "eff", "efficient"],
        &[
            "misidentification",
            "misidentified",
            "mis-identification",
            "misid",
            "mistag",
            "mistags",
            "mis-tag",
            "mistagging",
            "fake rate",
            "fake rates",
            "fake-rate",
        ],
    ],
    &[
        &["electron", "electrons", "dielectron", "ee", "e+e-"],
        &["muon", "muons", "dimuon", "μ", "μμ", "mu"],
    ],
    &[&["leading"], &["subleading", "sub-leading", "trailing"]],
    &[&["barrel"], &["endcap", "endcaps", "end-cap", "end-caps"]],
    &[
        &["signal region", "signal regions"],
        &[
            "control region",
            "control regions",
            "sideband",
            "sidebands",
            "side-band",
            "side-bands",
        ],
        &["validation region", "validation regions"],
    ],
];

/// Whether `text` ([`focus::phrase_text`]) names a member with these spellings.
fn names(text: &str, member: &[&str]) -> bool {
    member.iter().any(|p| focus::has_phrase(text, p))
}

/// Whether `text` ([`focus::phrase_text`]) names a member only after "not" ("the expected
/// (not observed) limit").
fn negated(text: &str, member: &[&str]) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '+')
        .filter(|w| !w.is_empty())
        .collect();
    let named: Vec<usize> = (0..words.len())
        .filter(|&i| member.iter().any(|m| m.split(' ').next() == Some(words[i])))
        .collect();
    !named.is_empty() && named.iter().all(|&i| i > 0 && words[i - 1] == "not")
}

/// The segments of `text`, normalised ([`grounding::normalize`], [`focus::phrase_text`]):
/// its sentences and list items ([`grounding::sentence_ends`]), and its table rows, each read
/// with its table's header row (where a column names the qualifier: "Best observed limit").
pub(crate) fn segments(text: &str) -> Vec<String> {
    read_segments(text, false)
}

/// The longest line read as a table's caption ([`read_segments`]).
const CAPTION_BYTES: usize = 200;

/// [`segments`], each table row read, with `captions`, also with the line just before its
/// table where that is one short sentence and no list item: a caption or heading ("8. Results
/// (0–90 %, integrated)") often holds the qualifier of every row; a paragraph does not.
fn read_segments(text: &str, captions: bool) -> Vec<String> {
    let text = grounding::normalize(text);
    let mut out = Vec::new();
    let mut header: Option<&str> = None;
    let mut before: Option<&str> = None;
    for line in text.lines() {
        let row = line.trim();
        if row.starts_with('|') {
            if row.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
                continue;
            }
            let caption = before
                .filter(|c| {
                    captions
                        && c.len() <= CAPTION_BYTES
                        && !c.starts_with(['*', '-', '+', '•'])
                        && grounding::sentence_ends(c).iter().all(|&e| e == c.len())
                })
                .unwrap_or("");
            match header {
                None => {
                    header = Some(row);
                    out.push(focus::phrase_text(&format!("{row} {caption}")));
                }
                Some(h) => out.push(focus::phrase_text(&format!("{row} {h} {caption}"))),
            }
            continue;
        }
        header = None;
        if !row.is_empty() {
            before = Some(row);
        }
        let mut from = 0;
        for end in grounding::sentence_ends(line)
            .into_iter()
            .chain([line.len()])
        {
            let s = focus::phrase_text(&line[from..end]);
            if !s.is_empty() {
                out.push(s);
            }
            from = end;
        }
    }
    out
}

/// Whether `claim` (an answer sentence to `question`, without its citation marks) gives a
/// value that `cited` writes only beside another qualifier than the one the question names:
/// the question names exactly one member of a group, and every segment of the cited passages
/// that writes all the numbers the claim asserts ([`kinds::values`]: not those inside names
/// such as HLT_IsoMu24) names another member of that group and not this one.
/// Example: "the observed CLs upper limit is 1.6 × 10⁻¹⁰" for "what is the expected upper
/// limit?". A claim asserting no number, or whose numbers no one segment writes, is not judged
/// here.
pub fn other_qualifier(question: &str, claim: &str, cited: &[&grounding::Passage]) -> bool {
    // Numbers inside names (the 24 of HLT_IsoMu24) are not values.
    let asserted: Vec<String> = kinds::values(question, claim)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    if asserted.is_empty() {
        return false;
    }
    let writing: Vec<String> = cited
        .iter()
        .flat_map(|p| read_segments(&p.text, true))
        .filter(|s| asserted.iter().all(|n| grounding::has_number(s, n)))
        .collect();
    if writing.is_empty() {
        return false;
    }
    let q = focus::phrase_text(&grounding::normalize(question));
    GROUPS.iter().any(|group| {
        // "the expected (not observed) limit" asks for one member.
        let asked: Vec<usize> = (0..group.len())
            .filter(|&i| names(&q, group[i]) && !negated(&q, group[i]))
            .collect();
        let [a] = asked[..] else {
            return false;
        };
        writing.iter().all(|s| {
            !names(s, group[a])
                && (group.iter().enumerate().any(|(i, m)| i != a && names(s, m))
                    || (group[a] == EXPECTED && observed_by_default(s)))
        })
    }) || other_year(&q, &asserted, &writing)
        || other_bin(&q, &writing)
        || other_label(&q, &writing)
}

/// Whether the question ([`focus::phrase_text`]) names one label of a family (letters, then a
/// number: "me1/1" of the muon stations, "dm10", "hlt_isomu24"), and every segment in
/// `writing` names labels of that family, none of them that one: an efficiency "(ME2–ME4)"
/// for "the trigger eff in ME1/1". A segment naming no label of the family is not judged.
fn other_label(question: &str, writing: &[String]) -> bool {
    let asked = labels(question);
    asked.iter().any(|(family, label)| {
        asked.iter().filter(|(f, _)| f == family).count() == 1
            && writing.iter().all(|s| {
                let named: Vec<(String, String)> =
                    labels(s).into_iter().filter(|(f, _)| f == family).collect();
                !named.is_empty() && !named.iter().any(|(_, l)| l == label)
            })
    })
}

/// The labels `text` ([`focus::phrase_text`]) names, each with its family (the letters before
/// its first digit): words of letters (or "_") then a digit ("me1/1", "t2bw", "dm0"; "/" only
/// between digits). A range ("me2-me4", "me2-4") names the labels inside it.
fn labels(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let joins = |c: char| c.is_alphanumeric() || c == '_';
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let between_digits = c == '/'
            && k > 0
            && chars[k - 1].1.is_ascii_digit()
            && chars.get(k + 1).is_some_and(|n| n.1.is_ascii_digit());
        if joins(c) || between_digits {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            words.push((s, &text[s..i]));
        }
    }
    if let Some(s) = start {
        words.push((s, &text[s..]));
    }
    let mut last: Option<(usize, String, u32)> = None;
    for (at, word) in words {
        let digit = word.find(|c: char| c.is_ascii_digit());
        let Some(d) =
            digit.filter(|&d| d > 0 && word[..d].chars().all(|c| c.is_alphabetic() || c == '_'))
        else {
            // "me2-4": a bare number after a label ends a range.
            if let (Some((end, family, from)), Ok(to)) = (&last, word.parse::<u32>()) {
                if text[*end..at].trim() == "-" && *from < to && to - from < 20 {
                    out.extend((from + 1..=to).map(|n| (family.clone(), format!("{family}{n}"))));
                }
            }
            last = None;
            continue;
        };
        let family = word[..d].to_string();
        let number = word[d..].parse::<u32>().ok();
        if let (Some((end, f, from)), Some(to)) = (&last, number) {
            let gap = text[*end..at].trim();
            if *f == family && matches!(gap, "-" | "to") && *from < to && to - from < 20 {
                out.extend((from + 1..to).map(|n| (family.clone(), format!("{family}{n}"))));
            }
        }
        last = number.map(|n| (at + word.len(), family.clone(), n));
        out.push((family, word.to_string()));
    }
    out
}

/// Whether the question ([`focus::phrase_text`]) names one bin ("0-5%", "25 to 30 GeV"), and
/// every segment in `writing` names bins with the same unit, none of them that one: R_AA "in
/// 0–90 %" for "R_AA of the 3S in central events, 0-50%?". A segment naming no bin of that
/// unit is not judged (a value for all bins, or for the default one).
fn other_bin(question: &str, writing: &[String]) -> bool {
    let [asked] = bins(question)[..] else {
        return false;
    };
    writing.iter().all(|s| {
        let named: Vec<Bin> = bins(s).into_iter().filter(|b| b.2 == asked.2).collect();
        !named.is_empty() && !named.iter().any(|b| b.0 == asked.0 && b.1 == asked.1)
    })
}

/// A bin: its lower and upper edge as written, and the unit after it ("%", "gev", or "").
type Bin<'a> = (f64, f64, &'a str);

/// The bins `text` ([`focus::phrase_text`]) names: two numbers, the first the smaller, joined
/// by "-" or "to" ("0-5%", "25 to 30 gev", "1.5-2.5"), with the unit after the second. A
/// range of years ([`years`]) and a number inside a word ("me2-me4") are no bin.
fn bins(text: &str) -> Vec<Bin<'_>> {
    let numbers: Vec<(usize, usize, &str)> = numbers_at(text)
        .into_iter()
        .map(|(s, e)| (s, e, &text[s..e]))
        .collect();
    numbers
        .windows(2)
        .filter_map(|w| {
            let ((_, a_end, a), (b_start, b_end, b)) = (w[0], w[1]);
            let (x, y) = (a.parse::<f64>().ok()?, b.parse::<f64>().ok()?);
            let joined = matches!(text[a_end..b_start].trim(), "-" | "to");
            if !joined || x >= y || (is_year(a) && is_year(b)) {
                return None;
            }
            let after = text[b_end..].trim_start();
            let unit = if after.starts_with('%') {
                "%"
            } else {
                after
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .filter(|w| kinds::is_unit(w))
                    .unwrap_or("")
            };
            Some((x, y, unit))
        })
        .collect()
}

/// Where numbers are written in `text`: the byte ranges of digits with their decimal part
/// ("2.5", "2016"; a final "." not included), not inside a word or a longer number ("v14",
/// "hlt_mu50").
fn numbers_at(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut prev = None;
    let mut skip_to = 0;
    for (start, c) in text.char_indices() {
        let before = prev.replace(c);
        if start < skip_to
            || !c.is_ascii_digit()
            || before.is_some_and(|b| b.is_alphanumeric() || b == '.' || b == '_')
        {
            continue;
        }
        let len = text[start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len() - start);
        skip_to = start + len;
        out.push((
            start,
            start + text[start..skip_to].trim_end_matches('.').len(),
        ));
    }
    out
}

/// Words before a year that make it the bound of a period ("since 2018"), not the year asked.
const PERIOD: &[&str] = &[
    "since", "after", "before", "until", "till", "through", "from", "post", "pre", "by",
];

/// Whether the question ([`focus::phrase_text`]) names one year, and every segment in
/// `writing` names, in each clause that writes a number of `asserted`, only other years: "the
/// 2023 calibration gives a total uncertainty of 1.3%" for "what was the lumi uncertainty for
/// 2022?". A year is a qualifier only in the clause of its value: notes leave the default
/// year implicit ("26 GeV (24 GeV in 2016)" gives 26 GeV for 2017), so a clause naming no
/// year is not judged.
fn other_year(question: &str, asserted: &[String], writing: &[String]) -> bool {
    let asked = years(question);
    let [(year, at)] = asked[..] else {
        return false;
    };
    let before = question[..at].split_whitespace().next_back();
    if before.is_some_and(|w| PERIOD.contains(&w)) {
        return false;
    }
    writing.iter().all(|s| {
        let named: Vec<u16> = s
            .split([',', ';', '(', ')', ':'])
            .filter(|clause| asserted.iter().any(|n| grounding::has_number(clause, n)))
            .flat_map(|clause| years(clause).into_iter().map(|(y, _)| y))
            .collect();
        !named.is_empty() && !named.contains(&year)
    })
}

/// Whether `number` (digits as [`kinds::values`] gives them) is a year: 1990–2039 in four
/// digits.
pub(crate) fn is_year(number: &str) -> bool {
    number.len() == 4
        && number
            .parse::<u16>()
            .is_ok_and(|n| (1990..=2039).contains(&n))
}

/// The years `text` ([`focus::phrase_text`]) names, each with the byte offset where it is
/// written: 1990–2039 in four digits or as 'yy ("'18 data"), and the years inside a range
/// ("2016-2018"). A number before a unit ("2000 gev") or inside a longer one is no year.
fn years(text: &str) -> Vec<(u16, usize)> {
    let mut out: Vec<(u16, usize)> = Vec::new();
    let mut last_end = None;
    for (start, end) in numbers_at(text) {
        let (digits, after) = (&text[start..end], &text[end..]);
        let unit = after
            .strip_prefix(' ')
            .map(|r| r.split(|c: char| !c.is_alphanumeric() && c != '%').next())
            .is_some_and(|w| w.is_some_and(kinds::is_unit));
        if after.starts_with(char::is_alphanumeric) || unit {
            continue;
        }
        // "'18": the apostrophe opens the year (not a word's, as in "rock'18").
        let apostrophe = match text[..start].chars().next_back() {
            Some(c @ ('\'' | '’')) => Some(start - c.len_utf8()),
            _ => None,
        }
        .filter(|&o| {
            !text[..o]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        });
        let open = apostrophe.unwrap_or(start);
        let year = if is_year(digits) {
            digits.parse::<u16>().ok()
        } else if digits.len() == 2 && apostrophe.is_some() {
            match digits.parse::<u16>() {
                Ok(n @ 0..40) => Some(2000 + n),
                Ok(n @ 90..) => Some(1900 + n),
                _ => None,
            }
        } else {
            None
        };
        let Some(year) = year else {
            continue;
        };
        // "2016-2018", "2016 to 2018": the years between too.
        if let (Some(last), Some(&(from, _))) = (last_end, out.last()) {
            if matches!(text[last..open].trim(), "-" | "to") && from < year {
                out.extend((from + 1..year).map(|y| (y, open)));
            }
        }
        out.push((year, open));
        last_end = Some(end);
    }
    out
}

/// Words of a limit or an exclusion, which notes state unqualified when it is the observed one
/// ("W′_SSM excluded below 5.7 TeV"), and words of a projection, which make it an expected one.
const LIMIT: &[&str] = &[
    "limit",
    "limits",
    "exclude",
    "excludes",
    "excluded",
    "exclusion",
    "upper bound",
    "lower bound",
];
const PROJECTED: &[&str] = &["would", "could", "projected", "projection", "median"];

/// Whether `segment` ([`segments`]) states a limit that, naming neither expected nor observed,
/// is the observed one by the notes' convention.
fn observed_by_default(segment: &str) -> bool {
    let has = |p: &&str| focus::has_phrase(segment, p);
    !names(segment, EXPECTED)
        && !names(segment, OBSERVED)
        && LIMIT.iter().any(has)
        && !PROJECTED.iter().any(has)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(text: &str) -> grounding::Passage {
        grounding::Passage::of_text(text)
    }

    #[test]
    fn a_value_written_only_beside_another_qualifier_does_not_answer() {
        let p = passage(
            "## Results\n\n- B0 → μμ: fitted B = (0.7 +0.9 −0.8) × 10^-10, no significant \
             signal; the observed CLs upper limit is 1.6 × 10^-10 at 95% CL.\n- The \
             background-only hypothesis is excluded by 10 standard deviations.",
        );
        let q = "What is the expected 95% CL upper limit on B(B0 → μμ)?";
        assert!(other_qualifier(
            q,
            "The expected upper limit is 1.6 × 10^-10 at 95% CL.",
            &[&p]
        ));
        // Asked for the observed one: answered.
        assert!(!other_qualifier(
            "What is the observed 95% CL upper limit on B(B0 → μμ)?",
            "It is 1.6 × 10^-10.",
            &[&p]
        ));
        // No qualifier asked, or no number asserted: not judged here.
        assert!(!other_qualifier(
            "What is the 95% CL upper limit on B(B0 → μμ)?",
            "It is 1.6 × 10^-10.",
            &[&p]
        ));
        assert!(!other_qualifier(q, "No significant signal is seen.", &[&p]));
    }

    #[test]
    fn another_state_or_a_negated_qualifier_does_not_answer() {
        let p = passage(
            "* total acceptance × efficiency for Υ(1S) integrated: 0.192 (PbPb), 0.231 (pp)\n\n\
             | State | R_AA |\n|---|---|\n| Υ(2S) | 0.12 ± 0.02 |",
        );
        let q = "what's acceptance x efficiency for the 2S in PbPb, integrated?";
        assert!(other_qualifier(
            q,
            "The acceptance × efficiency for Υ(1S) integrated is 0.192.",
            &[&p]
        ));
        assert!(!other_qualifier(
            "what's acceptance x efficiency for the 1S in PbPb?",
            "It is 0.192.",
            &[&p]
        ));
        assert!(!other_qualifier(
            "R_AA of the 2S?",
            "R_AA(Υ(2S)) = 0.12.",
            &[&p]
        ));
        // A tagger's misidentification rate is not its efficiency.
        let p = passage(
            "Tops are tagged with DeepAK8 at a working point with a 0.5% misidentification \
             rate for QCD jets. b jets: 78% efficiency and 1% mistag rate.",
        );
        let q = "what's the signal eff of the DeepAK8 top WP?";
        assert!(other_qualifier(q, "It is 0.5% for QCD jets.", &[&p]));
        assert!(!other_qualifier("b-tag eff at the M WP?", "78%.", &[&p]));
        assert!(!other_qualifier(
            "light mistag rate at the M WP?",
            "1%.",
            &[&p]
        ));
        // A limit stated unqualified is the observed one; a projection is not.
        let p = passage("W′_SSM excluded below 5.7 TeV. Lumi is 138 fb-1.");
        let q = "Before unblinding, up to what W′ mass did they expect to exclude?";
        assert!(other_qualifier(
            q,
            "They expected to exclude up to 5.7 TeV.",
            &[&p]
        ));
        assert!(!other_qualifier(q, "They used 138 fb-1.", &[&p]));
        assert!(!other_qualifier(
            "Up to what W′ mass did they exclude?",
            "Up to 5.7 TeV.",
            &[&p]
        ));
        let p = passage("With 300 fb-1 the search would exclude masses below 6.1 TeV.");
        assert!(!other_qualifier(q, "Up to 6.1 TeV.", &[&p]));
        // "expected (not observed)" asks for the expected one.
        let p = passage("The observed limit is B < 0.08 % at cτ = 1 m.");
        let q = "what's the expected (not observed) B(H→SS) limit at cτ = 1 m?";
        assert!(other_qualifier(q, "It is B < 0.08 %.", &[&p]));
        assert!(!other_qualifier(
            "what's the observed (not expected) limit at cτ = 1 m?",
            "It is B < 0.08 %.",
            &[&p]
        ));
    }

    #[test]
    fn a_value_of_another_year_does_not_answer() {
        // realistic4 lum-vdm-2023-q08: the 2023 calibration's uncertainty, asked for 2022.
        let p = passage(
            "The 2023 luminosity calibration based on vdM scans in fill 8999 gives a total \
             uncertainty of 1.3% on the integrated luminosity of 27.2 fb⁻¹ recorded at √s = \
             13.6 TeV.",
        );
        let q = "what was the total lumi unc for 2022?";
        assert!(other_qualifier(q, "It was 1.3%.", &[&p]));
        assert!(!other_qualifier(
            "what was the total lumi unc for 2023?",
            "1.3%.",
            &[&p]
        ));
        assert!(!other_qualifier("total lumi unc in '23?", "1.3%.", &[&p]));
        assert!(other_qualifier("total lumi unc in ’22?", "1.3%.", &[&p]));
        // A bound of a period, two years or none: not judged.
        assert!(!other_qualifier("what changed since 2022?", "1.3%.", &[&p]));
        assert!(!other_qualifier("lumi unc for '22+'23?", "1.3%.", &[&p]));
        assert!(!other_qualifier(
            "what was the total lumi unc?",
            "1.3%.",
            &[&p]
        ));
        // The default year is left implicit: only the clause of the value counts.
        let p = passage("The leading muon needs pT > 26 GeV (24 GeV in 2016).");
        let q = "What pT must the leading muon have in 2017?";
        assert!(!other_qualifier(q, "26 GeV.", &[&p]));
        assert!(other_qualifier(q, "24 GeV.", &[&p]));
        // A range names the years inside it; a mass is no year.
        let p = passage("The 2016-2018 data give 138 fb-1. The Z′ is excluded below 2035 GeV.");
        assert!(!other_qualifier("How much 2017 data?", "138 fb-1.", &[&p]));
        let named = |t: &str| years(t).into_iter().map(|(y, _)| y).collect::<Vec<_>>();
        assert!(named("excluded below 2035 gev, 2016.5, hlt_mu2017").is_empty());
        assert_eq!(named("'16 to '18, rock'n'roll'17"), [2016, 2017, 2018]);
        assert!(other_qualifier("How much 2022 data?", "138 fb-1.", &[&p]));
    }

    #[test]
    fn a_value_of_another_bin_does_not_answer() {
        // realistic3 hin-upsilon-q07/q08: the table's caption names its centrality bin.
        let p = passage(
            "8. Results (0–90 %, integrated, p_T < 30 GeV, |y| < 2.4)\n\n| state | R_AA |\n\
             |---|---|\n| Υ(1S) | 0.43 ± 0.01 (stat) ± 0.03 (syst) |\n| Υ(3S) | < 0.06 at 95 % \
             CL |\n\n* R_AA(3S, 50–90 %) = 0.29 ± 0.09 ± 0.05; R_AA(1S) in 0–5 % = 0.34 ± 0.02",
        );
        let q = "what's R_AA of the 3S in central events, 0-50%?";
        assert!(other_qualifier(q, "It is < 0.06 at 95% CL.", &[&p]));
        assert!(!other_qualifier("R_AA(3S), 0-90%?", "It is < 0.06.", &[&p]));
        assert!(!other_qualifier(
            "R_AA(3S), 50 to 90 %?",
            "0.29 ± 0.09.",
            &[&p]
        ));
        assert!(other_qualifier("R_AA(3S), 0-50 %?", "0.29 ± 0.09.", &[&p]));
        assert!(!other_qualifier(
            "R_AA(1S) in the 0-5% bin?",
            "0.34.",
            &[&p]
        ));
        // A bin of another unit, or none: not judged.
        assert!(!other_qualifier(
            "R_AA(3S) for pT 0-10 GeV?",
            "< 0.06.",
            &[&p]
        ));
        let p = passage("The 3S is suppressed: R_AA = 0.06.");
        assert!(!other_qualifier(q, "It is 0.06.", &[&p]));
        let named = |t: &str| {
            bins(t)
                .into_iter()
                .map(|(a, b, u)| format!("{a}-{b}{u}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            named("25 to 30 gev, 0.9 -0.8, me2-me4, 2016-2018, 1.5-2.5 and 0-jet"),
            ["25-30gev", "1.5-2.5"]
        );
    }

    #[test]
    fn a_value_of_another_label_does_not_answer() {
        // realistic3 exo-llp-mds-q09: the efficiency of stations ME2–ME4 given for ME1/1.
        let p = passage(
            "* L1 shower trigger efficiency for signal clusters with N_hits > 200: 92 % \
             (ME2–ME4), plateau reached by ~300 hits.\n* HLT_IsoMu24 (2016): 91 %.",
        );
        let q = "what's the L1 shower trigger eff in ME1/1 with the 2023 Tight seed?";
        assert!(other_qualifier(q, "It is 92%.", &[&p]));
        assert!(!other_qualifier("L1 shower eff in ME3?", "92%.", &[&p]));
        assert!(!other_qualifier("L1 shower eff?", "92%.", &[&p]));
        assert!(other_qualifier("HLT_IsoMu27 eff?", "91%.", &[&p]));
        assert!(!other_qualifier("HLT_IsoMu24 eff?", "91%.", &[&p]));
        let named = |t: &str| labels(t).into_iter().map(|(_, l)| l).collect::<Vec<_>>();
        assert_eq!(
            named("me1/1 and me2-me4, dm10; t2bw/t2tt, 13 tev, l1, me2-3"),
            ["me1/1", "me2", "me3", "me4", "dm10", "t2bw", "t2tt", "l1", "me2", "me3"]
        );
    }

    #[test]
    fn a_segment_naming_both_or_neither_stands() {
        let both =
            passage("An excess with an observed (expected) significance of 3.0σ (2.5σ) is found.");
        let q = "What significance did they expect?";
        assert!(!other_qualifier(q, "They expected 2.5σ.", &[&both]));
        // A value in a table row with no qualifier: the column header may hold it.
        let row = passage("| mass | exp. | obs. |\n|---|---|---|\n| 2 TeV | 5.7 | 5.6 |");
        assert!(!other_qualifier(
            "Up to what mass was the expected exclusion?",
            "5.7 TeV.",
            &[&row]
        ));
        // A row under a header naming the qualifier reads with it.
        let limits = passage(
            "Limits at 95% CL.\n\n| Channel | HNL type | Best observed limit | at mN |\n\
             |---|---|---|---|\n| muon | Majorana | abs(V_μN)² < 1.5 × 10^-7 | 10 GeV |",
        );
        assert!(other_qualifier(
            "What's the expected limit on |V_μN|² at mN = 10 GeV for a Majorana HNL?",
            "The expected limit is abs(V_μN)² < 1.5 × 10^-7.",
            &[&limits]
        ));
        assert!(other_qualifier(
            "What's the best limit on |V_μN|² for a Dirac HNL?",
            "It is 1.5 × 10^-7.",
            &[&limits]
        ));
        // Predicted is the expected in other words.
        let pred = passage("Predicted background 12.3 ± 1.1 events, 14 observed.");
        assert!(!other_qualifier(
            "How many background events were expected?",
            "12.3 events were expected.",
            &[&pred]
        ));
        // A number written once beside the asked qualifier, once beside another: stands.
        let twice = passage("Muons need pT > 20 GeV. Electrons need pT > 20 GeV too.");
        assert!(!other_qualifier(
            "What pT do electrons need?",
            "20 GeV.",
            &[&twice]
        ));
    }

    #[test]
    fn other_groups_than_expected_and_observed() {
        let p = passage(
            "Displaced muons: pT > 3 GeV, |η| < 2.4.\nDisplaced electrons: pT > 7 GeV, \
             |η| < 2.5.\nThe subleading jet needs pT > 30 GeV.",
        );
        assert!(other_qualifier(
            "What pT must a displaced electron have?",
            "Displaced electrons need pT > 3 GeV.",
            &[&p]
        ));
        assert!(!other_qualifier(
            "What pT must a displaced electron have?",
            "Displaced electrons need pT > 7 GeV.",
            &[&p]
        ));
        assert!(other_qualifier(
            "What pT does the leading jet need?",
            "The leading jet needs pT > 30 GeV.",
            &[&p]
        ));
        // A trigger's name is no value: the 2016 the claim asserts stands beside "electron".
        let trig = passage(
            "- muon channel: HLT_IsoMu24 (2016, 2018) and HLT_IsoMu27 (2017);\n- electron \
             channel: HLT_Ele27_WPTight_Gsf (2016) and HLT_Ele32_WPTight_Gsf (2017, 2018).",
        );
        assert!(!other_qualifier(
            "Which isolated-electron HLT paths do we trigger on per year?",
            "For 2016, they are HLT_IsoMu24 and HLT_Ele27_WPTight_Gsf.",
            &[&trig]
        ));
        let cr = passage(
            "The control region is 200 < mT < 400 GeV; the signal region starts at 400 GeV.",
        );
        assert!(!other_qualifier(
            "Where does the signal region start?",
            "At 400 GeV.",
            &[&cr]
        ));
    }
}
