#!/usr/bin/env python3
"""Deterministic generator of the synthetic "two-tier" corpus (generated, never committed).

Eight particle-physics analyses whose notes share almost all of their vocabulary (dimuon,
Drell–Yan, tt̄, trigger, BDT, systematic uncertainty, luminosity...). The documents of every
analysis are built from the same section templates filled with analysis-specific facts, so
an unscoped retrieval mixes the analyses up while a retrieval scoped to one analysis finds the
answer. Tier 1 (routing a question to its analysis) is exercised by abstracts + weak hints in
the questions.

Writes, under --out (required; the tests and benches/run_two_tier.sh generate it themselves):
  analyses.jsonl   {"analysis_id","title","abstract","tags","status","groups"}
  corpus.jsonl     BEIR corpus rows {"_id","title","text","analysis_id"}
  queries.jsonl    {"_id","text","analysis_id"}
  qrels/test.tsv   BEIR qrels: query-id, corpus-id, score (2: the document is about the asked
                   fact, 1: the document states the fact in passing); only documents of the
                   intended analysis are ever judged.

Standard library only; the output depends on SEED and this file alone.
`--check` also prints a stdlib BM25 proxy of the two tiers (routing of the questions over the
abstracts, and the wrong-analysis share of unscoped top-5 documents).
"""
import argparse
import json
import math
import os
import random
import re
import string
from collections import Counter

SEED = 20250611

# ---------------------------------------------------------------------------------------------
# Analyses: metadata (tier 1) and facts (tier 2).
# Fields whose name is in FIELD_KEY carry the answer of one question key; the others are
# analysis-specific wording that is not an answer (lepton names, subleading processes...).
# ---------------------------------------------------------------------------------------------

KEYS = ["background", "trigger", "systematic", "lumi", "classifier",
        "window", "result", "bkgmodel", "sigmc", "selection"]

FIELD_KEY = {
    "bkg": "background", "bkg_frac": "background",
    "trig": "trigger", "trig_eff": "trigger",
    "syst": "systematic", "syst_size": "systematic",
    "lumi": "lumi", "years": "lumi",
    "clf": "classifier", "clf_detail": "classifier",
    "window": "window", "window_why": "window",
    "result": "result", "result2": "result",
    "bkgmodel": "bkgmodel", "bkgmodel_check": "bkgmodel",
    "sigmc": "sigmc", "sigmc_detail": "sigmc",
    "sel": "selection", "sel_extra": "selection",
}

