//! Tests of the changes notes state and the answers restated with their new values.
use super::*;
use crate::grounding::Passage;

fn nums(v: &[&str]) -> Value {
    Value::Numbers(v.iter().map(|s| s.to_string()).collect())
}

#[test]
fn changes_are_read_from_the_ways_notes_state_them() {
    let pairs = |t: &str| -> Vec<(Value, Value)> {
        changes(t).into_iter().map(|c| (c.old, c.new)).collect()
    };
    assert_eq!(
        pairs("The VXD acceptance window is therefore widened from [-90, +150] ps to [-150, +250] ps."),
        [(nums(&["90", "150"]), nums(&["150", "250"]))]
    );
    assert_eq!(
        pairs("The pT threshold was raised from 3 GeV to 5 GeV in r21."),
        [(nums(&["3"]), nums(&["5"]))]
    );
    assert_eq!(
        pairs("Threshold region redefined: m(tt̄) < 380 GeV (previously < 400 GeV)."),
        [(nums(&["400"]), nums(&["380"]))]
    );
    assert_eq!(
        pairs("- Lower BDT edge: 0.90 → 0.92 (all categories)."),
        [(nums(&["0.90"]), nums(&["0.92"]))]
    );
    // realistic19 HIG-26-093 (minutes): the present tense, an article and the version of the
    // note that gave the old value.
    assert_eq!(
        pairs("The observed rejection of the pure CP-odd hypothesis moves from the 3.2σ in v2.0 of the note to 3.4σ."),
        [(nums(&["3.2"]), nums(&["3.4"]))]
    );
    assert_eq!(
        pairs("The cut was tightened from about 40 GeV to 45 GeV."),
        [(nums(&["40"]), nums(&["45"]))]
    );
    assert_eq!(
        pairs("The selection now uses GN2v01 at the 77% working point instead of DL1r."),
        [(Value::Name("dl1r".into()), Value::Name("gn2v01".into()))]
    );
    // realistic5's hypernews thread and conveners' review.
    assert_eq!(
        pairs("The background fit now starts at m_jj = 0.72 TeV for both years (it was 0.65 TeV in AN v4)."),
        [(nums(&["0.65"]), nums(&["0.72"]))]
    );
    assert_eq!(
        pairs("With the revised model the expected precision becomes ±5.6% at 68% CL, compared with ±4.8% in v1.3."),
        [(nums(&["4.8"]), nums(&["5.6"]))]
    );
    // Ranges, effects, decays and headings are no change.
    for t in [
        "Proper decay lengths from 0.1 mm to 1 m are probed.",
        "Adding it moves the expected D from −0.470 to −0.493.",
        "The density after timing rises from 270 to 390 hits/cm².",
        "The decays B0s → μ+μ− are FCNC processes.",
        "## Summary of numerical changes v3 → v4",
        "The efficiency was measured from 20 GeV for electrons to 30 GeV for muons.",
        "The data efficiency is 92%, compared with 88% in simulation.",
        "It becomes flat above 40 GeV (the plateau), 35 GeV for electrons.",
        "The peak moves from 1 TeV in the first bin to the last one.",
    ] {
        assert_eq!(pairs(t), [], "{t}");
    }
}

#[test]
fn an_old_value_is_restated_from_the_passage_that_changed_it() {
    let an = Passage::of_text(
        "| Detector | Resolution | Acceptance window |\n|---|---|---|\n| VXD (barrel and disks) | 30 ps | [-90, +150] ps |",
    );
    let twiki = Passage::of_text(
        "The VXD acceptance window is therefore widened from [-90, +150] ps to [-150, +250] ps (same rule).",
    );
    let question = "How early and how late can a pixel hit arrive, as of now?";
    let text = "A hit may arrive as early as -90 ps and as late as +150 ps [1].";
    let claim = "A hit may arrive as early as -90 ps and as late as +150 ps.";
    let r = restate(question, text, claim, &[&an], &[&an, &twiki]).unwrap();
    assert_eq!(
        r.text,
        "A hit may arrive as early as -150 ps and as late as +250 ps [1]."
    );
    assert_eq!(r.passage, 1);
    // Asked about the earlier window, or giving both: as written.
    assert_eq!(
        restate(
            "What was the window originally?",
            text,
            claim,
            &[&an],
            &[&an, &twiki]
        ),
        None
    );
    let both = "It was widened from [-90, +150] ps to [-150, +250] ps.";
    assert_eq!(restate(question, both, both, &[&twiki], &[&twiki]), None);
    // A value about something else that happens to be the old one: as written.
    let other = Passage::of_text("Signal acceptance is largest for masses below 90 ps of flight.");
    let c = "Acceptance is largest below 90 ps.";
    assert_eq!(restate(question, c, c, &[&other], &[&other, &twiki]), None);
}

