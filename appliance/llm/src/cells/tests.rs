//! Unit tests of [`super`]: cells read off the right row and column.

use super::*;

const CENTRALITY: &str = "Results per class.\n\n\
| Centrality | ⟨xJγ⟩ | R_Jγ |\n\
|---|---|---|\n\
| 0–10% | 0.73 ± 0.02 ± 0.04 | 0.58 ± 0.02 ± 0.04 |\n\
| 10–30% | 0.78 ± 0.02 ± 0.03 | 0.64 ± 0.02 ± 0.04 |\n\
| 30–50% | 0.84 ± 0.02 ± 0.03 | 0.71 ± 0.02 ± 0.03 |\n\
| 50–90% | 0.88 ± 0.03 ± 0.02 | 0.76 ± 0.03 ± 0.03 |\n\
| pp | 0.91 ± 0.01 ± 0.02 | 0.79 ± 0.01 ± 0.02 |\n";

const MISID: &str = "| Lepton | pT range (GeV) | Barrel | Endcap |\n\
|---|---|---|---|\n\
| μ | 10–15 | 0.212 ± 0.008 | 0.247 ± 0.011 |\n\
| μ | 15–25 | 0.131 ± 0.006 | 0.158 ± 0.009 |\n\
| μ | 25–35 | 0.081 ± 0.005 | 0.094 ± 0.006 |\n\
| μ | 35–45 | 0.067 ± 0.007 | 0.079 ± 0.010 |\n\
| e | 10–15 | 0.165 ± 0.012 | 0.198 ± 0.015 |\n\
| e | 15–25 | 0.102 ± 0.008 | 0.129 ± 0.011 |\n";

const RAPIDITY: &str = "| pT (GeV) | −2.5 < y_cm < −1.5 | −1.5 < y_cm < −0.5 | −0.5 < y_cm < 0.5 | 0.5 < y_cm < 1.5 |\n\
|---|---|---|---|---|\n\
| 5–6 | 1.19 ± 0.16 | 1.11 ± 0.14 | 1.05 ± 0.13 | 0.97 ± 0.13 |\n\
| 6–8 | 1.15 ± 0.15 | 1.08 ± 0.13 | 1.04 ± 0.12 | 0.98 ± 0.12 |\n\
| 8–10 | 1.10 ± 0.14 | 1.05 ± 0.13 | 1.02 ± 0.12 | 0.99 ± 0.12 |\n";

const STATIONS: &str = "| Station / wheel | 2022 | 2023 | 2024 |\n\
|---|---|---|---|\n\
| MB1 YB−2 | 98.1 | 97.7 | 96.9 |\n\
| MB1 YB0 | 98.6 | 98.5 | 98.3 |\n\
| MB1 YB+2 | 98.0 | 97.5 | 96.6 |\n";

const WIDTHS: &str = "| m_T (GeV) | Γ/m = 1% | Γ/m = 10% | Γ/m = 20% | Γ/m = 30% |\n\
|---|---|---|---|---|\n\
| 800 | 112.3 | 128.0 | 141.6 | 156.2 |\n\
| 1200 | 41.5 | 47.1 | 52.4 | 58.3 |\n\
| 1600 | 19.2 | 22.4 | 25.3 | 29.0 |\n";

const WPS: &str = "| Working point (mistag rate) | 2022 | 2023 | 2024 |\n\
|---|---|---|---|\n\
| Loose (1%) | 1.02 ± 0.04 | 0.99 ± 0.05 | 1.01 ± 0.03 |\n\
| Medium (0.5%) | 0.97 ± 0.04 | 0.94 ± 0.05 | 0.98 ± 0.03 |\n\
| Tight (0.1%) | 0.92 ± 0.06 | 0.89 ± 0.07 | — |\n";

const MTT: &str = "| m_tt̄ bin (GeV) | Observed A_C (%) | Prediction (%) |\n\
|---|---|---|\n\
| below 500 | 0.52 ± 0.41 | 0.61 ± 0.05 |\n\
| 500–750 | 0.96 ± 0.45 | 0.98 ± 0.06 |\n\
| 750–1000 | 1.31 ± 0.72 | 1.34 ± 0.09 |\n\
| above 1000 | 1.78 ± 0.95 | 1.66 ± 0.12 |\n";

fn labels(q: &str, text: &str) -> Vec<String> {
    locate(q, text).into_iter().map(|l| l.label).collect()
}

#[test]
fn ordinals_and_extremes_name_rows_by_their_order() {
    assert_eq!(
        labels("avg xJ for the third centrality slice?", CENTRALITY),
        ["30–50%"]
    );
    assert_eq!(
        labels("R_Jg, most peripheral class?", CENTRALITY),
        ["50–90%"]
    );
    assert_eq!(labels("xJ in the most central bin?", CENTRALITY), ["0–10%"]);
    assert_eq!(labels("second-most-central class?", CENTRALITY), ["10–30%"]);
    assert_eq!(
        labels("mu misID ratio, third pt bin, fwd region?", MISID),
        ["25–35"]
    );
    assert_eq!(labels("misid in the last pT bin?", MISID), ["35–45"]);
    assert_eq!(labels("next-to-last pt bin?", MISID), ["25–35"]);
}

