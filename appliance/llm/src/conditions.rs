//! Conditions a value is stated under, beside its qualifier words: a year ("the 2023
//! calibration"), a bin ("0–90 %"), a label of a family ("ME2–ME4", "HLT_IsoMu27") and a point
//! with a unit ("at pT = 30 GeV"), a number of jets, b tags or leptons ("the 2-jet SR",
//! [`crate::multiplicity`]). A value the cited segments write only under another
//! condition than the question names does not answer it ([`crate::qualifiers`]). Questions
//! and segments here are phrase texts ([`crate::focus::phrase_text`]).

use crate::{focus, grounding, kinds, multiplicity, terms};

/// Whether every segment of `writing` (the segments of the cited passages writing all the
/// numbers `asserted`, [`crate::focus::phrase_text`]) states its value under another year, bin,
/// label or condition than `question` (phrase text) names.
pub(crate) fn other(question: &str, asserted: &[String], writing: &[String]) -> bool {
    other_year(question, asserted, writing)
        || not_year_alone(question, asserted, writing)
        || other_bin(question, writing)
        || other_label(question, writing)
        || other_condition(question, asserted, writing)
        || multiplicity::other(question, writing)
}

/// Whether the question (phrase text) names one label of a family (letters, then a
/// number: "me1/1" of the muon stations, "dm10", "hlt_isomu24"), and every segment in
/// `writing` names labels of that family, none of them that one: an efficiency "(ME2–ME4)"
/// for "the trigger eff in ME1/1". A segment naming no label of the family is not judged.
pub(crate) fn other_label(question: &str, writing: &[String]) -> bool {
    let asked = labels(question);
    asked.iter().any(|(family, label)| {
        asked.iter().filter(|(f, _)| f == family).count() == 1
            && writing.iter().all(|s| {
                let named: Vec<(String, String)> =
                    labels(s).into_iter().filter(|(f, _)| f == family).collect();
                // "re1/3" (station RE1, ring 3) is a label of station "re1" too.
                !named.is_empty()
                    && !named
                        .iter()
                        .any(|(_, l)| l == label || l.split('/').next() == Some(label.as_str()))
            })
    })
}

/// Functions written before a power ("sin2θ" is sin²θ), not labels of a family; nor is a
/// factor ("x10").
const FUNCTIONS: &[&str] = &["sin", "cos", "tan", "cot", "log", "ln", "exp"];

/// The widest range of labels read as the labels inside it ("me2-me4"); a wider one is two
/// labels.
const RANGE_SPAN: u32 = 19;

/// The labels `text` (phrase text) names, each with its family (the letters before
/// its first digit): words of letters (or "_") then a digit ("me1/1", "t2bw", "dm0"; "/" only
/// between digits). A range ("me2-me4", "me2-4") names the labels inside it.
fn labels(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let joins = |c: char| c.is_alphanumeric() || c == '_';
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let between_digits = c == '/'
            && k > 0
            && chars[k - 1].1.is_ascii_digit()
            && chars.get(k + 1).is_some_and(|n| n.1.is_ascii_digit());
        if joins(c) || between_digits {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            words.push((s, &text[s..i]));
        }
    }
    if let Some(s) = start {
        words.push((s, &text[s..]));
    }
    let mut last: Option<(usize, String, u32)> = None;
    for (at, word) in words {
        let digit = word.find(|c: char| c.is_ascii_digit());
        let Some(d) = digit.filter(|&d| {
            d > 0
                && word[..d].chars().all(|c| c.is_alphabetic() || c == '_')
                && !FUNCTIONS.contains(&&word[..d])
                // A factor typed in ASCII ("x1e-3", "x10-3" of "×10⁻³").
                && !terms::factor(word)
        }) else {
            // "me2-4": a bare number after a label ends a range.
            if let (Some((end, family, from)), Ok(to)) = (&last, word.parse::<u32>()) {
                if text[*end..at].trim() == "-" && *from < to && to - from <= RANGE_SPAN {
                    out.extend((from + 1..=to).map(|n| (family.clone(), format!("{family}{n}"))));
                }
            }
            last = None;
            continue;
        };
        let family = word[..d].to_string();
        let number = word[d..].parse::<u32>().ok();
        if let (Some((end, f, from)), Some(to)) = (&last, number) {
            let gap = text[*end..at].trim();
            if *f == family && matches!(gap, "-" | "to") && *from < to && to - from <= RANGE_SPAN {
                out.extend((from + 1..to).map(|n| (family.clone(), format!("{family}{n}"))));
            }
        }
        last = number.map(|n| (at + word.len(), family.clone(), n));
        out.push((family, word.to_string()));
    }
    out
}

