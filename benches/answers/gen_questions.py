#!/usr/bin/env python3
"""Deterministic generator of a development question set for grounded answering over the
synthetic two-tier corpus (benches/two_tier/gen_corpus.py).

Writes --out FILE (JSONL), one question per line:
  {"_id": "<analysis>-qNN", "text": "...", "analysis_id": "...", "answerable": true|false,
   "key_points": [...], "gold_docs": [...], "kind": "number|name|list|reason|absent|other-analysis",
   "split": "tune"|"measure", "overlap": 0.xx}

The corpus is not read from disk: gen_corpus is imported and its generation is replayed in
process exactly as its main() does (random.Random(SEED), make_docs per analysis in order, then
make_queries), so the document ids (<analysis>-<nn>) are those of any corpus it writes.
`--corpus DIR` additionally checks the replay against a corpus.jsonl written by gen_corpus.py.

A session is scoped to one analysis (analysis_id), so questions never name their analysis; a
quarter carry a weak, paraphrased hint in parentheses.

Answerable questions (8 per analysis, 64): each asks for one fact of the analysis's facts dict,
a "slot" (lumi, years, trigger threshold or efficiency, dominant background and its share,
leading systematic and its size, classifier, mass window and why it is so, result, signal
strength, largest local excess, background model and how it was validated, signal generator,
lepton selection). They are written the way a physicist asks a colleague, with vocabulary
chosen to differ from the paragraph templates of the corpus (no word 4-gram of a question
occurs in any corpus document; asserted). kind is number, name, list or reason.
key_points (1-3 per question) are written per analysis from its fact values: minimal numbers
and names. They are scored by `mitra eval` as analyzed terms (a number of at most 4 characters
as a whole number), so multi-word names are written with spaces ("Drell Yan", "fake factor"),
which also covers the hyphenated forms. gold_docs are the documents of the analysis whose
text holds the slot's fact value; every key point is asserted to be covered, with the same
normalisation and term matching as appliance/eval/src/answers.rs::coverage (unstemmed and
with stop words kept, which is stricter), by every gold document.

Unanswerable questions (4 per analysis, 32) are near misses scoped to the same analysis, in
the same style, each asking for a specific number or name:
  absent          a related fact that no document of the analysis states (the luminosity
                  uncertainty, the number of BDT trees, an expected limit where only the
                  observed one is given, a K-factor that is mentioned without its value...).
                  Asserted: the context of the question occurs in the analysis ("near"), the
                  asked specific does not (regular expressions, some per clause).
  other-analysis  a fact that only another analysis states (the single-electron trigger of the
                  ttH search asked of the H->mumu session, the pileup profile of Run 3 asked of
                  Run 2...). Asserted: its distinguishing words occur in the other analysis's
                  documents and in none of this one's.

Split: every slot has two disjoint phrasing families, A and B (the unanswerable questions are
written per family as well). Family A questions form the "tune" split, family B the "measure"
split, so the measured-only part has phrasings never seen while tuning. Each analysis puts 4
of its 8 slots in each family, chosen greedily to spread every slot and every kind as evenly
as it can over the two; its unanswerable questions alternate (A, B, B, A for even analyses, B, A,
A, B for odd ones). Both splits hold every kind (asserted).

overlap: the fraction of a question's distinct content words (lowercased, stop words removed,
gen_corpus.tokens' crude suffix stemmer) that occur in the text of its best gold document (the
gold document with the highest overlap, an upper bound). For unanswerable questions it is the
same fraction against the best document of the analysis, to show that they look as answerable
as the real ones to a lexical retriever.

Questions are numbered per analysis after a seeded shuffle (an id says nothing about the
answer), and the file lists them round robin over the analyses (every analysis's q01, then
every q02...), so that a prefix of the file or of one split mixes analyses and kinds.

Standard library only; the output depends on this file and gen_corpus.py alone and is
byte-identical from run to run. `--check` prints counts by kind and split and the overlap
statistics.
"""
import argparse
import json
import os
import random
import re
import statistics
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "two_tier"))
import gen_corpus  # noqa: E402

SEED = 20250612

# ---------------------------------------------------------------------------------------------
# Phrasing families. slot -> (kind, field of the facts dict that states it, {family: [texts]}).
# Placeholders: {lep} / {leps} the selected lepton(s), {var} the mass variable, in words.
# ---------------------------------------------------------------------------------------------