#[test]
fn a_value_moved_from_the_version_of_the_note_is_restated() {
    // realistic19 HIG-26-093-q06: the note's 3.2σ, and the minutes moving it to 3.4σ.
    let an = Passage::of_text(
        "The pure CP-odd hypothesis is excluded at 3.2σ observed (2.9σ expected).",
    );
    let minutes = Passage::of_text(
        "- The observed rejection of the pure CP-odd hypothesis moves from the 3.2σ in v2.0 of the note to 3.4σ. The expected value is unchanged at 2.9σ.",
    );
    let q = "How strongly is a purely pseudoscalar ττH vertex disfavoured — current number";
    let t = "The pure CP-odd hypothesis is excluded at 3.2σ observed (2.9σ expected).";
    assert_eq!(
        restated(q, t, &an, &[&an, &minutes]).as_deref(),
        Some("The pure CP-odd hypothesis is excluded at 3.4σ observed (2.9σ expected).")
    );
}

#[test]
fn a_table_of_two_versions_states_each_row_s_change() {
    // realistic19 TOP-26-089-q06: the changelog tabulates v2 against v3.
    let log = Passage::of_text(
        "**Numerical change**\n\n| Quantity (Section 8) | v2 | v3 |\n|---|---|---|\n| Upper limit on top Yukawa modifier, 95% CL | \\|κ_t\\| < 1.7 | \\|κ_t\\| < 1.6 |\n| Data/MC SF | 1.18 ± 0.09 | 1.13 ± 0.08 |",
    );
    let pairs: Vec<(Value, Value)> = changes(&log.text)
        .into_iter()
        .map(|c| (c.old, c.new))
        .collect();
    assert_eq!(
        pairs,
        [
            (nums(&["1.7"]), nums(&["1.6"])),
            (nums(&["1.18", "0.09"]), nums(&["1.13", "0.08"]))
        ]
    );
    let an = Passage::of_text(
        "Assuming the ttH background scales with κ_t², the top Yukawa modifier is constrained to |κ_t| < 1.7 at 95% CL.",
    );
    let q = "how large can κt be per the 4t interpretation, latest version?";
    let t = "The top Yukawa modifier is constrained to |κ_t| < 1.7 at 95% CL.";
    assert_eq!(
        restated(q, t, &an, &[&an, &log]).as_deref(),
        Some("The top Yukawa modifier is constrained to |κ_t| < 1.6 at 95% CL.")
    );
    // Columns of two channels, or of years, are no versions.
    let channels =
        "| Quantity | ee | μμ |\n|---|---|---|\n| SF | 1.02 | 0.98 |\n| Years | 2022 | 2023 |";
    assert!(changes(channels).is_empty());
    let years = "| Quantity | 2022 | 2023 |\n|---|---|---|\n| SF | 1.02 | 0.98 |";
    assert!(changes(years).is_empty());
}

#[test]
fn a_later_passage_changing_a_first_look_value_joins_the_first_look() {
    let table = Passage::of_text(
        "| Detector | Acceptance window |\n|---|---|\n| VXD (barrel and disks) | [-90, +150] ps |",
    );
    let other = Passage::of_text("Beam-induced background is mostly late.");
    let range = Passage::of_text("Proper decay lengths from 0.1 mm to 1 m are probed.");
    let log = Passage::of_text(
        "The VXD acceptance window is therefore widened from [-90, +150] ps to [-150, +250] ps.",
    );
    let given = [table, other.clone(), range, log.clone()];
    let (order, first) = bring_forward(&given, 2);
    assert_eq!((order.as_slice(), first), ([0, 3, 1, 2].as_slice(), 3));
    // Its own result is left as it is.
    let again: Vec<Passage> = order.iter().map(|&i| given[i].clone()).collect();
    assert_eq!(bring_forward(&again, first), (vec![0, 1, 2, 3], 3));
    // Nothing in the first look gives the old value: as retrieved.
    assert_eq!(bring_forward(&[other, log], 1), (vec![0, 1], 1));
}

/// `t` (a sentence that is its own claim) restated for `q`, judged against `against` with
/// `shown` on show: the restated text, if any.
fn restated(q: &str, t: &str, against: &Passage, shown: &[&Passage]) -> Option<String> {
    restate(q, t, t, &[against], shown).map(|r| r.text)
}

