//! Names a question asks about that no retrieved passage mentions: identifiers notes do not
//! paraphrase (DeepTau, GN2v01, HLT_IsoMu24, W+jets), so passages that never write one cannot
//! give a fact about it.

use crate::{focus, glossary, grounding, kinds};

/// Letters that, alone before an underscore, make a kinematic variable (m_ll, p_T, E_T, H_T),
/// which notes often write in words ("the dilepton mass").
const VARIABLE_BASES: &[&str] = &["m", "M", "p", "P", "E", "H"];

/// Prefixes of camel-case kinematic variables (pTmiss, ETmiss, HTmiss, mTW), often written
/// in words or as symbols with sub- and superscripts.
const VARIABLE_PREFIXES: &[&str] = &["pT", "ET", "HT", "mT"];

/// Prefixes of camel-case abbreviations of prose ("misID" for misidentification or mistag:
/// realistic21 JME-26-148-q02).
const PROSE_PREFIXES: &[&str] = &["mis"];

/// Greek letters as physicists type them in ASCII ("sigma_vis" for σ_vis, "Upsilon" for Υ).
const GREEK: &[(&str, &str)] = &[
    ("αΑ", "alpha"),
    ("βΒ", "beta"),
    ("γΓ", "gamma"),
    ("δΔ", "delta"),
    ("εϵΕ", "epsilon"),
    ("ζΖ", "zeta"),
    ("ηΗ", "eta"),
    ("θΘ", "theta"),
    ("κΚ", "kappa"),
    ("λΛ", "lambda"),
    ("μµΜ", "mu"),
    ("νΝ", "nu"),
    ("ξΞ", "xi"),
    ("πΠ", "pi"),
    ("ρΡ", "rho"),
    ("σςΣ", "sigma"),
    ("τΤ", "tau"),
    ("υΥ", "upsilon"),
    ("φϕΦ", "phi"),
    ("χΧ", "chi"),
    ("ψΨ", "psi"),
    ("ωΩ", "omega"),
];

/// The name a Greek letter is typed with in ASCII ("mu" for μ and µ, "upsilon" for Υ).
pub(crate) fn greek_name(c: char) -> Option<&'static str> {
    GREEK
        .iter()
        .find(|(letters, _)| letters.contains(c))
        .map(|&(_, name)| name)
}

/// Words that name what a Greek letter stands for, read as the letter's name ("photon+jet" is
/// the notes' "γ+jets").
const AS_GREEK: &[(&str, &str)] = &[("photon", "gamma")];

/// The text as compared: lower-case ASCII letters, digits and `+`, Greek letters spelled out,
/// ℓ as l, all else dropped ("tt̄H" reads as "tth", "HLT_IsoMu24" as "hltisomu24", "W + jets"
/// as "w+jets", "B⁰_s" as "b0s", "σ_vis" as "sigmavis", "m4ℓ" as "m4l"); the words of
/// [`AS_GREEK`] read as their letter.
fn squash(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in grounding::normalize(text).chars() {
        if c.is_ascii_alphanumeric() || c == '+' {
            out.push(c.to_ascii_lowercase());
        } else if c == 'ℓ' {
            // The script ℓ of "m4ℓ" is typed as an l.
            out.push('l');
        } else if let Some(name) = greek_name(c) {
            out.push_str(name);
        }
    }
    AS_GREEK
        .iter()
        .fold(out, |out, (word, name)| out.replace(word, name))
}