SLOTS = {
    "lumi": ("number", "lumi", {
        "A": ["How big is the dataset, in inverse femtobarns?",
              "How many inverse femtobarns went into it?"],
        "B": ["Remind me how large the collision sample is once bad runs are dropped, in fb-1.",
              "What total exposure do they quote for the pp sample?"],
    }),
    "years": ("list", "years", {
        "A": ["Which calendar years of running are in the sample?",
              "Which LHC data-taking periods are included?"],
        "B": ["Tell me which years' collisions were put together here.",
              "Over which years were the pp collisions taken?"],
    }),
    "trig_thr": ("number", "trig", {
        "A": ["What's the online {lep} momentum threshold that lets an event be kept?",
              "Above what transverse momentum does the online filter accept {a_lep}?"],
        "B": ["What HLT cut does an event need to pass to get written out?",
              "How hard must the {lep} be for the online selection to fire?"],
    }),
    "trig_eff": ("number", "trig_eff", {
        "A": ["What percentage of otherwise good events does the online filter keep?",
              "How often, in percent, does the online path fire for events passing the offline cuts?"],
        "B": ["How lossy is the HLT step for selected candidates?",
              "Tell me the per-event pass probability of the online filter, in percent."],
    }),
    "bkg_name": ("name", "bkg", {
        "A": ["Which SM process swamps the final sample?",
              "What's the biggest thing you have to fight against under the signal?"],
        "B": ["Where do most of the surviving non-signal events come from?",
              "Name the single largest source of junk left after the cuts."],
    }),
    "bkg_frac": ("number", "bkg_frac", {
        "A": ["What share of the expected non-signal yield does the leading process make up?",
              "How dominant is the biggest contamination, in percent?"],
        "B": ["If you pie-chart the SM expectation, how large is the biggest slice?",
              "Tell me what fraction of everything that isn't signal comes from the main process."],
    }),
    "syst_name": ("name", "syst", {
        "A": ["What's killing the sensitivity most, on the nuisance side?",
              "Which error source ranks first once statistics are set aside?"],
        "B": ["If you could shrink a single uncertainty, which one would help most?",
              "Name the nuisance that hurts the final number the most."],
    }),
    "syst_size": ("number", "syst_size", {
        "A": ["How large is the top-ranked uncertainty, in percent?",
              "Numerically, how much does the worst nuisance move things?"],
        "B": ["Give me the size, in percent, of the biggest non-statistical error.",
              "How many percent does the dominant error source amount to?"],
    }),
    "clf": ("name", "clf", {
        "A": ["What kind of machine learning sorts the events?",
              "Is there a neural net or boosted trees in the game, and which one?"],
        "B": ["Which learning algorithm does the event categorisation lean on?",
              "Tell me what flavour of ML, if any, separates signal from the rest."],
    }),
    "window": ("number", "window", {
        "A": ["What cut on the {var} do they keep for the signal fit?",
              "Between which values of the {var} do they look for a peak?"],
        "B": ["Remind me of the {var} range of the search.",
              "Where exactly are the edges in {var} put?"],
    }),
    "window_why": ("reason", "window_why", {
        "A": ["What's the reasoning behind where the fit range starts and stops?",
              "Why those particular edges for the search range?"],
        "B": ["What motivates the width of the search region?",
              "Any physics reason the fit range looks the way it does?"],
    }),
    "result": ("number", "result", {
        "A": ["What's the headline number once they opened the box?",
              "After looking at the blinded data, what came out, numerically?"],
        "B": ["Tell me the bottom line of the paper, as a number.",
              "What did unblinding give? Just the main figure they quote."],
    }),
    "mu": ("number", "result2", {
        "A": ["What's the fitted rate relative to the SM expectation?",
              "How does the measured yield compare with the SM prediction, as a ratio?"],
        "B": ["What mu-hat comes out?",
              "Best-fit rate in SM units: what value?"],
    }),
    "smratio": ("number", "result2", {
        "A": ["In units of the SM prediction, how large a rate is still allowed?"],
        "B": ["As a multiple of the SM rate, where does their exclusion sit?"],
    }),
    "excess": ("number", "result2", {
        "A": ["Where's the biggest upward fluctuation, and how many sigma locally?",
              "What's the largest bump they see, and at what mass?"],
        "B": ["Tell me the most significant local deviation and where it sits.",
              "Any hint of something? Give the local sigma and the mass."],
    }),
    "bkgmodel": ("name", "bkgmodel", {
        "A": ["What functional form describes the smooth continuum?",
              "What curve is fitted to the non-resonant part?"],
        "B": ["How is the shape under the peak parametrised?",
              "Which fit shape goes to the non-signal part of the spectrum?"],
    }),
    "bkgmodel_check": ("reason", "bkgmodel_check", {
        "A": ["How did they convince themselves the continuum description is unbiased?",
              "What test backs up the choice of the continuum shape?"],
        "B": ["How do they know the fitted shape isn't faking or eating signal?",
              "What validation was done on the non-signal model?"],
    }),
    "generator": ("name", "sigmc", {
        "A": ["Which MC generator for signal, and at what order?",
              "What program produced the simulated signal events?"],
        "B": ["Who generates the signal, which event generator?",
              "Tell me the tool behind the simulated signal samples."],
    }),
    "sel": ("list", "sel", {
        "A": ["What are the offline cuts on the {leps}: pT, eta, isolation?",
              "List the offline requirements {a_lep} candidate must meet."],
        "B": ["What does {a_lep} need to pass to make it into the analysis?",
              "Walk me through the object cuts applied offline."],
    }),
}