ANALYSES = [
    {
        "analysis_id": "hmumu-run2",
        "title": "Search for the Higgs boson decay to a pair of muons with the full Run 2 dataset",
        "abstract": (
            "A search for the Higgs boson decaying to two muons is presented using proton–proton "
            "collisions at √s = 13 TeV recorded in 2016–2018, corresponding to an integrated "
            "luminosity of 138 fb⁻¹. Events are classified into categories enriched in gluon fusion, "
            "vector boson fusion, VH and ttH production using multivariate discriminants. The signal "
            "is extracted from a fit to the dimuon invariant mass spectrum near 125 GeV, where the "
            "Drell–Yan background is modelled with analytic functions constrained by the sidebands. "
            "Evidence for H→μμ is found, probing the Yukawa coupling of the Higgs boson to "
            "second-generation fermions."),
        "tags": ["higgs", "H->mumu", "dimuon", "run2", "legacy", "yukawa", "second-generation"],
        "status": "public",
        "groups": ["hmumu"],
        "f": {
            "lep": "muon", "leps": "muons", "ll": "dimuon", "mll": "m_μμ", "sig": "the H→μμ signal",
            "sub_bkg": "tt̄, single top, diboson and electroweak Z+2 jets production",
            "bkg": "Drell–Yan Z/γ*→μμ production",
            "bkg_frac": "about 85% of the expected background in the fit range",
            "trig": "the single isolated muon trigger with pT > 24 GeV (pT > 27 GeV during 2017)",
            "trig_eff": "an efficiency above 96% per event once two muons are selected",
            "syst": "the background functional form, covered by a spurious-signal term",
            "syst_size": "about 8% on the signal strength, ahead of the muon momentum scale",
            "lumi": "138 fb⁻¹", "years": "the 2016, 2017 and 2018 runs at √s = 13 TeV",
            "clf": "a gradient-boosted decision tree (BDT, XGBoost) with 14 input variables",
            "clf_detail": "the BDT score is split into five ggH categories, while the VBF category uses a separate DNN",
            "window": "110 < m_μμ < 150 GeV",
            "window_why": "the expected dimuon mass resolution is 1.1–2.0% depending on the muon pseudorapidity",
            "result": "an observed significance of 3.0σ (2.5σ expected)",
            "result2": "a signal strength μ = 1.19 +0.44 −0.42 relative to the standard model",
            "bkgmodel": "a modified Breit–Wigner times a Bernstein polynomial fitted to data in each category",
            "bkgmodel_check": "the bias, evaluated with toys drawn from alternative families, stays below 20% of the statistical uncertainty",
            "sigmc": "POWHEG-BOX v2 at NLO for ggH and VBF, interfaced to Pythia 8 with the CP5 tune",
            "sigmc_detail": "VH and ttH samples come from MadGraph5_aMC@NLO, all normalised to the N3LO cross sections",
            "sel": "two opposite-charge muons with pT > 20 GeV and |η| < 2.4, medium ID and relative PF isolation below 0.25",
            "sel_extra": "the leading muon must exceed pT > 26 GeV to sit on the trigger plateau",
        },
        "hints": [
            "in the Higgs to dimuon search with the 2016–2018 data",
            "for the full Run 2 H→μμ analysis",
            "in the legacy dimuon Higgs measurement at 13 TeV",
            "for the evidence-level Higgs decay to muons",
            "in the Run 2 search for the Higgs coupling to second-generation leptons",
            "in the dimuon Higgs search",
            "for the Higgs to muons paper",
        ],
    },
    {
        "analysis_id": "hmumu-run3",
        "title": "Measurement of H→μμ with early Run 3 data at √s = 13.6 TeV",
        "abstract": (
            "The decay of the Higgs boson to two muons is studied with early Run 3 proton–proton "
            "collisions at a centre-of-mass energy of 13.6 TeV recorded in 2022 and 2023, corresponding to 62.4 fb⁻¹. "
            "A deep neural network assigns events to categories targeting gluon fusion and vector "
            "boson fusion production. The Drell–Yan and top quark pair backgrounds are determined "
            "from a fit to the dimuon mass distribution. The result is combined with the previous "
            "measurement to improve the precision on the muon Yukawa coupling."),
        "tags": ["higgs", "H->mumu", "dimuon", "run3", "13.6TeV", "yukawa", "early-data"],
        "status": "in-review",
        "groups": ["hmumu"],
        "f": {
            "lep": "muon", "leps": "muons", "ll": "dimuon", "mll": "m_μμ", "sig": "the H→μμ signal",
            "sub_bkg": "tt̄, tW and diboson production",
            "bkg": "Drell–Yan Z/γ*→μμ production with pileup jets mimicking the VBF topology",
            "bkg_frac": "about 91% of the expected background after the DNN preselection",
            "trig": "the single isolated muon trigger with pT > 26 GeV, backed up by a double-muon trigger with pT > 17 and 8 GeV",
            "trig_eff": "an efficiency of 93% per event in the early 2022 runs",
            "syst": "the muon momentum scale and resolution from the early Run 3 tracker alignment",
            "syst_size": "about 11% on the signal strength",
            "lumi": "62.4 fb⁻¹", "years": "the 2022 and 2023 runs at √s = 13.6 TeV",
            "clf": "a multiclass deep neural network (DNN) with four output nodes",
            "clf_detail": "the DNN is trained with PyTorch on 21 kinematic inputs and its ggH and VBF nodes define the categories",
            "window": "115 < m_μμ < 135 GeV",
            "window_why": "the narrower window follows from the improved resolution of the Run 3 muon reconstruction",
            "result": "an observed significance of 2.1σ (1.7σ expected)",
            "result2": "a signal strength μ = 1.35 ± 0.62 relative to the standard model",
            "bkgmodel": "a core-function method: one shape shared by all categories, multiplied by a per-category first-order polynomial",
            "bkgmodel_check": "the spurious signal stays below 15% of the statistical uncertainty in every category",
            "sigmc": "POWHEG-BOX v2 at NLO with Run 3 conditions (Summer22 and Summer23 campaigns), showered with Pythia 8",
            "sigmc_detail": "a reweighting to the Run 3 pileup profile of 60 interactions per crossing is applied",
            "sel": "two opposite-charge muons with pT > 15 GeV and |η| < 2.4, tight ID and mini-isolation below 0.1",
            "sel_extra": "the leading muon must exceed pT > 28 GeV because of the raised trigger threshold",
        },
        "hints": [
            "in the dimuon Higgs search with the newest data",
            "for the 13.6 TeV Higgs to muons analysis",
            "in the early Run 3 H→μμ update",
            "with the 2022–2023 collisions in the muon Yukawa measurement",
            "in the Higgs dimuon analysis of the current run",
            "for the new-energy dimuon Higgs result",
            "in the Run 3 dimuon Higgs analysis",
        ],
    },
    {
        "analysis_id": "darkphoton-dimuon",
        "title": "Search for a low-mass dark photon decaying to two muons with data scouting",
        "abstract": (
            "A search for a narrow resonance decaying to two muons in the mass range 1.1–7.9 GeV is "
            "performed using a dimuon scouting trigger that records reduced event content at high "
            "rate. The data were collected at √s = 13 TeV in 2017 and 2018 and correspond to "
            "96.6 fb⁻¹. The background from heavy-flavour decays, Drell–Yan and combinatorial pairs "
            "is estimated by fitting the dimuon mass spectrum in sliding windows. Limits are set on "
            "the kinetic mixing between a dark photon A′, a light vector boson of a hidden sector, and "
            "the standard model photon."),
        "tags": ["dark-photon", "scouting", "low-mass", "dimuon", "resonance", "kinetic-mixing", "hidden-sector", "BSM"],
        "status": "approved",
        "groups": ["exotica"],
        "f": {
            "lep": "muon", "leps": "muons", "ll": "dimuon", "mll": "m_μμ", "sig": "the A′ signal",
            "sub_bkg": "low-mass Drell–Yan and decays of light mesons (η, ω, φ)",
            "bkg": "combinatorial QCD multijet pairs from semileptonic b and c hadron decays",
            "bkg_frac": "more than 90% of the events in every mass window",
            "trig": "the dimuon scouting trigger, two muons with pT > 3 GeV at the L1 and HLT",
            "trig_eff": "an efficiency of 85% at m_μμ = 2 GeV rising to 94% above 5 GeV",
            "syst": "the scouting muon reconstruction and identification efficiency",
            "syst_size": "about 6% on the signal yield, measured with J/ψ→μμ tag-and-probe",
            "lumi": "96.6 fb⁻¹", "years": "the 2017 and 2018 scouting streams at √s = 13 TeV",
            "clf": "no event classifier; a muon-ID BDT trained on J/ψ and Υ decays rejects fake muons",
            "clf_detail": "the muon-ID BDT uses hit counts and the track χ² and keeps 95% of prompt muons",
            "window": "1.1 < m_μμ < 2.6 GeV and 4.2 < m_μμ < 7.9 GeV, windows of ±5σ around each mass hypothesis",
            "window_why": "the J/ψ, ψ(2S) and Υ regions are vetoed",
            "result": "no significant excess; kinetic mixing ε² above 2×10⁻⁷ excluded over most of the range",
            "result2": "a largest local excess of 2.3σ at 2.4 GeV, 0.4σ global",
            "bkgmodel": "a third-order polynomial plus an exponential, fitted in each sliding mass window",
            "bkgmodel_check": "the F-test selects the polynomial order window by window",
            "sigmc": "MadGraph5_aMC@NLO with the hidden abelian Higgs model, showered with Pythia 8",
            "sigmc_detail": "the signal is generated at 40 mass points and interpolated between them",
            "sel": "two opposite-charge scouting muons with pT > 4 GeV and |η| < 1.9, a common vertex with probability above 0.5%",
            "sel_extra": "the transverse displacement of the dimuon vertex must be below 0.2 cm",
        },
        "hints": [
            "for the low-mass dimuon resonance search",
            "in the scouting-based search",
            "in the search for a light vector boson decaying to muons",
            "for the kinetic mixing analysis",
            "in the sub-10 GeV dimuon bump hunt",
            "for the hidden-sector resonance search",
        ],
    },
    {
        "analysis_id": "zprime-dimuon",
        "title": "Search for high-mass resonances in the dimuon final state",
        "abstract": (
            "A search for new heavy neutral resonances decaying to muon pairs is presented, using "
            "140 fb⁻¹ of proton–proton collision data at √s = 13 TeV. The dimuon invariant mass "
            "spectrum above 400 GeV is compared to the standard model expectation, dominated by the "
            "Drell–Yan process, with top quark pair and diboson production as smaller backgrounds. "
            "No significant deviation is observed. Lower limits on the mass of sequential standard "
            "model and superstring-inspired Z′ gauge bosons are derived."),
        "tags": ["zprime", "dimuon", "high-mass", "TeV-scale", "resonance", "exotica", "SSM"],
        "status": "public",
        "groups": ["exotica"],
        "f": {
            "lep": "muon", "leps": "muons", "ll": "dimuon", "mll": "m_μμ", "sig": "the Z′ signal",
            "sub_bkg": "tt̄, tW, WW/WZ/ZZ diboson and jets misidentified as muons",
            "bkg": "Drell–Yan production in the high-mass tail",
            "bkg_frac": "more than 80% of the background at every mass above 400 GeV",
            "trig": "the non-isolated single muon trigger with pT > 50 GeV (Mu50)",
            "trig_eff": "an efficiency of 97% per event that is flat in mass",
            "syst": "the PDF uncertainty on the Drell–Yan tail",
            "syst_size": "growing from 4% at 1 TeV to 20% at 5 TeV",
            "lumi": "140 fb⁻¹", "years": "the complete 2015–2018 dataset at √s = 13 TeV",
            "clf": "no multivariate classifier; the selection is cut-based and the signal is searched for in the mass spectrum",
            "clf_detail": "a BDT was tried and gave less than 2% gain, so the simpler cut-based selection was kept",
            "window": "m_μμ > 400 GeV, with signal windows whose width follows the resolution up to 6 TeV",
            "window_why": "below 400 GeV the spectrum is used only to normalise the Drell–Yan simulation",
            "result": "no significant excess; Z′_SSM excluded below 5.15 TeV and Z′_ψ below 4.56 TeV",
            "result2": "a largest local excess of 2.1σ near 1.2 TeV",
            "bkgmodel": "Drell–Yan simulation normalised to data in the Z peak, 60 < m_μμ < 120 GeV, and parametrised by a smooth function",
            "bkgmodel_check": "the extrapolation is validated in the 120–400 GeV control region",
            "sigmc": "Pythia 8 with NNPDF3.1 for the Z′_SSM and Z′_ψ benchmarks",
            "sigmc_detail": "mass-binned POWHEG Drell–Yan samples cover the background up to 6 TeV",
            "sel": "two high-pT muons with pT > 53 GeV and |η| < 2.4, the dedicated high-pT ID and tracker isolation below 0.1",
            "sel_extra": "back-to-back cosmic muons are rejected with an opening-angle requirement",
        },
        "hints": [
            "in the high-mass dimuon resonance search",
            "for the heavy neutral gauge boson search",
            "in the TeV-scale dimuon bump hunt",
            "for the search for new resonances in the muon pair spectrum",
            "in the sequential standard model boson search with two muons",
            "in the dimuon resonance search",
        ],
    },
    {
        "analysis_id": "tth-mumu",
        "title": "Search for ttH production with the Higgs boson decaying to two muons",
        "abstract": (
            "Higgs boson production in association with a top quark pair, with the Higgs boson "
            "decaying to two muons, is searched for in events with additional leptons or jets from "
            "the top quark decays. The analysis uses 172.7 fb⁻¹ of data collected at √s = 13 and "
            "13.6 TeV. A graph neural network separates the signal from the tt̄ and ttZ backgrounds, "
            "and the signal is extracted from the dimuon mass spectrum in leptonic and hadronic "
            "categories. An upper limit on the signal strength is set."),
        "tags": ["higgs", "ttH", "top", "H->mumu", "dimuon", "b-tagging", "GNN"],
        "status": "draft",
        "groups": ["top", "hmumu"],
        "f": {
            "lep": "muon", "leps": "muons", "ll": "dimuon", "mll": "m_μμ", "sig": "the ttH signal",
            "sub_bkg": "ttZ(→μμ), tZq and Drell–Yan with b jets",
            "bkg": "dileptonic tt̄ events with two prompt muons",
            "bkg_frac": "about 70% of the background in the leptonic category",
            "trig": "a single muon trigger with pT > 27 GeV or a single electron trigger with pT > 32 GeV",
            "trig_eff": "an efficiency above 99% per event thanks to the extra leptons",
            "syst": "the ttZ cross-section normalisation",
            "syst_size": "15% on the ttZ rate, giving 9% on the signal strength",
            "lumi": "172.7 fb⁻¹", "years": "138 fb⁻¹ at 13 TeV from 2016–2018 plus 34.7 fb⁻¹ at 13.6 TeV from 2022",
            "clf": "a graph neural network (GNN) with jets and leptons as nodes",
            "clf_detail": "the GNN is trained separately in the leptonic and hadronic categories with the b-tag scores as node features",
            "window": "110 < m_μμ < 150 GeV, with at least one b-tagged jet",
            "window_why": "the hadronic category further requires at least four jets",
            "result": "an observed upper limit μ_ttH < 6.8 at 95% CL (5.2 expected)",
            "result2": "a best-fit signal strength of 1.9 +2.6 −2.2",
            "bkgmodel": "an exponential times a first-order polynomial fitted to the m_μμ sidebands in each category",
            "bkgmodel_check": "the low event count makes the spurious signal small, below 10% of the statistical uncertainty",
            "sigmc": "MadGraph5_aMC@NLO at NLO for ttH, showered with Pythia 8",
            "sigmc_detail": "tt̄ is simulated with POWHEG and ttZ with MadGraph5_aMC@NLO",
            "sel": "two opposite-charge muons with pT > 20 and 10 GeV plus at least one b-tagged jet (DeepJet medium working point)",
            "sel_extra": "the leptonic category requires an additional electron or muon with pT > 10 GeV",
        },
        "hints": [
            "in the top-associated channel",
            "for the ttH analysis with a muon pair",
            "in the search with top quarks and a Higgs decaying to muons",
            "for the associated production channel with b jets",
            "in the dimuon Higgs search with extra leptons and jets",
        ],
    },
    {
        "analysis_id": "hee-run2",
        "title": "Search for the Higgs boson decay to an electron–positron pair",
        "abstract": (
            "A search for the Higgs boson decay to an electron–positron pair, H→ee, is presented using "
            "101 fb⁻¹ of proton–proton collisions at √s = 13 TeV collected in 2017 and 2018. Events "
            "with two electrons are categorised with a boosted decision tree targeting gluon fusion "
            "and vector boson fusion production. The large Drell–Yan background is modelled with "
            "smooth functions fitted to the dielectron mass distribution. No signal is observed and "
            "an upper limit on the branching fraction is set, probing the electron Yukawa coupling."),
        "tags": ["higgs", "H->ee", "dielectron", "electron", "yukawa", "first-generation"],
        "status": "approved",
        "groups": ["hmumu", "egamma"],
        "f": {
            "lep": "electron", "leps": "electrons", "ll": "dielectron", "mll": "m_ee", "sig": "the H→ee signal",
            "sub_bkg": "tt̄, diboson and photon conversions",
            "bkg": "Drell–Yan Z/γ*→ee production",
            "bkg_frac": "about 93% of the expected background",
            "trig": "the double electron trigger with pT > 23 and 12 GeV",
            "trig_eff": "an efficiency of 98% per event",
            "syst": "the electron energy scale and resolution from the ECAL calibration",
            "syst_size": "about 7% on the expected limit",
            "lumi": "101 fb⁻¹", "years": "the 2017 and 2018 runs at √s = 13 TeV",
            "clf": "a BDT (TMVA BDTG) with 10 input variables",
            "clf_detail": "the BDT defines three ggH categories and one VBF category",
            "window": "115 < m_ee < 160 GeV",
            "window_why": "the upper edge is raised to give the sideband fit enough events above the peak",
            "result": "an observed upper limit B(H→ee) < 3.0×10⁻⁴ at 95% CL (3.1×10⁻⁴ expected)",
            "result2": "about 260 times the standard model prediction",
            "bkgmodel": "a sum of exponentials and a Bernstein polynomial, chosen with the discrete-profiling method",
            "bkgmodel_check": "the envelope of the function families is carried into the final fit",
            "sigmc": "POWHEG-BOX v2 for ggH and VBF with the electron-channel decay in Pythia 8",
            "sigmc_detail": "the signal shape is a double-sided Crystal Ball fitted per category",
            "sel": "two opposite-charge electrons with pT > 25 and 15 GeV, |η| < 2.5 excluding the barrel–endcap gap, MVA ID at 90% efficiency",
            "sel_extra": "events with a photon conversion vertex matched to either electron are removed",
        },
        "hints": [
            "in the electron channel Higgs search",
            "for the dielectron Higgs decay",
            "in the first-generation Yukawa analysis",
            "for the H→ee search",
            "in the Higgs to electrons analysis",
        ],
    },
    {
        "analysis_id": "lfv-higgs-mutau",
        "title": "Search for lepton-flavour-violating decays of the Higgs boson to μτ",
        "abstract": (
            "A search for the lepton flavour violating decay H→μτ, to a muon and a tau lepton, is "
            "performed in the μτ_h and μτ_e final states using 59.7 fb⁻¹ of 2018 data at √s = 13 TeV. Boosted decision trees "
            "trained in jet multiplicity categories separate the signal from the Z→ττ, W+jets, tt̄ "
            "and QCD multijet backgrounds. Backgrounds with misidentified τ leptons are estimated "
            "from data. Upper limits are set on the branching fraction and on the off-diagonal "
            "Yukawa couplings."),
        "tags": ["higgs", "LFV", "H->mutau", "mu-tau", "tau", "muon", "yukawa", "cLFV"],
        "status": "in-review",
        "groups": ["higgs-lfv", "tau"],
        "f": {
            "lep": "muon", "leps": "muons", "ll": "μτ", "mll": "m_col", "sig": "the H→μτ signal",
            "sub_bkg": "W+jets, tt̄ and Drell–Yan Z→μμ with a jet faking the τ",
            "bkg": "Z→ττ production, estimated with the τ-embedding technique",
            "bkg_frac": "about 45% of the background in the μτ_h 0-jet category",
            "trig": "a muon+τ_h cross trigger with muon pT > 20 GeV and τ_h pT > 27 GeV, or a single muon trigger with pT > 24 GeV",
            "trig_eff": "an efficiency of 90% per event",
            "syst": "the τ_h identification efficiency and the fake-factor extrapolation",
            "syst_size": "about 13% on the expected limit",
            "lumi": "59.7 fb⁻¹", "years": "the 2018 run at √s = 13 TeV",
            "clf": "BDTs trained separately in the μτ_h and μτ_e channels and in 0, 1 and 2 jet categories",
            "clf_detail": "the BDT inputs include the collinear mass and the transverse mass of the muon",
            "window": "a collinear mass 100 < m_col < 170 GeV",
            "window_why": "the collinear approximation assigns the pT^miss to the τ direction",
            "result": "an observed upper limit B(H→μτ) < 1.5×10⁻³ at 95% CL (1.1×10⁻³ expected)",
            "result2": "an upper limit on the off-diagonal Yukawa coupling √(|Y_μτ|²+|Y_τμ|²) < 1.1×10⁻³",
            "bkgmodel": "the fake-factor method: jets misidentified as τ_h are extrapolated from a τ-isolation sideband",
            "bkgmodel_check": "the fake factors are measured separately in W+jets, QCD and tt̄ enriched regions",
            "sigmc": "POWHEG-BOX v2 for ggH and VBF with the H→μτ decay performed by Pythia 8",
            "sigmc_detail": "the τ decays are handled by Pythia 8 and the embedded Z→ττ sample replaces the simulated one",
            "sel": "a muon with pT > 26 GeV and |η| < 2.1 plus an opposite-charge τ_h with pT > 30 GeV passing the DeepTau tight working point",
            "sel_extra": "events with b-tagged jets are vetoed to reduce tt̄",
        },
        "hints": [
            "in the lepton-flavour-violating Higgs search",
            "for the muon–tau final state",
            "in the charged lepton flavour violation analysis",
            "for the off-diagonal Yukawa search",
            "in the Higgs search with a muon and a hadronic tau",
        ],
    },
    {
        "analysis_id": "wprime-munu",
        "title": "Search for a heavy W′ boson in the muon plus missing transverse momentum final state",
        "abstract": (
            "A search for a new heavy charged gauge boson decaying to a muon and a neutrino is "
            "presented using 34.7 fb⁻¹ of 2022 data at √s = 13.6 TeV. The transverse mass of the "
            "muon and missing transverse momentum system is used as the discriminating variable. The "
            "dominant background is the off-shell tail of standard model W boson production, with "
            "smaller contributions from tt̄, diboson and Drell–Yan events. No excess is observed and "
            "a sequential standard model W′ is excluded up to several TeV."),
        "tags": ["wprime", "muon", "MET", "transverse-mass", "exotica", "run3", "SSM"],
        "status": "draft",
        "groups": ["exotica"],
        "f": {
            "lep": "muon", "leps": "muons", "ll": "muon+pT^miss", "mll": "m_T", "sig": "the W′ signal",
            "sub_bkg": "tt̄, single top, WW/WZ and Drell–Yan with a lost muon",
            "bkg": "the off-shell tail of standard model W+jets (W→μν) production",
            "bkg_frac": "about 75% of the background for m_T > 1 TeV",
            "trig": "the single muon trigger with pT > 50 GeV or the high-pT tracker muon trigger with pT > 100 GeV",
            "trig_eff": "an efficiency of 93% per event above m_T = 500 GeV",
            "syst": "the high-pT muon momentum scale (curvature bias)",
            "syst_size": "up to 25% on the background at m_T = 4 TeV",
            "lumi": "34.7 fb⁻¹", "years": "the 2022 run at √s = 13.6 TeV",
            "clf": "no multivariate classifier; the transverse mass m_T is the only discriminant",
            "clf_detail": "a cut on the pT/pT^miss ratio between 0.4 and 1.5 replaces any MVA",
            "window": "m_T > 400 GeV, with a single-bin counting experiment above a mass-dependent m_T threshold",
            "window_why": "the m_T threshold is optimised for each W′ mass hypothesis",
            "result": "no significant excess; W′_SSM excluded below 5.7 TeV",
            "result2": "a largest deviation of 1.6σ local at m_T ≈ 2.3 TeV",
            "bkgmodel": "W+jets simulation in mass-binned samples, parametrised with a dijet-like function above 2 TeV",
            "bkgmodel_check": "the fit to simulation is validated in the 200 < m_T < 400 GeV control region",
            "sigmc": "Pythia 8 with the sequential standard model W′ at leading order with a K-factor",
            "sigmc_detail": "signal masses from 1 to 7 TeV are produced in 250 GeV steps",
            "sel": "exactly one muon with pT > 53 GeV and |η| < 2.4, high-pT ID, tracker isolation below 0.1",
            "sel_extra": "the muon and pT^miss must be back to back, Δφ > 2.5",
        },
        "hints": [
            "for the lepton plus missing energy search",
            "in the heavy charged boson search",
            "in the high transverse mass analysis with a muon and a neutrino",
            "for the W′ search",
            "for the muon plus MET resonance search",
        ],
    },
]