#[test]
fn a_value_a_later_passage_marks_as_new_replaces_the_old_one() {
    // realistic16 BPH-26-023-q06: the note's result, and the thread giving the new one.
    let an = Passage::of_text(
        "Integrated over the fiducial region, R_c/u = (0.672 ± 0.021 (stat) ± 0.036 (syst))%. The result is compatible with the 7 and 13 TeV measurements.",
    );
    let hn = Passage::of_text(
        "- The integrated ratio is now R_c/u = (0.663 ± 0.021 (stat) ± 0.031 (syst))%. This replaces the number in AN v2.",
    );
    let q = "current overall bc/bu production fraction";
    let t = "The fraction is (0.672 ± 0.021 (stat) ± 0.036 (syst))% [1].";
    let c = "The fraction is (0.672 ± 0.021 (stat) ± 0.036 (syst))%.";
    let r = restate(q, t, c, &[&an], &[&an, &hn]).unwrap();
    assert_eq!(
        (r.text.as_str(), r.passage),
        (
            "The fraction is (0.663 ± 0.021 (stat) ± 0.031 (syst))% [1].",
            1
        )
    );
    // The central value alone.
    let c1 = "The ratio is 0.672%.";
    assert_eq!(
        restated(q, c1, &an, &[&an, &hn]).unwrap(),
        "The ratio is 0.663%."
    );
    // Not asked for the value as it is now, or asked for the old one: as written.
    assert_eq!(restate("bc/bu fraction?", t, c, &[&an], &[&an, &hn]), None);
    assert_eq!(
        restate("bc/bu fraction before the fix?", t, c, &[&an], &[&an, &hn]),
        None
    );
    assert!(!asks_latest("which charged-current dy generator?"));
    assert!(!asks_latest("leakage current in l3?"));
    assert!(asks_latest("current met cut?") && asks_latest("met cut these days?"));
    // An uncertainty alone is no value to replace by position.
    let e = "Its statistical uncertainty is 0.021 and the systematic 0.036%.";
    assert_eq!(restated(q, e, &an, &[&an, &hn]), None);
    // realistic15 TRK-26-010-q06: a table cell, and the e-log's new ratio.
    let table = Passage::of_text(
        "| Structure | Radius (cm) | Vertices | Data/sim |\n|---|---|---|---|\n| Pixel support tube | 21.7 | 1206 | 1.14 ± 0.05 |",
    );
    let elog = Passage::of_text(
        "Only the range 20–23 cm is affected. New data/simulation ratio for the pixel support tube: 1.09 ± 0.05 (AN v1: 1.14 ± 0.05). All other structures move by less than 0.005.",
    );
    let t = "The ratio for the support tube is 1.14 ± 0.05 [1].";
    let r = restated(
        "obs/sim for the pix support cylinder, latest?",
        t,
        &table,
        &[&table, &elog],
    );
    assert_eq!(
        r.unwrap(),
        "The ratio for the support tube is 1.09 ± 0.05 [1]."
    );
    // realistic15 SMP-26-029-q06: one topic word shared, the old value written beside.
    let an = Passage::of_text("The MATRIX prediction is 16.7 pb (+0.7/−0.6).");
    let rev = Passage::of_text(
        "The updated prediction is 16.2 pb (+0.7/−0.6), to be compared with 16.7 pb (+0.7/−0.6) quoted in the note.",
    );
    let t = "The SM prediction is 16.7 pb [1].";
    let r = restated("SM pred for total σ(ZZ) — latest?", t, &an, &[&an, &rev]);
    assert_eq!(r.unwrap(), "The SM prediction is 16.2 pb [1].");
    // A new value of something else, or a marking word that leads to no value of its own
    // ("will be updated in version 4"): as written.
    for later in [
        "The new trigger threshold for the muon leg is 24 GeV.",
        "The MATRIX prediction will be updated in version 4.",
        "The MATRIX prediction uses the updated 13 TeV PDF fits.",
    ] {
        let later = Passage::of_text(later);
        let q = "SM pred for total σ(ZZ) — latest?";
        assert_eq!(restated(q, t, &an, &[&an, &later]), None, "{later:?}");
    }
    // The e-log alone, cited: the old value after the new one, an entry number beside it.
    let entry = Passage::of_text(
        "**Entry 4 — Tuesday, 18:45 — fix and rerun**\n\nFixed the mass hypothesis and reran the ratio for all structures. New data/simulation ratio for the pixel support tube: 1.09 ± 0.05 (AN v1: 1.14 ± 0.05).",
    );
    let t =
        "The latest ratio for the pixel support cylinder is 1.14 ± 0.05, as shown in Entry 4 [1].";
    let r = restated(
        "obs/sim for the pix support cylinder, latest?",
        t,
        &entry,
        &[&entry],
    );
    assert_eq!(
        r.unwrap(),
        "The latest ratio for the pixel support cylinder is 1.09 ± 0.05, as shown in Entry 4 [1]."
    );
    // realistic13 TOP-26-021-q06: a year after the value, fewer new numbers than claimed.
    let an = Passage::of_text(
        "- e→γ misID: Z → ee tag-and-probe. Data/MC SF: 1.31 ± 0.09 (2022), 1.44 ± 0.11 (2023); applied to all MC misID contributions.",
    );
    let arc = Passage::of_text(
        "We switched to the CMSShape model and refit. The 2023 data/MC SF is now 1.38 ± 0.10. The 2022 value does not change.",
    );
    let t = "The newest misID SF for the '23 data is 1.44 ± 0.11 (2023) [2].";
    let r = restated(
        "newest ele→γ misID SF for the '23 data?",
        t,
        &an,
        &[&arc, &an],
    );
    assert_eq!(
        r.unwrap(),
        "The newest misID SF for the '23 data is 1.38 ± 0.10 (2023) [2]."
    );
}