/// Whether `token` (ASCII letters, digits, `_` and `+`, none at either end) is an identifier:
/// - a name with an underscore (C_rn, V_eN, HLT_IsoMu24), unless a kinematic variable's;
/// - letters joined by `+` (W+jets), four letters or more, each part of four letters at most
///   or a word processes are made of ([`PROCESS_PARTS`]);
/// - a word starting with a letter that has a digit (GN2v01, DL1r, Pythia8, Run3);
/// - a camel-case word of five characters or more (DeepTau, EvtGen, XGBoost), unless a
///   kinematic variable's (pTmiss). Shorter ones are process names (ttH, ggF) that notes
///   also write in words.
///
/// Units (GeV, kHz) are none, nor is a factor typed in ASCII ("x1e" of "(x1e-4)", "x10").
fn identifier(token: &str) -> bool {
    if token.len() < 3 || kinds::is_unit(&token.to_ascii_lowercase()) || factor(token) {
        return false;
    }
    let b = token.as_bytes();
    // A decoration typed as a subscript names the symbol it decorates ("mu_hat" for μ̂).
    if let Some((base, mark)) = token.rsplit_once('_') {
        if DECORATIONS.contains(&mark.to_ascii_lowercase().as_str()) {
            return identifier(base);
        }
    }
    if token.contains('_') {
        let base = token.split('_').next().unwrap_or_default();
        return !VARIABLE_BASES.contains(&base);
    }
    if token.contains('+') {
        let part = |p: &str| {
            p.bytes().all(|c| c.is_ascii_alphabetic())
                && (p.len() <= 4 || PROCESS_PARTS.contains(&p.to_ascii_lowercase().as_str()))
        };
        return token.split('+').all(part)
            && token.bytes().filter(u8::is_ascii_alphabetic).count() >= 4;
    }
    if b[0].is_ascii_alphabetic() && b.iter().any(u8::is_ascii_digit) {
        return true;
    }
    let camel = b
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        || b.windows(3).any(|w| {
            w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()
        });
    camel
        && token.len() >= 5
        && !VARIABLE_PREFIXES
            .iter()
            .chain(PROSE_PREFIXES)
            .any(|p| token.starts_with(p))
}

/// Words longer than four letters that a process or final state joined by `+` is made of
/// ("W+jets", "gamma+jets", "photon+jet"); a longer word that is none of them makes the `+`
/// prose ("ground-state+photon", "ttbar+single top": realistic18 HIG-26-071-q03, realistic16
/// HIG-26-031-q01).
const PROCESS_PARTS: &[&str] = &[
    "jets",
    "gamma",
    "photon",
    "photons",
    "ttbar",
    "muon",
    "muons",
    "electron",
    "electrons",
    "lepton",
    "leptons",
    "neutrino",
    "neutrinos",
    "gluon",
    "quark",
    "quarks",
    "light",
];

/// Decorations of a symbol typed as its subscript ("mu_hat", "t_bar").
const DECORATIONS: &[&str] = &["hat", "bar", "tilde", "prime", "star"];

/// Whether `token` is a factor a value is quoted in, typed in ASCII: `x`, digits and an
/// exponent's `e` ("x1e" of "(x1e-4)", realistic13 HIG-26-022-q02), or `x10` (of "x10^-3").
pub(crate) fn factor(token: &str) -> bool {
    let Some(rest) = token.strip_prefix('x') else {
        return false;
    };
    let mantissa = rest.strip_suffix('e');
    match mantissa {
        Some(m) => !m.is_empty() && m.bytes().all(|b| b.is_ascii_digit() || b == b'.'),
        None => rest == "10",
    }
}

/// Whether `squashed` (the passages, [`squash`]ed) mentions identifier `token`: it writes the
/// whole, or, for a name with underscores, one of its parts that is an identifier itself (the
/// IsoMu24 of HLT_IsoMu24: notes drop the prefix), or, for particles joined by `+`, their
/// symbols ([`particles`]).
fn mentioned(token: &str, squashed: &str) -> bool {
    squashed.contains(&squash(token))
        || (token.contains('_')
            && token
                .split('_')
                .any(|p| identifier(p) && squashed.contains(&squash(p))))
        || particles(token).is_some_and(|p| {
            // "ℓνγ" (a lepton, ℓ read as l) is the final state of "mu+nu+gamma" too.
            let generic = |p: &str| p.replace("mu", "l").replace('e', "l");
            squashed.contains(&p)
                || ((p.contains("mu") || p.contains('e')) && squashed.contains(&generic(&p)))
        })
}

/// Leptons and the photon as a question types them, each with its symbol as [`squash`]ed
/// ("ele" is e, "tau_h" is τh).
const PARTICLES: &[(&[&str], &str)] = &[
    (&["e", "el", "ele", "electron"], "e"),
    (&["mu", "muon"], "mu"),
    (&["tau", "tauh", "tau_h"], "tau"),
    (&["gamma", "photon"], "gamma"),
    (&["nu", "neutrino"], "nu"),
];

