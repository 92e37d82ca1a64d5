//! Tests of the conditions a value is stated under.
use super::*;
use crate::qualifiers::other_qualifier;
use grounding::Passage;

#[test]
fn numbers_of_the_case_asked_that_no_passage_writes() {
    // realistic11 BPH-26-005-q07: the forward bin the notes do not give.
    let central = "R is measured for |y| < 1.2 and 15 < pT < 100 GeV in 2022 and 2023.";
    assert_eq!(
        unwritten("R in the forward bin, 1.2<|y|<2.4?", &[central]),
        ["2.4"]
    );
    assert!(unwritten("R in the central bin, |y|<1.2, for '23?", &[central]).is_empty());
    assert_eq!(unwritten("R for '24, |y|<1.2?", &[central]), ["2024"]);
    // Written in another passage, in a range of years, a dash, a word or another unit.
    let other = "The 2022–2024 SF for 400–480 GeV at 0.1% mistag is 0.98.";
    assert!(unwritten("SF at 0.1% mistag for 400-480 in '23?", &[central, other]).is_empty());
    assert_eq!(unwritten("SF at 1% mistag for 400-480?", &[other]), ["1"]);
    assert!(unwritten("eff for 3<|eta|<5?", &["from three to 5 in |eta|"]).is_empty());
    assert!(unwritten("limit for a 5000 GeV W'?", &["excluded up to 5 TeV"]).is_empty());
    assert!(unwritten("limit for a 1.5 TeV W'?", &["at 1500 GeV"]).is_empty());
    // A whole number with a zero decimal, a zero mass in words, a band's level
    // (realistic10 B2G-26-009-q02, realistic11 EXO-26-011-q02, realistic4 sus-stop-0l-q06).
    let band = "| mass (TeV) | expected | ±1σ band |\n| 5.0 | 0.42 | 0.29–0.63 |";
    assert!(unwritten("1-sigma spread for a 5000 GeV resonance?", &[band]).is_empty());
    assert!(unwritten("68% band of the exp. UL at m=5 TeV?", &[band]).is_empty());
    let t2tt = "The T2tt limit for a massless neutralino is 1290 GeV.";
    assert!(unwritten("T2tt limit on m(stop) at m(LSP)=0?", &[t2tt]).is_empty());
    assert_eq!(
        unwritten("T2tt limit at m(LSP)=0?", &["at 1290 GeV"]),
        ["0"]
    );
    // Not read: numbers in words, adjectives, ids, CL, small counts, closed questions.
    let none = "Nothing numeric here.";
    for q in [
        "which code solves the ~200k-parameter problem?",
        "1-sigma spread of the 4-layer trks in the 2nd yr of run 3?",
        "HLT_Ele30 leg eff for 3p decays?",
        "expected 95% CL upper limit on mu?",
        "expected 95% C.L. upper limit on mu?",
        "fid xsec for 3 top systs?",
        "is the cut at 30 GeV?",
        "tau for SMP-26-007?",
    ] {
        assert!(unwritten(q, &[none]).is_empty(), "{q}");
    }
    assert_eq!(unwritten("eff at 30 GeV, beta=2?", &[none]), ["30", "2"]);
    // A category by its number of b jets is read ([`multiplicity`]; realistic11
    // TOP-26-009-q09), and mentioned by a category holding it.
    let q = "fid xsec with exactly 3 b jets, top 5 systs?";
    assert_eq!(unwritten(q, &[none]), ["3 b jets"]);
    assert!(unwritten(q, &["events with at least three b-tagged jets"]).is_empty());
    // realistic11 EGM-26-007-q10: a range of tower numbers.
    assert_eq!(
        unwritten("respcorr for |ieta| 13-15?", &[none]),
        ["13", "15"]
    );
    for q in [
        "SF for 22/23?",
        "density at |eta|≈1.5?",
        "density at ~1.5 in eta?",
    ] {
        assert!(unwritten(q, &[none]).is_empty(), "{q}");
    }
}