# ---------------------------------------------------------------------------------------------
# Paragraph templates. The same templates serve every analysis; {field} placeholders are
# filled from the analysis facts. A paragraph states the fact of key K iff it uses a field of K.
# ---------------------------------------------------------------------------------------------

TEMPLATES = {
    "background": [
        "The selected sample is dominated by {bkg}, which accounts for {bkg_frac}. Smaller "
        "contributions come from {sub_bkg}. The {ll} mass distribution of the background falls "
        "smoothly in the signal region, and simulation is only used to optimise the selection; the "
        "final estimate is taken from a fit to data.",
        "Background composition after the full event selection: the largest component is {bkg} "
        "({bkg_frac}), followed by {sub_bkg}. We checked the composition in the sidebands of the "
        "{mll} distribution and found agreement with simulation within the {lep} pT and jet "
        "multiplicity uncertainties.",
        "Which process dominates after selection? {bkg_cap}, at {bkg_frac}. Processes such as {sub_bkg} "
        "are subleading but are kept in the background model. The reviewers asked whether "
        "Drell–Yan, tt̄ or diboson events could mimic {sig}; the sideband checks show no such effect.",
    ],
    "trigger": [
        "Events are recorded with {trig}. Efficiencies are measured with the tag-and-probe method on "
        "Z or J/ψ decays, in bins of {lep} pT and η, and the data/simulation scale factors are "
        "applied to the signal and background samples. The trigger gives {trig_eff}.",
        "Trigger strategy: the baseline is {trig}. Alternatives with looser thresholds were studied "
        "but their rate was too high for the menu. Scale factors from tag-and-probe differ from "
        "unity by at most 2%, and the overall trigger has {trig_eff}.",
        "Update of the trigger efficiency study. With the reprocessed data the path used remains {trig}. "
        "The turn-on curve is fitted with an error function and the plateau gives {trig_eff}. "
        "Runs with a known L1 muon timing problem are excluded.",
    ],
    "systematic": [
        "The leading systematic uncertainty is {syst}, {syst_size}. Other uncertainties, from the "
        "luminosity, pileup reweighting, lepton identification and the theory cross sections, are "
        "smaller. All are treated as nuisance parameters in the likelihood fit, with log-normal "
        "constraints for the rates and shape morphing for the {mll} templates.",
        "Impacts of the nuisance parameters on the parameter of interest were computed with an "
        "Asimov dataset. The largest impact comes from {syst}, {syst_size}. The result remains "
        "limited by the statistical uncertainty of the data; doubling the luminosity would improve "
        "the sensitivity by about 30%.",
        "Systematics table, version 3. Ranked by impact, {syst} is first, {syst_size}. The "
        "jet energy scale, b-tagging and luminosity uncertainties follow; the muon and electron "
        "efficiency scale factors are correlated across years where appropriate.",
    ],
    "lumi": [
        "The analysis uses {years}, corresponding to an integrated luminosity of {lumi} after the "
        "data-quality certification. Only luminosity sections with all subdetectors operational "
        "are kept. The luminosity uncertainty is taken from the official measurement and is "
        "correlated between the signal and the simulated background normalisations.",
        "Datasets: the collision data comprise {years}. After the golden JSON selection the "
        "integrated luminosity is {lumi}. Simulated samples are reweighted to the pileup profile "
        "of the data, and the trigger and identification scale factors are derived per data-taking era.",
        "The integrated luminosity analysed is {lumi}, recorded in {years}. Brilcalc was used with the "
        "normtag of the luminosity group; periods with known detector problems are excluded. The "
        "same certification is used for the control regions and the tag-and-probe measurements.",
    ],
    "classifier": [
        "Multivariate strategy: {clf}. In short, {clf_detail}. Where a training is involved it "
        "uses simulated signal and the Drell–Yan and tt̄ background samples, with k-fold splitting "
        "to avoid evaluating events that were used in the training.",
        "Classifier optimisation: the baseline is {clf}. The candidate input variables are the {lep} pT and "
        "η, the {ll} kinematics, jet multiplicity and the event missing transverse momentum; "
        "{clf_detail}. Overtraining checks with a Kolmogorov–Smirnov test show no problem.",
        "Decision on the multivariate analysis: {clf}; {clf_detail}. The BDT/DNN comparison "
        "was repeated with the final samples, and any hyperparameters were tuned with a grid search.",
    ],
    "window": [
        "The signal region is defined by {window}; {window_why}. Events outside it are used as "
        "sidebands to constrain the background shape, and the region was kept blinded until the "
        "review agreed on the selection.",
        "Signal region definition: {window}. This choice maximises the expected sensitivity; "
        "{window_why}. The category boundaries were optimised on simulation only, and the data "
        "in the signal region stay blinded until the background model is frozen.",
        "We kept the signal region at {window} after the mass window optimisation; {window_why}. "
        "Widening it adds Drell–Yan and tt̄ background without adding signal, while a narrower "
        "window loses acceptance when the {lep} momentum resolution degrades at high η.",
    ],
    "result": [
        "After unblinding, the fit to the {mll} distribution gives {result}. Equivalently, this "
        "corresponds to {result2}. The post-fit background agrees with the data in all categories, "
        "and the goodness-of-fit p-value is above 0.2 in each of them.",
        "Results: the data agree with the background expectation within the uncertainties apart "
        "from the features discussed below. The final result is {result}, and {result2} is "
        "quoted for comparison with the theory.",
        "Final results for approval: {result}. We also report {result2}. The expected sensitivity "
        "was fixed before unblinding and did not change afterwards. The systematic uncertainties "
        "were frozen at preapproval and the luminosity uncertainty is included.",
    ],
    "bkgmodel": [
        "The background shape is modelled with {bkgmodel}. {bkgmodel_check_cap}. The functions are "
        "fitted simultaneously with the signal model, so the Drell–Yan and tt̄ normalisations float "
        "freely.",
        "Background modelling: we use {bkgmodel}. {bkgmodel_check_cap}. Alternative shapes, an "
        "exponential, a power law and a Bernstein polynomial, were considered in the bias study.",
        "On the fit function choice: the collaboration recommended {bkgmodel}. {bkgmodel_check_cap}, "
        "and the reviewers accepted this. The Drell–Yan and tt̄ components are not modelled "
        "separately; the fitted function describes their sum directly from data.",
    ],
    "sigmc": [
        "Signal samples are generated with {sigmc}. {sigmc_detail_cap}. The detector response is "
        "simulated with Geant4 and the samples are reconstructed with the same software release "
        "as the data.",
        "Monte Carlo samples: the signal uses {sigmc}; {sigmc_detail}. Pileup is overlaid from "
        "minimum-bias events and reweighted to data. The {lep} momentum scale corrections are "
        "applied to signal and background simulation alike.",
        "Sample production request: signal events with {sigmc}. {sigmc_detail_cap}. Background "
        "samples (Drell–Yan, tt̄, diboson) are taken from the central production.",
    ],
    "selection": [
        "The event selection requires {sel}; {sel_extra}. Events with additional isolated leptons "
        "are kept only in the dedicated categories. Jets are clustered with the anti-kT algorithm "
        "and must have pT > 25 GeV.",
        "Object selection: we select {sel}. In addition, {sel_extra}. The {lep} identification and "
        "isolation scale factors are taken from the muon and EGamma physics object groups.",
        "{lep_cap} identification and isolation: the selection is {sel}, and {sel_extra}. A "
        "primary vertex with at least four tracks is required.",
    ],
}