/// A final state of particles joined by `+` ("mu+tau_h", "ele+photon") as notes write it, by
/// symbols without the sign ("μτh", "m(eγ)"), [`squash`]ed ("mutauh", "egamma"); `None`
/// when a part is no particle ("e+jets" is a process notes name so).
fn particles(token: &str) -> Option<String> {
    if !token.contains('+') {
        return None;
    }
    token
        .split('+')
        .map(|part| {
            let part = part.to_ascii_lowercase();
            PARTICLES
                .iter()
                .find(|(names, _)| names.contains(&part.as_str()))
                // τh keeps its h: "tau_h" is "tauh".
                .map(|&(_, symbol)| match part.as_str() {
                    "tauh" | "tau_h" => "tauh",
                    _ => symbol,
                })
        })
        .collect()
}

/// The most letters the passages may write between a name and its number ("layer" of "BPix
/// layer 2" for BPix2).
const NUMBER_WORD: usize = 6;

/// Ordinals a note writes a numbered part with, from the first ("the first barrel pixel
/// layer", "the innermost BPix layer").
const ORDINALS: &[&[&str]] = &[
    &["first", "1st", "innermost"],
    &["second", "2nd"],
    &["third", "3rd"],
    &["fourth", "4th"],
];

/// Detector names a note spells out beside its ordinal ("barrel pixel" for BPix).
const SPELLED_OUT: &[(&str, &str)] = &[("bpix", "barrel pixel"), ("fpix", "forward pixel")];

/// Whether `text` (lower case) writes `token`, a name of three letters or more and a whole
/// number ("BPix2"), with a word of up to [`NUMBER_WORD`] letters between them: "BPix L2",
/// "BPix layer 2" for BPix2; or after its ordinal, the name also spelled out ("the first
/// barrel pixel layer" for BPix1, realistic14 EXO-26-019-q05).
fn numbered(token: &str, text: &str) -> bool {
    let Some((name, number)) = name_and_number(token) else {
        return false;
    };
    let (name, number) = (name.as_str(), number.as_str());
    if name.len() < 3 {
        return false;
    }
    let blank = |c: char| c == ' ' || c == '-';
    // "the first barrel pixel layer" for BPix1.
    let ordinal = number
        .parse::<usize>()
        .ok()
        .and_then(|n| ORDINALS.get(n.checked_sub(1)?));
    if let Some(ordinal) = ordinal {
        let spelled = SPELLED_OUT
            .iter()
            .filter(|(short, _)| *short == name)
            .map(|(_, long)| *long);
        if std::iter::once(name)
            .chain(spelled)
            .any(|s| ordinal.iter().any(|o| text.contains(&format!("{o} {s}"))))
        {
            return true;
        }
    }
    text.match_indices(name).any(|(i, _)| {
        // A word of its own ("BPix L1", not "single 2" for sin2).
        let alone = !text[..i].ends_with(|c: char| c.is_alphanumeric());
        let after = &text[i + name.len()..];
        if !alone || !after.starts_with(blank) {
            return false;
        }
        let after = after.trim_start_matches(blank);
        let word = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let rest = after[word..].trim_start_matches(blank);
        word <= NUMBER_WORD
            && rest.starts_with(number)
            && !rest[number.len()..].starts_with(|c: char| c.is_ascii_digit() || c == '.')
    })
}

/// Whether `token` names anti-kT jets by their radius ("AK4", "AK8": R = 0.4, 0.8) that
/// `squashed` (the passages, [`squash`]ed) describe in words: "clustered with the anti-kT
/// algorithm with R = 0.4" (realistic12 SUS-26-017-q04, refused as unmentioned).
/// Also a list of radii: "anti-k_T jets with R = 0.2, 0.4, 0.6, 0.8 and 1.0" describes AK4
/// jets (realistic21 HIN-26-184-q02), read in `lower` (the passages in lower case).
fn anti_kt(token: &str, squashed: &str, lower: &str) -> bool {
    let token = token.to_ascii_lowercase();
    let Some(tenths) = token.strip_prefix("ak").and_then(|n| n.parse::<u32>().ok()) else {
        return false;
    };
    if !squashed.contains("antikt") {
        return false;
    }
    if squashed.contains(&format!("r{tenths:02}")) {
        return true;
    }
    let radius = f64::from(tenths) / 10.0;
    lower.match_indices("r = ").any(|(at, m)| {
        // The list after "R = ": numbers joined by commas, "and" or "or" (`None`), up to the
        // first other word.
        lower[at + m.len()..]
            .split([',', ' '])
            .filter(|w| !w.is_empty())
            .map_while(|w| match w {
                "and" | "or" => Some(None),
                _ => w.trim_end_matches('.').parse::<f64>().ok().map(Some),
            })
            .flatten()
            .any(|r| (r - radius).abs() < 1e-9)
    })
}

