//! What a number counts: an answer saying "14 trees" where the notes write "14 input
//! variables" gives another fact than the one the notes state, with the notes' own number.

use crate::{cells, conditions, focus, grounding, kinds};

/// Words after a number that name nothing it counts, besides the words of no content
/// ([`focus::is_filler`]): prepositions and comparatives ("3 times", "12 above", "5 or
/// fewer"), English.
const NOT_COUNTED: &[&str] = &[
    "a", "an", "is", "but", "nor", "off", "onto", "out", "over", "times", "under", "while",
    "within", "without", "fewer", "least", "only", "both", "above", "below", "after", "before",
    "between", "around", "up", "down",
];

/// Whether `word` (lower case) names nothing a number counts.
fn not_counted(word: &str) -> bool {
    focus::is_filler(word) || NOT_COUNTED.contains(&word)
}

/// Words a number's window holds before it ("the number of trees is 14"): few, as a sentence
/// names other things nearby.
const BEFORE: usize = 2;

/// Words a number's window holds after it ("14 input variables").
const AFTER: usize = 3;

/// The whole-number occurrences of `number` in `text`: (start, end) byte offsets. Not inside
/// a word or a longer number ("14" in "14.5", "v14", "14th"); "14." ending a sentence is one.
fn occurrences(text: &str, number: &str) -> Vec<(usize, usize)> {
    grounding::number_occurrences(
        text,
        number,
        |c| c.is_alphanumeric() || c == '.' || c == '_',
        |c| c.is_ascii_digit() || c.is_alphabetic() || c == '_',
    )
    .collect()
}

/// The words (letters and hyphens, lower case) of `text`, in order.
fn words(text: &str) -> impl DoubleEndedIterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphabetic() || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| !w.is_empty())
}

/// The noun a number at `end` of `text` is written with: the word right after it (one space
/// at most), when that is a word of three letters or more, not a unit nor [`not_counted`].
fn noun_after(text: &str, end: usize) -> Option<String> {
    let rest = &text[end..];
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphabetic() || *c == '-')
        .collect::<String>()
        .to_lowercase();
    let word = word.trim_end_matches('-');
    (word.chars().count() >= 3 && !kinds::is_unit(word) && !not_counted(word))
        .then(|| word.to_string())
}

/// Whether two words are one, up to an ending: "tree" and "trees", "exceeds" and
/// "exceeding", "data" and "dataset" share their first four letters, or the whole shorter one.
fn same_word(a: &str, b: &str) -> bool {
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    common >= 4.min(a.chars().count()).min(b.chars().count())
}