# Second paragraphs of a document about a key: restate the answer briefly, add context.
FOLLOWUPS = {
    "background": "A cross-check in the {mll} sidebands confirms that {bkg} is the largest contribution. "
                  "Its normalisation floats freely in the fit, so the simulation enters only through the "
                  "shape checks and the optimisation of the selection, not through the final yield.",
    "trigger": "The scale factors for {trig} were rederived after the last reprocessing. They differ "
               "from the previous version by less than 1%, and their uncertainty is the difference "
               "between the Z and J/ψ tag-and-probe measurements.",
    "systematic": "Since {syst} dominates, a dedicated study tried to reduce it. Splitting the nuisance "
                  "parameter by {lep} pseudorapidity region reduces the impact slightly, and the new "
                  "scheme is adopted for the unblinded fit after agreement with the conveners.",
    "lumi": "For the projections, the yields obtained with {lumi} were scaled to the luminosity expected "
            "at the end of the next run, keeping the systematic uncertainties fixed at their present "
            "values. The projected sensitivity is shown in the appendix.",
    "classifier": "The chosen approach ({clf}) was compared with a simpler selection on the {ll} "
                  "kinematics alone. The expected sensitivity changes by a few percent, and the "
                  "choice is kept for the unblinded result.",
    "window": "Blinding: data inside {window} were not looked at until the preapproval. The expected "
              "yields in this region come from a signal-plus-background fit to simulation with the "
              "background normalised to the sidebands.",
    "result": "An independent fit by a second team reproduces {result} to the quoted precision. The "
              "dependence of the result on the signal model and on the background parametrisation "
              "is small compared with the statistical uncertainty.",
    "bkgmodel": "The bias study was repeated with the final categories. With {bkgmodel}, the fitted "
                "signal in background-only toys is compatible with zero, and no additional "
                "uncertainty on the background shape is needed.",
    "sigmc": "A request for additional signal statistics was made with the same configuration, {sigmc}, "
             "doubling the number of events in the categories with the lowest efficiency. The new "
             "samples are expected before the approval.",
    "selection": "The cutflow table lists the efficiency of each requirement for signal and the main "
                 "backgrounds. With {sel}, the signal efficiency is about 60%, and the background "
                 "rejection is driven by the isolation requirement.",
}