/// The LHC's data-taking runs as notes date them when they never write the run's name:
/// its centre-of-mass energies (as [`squash`]ed: "13.6 TeV" is "136tev") and its years.
const RUNS: &[(&str, &[&str], &[&str])] = &[
    ("run1", &["7tev", "8tev"], &["2010", "2011", "2012"]),
    ("run2", &["13tev"], &["2015", "2016", "2017", "2018"]),
    (
        "run3",
        &["136tev"],
        &["2022", "2023", "2024", "2025", "2026"],
    ),
];

/// Whether `token` names an LHC run ("Run3", "run2") that `squashed` (the passages,
/// [`squash`]ed) and `lower` (the same, lower case) date by its energy or one of its years:
/// a note on 2022–2024 data at 13.6 TeV is a Run 3 note without writing "Run 3"
/// (realistic16 HIG-26-031-q02, refused as unmentioned).
fn dated_run(token: &str, squashed: &str, lower: &str) -> bool {
    let token = squash(token);
    RUNS.iter().any(|&(run, energies, years)| {
        token == run
            && (energies.iter().any(|e| {
                squashed.match_indices(e).any(|(i, _)| {
                    // "13tev" is not the tail of "2413tev"; "136tev" is not "13tev".
                    !squashed[..i].ends_with(|c: char| c.is_ascii_digit())
                })
            }) || years.iter().any(|y| {
                lower.match_indices(y).any(|(i, _)| {
                    let digit = |c: char| c.is_ascii_digit() || c == '.';
                    !lower[..i].ends_with(digit) && !lower[i + y.len()..].starts_with(digit)
                })
            }))
    })
}

/// The identifiers of `question` ([`identifier`]) that none of `passages` mentions
/// ([`mentioned`]), writes with a word before its number ([`numbered`]), for an LHC run,
/// dates by its energy or years ([`dated_run`]), or for anti-kT jets describes by their radius
/// ([`anti_kt`]), or the glossary spells otherwise ("postEE" by "2022EE",
/// [`glossary::written_otherwise`]); a plural of a numbered name ("AK8s") as its singular; in
/// question order,
/// each once; then the new particles and phase-space restrictions it names ([`new_particles`]:
/// "stau", "fiducial") that no passage writes in any of their spellings ([`writes`]). Empty
/// when the question names none, or all are mentioned.
pub fn unmentioned<'a>(question: &str, passages: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for token in question
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '+'))
        .map(|t| t.trim_matches(|c| c == '_' || c == '+'))
    {
        if identifier(token) && !names.contains(&token) {
            names.push(token);
        }
    }
    let particles = new_particles(question);
    if names.is_empty() && particles.is_empty() {
        return Vec::new();
    }
    let passages: Vec<&str> = passages.into_iter().collect();
    let squashed = passages
        .iter()
        .map(|p| squash(p))
        .collect::<Vec<_>>()
        .join(" ");
    let lower = passages.join("\n").to_lowercase();
    names
        .into_iter()
        .filter(|t| {
            // A plural of a numbered name ("AK8s", "D0s") names what its singular does.
            let singular = t
                .strip_suffix('s')
                .filter(|s| s.ends_with(|c: char| c.is_ascii_digit()));
            !std::iter::once(*t).chain(singular).any(|t| {
                mentioned(t, &squashed)
                    || numbered(t, &lower)
                    || dated_run(t, &squashed, &lower)
                    || anti_kt(t, &squashed, &lower)
                    || shorthand(t, &lower)
                    || glossary::written_otherwise(t, &passages)
            })
        })
        .map(str::to_string)
        .chain(
            particles
                .into_iter()
                .filter(|(_, spellings)| !spellings.iter().any(|s| writes(&lower, s)))
                .map(|(word, _)| word),
        )
        .collect()
}

/// `token` (lower case) split before its first digit, where every character from there is a
/// digit ("bpix2": "bpix", "2"; "py8": "py", "8"); `None` otherwise.
fn name_and_number(token: &str) -> Option<(String, String)> {
    let token = token.to_ascii_lowercase();
    let at = token.find(|c: char| c.is_ascii_digit())?;
    let (name, number) = token.split_at(at);
    number
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| (name.to_string(), number.to_string()))
}

