//! Whether an answer sentence speaks of what the question asks: a true sentence of the
//! passages about something else ("the soft-drop mass window is 105–210 GeV" for a charge
//! asymmetry) is no answer, however well the passages support it (English questions).
//!
//! The support judge asks whether the excerpts state the sentence, and a true sentence on
//! another subject passes it (benches/ANSWERS.md). A sentence is on the subject when it, or a
//! segment of its cited passages that states it, shares a subject word with the question: the
//! same word, one word the other shortened ("asym" for asymmetry, "bkg" for background), or
//! the same letters without the signs between them ("Ac" for A_C, "Wjets" for W+jets, "mu"
//! for μ).

use std::collections::HashSet;

use crate::{focus, grounding, qualifiers, terms};

/// Two-letter words that name no subject.
const SHORT: &[&str] = &[
    "of", "in", "at", "to", "is", "by", "on", "or", "an", "as", "it", "we", "be", "do", "no", "so",
    "up", "if", "vs",
];

/// Question words that say what is wanted of the subject, not the subject ("latest value",
/// "how many", "2024 data alone"), and units, which any number has.
const REQUEST: &[&str] = &[
    "value", "latest", "current", "number", "much", "many", "exact", "final", "new", "old",
    "updated", "quoted", "alone", "only", "give", "get", "whats", "gev", "tev", "mev", "kev", "fb",
    "pb", "cm", "mm", "ns", "ps",
];

/// The words of `text` as compared: lower case, Greek letters by their names ([`terms`]),
/// each run of letters and digits a word, and each white-space separated chunk of several also
/// as one word without the signs between them ("A_C" reads "a", "c" and "ac"; "W+jets" "w",
/// "jets" and "wjets"); a plural `s` dropped.
fn words(text: &str) -> HashSet<String> {
    let mut spelled = String::with_capacity(text.len());
    for c in grounding::normalize(text).chars() {
        match terms::greek_name(c) {
            Some(name) => {
                spelled.push(' ');
                spelled.push_str(name);
                spelled.push(' ');
            }
            None => spelled.extend(c.to_lowercase()),
        }
    }
    let mut out = HashSet::new();
    for chunk in spelled.split_whitespace() {
        let parts: Vec<&str> = chunk
            .split(|c: char| !c.is_alphanumeric())
            .filter(|p| !p.is_empty())
            .collect();
        if parts.len() > 1 {
            out.insert(focus::singular(&parts.concat()));
        }
        out.extend(parts.into_iter().map(focus::singular));
    }
    out
}

/// The words of `question` that name its subject: two characters or more with a letter, not
/// filler ([`focus::is_filler`]), not a request word ([`REQUEST`]), not an ordinal ("3rd").
fn subject(question: &str) -> HashSet<String> {
    words(question)
        .into_iter()
        .filter(|w| {
            w.chars().count() >= 2
                && w.chars().any(char::is_alphabetic)
                && !SHORT.contains(&w.as_str())
                && !REQUEST.contains(&w.as_str())
                && !focus::is_filler(w)
                && !is_ordinal(w)
        })
        .collect()
}

/// "1st", "2nd", "3rd", "10th".
fn is_ordinal(w: &str) -> bool {
    let digits = w.trim_end_matches(char::is_alphabetic);
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && matches!(&w[digits.len()..], "st" | "nd" | "rd" | "th")
}

/// Whether words `a` and `b` name the same thing: equal, or one of three letters or more the
/// other's letters in order from its first ("asym" for asymmetry, "bkg" for background, "evts"
/// for events), as physicists shorten words.
fn same(a: &str, b: &str) -> bool {
    let shortens = |short: &str, long: &str| {
        if short.chars().count() < 3
            // "for" is no shortening of "flavour", nor "the" of "threshold".
            || focus::is_filler(short)
            || !short.chars().all(char::is_alphabetic)
            || long.len() <= short.len()
            || short.chars().next() != long.chars().next()
        {
            return false;
        }
        let mut rest = long.chars();
        short.chars().all(|c| rest.any(|l| l == c))
    };
    a == b || shortens(a, b) || shortens(b, a)
}