/// Whether the question (phrase text) names one bin ("0-5%", "25 to 30 GeV"), and
/// every segment in `writing` names bins with the same unit, none of them that one: R_AA "in
/// 0–90 %" for "R_AA of the 3S in central events, 0-50%?". A bin written without a unit, in
/// the question or the segment, is one of the other's when their edges are of one scale
/// ([`same_scale`]: "v2 in 30–40%" for "… for peripheral (70-80) events?", realistic9
/// HIN-26-012-q08). A segment naming no bin of that unit is not judged (a value for all
/// bins, or for the default one).
pub(crate) fn other_bin(question: &str, writing: &[String]) -> bool {
    let [asked] = bins(question)[..] else {
        return false;
    };
    writing.iter().all(|s| {
        let named: Vec<Bin> = bins(s)
            .into_iter()
            .filter(|b| {
                (b.2 == asked.2 && !b.2.is_empty())
                    || ((b.2.is_empty() || asked.2.is_empty()) && same_scale(b, &asked))
            })
            .collect();
        !named.is_empty() && !named.iter().any(|b| b.0 == asked.0 && b.1 == asked.1)
    })
}

/// Whether two bins written without a unit can be bins of one variable: upper edges within a
/// factor of ten ("0.0–0.8" in |η| is no bin of "35-50" in pT; "2.8–3.0" is one of "2.5-3").
fn same_scale(a: &Bin<'_>, b: &Bin<'_>) -> bool {
    let (lo, hi) = if a.1 < b.1 { (a.1, b.1) } else { (b.1, a.1) };
    lo > 0.0 && hi < 10.0 * lo
}

/// A bin: its lower and upper edge as written, and the unit after it ("%", "gev", or "").
type Bin<'a> = (f64, f64, &'a str);

/// The bins `text` (phrase text) names: two numbers, the first the smaller, joined
/// by "-" or "to" ("0-5%", "25 to 30 gev", "1.5-2.5"), with the unit after the second. A
/// range of years ([`years`]) and a number inside a word ("me2-me4") are no bin.
fn bins(text: &str) -> Vec<Bin<'_>> {
    let numbers: Vec<(usize, usize, &str)> = numbers_at(text)
        .into_iter()
        .map(|(s, e)| (s, e, &text[s..e]))
        .collect();
    numbers
        .windows(2)
        .filter_map(|w| {
            let ((_, a_end, a), (b_start, b_end, b)) = (w[0], w[1]);
            let (x, y) = (a.parse::<f64>().ok()?, b.parse::<f64>().ok()?);
            let joined = matches!(text[a_end..b_start].trim(), "-" | "to");
            if !joined || x >= y || (is_year(a) && is_year(b)) {
                return None;
            }
            Some((x, y, unit_after(&text[b_end..])))
        })
        .collect()
}

/// Units of a detector signal, which a point is given in ("above 200 MIP") but no value kind
/// of [`kinds`] measures.
const SIGNAL_UNITS: &[&str] = &["mip", "mips", "fc", "adc"];

/// The unit opening `after` (the text after a number, [`crate::focus::phrase_text`]): "%", a unit
/// word ([`kinds::is_unit`]: "gev"; [`SIGNAL_UNITS`]), or "".
fn unit_after(after: &str) -> &str {
    let after = after.trim_start();
    if after.starts_with('%') {
        "%"
    } else {
        after
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .filter(|w| kinds::is_unit(w) || SIGNAL_UNITS.contains(w))
            .unwrap_or("")
    }
}