/// Whether `text` (lower case) writes the program that `token`, two letters and a major
/// version ("Py8", "Sh2"), shortens: a longer word opening with the letters, then that version
/// ("Pythia 8.310", "Sherpa2.2.11"; realistic20 EXO-26-131-q04).
fn shorthand(token: &str, text: &str) -> bool {
    let Some((name, number)) = name_and_number(token) else {
        return false;
    };
    let (name, number) = (name.as_str(), number.as_str());
    if name.len() != 2 || !name.bytes().all(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    text.match_indices(name).any(|(i, _)| {
        let alone = !text[..i].ends_with(|c: char| c.is_alphanumeric());
        let after = &text[i + name.len()..];
        let word = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let rest = after[word..].trim_start_matches([' ', '-']);
        // "8.310" or "8" and no more digits: not "80" nor "8x".
        let version = rest.strip_prefix(number).is_some_and(|v| {
            let mut next = v.chars();
            match next.next() {
                Some('.') => !next.next().is_some_and(|c| c.is_alphabetic()),
                Some(c) => !c.is_alphanumeric(),
                None => true,
            }
        });
        alone && word >= 2 && version
    })
}

/// Hypothetical particles by the word a question names them with, each with the spellings
/// notes write them in: the word, its symbol (a letter with a combining tilde, "τ̃"; in LaTeX,
/// "\tilde{\tau}") or a wider name that holds it ("slepton" for a stau). A note that writes
/// none of them gives no fact about that particle ("stau pair limits" in a search for
/// sleptons of the first two generations, realistic16 SUS-26-029-q07).
const NEW_PARTICLES: &[(&str, &[&str])] = &[
    (
        "stau",
        &["stau", "τ\u{303}", "tau slepton", "\\tilde{\\tau}"],
    ),
    (
        "sbottom",
        &["sbottom", "bottom squark", "b\u{303}", "\\tilde{b}"],
    ),
    ("gluino", &["gluino", "g\u{303}", "\\tilde{g}"]),
    ("squark", &["squark", "q\u{303}", "\\tilde{q}"]),
    ("chargino", &["chargino", "χ\u{303}", "\\tilde{\\chi}"]),
    (
        "neutralino",
        &["neutralino", "χ\u{303}", "\\tilde{\\chi}", "lsp"],
    ),
    (
        "slepton",
        &[
            "slepton",
            "selectron",
            "smuon",
            "stau",
            "ℓ\u{303}",
            "l\u{303}",
            "\\tilde{\\ell}",
        ],
    ),
    ("smuon", &["smuon", "slepton", "μ\u{303}", "\\tilde{\\mu}"]),
    (
        "selectron",
        &["selectron", "slepton", "e\u{303}", "ẽ", "\\tilde{e}"],
    ),
    ("sneutrino", &["sneutrino", "ν\u{303}", "\\tilde{\\nu}"]),
    ("higgsino", &["higgsino"]),
    ("wino", &["wino"]),
    ("bino", &["bino"]),
    ("gravitino", &["gravitino"]),
    ("leptoquark", &["leptoquark", "lq"]),
    ("graviton", &["graviton", "g_kk", "spin-2"]),
    ("axion", &["axion", "alp"]),
];

/// Restrictions of a measured quantity to a phase space, by the words a question names them
/// with ("fid", as physicists write it), each with the spellings notes write them in. A note
/// that writes none of them measures the quantity in no such region ("fiducial tW xsec at
/// particle level" of an inclusive measurement, realistic17 TOP-26-044-q09).
const RESTRICTIONS: &[(&str, &[&str])] = &[("fiducial", FIDUCIAL), ("fid", FIDUCIAL)];

/// How notes write a fiducial region.
const FIDUCIAL: &[&str] = &["fiducial", "particle level", "particle-level", "visible"];

/// The particles of [`NEW_PARTICLES`] and the restrictions of [`RESTRICTIONS`] `question`
/// names (a word, or its plural), each with its spellings.
fn new_particles(question: &str) -> Vec<(String, &'static [&'static str])> {
    let q = question.to_lowercase();
    let mut out: Vec<(String, &'static [&'static str])> = Vec::new();
    for word in q.split(|c: char| !c.is_alphanumeric()) {
        let singular = word.strip_suffix('s').unwrap_or(word);
        if let Some(&(name, spellings)) = NEW_PARTICLES
            .iter()
            .chain(RESTRICTIONS)
            .find(|(name, _)| *name == word || *name == singular)
        {
            if !out.iter().any(|(w, _)| w == name) {
                out.push((name.to_string(), spellings));
            }
        }
    }
    out
}