# Per analysis: words for the placeholders, weak hints, and the 8 asked slots with their key
# points (in order; the families alternate along this list).
PER_ANALYSIS = {
    "hmumu-run2": {
        "vocab": {"lep": "muon", "a_lep": "a muon", "leps": "muons", "var": "muon-pair mass"},
        "hints": ["the legacy 13 TeV paper", "the older, full-dataset version"],
        "slots": [
            ("lumi", ["138"]),
            ("trig_thr", ["24 GeV"]),
            ("mu", ["1.19"]),
            ("bkg_frac", ["85"]),
            ("generator", ["POWHEG"]),
            ("clf", ["BDT"]),
            ("sel", ["20 GeV", "2.4", "0.25"]),
            ("window_why", ["resolution"]),
        ],
    },
    "hmumu-run3": {
        "vocab": {"lep": "muon", "a_lep": "a muon", "leps": "muons", "var": "muon-pair mass"},
        "hints": ["the 13.6 TeV update", "the newest muon-pair Higgs numbers"],
        "slots": [
            ("lumi", ["62.4"]),
            ("result", ["2.1"]),
            ("trig_eff", ["93"]),
            ("window", ["115", "135"]),
            ("syst_name", ["momentum scale"]),
            ("bkg_name", ["Drell Yan"]),
            ("years", ["2022", "2023"]),
            ("bkgmodel_check", ["spurious", "15"]),
        ],
    },
    "darkphoton-dimuon": {
        "vocab": {"lep": "muon", "a_lep": "a muon", "leps": "muons", "var": "muon-pair mass"},
        "hints": ["the low-mass bump hunt", "the A′ search"],
        "slots": [
            ("lumi", ["96.6"]),
            ("trig_thr", ["3 GeV"]),
            ("excess", ["2.3", "2.4"]),
            ("syst_size", ["6"]),
            ("bkg_name", ["multijet"]),
            ("generator", ["MadGraph5"]),
            ("sel", ["4 GeV", "1.9"]),
            ("window_why", ["J/ψ"]),
        ],
    },
    "zprime-dimuon": {
        "vocab": {"lep": "muon", "a_lep": "a muon", "leps": "muons", "var": "muon-pair mass"},
        "hints": ["the TeV-scale resonance hunt", "the heavy neutral boson one"],
        "slots": [
            ("result", ["5.15"]),
            ("trig_thr", ["50 GeV"]),
            ("bkg_frac", ["80"]),
            ("window", ["400"]),
            ("clf", ["cut based"]),
            ("syst_name", ["PDF"]),
            ("years", ["2015", "2018"]),
            ("bkgmodel_check", ["120", "400"]),
        ],
    },
    "tth-mumu": {
        "vocab": {"lep": "muon", "a_lep": "a muon", "leps": "muons", "var": "muon-pair mass"},
        "hints": ["the top-pair associated one", "the channel with the extra b jets"],
        "slots": [
            ("lumi", ["172.7"]),
            ("result", ["6.8"]),
            ("mu", ["1.9"]),
            ("syst_size", ["15", "9"]),
            ("clf", ["graph neural network"]),
            ("bkg_name", ["tt̄"]),
            ("sel", ["20", "10 GeV"]),
            ("bkgmodel_check", ["spurious", "10"]),
        ],
    },
    "hee-run2": {
        "vocab": {"lep": "electron", "a_lep": "an electron", "leps": "electrons", "var": "electron-pair mass"},
        "hints": ["the electron channel", "the first-generation coupling search"],
        "slots": [
            ("lumi", ["101"]),
            ("trig_thr", ["23", "12"]),
            ("smratio", ["260"]),
            ("bkg_frac", ["93"]),
            ("generator", ["POWHEG"]),
            ("bkgmodel", ["Bernstein"]),
            ("years", ["2017", "2018"]),
            ("window_why", ["sideband"]),
        ],
    },
    "lfv-higgs-mutau": {
        "vocab": {"lep": "muon", "a_lep": "a muon", "leps": "muon and the tau", "var": "collinear mass"},
        "hints": ["the flavour-violating search", "the mu-tau one"],
        "slots": [
            ("result", ["1.5"]),
            ("window", ["100", "170"]),
            ("trig_eff", ["90"]),
            ("lumi", ["59.7"]),
            ("bkg_name", ["ττ"]),
            ("syst_name", ["fake factor"]),
            ("sel", ["26 GeV", "2.1"]),
            ("bkgmodel_check", ["QCD"]),
        ],
    },
    "wprime-munu": {
        "vocab": {"lep": "muon", "a_lep": "a muon", "leps": "muons", "var": "transverse mass"},
        "hints": ["the muon plus missing energy search", "the charged heavy boson one"],
        "slots": [
            ("lumi", ["34.7"]),
            ("result", ["5.7"]),
            ("excess", ["1.6", "2.3"]),
            ("syst_size", ["25"]),
            ("bkg_name", ["off shell"]),
            ("generator", ["Pythia"]),
            ("sel", ["53 GeV", "2.4"]),
            ("bkgmodel_check", ["200", "400"]),
        ],
    },
}