/// Whether the question (phrase text) names a condition with a unit ("for 100 GeV
/// jets"), and every segment in `writing` states the claim's value under another point of
/// that unit: in the clause that writes a number of `asserted`, a number of that unit other
/// than the question's ("2.4% at pT = 30 GeV, 0.9% at pT = 100 GeV": 2.4% is not the one at
/// 100 GeV), or a bound that does not hold it ("pT > 100 GeV" for jets below 100 GeV; "above
/// 200 MIP" for 20 MIP; [`meets`]). A clause naming no number of the unit is not judged.
pub(crate) fn other_condition(question: &str, asserted: &[String], writing: &[String]) -> bool {
    let conditions: Vec<Point> = numbers_at(question)
        .into_iter()
        .map(|(s, e)| Point {
            number: &question[s..e],
            unit: unit_after(&question[e..]),
            side: side(&question[..s]),
        })
        .filter(|p| !p.unit.is_empty())
        .collect();
    !conditions.is_empty()
        && writing.iter().all(|s| {
            conditions.iter().any(|asked| {
                s.split([',', ';'])
                    .flat_map(|c| c.split(" and "))
                    .filter(|c| asserted.iter().any(|n| grounding::has_number(c, n)))
                    .any(|clause| other_point(clause, asked, asserted))
            })
        })
}

/// A number with its unit, and the side of a bound it is written on, if any.
struct Point<'a> {
    number: &'a str,
    unit: &'a str,
    side: Option<Side>,
}

/// The side of a bound: "above 100 GeV", "pT > 100 GeV"; "below", "< 100 GeV".
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Above,
    Below,
}

/// Words and signs before a number that make it a bound ([`side`]).
const ABOVE: &[&str] = &[
    ">",
    ">=",
    "≥",
    "above",
    "over",
    "beyond",
    "exceeding",
    "more than",
    "greater than",
];
const BELOW: &[&str] = &["<", "<=", "≤", "below", "under", "less than", "lower than"];

/// The side of a bound the text `before` a number (phrase text) ends with, if any.
fn side(before: &str) -> Option<Side> {
    let b = before.trim_end();
    let ends = |w: &&str| {
        b.ends_with(*w)
            && (!w.starts_with(char::is_alphabetic)
                || !b[..b.len() - w.len()]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric))
    };
    if BELOW.iter().any(ends) {
        Some(Side::Below)
    } else if ABOVE.iter().any(ends) {
        Some(Side::Above)
    } else {
        None
    }
}

/// Whether a point or bound `p` of a clause meets the `asked` one of the question: the same
/// number (on the same side, where both are bounds), or intervals that overlap ("pT > 30 GeV"
/// meets 100 GeV; "above 200 MIP" does not meet 20 MIP).
fn meets(p: &Point<'_>, asked: &Point<'_>) -> bool {
    if p.number == asked.number {
        return p.side.is_none() || asked.side.is_none() || p.side == asked.side;
    }
    let (Ok(x), Ok(a)) = (p.number.parse::<f64>(), asked.number.parse::<f64>()) else {
        return false;
    };
    match (p.side, asked.side) {
        (None, None) => false,
        (Some(Side::Above), Some(Side::Above)) | (Some(Side::Below), Some(Side::Below)) => true,
        (Some(Side::Above), None)
        | (None, Some(Side::Below))
        | (Some(Side::Above), Some(Side::Below)) => a > x,
        (Some(Side::Below), None)
        | (None, Some(Side::Above))
        | (Some(Side::Below), Some(Side::Above)) => a < x,
    }
}

/// Whether `clause` writes numbers of the `asked` unit besides the `asserted` ones, none of
/// them the asked number on the asked side ("2.4% at pT = 30 GeV" for 100 GeV; "pT > 100
/// GeV" for below 100 GeV).
fn other_point(clause: &str, asked: &Point<'_>, asserted: &[String]) -> bool {
    let same: Vec<Point<'_>> = numbers_at(clause)
        .into_iter()
        .filter(|&(_, e)| unit_after(&clause[e..]) == asked.unit)
        .map(|(b, e)| Point {
            number: &clause[b..e],
            unit: asked.unit,
            side: side(&clause[..b]),
        })
        .filter(|p| !asserted.iter().any(|a| a == p.number))
        .collect();
    !same.is_empty() && !same.iter().any(|p| meets(p, asked))
}

