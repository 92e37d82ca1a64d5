//! Tests of the qualifiers that tell a fact from its neighbour.
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
    let cr =
        passage("The control region is 200 < mT < 400 GeV; the signal region starts at 400 GeV.");
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
    let rates =
        passage("| Station | Rate at 2.0x10^34 |\n|---|---|\n| RE1/3 | 11.2 |\n| RE2/2 | 4.1 |");
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
    let mixed =
        passage("| Channel | HNL type | Limit |\n|---|---|---|\n| muon | Majorana | 1.5 × 10^-7 |");
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

#[test]
fn a_strange_hadron_is_a_qualifier() {
    // realistic17 HIN-26-046-q01: the Λ column's value given for the neutral kaon.
    let p = passage(
        "Table 2: RAA in 0–10% centrality (stat. ⊕ syst.).\n\n| pT (GeV) | K0S | Λ |\n|---|---|---|\n| 8–12 | 0.21 ± 0.02 | 0.26 ± 0.03 |\n| 12–20 | 0.22 ± 0.03 | 0.23 ± 0.04 |",
    );
    let q = "neutral kaon raa in the hardest bin, most central";
    let wrong =
        "The neutral kaon RAA in the hardest bin (12–20) is 0.23 ± 0.04, as shown in Table 2.";
    let right = "The neutral kaon RAA in the hardest bin (12–20) is 0.22 ± 0.03.";
    assert!(other_qualifier(q, wrong, &[&p]));
    assert!(!other_qualifier(q, right, &[&p]));
    assert!(!other_qualifier(
        "lambda raa at 12-20 gev?",
        "It is 0.23 ± 0.04.",
        &[&p]
    ));
    // A ratio names both; the Λb0 is another hadron.
    let r = passage("The Λ/K0S ratio in 0–10% peaks at 1.62 ± 0.07 at pT ≈ 3.4 GeV.");
    assert!(!other_qualifier(
        "peak of the lambda to k0s ratio, central?",
        "It peaks at 1.62 ± 0.07.",
        &[&r]
    ));
    // The Λ's parents named beside its feed-down fraction, with a ratio elsewhere.
    let f = passage(
        "The Λ yields contain a feed-down contribution from weak decays of Ξ⁻ and Ω⁻. The pT-averaged feed-down fraction in 0–10% is 12 ± 3%. The Λ/K0S ratio peaks at 1.62 ± 0.07.",
    );
    let claim = "The feed-down from Ξ⁻ and Ω⁻ decays in 0–10% is 12 ± 3%.";
    assert!(!other_qualifier(
        "Λ feed-down fraction, central?",
        claim,
        &[&f]
    ));
    let b = passage("| Category | N(Λb0) | τ(Λb0) [ps] |\n|---|---|---|\n| 2023 | 5120 | 1.471 |");
    assert!(!other_qualifier(
        "Λ yield in 2023?",
        "There are 5120 candidates.",
        &[&b]
    ));
}

#[test]
fn the_parent_boson_is_a_qualifier() {
    // realistic18 HIG-26-071-q08 and q07: the H channel's efficiency and limit for the Z's.
    let eff = passage(
        "| Channel | Signal efficiency |\n|---|---|\n| H → J/ψ γ | 23.4% |\n| H → Υ(1S) γ | 26.8% |\n| Z → J/ψ γ | 11.9% |",
    );
    let q = "sig eff for the Z→Υ(1S)γ mode?";
    assert!(other_qualifier(
        q,
        "The signal efficiency for Υ(1S) γ is 26.8%.",
        &[&eff]
    ));
    assert!(!other_qualifier(
        "what fraction of Higgs→bottomonium-ground-state+photon events survive all selection?",
        "26.8% of the events survive.",
        &[&eff]
    ));
    assert!(!other_qualifier(
        "Z to J/psi gamma efficiency?",
        "It is 11.9%.",
        &[&eff]
    ));
    let lim = passage(
        "| Decay | Expected | Observed |\n|---|---|---|\n| H → ψ(2S) γ | 7.9 × 10⁻⁴ | 6.8 × 10⁻⁴ |\n| Z→J/ψγ | 1.05 × 10⁻⁶ | 1.28 × 10⁻⁶ |",
    );
    assert!(other_qualifier(
        "UL on Z→ψ(2S)γ?",
        "The observed upper limit is 6.8 × 10⁻⁴.",
        &[&lim]
    ));
    assert!(!other_qualifier(
        "obs UL on Z->J/psi gamma?",
        "The observed limit is 1.28 × 10⁻⁶.",
        &[&lim]
    ));
    // A sentence naming no boson stands; so does an H → ZZ question answered about its Zs, and
    // a scalar sum H_T is no Higgs boson.
    let zz = passage(
        "In H → ZZ → 4ℓ events the on-shell Z → ℓℓ candidate must satisfy 40 < m < 120 GeV. The signal strength is μ = 1.01 ± 0.11.",
    );
    assert!(!other_qualifier(
        "H→ZZ mass window for the on-shell Z?",
        "The Z → ℓℓ candidate must have 40 < m < 120 GeV.",
        &[&zz]
    ));
    let ht = passage("For H_T > 1000 GeV the Z → νν yield is 340 ± 20.");
    assert!(!other_qualifier(
        "Z→νν yield at high HT?",
        "The yield is 340 ± 20.",
        &[&ht]
    ));
}