#[test]
fn an_old_name_is_restated_with_the_passage_spelling() {
    let p = Passage::of_text(
        "Flavour tagging: the selection now uses GN2v01 at the 77% working point instead of DL1r.",
    );
    let s = "We rely on DL1r at the 77% working point [1].";
    let r = restate("Which b-tagger do we use?", s, s, &[&p], &[&p]).unwrap();
    assert_eq!(r.text, "We rely on GN2v01 at the 77% working point [1].");
}

#[test]
fn a_new_value_in_bold_or_for_a_bin_replaces_the_old_one() {
    // realistic17 BTV-26-043-q06: the change log's new value in bold, the old in parentheses.
    let an = Passage::of_text(
        "Table 2: SF_light for the M WP vs jet pT (GeV), per year (total unc.).\n\n| pT bin | 2022 | 2023 | 2024 |\n|---|---|---|---|\n| 20–50 | 1.21 ± 0.10 | 1.18 ± 0.09 | 1.14 ± 0.07 |\n| 50–100 | 1.15 ± 0.08 | 1.12 ± 0.08 | 1.09 ± 0.06 |",
    );
    let log = Passage::of_text(
        "- Effect: only the 20–50 GeV bin of the 2023 M WP changes visibly. The luminosity-weighted 2023 SF in that bin is now **1.13 ± 0.08** (AN v1: 1.18 ± 0.09). The postBPix-only value went from 1.30 to 1.15, the preBPix value (1.12) is unchanged.",
    );
    let t = "The newest '23 med-wp number for the lowest-momentum (20–50) jets is 1.18 ± 0.09, as shown in Table 2 [2].";
    let q = "newest '23 med-wp number for the lowest-momentum jets";
    assert_eq!(
        restated(q, t, &an, &[&log, &an]).unwrap(),
        "The newest '23 med-wp number for the lowest-momentum (20–50) jets is 1.13 ± 0.08, as shown in Table 2 [2]."
    );
    // realistic17 HIN-26-046-q06: the new value given for a centrality bin.
    let an = Passage::of_text(
        "It is subtracted using the measured Ξ⁻ spectra. The pT-averaged feed-down fraction in 0–10% is 12 ± 3%, decreasing to 9% in 50–80%.",
    );
    let elog = Passage::of_text(
        "Redid the feed-down subtraction with the proper Ξ0 efficiency. **Updated pT-averaged feed-down fraction in 0–10%: 14 ± 3% (AN v1.1: 12 ± 3%).** The correction is applied as a function of pT.",
    );
    let t = "The feed-down fraction in central collisions is 12 ± 3% [1].";
    let q = "non-primary Λ contamination from weak decays, central, latest estimate";
    assert_eq!(
        restated(q, t, &an, &[&an, &elog]).unwrap(),
        "The feed-down fraction in central collisions is 14 ± 3% [1]."
    );
    assert_eq!(value_len("14 ± 3% (an v1.1: 12 ± 3%)."), 2);
    assert_eq!(
        value_len("16.2 pb (+0.7/−0.6), to be compared with 16.7 pb"),
        3
    );
    // A bin alone after the marker, no value: nothing marked.
    assert_eq!(leads_to("updated", " fraction in 0–10% will follow"), None);
    // "taken as" (realistic22 SUS-26-188-q06: the checklist's new non-closure systematic).
    let an = Passage::of_text(
        "The largest deviation, found in VR4, is taken as a flat non-closure uncertainty of \
         6.5% on the background prediction in every mass window.",
    );
    let checklist = Passage::of_text(
        "The analysts now add in quadrature the largest deviation and its statistical \
         uncertainty. After this change the non-closure systematic on the background is now \
         taken as 9.0% in all mass windows, replacing the number given in Section 4 of the note.",
    );
    let t = "The largest deviation, found in VR4, is taken as a flat non-closure uncertainty of \
             6.5% on the background prediction in every mass window. [2]";
    let q = "current non-closure syst on the QCD multijet prediction?";
    assert_eq!(
        restated(q, t, &an, &[&an, &checklist]).unwrap(),
        "The largest deviation, found in VR4, is taken as a flat non-closure uncertainty of \
         9.0% on the background prediction in every mass window. [2]"
    );
}

