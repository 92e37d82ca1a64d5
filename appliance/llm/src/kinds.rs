//! The kind of quantity a question asks for (an energy, a luminosity, a count…) and the kinds
//! of the numbers an answer gives, read off their units (English questions).

use crate::grounding;

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
    ("inverse femtobarns", Kind::Luminosity),
    ("inverse femtobarn", Kind::Luminosity),
    ("inverse picobarns", Kind::Luminosity),
    ("inverse picobarn", Kind::Luminosity),
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
];

/// Phrases of a question that ask for a quantity of one of a few kinds, the first that occurs
/// deciding. Only phrases that fix the kind: "how soft" asks for an energy, but "pT" alone does
/// not ("the pT resolution" is a percentage), nor "luminosity" ("its uncertainty").
const ASKS: &[(&[&str], &[Kind])] = &[
    (
        &[
            "how soft",
            "how hard",
            "how energetic",
            "minimum pt",
            "pt threshold",
            "pt cut",
            "energy threshold",
            "mass bound",
            "mass limit",
            "mass reach",
        ],
        &[Kind::Energy],
    ),
    (
        &["how many inverse", "how many fb", "how much data"],
        &[Kind::Luminosity],
    ),
    (
        &[
            "how many events",
            "how many candidates",
            "how many signal events",
            "how many background events",
        ],
        &[Kind::Plain],
    ),
    (
        &["output rate", "how often", "how frequent", "rate"],
        &[Kind::Rate, Kind::Percent, Kind::Plain],
    ),
    (&["significance"], &[Kind::Significance, Kind::Plain]),
    (
        &[
            "branching ratio",
            "branching-ratio",
            "branching fraction",
            "signal strength",
        ],
        &[Kind::Plain, Kind::Percent],
    ),
    (
        &["what share", "what fraction", "what percentage", "percent"],
        &[Kind::Percent, Kind::Plain],
    ),
];

/// The kinds of quantity `question` asks for, when a phrase of it fixes them.
pub fn asked(question: &str) -> Option<&'static [Kind]> {
    let q = question.to_lowercase();
    let q = q.split_whitespace().collect::<Vec<_>>().join(" ");
    let word = char::is_alphanumeric;
    ASKS.iter()
        .find(|(phrases, _)| phrases.iter().any(|p| grounding::occurs(&q, p, word, word)))
        .map(|(_, kinds)| *kinds)
}

/// The kinds of the numbers `claim` asserts (those `question` does not write), in order: each
/// read off the unit after it, [`Kind::Plain`] without one. Digits inside a word (a trigger
/// name, "fb-1") or before a hyphen and a word ("2-jet") are no number.
pub fn given(question: &str, claim: &str) -> Vec<Kind> {
    let question = grounding::normalize(question);
    let text = grounding::normalize(claim).to_lowercase();
    let mut out = Vec::new();
    let mut rest = text.as_str();
    let mut before: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let starts = c.is_ascii_digit() && !before.is_some_and(|b| b.is_alphanumeric() || b == '_');
        if !starts {
            before = Some(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = rest[..len].trim_end_matches('.');
        let after = &rest[len..];
        let spaced = after.strip_prefix(' ').unwrap_or(after);
        let unit = UNITS.iter().find(|(u, _)| {
            spaced.starts_with(u)
                && !spaced[u.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric() && !u.ends_with('%'))
        });
        // "2-jet", "3-prong": a label, not a number given.
        let label = after
            .strip_prefix('-')
            .and_then(|a| a.chars().next())
            .is_some_and(char::is_alphabetic);
        if !label && !grounding::has_number(&question, number) {
            out.push(unit.map_or(Kind::Plain, |&(_, k)| k));
        }
        let skip = unit.map_or(len, |(u, _)| len + (after.len() - spaced.len()) + u.len());
        before = rest[..skip].chars().next_back();
        rest = &rest[skip..];
    }
    out
}

/// Whether the answer sentences `claims` give numbers, none of them of a kind `question` asks
/// for: a luminosity for "at what output rate", a percentage for "how many events", a
/// unit-less cut value for "how soft is the muon allowed to be".
pub fn other_kind(question: &str, claims: &[&str]) -> bool {
    let Some(kinds) = asked(question) else {
        return false;
    };
    let given: Vec<Kind> = claims.iter().flat_map(|c| given(question, c)).collect();
    !given.is_empty() && !given.iter().any(|k| kinds.contains(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_give_the_kind_of_each_asserted_number() {
        assert_eq!(
            given(
                "What did Run 2 record?",
                "Run 2 recorded 35.3 fb⁻¹ and 61.3 fb-1 with HLT_IsoMu24, 2.3% uncertainty."
            ),
            [Kind::Luminosity, Kind::Luminosity, Kind::Percent]
        );
        assert_eq!(
            given(
                "Which cuts?",
                "pT > 25 GeV, Δφ > 2.5 radians, 4.4%, 3σ, 10 events, 500 Hz, 0.15."
            ),
            [
                Kind::Energy,
                Kind::Angle,
                Kind::Percent,
                Kind::Significance,
                Kind::Plain,
                Kind::Rate,
                Kind::Plain,
            ]
        );
        // "mm" is no unit of "mmed", "ev" none of "events"; "0-jet" is a label.
        assert_eq!(
            given("Q?", "mmed < 2 mmed, 7 events in the 0-jet and 1-jet bins"),
            [Kind::Plain, Kind::Plain]
        );
        // Numbers the question writes are restated, not given.
        assert_eq!(
            given("What does the 13 TeV run give?", "At 13 TeV, 4 GeV."),
            [Kind::Energy]
        );
    }

    #[test]
    fn a_number_of_another_kind_than_asked_is_found() {
        let rate = "At what output rate does the scouting stream run?";
        assert!(other_kind(rate, &["It runs at 35.3 fb⁻¹ and 61.3 fb⁻¹."]));
        assert!(!other_kind(rate, &["It runs at 5 kHz."]));
        let events = "How many events are predicted in the SR above 1 TeV recoil?";
        assert!(other_kind(events, &["The prediction is 75% above 1 TeV."]));
        assert!(!other_kind(events, &["1200 events are predicted."]));
        let br = "What branching-ratio bound did the data set for the flavour-violating decay?";
        assert!(other_kind(
            br,
            &[
                "It used 138 fb⁻¹ at 13 TeV.",
                "Events are split into 0-jet and 1-jet."
            ]
        ));
        assert!(!other_kind(br, &["B < 0.15% at 95% CL."]));
        let soft = "How soft is the second muon allowed to be?";
        assert!(other_kind(soft, &["Its relative isolation is below 0.15."]));
        // One number of the asked kind in any sentence answers.
        assert!(!other_kind(soft, &["Isolation < 0.15.", "pT > 15 GeV."]));
        // No number: another check's business; no kind fixed: nothing to say.
        assert!(!other_kind(soft, &["It must be soft."]));
        assert!(!other_kind("What is the pT resolution?", &["It is 2%."]));
        assert!(!other_kind(
            "What luminosity uncertainty is assigned?",
            &["It is 1.6%."]
        ));
    }
}