/// Where numbers are written in `text`: the byte ranges of digits with their decimal part
/// ("2.5", "2016"; a final "." not included), not inside a word or a longer number ("v14",
/// "hlt_mu50").
fn numbers_at(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut prev = None;
    let mut skip_to = 0;
    for (start, c) in text.char_indices() {
        let before = prev.replace(c);
        if start < skip_to
            || !c.is_ascii_digit()
            || before.is_some_and(|b| b.is_alphanumeric() || b == '.' || b == '_')
        {
            continue;
        }
        let len = text[start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len() - start);
        skip_to = start + len;
        out.push((
            start,
            start + text[start..skip_to].trim_end_matches('.').len(),
        ));
    }
    out
}

/// The numbers `question` names for the case it asks about (a year, a bin edge, a point with a
/// unit, a working point: "SF at 0.1% mistag for 400-480 in '22?" names 0.1, 400, 480 and
/// 2022) that none of `passages` writes: those passages give no value for that case, whatever
/// else they give; a near miss asks for the bin, year or point the notes leave out. Not read:
/// numbers of analysis ids, inside words ("3p", "2nd", "HLT_Ele30", "200k") or of adjectives
/// ("4-layer", "1-sigma"), around a slash ("22/23") or approximate ("≈1.5"), the confidence
/// level of a limit ("95% CL", [`kinds::names_a_level`]), small whole numbers without a unit
/// outside a bin or comparison ("run 3", "top 5"), and yes/no or either/or questions (the
/// number there may be the one the notes contradict). A year is written where a passage names
/// it, also inside a range ("2022-2024"); an energy also in the unit a thousand times larger or
/// smaller ("5 TeV" for "5000 GeV"); a small whole number also as its word
/// ([`focus::number_word`]). Then the categories by number of jets, b tags or leptons the
/// passages do not mention ([`multiplicity::unwritten`]: "the 2-jet SR"). In question order,
/// each once.
pub(crate) fn unwritten(question: &str, passages: &[&str]) -> Vec<String> {
    if focus::is_closed(question) {
        return Vec::new();
    }
    let mut q = grounding::normalize(question);
    for (s, e) in kinds::ids(&q, 1).into_iter().rev() {
        q.replace_range(s..e, " ");
    }
    let q = focus::phrase_text(&q);
    let text = focus::phrase_text(&grounding::normalize(&passages.join("\n")));
    let written_years: Vec<u16> = years(&text).into_iter().map(|(y, _)| y).collect();
    let mut out: Vec<String> = Vec::new();
    for (year, _) in years(&q) {
        if !written_years.contains(&year) && !out.contains(&year.to_string()) {
            out.push(year.to_string());
        }
    }
    let letter = |c: Option<char>| c.is_some_and(char::is_alphabetic);
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let joined = |c: Option<char>| matches!(c, Some('-' | '<' | '>' | '=' | '/'));
    for (start, end) in numbers_at(&q) {
        let (digits, before, after) = (&q[start..end], &q[..start], &q[end..]);
        let (mut back, mut ahead) = (before.chars().rev(), after.chars());
        let (b1, a1) = (back.next(), ahead.next());
        let skipped = is_year(digits) // read above, as is "'22"
            || matches!(b1, Some('\'' | '’'))
            || glued(a1)
            // An adjective: "4-layer", "1-sigma".
            || (a1 == Some('-') && letter(ahead.next()))
            || (b1 == Some('-') && letter(back.next()))
            // "22/23" (two years), "≈1.5" (a point inside whatever bin holds it).
            || a1 == Some('/')
            || matches!(b1, Some('/' | '≈' | '~'))
            || after.strip_prefix('%').is_some_and(kinds::names_a_level);
        let unit = unit_after(after);
        let word = digits.parse::<usize>().ok().and_then(focus::number_word);
        // A small count without a unit, outside a bin or a comparison ("run 3", "top 5").
        let count = word.is_some()
            && unit.is_empty()
            && !joined(after.trim_start().chars().next())
            && !joined(before.trim_end().chars().next_back());
        if skipped || count {
            continue;
        }
        let mut spellings = vec![digits.to_string()];
        if let (Ok(v), true) = (digits.parse::<f64>(), ["gev", "tev", "mev"].contains(&unit)) {
            spellings
                .extend([v * 1000.0, v / 1000.0].map(|x| format!("{}", (x * 1e6).round() / 1e6)));
        }
        // A whole number also with a zero decimal ("5.0" in a column in TeV for "5000 GeV").
        let decimals: Vec<String> = spellings
            .iter()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            .map(|n| format!("{n}.0"))
            .collect();
        let written = spellings
            .iter()
            .chain(&decimals)
            .any(|n| grounding::has_number(&text, n))
            || word.is_some_and(|w| focus::has_phrase(&text, w))
            // A zero mass: "m(LSP)=0" for "a massless neutralino".
            || (digits == "0" && text.contains("massless"));
        if !written && !out.iter().any(|o| o == digits) {
            out.push(digits.to_string());
        }
    }
    out.extend(multiplicity::unwritten(&q, &text));
    out
}

