//! The kind of quantity a question asks for (an energy, a luminosity, a count…) and the kinds
//! of the numbers an answer gives, read off their units (English questions).

use crate::{conditions, focus, grounding};

/// What a number measures, as its unit says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// eV to TeV.
    Energy,
    /// Integrated luminosity: fb⁻¹, pb⁻¹.
    Luminosity,
    /// A percentage.
    Percent,
    /// µm to km.
    Length,
    /// ns to ms.
    Time,
    /// Hz to GHz.
    Rate,
    /// rad, degrees.
    Angle,
    /// Standard deviations.
    Significance,
    /// V, kV (a high-voltage working point).
    Voltage,
    /// nA to mA (a leakage or bias current).
    Current,
    /// A cross section: fb, pb, nb (not fb⁻¹).
    CrossSection,
    /// A small number written with a negative power of ten (3.0 × 10⁻⁴, 1.5e-7): a branching
    /// ratio, a coupling, a fraction; never a count or a significance.
    Small,
    /// No unit: a count, a ratio, a score.
    Plain,
}

/// Units as written after a number (lower case, after [`grounding::normalize`]), longer
/// spellings first.
const UNITS: &[(&str, Kind)] = &[
    ("tev", Kind::Energy),
    ("gev", Kind::Energy),
    ("mev", Kind::Energy),
    ("kev", Kind::Energy),
    ("ev", Kind::Energy),
    ("fb-1", Kind::Luminosity),
    ("pb-1", Kind::Luminosity),
    ("nb-1", Kind::Luminosity),
    ("/fb", Kind::Luminosity),
    ("/pb", Kind::Luminosity),
    ("ab-1", Kind::Luminosity),
    // Inverse millibarns and microbarns: a nuclear overlap function ⟨T_AA⟩ or a heavy-ion
    // luminosity (no "mb" alone: "MB" is minimum bias).
    ("mb-1", Kind::Luminosity),
    ("/mb", Kind::Luminosity),
    ("μb-1", Kind::Luminosity),
    ("µb-1", Kind::Luminosity),
    ("ub-1", Kind::Luminosity),
    ("/μb", Kind::Luminosity),
    ("/ub", Kind::Luminosity),
    ("/ab", Kind::Luminosity),
    ("inverse femtobarns", Kind::Luminosity),
    ("inverse femtobarn", Kind::Luminosity),
    ("inverse picobarns", Kind::Luminosity),
    ("inverse picobarn", Kind::Luminosity),
    ("fb", Kind::CrossSection),
    ("pb", Kind::CrossSection),
    ("nb", Kind::CrossSection),
    ("femtobarns", Kind::CrossSection),
    ("femtobarn", Kind::CrossSection),
    ("picobarns", Kind::CrossSection),
    ("picobarn", Kind::CrossSection),
    // An instantaneous luminosity, per area and second: a rate.
    ("cm-2s-1", Kind::Rate),
    ("cm-2 s-1", Kind::Rate),
    ("/cm2/s", Kind::Rate),
    ("%", Kind::Percent),
    ("percent", Kind::Percent),
    ("µm", Kind::Length),
    ("μm", Kind::Length),
    ("mm", Kind::Length),
    ("cm", Kind::Length),
    ("nm", Kind::Length),
    ("km", Kind::Length),
    ("ghz", Kind::Rate),
    ("mhz", Kind::Rate),
    ("khz", Kind::Rate),
    ("hz", Kind::Rate),
    ("ns", Kind::Time),
    ("ps", Kind::Time),
    ("µs", Kind::Time),
    ("μs", Kind::Time),
    ("ms", Kind::Time),
    ("mrad", Kind::Angle),
    ("radians", Kind::Angle),
    ("radian", Kind::Angle),
    ("rad", Kind::Angle),
    ("degrees", Kind::Angle),
    ("degree", Kind::Angle),
    ("°", Kind::Angle),
    ("σ", Kind::Significance),
    ("sigma", Kind::Significance),
    ("standard deviations", Kind::Significance),
    ("kv", Kind::Voltage),
    ("v", Kind::Voltage),
    ("µa", Kind::Current),
    ("μa", Kind::Current),
    ("ua", Kind::Current),
    ("na", Kind::Current),
    ("ma", Kind::Current),
];

