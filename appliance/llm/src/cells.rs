//! Table cells a question names by their place ("third pt bin", "most peripheral class",
//! "next-to-last eta slice"): the row or column label of a passage's Markdown table it means.
//!
//! The model does not count rows: asked for the third centrality slice it gives a value of the
//! right table from another row (benches/ANSWERS.md). Mitra counts them: the label found is
//! written into the question the answer and support steps read, and a sentence whose number
//! the table writes only in other rows or columns than the one described is not shown; so is
//! one from another row than the one a question names by its value ("at m_a = 90 GeV").

use crate::{grounding, locate};

/// Where a question's description of a table place points in one passage.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Located {
    /// Byte range in the question of the words describing the place ("third centrality
    /// slice").
    pub at: (usize, usize),
    /// The label of the row or column described, as the table writes it ("30–50%").
    pub label: String,
    /// Every table and axis of the passage it was found on, with the key of the label.
    places: Vec<(usize, Axis, f64)>,
}

/// Which labels of a table are ordered.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Axis {
    /// The body cells of this column label the rows.
    Rows(usize),
    /// The header cells after the first label the columns.
    Columns,
}

/// The quantity a description orders by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dim {
    Pt,
    Centrality,
    Rapidity,
    Eta,
    /// Rapidity or pseudorapidity ("most forward").
    Forward,
    Mass,
    Width,
    Pileup,
    Multiplicity,
    /// Not said: the passage must have one ordered axis only.
    Any,
}

/// The place among the ordered labels, from the lowest or the highest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rank {
    Low(usize),
    High(usize),
    Middle,
}

/// A description read from the question.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Description {
    at: (usize, usize),
    rank: Rank,
    dim: Dim,
    /// The noun naming the place ("bin", "layer"), if the description has one.
    noun: Option<&'static str>,
}

/// Nouns naming one of a table's ordered places.
const NOUNS: &[&str] = &[
    "bin",
    "bins",
    "slice",
    "slices",
    "class",
    "range",
    "interval",
    "cut",
    "point",
    "wp",
    "category",
    "hypothesis",
    "row",
    "column",
    "layer",
    "disk",
    "ring",
];

/// Words after the noun that make the place relative to a value ("first bin above 1 TeV").
const RELATIVE: &[&str] = &["above", "below", "beyond", "after", "before", "than"];