#[test]
fn labels_in_words_and_value_columns() {
    // Column labels "Γ/m = 20%"; the value columns under them are no row labels.
    assert_eq!(
        labels(
            "obs limit, 1.2 TeV T, second-largest width hypothesis?",
            WIDTHS
        ),
        ["Γ/m = 20%"]
    );
    assert_eq!(labels("limit at the highest mass point?", WIDTHS), ["1600"]);
    // A working point named with its rate; years are no ordered labels.
    assert_eq!(
        labels("data/sim corr for the middle top-tag WP, '23?", WPS),
        ["Medium (0.5%)"]
    );
    assert!(labels("SF in the last year?", WPS).is_empty());
    assert_eq!(
        labels("R_Jg one bin below the top?", CENTRALITY),
        ["30–50%"]
    );
    // Naming no quantity, only the first column labels rows.
    assert!(labels("prompt share one bin below the top?", MISID).is_empty());
}

#[test]
fn a_bound_in_words_is_read_as_one() {
    // "below 500" comes before "500–750", "above 1000" after "750–1000".
    assert_eq!(
        labels("obs charge asym in the 3rd m(ttbar) slice?", MTT),
        ["750–1000"]
    );
    assert_eq!(labels("A_C in the lowest mass bin?", MTT), ["below 500"]);
    assert_eq!(labels("A_C in the highest mass bin?", MTT), ["above 1000"]);
}

#[test]
fn column_labels_are_ordered_too() {
    assert_eq!(
        labels(
            "RpPb for 6<pt<8 in the most backward rapidity slice?",
            RAPIDITY
        ),
        ["−2.5 < y_cm < −1.5"]
    );
    assert_eq!(
        labels("most forward y slice, 8-10 GeV?", RAPIDITY),
        ["0.5 < y_cm < 1.5"]
    );
}

#[test]
fn no_place_without_an_ordered_axis_or_with_a_relative_or_other_quantity() {
    // Names and years are not ordered labels.
    assert!(labels("MB1 eff in the second wheel, '24?", STATIONS).is_empty());
    assert!(labels("first bin above 12 GeV?", MISID).is_empty());
    assert!(labels("the third rapidity bin?", MISID).is_empty());
    assert!(labels("who gave the second talk?", CENTRALITY).is_empty());
    assert!(labels("why drop the two most peripheral classes?", CENTRALITY).is_empty());
    assert!(labels("most central rapidity slice?", RAPIDITY).is_empty());
}

#[test]
fn the_question_carries_the_label_and_neighbouring_cells_are_told() {
    let q = "avg xJ for the third centrality slice?";
    assert_eq!(
        annotate(q, &["no table here", CENTRALITY]),
        "avg xJ for the third centrality slice (30–50%)?"
    );
    assert_eq!(annotate("what is xJ?", &[CENTRALITY]), "what is xJ?");
    assert!(other_cell(q, "It is 0.76 ± 0.03 [1].", &[CENTRALITY]));
    assert!(!other_cell(
        q,
        "It is 0.84 ± 0.02 ± 0.03 [1].",
        &[CENTRALITY]
    ));
    // A number written in the described row too, or outside the table, is not told.
    let q = "mu misID ratio, third pt bin, fwd region?";
    assert!(other_cell(q, "The ratio is 0.158 ± 0.009 [1].", &[MISID]));
    assert!(!other_cell(q, "The ratio is 0.094 ± 0.006 [1].", &[MISID]));
    let prose = format!("{MISID}\nThe endcap value 0.158 was checked.");
    assert!(!other_cell(q, "The ratio is 0.158 [1].", &[&prose]));
    let q = "RpPb for 6<pt<8 in the most backward rapidity slice?";
    assert!(other_cell(q, "It is 1.04 ± 0.12 [1].", &[RAPIDITY]));
    assert!(!other_cell(q, "It is 1.15 ± 0.15 [1].", &[RAPIDITY]));
}

#[test]
fn a_row_named_by_its_value_keeps_claims_to_that_row() {
    // realistic20 HIN-26-139-q08: no row for 90 GeV; the 70 GeV row's limit was given.
    let alp = "**Table 2.** Upper limits at 95% CL on g_aγγ (TeV⁻¹).\n\n| m_a (GeV) | Expected | Observed |\n|---|---|---|\n| 6 | 0.21 | 0.24 |\n| 10 | 0.12 | 0.10 |\n| 20 | 0.073 | 0.081 |\n| 40 | 0.064 | 0.059 |\n| 70 | 0.090 | 0.097 |";
    let q = "obs ALP limit at m_a = 90 GeV?";
    assert!(other_cell(
        q,
        "The observed limit for m_a = 90 GeV is 0.097 TeV⁻¹ [1].",
        &[alp]
    ));
    let q = "how small a photon coupling do we exclude for a 20 GeV axion?";
    assert!(!other_cell(q, "The limit is 0.081 [1].", &[alp]));
    assert!(other_cell(q, "The limit is 0.059 [1].", &[alp]));
    // The question writes the value: nothing is annotated.
    assert_eq!(annotate(q, &[alp]), q);
    // A header naming neither the quantity nor the unit, ranges as labels, or a value named
    // without a unit and without "=": not judged.
    let other = alp.replace("m_a (GeV)", "Point");
    assert!(!other_cell(
        "limit at 90 GeV?",
        "It is 0.097 [1].",
        &[&other]
    ));
    let ranges =
        "| m (GeV) | Limit |\n|---|---|\n| 5–10 | 0.21 |\n| 10–20 | 0.12 |\n| 20–40 | 0.073 |";
    assert!(!other_cell(
        "limit at 30 GeV?",
        "It is 0.21 [1].",
        &[ranges]
    ));
    assert!(!other_cell(
        "limit for 90 masses?",
        "It is 0.097 [1].",
        &[alp]
    ));
}