/// Phrases of a question that ask for a quantity of a few kinds; the kinds of every phrase that
/// occurs are allowed. Only phrases that fix the kind: not "pT" ("the pT resolution" is a
/// percentage, "the efficiency of the pT cut" too) nor "luminosity" ("its uncertainty"). The
/// kinds are generous (a count of events may be answered as a percentage of the signal, a
/// fraction of the data in fb⁻¹), since a right answer refused costs more than a wrong one let
/// through.
const ASKS: &[(&[&str], &[Kind])] = &[
    (&["mass bound", "mass limit", "mass reach"], &[Kind::Energy]),
    (&["how many inverse", "how many fb"], &[Kind::Luminosity]),
    // A cross section, or a limit on one relative to a prediction.
    (
        &["cross section", "cross-section", "xsec", "x-sec"],
        &[Kind::CrossSection, Kind::Plain, Kind::Small, Kind::Percent],
    ),
    // The recorded amount, or its uncertainty.
    (
        &[
            "integrated luminosity",
            "integrated lumi",
            "int. lumi",
            "int lumi",
        ],
        &[Kind::Luminosity, Kind::Plain, Kind::Percent],
    ),
    (
        &[
            "how many events",
            "how many candidates",
            "how many signal events",
            "how many background events",
        ],
        &[Kind::Plain, Kind::Percent],
    ),
    (
        &[
            "output rate",
            "how often",
            "how frequent",
            "rate",
            "per second",
        ],
        &[Kind::Rate, Kind::Percent, Kind::Plain, Kind::Small],
    ),
    (
        &[
            "significance",
            "in sigma",
            "how many sigma",
            "in σ",
            "in standard deviations",
            "how many standard deviations",
        ],
        &[Kind::Significance, Kind::Plain, Kind::Percent],
    ),
    (
        &[
            "branching ratio",
            "branching-ratio",
            "branching fraction",
            "signal strength",
        ],
        &[Kind::Plain, Kind::Percent, Kind::Small],
    ),
    (
        &["what share", "what fraction", "what percentage", "percent"],
        &[Kind::Percent, Kind::Plain, Kind::Luminosity, Kind::Small],
    ),
    // A voltage, or its share of the nominal one.
    (
        &["hv", "high voltage", "high-voltage", "voltage"],
        &[Kind::Voltage, Kind::Plain, Kind::Percent],
    ),
    // A current through a sensor, or its share of a reference one.
    (
        &[
            "leakage current",
            "dark current",
            "bias current",
            "hv current",
        ],
        &[Kind::Current, Kind::Plain, Kind::Percent],
    ),
    // A limit bounds a coupling, a ratio, a cross section, a mass or a lifetime; never a
    // significance or an amount of data (realistic8 HIG-26-007-q07: "2.7σ" for the expected
    // upper limit on μ).
    (
        &[
            "upper limit",
            "lower limit",
            "upper lim",
            "exclusion limit",
            "excl limit",
            "limit on",
            "lim on",
        ],
        &[
            Kind::Plain,
            Kind::Small,
            Kind::Percent,
            Kind::CrossSection,
            Kind::Energy,
            Kind::Length,
            Kind::Time,
        ],
    ),
    // A nuclear modification factor or another ratio: no unit (realistic7 HIN-25-006-q01,
    // "0.548 mb⁻¹" for R_AA).
    (
        &[
            "r_aa",
            "raa",
            "nuclear modification factor",
            "ratio",
            "quotient",
        ],
        &[Kind::Plain, Kind::Percent, Kind::Small],
    ),
    // A count (realistic7 HIN-25-006-q02: wounded nucleons in mb⁻¹).
    (&["number of", "no. of"], &[Kind::Plain, Kind::Percent]),
    // The nuclear overlap function, in inverse (milli)barns.
    (
        &[
            "taa",
            "t_aa",
            "nuclear overlap",
            "overlap function",
            "overlap fn",
        ],
        &[Kind::Luminosity, Kind::Plain, Kind::CrossSection],
    ),
    // Isolation relative to the object's pT is a ratio, not an energy sum.
    (
        &["relative isolation", "rel iso", "reliso", "relative iso"],
        &[Kind::Plain, Kind::Percent],
    ),
];

/// "How" and a word for momentum, or a lowest pT, that asks for an energy when the question
/// names a particle ("how soft may the second muon be", "min pT of each muon leg"), not a cut
/// ("how hard is the BDT cut").
const HOW_ENERGETIC: &[&str] = &[
    "how soft",
    "how hard",
    "how energetic",
    "min pt",
    "minimum pt",
    "lowest pt",
];

