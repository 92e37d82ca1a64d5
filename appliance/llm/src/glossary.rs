//! Abbreviations physicists type and the spellings notes write for the same thing ("VBF" and
//! "vector-boson fusion"), so that a question names a thing as its passages do.

use crate::grounding;

/// Spellings of one thing, the abbreviation (else the spelling notes write most) first: a
/// question's spelling no passage writes is glossed with the first of its group that one
/// writes. Only abbreviations a note does not spell by
/// their opening letters ("lumi" for luminosity is read by [`crate::locate`] already), and none
/// that is also an English word or a unit ("ME", "PS"). Not "xsec": the model reads it as a
/// cross section unaided, and "xsec (cross section)" only moved two near misses over the
/// relevance and support bars on re-run (benches/ANSWERS.md).
const GROUPS: &[&[&str]] = &[
    &[
        "VBF",
        "vector-boson fusion",
        "weak-boson fusion",
        "vector-boson-fusion",
        "weak-boson-fusion",
    ],
    &[
        "ggF",
        "ggH",
        "gluon fusion",
        "gluon-gluon fusion",
        "gluon-fusion",
    ],
    &["DY", "Drell-Yan", "Drell–Yan"],
    &[
        "MET",
        "ptmiss",
        "p_T^miss",
        "pTmiss",
        "missing transverse momentum",
        "missing transverse energy",
        "missing momentum",
    ],
    &["PU", "pileup", "pile-up"],
    &["JES", "jet energy scale"],
    &["JER", "jet energy resolution"],
    &["UE", "underlying event", "underlying-event"],
    &[
        "MPI",
        "multiparton interactions",
        "multi-parton interactions",
        "multiple parton interactions",
    ],
    &["ISR", "initial-state radiation"],
    &["FSR", "final-state radiation"],
    &["BDT", "boosted decision tree"],
    &["SR", "signal region"],
    &["CR", "control region"],
    &["VR", "validation region"],
    &["WP", "working point"],
    &["SF", "scale factor"],
    &["UL", "upper limit"],
    &["bkg", "background"],
    &["BR", "branching fraction", "branching ratio"],
    // Not abbreviations: the names a resonance search gives its spin hypotheses (a "tensor"
    // or "graviton" limit is read in a table of spin-2 columns: realistic21 HIG-26-152-q02),
    // and unfolding by another name.
    &["spin-2", "graviton", "tensor"],
    &["spin-0", "radion"],
    &["unfolding", "unfolded", "deconvolution", "deconvolved"],
    // Data-taking periods of Run 3 by the detector event that split them and by their year
    // (realistic21 JME-26-148-q03: "postEE '22" beside rows of "2022EE"; also what
    // `terms::unmentioned` reads a period name by, [`written_otherwise`]).
    &["2022EE", "postEE", "post-EE", "2022postEE"],
    &["2023BPix", "postBPix", "post-BPix", "2023postBPix"],
];

/// `s` as spellings are compared: ASCII letters in lower case, hyphens as spaces (byte
/// offsets kept).
fn folded(s: &str) -> String {
    s.to_ascii_lowercase().replace('-', " ")
}

/// Where `form` ([`folded`]) occurs in `text` ([`folded`]) as whole words, a plural "s" after
/// it allowed ("SFs"): the byte ranges of the form, in order.
fn places(text: &str, form: &str) -> Vec<(usize, usize)> {
    let word = |c: char| c.is_alphanumeric();
    grounding::occurrences(text, form, word, |_| false)
        .filter(|&(_, e)| {
            let mut after = text[e..].chars();
            match after.next() {
                Some('s') => !after.next().is_some_and(word),
                Some(c) => !word(c),
                None => true,
            }
        })
        .collect()
}