# Unanswerable near misses, 4 per analysis: two absent, two other-analysis; the families follow
# the order A, B, B, A (even analyses) or B, A, A, B (odd ones).
#   near:   regexes; at least one must match a document of the analysis (the context exists)
#   absent: regexes that must match no document of the analysis
#   clause: (context, value) pairs: no clause of a document of the analysis matching context
#           also matches value (a clause ends at ". " or "; ")
#   other:  (analysis, regex): the regex matches a document of that analysis (and, listed in
#           absent as well, none of this one)
NUM_PCT = r"\d+(\.\d+)?\s*%"
UNANSWERABLE = {
    "hmumu-run2": [
        {"kind": "absent", "text": "How large is the luminosity uncertainty, in percent?",
         "near": [r"luminosity uncertainty"], "clause": [(r"luminosity uncertaint", r"\d")]},
        {"kind": "absent", "text": "Tell me how many trees the boosted ensemble was trained with.",
         "near": [r"decision tree"], "absent": [r"\btrees\b", r"estimators", r"\brounds\b"]},
        {"kind": "other-analysis",
         "text": "Remind me of the average pileup the simulation is reweighted to, as a number of overlapping collisions.",
         "near": [r"pileup"], "other": ("hmumu-run3", r"interactions per crossing"),
         "absent": [r"interactions per crossing", r"\d+ (pileup )?interactions"]},
        {"kind": "other-analysis", "text": "What's the single-electron trigger threshold?",
         "near": [r"trigger"], "other": ("tth-mumu", r"single electron trigger"),
         "absent": [r"electron trigger"]},
    ],
    "hmumu-run3": [
        {"kind": "absent",
         "text": "Tell me how many sigma they reach when merged with the previous run's measurement.",
         "near": [r"significance"], "absent": [r"\bcombination\b", r"\bcombined\b"]},
        {"kind": "absent", "text": "How many hidden layers does the network have?",
         "near": [r"neural network"], "absent": [r"\blayers?\b", r"\bhidden\b"]},
        {"kind": "other-analysis", "text": "What cut on the displacement of the two-muon vertex do they apply, in cm?",
         "near": [r"vertex"], "other": ("darkphoton-dimuon", r"displacement of the dimuon vertex"),
         "absent": [r"displacement", r"\d\s*cm\b"]},
        {"kind": "other-analysis", "text": "Name the lineshape they use to describe the Higgs peak itself.",
         "near": [r"signal model"], "other": ("hee-run2", r"Crystal Ball"),
         "absent": [r"Crystal Ball", r"signal shape"]},
    ],
    "darkphoton-dimuon": [
        {"kind": "absent", "text": "What's the L1 accept rate of the scouting stream, in kHz?",
         "near": [r"scouting"], "absent": [r"kHz"], "clause": [(r"\brate\b", r"\d")]},
        {"kind": "absent", "text": "Tell me the median expected bound on the mixing parameter ε².",
         "near": [r"ε²"], "clause": [(r"ε", r"expected")]},
        {"kind": "other-analysis",
         "text": "Remind me what pT the leading muon needs so that the online path is fully efficient.",
         "near": [r"plateau"], "other": ("hmumu-run2", r"leading muon must exceed"),
         "absent": [r"leading muon"]},
        {"kind": "other-analysis", "text": "Which b-tagging working point is used?",
         "near": [r"b-tagg"], "other": ("tth-mumu", r"DeepJet medium working point"),
         "absent": [r"DeepJet", r"working point"]},
    ],
    "zprime-dimuon": [
        {"kind": "absent", "text": "Tell me the expected lower mass limit on the sequential-model boson.",
         "near": [r"Z′_SSM excluded"], "clause": [(r"SSM", r"expected")]},
        {"kind": "absent", "text": "How tight is the cosmic-ray veto, as an angle in radians?",
         "near": [r"cosmic"],
         "absent": [r"\brad\b", r"radian", r"cosmic[^.;]{0,80}\d", r"opening[- ]angle[^.;]{0,30}\d"]},
        {"kind": "other-analysis", "text": "How many different new-boson masses got their own MC sample?",
         "near": [r"benchmarks"], "other": ("darkphoton-dimuon", r"\d+ mass points"),
         "absent": [r"mass points", r"\bsteps\b"]},
        {"kind": "other-analysis",
         "text": "Remind me how big the muon curvature-bias uncertainty gets at 4 TeV.",
         "near": [r"momentum scale|pT scale"], "other": ("wprime-munu", r"curvature bias"),
         "absent": [r"curvature"]},
    ],
    "tth-mumu": [
        {"kind": "absent", "text": "How efficient is their b-jet identification for genuine b quarks, in percent?",
         "near": [r"DeepJet medium working point"],
         "absent": [r"b-tag\w*[^.;]{0,60}" + NUM_PCT, r"working point[^.;]{0,60}" + NUM_PCT,
                    NUM_PCT + r"[^.;]{0,40}working point"]},
        {"kind": "absent", "text": "Tell me how many quantities per node the GNN sees.",
         "near": [r"graph neural network"],
         "absent": [r"\d+\s+(\w+\s+)?(inputs?|features|variables)\b"]},
        {"kind": "other-analysis", "text": "Name the DeepTau working point applied to hadronic taus.",
         "near": [r"working point"], "other": ("lfv-higgs-mutau", r"DeepTau tight working point"),
         "absent": [r"DeepTau", r"τ_h"]},
        {"kind": "other-analysis", "text": "By how many percent does muon pT-scale mismodelling shift the fitted rate?",
         "near": [r"signal strength"], "other": ("hmumu-run3", r"muon momentum scale and resolution"),
         "absent": [r"momentum scale and resolution"], "clause": [(r"momentum scale", r"\d")]},
    ],
    "hee-run2": [
        {"kind": "absent", "text": "Tell me how many signal events are expected in the best category.",
         "near": [r"categor"],
         "absent": [r"\d+(\.\d+)?\s+(expected\s+)?(signal\s+)?(events|candidates)\b"]},
        {"kind": "absent", "text": "What's the expected significance for a SM-strength signal?",
         "near": [r"expected"], "clause": [(r"significan", r"\d")]},
        {"kind": "other-analysis", "text": "What pT does the single-electron trigger require?",
         "near": [r"double electron trigger"], "other": ("tth-mumu", r"single electron trigger"),
         "absent": [r"single electron", r"single-electron"]},
        {"kind": "other-analysis", "text": "Name the Pythia tune used for the showering.",
         "near": [r"Pythia"], "other": ("hmumu-run2", r"CP5 tune"),
         "absent": [r"\btune\b", r"CP5"]},
    ],
    "lfv-higgs-mutau": [
        {"kind": "absent", "text": "How far down is the H→eτ branching ratio pushed, at 95% confidence?",
         "near": [r"B\(H→μτ\)"], "absent": [r"eτ", r"H→e", r"electron[- ]tau"]},
        {"kind": "absent", "text": "Tell me how big the JES uncertainty is, in percent.",
         "near": [r"jet energy"], "clause": [(r"jet energy scale", r"\d")]},
        {"kind": "other-analysis", "text": "Remind me of the electron trigger threshold for the μτ_e channel.",
         "near": [r"μτ_e"], "other": ("tth-mumu", r"single electron trigger"),
         "absent": [r"electron trigger"]},
        {"kind": "other-analysis", "text": "What share of real prompt muons survives the fake-muon rejection BDT?",
         "near": [r"BDT"], "other": ("darkphoton-dimuon", r"95% of prompt muons"),
         "absent": [r"prompt muons", r"muon-ID"]},
    ],
    "wprime-munu": [
        {"kind": "absent", "text": "Tell me the higher-order correction factor they scale the LO signal by.",
         "near": [r"K-factor"], "absent": [r"K-factor\s*(of|=)?\s*~?\d", r"\d(\.\d+)?\s*K-factor"]},
        {"kind": "absent", "text": "Before unblinding, up to what W′ mass did they expect to exclude?",
         "near": [r"W′_SSM excluded"], "clause": [(r"W′", r"expected")]},
        {"kind": "other-analysis", "text": "What thresholds does the double-muon backup trigger use?",
         "near": [r"trigger"], "other": ("hmumu-run3", r"double-muon trigger with pT > 17 and 8 GeV"),
         "absent": [r"double-muon", r"double muon"]},
        {"kind": "other-analysis", "text": "Remind me how much parton-density error the high-mass DY prediction carries.",
         "near": [r"Drell–Yan"], "other": ("zprime-dimuon", r"PDF uncertainty on the Drell–Yan tail"),
         "absent": [r"\bPDF\b", r"parton"]},
    ],
}