/// Units too short or too common to name a kind at the end of a question ("v", "na": n/a).
const NOT_TRAILING: &[&str] = &["v", "ev", "na", "ma", "°", "σ", "sigma"];

/// The kind of the unit `q` ([`focus::phrase_text`]) ends with after a comma, an opening
/// parenthesis or bracket, or "in" ("…, pb?", "… (GeV)", "… in %"), if it ends so.
fn trailing_unit(q: &str) -> Option<Kind> {
    let q = q.trim_end_matches(['?', '.', '!', ' ', ')', ']']);
    let at = [", ", "(", "[", " in "]
        .iter()
        .filter_map(|s| q.rfind(s).map(|i| i + s.len()))
        .max()?;
    let unit = q[at..].trim();
    if NOT_TRAILING.contains(&unit) {
        return None;
    }
    unit_kind(unit)
}

/// What "σ(…)" in a question asks for: a cross section, or the width of a distribution.
const SIGMA_OF: [Kind; 6] = [
    Kind::CrossSection,
    Kind::Plain,
    Kind::Small,
    Kind::Percent,
    Kind::Energy,
    Kind::Length,
];

/// Whether `q` ([`focus::phrase_text`]) writes "σ" or "sigma" as a word with a parenthesis
/// right after it ("σ(4t)", "sigma(tttt)"); not with a space between, a remark ("obs. sigma
/// (ee & μμ together)" asks for a significance: realistic21 SMP-26-171-q06).
fn names_sigma_of(q: &str) -> bool {
    ["σ", "sigma"].iter().any(|s| {
        grounding::occurrences(q, s, char::is_alphanumeric, |_| false)
            .any(|(_, end)| q[end..].starts_with('('))
    })
}

/// Phrases of a question asking for a scale factor (a data/simulation ratio).
const SCALE_FACTOR: &[&str] = &[
    "sf",
    "sfs",
    "scale factor",
    "scale factors",
    "data/mc",
    "data/sim",
];

/// Words of an uncertainty, as questions write them ("unc", "syst").
pub(crate) const UNCERTAINTY_WORDS: &[&str] = &[
    "unc",
    "uncert",
    "uncertainty",
    "uncertainties",
    "error",
    "errors",
    "err",
    "syst",
    "systematic",
    "systematics",
    "stat",
];

/// Besides [`UNCERTAINTY_WORDS`], words of a question asking for a variation or, with "how"
/// ("how far off is the SF?"), a degree: of any kind, where a scale factor itself is a ratio.
const VARIATION: &[&str] = &[
    "precision",
    "shift",
    "shifts",
    "change",
    "variation",
    "deviation",
    "spread",
    "how",
];

/// Words for an amount of recorded collisions, asked for with "how much".
const AMOUNTS_OF_DATA: &[&str] = &["data", "lumi", "luminosity", "dataset", "statistics"];

/// Stems of the words for particles and reconstructed objects.
const OBJECTS: &[&str] = &[
    "muon",
    "electron",
    "lepton",
    "photon",
    "jet",
    "tau",
    "track",
    "particle",
    "object",
    "candidate",
    "boson",
    "neutrino",
    "hadron",
    "quark",
    "gluon",
];

/// Verbs of a question about how one thing depends on another ("how does the fake rate depend
/// on pT"): it names quantities without asking for one.
const DEPENDS: &[&str] = &[
    "depend", "depends", "vary", "varies", "affect", "affects", "change", "changes",
];

/// Phrases that ask for a quantity as a share of another ("relative to the diphoton mass"):
/// its kind is not the one its words name.
const RELATIVE: &[&str] = &[
    "relative to",
    "as a fraction of",
    "as a ratio",
    "divided by",
];

