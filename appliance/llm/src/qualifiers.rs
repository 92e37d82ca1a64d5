//! Qualifiers that tell a fact from its neighbour (expected or observed, electron or muon,
//! signal or control region): a value the cited passages write only beside another qualifier
//! than the question names does not answer it (English notes and questions).

use std::sync::LazyLock;

use regex::Regex;

use crate::{conditions, focus, grounding, kinds, locate};

/// Spellings of an expected value ("predicted", "sensitivity" too; "exp", as physicists
/// write it: "exp lower limit", "exp. UL").
const EXPECTED: &[&str] = &[
    "expected",
    "exp",
    "expect",
    "expects",
    "a priori",
    "a-priori",
    "predicted",
    "prediction",
    "pred",
    "sensitivity",
];

/// Spellings of an observed value ("measured", "fitted" too; "obs", as physicists write it).
const OBSERVED: &[&str] = &[
    "observed", "obs", "observe", "observes", "measured", "fitted",
];

/// Groups of mutually exclusive qualifiers; each member lists its spellings (lower case, whole
/// words). A member's spellings include the words notes use for it in other terms ("predicted"
/// for expected, "measured" for observed), so that a value stated in those terms is not taken
/// for the other member's. Only qualifiers that notes state beside the value they qualify are
/// listed: data/simulation is not, as notes often leave the default implicit; years, bins,
/// labels and conditions with a unit are judged apart ([`conditions`]). In the group of
/// [`EXPECTED`] and [`OBSERVED`], a value stated with neither is the observed one
/// ([`unqualified`]).
const GROUPS: &[&[&[&str]]] = &[
    &[EXPECTED, OBSERVED],
    &[&["majorana"], &["dirac"]],
    // Quarkonium states: "Υ(2S)", "ψ(2S)", "the 3S".
    &[&["1s"], &["2s"], &["3s"]],
    &[
        // "eHF": an electron in the forward calorimeter.
        &[
            "electron",
            "electrons",
            "dielectron",
            "ee",
            "e+e-",
            "ehf",
            "e+hf",
        ],
        &["muon", "muons", "dimuon", "μ", "μμ", "mu", "mumu"],
        &["eμ", "emu", "e-mu", "μe", "mue"],
    ],
    &[&["leading"], &["subleading", "sub-leading", "trailing"]],
    // Working points.
    &[
        &["vvloose"],
        &["vloose", "very loose"],
        &["loose"],
        &["medium"],
        &["tight"],
        &["vtight", "very tight"],
        &["vvtight"],
        &["xt", "xtight", "extra tight", "extra-tight"],
        &["xxt", "xxtight"],
    ],
    &[&["barrel"], &["endcap", "endcaps", "end-cap", "end-caps"]],
    // Higgs boson production modes ("μ_VBF = 0.91" is not the ggF signal strength).
    &[
        &[
            "ggf",
            "ggh",
            "gluon fusion",
            "gluon-fusion",
            "gluon-gluon fusion",
        ],
        &[
            "vbf",
            "qqh",
            "vector boson fusion",
            "vector-boson fusion",
            "vector-boson-fusion",
        ],
        &[
            "vh",
            "wh",
            "zh",
            "associated production with a vector boson",
        ],
        &["tth", "tt̄h"],
    ],
];