/// Whether `claim` (an answer sentence to `question`, without its citation marks) writes one
/// of the numbers it asserts ([`kinds::values`]) with a noun ("14 trees") that the cited
/// passages never write near that number, while they write it with a noun of their own ("14
/// input variables"): the claim counts something else with the passages' number. A number
/// after a capitalised word (Run 2, Table 3) is a name's, and not read here; so is one the
/// passages write with no noun after it (a table cell, "a yield of 12 in the best category"),
/// and a year (1990–2039).
pub fn other_noun(question: &str, claim: &str, cited: &[&grounding::Passage]) -> bool {
    let claim = grounding::normalize(claim);
    let texts: Vec<String> = cited
        .iter()
        .map(|p| grounding::normalize(&p.text))
        .collect();
    kinds::values(question, &claim).iter().any(|(number, _)| {
        // A year counts nothing ("the 2023 proton-proton run").
        if conditions::is_year(number) {
            return false;
        }
        occurrences(&claim, number).into_iter().any(|(s, e)| {
            let Some(noun) = noun_after(&claim, e) else {
                return false;
            };
            // The word before: a capitalised one names (Run 2, Table 3), unless a word that
            // counts nothing, opening the sentence ("The 14 …").
            let before = claim[..s]
                .trim_end()
                .rsplit(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or_default();
            let named = before.chars().next().is_some_and(char::is_uppercase)
                && !not_counted(&before.to_lowercase());
            if named {
                return false;
            }
            let mut own = false;
            let mut near: Vec<String> = Vec::new();
            for t in &texts {
                for (ps, pe) in occurrences(t, number) {
                    own |= noun_after(t, pe).is_some();
                    near.extend(words(&t[..ps]).rev().take(BEFORE));
                    near.extend(words(&t[pe..]).take(AFTER));
                }
            }
            own && !near.iter().any(|w| same_word(w, &noun))
        })
    })
}

/// Whether `claim` gives a number of the cited passages for something else than they write it
/// for: with another noun ([`other_noun`]), or a count for a ratio ([`count_for_ratio`]).
pub(crate) fn miscounted(question: &str, claim: &str, cited: &[&grounding::Passage]) -> bool {
    other_noun(question, claim, cited) || count_for_ratio(question, claim, cited)
}

/// Words of a question asking for a ratio of some kind, not a count ("Z R_AA for the head-on
/// decile", "flip prob", "data/sim SF").
const RATIOS: &[&str] = &[
    "raa",
    "r_aa",
    "ratio",
    "fraction",
    "efficiency",
    "eff",
    "sf",
    "scale factor",
    "probability",
    "prob",
    "purity",
    "acceptance",
];

/// Words of a question asking for a count.
const COUNTED: &[&str] = &[
    "how many",
    "number of",
    "yield",
    "yields",
    "candidates",
    "cands",
    "events",
    "evts",
    "count",
    "counts",
    "entries",
];

/// Words of a table column's header holding counts ("Z → μμ candidates", "Events").
const COUNT_HEADERS: &[&str] = &[
    "candidates",
    "events",
    "yield",
    "yields",
    "entries",
    "count",
    "counts",
];

/// Whether `claim` gives, for a question asking for a ratio ([`RATIOS`], and no count:
/// [`COUNTED`]), a number the cited passages write only in table columns of counts
/// ([`COUNT_HEADERS`]): a count read for a ratio (realistic18 HIN-26-077-q01: "Z R_AA for the
/// head-on decile" answered with 2600 Z → μμ candidates).
pub(crate) fn count_for_ratio(question: &str, claim: &str, cited: &[&grounding::Passage]) -> bool {
    let q = focus::phrase_text(&grounding::normalize(question));
    let has = |t: &str, words: &[&str]| words.iter().any(|w| focus::has_phrase(t, w));
    if !has(&q, RATIOS) || has(&q, COUNTED) {
        return false;
    }
    // Each passage read once: its text and its cells under a header of counts, normalised.
    let read: Vec<(String, Vec<String>)> = cited
        .iter()
        .map(|p| {
            let counts = cells::tables(&p.text).into_iter().flat_map(|t| {
                let columns: Vec<bool> = (t.header.iter().enumerate())
                    .map(|(c, h)| c > 0 && has(&h.to_lowercase(), COUNT_HEADERS))
                    .collect();
                t.body
                    .into_iter()
                    .flat_map(|row| row.into_iter().enumerate())
                    .filter(move |(c, _)| columns.get(*c).copied().unwrap_or(false))
                    .map(|(_, cell)| grounding::normalize(&cell))
            });
            (grounding::normalize(&p.text), counts.collect())
        })
        .collect();
    grounding::claimed_numbers(claim, question).iter().any(|n| {
        let count = |t: &String| grounding::whole_numbers(t, n).count();
        let total: usize = read.iter().map(|(text, _)| count(text)).sum();
        let in_counts: usize = read.iter().flat_map(|(_, cells)| cells).map(count).sum();
        total > 0 && in_counts == total
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use grounding::Passage;

    #[test]
    fn a_number_counting_another_noun_than_the_passage_s_is_another_fact() {
        let p = Passage::of_text(
            "Decision on the multivariate analysis: a gradient-boosted decision tree (BDT, \
             XGBoost) with 14 input variables; the BDT score is split into five categories.",
        );
        let q = "Tell me how many trees the boosted ensemble was trained with.";
        assert!(other_noun(
            q,
            "The boosted ensemble was trained with 14 trees.",
            &[&p]
        ));
        // The passage's noun, or a word of its window, in other endings: the same fact.
        let q2 = "How many inputs does the BDT read?";
        assert!(!other_noun(q2, "It reads 14 input variables.", &[&p]));
        assert!(!other_noun(q2, "The BDT uses 14 variables.", &[&p]));
    }

    #[test]
    fn a_count_does_not_answer_for_a_ratio() {
        // realistic18 HIN-26-077-q01: the candidates' column read for the R_AA.
        let p = Passage::of_text(
            "| Centrality class | Z → μμ candidates | Z → ee candidates |\n|---|---|---|\n| 0–10% | 7832 | 3970 |\n| 30–50% | 2600 | 1320 |\n\nThe R_AA in 30–50% is 1.01 ± 0.04.",
        );
        let q = "Z R_AA for the head-on decile?";
        assert!(count_for_ratio(
            q,
            "The head-on decile of Z R_AA candidates is 2600.",
            &[&p]
        ));
        assert!(!count_for_ratio(q, "It is 1.01 ± 0.04.", &[&p]));
        // Asked for a count, or the number written elsewhere too.
        assert!(!count_for_ratio(
            "how many Z→μμ candidates in 30-50%?",
            "2600.",
            &[&p]
        ));
        assert!(count_for_ratio(
            "fraction of dimuon Zs in 30-50?",
            "1320 of them.",
            &[&p]
        ));
        let also = Passage::of_text("The ratio of the 30–50% yields is 2600/1320.");
        assert!(!count_for_ratio(q, "It is 2600.", &[&p, &also]));
    }

    #[test]
    fn numbers_without_a_noun_on_either_side_are_not_read() {
        let yields = Passage::of_text("The expected signal yield is 12 in the best category.");
        let q = "How many signal events are expected in the best category?";
        // The passage writes 12 with no noun after it: not judged.
        assert!(!other_noun(q, "12 signal events are expected.", &[&yields]));
        // The claim writes a unit or nothing after the number: not judged.
        let cut = Passage::of_text("Muons need pT > 26 GeV and 2 jets.");
        assert!(!other_noun(
            "What is the muon threshold?",
            "It is 26 GeV.",
            &[&cut]
        ));
        assert!(!other_noun(
            "What is the muon threshold?",
            "It is 26.",
            &[&cut]
        ));
        // A year counts nothing (realistic4 lum-vdm-2023-q04).
        let lumi = Passage::of_text("The 2023 calibration takes PCC as the primary luminometer.");
        assert!(!other_noun(
            "which lumi detector serves as the primary?",
            "The primary luminometer for the 2023 proton-proton run is PCC.",
            &[&lumi]
        ));
        // A number after a capitalised word is a name's (Run 2).
        let run = Passage::of_text("The search uses 2 partons in the matrix element.");
        assert!(!other_noun(
            "Which data set?",
            "They use the Run 2 dataset.",
            &[&run]
        ));
    }
}