/// The kinds of quantity `question` asks for, when phrases of it fix them.
pub fn asked(question: &str) -> Option<Vec<Kind>> {
    let q = focus::phrase_text(question);
    // A unit the question ends with names the kind whatever else it says ("tbar xsec in
    // t-chan, pb?": not the 6.4% precision of the sum, realistic20 TOP-26-117-q01).
    if let Some(kind) = trailing_unit(&q) {
        return Some(vec![kind, Kind::Plain]);
    }
    let has = |p: &&str| focus::has_phrase(&q, p);
    let words: Vec<&str> = q.split(|c: char| !c.is_alphanumeric()).collect();
    if words.iter().any(|w| DEPENDS.contains(w)) {
        return None;
    }
    let mut kinds: Vec<Kind> = ASKS
        .iter()
        .filter(|(phrases, _)| phrases.iter().any(has))
        .flat_map(|(_, kinds)| kinds.iter().copied())
        .collect();
    // "How energetic …, relative to the diphoton mass?": a ratio, of any kind.
    if RELATIVE.iter().any(has) {
        return None;
    }
    if HOW_ENERGETIC.iter().any(has)
        && words
            .iter()
            .any(|w| OBJECTS.iter().any(|o| w.starts_with(o)))
    {
        kinds.push(Kind::Energy);
    }
    // "σ(tttt)", "sigma(4t)": a cross section, or a resolution ("σ(pT)", "σ(m)"),
    // never a number of standard deviations (realistic19 TOP-26-089-q01: "6.1σ" observed
    // significance for "sigma(tttt) obs value?").
    if names_sigma_of(&q) {
        kinds.extend(SIGMA_OF);
    }
    // "How much (2022) data / lumi": a luminosity, or a share of one.
    if has(&"how much") && words.iter().any(|w| AMOUNTS_OF_DATA.contains(w)) {
        kinds.extend([Kind::Luminosity, Kind::Percent, Kind::Plain]);
    }
    // A scale factor is a ratio, not its uncertainty ("SF unc" may be a percentage).
    let varies = |w: &&str| UNCERTAINTY_WORDS.contains(w) || VARIATION.contains(w);
    if SCALE_FACTOR.iter().any(has) && !words.iter().any(varies) {
        kinds.push(Kind::Plain);
    }
    (!kinds.is_empty()).then_some(kinds)
}

/// Whether `word` (lower case) is a unit whose kind is known ("gev", "ps", "%").
pub(crate) fn is_unit(word: &str) -> bool {
    unit_kind(word).is_some()
}

/// The kind of unit `word` (lower case) names, if it is one of [`UNITS`].
fn unit_kind(word: &str) -> Option<Kind> {
    UNITS.iter().find(|(u, _)| *u == word).map(|&(_, k)| k)
}

/// The kinds of the numbers `claim` asserts (those `question` does not write), in order: each
/// read off the unit after it, [`Kind::Plain`] without one ([`values`]).
pub fn given(question: &str, claim: &str) -> Vec<Kind> {
    values(question, claim)
        .into_iter()
        .map(|(_, k)| k)
        .collect()
}

/// The numbers `claim` asserts, in order, each with its kind read off the unit after it
/// ([`scan`]): all but those `question` writes with the same kind or where either has no unit
/// ("Run 3" restated; "10 ab⁻¹" asserted for "the 10 TeV run").
pub(crate) fn values(question: &str, claim: &str) -> Vec<(String, Kind)> {
    let written = scan(question, true);
    scan(claim, false)
        .into_iter()
        .filter(|(n, k)| {
            !written
                .iter()
                .any(|(m, j)| m == n && (j == k || *j == Kind::Plain || *k == Kind::Plain))
        })
        .collect()
}