/// `question` with the spelling its passages `texts` write after the question's spellings of
/// a group of [`GROUPS`] when they write none of them (once, after the last: "weak-boson-fusion
/// μ?" → "weak-boson-fusion (VBF) μ?" beside notes writing only "VBF"); `question` itself when
/// there is none. The model steps read a question in the notes' words (realistic20
/// HIG-26-108-q01: the inclusive μ given for the VBF one).
pub fn gloss(question: &str, texts: &[&str]) -> String {
    let q = folded(question);
    let texts: Vec<String> = texts.iter().map(|t| folded(t)).collect();
    let written = |form: &str| texts.iter().any(|t| !places(t, &folded(form)).is_empty());
    // (end of the question's spelling, the passages' spelling), by position.
    let mut glosses: Vec<(usize, &str)> = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for group in GROUPS {
        // Longer spellings first, so "gluon-gluon fusion" is not read as "gluon fusion".
        let mut forms: Vec<&str> = group.to_vec();
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        // The end of the question's last spelling of the group, and whether a passage writes
        // any of its spellings there.
        let mut last: Option<usize> = None;
        let mut as_written = false;
        for form in forms {
            for (s, e) in places(&q, &folded(form)) {
                if taken.iter().any(|&(a, b)| s < b && a < e) {
                    continue;
                }
                taken.push((s, e));
                last = last.max(Some(e));
                as_written |= written(form);
            }
        }
        // Glossed once, after the last of them, unless one is a spelling the passages write
        // ("tensor (graviton)" beside a note writing "graviton").
        if as_written {
            continue;
        }
        if let (Some(e), Some(other)) = (last, group.iter().find(|o| written(o))) {
            glosses.push((e, other));
        }
    }
    glosses.sort_unstable();
    let mut out = String::new();
    let mut from = 0;
    for (at, other) in glosses {
        // After a plural "s" of the spelling (the other in the plural too), and after the
        // parenthesis it closes.
        let plural = question[at..].starts_with('s');
        let at = if plural { at + 1 } else { at };
        let other = if plural && !other.ends_with('s') {
            format!("{other}s")
        } else {
            other.to_string()
        };
        let at = if question[at..].starts_with(')') {
            at + 1
        } else {
            at
        };
        out.push_str(&question[from..at]);
        out.push_str(&format!(" ({other})"));
        from = at;
    }
    out.push_str(&question[from..]);
    out
}

/// Whether `name` is a spelling of a group of [`GROUPS`] of which `texts` write one: a name
/// the passages write in other words ("postEE" beside a table of "2022EE" rows: realistic21
/// JME-26-148-q03, refused as unmentioned), for [`crate::terms::unmentioned`].
pub fn written_otherwise(name: &str, texts: &[&str]) -> bool {
    let name = folded(name);
    let Some(group) = GROUPS
        .iter()
        .find(|g| g.iter().any(|form| folded(form) == name))
    else {
        return false;
    };
    let texts: Vec<String> = texts.iter().map(|t| folded(t)).collect();
    group
        .iter()
        .any(|form| texts.iter().any(|t| !places(t, &folded(form)).is_empty()))
}

/// `question` in the words of its passages `texts`: [`gloss`], then [`energies`].
pub fn read(question: &str, texts: &[&str]) -> String {
    energies(&gloss(question, texts), texts)
}

/// `question` with each energy in TeV or GeV that no passage writes in that unit followed by
/// its value in the other unit where a passage writes that number ("a 1-TeV radion (1000
/// GeV)" beside a table of m_X (GeV) rows: realistic21 HIG-26-152-q06): TeV from 0.1 up, GeV
/// from 1000 up, so that "40 GeV" is never "0.04".
pub fn energies(question: &str, texts: &[&str]) -> String {
    // (end of the unit in the question, the value in the other unit), by position.
    let mut glosses: Vec<(usize, String)> = Vec::new();
    let lower = question.to_ascii_lowercase();
    for unit in ["tev", "gev"] {
        for (at, _) in lower.match_indices(unit) {
            let after = lower[at + unit.len()..].chars().next();
            if after.is_some_and(char::is_alphanumeric) {
                continue;
            }
            // The number before the unit, a space or a hyphen between.
            let head = lower[..at].trim_end_matches([' ', '-']);
            let start = number_start(head);
            let number = &head[start..];
            let Ok(value) = number.parse::<f64>() else {
                continue;
            };
            let (other, converted) = if unit == "tev" {
                ("GeV", value * 1000.0)
            } else {
                ("TeV", value / 1000.0)
            };
            if (unit == "tev" && value < 0.1) || (unit == "gev" && value < 1000.0) {
                continue;
            }
            let converted = match range_start(&head[..start]) {
                // The lower edge of a range in the same unit ("0.4<pT<0.5 TeV", "1–1.2 TeV").
                Some(low) if low < value => {
                    let low = if unit == "tev" {
                        low * 1000.0
                    } else {
                        low / 1000.0
                    };
                    format!("{}–{}", decimal(low), decimal(converted))
                }
                _ => decimal(converted),
            };
            let last = converted.rsplit('–').next().unwrap_or_default().to_string();
            let in_unit = |t: &str| {
                let t = t.to_ascii_lowercase();
                let written = grounding::whole_numbers(&t, number).any(|(_, e)| {
                    t[e..]
                        .trim_start_matches([' ', '-', '\u{a0}'])
                        .starts_with(unit)
                });
                written
            };
            if texts.iter().any(|t| in_unit(t))
                || !texts.iter().any(|t| grounding::has_number(t, &last))
            {
                continue;
            }
            glosses.push((at + unit.len(), format!(" ({converted} {other})")));
        }
    }
    glosses.sort();
    let mut out = String::new();
    let mut from = 0;
    for (end, gloss) in glosses {
        out.push_str(&question[from..end]);
        out.push_str(&gloss);
        from = end;
    }
    out.push_str(&question[from..]);
    out
}