#[test]
fn a_value_after_the_version_that_gave_it_is_the_old_one() {
    let pairs = |t: &str| -> Vec<(Value, Value)> {
        changes(t).into_iter().map(|c| (c.old, c.new)).collect()
    };
    // realistic17 HIN-26-046, BTV-26-043, HIG-26-045; realistic2's ARC answers.
    assert_eq!(
        pairs("**Updated pT-averaged feed-down fraction in 0–10%: 14 ± 3% (AN v1.1: 12 ± 3%).**"),
        [(nums(&["12", "3"]), nums(&["14", "3"]))]
    );
    assert_eq!(
        pairs("The 2023 SF in that bin is now **1.13 ± 0.08** (AN v1: 1.18 ± 0.09)."),
        [(nums(&["1.18", "0.09"]), nums(&["1.13", "0.08"]))]
    );
    assert_eq!(
        pairs("The free tt+B rate parameter is now 1.21 ± 0.09 (AN v1.3: 1.16 ± 0.10)."),
        [(nums(&["1.16", "0.10"]), nums(&["1.21", "0.09"]))]
    );
    assert_eq!(
        pairs("The peaking B → hh′ expectation becomes 1.1 ± 0.3 events (v3: 0.9 ± 0.3)."),
        [(nums(&["0.9", "0.3"]), nums(&["1.1", "0.3"]))]
    );
    // A version with a date or a section is no old value.
    assert!(pairs("See the note (v2, 2026-01-22) for details.").is_empty());
    assert!(pairs("Limits are 3.2 fb (v3, Section 7).").is_empty());
}

#[test]
fn a_passage_changing_a_shown_value_is_shown_for_the_value_now() {
    // realistic17 HIN-26-046-q06: the e-log judged 0.01, the note's old value shown; the cut
    // for the question's words kept another entry of the e-log.
    let an = Passage::of_text(
        "The Λ yields contain a feed-down contribution from weak decays of Ξ⁻. The pT-averaged feed-down fraction in 0–10% is 12 ± 3%, decreasing to 9% in 50–80%.",
    );
    let other = Passage::of_text("The Λ/K0S ratio in 0–10% peaks at 1.62 ± 0.07.");
    let entry = "**3 Feb — R. Iyer**\nRedid the feed-down subtraction with the proper Ξ0 efficiency. **Updated pT-averaged feed-down fraction in 0–10%: 14 ± 3% (AN v1.1: 12 ± 3%).** The correction is applied as a function of pT, so the Λ spectra change by −1% to −3% between 1 and 6 GeV.";
    let first = "**21 Jan — R. Iyer**\nQuestion from the conveners at the last PAG meeting: the Λ feed-down correction assumes Ξ0 = Ξ⁻ for the weak decays, but the efficiency of secondary Λ from Ξ0 was taken from the Ξ⁻ MC sample, and these differ.";
    let elog = Passage::of_text(&format!("{first}\n\n{entry}"));
    let cut = Passage::of_text(first);
    let passages = [an.clone(), other.clone(), elog];
    let used = [an, other, cut];
    let q = "non-primary Λ contamination from weak decays, central, latest estimate";
    assert_eq!(
        updating(q, &passages, &used, &[0]),
        [(2, entry.to_string())]
    );
    // Shown already, no value of a shown passage changed, or not asked for the value now.
    assert!(updating(q, &passages, &used, &[0, 2]).is_empty());
    assert!(updating(q, &passages, &used, &[1]).is_empty());
    let asked = |q: &str| updating(q, &passages, &used, &[0]);
    assert!(asked("Λ feed-down fraction, central?").is_empty());
    assert!(asked("Λ feed-down fraction before the fix, latest AN?").is_empty());
}