/// The numbers `text` writes, in order, each with its kind read off the unit after it,
/// [`Kind::Plain`] without one. Digits inside a word (a trigger name, "fb-1") are no number;
/// digits before a hyphen and a word ("2-jet"), after a naming word ("Run 3", [`NAMING`]) and
/// a confidence level ("95% CL") are none either, unless `labels` (then [`Kind::Plain`]); a
/// power of ten alone ("10^14"), an exponent ("cm^-2") and the numbers of an id ("EGM-26-007",
/// [`ids`]) are none; a negative power of ten
/// after a number makes it [`Kind::Small`] and is no number itself; after a positive one the
/// unit is read ("2.0 × 10³⁴ cm⁻²s⁻¹").
fn scan(text: &str, labels: bool) -> Vec<(String, Kind)> {
    let text = grounding::normalize(text).to_lowercase();
    let ids = ids(&text, 1);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    let mut before: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        // An exponent ("cm^-2") is no number either.
        let exponent = text[..text.len() - rest.len()]
            .trim_end_matches(['-', '+'])
            .ends_with('^');
        let starts = c.is_ascii_digit()
            && !exponent
            && !before.is_some_and(|b| b.is_alphanumeric() || b == '_');
        if !starts {
            before = Some(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        // An analysis or note id ("EGM-26-007", "an-2026-009") names a document.
        let at = text.len() - rest.len();
        if let Some(&(_, end)) = ids.iter().find(|&&(from, to)| from <= at && at < to) {
            before = text[..end].chars().next_back();
            rest = &text[end..];
            continue;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = rest[..len].trim_end_matches('.');
        let after = &rest[len..];
        // A power of ten alone ("in units of 10^14 cm^-2") scales a unit; it is no value.
        if number == "10" {
            if let Some(p) = after.strip_prefix('^') {
                let p = p.strip_prefix(['-', '+']).unwrap_or(p);
                let digits = p.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    let skip = after.len() - p.len() + len + digits;
                    before = rest[..skip].chars().next_back();
                    rest = &rest[skip..];
                    continue;
                }
            }
        }
        let power = negative_power(after);
        // "2.0 x 10^34 cm-2s-1": the unit is read after a positive power of ten.
        let large = if power.is_none() {
            positive_power(after).unwrap_or(0)
        } else {
            0
        };
        let after = &rest[len + large..];
        let spaced = after.strip_prefix(' ').unwrap_or(after);
        let unit = unit_opening(spaced);
        // "2-jet", "3-prong", "Run 3", "layer 1": a label, not a number given.
        let named = text[..text.len() - rest.len()]
            .strip_suffix(' ')
            .and_then(|t| t.rsplit(' ').next())
            .is_some_and(|w| NAMING.contains(&w));
        let label = named
            || after
                .strip_prefix('-')
                .and_then(|a| a.chars().next())
                .is_some_and(char::is_alphabetic);
        // "95% CL" names the confidence level of a limit, not a value.
        let level =
            unit.is_some_and(|&(u, k)| k == Kind::Percent && names_a_level(&spaced[u.len()..]));
        if labels || !(label || level) {
            let kind = match (power, unit) {
                _ if label || level => Kind::Plain,
                (Some(_), _) => Kind::Small,
                (None, Some(&(_, k))) => k,
                (None, None) => uncertainty_unit(after).unwrap_or(Kind::Plain),
            };
            out.push((number.to_string(), kind));
        }
        let skip = match power {
            Some(p) => len + p,
            None => unit.map_or(len + large, |(u, _)| {
                len + large + (after.len() - spaced.len()) + u.len()
            }),
        };
        before = rest[..skip].chars().next_back();
        rest = &rest[skip..];
    }
    out
}

/// The byte ranges of the ids in `text` with `min_numbers` numbers or more: words of ASCII
/// letters, digits and hyphens that are two letters or more, then numbers each after a hyphen
/// ("EGM-26-007", "an-2026-009"; case ignored). The one reading of an id, for [`scan`] and for
/// the numbers a claim asserts (`grounding::claimed_numbers`).
pub(crate) fn ids(text: &str, min_numbers: usize) -> Vec<(usize, usize)> {
    let joined = |c: char| c.is_ascii_alphanumeric() || c == '-';
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (joined(c) && i < text.len(), start) {
            (true, None) => start = Some(i),
            (false, Some(from)) => {
                if is_id(&text[from..i], min_numbers) {
                    out.push((from, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether `token` is an id ([`ids`]).
fn is_id(token: &str, min_numbers: usize) -> bool {
    let mut parts = token.split('-');
    let head = parts.next().unwrap_or_default();
    let numbers: Vec<&str> = parts.collect();
    head.len() >= 2
        && head.bytes().all(|b| b.is_ascii_alphabetic())
        && numbers.len() >= min_numbers.max(1)
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Words a number after them is the name of ("Run 3", "Phase 2", "layer 1", "fill 8999"),
/// as [`scan`] reads them (lower case).
const NAMING: &[&str] = &[
    "run", "phase", "layer", "disk", "ring", "station", "wheel", "sector", "fill", "era",
    "category", "cat", "ls",
];

/// The unit `text` opens with, as a whole word ("gev", not the "ev" of "events"; "%" before
/// anything).
fn unit_opening(text: &str) -> Option<&'static (&'static str, Kind)> {
    UNITS.iter().find(|(u, _)| {
        text.starts_with(u)
            && !text[u.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() && !u.ends_with('%'))
    })
}

/// The kind of the unit written after the uncertainties that follow a value ("2.87 ± 0.33 fb",
/// "171.82 ± 0.04 (stat) ± 0.27 (syst) GeV"): `after` is the text after the value.
fn uncertainty_unit(after: &str) -> Option<Kind> {
    let mut rest = after.trim_start();
    loop {
        rest = ["±", "+/-", "+-"]
            .iter()
            .find_map(|s| rest.strip_prefix(s))?
            .trim_start();
        let len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        if len == 0 {
            return None;
        }
        rest = rest[len..].trim_start();
        if let Some(inner) = rest.strip_prefix('(') {
            rest = inner[inner.find(')')? + 1..].trim_start();
        }
        if let Some(&(_, k)) = unit_opening(rest) {
            return Some(k);
        }
    }
}

/// Whether `after` (the text after a percentage, lower case) opens with "CL", "C.L.",
/// "confidence", "band" or "interval": the percentage is a confidence level ("the 68% band of
/// the expected limit").
pub(crate) fn names_a_level(after: &str) -> bool {
    let rest = after.trim_start();
    let cl = ["cl", "c.l", "band", "bands", "interval", "intervals"]
        .iter()
        .any(|l| {
            rest.strip_prefix(l)
                .is_some_and(|r| !r.starts_with(char::is_alphanumeric))
        });
    cl || rest.starts_with("confidence")
}

/// The length in bytes of a negative power of ten opening `after` (normalised, lower case:
/// " x 10^-4", "x10-7", "e-5"), if one does.
fn negative_power(after: &str) -> Option<usize> {
    let rest = if let Some(r) = after.strip_prefix("e-") {
        r
    } else {
        let r = times_ten(after)?.trim_start();
        let r = r.strip_prefix('^').unwrap_or(r).trim_start();
        r.strip_prefix('-')?
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| after.len() - rest.len() + digits)
}

/// What follows "x 10" opening `after` (normalised, lower case: " x 10^-4" gives "^-4").
fn times_ten(after: &str) -> Option<&str> {
    after
        .trim_start()
        .strip_prefix('x')?
        .trim_start()
        .strip_prefix("10")
}

/// The length in bytes of a positive power of ten opening `after` (normalised, lower case,
/// superscripts made digits: " x 10^34", "x 1034" for × 10³⁴); an exponent opening with 0
/// ("x 100") is none.
fn positive_power(after: &str) -> Option<usize> {
    let r = times_ten(after)?;
    let r = r.strip_prefix('^').unwrap_or(r);
    let r = r.strip_prefix('+').unwrap_or(r);
    let digits = r.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && !r.starts_with('0')).then(|| after.len() - r.len() + digits)
}

/// Whether the answer sentences `claims` give numbers, none of them of a kind `question` asks
/// for: a luminosity for "at what output rate", a percentage for "how many events", a
/// unit-less cut value for "how soft is the muon allowed to be"; or, where the question fixes
/// no kind, only luminosities for a question naming no data ("lumi", "sample", "fb"). Years
/// are no values here.
pub fn other_kind(question: &str, claims: &[&str]) -> bool {
    // A year says when, not how much ("in 2023 the rate was 28 kHz").
    let given: Vec<Kind> = claims
        .iter()
        .flat_map(|c| values(question, c))
        .filter(|(n, _)| !conditions::is_year(n))
        .map(|(_, k)| k)
        .collect();
    if given.is_empty() {
        return false;
    }
    match asked(question) {
        Some(kinds) => !given.iter().any(|k| kinds.contains(k)),
        // Only a luminosity, for a question that names no data: "the PU offset … is 8.1 fb⁻¹".
        None => given.iter().all(|k| *k == Kind::Luminosity) && !names_data(question),
    }
}

/// Stems of words a question about an amount of data names ("how much '18 data", "int.
/// lumi", "the exposure", "what did we record").
const DATA_WORDS: &[&str] = &[
    "lumi",
    "data",
    "statistic",
    "sample",
    "record",
    "collect",
    "deliver",
    "exposure",
    "integrat",
    "analys",
    "analyz",
    "inverse",
    "femto",
    "pico",
    "certif",
];

/// Units of an amount of data, as whole words ("how many fb?").
const DATA_UNITS: &[&str] = &["fb", "pb", "nb", "ab"];

/// Whether `question` names an amount of data ([`DATA_WORDS`], [`DATA_UNITS`], or "how
/// much").
fn names_data(question: &str) -> bool {
    let q = focus::phrase_text(question);
    focus::has_phrase(&q, "how much")
        || q.split(|c: char| !c.is_alphanumeric())
            .any(|w| DATA_UNITS.contains(&w) || DATA_WORDS.iter().any(|d| w.starts_with(d)))
}

#[cfg(test)]
mod tests;