HINT_SHARE = 0.25

# ---------------------------------------------------------------------------------------------
# Matching as appliance/eval/src/answers.rs::coverage does (normalize, whole short numbers,
# analyzed terms), unstemmed and with stop words kept: stricter than the real check.
# ---------------------------------------------------------------------------------------------

NORM = {"\u2212": "-", "\u2013": "-", "\u207b": "-", "\u207a": "+", "\u00d7": "x",
        "\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3"}
NORM.update({chr(0x2070 + d): str(d) for d in range(4, 10)})
EDGE = set(".,;:!?()[]{}\"'`«»“”‘’…*|<>#")


def normalize(s):
    return "".join(NORM.get(c, c) for c in s)


def has_number(text, number):
    i = text.find(number)
    while i >= 0:
        before = text[i - 1] if i > 0 else ""
        after = text[i + len(number)] if i + len(number) < len(text) else ""
        if not (before and (before.isdigit() or before == ".")) and not (after and after.isdigit()):
            return True
        i = text.find(number, i + 1)
    return False


def analyzed_terms(text):
    out = set()
    for piece in text.split():
        t = piece
        while t and t[0] in EDGE:
            t = t[1:]
        while t and t[-1] in EDGE:
            t = t[:-1]
        for suf in ("'s", "'S", "’s", "’S"):
            if t.endswith(suf):
                t = t[: -len(suf)]
                break
        if not any(c.isalnum() for c in t):
            continue
        runs = re.findall(r"[^\W_]+", t)
        compound = len(runs) != 1 or len(runs[0]) != len(t)
        if compound:
            out.add(t.lower())
        abbreviation = compound and all(len(r) == 1 for r in runs) and all(c == "." or c.isalpha() for c in t)
        for r in runs:
            if len(r) > 1 or not abbreviation:
                out.add(r.lower())
    return out