/// Whether `claim` (an answer sentence to `question`, without its citation marks) speaks of
/// nothing the question names: neither it nor any segment of the passages `cited` that
/// states it ([`qualifiers::segments`]: a sentence or a table row with its header) shares a
/// subject word with the question ([`same`]). A segment states the claim when it writes every
/// number the claim asserts ([`grounding::claimed_numbers`]), or, for a claim asserting none,
/// when it shares two words with it. A question naming no subject word is not judged.
pub(crate) fn off_topic(question: &str, claim: &str, cited: &[&str]) -> bool {
    let asked = subject(question);
    if asked.is_empty() {
        return false;
    }
    let speaks = |ws: &HashSet<String>| ws.iter().any(|w| asked.iter().any(|a| same(a, w)));
    let said = words(claim);
    if speaks(&said) {
        return false;
    }
    let numbers = grounding::claimed_numbers(claim, question);
    let content: HashSet<String> = said
        .iter()
        .filter(|w| w.chars().count() >= 3 && !focus::is_filler(w))
        .cloned()
        .collect();
    !cited
        .iter()
        .flat_map(|text| qualifiers::segments(text))
        .any(|segment| {
            let ws = words(&segment);
            let states = if numbers.is_empty() {
                content.intersection(&ws).count() >= 2
            } else {
                numbers.iter().all(|n| grounding::has_number(&segment, n))
            };
            states && speaks(&ws)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "The hadronic top candidate in the boosted category is a large-radius \
jet identified with ParticleNet TvsQCD, with a soft-drop mass between 105 and 210 GeV.\n\n\
| m_tt̄ bin (GeV) | Observed A_C (%) | Prediction (%) |\n\
|---|---|---|\n\
| 500–750 | 0.96 ± 0.45 | 0.98 ± 0.06 |\n\
| 750–1000 | 1.31 ± 0.72 | 1.34 ± 0.09 |\n\n\
The W+jets normalisation from the sideband without b-tagged jets is 1.12 ± 0.05.";

    #[test]
    fn a_true_sentence_on_another_subject_is_off_topic() {
        let q = "obs charge asym in the 3rd m(ttbar) slice?";
        assert!(off_topic(
            q,
            "The soft-drop mass window is 105–210 GeV.",
            &[NOTE]
        ));
        assert!(off_topic(
            "Wjets SF from the no-btag sideband, latest?",
            "The top candidate is identified with ParticleNet TvsQCD.",
            &[NOTE]
        ));
    }

    #[test]
    fn a_sentence_or_the_segment_stating_it_on_the_subject_is_not() {
        // The claim's own words: an abbreviation by its opening letters.
        assert!(!off_topic(
            "obs charge asym in the 3rd m(ttbar) slice?",
            "The charge asymmetry is 1.31 ± 0.72%.",
            &[NOTE]
        ));
        // Only the table row stating the number, read with its header, names the subject
        // ("Observed A_C" for "obs … Ac").
        assert!(!off_topic(
            "obs Ac, 3rd slice?",
            "It is 1.31 ± 0.72.",
            &[NOTE]
        ));
        // "Wjets" for "W+jets", in the sentence writing the number.
        assert!(!off_topic(
            "Wjets SF from the no-btag sideband?",
            "It is 1.12 ± 0.05.",
            &[NOTE]
        ));
        // A name stated by a sentence sharing two words with the claim.
        assert!(!off_topic(
            "what IDs the had. top in the merged topology?",
            "ParticleNet TvsQCD.",
            &[NOTE]
        ));
        // Shortened words.
        assert!(!off_topic(
            "which fn fits the bkg?",
            "A dijet-like function describes the background.",
            &[]
        ));
        assert!(same("evt", "event") && same("reco", "reconnection") && !same("bkg", "kbg"));
        // A function word shortens nothing (realistic12 SUS-26-017-q04: "for" is not
        // "flavour", and a thread on b-tagging SFs is not about the discriminant).
        assert!(!same("for", "flavour") && !same("the", "threshold"));
        assert!(off_topic(
            "AK4 heavy-flavour discriminant?",
            "The final 2024 scale factors were released in January.",
            &[
                "The b-tagging scale factors for UParT at the medium working point were \
               preliminary for 2024. Are the final scale factors available?"
            ]
        ));
        // Greek letters by their names.
        assert!(!off_topic("qqH mu, latest?", "μ_VBF = 0.91.", &[]));
    }

    #[test]
    fn a_question_naming_no_subject_is_not_judged() {
        assert!(!off_topic("what is the latest value?", "It is 3.", &[NOTE]));
        // "2024" has no letter, "2nd" is an ordinal, "many" and "alone" are request words.
        let want: HashSet<String> = ["evt", "bin", "data"].map(String::from).into();
        assert_eq!(
            subject("how many evts in the 2nd bin, 2024 data alone?"),
            want
        );
    }
}