/// `x` as notes write it, rounded to six decimals (1.1 TeV is "1100" GeV, not
/// "1100.0000000000002").
fn decimal(x: f64) -> String {
    format!("{}", (x * 1e6).round() / 1e6)
}

/// The number a range ends with before its upper edge: `head` (lower case) ending in "0.4<pT<",
/// "0.4 < p_t <", "1–", "1-" or "1 to".
fn range_start(head: &str) -> Option<f64> {
    let h = head.trim_end();
    let h = if let Some(h) = h.strip_suffix('<') {
        // "A < pT <": the variable between the bounds.
        let h = h
            .trim_end()
            .trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '_');
        h.trim_end().strip_suffix('<')?
    } else if let Some(h) = h.strip_suffix(" to") {
        h
    } else {
        h.strip_suffix('–').or_else(|| h.strip_suffix('-'))?
    };
    let h = h.trim_end();
    h[number_start(h)..].parse().ok()
}

/// Where the digits and points that `s` ends with start (`s.len()` when it ends with none).
fn number_start(s: &str) -> usize {
    s.char_indices()
        .rfind(|&(_, c)| !(c.is_ascii_digit() || c == '.'))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// Fractions typed as one character, with the decimals notes write for them.
const FRACTIONS: &[(char, &str)] = &[('½', "0.5"), ('¼', "0.25"), ('¾', "0.75"), ('⅛', "0.125")];

/// `question` with each fraction typed as one character ("a=½") written in decimals ("a=0.5"),
/// as tables write a coupling or a ratio (realistic21 EXO-26-157-q03 and q06, whose rows of
/// "a = 0.25" and "a = 0.5" neither the judge's window nor the model found).
pub fn decimals(question: &str) -> String {
    let mut out = String::with_capacity(question.len());
    for c in question.chars() {
        match FRACTIONS.iter().find(|(f, _)| *f == c) {
            Some((_, d)) => out.push_str(d),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spelling_no_passage_writes_is_glossed_with_the_one_they_write() {
        let notes = [
            "| Process | μ |\n|---|---|\n| VBF | 1.21 ± 0.2 |",
            "The ggH μ is 1.0.",
        ];
        assert_eq!(
            gloss("weak-boson-fusion μ from the 4-POI fit?", &notes),
            "weak-boson-fusion (VBF) μ from the 4-POI fit?"
        );
        assert_eq!(gloss("gluon fusion mu?", &notes), "gluon fusion (ggH) mu?");
        // Written as the passages write it: nothing added.
        assert_eq!(gloss("VBF mu?", &notes), "VBF mu?");
        let prose = ["The jet energy scale uncertainty in the signal region is 3.1%."];
        assert_eq!(
            gloss("how big is the JES piece in the SR?", &prose),
            "how big is the JES (jet energy scale) piece in the SR (signal region)?"
        );
        assert_eq!(
            gloss(
                "SFs for the loose WP?",
                &["The scale factors at each working point …"]
            ),
            "SFs (scale factors) for the loose WP (working point)?"
        );
        // No other spelling written either, or a word that merely contains one: unchanged.
        assert_eq!(gloss("DY norm?", &["no such process"]), "DY norm?");
        assert_eq!(gloss("SRs and sfx?", &["SRsomething"]), "SRs and sfx?");
    }

    #[test]
    fn a_group_is_glossed_once_and_not_when_the_question_writes_the_notes_spelling() {
        // realistic21 HIG-26-152-q02: the limits table writes only "spin-2"; the introduction
        // beside it writes "spin-2 Kaluza–Klein (KK) graviton".
        let table = ["| m_X (GeV) | Observed, spin-2 |\n|---|---|\n| 700 | 33.0 |"];
        let intro = ["a spin-0 radion and a spin-2 Kaluza–Klein (KK) graviton"];
        assert_eq!(
            gloss("tensor (graviton) hypothesis: obs UL @ 700?", &table),
            "tensor (graviton) (spin-2) hypothesis: obs UL @ 700?"
        );
        assert_eq!(
            gloss("tensor (graviton) hypothesis?", &intro),
            "tensor (graviton) hypothesis?"
        );
        assert_eq!(
            gloss(
                "which Bayesian deconvolution algorithm?",
                &["spectra are unfolded"]
            ),
            "which Bayesian deconvolution (unfolded) algorithm?"
        );
        assert_eq!(
            gloss(
                "VBF or weak-boson fusion, the VBF SF?",
                &["vector-boson fusion"]
            ),
            "VBF or weak-boson fusion, the VBF (vector-boson fusion) SF?"
        );
        assert_eq!(
            gloss("SF, postEE '22?", &["| 2022EE | 0.991 |"]),
            "SF, postEE (2022EE) '22?"
        );
    }

    #[test]
    fn an_energy_is_also_given_in_the_unit_the_passages_write_it_in() {
        let table = ["| m_X (GeV) | Observed, spin-0 |\n|---|---|\n| 1000 | 13.9 |"];
        assert_eq!(
            energies("post-CWR obs bound on σB for a 1-TeV radion?", &table),
            "post-CWR obs bound on σB for a 1-TeV (1000 GeV) radion?"
        );
        let tev = ["The mass reach is 3.5 TeV for the triplet."];
        assert_eq!(
            energies("ceiling at m = 3500 GeV?", &tev),
            "ceiling at m = 3500 GeV (3.5 TeV)?"
        );
        // Written in the question's unit, or not at all, or too small: unchanged.
        assert_eq!(
            energies("limit at 1 TeV?", &["up to 1 TeV, 1000 events"]),
            "limit at 1 TeV?"
        );
        assert_eq!(energies("limit at 2 TeV?", &table), "limit at 2 TeV?");
        assert_eq!(energies("at 40 GeV?", &["0.04"]), "at 40 GeV?");
        // Rounded as notes write it.
        assert_eq!(
            energies("UL at m = 1.1 TeV?", &["| 1100 | 2.0 |"]),
            "UL at m = 1.1 TeV (1100 GeV)?"
        );
        // A range's lower edge is converted with it (realistic21 HIN-26-184-q06).
        let bins = ["| p_T (GeV) | 0–10% |\n|---|---|\n| 400–500 | 0.66 |"];
        assert_eq!(
            energies("most central events (0.4<pT<0.5 TeV)?", &bins),
            "most central events (0.4<pT<0.5 TeV (400–500 GeV))?"
        );
        assert_eq!(
            energies("R43 in the 1-1.2 TeV bin?", &["| 1000–1200 |"]),
            "R43 in the 1-1.2 TeV (1000–1200 GeV) bin?"
        );
        // A range with an en dash before the number (no panic on the multi-byte dash).
        assert_eq!(
            energies("threshold, 20–3000 GeV?", &["3 TeV"]),
            "threshold, 20–3000 GeV (0.02–3 TeV)?"
        );
        assert_eq!(
            energies("bins 1–3000 GeV?", &["from 1 to 3000 GeV, 3 bins"]),
            "bins 1–3000 GeV?"
        );
    }

    #[test]
    fn a_fraction_typed_as_one_character_is_read_in_decimals() {
        assert_eq!(
            decimals("obs m_V limit for coupling a=¼, as approved?"),
            "obs m_V limit for coupling a=0.25, as approved?"
        );
        assert_eq!(
            decimals("exp. m_V reach at a=½?"),
            "exp. m_V reach at a=0.5?"
        );
        assert_eq!(decimals("no fraction"), "no fraction");
    }
}