def covers(text, kp):
    text, kp = normalize(text), normalize(kp)
    if len(kp.encode()) <= 4 and all(c.isdigit() or c == "." for c in kp):
        return has_number(text, kp)
    want = analyzed_terms(kp)
    return bool(want) and want <= analyzed_terms(text)


# ---------------------------------------------------------------------------------------------
# Overlap of content words.
# ---------------------------------------------------------------------------------------------

STOP = gen_corpus.STOP | set(
    "about above after again all also am any because been before being below between both can "
    "could did does doing down each few get gets give got had has have having he her here him his "
    "i if im into is isn it its just me more most my no nor not now off once only other out over "
    "own s same she should so some still such t tell than then them these they this those through "
    "too under until up very want way what whats when where which while who whom why will would "
    "you your yours us let lets re ll ve d don t one ones thing things put kept keep just exactly "
    "remind name me quick".split())


def content(text):
    return {t for t in gen_corpus.tokens(text.replace("'", " ").replace("’", " ")) if t not in STOP}


def overlap(question, doc_text):
    q = content(question)
    if not q:
        return 0.0
    d = set(gen_corpus.tokens(doc_text))
    return len(q & d) / len(q)


def ngrams(text, n):
    w = re.findall(r"[^\W_]+", text.lower())
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


# ---------------------------------------------------------------------------------------------
# Generation.
# ---------------------------------------------------------------------------------------------

def corpus_docs():
    """Replays gen_corpus.main()'s generation in process; returns the documents by analysis."""
    rng = random.Random(gen_corpus.SEED)
    corpus = []
    for an in gen_corpus.ANALYSES:
        corpus.extend(gen_corpus.make_docs(an, rng))
    gen_corpus.make_queries(rng)  # consumes the generator as main() does; ids do not depend on it
    by_an = defaultdict(list)
    for d in corpus:
        by_an[d["analysis_id"]].append(d)
    return corpus, by_an


def clauses(text):
    return [c for c in re.split(r"(?<=[.;])\s+|\n+", text) if c.strip()]


def check_unanswerable(aid, u, by_an):
    docs = by_an[aid]
    where = f"{aid}: {u['text']}"
    assert any(re.search(p, d["text"]) for p in u["near"] for d in docs), f"near context missing: {where}"
    for p in u.get("absent", []):
        hits = [d["_id"] for d in docs if re.search(p, d["text"])]
        assert not hits, f"{where}: /{p}/ found in {hits}"
    for ctx, val in u.get("clause", []):
        hits = [c for d in docs for c in clauses(d["text"]) if re.search(ctx, c) and re.search(val, c)]
        assert not hits, f"{where}: clause with /{ctx}/ and /{val}/: {hits[:1]}"
    if u["kind"] == "other-analysis":
        other, p = u["other"]
        assert other != aid
        assert any(re.search(p, d["text"]) for d in by_an[other]), f"{where}: /{p}/ not in {other}"
        assert any(re.search(p, d["text"]) for d in docs) is False, f"{where}: /{p}/ in {aid}"
        assert u.get("absent"), where
    else:
        assert u.get("absent") or u.get("clause"), where


