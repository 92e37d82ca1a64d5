//! Tests of grounded prompts, citations and the numbers they write.
use super::*;

fn ev() -> Vec<String> {
    vec!["d1#1#0".into(), "d2#1#3".into(), "d3#1#1".into()]
}

#[test]
fn recite_points_a_sentence_at_one_excerpt() {
    assert_eq!(
        recite("The cut is 115 GeV. [2]", 1),
        "The cut is 115 GeV. [1]"
    );
    assert_eq!(
        recite("It is 4 GeV [2, 3] and 5 GeV [3].", 1),
        "It is 4 GeV [1] and 5 GeV."
    );
    assert_eq!(
        recite("As stated in [3], it is 0.1.", 2),
        "As stated in [2], it is 0.1."
    );
    assert_eq!(recite("[1] Four masses.", 3), "[3] Four masses.");
    assert_eq!(recite("No mark [GeV].", 2), "No mark [GeV]. [2]");
    // Marks joined by a connective are one citation: nothing dangles.
    assert_eq!(
        recite("It is 6 TeV, as in Excerpts [2] and [4].", 1),
        "It is 6 TeV, as in Excerpts [1]."
    );
    assert_eq!(recite("It is 6 TeV [2], [4][5].", 3), "It is 6 TeV [3].");
    assert_eq!(
        recite("It is 6 TeV [2] and 7 TeV [4].", 3),
        "It is 6 TeV [3] and 7 TeV."
    );
}

#[test]
fn citations_resolve_to_given_passages_and_others_are_dropped() {
    let c = check(
        "The cut is 26 GeV [1]. Muons are isolated [2, 3][1]. See also [7] and [x9#1#0].",
        &ev(),
    );
    assert_eq!(c.citations, vec!["d1#1#0", "d2#1#3", "d3#1#1"]);
    assert_eq!(c.invalid, 2);
    assert!(!c.abstained);
    let c = check("Energy is in [GeV] [passage 2] [d3#1#1]", &ev());
    assert_eq!(c.citations, vec!["d2#1#3", "d3#1#1"]);
    assert_eq!(c.invalid, 0);
    let c = check("No citation at all.", &ev());
    assert!(c.citations.is_empty() && c.invalid == 0);
    assert_eq!(check("[0] [4]", &ev()).invalid, 2);
}

#[test]
fn answers_split_into_sentences_with_their_citations() {
    let s = sentences(
        "The window is 110 < m < 150 GeV [1]. It follows from a resolution of 1.1–2.0%, e.g. in the barrel. [2][3] Fig. 3 shows it [2].\n- POWHEG [1]",
    );
    let texts: Vec<&str> = s.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "The window is 110 < m < 150 GeV [1].",
            "It follows from a resolution of 1.1–2.0%, e.g. in the barrel. [2][3]",
            "Fig. 3 shows it [2].",
            "- POWHEG [1]",
        ]
    );
    assert_eq!(
        s[1].claim,
        "It follows from a resolution of 1.1–2.0%, e.g. in the barrel."
    );
    assert_eq!(s[0].claim, "The window is 110 < m < 150 GeV.");
    assert!(sentences("  [1] ").is_empty());
    let s = sentences("The trigger requires pT > 23 GeV. [1], [2], [3] It is 93% efficient [2].");
    assert_eq!(s.len(), 2, "{s:?}");
    assert_eq!(s[0].text, "The trigger requires pT > 23 GeV. [1], [2], [3]");
    assert_eq!(sentences("No full stop [1]")[0].claim, "No full stop");
    // A numbered list: each item is one sentence, its number is not part of the claim.
    let s = sentences("The cuts are:\n1. pT > 20 GeV [1].\n2. |η| < 2.4 [2].\n10. Isolated.");
    let texts: Vec<&str> = s.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "The cuts are:",
            "1. pT > 20 GeV [1].",
            "2. |η| < 2.4 [2].",
            "10. Isolated."
        ]
    );
    assert_eq!(s[1].claim, "pT > 20 GeV.");
    assert_eq!(s[3].claim, "Isolated.");
    // A number ending a sentence is not a list item.
    assert_eq!(sentences("It is 2. Then 3.").len(), 2);
}

#[test]
fn abstentions_are_recognised() {
    for a in [
        "I don't know.",
        "I don’t know based on these passages",
        "  I do not know [1]",
        "The passages do not contain the answer.",
    ] {
        let c = check(a, &ev());
        assert!(c.abstained, "{a}");
        assert!(c.citations.is_empty());
    }
    assert!(!is_abstention("The trigger threshold is 24 GeV [1]."));
}

#[test]
fn an_uncited_sentence_goes_to_the_passage_sharing_most_words() {
    let p = |t: &str| Passage {
        chunk_id: t.into(),
        title: None,
        heading: None,
        page: None,
        text: t.into(),
    };
    let ps = [
        p("The Drell-Yan background is taken from simulation."),
        p("The integrated luminosity is 96.6 fb-1 from the 2017 and 2018 runs."),
        p("The luminosity uncertainty is 1.6%."),
    ];
    assert_eq!(closest("It used 96.6 fb-1 of luminosity.", &ps), 1);
    assert_eq!(closest("Nothing in common here", &ps), 0);
}

#[test]
fn numbers_the_cited_passages_do_not_write_are_found() {
    let p = Passage::of_text;
    let a = p("The integrated luminosity is 96.6 fb⁻¹; muons need pT > 26 GeV.");
    let b = p("The threshold was 27 GeV in 2017.");
    assert!(unwritten_numbers("It used 96.6 fb-1 with pT above 26 GeV.", "", &[&a]).is_empty());
    assert_eq!(
        unwritten_numbers("It used 97.6 fb-1.", "", &[&a]),
        vec!["97.6"]
    );
    // A whole number is not written inside a decimal one.
    assert_eq!(unwritten_numbers("It used 96 fb-1.", "", &[&a]), vec!["96"]);
    assert_eq!(
        unwritten_numbers("Muons need 27 GeV.", "", &[&a]),
        vec!["27"]
    );
    assert!(unwritten_numbers("Muons need 27 GeV.", "", &[&a, &b]).is_empty());
    assert!(unwritten_numbers("No number here.", "", &[]).is_empty());
    // An analysis id names a note: its digits are no value the passage must write.
    assert!(unwritten_numbers("It is TGlauberMC (HIN-25-006).", "", &[&a]).is_empty());
    assert_eq!(
        unwritten_numbers("It is 97.6 in AN-2026-009 and 60-120.", "", &[&a]),
        vec!["97.6", "60", "120"]
    );
    // Numbers the question writes are restated, not asserted.
    let q = "How large is the Run 3 luminosity uncertainty at 13.6 TeV?";
    assert_eq!(
        claimed_numbers("In Run 3 at 13.6 TeV it is 1.4% (2023).", q),
        vec!["1.4", "2023"]
    );
    assert!(unwritten_numbers("The Run 3 uncertainty is 26 GeV.", q, &[&a]).is_empty());
    assert_eq!(
        unwritten_numbers("The Run 3 uncertainty is 26 GeV.", "", &[&a]),
        vec!["3"]
    );
    // Where the claim points is no value of it (realistic17 BTV-26-043-q06: the change log
    // does not write the note's "Table 2").
    assert_eq!(
        claimed_numbers("It is 1.13 ± 0.08, as shown in Table 2 of the notes.", ""),
        vec!["1.13", "0.08"]
    );
}