/// An offline replay of [`unwritten`] on a `mitra eval --answerer llm` trace file
/// (`MITRA_TRACES`): the numbers it finds for each traced question that showed passages,
/// read off the shown texts the trace records (without their titles). `cargo test -p
/// mitra-llm --lib unwritten_on_traces -- --ignored --nocapture`.
#[test]
#[ignore]
fn unwritten_on_traces() {
    let Ok(path) = std::env::var("MITRA_TRACES") else {
        return;
    };
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let t: serde_json::Value = serde_json::from_str(line).unwrap();
        let shown: Vec<&str> = t["shown"]
            .as_array()
            .map(|a| a.iter().filter_map(|s| s["text"].as_str()).collect())
            .unwrap_or_default();
        if !shown.is_empty() {
            let q = t["question"].as_str().unwrap_or_default();
            let id = t["id"].as_str().unwrap_or_default();
            println!("UNWRITTEN {id} {:?}", unwritten(q, &shown));
        }
    }
}

#[test]
fn a_value_of_another_year_does_not_answer() {
    // realistic4 lum-vdm-2023-q08: the 2023 calibration's uncertainty, asked for 2022.
    let p = Passage::of_text(
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
    // The claim itself places its value in another year (realistic6
    // btv-bsf-ttbar-run3-q09), though its passage gives both.
    let p = Passage::of_text("The Tight SF is 0.956 ± 0.015 in 2022 and 0.944 ± 0.017 in 2023.");
    let q = "RobustParT tight SF, '22?";
    assert!(other_qualifier(
        q,
        "The tight SF is 0.944 ± 0.017 in 2023.",
        &[&p]
    ));
    assert!(!other_qualifier(
        q,
        "The tight SF is 0.956 ± 0.015 in 2022.",
        &[&p]
    ));
    assert!(!other_qualifier(q, "The tight SF is 0.956 ± 0.015.", &[&p]));
    assert!(!other_qualifier(q, "In 2023 the SF was re-derived.", &[&p]));
    // A claim naming the asked year beside a value the table gives under another year
    // (realistic9 MUO-26-005-q06: the 2022 column read for '23).
    let p = Passage::of_text(
        "| Region | 2022 | 2023 |\n|---|---|---|\n| EMTF (1.6–2.1) | 0.941 ± 0.001 | 0.937 ± \
         0.002 |",
    );
    let q = "overlap finder eff for '23?";
    assert!(other_qualifier(
        q,
        "The efficiency for 2023 is 0.941 ± 0.001.",
        &[&p]
    ));
    assert!(!other_qualifier(
        q,
        "The efficiency for 2023 is 0.937 ± 0.002.",
        &[&p]
    ));
    assert!(!other_qualifier(
        "what was the total lumi unc?",
        "1.3%.",
        &[&p]
    ));
    // The default year is left implicit: only the clause of the value counts.
    let p = Passage::of_text("The leading muon needs pT > 26 GeV (24 GeV in 2016).");
    let q = "What pT must the leading muon have in 2017?";
    assert!(!other_qualifier(q, "26 GeV.", &[&p]));
    assert!(other_qualifier(q, "24 GeV.", &[&p]));
    // A range names the years inside it; a mass is no year.
    let p =
        Passage::of_text("The 2016-2018 data give 138 fb-1. The Z′ is excluded below 2035 GeV.");
    assert!(!other_qualifier("How much 2017 data?", "138 fb-1.", &[&p]));
    let named = |t: &str| years(t).into_iter().map(|(y, _)| y).collect::<Vec<_>>();
    assert!(named("excluded below 2035 gev, 2016.5, hlt_mu2017").is_empty());
    assert_eq!(named("'16 to '18, rock'n'roll'17"), [2016, 2017, 2018]);
    assert!(other_qualifier("How much 2022 data?", "138 fb-1.", &[&p]));
}

#[test]
fn a_name_of_another_year_does_not_answer() {
    // realistic5 top-mass-ljets-q05: the 2016/2018 muon path given for 2017.
    let p = Passage::of_text(
        "Events are collected with single-lepton triggers:\n\n- 2016: IsoMu24 and \
         Ele27_WPTight;\n- 2017: IsoMu27 and Ele35_WPTight;\n- 2018: IsoMu24 and \
         Ele32_WPTight.",
    );
    let q = "2017 trigger menu: which single-e and single-mu paths?";
    assert!(other_qualifier(
        q,
        "They are IsoMu24 and Ele35_WPTight.",
        &[&p]
    ));
    assert!(!other_qualifier(
        q,
        "They are IsoMu27 and Ele35_WPTight.",
        &[&p]
    ));
    assert!(!other_qualifier(
        "2018 trigger menu: which single-e and single-mu paths?",
        "They are IsoMu24 and Ele32_WPTight.",
        &[&p]
    ));
    assert!(!other_qualifier(
        "which single-mu paths?",
        "IsoMu24 and IsoMu27.",
        &[&p]
    ));
}

#[test]
fn a_value_of_another_bin_does_not_answer() {
    // realistic3 hin-upsilon-q07/q08: the table's caption names its centrality bin.
    let p = Passage::of_text(
        "8. Results (0–90 %, integrated, p_T < 30 GeV, |y| < 2.4)\n\n| state | R_AA |\n\
         |---|---|\n| Υ(1S) | 0.43 ± 0.01 (stat) ± 0.03 (syst) |\n| Υ(3S) | < 0.06 at 95 % \
         CL |\n\n* R_AA(3S, 50–90 %) = 0.29 ± 0.09 ± 0.05; R_AA(1S) in 0–5 % = \
         0.34 ± 0.02",
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
    let p = Passage::of_text("The 3S is suppressed: R_AA = 0.06.");
    assert!(!other_qualifier(q, "It is 0.06.", &[&p]));
    // A bin without a unit is one of a centrality table's (realistic9 HIN-26-012-q08).
    let p = Passage::of_text("After the fix, v2{SP} in 30–40% is now 0.0968 ± 0.0004.");
    let q = "trk eff at ~0.5 GeV for peripheral (70-80) events from hydjet?";
    assert!(other_qualifier(q, "It is 0.0968 ± 0.0004.", &[&p]));
    assert!(!other_qualifier("v2 for 30-40?", "0.0968 ± 0.0004.", &[&p]));
    assert!(!other_qualifier("v2 for |eta| 0.3-0.6?", "0.0968.", &[&p]));
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
    let p = Passage::of_text(
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
fn a_value_written_for_another_condition_does_not_answer() {
    // realistic5 jme-jec-run3-q03: the 30 GeV value of a list given for 100 GeV.
    let p = Passage::of_text(
        "For AK4 PUPPI jets in |η| < 1.3 the total uncertainty is 2.4% at pT = 30 GeV, 0.9% \
         at pT = 100 GeV and 0.6% at pT = 1 TeV.",
    );
    let q = "how solid is our energy scale for 100 GeV jets in the barrel, percent-wise?";
    assert!(other_qualifier(q, "It is 2.4% at pT = 100 GeV.", &[&p]));
    assert!(!other_qualifier(q, "It is 0.9%.", &[&p]));
    assert!(!other_qualifier("JES unc at 30 GeV?", "2.4%.", &[&p]));
    // The condition in a clause of its own: not judged.
    let p = Passage::of_text("At pT = 100 GeV, the uncertainty is 2.4%.");
    assert!(!other_qualifier(q, "2.4%.", &[&p]));
    // The other side of a bound (realistic5 exo-dijet-scouting-q09).
    let p = Passage::of_text(
        "For pT > 100 GeV the scouting-to-offline response ratio is within 1% over the whole \
         η range.",
    );
    let q = "scouting vs offline response for jets below 100 GeV?";
    assert!(other_qualifier(
        q,
        "It is within 1% for pT > 100 GeV.",
        &[&p]
    ));
    assert!(!other_qualifier("… above 100 GeV?", "Within 1%.", &[&p]));
    assert!(!other_qualifier("… at 100 GeV?", "Within 1%.", &[&p]));
    // A bound that holds the asked point meets it; one that does not, does not, whether
    // the passage writes the asked point or not (realistic5 hgcal-testbeam-q09).
    let p = Passage::of_text("The efficiency is 95% for pT > 30 GeV.");
    assert!(!other_qualifier("eff for 100 GeV jets?", "95%.", &[&p]));
    assert!(other_qualifier("eff for 20 GeV jets?", "95%.", &[&p]));
    assert!(!other_qualifier("eff above 50 GeV?", "95%.", &[&p]));
    let p = Passage::of_text(
        "For single cells, the resolution reaches a constant term of 54 ps for signals \
         above 200 MIP.",
    );
    assert!(other_qualifier(
        "single-cell timing at ~20 MIP?",
        "54 ps.",
        &[&p]
    ));
    assert!(!other_qualifier(
        "single-cell timing at 500 MIP?",
        "54 ps.",
        &[&p]
    ));
    let p = Passage::of_text("The SF is 0.95 for pT ≤ 100 GeV.");
    assert!(other_qualifier("SF over 100 GeV?", "0.95.", &[&p]));
    assert!(!other_qualifier("SF under 100 GeV?", "0.95.", &[&p]));
}

#[test]
fn a_value_of_the_whole_data_set_is_no_single_year_alone() {
    // realistic17 HIG-26-045-q09: the limits of Table 3 are those of 2022–2024.
    let p = Passage::of_text(
        "Data: 2022–2024, 170 fb⁻¹.\n\nTable 3: 95% CL upper limits on σ × B in pb.\n\n| mH± (GeV) | Expected | Observed |\n|---|---|---|\n| 500 | 0.54 | 0.49 |",
    );
    let claim = "The 2024-only observed limit at m=500 is 0.49 pb.";
    assert!(other_qualifier(
        "2024-only obs limit at m=500",
        claim,
        &[&p]
    ));
    assert!(!other_qualifier("obs limit at m=500", claim, &[&p]));
    // The year's own value, in a table by year or a clause naming it.
    let t = Passage::of_text("| Year | Observed |\n|---|---|\n| 2023 | 412 |\n| 2024 | 377 |");
    assert!(!other_qualifier(
        "obs evts in 2024 only?",
        "There are 377 events.",
        &[&t]
    ));
    let c =
        Passage::of_text("The 2024 data alone give 377 events, against 789 in 2022–2024 combined.");
    assert!(!other_qualifier(
        "obs evts in 2024 only?",
        "There are 377 events.",
        &[&c]
    ));
    assert!(other_qualifier(
        "obs evts in 2024 only?",
        "There are 789 events.",
        &[&c]
    ));
}

#[test]
fn parts_of_a_budget_do_not_answer_for_its_total() {
    // realistic17 BTV-26-043-q02: three sources given for the overall error budget.
    let p = Passage::of_text(
        "Table 1: relative uncertainties (%) on SF_light, M WP, 2024, 100–200 GeV.\n\n| Source | Unc. (%) |\n|---|---|\n| b-jet fraction | 1.6 |\n| c-jet fraction | 1.1 |\n| K0S / Λ decays | 2.3 |\n| Total | 4.8 |",
    );
    let q = "overall rel. error budget for the representative bin (M, '24, 100-200)";
    let parts = "The b-jet fraction uncertainty is 1.6%, the c-jet fraction uncertainty is 1.1%, and the K0S/Λ decays uncertainty is 2.3%.";
    assert!(other_qualifier(q, parts, &[&p]));
    assert!(!other_qualifier(q, "The total is 4.8%.", &[&p]));
    // A part asked for, or a total the passages do not write apart.
    assert!(!other_qualifier(
        "unc from the c-jet fraction?",
        "It is 1.1%.",
        &[&p]
    ));
    let s = Passage::of_text("φs = −0.074 ± 0.023 (stat) ± 0.011 (syst) rad.");
    assert!(!other_qualifier(
        "overall systematic on phi_s?",
        "It is 0.011 (syst).",
        &[&s]
    ));
}
