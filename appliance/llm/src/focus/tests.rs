//! Tests of whether an answer answers: restated questions and quantities asked.
use super::*;

#[test]
fn a_sentence_that_only_restates_the_question_is_found() {
    let q = "Which b-tagging working point is used?";
    assert!(restates(q, "The b-tagging working point used is."));
    assert!(restates(
        q,
        "The b-tagging working points used are given in the excerpts."
    ));
    assert!(!restates(q, "The medium b-tagging working point is used."));
    // A past form of the question's verb states nothing new.
    let q = "which HLT bit did we add for the low-ptmiss regime?";
    assert!(restates(
        q,
        "The HLT bit we added for the low-ptmiss regime is."
    ));
    assert!(!restates(q, "We added HLT_VBF_DiPFJet125 for it."));
    // Pointing to the passages is no answer either.
    assert!(restates(q, "This can be found in Excerpts."));
    assert!(restates(q, "It is stated in the analysis notes."));
    assert!(!restates(q, "It is shown in Fig. 3 as a function of pT."));
    assert!(!restates(q, "It is 70% efficient."));
    let q = "How many new-boson masses got their own MC sample?";
    assert!(restates(q, "These masses are,, and."));
    assert!(!restates(q, "There are 3 masses."));
    // The question's abbreviations (realistic5 jme-jec-run3-q09, top-mass-ljets-q01).
    let q = "JES unc at 30 GeV for jets around |eta| 2.5-3?";
    assert!(restates(
        q,
        "The JES uncertainty at 30 GeV for jets around |eta| 2.5-3 is given in the analysis \
         notes as."
    ));
    assert!(!restates(q, "The JES uncertainty there is 3.1%."));
    let q = "where did the JSF land in the 2D ideo approach?";
    assert!(restates(q, "The JSF landed in the 2D ideogram approach."));
    assert!(!restates(
        q,
        "The JSF landed at 0.994 in the 2D ideogram approach."
    ));
    // A unit written in superscripts is stated (realistic5 mucol-hh-10tev-q01).
    assert!(!restates(
        "assumed total lumi for the 10 TeV run?",
        "The assumed total luminosity for the 10 TeV run is 10 ab⁻¹."
    ));
    // Yes/no and either/or questions are answered in their own words.
    assert!(!restates("Is it a BDT or a DNN?", "It is a BDT."));
    assert!(!restates(
        "Does the analysis use a BDT?",
        "The analysis uses a BDT."
    ));
}

#[test]
fn questions_asking_for_a_quantity_are_recognised() {
    for q in [
        "How large is the luminosity uncertainty, in percent?",
        "How big is the dataset, in inverse femtobarns?",
        "What's the L1 accept rate of the scouting stream, in kHz?",
        "How many hidden layers does the network have?",
        "In units of the SM prediction, how large a rate is still allowed?",
        "After looking at the blinded data, what came out, numerically?",
        "What cut on the displacement do they apply, in cm?",
        "What is the expected significance of the ttH(bb) measurement?",
        "What's the single-electron trigger threshold? (the legacy 13 TeV paper)",
        "What mistag rate for light jets does the b-tag working point have?",
        "What is the observed upper limit on the kinetic mixing parameter?",
        "Which integrated luminosity was analysed?",
        "How soft is the second muon allowed to be?",
        "How lossy is the HLT step for selected candidates?",
        "How finely spaced are the generated mass points?",
        "what SF comes out for DM1 at Medium?",
        "κλ precision at the 3 TeV stage?",
        "JER SF in the barrel for 2022?",
        // realistic7 (EXO-25-011-q07, HIN-25-006-q07, -q09, TOP-25-004-q09).
        "what's the exp. excl for winos at 1 m ctau?",
        "oxygen 50-70% R_AA at high pt?",
        "elliptic flow of high-pT hadrons in OO, any number?",
        "MC flip rate for '23 endcap eles above 100 GeV?",
        "perp recoil width w/ puppi, highest-pileup bin, '24 dimuon events?",
        // realistic8 SMP-26-003-q07, realistic9 HIG-26-014-q08, TRK-26-006-q08/q09.
        "afb value in the 112-120 GeV, |y|<0.4 bin?",
        "lim from '24 data only?",
        "L1 inner LA right after the LS2 replacement (start 2022)?",
        "leakage current per module in L3 end of '24?",
        "what is the Lorentz angle in layer 1?",
        // realistic16 HIN-26-021-q08, HIG-26-031-q07: a state's label is part of the
        // phrase; a signal strength typed "mu".
        "coherent psi(2S) xsec per neutron class",
        "ggf mu from 2024 data alone",
        // realistic17 HIN-26-046-q09: a bin's bound ends the phrase.
        "k0s raa above 20 gev",
        "leftover combinatorial bkg fraction under the peak",
    ] {
        assert!(asks_for_number(q), "{q}");
    }
    // The question's own bound is no value of the answer.
    assert!(!gives_number(
        "k0s raa above 20 gev",
        "The measurement extends strange hadron RAA to 20 GeV for K0S and Λ in PbPb."
    ));
    for q in [
        "Which MC generator for signal, and at what order?",
        "What functional form describes the smooth continuum?",
        "How did they convince themselves the continuum description is unbiased?",
        "What kind of machine learning sorts the events in the main analysis?",
        "Which SM process swamps the final sample?",
        "What is produced in s-channel exchange?",
        "What motivates the width of the search region?",
        "What is the leading systematic uncertainty?",
        "What limits the resolution of the tracker?",
        "Which b-tagging working point is used?",
        "What is the luminosity uncertainty dominated by?",
        "How do they predict events where a jet mimics the hadronic tau?",
        "How come the control samples can be collected with this trigger?",
        "How well does the simulation describe the data?",
        "How robust is the background model against the choice of function?",
        "Which limit do we quote?",
        "What is the current status of the review?",
        "What is the right binning just after the fix?",
        "why only opposite flavour e mu, no ee/mm channels",
        "which mu trigger do we take the events from?",
        // realistic darkphoton-scouting-q04: the criterion, not the number of terms.
        "What criterion fixes how many terms the continuum parametrisation gets?",
    ] {
        assert!(!asks_for_number(q), "{q}");
    }
}