def build():
    corpus, by_an = corpus_docs()
    facts = {a["analysis_id"]: a["f"] for a in gen_corpus.ANALYSES}
    assert set(PER_ANALYSIS) == set(facts) == set(UNANSWERABLE)
    rng = random.Random(SEED)
    used = Counter()  # (slot, family) -> phrasings handed out, to rotate through a family
    slot_fams, kind_fams = Counter(), Counter()  # questions so far per (slot|kind, family)
    out = []
    for i, an in enumerate(gen_corpus.ANALYSES):
        aid = an["analysis_id"]
        spec = PER_ANALYSIS[aid]
        f = facts[aid]
        docs = by_an[aid]
        qs = []
        assert len(spec["slots"]) == 8 and len({s for s, _ in spec["slots"]}) == 8, aid
        quota = Counter()
        for j, (slot, kps) in enumerate(spec["slots"]):
            kind, field, fams = SLOTS[slot]
            # Balance: 4 + 4 per analysis, then each slot and each kind evenly over the families.
            open_fams = [fam for fam in "AB" if quota[fam] < 4]
            fam = min(open_fams, key=lambda fam: (slot_fams[slot, fam], kind_fams[kind, fam],
                                                  fam != "AB"[(i + j) % 2]))
            quota[fam] += 1
            slot_fams[slot, fam] += 1
            kind_fams[kind, fam] += 1
            texts = fams[fam]
            text = texts[used[slot, fam] % len(texts)].format(**spec["vocab"])
            used[slot, fam] += 1
            value = f[field]
            gold = [d for d in docs if value in d["text"] or gen_corpus.cap(value) in d["text"]]
            assert gold, (aid, slot)
            assert 1 <= len(kps) <= 3, (aid, slot)
            for kp in kps:
                assert covers(value, kp), f"{aid} {slot}: key point {kp!r} not in the fact {value!r}"
                for d in gold:
                    assert covers(d["text"], kp), f"{aid} {slot}: key point {kp!r} not in {d['_id']}"
                assert analyzed_terms(normalize(kp)) - set(gen_corpus.STOP), (aid, kp)
            qs.append({"text": text, "answerable": True, "kind": kind, "fam": fam,
                       "key_points": kps, "gold": gold, "slot": slot})
        unans = UNANSWERABLE[aid]
        assert [u["kind"] for u in unans] == ["absent", "absent", "other-analysis", "other-analysis"], aid
        order = "ABBA" if i % 2 == 0 else "BAAB"
        for u, fam in zip(unans, order):
            check_unanswerable(aid, u, by_an)
            qs.append({"text": u["text"], "answerable": False, "kind": u["kind"], "fam": fam,
                       "key_points": [], "gold": [], "slot": None,
                       "other": u.get("other", (None,))[0]})
        for q in qs:
            if rng.random() < HINT_SHARE:
                q["text"] += f" ({rng.choice(spec['hints'])})"
            # Best document of the analysis (what a lexical retriever could latch on to), and,
            # for answerable questions, best gold document (the reported overlap).
            q["overlap_any"] = round(max(overlap(q["text"], d["text"]) for d in docs), 2)
            pool = q["gold"] if q["answerable"] else docs
            q["overlap"] = round(max(overlap(q["text"], d["text"]) for d in pool), 2)
        rng.shuffle(qs)
        for n, q in enumerate(qs, 1):
            q["_id"] = f"{aid}-q{n:02d}"
            q["analysis_id"] = aid
        out.append(qs)
    # File order: round robin over the analyses (q01 of each, then q02...), so that any prefix
    # of the file, or of one split, mixes analyses and kinds.
    return corpus, [per[n] for n in range(max(map(len, out))) for per in out if n < len(per)]