# Paragraphs without any answer fact: shared vocabulary, no analysis-specific values.
FILLERS = [
    "The analysis framework was migrated to columnar processing, and the ntuples were regenerated "
    "from the latest NanoAOD. Plots of the {lep} pT, η and φ distributions in data and simulation "
    "are in the appendix; they agree within the systematic uncertainties.",
    "Action items from the meeting: update the BDT training with the new samples, rerun the "
    "systematic uncertainty breakdown, cross-check the luminosity per era and circulate the updated "
    "signal region yields before the next review. The muon pT scale corrections will be updated "
    "once the new calibration is released.",
    "The comparison between data and simulation in the Drell–Yan control region shows a mild slope "
    "in the {ll} pT spectrum, which is corrected with a reweighting derived in bins of jet multiplicity. "
    "The effect on the signal region yields is below 2% and is covered by the existing systematic.",
    "Pileup and the jet energy corrections were updated to the recommended versions. The changes in "
    "the expected yields are below 1% and the signal region definition is unchanged. The BDT "
    "inputs were checked for shifts in the jet multiplicity and missing transverse momentum.",
    "Questions from the conveners concerned the treatment of the tt̄ background in the categories "
    "with b-tagged jets and the correlation of the trigger scale factors between years. Both are "
    "addressed in the next version of the note.",
    "The statistical model was rebuilt with combine after a change of the datacard format. The "
    "expected results are reproduced to better than 0.1σ and the nuisance-parameter pulls are "
    "unchanged. The Drell–Yan and tt̄ normalisations float freely, as before.",
    "All plots now use the collaboration style and show the integrated luminosity and √s in the "
    "header. The blinded region is masked in every distribution of the {mll} spectrum, and the "
    "ratio panels show the statistical and systematic uncertainty bands separately.",
    "A synchronisation exercise with the second analysis team found identical event counts after "
    "the trigger, the {lep} selection and the background-rejection requirements. Small differences "
    "in the jet counting were traced to the pileup jet identification and fixed.",
]