/// Whether `lower` (lower case) writes `spelling`: as a whole word, or its plural, when it is
/// one ("lq", not the "lq" inside another word; "staus"), else anywhere.
fn writes(lower: &str, spelling: &str) -> bool {
    if !spelling.chars().all(char::is_alphanumeric) {
        return lower.contains(spelling);
    }
    focus::has_phrase(lower, spelling) || focus::has_phrase(lower, &format!("{spelling}s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_names_notes_do_not_paraphrase() {
        for t in [
            "DeepTau",
            "EvtGen",
            "XGBoost",
            "GN2v01",
            "DL1r",
            "Pythia8",
            "Run3",
            "C_rn",
            "V_eN",
            "HLT_IsoMu24",
            "W+jets",
            "MG5",
        ] {
            assert!(identifier(t), "{t}");
        }
        for t in [
            "GeV", "kHz", "TeV", "ttH", "ggF", "pTmiss", "ETmiss", "misID", "m_ll", "p_T", "BDT",
            "v4", "e+e", "Powheg", "tau", "x1e", "x2.5e", "x10",
        ] {
            assert!(!identifier(t), "{t}");
        }
    }

    #[test]
    fn a_factor_in_ascii_is_no_name() {
        // realistic13 HIG-26-022-q02, refused as unmentioned ("x1e").
        let p = "| m_a (GeV) | Obs. limit on B (x10⁻⁴) |\n|---|---|\n| 40 | 1.8 |";
        assert!(
            unmentioned("at 40 GeV, how tight is the bbmumu BR limit (x1e-4)?", [p]).is_empty()
        );
        // A name with an x and a digit is still one.
        assert_eq!(unmentioned("the x17 rate?", [p]), ["x17"]);
    }

    #[test]
    fn a_photon_is_its_greek_letter() {
        // realistic7 JME-25-003-q01, refused as unmentioned.
        let p = "The γ+jets response is 0.967 ± 0.007 in 2023.";
        assert!(unmentioned("photon+jet recoil scale at high boson pt, '23?", [p]).is_empty());
        assert!(unmentioned("gamma+jets response?", ["Photon+jets events."]).is_empty());
        assert_eq!(
            unmentioned("photon+jet response?", ["Z+jets events."]),
            ["photon+jet"]
        );
    }

    #[test]
    fn plurals_decorations_and_jet_radii_are_read_as_notes_write_them() {
        // realistic10 B2G-26-009-q04, realistic12 SUS-26-017-q04, realistic8 HIG-26-007-q01.
        let ak = "Large-radius jets (AK8) are tagged with GloParT.";
        assert!(unmentioned("which NN tags the AK8s?", [ak]).is_empty());
        let radius = "Jets are clustered with the anti-kT algorithm with R = 0.4.";
        assert!(unmentioned("AK4 heavy-flavour discriminant?", [radius]).is_empty());
        assert_eq!(unmentioned("AK8 mass window?", [radius]), ["AK8"]);
        // A list of radii (realistic21 HIN-26-184-q02).
        let radii = "R_AA for anti-k_T jets with R = 0.2, 0.4, 0.6, 0.8 and 1.0 is measured.";
        assert!(unmentioned("how suppressed are AK4-size jets?", [radii]).is_empty());
        assert!(unmentioned("AK10 jets?", [radii]).is_empty());
        assert_eq!(unmentioned("AK12 jets?", [radii]), ["AK12"]);
        let mu = "The fit gives a signal strength of μ = 1.55 ± 0.61.";
        assert!(unmentioned("what mu_hat came out post-unblinding?", [mu]).is_empty());
        assert_eq!(unmentioned("what C_rn_hat came out?", [mu]), ["C_rn_hat"]);
        // Particles joined by "+", as symbols (realistic11 EXO-26-011-q01, realistic13
        // TOP-26-021-q05); a process is not ("e+jets", realistic5 top-mass-ljets-q07).
        let fs = "In the μτh channel the Z peak in m(eγ) is vetoed; μ+jets events only.";
        assert!(unmentioned("pred. bkg in mu+tau_h?", [fs]).is_empty());
        assert!(unmentioned("why cut around the Z in the ele+photon mass?", [fs]).is_empty());
        assert_eq!(
            unmentioned("ideogram mt for e+jets only?", [fs]),
            ["e+jets"]
        );
        // A program by two letters and its major version (realistic20 EXO-26-131-q04).
        let py = "The dark partons are showered with the Hidden Valley module of Pythia 8.310.";
        assert!(unmentioned("which Py8 add-on showers the dark partons?", [py]).is_empty());
        assert!(unmentioned("Sh2 tune?", ["Sherpa2.2.11 with the default tune."]).is_empty());
        assert_eq!(unmentioned("Py6 tune?", [py]), ["Py6"]);
        assert_eq!(unmentioned("Py8 tune?", ["A pyramid of 8 bins."]), ["Py8"]);
        // A period by the event it follows, written by its year (realistic21 JME-26-148-q03).
        let eras = "| Period | SF |\n|---|---|\n| 2022 (preEE) | 0.99 |\n| 2022EE | 0.991 |";
        assert!(unmentioned("efficiency SF, postEE '22?", [eras]).is_empty());
        assert_eq!(unmentioned("SF postBPix?", [eras]), ["postBPix"]);
        assert_eq!(unmentioned("SF preEE?", ["| 2022EE | 0.991 |"]), ["preEE"]);
        let bpix = "in which one BPix layer-3 module group was lost";
        assert_eq!(
            unmentioned("q-flip SF for postBPix '23?", [bpix]),
            ["postBPix"]
        );
        assert!(unmentioned("SF postBPix?", ["the post-BPix era"]).is_empty());
        assert_eq!(
            unmentioned("SF postEE?", ["the FREE parameter"]),
            ["postEE"]
        );
        // A neutrino, and ℓ for the lepton (realistic18 SMP-26-062-q01).
        let wg = "The fiducial W(→ ℓν)γ → ℓνγ cross section in the electron and muon channels.";
        assert!(unmentioned("fid xsec from mu+nu+gamma events only?", [wg]).is_empty());
        assert_eq!(
            unmentioned("fid xsec from tau+nu+gamma?", [wg]),
            ["tau+nu+gamma"]
        );
        // Prose joined by "+", no name (realistic18 HIG-26-071-q03, realistic16
        // HIG-26-031-q01); a process with a short part still is one.
        let q = "what fraction of Higgs→bottomonium-ground-state+photon events survive?";
        assert!(unmentioned(q, ["H → Υ(1S) γ"]).is_empty());
        assert!(unmentioned("0j sr ttbar+single top count", ["| Top | 2415 |"]).is_empty());
        assert_eq!(unmentioned("W+udsg norm?", ["W + light"]), ["W+udsg"]);
    }

    #[test]
    fn a_numbered_part_by_its_ordinal() {
        let p = "Hits on the first barrel pixel layer are excluded from both estimators.";
        assert!(unmentioned("why no BPix1 info in the dE/dx estimate?", [p]).is_empty());
        assert_eq!(unmentioned("why no BPix2 info?", [p]), ["BPix2"]);
        assert!(unmentioned("FPix3 eff?", ["the third FPix disk"]).is_empty());
    }

    #[test]
    fn a_new_particle_no_passage_writes_is_unmentioned() {
        // realistic16 SUS-26-029-q07: a search for selectrons and smuons.
        let p = "Sleptons (selectrons and smuons) are pair produced; limits on m(ℓ̃) reach 700 GeV.";
        assert_eq!(
            unmentioned("stau pair limits in this search", [p]),
            ["stau"]
        );
        assert!(unmentioned("slepton mass excluded for lsp at 300 gev", [p]).is_empty());
        assert!(unmentioned("smuon limit?", [p]).is_empty());
        // By its symbol, its LaTeX or its plural.
        assert!(unmentioned("stau limits?", ["m(τ̃) > 400 GeV"]).is_empty());
        assert!(unmentioned("gluino bound now?", ["m(\\tilde{g}) > 2.1 TeV"]).is_empty());
        assert!(unmentioned(
            "what fraction of 1.8 TeV gluinos survive?",
            ["the staus and gluinos"]
        )
        .is_empty());
        // Not a particle's name: "lq" inside a word.
        assert_eq!(
            unmentioned("leptoquark limit?", ["the lqcd tail"]),
            ["leptoquark"]
        );
    }

    #[test]
    fn a_phase_space_no_passage_writes_is_unmentioned() {
        // realistic17 TOP-26-044-q09: an inclusive measurement only.
        let p = "The inclusive tW cross section in the eμ channel is σ_tW = 83.5 ± 1.9 (stat) pb.";
        assert_eq!(
            unmentioned("fiducial tw xsec at particle level, what value?", [p]),
            ["fiducial"]
        );
        assert_eq!(unmentioned("fid xsec?", [p]), ["fid"]);
        // Written as the notes write it.
        for written in [
            "The fiducial cross section is 1.21 pb.",
            "At particle level we measure 1.21 pb.",
            "The visible cross section is σ_vis = 5.91 b.",
        ] {
            assert!(unmentioned("fid xsec?", [written]).is_empty(), "{written}");
        }
    }

    #[test]
    fn a_name_no_passage_writes_is_unmentioned() {
        let p = "Jets are b-tagged with DeepJet (medium working point); hadronic taus are vetoed.";
        assert_eq!(
            unmentioned(
                "Name the DeepTau working point applied to hadronic taus.",
                [p]
            ),
            ["DeepTau"]
        );
        assert!(unmentioned("Which DeepJet working point is used?", [p]).is_empty());
        // No identifier in the question: nothing to check.
        assert!(unmentioned("How are hadronic taus treated?", [p]).is_empty());
        // Across passages, spelled with spaces, sub- and superscripts or marks.
        let q = "What's C_rn for ttH with W+jets in Run3 at the B0s mass?";
        let ps = [
            "C_{rn} = 0.12 in tt̄H events.",
            "The W + jets background of Run 3 and B⁰_s.",
        ];
        assert!(unmentioned(q, ps).is_empty(), "{:?}", unmentioned(q, ps));
        // A Greek letter typed in ASCII: mentioned.
        assert!(unmentioned(
            "what's PCC's sigma_vis after everything, in barns?",
            ["The PCC visible cross-section is σ_vis = 5.91 b."]
        )
        .is_empty());
        // The script ℓ typed as l (realistic6 hig-h4l-mass-width-q01): mentioned.
        assert!(unmentioned(
            "4e core m4l res, '22-'23 data?",
            ["The m4ℓ resolution in the 4e channel is 2.12 GeV."]
        )
        .is_empty());
        // A trigger path named with its prefix, written without it: mentioned.
        assert!(unmentioned(
            "Which L1 seed feeds HLT_IsoMu24?",
            ["IsoMu24 is seeded by L1_SingleMu22."]
        )
        .is_empty());
        // A numbered name written with a word between (realistic9 TRK-26-006-q03/q06: BPix1
        // and BPix2 in notes writing "BPix L1" and "BPix layer 2"); another number is not it.
        let ps = ["| BPix L1 | 2.9 |", "The BPix layer 2 outer ladders moved."];
        assert!(unmentioned("hit offset in BPix1?", ps).is_empty());
        assert!(unmentioned("BPix2 outward staves?", ps).is_empty());
        assert_eq!(unmentioned("BPix3 LA?", ps), ["BPix3"]);
        assert_eq!(unmentioned("BPix12 LA?", ps), ["BPix12"]);
        assert_eq!(
            unmentioned("BPix4 LA?", ["BPix consists of 4 layers."]),
            ["BPix4"]
        );
        assert_eq!(
            unmentioned("sin2 in ee?", ["a single 2-prong tau"]),
            ["sin2"]
        );
        // A run the passages date by its energy or years (realistic16 HIG-26-031-q02), not
        // by another run's.
        let run3 = ["2022–2024 data at √s = 13.6 TeV, 170.3 fb⁻¹."];
        assert!(unmentioned("ggf mu emu ww run3?", run3).is_empty());
        assert!(unmentioned("Run3 lumi?", ["The 2023 data."]).is_empty());
        assert_eq!(unmentioned("run2 lumi?", run3), ["run2"]);
        assert_eq!(unmentioned("Run2 lumi?", ["Run 3 data, 2022."]), ["Run2"]);
        assert_eq!(unmentioned("run1 lumi?", ["138 fb⁻¹ at 13 TeV"]), ["run1"]);
        assert_eq!(unmentioned("run2 lumi?", ["12016 events"]), ["run2"]);
        // Named twice, reported once.
        assert_eq!(
            unmentioned("EvtGen or not EvtGen?", ["Pythia 8 decays the b hadrons."]),
            ["EvtGen"]
        );
    }
}