/// Words that make a question's one year the only data it asks about ("2024-only obs limit",
/// "xsec from the 2023 data alone").
const ALONE: &[&str] = &["alone", "only"];

/// Whether the question (phrase text) asks for a value from one year's data alone ([`ALONE`]),
/// and no segment of `writing` gives it for that year alone: neither the segment nor a clause
/// of it writing a number of `asserted` names that year and no other. A value the notes state
/// for the whole data set (no year beside it, the default notes leave implicit, or a range of
/// years) is not that year's (realistic17 HIG-26-045-q09 "2024-only obs limit at m=500",
/// answered with the 2022–2024 limit).
fn not_year_alone(question: &str, asserted: &[String], writing: &[String]) -> bool {
    let Some(year) = asked_year(question) else {
        return false;
    };
    if !ALONE.iter().any(|w| focus::has_phrase(question, w)) {
        return false;
    }
    let alone = |t: &str| {
        let named = years(t);
        !named.is_empty() && named.iter().all(|&(y, _)| y == year)
    };
    writing.iter().all(|s| {
        !alone(s)
            && !s
                .split([',', ';', '(', ')', ':'])
                .filter(|clause| asserted.iter().any(|n| grounding::has_number(clause, n)))
                .any(alone)
    })
}

/// Words of a question asking for a sum of uncertainties, not one of its parts ("overall rel.
/// error budget", "summed unc", "total syst").
const TOTAL: &[&str] = &["total", "overall", "summed", "combined", "in quadrature"];

/// Whether the question (phrase text) asks for a total uncertainty ([`TOTAL`] and a word of
/// [`kinds::UNCERTAINTY_WORDS`] or "budget"), each number of `asserted` that `segments`
/// (those of the cited passages) write is written only in segments naming no total, and a
/// segment names a total with a number of its own: the answer gave parts of the budget whose sum the passages write
/// (realistic17 BTV-26-043-q02: three of the sources of Table 1, not its total 4.8%).
pub(crate) fn part_for_total(question: &str, asserted: &[String], segments: &[String]) -> bool {
    let names = |t: &str, words: &[&str]| words.iter().any(|w| focus::has_phrase(t, w));
    let uncertainty = names(question, kinds::UNCERTAINTY_WORDS) || names(question, &["budget"]);
    if !names(question, TOTAL) || !uncertainty {
        return false;
    }
    let written: Vec<&String> = segments
        .iter()
        .filter(|s| asserted.iter().any(|n| grounding::has_number(s, n)))
        .collect();
    let total = |s: &String| {
        names(s, TOTAL)
            && kinds::values("", s)
                .iter()
                .any(|(n, _)| !asserted.contains(n))
    };
    !written.is_empty() && written.iter().all(|s| !names(s, TOTAL)) && segments.iter().any(total)
}

/// Words before a year that make it the bound of a period ("since 2018"), not the year asked.
const PERIOD: &[&str] = &[
    "since", "after", "before", "until", "till", "through", "from", "post", "pre", "by",
];

/// Whether the question (phrase text) names one year, and every segment in
/// `writing` names, in each clause that writes a number of `asserted`, only other years: "the
/// 2023 calibration gives a total uncertainty of 1.3%" for "what was the lumi uncertainty for
/// 2022?". A year is a qualifier only in the clause of its value: notes leave the default
/// year implicit ("26 GeV (24 GeV in 2016)" gives 26 GeV for 2017), so a clause naming no
/// year is not judged.
pub(crate) fn other_year(question: &str, asserted: &[String], writing: &[String]) -> bool {
    let Some(year) = asked_year(question) else {
        return false;
    };
    writing.iter().all(|s| {
        let named: Vec<u16> = s
            .split([',', ';', '(', ')', ':'])
            .filter(|clause| asserted.iter().any(|n| grounding::has_number(clause, n)))
            .flat_map(|clause| years(clause).into_iter().map(|(y, _)| y))
            .collect();
        !named.is_empty() && !named.contains(&year)
    })
}