/// The question's words, lowercased, with their byte ranges (split at white space, hyphens and
/// slashes; punctuation around a word trimmed).
fn words(question: &str) -> Vec<(String, (usize, usize))> {
    let mut out = Vec::new();
    let mut start = None;
    let split = |c: char| c.is_whitespace() || matches!(c, '-' | '/' | '–' | ',' | ';' | '?');
    for (i, c) in question.char_indices().chain([(question.len(), ' ')]) {
        match (split(c), start) {
            (true, Some(s)) => {
                let w = &question[s..i];
                let t = w.trim_matches(|c: char| matches!(c, '(' | ')' | '.' | ':' | '"' | '\''));
                if !t.is_empty() {
                    let from = s + w.find(t).unwrap_or(0);
                    out.push((t.to_lowercase(), (from, from + t.len())));
                }
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// Whether `w` counts things ("two", "3").
fn is_count(w: &str) -> bool {
    matches!(w, "two" | "three" | "four" | "five" | "both" | "all")
        || w.parse::<u32>().is_ok_and(|n| n > 1)
}

/// 1 for "first" or "1st", … 6; `None` for other words.
fn ordinal(w: &str) -> Option<usize> {
    const WORDS: [&str; 6] = ["first", "second", "third", "fourth", "fifth", "sixth"];
    const SHORT: [&str; 6] = ["1st", "2nd", "3rd", "4th", "5th", "6th"];
    WORDS
        .iter()
        .position(|&x| x == w)
        .or_else(|| SHORT.iter().position(|&x| x == w))
        .map(|i| i + 1)
}

/// An extreme word: whether it counts from the highest, the quantity it implies, and whether
/// it needs "most" before it ("most central").
fn extreme(w: &str) -> Option<(bool, Dim, bool)> {
    Some(match w {
        "lowest" | "smallest" => (false, Dim::Any, false),
        "highest" | "largest" | "last" => (true, Dim::Any, false),
        "softest" => (false, Dim::Pt, false),
        "hardest" => (true, Dim::Pt, false),
        "central" => (false, Dim::Centrality, true),
        "peripheral" => (true, Dim::Centrality, true),
        "backward" => (false, Dim::Rapidity, true),
        "forward" => (true, Dim::Forward, true),
        _ => return None,
    })
}

/// The quantity a word of a description names.
fn dim_word(w: &str) -> Option<Dim> {
    let w = w.trim_matches('|');
    Some(match w {
        "pt" | "p_t" | "ptγ" | "momentum" | "energy" | "et" | "e_t" => Dim::Pt,
        "centrality" => Dim::Centrality,
        "rapidity" | "y" | "y_cm" => Dim::Rapidity,
        "eta" | "η" | "pseudorapidity" => Dim::Eta,
        "m" | "mass" | "m_reco" | "mt" | "m_t" => Dim::Mass,
        "width" => Dim::Width,
        "pileup" | "pu" | "npv" | "nvtx" => Dim::Pileup,
        "multiplicity" | "mult" | "ntrk" | "nch" => Dim::Multiplicity,
        _ => return None,
    })
}

/// The descriptions of table places in `question`.
fn descriptions(question: &str) -> Vec<Description> {
    let ws = words(question);
    let w = |i: usize| ws.get(i).map_or("", |(s, _)| s.as_str());
    let mut out = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        // (rank, words taken, implied quantity)
        let read: Option<(Rank, usize, Dim)> =
            if (w(i) == "next" || w(i) == "second") && w(i + 1) == "to" && w(i + 2) == "last" {
                Some((Rank::High(1), 3, Dim::Any))
            } else if w(i) == "penultimate" {
                Some((Rank::High(1), 1, Dim::Any))
            } else if w(i) == "middle" {
                Some((Rank::Middle, 1, Dim::Any))
            } else if i > 0 && is_count(w(i - 1)) {
                // "the two softest slices" names several places.
                None
            } else if let Some(n) = ordinal(w(i)) {
                let most = usize::from(w(i + 1) == "most");
                match extreme(w(i + 1 + most)) {
                    Some((high, dim, needs_most)) if most == 1 || !needs_most => {
                        let k = n - 1;
                        let rank = if high { Rank::High(k) } else { Rank::Low(k) };
                        Some((rank, 2 + most, dim))
                    }
                    Some(_) => None,
                    None => Some((Rank::Low(n - 1), 1, Dim::Any)),
                }
            } else {
                let most = usize::from(w(i) == "most");
                match extreme(w(i + most)) {
                    Some((high, dim, needs_most)) if most == 1 || !needs_most => {
                        let rank = if high { Rank::High(0) } else { Rank::Low(0) };
                        Some((rank, 1 + most, dim))
                    }
                    _ => None,
                }
            };
        let Some((rank, taken, implied)) = read else {
            // "one bin below the top"
            if w(i) == "one"
                && w(i + 1) == "bin"
                && w(i + 2) == "below"
                && w(i + 3) == "the"
                && w(i + 4) == "top"
            {
                out.push(Description {
                    at: (ws[i].1 .0, ws[i + 4].1 .1),
                    rank: Rank::High(1),
                    dim: Dim::Any,
                    noun: Some("bin"),
                });
                i += 5;
                continue;
            }
            i += 1;
            continue;
        };
        let after = i + taken;
        let noun = (after..(after + 4).min(ws.len())).find(|&j| NOUNS.contains(&w(j)));
        let named: Option<Dim> =
            (after..noun.unwrap_or(after + 2).min(ws.len())).find_map(|j| dim_word(w(j)));
        let end = match noun {
            Some(j) if !RELATIVE.contains(&w(j + 1)) => Some(j),
            Some(_) => None,
            // "hardest jets", "highest-η crystals": no noun, a quantity said or implied.
            None => (after..(after + 2).min(ws.len()))
                .find(|&j| dim_word(w(j)).is_some())
                .or((implied == Dim::Pt && after < ws.len()).then_some(after)),
        };
        let Some(end) = end else {
            i += 1;
            continue;
        };
        let dim = match (named, implied) {
            // "most central rapidity slice": central in rapidity is not the lowest.
            (Some(d), Dim::Centrality) if d != Dim::Centrality => {
                i = end + 1;
                continue;
            }
            (Some(d), _) => d,
            (None, d) => d,
        };
        out.push(Description {
            at: (ws[i].1 .0, ws[end].1 .1),
            rank,
            dim,
            noun: noun.and_then(|j| NOUNS.iter().copied().find(|&n| n == w(j))),
        });
        i = end + 1;
    }
    out
}

/// A Markdown table: its header cells and body rows' cells (escaped pipes read as pipes).
#[derive(Debug)]
pub(crate) struct Table {
    /// The header row's cells.
    pub(crate) header: Vec<String>,
    /// The body rows' cells.
    pub(crate) body: Vec<Vec<String>>,
}

/// The Markdown tables of `text`, in order.
pub(crate) fn tables(text: &str) -> Vec<Table> {
    // Escaped pipes ("\|η\|") are the cell's text.
    let cells = |line: &str| -> Vec<String> {
        locate::row_cells(&line.replace("\\|", "\u{1}"), "|")
            .into_iter()
            .map(|c| c.replace('\u{1}', "|"))
            .collect()
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].trim_start().starts_with('|') && locate::is_delimiter(lines[i + 1]) {
            let header = cells(lines[i]);
            let mut body = Vec::new();
            let mut j = i + 2;
            while j < lines.len() && lines[j].trim_start().starts_with('|') {
                body.push(cells(lines[j]));
                j += 1;
            }
            out.push(Table { header, body });
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The lower end of the range or value a label writes ("30–50%": 30, "−2.5 < y_cm < −1.5":
/// −2.5, "> 1.2 TeV": 1.2, "|y| < 0.6" or "below 500": below every other), `None` for a label
/// that is no range or value (a name, a measured value with its uncertainty, "MB1 YB−2").
fn key(label: &str) -> Option<f64> {
    if label.contains('±') || label.is_empty() {
        return None;
    }
    // Words of letters other than units: a label is mostly its number.
    const UNITS: &[&str] = &[
        "gev", "tev", "mev", "ps", "ns", "fb", "pb", "cm", "mm", "and",
    ];
    let wordy = label
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 2 && !UNITS.contains(&w.to_lowercase().as_str()))
        .count();
    if wordy > 2 {
        return None;
    }
    let chars: Vec<(usize, char)> = label.char_indices().collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        if !c.is_ascii_digit() {
            continue;
        }
        let before = k.checked_sub(1).map(|b| chars[b].1);
        if before.is_some_and(|b| b.is_alphanumeric() || b == '_' || b == '.') {
            if before.is_some_and(|b| b.is_ascii_digit() || b == '.') {
                continue;
            }
            // A number glued to letters ("MB1") names a thing.
            return None;
        }
        let signed = matches!(before, Some('−' | '-'));
        let sign_glued = signed && k >= 2 && chars[k - 2].1.is_alphanumeric();
        if sign_glued {
            return None;
        }
        let end = chars[k..]
            .iter()
            .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
            .map_or(label.len(), |&(e, _)| e);
        let value: f64 = label[at..end].trim_end_matches('.').parse().ok()?;
        let value = if signed { -value } else { value };
        let lead = label[..if signed { chars[k - 1].0 } else { at }]
            .trim_end()
            .to_lowercase();
        let upper_only = ["<", "≤", "below", "under", "up to", "less than"];
        return Some(if upper_only.iter().any(|u| lead.ends_with(u)) {
            value - 1e9
        } else {
            value
        });
    }
    None
}

/// Whether `label` writes a range or a bound ("10–15", "> 400 GeV", "0.6 < |y| < 1.2").
fn is_range(label: &str) -> bool {
    label.contains(['–', '<', '>', '≤', '≥'])
        || label
            .split('-')
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w[0].ends_with(|c: char| c.is_ascii_digit()))
}

/// Whether the axis of `name` (its header) with `labels` orders by `dim`.
fn fits(dim: Dim, name: &str, labels: &[&str]) -> bool {
    let all = format!("{name} {}", labels.join(" "));
    let tokens: Vec<String> = all
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect();
    let has = |set: &[&str]| tokens.iter().any(|t| set.contains(&t.as_str()));
    let mass =
        has(&["m", "mass", "mt", "mjj", "mtt"]) || tokens.iter().any(|t| t.starts_with("m_"));
    match dim {
        Dim::Any => true,
        Dim::Pt => {
            tokens.iter().any(|t| t.starts_with("pt") || t == "p_t")
                || has(&["momentum", "energy", "et", "e_t"])
                || (!mass && has(&["gev", "tev"]))
        }
        Dim::Centrality => {
            has(&["centrality"])
                || labels.iter().any(|l| key(l).is_some())
                    && labels.iter().all(|l| {
                        key(l).is_none() || (l.trim_end().ends_with('%') && l.contains(['–', '-']))
                    })
        }
        Dim::Rapidity => has(&["y", "y_cm", "ycm", "rapidity"]),
        Dim::Eta => has(&["η", "eta", "pseudorapidity"]),
        Dim::Forward => has(&["y", "y_cm", "ycm", "rapidity", "η", "eta", "pseudorapidity"]),
        Dim::Mass => mass,
        Dim::Width => has(&["width"]) || all.contains('Γ'),
        Dim::Pileup => has(&["pileup", "pu", "npv", "nvtx", "vertices"]),
        Dim::Multiplicity => has(&["multiplicity", "ntrk", "n_trk", "nch", "tracks"]),
    }
}

/// The ordered axes of `table` for `dim`: the axis, its labels with their keys (in table
/// order). An axis has three distinct keys or more, keys for most of its labels, and not
/// years only (a question's year is read elsewhere: [`crate::conditions`]).
fn axes(table: &Table, dim: Dim) -> Vec<(Axis, Vec<(String, f64)>)> {
    let ordered = |labels: &[&str]| -> Option<Vec<(String, f64)>> {
        let keyed: Vec<(String, f64)> = labels
            .iter()
            .filter_map(|l| key(l).map(|k| (l.to_string(), k)))
            .collect();
        let mut distinct: Vec<f64> = keyed.iter().map(|(_, k)| *k).collect();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        let years = distinct
            .iter()
            .all(|&k| k.fract() == 0.0 && (1990.0..=2040.0).contains(&k));
        (distinct.len() >= 3 && keyed.len() * 5 >= labels.len() * 3 && !years).then_some(keyed)
    };
    let mut out = Vec::new();
    for c in 0..table.header.len() {
        let labels: Vec<&str> = table
            .body
            .iter()
            .filter_map(|r| r.get(c).map(String::as_str))
            .filter(|l| !l.is_empty())
            .collect();
        let name = table.header[c].as_str();
        // Row labels are the first column, or another one named for the quantity asked (by
        // a header without a number: "pT range (GeV)", not a value column "Γ/m = 10%")
        // whose labels are ranges or bounds.
        let other_labels = || {
            dim != Dim::Any
                && !name.chars().any(|c| c.is_ascii_digit())
                && fits(dim, name, &[])
                && labels.iter().filter(|l| is_range(l)).count() * 2 >= labels.len()
        };
        if (c == 0 || other_labels()) && fits(dim, name, &labels) {
            if let Some(keyed) = ordered(&labels) {
                out.push((Axis::Rows(c), keyed));
            }
        }
    }
    let heads: Vec<&str> = table.header.iter().skip(1).map(String::as_str).collect();
    // Column labels say their quantity themselves ("−2.5 < y_cm < −1.5"); the first header
    // cell names the rows.
    if fits(dim, "", &heads) {
        if let Some(keyed) = ordered(&heads) {
            out.push((Axis::Columns, keyed));
        }
    }
    out
}

/// Whether a description naming no quantity, with `noun`, may mean a place on `axis` of
/// `table`: "bin", "slice", "class", "range" and the like name places on any ordered axis;
/// "layer", "ring", "wp" and the like only on one whose header writes the noun ("third
/// layer" is no pT bin).
fn names_place(noun: Option<&str>, table: &Table, axis: Axis) -> bool {
    const ANY: &[&str] = &[
        "bin", "bins", "slice", "slices", "class", "range", "interval", "row", "column",
    ];
    let Some(noun) = noun else {
        return false;
    };
    if ANY.contains(&noun) {
        return true;
    }
    let name = match axis {
        Axis::Rows(c) => table
            .header
            .get(c)
            .map_or(String::new(), |h| h.to_lowercase()),
        Axis::Columns => table.header.join(" ").to_lowercase(),
    };
    name.contains(noun) || (noun == "wp" && name.contains("working point"))
}

/// The key at `rank` among the distinct keys of `keyed`.
fn at_rank(keyed: &[(String, f64)], rank: Rank) -> Option<f64> {
    let mut keys: Vec<f64> = keyed.iter().map(|(_, k)| *k).collect();
    keys.sort_by(f64::total_cmp);
    keys.dedup();
    let n = keys.len();
    match rank {
        Rank::Low(k) => keys.get(k).copied(),
        Rank::High(k) => (k < n).then(|| keys[n - 1 - k]),
        Rank::Middle => (n % 2 == 1).then(|| keys[n / 2]),
    }
}

/// A label as the question's annotation writes it: without a trailing parenthesis naming a
/// unit only ("460–550 GeV (%)": "460–550 GeV").
fn shown_label(label: &str) -> String {
    let l = label.trim();
    if let Some(open) = l.rfind(" (") {
        let tail = &l[open..];
        if l.ends_with(')') && !tail.chars().any(|c| c.is_ascii_digit()) {
            return l[..open].trim_end().to_string();
        }
    }
    l.to_string()
}

/// The places `question` describes by rank that `text`'s tables hold: for each description,
/// the label at that rank among the ordered labels of each table axis ordering by the
/// quantity it names (or, naming none, of an axis its noun fits: [`names_place`]). The label
/// shown is that of the table sharing most words with the question ([`locate::ranked`]);
/// every table's place is kept for [`other_cell`]. A description no axis has is left out.
/// Besides, each row the question names by its label's value ([`valued`]) in a table whose
/// label column names the value's quantity or unit, with no label to show: a value the table
/// has no row for ("m_a = 90 GeV" beside rows 6 … 70) places every cell of it outside.
pub(crate) fn locate(question: &str, text: &str) -> Vec<Located> {
    located_in(question, &tables(text))
}

/// [`locate`] on a passage's parsed `tables`.
fn located_in(question: &str, tables: &[Table]) -> Vec<Located> {
    let texts: Vec<String> = tables
        .iter()
        .map(|t| {
            let mut s = t.header.join(" ");
            for r in &t.body {
                s.push('\n');
                s.push_str(&r.join(" "));
            }
            s
        })
        .collect();
    let order = locate::ranked(
        question,
        &texts.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut out = Vec::new();
    for d in descriptions(question) {
        // (table, axis, key, label)
        let mut found: Vec<(usize, Axis, f64, String)> = Vec::new();
        for (t, table) in tables.iter().enumerate() {
            for (axis, keyed) in axes(table, d.dim) {
                if d.dim == Dim::Any && !names_place(d.noun, table, axis) {
                    continue;
                }
                let Some(k) = at_rank(&keyed, d.rank) else {
                    continue;
                };
                if let Some((l, _)) = keyed.iter().find(|(_, x)| *x == k) {
                    found.push((t, axis, k, l.clone()));
                }
            }
        }
        let best = order.iter().find_map(|&t| found.iter().find(|f| f.0 == t));
        if let Some(best) = best {
            out.push(Located {
                at: d.at,
                label: shown_label(&best.3),
                places: found.iter().map(|f| (f.0, f.1, f.2)).collect(),
            });
        }
    }
    for v in valued(question) {
        let places: Vec<(usize, Axis, f64)> = tables
            .iter()
            .enumerate()
            .flat_map(|(t, table)| {
                value_rows(table, &v)
                    .into_iter()
                    .map(move |a| (t, a, v.value))
            })
            .collect();
        if !places.is_empty() {
            // The question writes the value itself: nothing to annotate.
            out.push(Located {
                at: v.at,
                label: String::new(),
                places,
            });
        }
    }
    out
}

/// A row a question names by its label's value ("m_a = 90 GeV", "at 90 GeV", "for a 20 GeV
/// axion").
struct Valued {
    /// Byte range of the number in the question.
    at: (usize, usize),
    /// The number.
    value: f64,
    /// The word the value is set for ("m_a" in "m_a = 90 GeV"), if written.
    name: Option<String>,
    /// The unit after the number ("gev"), if one.
    unit: Option<&'static str>,
}

/// Units after a value that names a row ("at 90 GeV").
const ROW_UNITS: &[&str] = &["mev", "gev", "tev", "ps", "ns", "mm", "cm"];

/// The values `question` names rows by: a number after "=" and a name ("m_a = 90 GeV",
/// "r_inv = 0.3"), or a number with a unit after "at", "for", "of" or "a" ("at 90 GeV", "for a
/// 20 GeV axion").
fn valued(question: &str) -> Vec<Valued> {
    let ws = words(question);
    let w = |i: usize| ws.get(i).map_or("", |(s, _)| s.as_str());
    let mut out = Vec::new();
    for (i, (word, at)) in ws.iter().enumerate().skip(1) {
        let Ok(value) = word.parse::<f64>() else {
            continue;
        };
        let unit = ROW_UNITS.iter().copied().find(|&u| u == w(i + 1));
        let name = (i >= 2 && w(i - 1) == "=").then(|| w(i - 2).to_string());
        let led = matches!(w(i - 1), "at" | "for" | "of" | "a" | "an");
        if name.is_some() || (led && unit.is_some()) {
            out.push(Valued {
                at: *at,
                value,
                name,
                unit,
            });
        }
    }
    out
}

/// The row axes of `table` whose labels are single values (no ranges) and whose header names
/// `v`'s quantity or unit ("m_a (GeV)" for "m_a = 90 GeV" or "at 90 GeV").
fn value_rows(table: &Table, v: &Valued) -> Vec<Axis> {
    axes(table, Dim::Any)
        .into_iter()
        .filter(|(axis, keyed)| {
            let Axis::Rows(c) = *axis else {
                return false;
            };
            let head = table.header[c].to_lowercase();
            let names = |word: &str| {
                head.split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                    .any(|t| t == word)
            };
            let named = v.name.as_deref().is_some_and(names) || v.unit.is_some_and(names);
            named && keyed.len() == table.body.len() && !keyed.iter().any(|(l, _)| is_range(l))
        })
        .map(|(axis, _)| axis)
        .collect()
}

/// `question` with the label of each place it describes written after the description
/// ("avg xJ for the third centrality slice (30–50%)?"), read from the first of `texts` whose
/// tables hold it; `question` itself when none does.
pub(crate) fn annotate(question: &str, texts: &[&str]) -> String {
    let mut found: Vec<Located> = Vec::new();
    for text in texts {
        for l in locate(question, text) {
            if !found.iter().any(|f| f.at == l.at) {
                found.push(l);
            }
        }
    }
    found.sort_by_key(|l| l.at.1);
    let mut out = String::new();
    let mut from = 0;
    for l in found.iter().filter(|l| !l.label.is_empty()) {
        out.push_str(&question[from..l.at.1]);
        out.push_str(&format!(" ({})", l.label));
        from = l.at.1;
    }
    out.push_str(&question[from..]);
    out
}

/// Whether `claim` gives a number that the passages `cited` write, in tables holding a place
/// `question` describes by rank, only in other rows or columns of them than that place, and
/// nowhere else: a neighbouring cell.
pub(crate) fn other_cell(question: &str, claim: &str, cited: &[&str]) -> bool {
    let numbers = grounding::claimed_numbers(claim, question);
    if numbers.is_empty() {
        return false;
    }
    // Each passage read once: its text and the cells outside the places described, normalised.
    let read: Vec<(String, Vec<String>)> = cited
        .iter()
        .map(|text| {
            let tables = tables(text);
            let located = located_in(question, &tables);
            (grounding::normalize(text), outside(&tables, &located))
        })
        .collect();
    numbers.iter().any(|n| {
        let count = |t: &str| grounding::whole_numbers(t, n).count();
        let mut seen = false;
        for (text, cells) in &read {
            let total = count(text);
            if total == 0 {
                continue;
            }
            seen = true;
            if cells.iter().map(|c| count(c)).sum::<usize>() < total {
                return false;
            }
        }
        seen
    })
}

/// The body cells of `tables`, normalised ([`grounding::normalize`]), that lie outside a place
/// `located` names in their table: in another row of a row axis (not the label column), or
/// another column of a column axis (not the row labels).
fn outside(tables: &[Table], located: &[Located]) -> Vec<String> {
    let mut out = Vec::new();
    for (t, table) in tables.iter().enumerate() {
        let here: Vec<(Axis, f64)> = located
            .iter()
            .flat_map(|l| l.places.iter())
            .filter(|p| p.0 == t)
            .map(|p| (p.1, p.2))
            .collect();
        if here.is_empty() {
            continue;
        }
        for row in &table.body {
            for (c, cell) in row.iter().enumerate() {
                let off = here.iter().any(|&(axis, k)| match axis {
                    Axis::Rows(col) => c != col && row.get(col).and_then(|l| key(l)) != Some(k),
                    Axis::Columns => c != 0 && table.header.get(c).and_then(|l| key(l)) != Some(k),
                });
                if off {
                    out.push(grounding::normalize(cell));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