TITLES = {
    "background": ["Background estimation", "Background composition", "Background studies v2", "Sideband checks"],
    "trigger": ["Trigger efficiency study", "Trigger efficiency study v2", "Tag-and-probe trigger scale factors", "Trigger strategy"],
    "systematic": ["Systematic uncertainties", "Impacts and pulls", "Systematics table v3", "Uncertainty ranking"],
    "lumi": ["Datasets and luminosity", "Data samples", "Golden JSON and luminosity", "Collision data used"],
    "classifier": ["MVA training", "Classifier optimisation", "Input variables and training", "BDT vs DNN comparison"],
    "window": ["Signal region definition", "Mass window optimisation", "Category definitions", "Blinding and signal region"],
    "result": ["Results", "Unblinding report", "Final results for approval", "Post-fit results"],
    "bkgmodel": ["Background modelling", "Fit function choice", "Bias studies", "Background parametrisation"],
    "sigmc": ["Monte Carlo samples", "Signal simulation", "Sample production request", "Generator settings"],
    "selection": ["Event selection", "Object selection", "Lepton identification and isolation", "Selection cutflow"],
}
MIXED_TITLES = ["Analysis note draft, section 4", "Meeting minutes", "Answers to ARC comments",
                "Status report", "Preapproval summary", "Analysis overview for the conveners"]