#[test]
fn a_bare_statement_is_read_with_the_sentence_naming_what_it_is_about() {
    // realistic19 TOP-26-089-q06: the note's sentence giving 1.7 names the modifier only in
    // the sentence before it; the changelog's row names it.
    let an = Passage::of_text(
        "8. Interpretation\n\nSince the tt̄tt̄ cross section depends on the top Yukawa coupling through Higgs-boson exchange diagrams, the measurement constrains the coupling modifier κ_t. Assuming the ttH background scales with κ_t², we obtain |κ_t| < 1.7 at 95% CL. Limits on the Wilson coefficients of four-heavy-quark operators will be given in a separate note.",
    );
    let other = Passage::of_text("The 4ℓ channel is treated as one bin.");
    let log = Passage::of_text(
        "v3 (2026-04-09)\n\n**Numerical change**\n\n| Quantity (Section 8) | v2 | v3 |\n|---|---|---|\n| Upper limit on top Yukawa modifier, 95% CL | \\|κ_t\\| < 1.7 | \\|κ_t\\| < 1.6 |",
    );
    assert_eq!(
        bring_forward(&[an.clone(), other.clone(), log.clone()], 1),
        (vec![0, 2, 1], 2)
    );
    let q = "how large can κt be per the 4t interpretation, latest version?";
    let t = "We obtain |κ_t| < 1.7 at 95% CL.";
    assert_eq!(
        restated(q, t, &an, &[&an, &log]).as_deref(),
        Some("We obtain |κ_t| < 1.6 at 95% CL.")
    );
    // A passage whose sentences are about something else is not read as updated.
    let jets = Passage::of_text(
        "Jets are clustered with the anti-kT algorithm. The b-tagging scale factor is 1.7 for 2024.",
    );
    assert_eq!(bring_forward(&[jets, other, log], 1), (vec![0, 1, 2], 1));
}

#[test]
fn a_value_a_reader_is_asked_to_take_as_wrong_is_replaced_wherever_written() {
    // realistic19 EXO-26-095-q06: a HyperNews reply withdraws the note's 0.011.
    let hn = Passage::of_text(
        "After rerunning with the optimised region, the corrected observed 95% CL upper limit on the pre-exponential factor for E_sph = 9 TeV is 0.014. The expected limit stays at 0.013.\n\nPlease consider the 0.011 in Section 6 and in the summary of v1.3 as wrong; v1.4 of the AN will carry 0.014, and I will change the overview plot accordingly.",
    );
    let withdrawn: Vec<(Value, Value)> = changes(&hn.text)
        .into_iter()
        .filter(|c| c.everywhere)
        .map(|c| (c.old, c.new))
        .collect();
    assert_eq!(withdrawn, [(nums(&["0.011"]), nums(&["0.014"]))]);
    let summary = Passage::of_text(
        "8. Summary\n\nNo excess is observed. String balls are excluded below 9.3 TeV, and the sphaleron PEF is constrained to be below 0.011 for E_sph = 9 TeV.",
    );
    let other = Passage::of_text("Sphaleron events are simulated with BaryoGEN.");
    assert_eq!(
        bring_forward(&[summary.clone(), other, hn.clone()], 1),
        (vec![0, 2, 1], 2)
    );
    let q = "sphaleron prefactor bound (obs) — latest?";
    let t = "The sphaleron PEF is constrained to be below 0.011 for E_sph = 9 TeV.";
    assert_eq!(
        restated(q, t, &summary, &[&summary, &hn]).as_deref(),
        Some("The sphaleron PEF is constrained to be below 0.014 for E_sph = 9 TeV.")
    );
    // Without being taken as wrong, or with no verb leading to another value: no change.
    for text in [
        "Please consider the 0.011 in Section 6 as a conservative bound; v1.4 will carry 0.014.",
        "Please consider the 0.011 in Section 6 as wrong; the figure in v1.4 shows 0.014.",
    ] {
        assert!(changes(text).iter().all(|c| !c.everywhere), "{text}");
    }
}