def lint(corpus, questions):
    """Phrasing rules: no word 4-gram shared with any corpus document or question template of
    gen_corpus; analysis ids and titles never named; families disjoint; every kind in both splits."""
    doc_grams = set()
    for d in corpus:
        doc_grams |= ngrams(d["text"], 4)
    for tpls in gen_corpus.QUESTION_TEMPLATES.values():
        for t in tpls:
            doc_grams |= ngrams(t.replace("{hint}", " | "), 4)
    for q in questions:
        shared = ngrams(q["text"], 4) & doc_grams
        assert not shared, f"{q['_id']} copies {sorted(shared)[:3]}: {q['text']}"
        low = q["text"].lower()
        for a in gen_corpus.ANALYSES:
            assert a["analysis_id"] not in low and a["title"].lower() not in low, q["_id"]
            for h in a["hints"]:
                assert h.lower() not in low, (q["_id"], h)
    for slot, (_, _, fams) in SLOTS.items():
        assert not set(fams["A"]) & set(fams["B"]), slot
    phr = defaultdict(set)
    for q in questions:
        phr[q["fam"]].add(re.sub(r" \([^)]*\)$", "", q["text"]))
    assert not phr["A"] & phr["B"], phr["A"] & phr["B"]
    for kind in ("number", "name", "list", "reason", "absent", "other-analysis"):
        for fam in "AB":
            assert any(q["kind"] == kind and q["fam"] == fam for q in questions), (kind, fam)


def stats(questions):
    lines = []
    kinds = ["number", "name", "list", "reason", "absent", "other-analysis"]
    by = Counter((q["split"], q["kind"]) for q in questions)
    lines.append(f"{'split':8} " + " ".join(f"{k:>14}" for k in kinds) + f" {'total':>6}")
    for split in ("tune", "measure"):
        row = [by[split, k] for k in kinds]
        lines.append(f"{split:8} " + " ".join(f"{n:>14}" for n in row) + f" {sum(row):>6}")
    row = [by["tune", k] + by["measure", k] for k in kinds]
    lines.append(f"{'all':8} " + " ".join(f"{n:>14}" for n in row) + f" {sum(row):>6}")
    for split in ("tune", "measure", None):
        for answerable in (True, False):
            ov = [q["overlap"] for q in questions
                  if q["answerable"] is answerable and (split is None or q["split"] == split)]
            what = "answerable (best gold doc)" if answerable else "unanswerable (best doc of the analysis)"
            lines.append(f"overlap {split or 'all':8} {what:40} n={len(ov):3} mean {statistics.mean(ov):.3f} "
                         f"median {statistics.median(ov):.3f} max {max(ov):.2f}")
    for split in ("tune", "measure"):
        ov = [q["overlap_any"] for q in questions if q["answerable"] and q["split"] == split]
        lines.append(f"overlap {split:8} {'answerable (best doc of the analysis)':40} n={len(ov):3} "
                     f"mean {statistics.mean(ov):.3f} median {statistics.median(ov):.3f} max {max(ov):.2f}")
    slots = Counter((q["slot"], q["split"]) for q in questions if q["answerable"])
    lines.append("slots (tune/measure): " + ", ".join(
        f"{s} {slots[s, 'tune']}/{slots[s, 'measure']}" for s in SLOTS))
    per_an = Counter((q["analysis_id"], q["answerable"]) for q in questions)
    lines.append("per analysis (answerable/unanswerable): " + ", ".join(
        f"{a['analysis_id']} {per_an[a['analysis_id'], True]}/{per_an[a['analysis_id'], False]}"
        for a in gen_corpus.ANALYSES))
    return "\n".join(lines)


def verify_corpus_dir(corpus, path):
    with open(os.path.join(path, "corpus.jsonl"), encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    assert [(r["_id"], r["text"]) for r in rows] == [(d["_id"], d["text"]) for d in corpus], \
        f"{path}/corpus.jsonl differs from the in-process replay of gen_corpus"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="question file to write (JSONL)")
    ap.add_argument("--check", action="store_true", help="print counts and overlap statistics")
    ap.add_argument("--corpus", help="a directory written by gen_corpus.py --out, to compare with")
    args = ap.parse_args()

    corpus, questions = build()
    for q in questions:
        q["split"] = "tune" if q["fam"] == "A" else "measure"
    lint(corpus, questions)
    if args.corpus:
        verify_corpus_dir(corpus, args.corpus)
    with open(args.out, "w", encoding="utf-8") as fh:
        for q in questions:
            row = {"_id": q["_id"], "text": q["text"], "analysis_id": q["analysis_id"],
                   "answerable": q["answerable"], "key_points": q["key_points"],
                   "gold_docs": [d["_id"] for d in q["gold"]], "kind": q["kind"],
                   "split": q["split"], "overlap": q["overlap"]}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    n_ans = sum(q["answerable"] for q in questions)
    ov = {s: statistics.mean(q["overlap"] for q in questions if q["answerable"] and q["split"] == s)
          for s in ("tune", "measure")}
    print(f"wrote {len(questions)} questions ({n_ans} answerable, {len(questions) - n_ans} unanswerable) "
          f"to {args.out}; mean answerable overlap tune {ov['tune']:.3f}, measure {ov['measure']:.3f}")
    if args.check:
        print(stats(questions))


if __name__ == "__main__":
    main()