QUESTION_TEMPLATES = {
    "background": ["What is the dominant background {hint}?",
                   "Which process makes up most of the background {hint}?"],
    "trigger": ["Which trigger is used {hint}, and at what threshold?",
                "What trigger path and pT threshold select the events {hint}?"],
    "systematic": ["What is the leading systematic uncertainty {hint}?",
                   "Which systematic has the largest impact {hint}?"],
    "lumi": ["What integrated luminosity is analysed {hint}?",
             "How much data, in fb⁻¹, is used {hint}?"],
    "classifier": ["What multivariate classifier separates signal from background {hint}?",
                   "Which BDT or neural network is used {hint}?"],
    "window": ["What mass window defines the signal region {hint}?",
               "Which mass range is the signal region {hint}?"],
    "result": ["What is the observed result {hint}?",
               "What significance or limit was observed {hint}?"],
    "bkgmodel": ["How is the background shape modelled {hint}?",
                 "Which fit function describes the background {hint}?"],
    "sigmc": ["Which generator produces the signal samples {hint}?",
              "How are the signal Monte Carlo samples generated {hint}?"],
    "selection": ["What are the lepton selection requirements {hint}?",
                  "Which pT, η and isolation cuts select the leptons {hint}?"],
}

FIELD_RE = re.compile(r"\{([a-z_0-9]+)\}")


def cap(s):
    return s[:1].upper() + s[1:]


def fill(template, facts):
    """Fills a template; returns (text, set of keys whose fact the text states)."""
    vals = dict(facts)
    for k in list(facts):
        vals[k + "_cap"] = cap(facts[k])
    keys = set()
    for name in FIELD_RE.findall(template):
        base = name[:-4] if name.endswith("_cap") else name
        if base in FIELD_KEY:
            keys.add(FIELD_KEY[base])
    return template.format(**vals), keys


