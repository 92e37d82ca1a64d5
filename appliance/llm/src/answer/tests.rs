//! Tests of the answer pipeline's refusals and verdicts.
use super::*;

#[test]
fn what_is_left_beside_a_value_given_for_another_qualifier_does_not_answer() {
    let q = "Do we have the 2S nuclear modification factor in the 0-5% bin?";
    let judged = |text: &str, verdict: Verdict| Judged {
        text: text.into(),
        cites: vec![0],
        support: Some(1.0),
        attributed: false,
        restated: false,
        verdict,
    };
    let split = grounding::sentences("Yes, we have it. It is 0.43 for the 1S.");
    let checks = checks();
    let sentences = [
        judged("Yes, we have it.", Verdict::Supported),
        judged("It is 0.43 for the 1S.", Verdict::OtherQualifier),
    ];
    assert_eq!(
        answer_refusal(q, &sentences, &split, checks),
        Some(Refusal::Unanswered)
    );
    // Without that drop, a yes/no question is answered in its own words.
    let sentences = [
        judged("Yes, we have it.", Verdict::Supported),
        judged("It is 0.43 for the 1S.", Verdict::Unsupported),
    ];
    assert_eq!(answer_refusal(q, &sentences, &split, checks), None);
}

#[test]
fn an_answer_off_the_subject_does_not_answer() {
    let q = "obs charge asym in the 3rd m(ttbar) slice?";
    let split = grounding::sentences("The soft-drop mass window is 105–210 GeV.");
    let judged = Judged {
        text: split[0].text.clone(),
        cites: vec![0],
        support: Some(1.0),
        attributed: false,
        restated: false,
        verdict: Verdict::OffTopic,
    };
    assert_eq!(
        answer_refusal(q, std::slice::from_ref(&judged), &split, checks()),
        Some(Refusal::Unanswered)
    );
    // Beside an unsupported sentence, still no answer to the question.
    let two = grounding::sentences(
        "The soft-drop mass window is 105–210 GeV. The asymmetry is 0.7% in data.",
    );
    let unsupported = Judged {
        text: two[1].text.clone(),
        support: Some(-1.0),
        verdict: Verdict::Unsupported,
        ..judged.clone()
    };
    assert_eq!(
        answer_refusal(q, &[judged.clone(), unsupported.clone()], &two, checks()),
        Some(Refusal::Unanswered)
    );
    // Unsupported alone: unsupported.
    let judged = Judged {
        verdict: Verdict::Unsupported,
        ..judged
    };
    assert_eq!(
        answer_refusal(q, &[judged, unsupported], &two, checks()),
        Some(Refusal::Unsupported)
    );
}

#[test]
fn the_bar_to_answer_stays_where_a_lower_bar_to_show_is_set() {
    let mut checks = checks();
    let scores = [0.12, 0.45, -0.2, 0.3, 0.12];
    assert_eq!(checks.shown(&scores), Some(vec![1, 3]));
    assert_eq!(checks.shown(&[0.29, 0.1]), None);
    checks.min_shown_relevance = Some(0.1);
    // Ties keep their rank order; nothing below 0.1.
    assert_eq!(checks.shown(&scores), Some(vec![1, 3, 0, 4]));
    // No passage reaches 0.3: no answer, whatever is shown otherwise.
    assert_eq!(checks.shown(&[0.29, 0.1]), None);
    // A bar above min_relevance shows no fewer than min_relevance does.
    checks.min_shown_relevance = Some(0.5);
    assert_eq!(checks.shown(&scores), Some(vec![1, 3]));
}

/// Both judges on, the default bars, no answer-level support bar.
fn checks() -> Checks {
    Checks {
        relevance: true,
        min_relevance: 0.3,
        min_shown_relevance: None,
        relevance_paragraphs: 2,
        answer_paragraphs: 0,
        first_look: None,
        support: true,
        min_support: 0.0,
        min_answer_support: None,
    }
}

fn passage(text: &str) -> Passage {
    Passage::of_text(text)
}

#[test]
fn a_sentence_citing_a_passage_without_its_numbers_goes_to_the_one_with_them() {
    let used = [
        passage("The signal region is defined by 115 < m < 135 GeV."),
        passage("Jets must have pT > 25 GeV."),
        passage("The mass window of the signal fit is 115 to 135 GeV."),
    ];
    // Shown in relevance order: used 1, then 2, then 0 (excerpts [1], [2], [3]).
    let given = [1, 2, 0];
    let claim = "The fit keeps 115 < m < 135 GeV.";
    const Q: &str = "Which mass window does the fit keep?";
    // Cited right: judged where it points.
    assert_eq!(
        numbers_written_in(claim, Q, vec![0], &given, &used),
        Some((vec![0], None))
    );
    // Cited wrong: the most relevant shown passage writing both numbers, excerpt [2].
    assert_eq!(
        numbers_written_in(claim, Q, vec![1], &given, &used),
        Some((vec![2], Some(2)))
    );
    // A number no shown passage writes: nowhere to judge it.
    assert_eq!(
        numbers_written_in(
            "The fit keeps 110 < m < 135 GeV.",
            Q,
            vec![1],
            &given,
            &used
        ),
        None
    );
    // No numbers: judged where it points.
    assert_eq!(
        numbers_written_in("Jets are clustered.", Q, vec![1], &given, &used),
        Some((vec![1], None))
    );
    // A number the question writes is restated, not asserted: the one asserted decides.
    assert_eq!(
        numbers_written_in(
            "In Run 3 jets need 25 GeV.",
            "What jet pT does Run 3 require?",
            vec![1],
            &given,
            &used
        ),
        Some((vec![1], None))
    );
    assert_eq!(
        numbers_written_in("In Run 3 jets need 25 GeV.", Q, vec![1], &given, &used),
        None
    );
}