/// The one year `question` (phrase text) names, unless it bounds a period ("since 2018").
fn asked_year(question: &str) -> Option<u16> {
    let asked = years(question);
    let [(year, at)] = asked[..] else {
        return None;
    };
    let before = question[..at].split_whitespace().next_back();
    (!before.is_some_and(|w| PERIOD.contains(&w))).then_some(year)
}

/// Whether `claim` (phrase text) names a label ([`labels`]) the question does not, and every
/// segment of `segments` writing that label names only other years than the question's one:
/// "IsoMu24" for the 2017 menu, where the notes list "2016: IsoMu24 …", "2017: IsoMu27 …",
/// "2018: IsoMu24 …". The segment, not the clause, is read: a list item's year opens it.
pub(crate) fn label_of_other_year(question: &str, claim: &str, segments: &[String]) -> bool {
    let Some(year) = asked_year(question) else {
        return false;
    };
    let asked: Vec<String> = labels(question).into_iter().map(|(_, l)| l).collect();
    let claimed: Vec<String> = labels(claim)
        .into_iter()
        .map(|(_, l)| l)
        .filter(|l| !asked.contains(l))
        .collect();
    if claimed.is_empty() {
        return false;
    }
    // Each segment's labels, and whether it names only other years, read once.
    let read: Vec<(Vec<String>, bool)> = segments
        .iter()
        .map(|s| {
            let named: Vec<u16> = years(s).into_iter().map(|(y, _)| y).collect();
            let other = !named.is_empty() && !named.contains(&year);
            (labels(s).into_iter().map(|(_, l)| l).collect(), other)
        })
        .collect();
    claimed.iter().any(|label| {
        let mut writing = read.iter().filter(|(ls, _)| ls.contains(label)).peekable();
        writing.peek().is_some() && writing.all(|&(_, other)| other)
    })
}

/// Whether `number` (digits as [`kinds::values`] gives them) is a year: 1990–2039 in four
/// digits.
pub(crate) fn is_year(number: &str) -> bool {
    number.len() == 4
        && number
            .parse::<u16>()
            .is_ok_and(|n| (1990..=2039).contains(&n))
}

/// The years `text` (phrase text) names, each with the byte offset where it is
/// written: 1990–2039 in four digits or as 'yy ("'18 data"), and the years inside a range
/// ("2016-2018"). A number before a unit ("2000 gev") or inside a longer one is no year.
pub(crate) fn years(text: &str) -> Vec<(u16, usize)> {
    let mut out: Vec<(u16, usize)> = Vec::new();
    let mut last_end = None;
    for (start, end) in numbers_at(text) {
        let (digits, after) = (&text[start..end], &text[end..]);
        if after.starts_with(char::is_alphanumeric) || !unit_after(after).is_empty() {
            continue;
        }
        // "'18": the apostrophe opens the year (not a word's, as in "rock'18").
        let apostrophe = match text[..start].chars().next_back() {
            Some(c @ ('\'' | '’')) => Some(start - c.len_utf8()),
            _ => None,
        }
        .filter(|&o| {
            !text[..o]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        });
        let open = apostrophe.unwrap_or(start);
        let year = if is_year(digits) {
            digits.parse::<u16>().ok()
        } else if digits.len() == 2 && apostrophe.is_some() {
            match digits.parse::<u16>() {
                Ok(n @ 0..40) => Some(2000 + n),
                Ok(n @ 90..) => Some(1900 + n),
                _ => None,
            }
        } else {
            None
        };
        let Some(year) = year else {
            continue;
        };
        // "2016-2018", "2016 to 2018": the years between too.
        if let (Some(last), Some(&(from, _))) = (last_end, out.last()) {
            if matches!(text[last..open].trim(), "-" | "to") && from < year {
                out.extend((from + 1..year).map(|y| (y, open)));
            }
        }
        out.push((year, open));
        last_end = Some(end);
    }
    out
}

#[cfg(test)]
mod tests;