def make_docs(an, rng):
    facts = an["f"]
    aid = an["analysis_id"]
    # How many documents are "about" each key: 2 on average, 1..3, at least one each.
    per_key = {k: 2 for k in KEYS}
    for k in rng.sample(KEYS, 3):
        per_key[k] = 1
    for k in rng.sample([k for k in KEYS if per_key[k] == 2], rng.randint(1, 3)):
        per_key[k] = 3
    n_topic = sum(per_key.values())
    n_mixed = rng.randint(max(1, 21 - n_topic), 25 - n_topic)
    plan = [("topic", k) for k in KEYS for _ in range(per_key[k])] + [("mixed", None)] * n_mixed
    rng.shuffle(plan)
    docs = []
    used_titles = Counter()
    for kind, key in plan:
        paras = []  # (text, keys)
        if kind == "topic":
            paras.append(fill(rng.choice(TEMPLATES[key]), facts))
            if rng.random() < 0.55:
                paras.append(fill(FOLLOWUPS[key], facts))
            n_extra = rng.choice([0, 1, 1, 2, 2, 3])
            for _ in range(n_extra):
                if len(paras) >= 5:
                    break
                if rng.random() < 0.45:
                    other = rng.choice([k for k in KEYS if k != key])
                    paras.append(fill(rng.choice(TEMPLATES[other]), facts))
                else:
                    paras.append(fill(rng.choice(FILLERS), facts))
            if len(paras) < 2:
                paras.append(fill(rng.choice(FILLERS), facts))
            title = rng.choice(TITLES[key])
            primary = key
        else:
            ks = rng.sample(KEYS, rng.randint(2, 3))
            for k in ks:
                paras.append(fill(rng.choice(TEMPLATES[k]), facts))
            if rng.random() < 0.6:
                paras.append(fill(rng.choice(FILLERS), facts))
            title = rng.choice(MIXED_TITLES)
            primary = None
        # Deduplicate identical paragraphs (same filler twice), keep order.
        seen, uniq = set(), []
        for t, ks in paras:
            if t not in seen:
                seen.add(t)
                uniq.append((t, ks))
        if len(uniq) < 2:
            uniq.append(fill(FILLERS[len(docs) % len(FILLERS)], facts))
        rng.shuffle(uniq) if kind == "mixed" else None
        used_titles[title] += 1
        if used_titles[title] > 1:
            title = f"{title} ({used_titles[title]})"
        mentions = set().union(*(ks for _, ks in uniq))
        docs.append({
            "title": title,
            "text": "\n\n".join(t for t, _ in uniq),
            "primary": primary,
            "mentions": mentions,
        })
    out = []
    for i, d in enumerate(docs, 1):
        d["_id"] = f"{aid}-{i:02d}"
        d["analysis_id"] = aid
        out.append(d)
    return out


def make_queries(rng):
    queries = []
    for an in ANALYSES:
        hints = list(an["hints"])
        rng.shuffle(hints)
        for j, key in enumerate(KEYS):
            hint = hints[j % len(hints)]
            tpl = rng.choice(QUESTION_TEMPLATES[key])
            queries.append({"text": tpl.format(hint=hint), "analysis_id": an["analysis_id"], "key": key})
    rng.shuffle(queries)
    for i, q in enumerate(queries, 1):
        q["_id"] = f"q{i:03d}"
    return queries


# ---------------------------------------------------------------------------------------------
# Optional BM25 proxy of both tiers (stdlib), to see that the hints are weak but useful.
# ---------------------------------------------------------------------------------------------

STOP = set("a an and are as at be by for from in is it of on or that the this to was were what which "
           "with how much used uses use does do our we its their there into per than".split())


def tokens(s):
    s = s.lower().replace("′", "prime")
    out = []
    for t in re.findall(r"[^\W_]+", s):
        if t in STOP:
            continue
        for suf in ("ing", "es", "s"):  # a crude stemmer, enough for a proxy
            if len(t) > len(suf) + 3 and t.endswith(suf):
                t = t[: -len(suf)]
                break
        out.append(t)
    return out


class BM25:
    def __init__(self, texts, k1=1.2, b=0.75):
        self.docs = [Counter(tokens(t)) for t in texts]
        self.len = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.len) / len(self.len)
        df = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.k1, self.b = k1, b

    def scores(self, q):
        out = []
        qt = tokens(q)
        for d, l in zip(self.docs, self.len):
            s = 0.0
            for t in qt:
                tf = d.get(t, 0)
                if tf:
                    s += self.idf[t] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * l / self.avg))
            out.append(s)
        return out


def check(analyses, corpus, queries):
    ab = BM25([f"{a['title']} {a['abstract']} {' '.join(a['tags'])}" for a in analyses])
    ids = [a["analysis_id"] for a in analyses]
    top1 = top3 = 0
    for q in queries:
        s = ab.scores(q["text"])
        order = [ids[i] for i in sorted(range(len(ids)), key=lambda i: -s[i])]
        top1 += order[0] == q["analysis_id"]
        top3 += q["analysis_id"] in order[:3]
    n = len(queries)
    print(f"[check] abstracts BM25 routing: top-1 {top1 / n:.2f}, top-3 {top3 / n:.2f}")
    cb = BM25([f"{d['title']} {d['text']}" for d in corpus])
    wrong = tot = 0
    for q in queries:
        s = cb.scores(q["text"])
        top = sorted(range(len(corpus)), key=lambda i: -s[i])[:5]
        wrong += sum(corpus[i]["analysis_id"] != q["analysis_id"] for i in top)
        tot += 5
    print(f"[check] unscoped BM25 top-5 docs from a wrong analysis: {wrong / tot:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory to write the corpus into")
    ap.add_argument("--check", action="store_true", help="print a BM25 proxy of both tiers")
    args = ap.parse_args()

    rng = random.Random(SEED)
    corpus = []
    for an in ANALYSES:
        corpus.extend(make_docs(an, rng))
    queries = make_queries(rng)

    qrels = []
    by_an = {}
    for d in corpus:
        by_an.setdefault(d["analysis_id"], []).append(d)
    for q in queries:
        rows = []
        for d in by_an[q["analysis_id"]]:
            if d["primary"] == q["key"]:
                rows.append((d["_id"], 2))
            elif q["key"] in d["mentions"]:
                rows.append((d["_id"], 1))
        assert any(r == 2 for _, r in rows), q
        qrels.extend((q["_id"], did, r) for did, r in rows)

    os.makedirs(os.path.join(args.out, "qrels"), exist_ok=True)

    def dump(name, rows):
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

    dump("analyses.jsonl", [{k: a[k] for k in ("analysis_id", "title", "abstract", "tags", "status", "groups")}
                            for a in ANALYSES])
    dump("corpus.jsonl", [{"_id": d["_id"], "title": d["title"], "text": d["text"], "analysis_id": d["analysis_id"]}
                          for d in corpus])
    dump("queries.jsonl", [{"_id": q["_id"], "text": q["text"], "analysis_id": q["analysis_id"]} for q in queries])
    with open(os.path.join(args.out, "qrels", "test.tsv"), "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid, did, r in qrels:
            f.write(f"{qid}\t{did}\t{r}\n")
    print(f"wrote {len(ANALYSES)} analyses, {len(corpus)} documents, {len(queries)} queries, "
          f"{len(qrels)} qrels to {args.out}")
    if args.check:
        words = [len(p.split()) for d in corpus for p in d["text"].split("\n\n")]
        print(f"[check] paragraph words min {min(words)} median {sorted(words)[len(words) // 2]} max {max(words)}")
        check(ANALYSES, corpus, queries)


if __name__ == "__main__":
    main()
