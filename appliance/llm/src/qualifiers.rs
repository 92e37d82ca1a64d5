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

/// Strange hadrons, a group like [`MEANS_GROUPS`], the columns of a heavy-ion spectrum table
/// ("| pT | K0S | Λ |"): only a segment writing the value beside another species alone
/// refuses it, not one naming several (a ratio "Λ/K0S", the Λ's parents "feed-down from Ξ⁻
/// decays"); the Λb0 is another word ("λb0").
const SPECIES: &[&[&str]] = &[
    &[
        "k0s",
        "k0_s",
        "k_s",
        "k_s0",
        "k_s^0",
        "ks0",
        "kshort",
        "k-short",
        "k short",
        "k⁰s",
        "k⁰_s",
        "neutral kaon",
        "neutral kaons",
    ],
    &["λ", "lambda", "lambdas", "λ0", "λ⁰"],
    &["ξ", "xi", "cascade", "cascades"],
    &["ω", "omega", "omegas"],
];

/// The boson a decay is of, a group like [`SPECIES`]: "Z → Υ(1S)γ" is not "H → Υ(1S)γ" (a
/// search for rare decays of both tables each channel's efficiency and limit per parent). Only
/// spellings that make the boson a parent or name it whole are listed, not a bare "h" or "z"
/// (H_T, a z coordinate), and the claim's words are not judged by it: a question about H → ZZ
/// may be answered by a sentence about its Z → ℓℓ candidates.
const PARENTS: &[&[&str]] = &[
    &[
        "higgs", "h →", "h→", "h ->", "h->", "h to", "h(125)", "h125",
    ],
    &[
        "z →", "z→", "z ->", "z->", "z to", "z boson", "z bosons", "z-boson",
    ],
];

/// Whether `text` writes the spelling `p` as whole words; a spelling ending in an arrow
/// ("h→") may be followed by anything ("h→j/ψγ").
fn writes(text: &str, p: &str) -> bool {
    if p.ends_with('→') || p.ends_with("->") {
        grounding::occurs(text, p, char::is_alphanumeric, |_| false)
    } else {
        focus::has_phrase(text, p)
    }
}

/// Whether `text` ([`focus::phrase_text`]) names a member with these spellings; a muon also
/// as "μ" before a digit (the "μ3p" channel of a muon and three prongs), the calorimeter's
/// barrel and endcap also by their |η| edges ([`eta_region`]: a column "0.8-1.4442").
fn names(text: &str, member: &[&str]) -> bool {
    member.iter().any(|p| writes(text, p))
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
    let (row, head) = locate::paired_cells(row_text, header)?;
    let value = |c: &String| {
        c.chars().any(|ch| ch.is_ascii_digit()) || matches!(c.as_str(), "" | "-" | "—" | "–")
    };
    (row.len() >= 3 && row[1..].iter().all(value)).then(|| {
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
    // Parts of an uncertainty budget given for its total, each written in its own row.
    if conditions::part_for_total(&q, &asserted, &segments) {
        return true;
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
    let groups = GROUPS.iter().chain(MEANS_GROUPS).map(|g| (g, true));
    groups
        .chain([(&SPECIES, false), (&PARENTS, false)])
        .any(|(group, splits)| {
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
            writing.iter().all(|s| {
                !names(s, group[a]) && (other(s) || (not_default && observed_by_default(s)))
            }) || (splits
                && writing.iter().all(|s| !group.iter().any(|m| names(s, m)))
                && unqualified(group) != Some(a)
                && split())
        })
        || (LIMIT.iter().any(|p| focus::has_phrase(&q, p))
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
        .map(|m| m.iter().copied().filter(|p| writes(&question, p)).collect())
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
mod tests;