#[test]
fn a_correction_or_a_normalisation_asks_for_a_number_unless_picked_by_name() {
    // realistic6 egm-ele-sf-2024-q06, smp-vbs-ssww-run3-q02.
    assert!(asks_for_number(
        "latest '24 T-WP correction for forward EE eles (|η|>2)?"
    ));
    assert!(asks_for_number("WZ norm from the 3l CR?"));
    assert!(asks_for_number(
        "1-sigma spread on the median sensitivity for a 5000 GeV resonance?"
    ));
    assert!(asks_for_number("68% band of the exp. UL at m=1.2 TeV?"));
    assert!(asks_for_number("what's the PU offset per vertex?"));
    assert!(!asks_for_number(
        "which correction do we apply to the jets?"
    ));
    assert!(!asks_for_number("Which normalisation is used for W+jets?"));
}

#[test]
fn numbers_in_digits_or_words_are_found() {
    assert!(gives_number("", "It is 2.5% of the yield."));
    assert!(gives_number("", "Three hidden layers."));
    assert!(!gives_number(
        "",
        "It is taken from the official measurement."
    ));
    let q = "How large is the Run 3 luminosity uncertainty?";
    assert!(gives_number(q, "In Run 3 it is 1.4%."));
    assert!(gives_number(q, "In Run 3 it is two percent."));
    assert!(!gives_number(
        q,
        "The Run 3 uncertainty is taken from the lumi group."
    ));
    // A number pointing to a table, a figure or a section is no answer.
    assert!(!gives_number(q, "It is given in Table 2 of the appendix."));
    assert!(!gives_number(q, "See Fig. 3 and Section 4.1."));
    assert!(gives_number(q, "Table 2 gives 1.4%."));
    // "one" counts only for a count (realistic5 mucol-hh-10tev-q07).
    let q = "κλ precision at the 3 TeV stage?";
    assert!(!gives_number(q, "We have one major request."));
    assert!(gives_number("How many b jets?", "Only one b jet."));
    // A year says when, not how much; digits in a name are no number (realistic5
    // hgcal-testbeam-q08).
    let q = "MIP MPV for the 200um sensors?";
    assert!(asks_for_number(q));
    assert!(!gives_number(
        q,
        "The MIP calibration for the 200um sensors was performed at H2 in October 2018."
    ));
    assert!(gives_number(q, "It is 48.6 ADC counts in 2018."));
    assert!(gives_number("When was it calibrated?", "In October 2018."));
}

#[test]
fn questions_asking_why_are_recognised() {
    for q in [
        "Why is the window 40-60 GeV?",
        "rationale for the track momentum range — what limits it on each side?",
        "reason the proper-time window begins where it does rather than near zero?",
        "how come the electron-rejection SFs rely on radiative dimuon events?",
        "What motivates the width of the search region?",
        "what's the purpose of the HF veto?",
    ] {
        assert!(asks_why(q), "{q}");
    }
    for q in [
        "which HLT path feeds the Λb sample?",
        "How well does the simulation describe the data?",
        "what comes out for the 2023 SF?",
        "reasonable range of the fit?",
        "tight SF, what for '23?",
    ] {
        assert!(!asks_why(q), "{q}");
    }
}

#[test]
fn symbols_and_barred_letters_are_content_words() {
    let words = content("the ratio R_t = σ(tq)/σ(t̄q) in tt̄ events, F_L and m_T^W");
    for w in ["r_t", "tbarq", "ttbar", "f_l", "m_t", "ratio"] {
        assert!(words.contains(w), "{w} in {words:?}");
    }
    // Underscores at a word's edge are no part of it.
    assert!(content("_debug_ flag").contains("debug"));
    assert!(!content("a t q").contains("t"));
}