/// Groups like [`GROUPS`] whose other members a sentence also names as its means, not as what
/// its value is for ("the WZ background is normalised in a control region", "the efficiency at
/// a 1% mistag rate"): only the passages' segments are judged by them, not the claim's words.
const MEANS_GROUPS: &[&[&[&str]]] = &[
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

/// Whether `text` ([`focus::phrase_text`]) names a member with these spellings; a muon also
/// as "μ" before a digit (the "μ3p" channel of a muon and three prongs), the calorimeter's
/// barrel and endcap also by their |η| edges ([`eta_region`]: a column "0.8-1.4442").
fn names(text: &str, member: &[&str]) -> bool {
    member.iter().any(|p| focus::has_phrase(text, p))
        || (member.contains(&"μ")
            && text.match_indices('μ').any(|(i, _)| {
                !text[..i].ends_with(char::is_alphanumeric)
                    && text[i + 'μ'.len_utf8()..].starts_with(|c: char| c.is_ascii_digit())
            }))
        || (member.contains(&"barrel") && eta_region(text, true))
        || (member.contains(&"endcap") && eta_region(text, false))
}

/// `text` with the calorimeter's parts as CMS writes them in capitals, "EB" and "EE", read as
/// "barrel" and "endcap": "EE syst" is the endcap's, where "Z→ee" is a dielectron.
fn ecal_parts(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('E') {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let word = from.get(..2).filter(|w| matches!(*w, "EB" | "EE"));
        let alone = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
        match word {
            Some(w) if alone(out.chars().next_back()) && alone(from[2..].chars().next()) => {
                out.push_str(if w == "EB" { "barrel" } else { "endcap" });
                rest = &from[2..];
            }
            _ => {
                out.push('E');
                rest = &from[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Upper |η| edges of the ECAL barrel (electrons and photons: 1.4442, 1.479).
const BARREL_ENDS: &[&str] = &["1.4442", "1.444", "1.479", "1.48"];

/// Lower |η| edges of the ECAL endcaps, past the gap (1.566) or at the barrel's end (1.479).
const ENDCAP_STARTS: &[&str] = &["1.566", "1.57", "1.479", "1.48"];

/// The ECAL's |η| reach (the endcaps end at 3.0).
const ECAL_REACH: f64 = 3.0;

/// A range of decimals ("0.8-1.4442", "1.566 - 2.0").
static RANGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d+\.?\d*)\s*-\s*(\d+\.?\d*)").expect("range pattern"));

/// Whether `text` writes an |η| bin of the `barrel` (a range of decimals ending at or below
/// its edge 1.48, "0.0-0.8", "0.8-1.4442"; "|η| < 1.479") or of the endcap (a range from 1.479
/// up to 3.0, "1.566-2.0"; "|η| > 1.566").
fn eta_region(text: &str, barrel: bool) -> bool {
    let ranges = RANGE.captures_iter(text).any(|c| {
        let edge = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<f64>().ok());
        let decimal = c[0].contains('.');
        let glued = text[..c.get(0).map_or(0, |m| m.start())].ends_with(['.', '-']);
        match (edge(1), edge(2)) {
            (Some(a), Some(b)) if decimal && !glued && a < b && b <= ECAL_REACH => {
                if barrel {
                    b <= 1.48
                } else {
                    a >= 1.479
                }
            }
            _ => false,
        }
    });
    let edges = if barrel { BARREL_ENDS } else { ENDCAP_STARTS };
    ranges
        || edges.iter().any(|e| {
            grounding::whole_numbers(text, e).any(|(s, _)| {
                let before = text[..s].trim_end();
                if barrel {
                    before.ends_with(['<', '≤'])
                } else {
                    before.ends_with(['>', '≥'])
                }
            })
        })
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
pub(crate) fn read_segments(text: &str, captions: bool) -> Vec<String> {
    let text = ecal_parts(&grounding::normalize(text));
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
                Some(h) => match by_cell(row, h).filter(|_| captions) {
                    Some(cells) => out.extend(
                        cells
                            .into_iter()
                            .map(|c| focus::phrase_text(&format!("{c} {caption}"))),
                    ),
                    None => out.push(focus::phrase_text(&format!("{row} {h} {caption}"))),
                },
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

/// A table `row` read cell by cell, where it is a row label and two values or more (every
/// other cell writes a number, or a dash), under a `header` of as many cells: each value with
/// the row's label and the two headers over it ("| Observed | 58 | 189 |" under "| Process |
/// ee | eμ |" reads "Process Observed ee 58" and "Process Observed eμ 189"), so that a
/// column's year, channel or working point stays with its value. A row with other labels
/// ("| muon | Majorana | 1.5 × 10⁻⁷ |") is read whole.
fn by_cell(row_text: &str, header: &str) -> Option<Vec<String>> {
    // Cells between pipes; where that does not pair the row with its header, between pipes
    // with spaces around them ("| |η| | 2022 |": a pipe inside a cell).
    let cells = locate::row_cells;
    let (mut row, mut head) = (cells(row_text, "|"), cells(header, "|"));
    if row.len() != head.len() {
        (row, head) = (cells(row_text, " | "), cells(header, " | "));
    }
    let value = |c: &String| {
        c.chars().any(|ch| ch.is_ascii_digit()) || matches!(c.as_str(), "" | "-" | "—" | "–")
    };
    (row.len() == head.len() && row.len() >= 3 && row[1..].iter().all(value)).then(|| {
        (1..row.len())
            .map(|i| format!("{} {} {} {}", head[0], row[0], head[i], row[i]))
            .collect()
    })
}

/// Whether `claim` (an answer sentence to `question`, without its citation marks) gives a
/// value that `cited` writes only beside another qualifier than the one the question names:
/// the question names exactly one member of a group, and every segment of the cited passages
/// that writes all the numbers the claim asserts ([`kinds::values`]: not those inside names
/// such as HLT_IsoMu24) names another member of that group and not this one, or names no
/// member while a cited segment splits values by members, this one among them (unless the
/// member asked is the observed one, which an unqualified value is); or, for a question about a
/// limit, every such segment writes a measured value ("0.94 ± 0.04").
/// Examples: "the observed CLs upper limit is 1.6 × 10⁻¹⁰" for "what is the expected upper
/// limit?"; "m_t = 171.82 GeV" for the muon channel, next to "171.71 GeV in the muon channel
/// and 171.97 GeV in the electron channel". A claim asserting no number, or whose numbers no
/// one segment writes, is not judged here, except for a claim that itself names another member
/// than the question's and not that one ("the PNet Medium SFs" for the XT working point), and
/// a name the passages list only under other years than the question's one
/// (`conditions::label_of_other_year`).
pub fn other_qualifier(question: &str, claim: &str, cited: &[&grounding::Passage]) -> bool {
    let q = focus::phrase_text(&ecal_parts(&grounding::normalize(question)));
    let segments: Vec<String> = cited
        .iter()
        .flat_map(|p| read_segments(&p.text, true))
        .collect();
    let c = focus::phrase_text(&ecal_parts(&grounding::normalize(claim)));
    // A claim naming another member than the one asked, and not that one ("the PNet Medium
    // SFs …" for the XT working point).
    if GROUPS.iter().any(|group| {
        asked_member(&q, group).is_some_and(|a| {
            !names(&c, group[a])
                && group
                    .iter()
                    .enumerate()
                    .any(|(i, m)| i != a && names(&c, m))
        })
    }) {
        return true;
    }
    // A name listed only under other years ("2016: IsoMu24" for the 2017 menu).
    if conditions::label_of_other_year(&q, &c, &segments) {
        return true;
    }
    // Numbers inside names (the 24 of HLT_IsoMu24) are not values, nor are years: they qualify
    // a value ("0.941 ± 0.001 for 2023" is read off the 2022 column of a table).
    let asserted: Vec<String> = kinds::values(question, &focus::without_references(claim))
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| !conditions::is_year(n))
        .collect();
    if asserted.is_empty() {
        return false;
    }
    // A value the claim itself places in another year than the one asked ("0.944 ± 0.017 in
    // 2023" for "tight SF, '22?"), read clause by clause as the passages are.
    if conditions::other_year(&q, &asserted, std::slice::from_ref(&c)) {
        return true;
    }
    let writing: Vec<String> = segments
        .iter()
        .filter(|s| asserted.iter().all(|n| grounding::has_number(s, n)))
        .cloned()
        .collect();
    if writing.is_empty() {
        return false;
    }
    GROUPS.iter().chain(MEANS_GROUPS).any(|group| {
        let Some(a) = asked_member(&q, group) else {
            return false;
        };
        let other = |s: &String| group.iter().enumerate().any(|(i, m)| i != a && names(s, m));
        // A split by the group's members ("171.71 GeV in the muon channel and 171.97 GeV in
        // the electron channel") has the asked member's own value.
        let split = || {
            segments.iter().any(|s| {
                names(s, group[a])
                    && other(s)
                    && kinds::values("", s)
                        .iter()
                        .any(|(n, _)| !asserted.contains(n))
            })
        };
        // Asked for another member than the one an unqualified value is ([`unqualified`]).
        let not_default = unqualified(group).is_some_and(|d| d != a);
        writing
            .iter()
            .all(|s| !names(s, group[a]) && (other(s) || (not_default && observed_by_default(s))))
            || (writing.iter().all(|s| !group.iter().any(|m| names(s, m)))
                && unqualified(group) != Some(a)
                && split())
    }) || (LIMIT.iter().any(|p| focus::has_phrase(&q, p))
        && writing
            .iter()
            .all(|s| asserted.iter().any(|n| measured(s, n))))
        || conditions::other(&q, &asserted, &writing)
}

/// The member of `group` a value written with none of its members is, by the notes'
/// convention: the observed one of expected/observed ("|κc| < 3.8" after "the observed
/// (expected) limit of 7.9 (6.2)"; an unqualified limit, [`observed_by_default`]); none for
/// the other groups.
fn unqualified(group: &[&[&str]]) -> Option<usize> {
    group.iter().position(|m| *m == OBSERVED)
}

/// "How" with a word that is also a member's name, or a member's word that qualifies a bin
/// ("medium-pt"), and what the question reads as instead.
const HOW_DEGREE: &[(&str, &str)] = &[
    ("how tight", "how"),
    ("how loose", "how"),
    // A bin, not the Medium working point.
    ("medium-pt", "mid-pt"),
    ("medium pt", "mid pt"),
];

/// The one member of `group` the question (phrase text) names, not negated ("the expected
/// (not observed) limit" asks for the expected one), if it names exactly one; a member
/// written only inside another's longer spelling ("mu" of "e-mu") is not named.
fn asked_member(question: &str, group: &[&[&str]]) -> Option<usize> {
    // "How tight is the isolation cut?" asks for a degree, not the tight working point.
    let question = HOW_DEGREE
        .iter()
        .fold(question.to_string(), |q, (phrase, by)| {
            q.replace(phrase, by)
        });
    // The spellings of each member the question writes; a member written only inside a longer
    // spelling of another ("mu" of "e-mu") is not named.
    let written: Vec<Vec<&str>> = group
        .iter()
        .map(|m| {
            m.iter()
                .copied()
                .filter(|p| focus::has_phrase(&question, p))
                .collect()
        })
        .collect();
    let inside_other = |i: usize| {
        written[i].iter().all(|p| {
            written
                .iter()
                .enumerate()
                .any(|(j, w)| j != i && w.iter().any(|o| o.len() > p.len() && o.contains(p)))
        })
    };
    let asked: Vec<usize> = (0..group.len())
        .filter(|&i| !written[i].is_empty() && !inside_other(i) && !negated(&question, group[i]))
        .collect();
    match asked[..] {
        [a] => Some(a),
        _ => None,
    }
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

/// Whether `segment` writes `number` as a measured value, with its uncertainty after it
/// ("0.94 ± 0.04"), as no limit is written.
fn measured(segment: &str, number: &str) -> bool {
    grounding::whole_numbers(segment, number).any(|(_, end)| {
        let rest = segment[end..].trim_start();
        rest.starts_with('±') || rest.starts_with("+/-") || rest.starts_with("+-")
    })
}

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
    fn exp_and_obs_name_expected_and_observed() {
        // realistic14's EXO-26-019-q07: the note gives the expected limit for gluinos only.
        let p = passage(
            "Gluino R-hadrons are excluded below 2.51 TeV (expected 2.55 TeV). Stop R-hadrons \
             are excluded below 1.86 TeV with the TkOnly selection.",
        );
        let claim = "The stop R-hadron lower limit is set at 1.86 TeV with the TkOnly selection.";
        assert!(other_qualifier(
            "exp lower limit for stop R-hadrons?",
            claim,
            &[&p]
        ));
        assert!(!other_qualifier(
            "obs lower limit for stop R-hadrons?",
            claim,
            &[&p]
        ));
        assert!(!other_qualifier(
            "exp. lower limit for gluinos?",
            "It is 2.55 TeV.",
            &[&p]
        ));
        // "exponential" is no "exp".
        assert!(!other_qualifier(
            "stop R-hadron lower limit, exponential bkg fit?",
            claim,
            &[&p]
        ));
        // Unqualified next to an observed (expected) pair, a value is the observed one.
        let p = passage(
            "The combined observed (expected) upper limit of 7.9 (6.2) times the SM prediction \
             is the most stringent so far. Interpreted in the κ framework, it corresponds to \
             |κc| < 3.8 at 95% CL.",
        );
        let claim = "It corresponds to |κc| < 3.8 at 95% CL.";
        assert!(!other_qualifier(
            "what kappa_c bound does the obs limit translate into?",
            claim,
            &[&p]
        ));
        assert!(other_qualifier(
            "what kappa_c bound does the exp limit translate into?",
            claim,
            &[&p]
        ));
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
        // The unsplit value, where the passage splits it by the group's members, is not the
        // asked member's (realistic5 top-mass-ljets-q02).
        let split = passage(
            "The fit gives m_t = 171.82 ± 0.27 GeV. Split by lepton flavour, it returns 171.71 \
             GeV in the muon channel and 171.97 GeV in the electron channel.",
        );
        let q = "m_top from muons only?";
        assert!(other_qualifier(q, "It is 171.82 ± 0.27 GeV.", &[&split]));
        assert!(!other_qualifier(q, "It is 171.71 GeV.", &[&split]));
        assert!(!other_qualifier(
            "m_top?",
            "It is 171.82 ± 0.27 GeV.",
            &[&split]
        ));
        let unsplit = passage("The fit gives m_t = 171.82 ± 0.27 GeV with muons.");
        assert!(!other_qualifier(q, "It is 171.82 GeV.", &[&unsplit]));
        // "e-mu" names the eμ channel, not the muon one (realistic7 TOP-25-004-q02: the ee
        // row's value given for eμ).
        let rows = passage(
            "Trigger SFs:\n\n| Channel | 2022 | 2023 |\n|---|---|---|\n| ee | 0.981 ± 0.006 | \
             0.976 ± 0.008 |\n| eμ | 0.992 ± 0.004 | 0.989 ± 0.005 |",
        );
        let q = "trig SF for e-mu in '23?";
        assert!(other_qualifier(q, "It is 0.976 ± 0.008.", &[&rows]));
        assert!(!other_qualifier(q, "It is 0.989 ± 0.005.", &[&rows]));
        // A measured value, with its uncertainty, is no limit (realistic4 tau-deeptau-sf-q10);
        // a number pointing to a table is no value.
        let sf = passage(
            "The SFs per DM are shown in Table 3.\n\n| DM | Medium |\n|---|---|\n| 1 | 0.94 ± 0.04 |",
        );
        let q = "what expected 95% CL upper limit did we get?";
        assert!(other_qualifier(
            q,
            "It is 0.94 ± 0.04, see Table 3.",
            &[&sf]
        ));
        assert!(!other_qualifier(
            "Medium SF for DM1?",
            "It is 0.94 ± 0.04.",
            &[&sf]
        ));
        let limit = passage("The expected upper limit is 0.94 at 95% CL.");
        assert!(!other_qualifier(q, "It is 0.94.", &[&limit]));
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

    #[test]
    fn a_production_mode_is_a_qualifier() {
        // realistic16 HIG-26-031-q07: the VBF signal strength given for the ggF one.
        let p = passage(
            "The updated fit gives μ_VBF = 0.91 +0.29/−0.27; this supersedes the value of 0.87 \
             quoted in version 3 of the note. The ggH signal strength is unchanged.",
        );
        let claim = "The updated fit gives μ_VBF = 0.91 +0.29/−0.27.";
        assert!(other_qualifier("ggf mu from 2024 data alone", claim, &[&p]));
        assert!(other_qualifier(
            "gluon-fusion signal strength?",
            "It is 0.91 +0.29/−0.27.",
            &[&p]
        ));
        // qqH is the VBF mode.
        assert!(!other_qualifier("qqh mu hww latest value", claim, &[&p]));
        assert!(!other_qualifier("vbf mu?", claim, &[&p]));
    }

    #[test]
    fn a_category_by_its_number_of_jets_is_a_condition() {
        // realistic16 SUS-26-029-q08: the 0j-1 region's yield for "the 2-jet SR".
        let p = passage(
            "| SR | mT2 [GeV] | Total pred. | Observed |\n|---|---|---|---|\n\
             | 0j-1 | 100–140 | 617 ± 31 | 602 |\n| 1j-1 | 100–140 | 240 ± 15 | 233 |",
        );
        let claim = "The observed yield is 602 events.";
        assert!(other_qualifier("observed yield in 2-jet sr", claim, &[&p]));
        assert!(!other_qualifier(
            "observed yield in the 0j sr, first bin",
            claim,
            &[&p]
        ));
    }

    #[test]
    fn eb_and_ee_are_the_calorimeter_parts() {
        assert_eq!(
            ecal_parts("EE syst, EB-EB pairs, pre-EE; Z→ee, EEE, EBx"),
            "endcap syst, barrel-barrel pairs, pre-endcap; Z→ee, EEE, EBx"
        );
        // realistic10 EGM-26-007-q02: the endcap's systematic, not a dielectron's.
        let syst = passage(
            "| Source (x 10-3) | EB | EE |\n|---|---|---|\n| Background model | 3.1 | 5.2 |\n\n\
             The Z→ee and Z→μμγ samples agree within 0.1%.",
        );
        let q = "EE syst from swapping the bkg model, ×1e-3?";
        assert!(!other_qualifier(q, "The answer is 5.2.", &[&syst]));
        assert!(other_qualifier(q, "The answer is 3.1.", &[&syst]));
    }

    #[test]
    fn right_cells_of_realistic_tables_stand() {
        // Each a key point the checks refused, the claim giving it alone.
        let claim = |kp: &str| format!("The value is {kp}.");
        // realistic10 EGM-26-007-q01: the outer barrel by its |η| edge, beside a caption
        // splitting barrel and endcap.
        let sf = passage(
            "Table 2: photon MVA WP90 SFs for 2024.\n\
             | pT (GeV) | |η| < 0.8 | 0.8-1.4442 | 1.566-2.0 |\n|---|---|---|---|\n\
             | 80-120 | 0.985 ± 0.011 | 0.981 ± 0.013 | 0.970 ± 0.019 |\n\n\
             The barrel SFs are closer to unity than the endcap SFs (0.95 in 2.0-2.5).",
        );
        let q = "outer-barrel SF for 80-120 GeV photons, '24, MVA 90% WP?";
        assert!(!other_qualifier(q, &claim("0.981 ± 0.013"), &[&sf]));
        assert!(other_qualifier(q, &claim("0.970 ± 0.019"), &[&sf]));
        // realistic16 SUS-26-029-q02: "pred." is a prediction.
        let sr = passage(
            "Table 1: Expected and observed event counts after the background-only fit. \
             \"FS\" denotes flavour-symmetric backgrounds.\n\n\
             | SR | ZZ | Total pred. | Observed |\n|---|---|---|---|\n\
             | 1j-4 | 7.9 ± 1.1 | 16.6 ± 2.0 | 14 |",
        );
        let q = "bkg prediction sum, last mt2 bin, one jet";
        assert!(!other_qualifier(q, &claim("16.6 ± 2.0"), &[&sr]));
        assert!(other_qualifier(q, &claim("14"), &[&sr]));
        // realistic7 TOP-25-004-q01: "medium-pt" is a bin, not the Medium working point.
        let flip = passage(
            "MC charge-flip rates of tight electrons (2022, units of 10-5):\n\
             | η range \\ pT | 40-100 GeV |\n|---|---|\n| 0.8-1.479 | 7.7 |",
        );
        let q = "mc flip prob for outer-barrel eles, medium-pt bin, '22?";
        assert!(!other_qualifier(q, &claim("7.7"), &[&flip]));
        // realistic8 HIN-26-004-q01: the "μ3p" channel is a muon's.
        let upc = passage(
            "| Channel | Signal | Observed |\n|---|---|---|\n| μ3p | 18.2 ± 1.9 | 20 |\n\
             | e3p | 15.1 ± 1.6 | 13 |\n\nIn the electron channel and the muon channel \
             the background is 2.1 and 2.4.",
        );
        let q = "predicted SM count for μ+3h, single-side neutron class?";
        assert!(!other_qualifier(q, &claim("18.2 ± 1.9"), &[&upc]));
        assert!(other_qualifier(q, &claim("15.1 ± 1.6"), &[&upc]));
        // realistic8 SMP-26-003-q03: "eHF" is an electron's channel; q01: sin2θ is no label.
        let w = passage(
            "Table 2: uncertainties in units of 10-5.\n| Source | μμ | ee | eHF |\n\
             |---|---|---|---|\n| PDF | 17 | 15 | 22 |\n\n\
             Table 3: | Channel | sin2θ^ℓ_eff |\n|---|---|\n| combined | 0.23154 ± 0.00033 |",
        );
        let q = "how much do parton densities add to the forward-electron sin2θ error?";
        assert!(!other_qualifier(q, &claim("22"), &[&w]));
        let q = "what sin2θw value comes out when mumu, ee and e+HF are merged?";
        assert!(!other_qualifier(q, &claim("0.23154 ± 0.00033"), &[&w]));
        // realistic12 MUO-26-009-q02: "RE1/3" is ring 3 of station RE1.
        let rates = passage(
            "| Station | Rate at 2.0x10^34 |\n|---|---|\n| RE1/3 | 11.2 |\n| RE2/2 | 4.1 |",
        );
        let q = "noise flux RE1 ring 3 at lumi 2e34, Hz/cm2?";
        assert!(!other_qualifier(q, &claim("11.2"), &[&rates]));
        assert!(other_qualifier(q, &claim("4.1"), &[&rates]));
    }

    #[test]
    fn a_table_is_read_cell_by_cell_and_a_claim_naming_another_member_stands_alone() {
        // realistic6 smp-vbs-ssww-run3-q01: 58 is the ee column's.
        let yields = passage(
            "| Process | ee | eμ | μμ |\n|---|---|---|---|\n| Total background | 31.6 | 97.4 | \
             43.9 |\n| Observed | 58 | 189 | 101 |",
        );
        let q = "# data evts in the mumu SR?";
        assert!(other_qualifier(q, "58", &[&yields]));
        assert!(other_qualifier(q, "189 events.", &[&yields]));
        assert!(!other_qualifier(q, "101 events.", &[&yields]));
        // A pipe inside a cell ("|η|"): cells are split at pipes between spaces.
        let years = passage(
            "Tight SF, 35 < pT < 50 GeV.\n\n| |η_SC| | 2022 | 2024 |\n|---|---|---|\n| 0.0–0.8 | \
             0.981 ± 0.004 | 0.968 ± 0.004 |",
        );
        let q = "'22 data/sim for tight-WP eles in the central EB slice, 35-50?";
        assert!(other_qualifier(q, "It is 0.968 ± 0.004.", &[&years]));
        assert!(!other_qualifier(q, "It is 0.981 ± 0.004.", &[&years]));
        // A row with labels besides its first cell is read whole.
        let mixed = passage(
            "| Channel | HNL type | Limit |\n|---|---|---|\n| muon | Majorana | 1.5 × 10^-7 |",
        );
        assert!(other_qualifier(
            "What's the limit for a Dirac HNL?",
            "It is 1.5 × 10^-7.",
            &[&mixed]
        ));
        // realistic6 btv-bsf-ttbar-run3-q07: the claim names the Medium working point for the
        // XT one, whatever the passages write.
        let sf = passage("The 2023 PNet Medium SFs are unchanged; in that bin it is 0.967.");
        let q = "XT WP SF for '23?";
        assert!(other_qualifier(
            q,
            "The PNet Medium SFs for 2023 are unchanged.",
            &[&sf]
        ));
        assert!(!other_qualifier(
            q,
            "The XT SF is not given, only the Medium one.",
            &[&sf]
        ));
        assert!(!other_qualifier(
            "SF for '23?",
            "The Medium SF is 0.967.",
            &[&sf]
        ));
        // A region named as the means of an estimate: the claim stands (realistic6
        // smp-vbs-ssww-run3-q05, a right answer's second sentence).
        let cr = passage("WZ is normalised in a control region with three leptons.");
        assert!(!other_qualifier(
            "main bkgs in the SR?",
            "The WZ background is normalised in a control region with three leptons.",
            &[&cr]
        ));
        // "How tight" asks for a degree, not for the tight working point.
        assert!(!other_qualifier(
            "how tight is the isolation cut?",
            "Relative isolation below 0.15 (Medium WP).",
            &[&sf]
        ));
    }
}
