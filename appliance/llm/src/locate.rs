//! Where in a passage a question's fact would be: the paragraphs sharing most content words.

use std::collections::HashSet;

use crate::{focus, grounding, terms};

/// Blocks shorter than this many words (a heading, a caption, one line of a PDF page) are read
/// together with the blocks after them, so that every paragraph of the window says something.
const MIN_WORDS: usize = 30;

/// The `n` paragraphs of `text` that share the most distinct content words with `question`,
/// in their order in `text`; ties go to the earlier paragraph. `text` itself when it has `n`
/// paragraphs or fewer, or `n` is 0. A paragraph is a block between blank lines, joined with
/// the blocks after it while it holds fewer than 30 words ([`paragraphs`]).
///
/// The relevance judge reads this window instead of the whole passage: a passage of notes
/// often joins unrelated paragraphs, and the judge's yes/no on the whole of it is diluted by
/// them (benches/ANSWERS.md).
pub fn window(question: &str, text: &str, n: usize) -> String {
    let paragraphs: Vec<&str> = paragraphs(text);
    if n == 0 || paragraphs.len() <= n {
        return text.to_string();
    }
    let mut keep: Vec<usize> = order(question, &paragraphs).into_iter().take(n).collect();
    keep.sort_unstable();
    keep.iter()
        .map(|&i| paragraphs[i])
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The order in which the paragraphs `parts` are read for `question`: [`ranked`], and for a
/// question asking why ([`focus::asks_why`]) its prose before its tables, each in that order.
/// A table's cells give values, not reasons; the sentence saying why a cut is where it is
/// often follows the table that lists the cut, and was left out when the table took the room.
fn order(question: &str, parts: &[&str]) -> Vec<usize> {
    let mut order = ranked(question, parts);
    if focus::asks_why(question) {
        order.sort_by_key(|&i| table_body(parts[i]).is_some());
    }
    order
}

/// Indexes of `parts`, those sharing most content words with `question` first, each word
/// weighted by how few of the parts hold it ([`holds`]; its BM25 inverse document frequency
/// among the parts: a word every paragraph writes tells none apart); ties in their order.
pub(crate) fn ranked(question: &str, parts: &[&str]) -> Vec<usize> {
    let q = focus::content(question);
    let words: Vec<Terms> = parts.iter().map(|p| terms_of(p)).collect();
    let n = parts.len() as f64;
    let mut score = vec![0.0f64; parts.len()];
    for w in &q {
        let holding: Vec<usize> = (0..parts.len()).filter(|&i| holds(&words[i], w)).collect();
        let df = holding.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for i in holding {
            score[i] += idf;
        }
    }
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    order
}

/// The words of a part of a passage as [`holds`] matches a question's words against them.
struct Terms {
    /// Its content words ([`focus::content`]) and its short words with a Greek letter ("eμ",
    /// "μμ", "τh": a table's channel labels).
    words: HashSet<String>,
    /// The same words [`fold`]ed, read once per part rather than per question word.
    folded: HashSet<String>,
}

/// The [`Terms`] of `text`.
fn terms_of(text: &str) -> Terms {
    let mut words = focus::content(text);
    words.extend(
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().any(|c| terms::greek_name(c).is_some()))
            .map(str::to_lowercase),
    );
    let folded = words.iter().map(|w| fold(w)).collect();
    Terms { words, folded }
}

/// Whether a part's content `words` hold the question's content word `w`: the word itself, both
/// edges of a range ("60" and "70" of "60-70"), the same word spelled without hyphens or with
/// its Greek letters in ASCII ("e-mu" for "eμ"), one of its other hyphen-joined parts
/// ("calorimeter" of "forward-calorimeter"), "total" for a word of a sum ([`TOTALS`]), or for
/// words of letters, a word it opens ("frag" of "fragmentation": questions abbreviate) or a
/// word of four letters or more opening it ("veto" of "vetoing").
fn holds(terms: &Terms, w: &str) -> bool {
    let words = &terms.words;
    let letters = |w: &str| w.chars().all(char::is_alphabetic);
    let matches = |w: &str| {
        words.contains(w)
            || (letters(w)
                && words.iter().any(|p| {
                    p.starts_with(w)
                        || (letters(p) && p.chars().count() >= 4 && w.starts_with(p.as_str()))
                }))
    };
    let number = |p: &str| p.chars().next().is_some_and(|c| c.is_ascii_digit());
    let parts: Vec<&str> = w.split('-').collect();
    matches(w)
        // "overall" for a table's "Total" row.
        || TOTALS.iter().any(|(q, p)| w == *q && words.contains(*p))
        // "e-mu" for "eμ", "mumu" for "μμ", "tau" for "τ".
        || (w.chars().any(char::is_alphabetic) && terms.folded.contains(&fold(w)))
        // A range ("60-70"): both its edges ("| 60–70% |"; an en dash splits words).
        || (parts.len() == 2 && parts.iter().all(|p| number(p)) && parts.iter().all(|p| matches(p)))
        || (w.contains('-')
            && parts
                .iter()
                .any(|part| part.chars().count() >= 3 && !number(part) && matches(part)))
}

/// Words a question asks for a sum with, and the word a table's row or a sentence writes it
/// with ("overall rel. error budget" for the "| Total | 4.8 |" row, realistic17
/// BTV-26-043-q02, cut off the passage its answer read); not "combined" (a fit, years or
/// channels).
const TOTALS: &[(&str, &str)] = &[("overall", "total"), ("summed", "total")];

/// `word` (lower case) without hyphens, its Greek letters spelled out ("eμ" and "e-mu" are
/// "emu").
fn fold(word: &str) -> String {
    let mut out = String::new();
    for c in word.chars().filter(|&c| c != '-') {
        match terms::greek_name(c) {
            Some(name) => out.push_str(name),
            None => out.push(c),
        }
    }
    out
}

/// Marks where paragraphs or table rows of a passage were left out.
pub const GAP: &str = "…";

/// What of a passage longer than the prompt allows is read for a question ([`select`]).
#[derive(Debug, PartialEq)]
pub enum Selected<'a> {
    /// The paragraphs kept, in their order, [`GAP`] where some were left out.
    Kept(String),
    /// Not even the first sentence of the paragraph sharing most words with the question
    /// fits (nor, for a table, its header and a row): this paragraph, for the caller to cut.
    Best(&'a str),
}

/// The paragraphs of `text` sharing most content words with `question`, as many as fit in
/// `max` (as `count` measures text), in their order in `text`, a [`GAP`] line where some were
/// left out. A Markdown table too long to come whole comes with its caption and header rows
/// and the body rows sharing most words that fit; another paragraph too long, with the
/// sentences from its beginning that fit. Ties go to the earlier paragraph or row, so a
/// question sharing no word keeps the beginning of the passage.
///
/// A passage is cut this way rather than at its `max`-th token because the fact asked for is
/// as often in its last paragraphs, or the last rows of its table, as in its first ones
/// (benches/ANSWERS.md).
pub fn select<'a, E>(
    question: &str,
    text: &'a str,
    max: usize,
    count: &mut dyn FnMut(&str) -> Result<usize, E>,
) -> Result<Selected<'a>, E> {
    let parts = paragraphs(text);
    // The kept paragraphs in their order, each whole or as some of its table's rows.
    let mut kept: Vec<(usize, String)> = Vec::new();
    for i in order(question, &parts) {
        let at = kept.partition_point(|(k, _)| *k < i);
        kept.insert(at, (i, parts[i].to_string()));
        if count(&join(parts.len(), &kept, "\n\n"))? <= max {
            continue;
        }
        kept.remove(at);
        // Whether the paragraph fits as `t` beside the kept ones.
        let mut fits = |t: &str| {
            let mut with = kept.clone();
            with.insert(at, (i, t.to_string()));
            Ok(count(&join(parts.len(), &with, "\n\n"))? <= max)
        };
        let part = match table_rows(question, parts[i], &mut fits)? {
            Some(t) => Some(t),
            None => beginning(parts[i], &mut fits)?,
        };
        match part {
            Some(t) => kept.insert(at, (i, t)),
            None if kept.is_empty() => return Ok(Selected::Best(parts[i])),
            None => {}
        }
    }
    Ok(Selected::Kept(join(parts.len(), &kept, "\n\n")))
}

/// A Markdown table paragraph (optional caption lines, then `|` rows with a delimiter row)
/// cut for `question`: its caption and header rows, then the body rows sharing most content
/// words with the question, as many as `fits` accepts, in their order, a [`GAP`] line where
/// rows were left out. `None` when `paragraph` is no such table, or `fits` accepts no row.
fn table_rows<E>(
    question: &str,
    paragraph: &str,
    fits: &mut dyn FnMut(&str) -> Result<bool, E>,
) -> Result<Option<String>, E> {
    let Some((head, body)) = table_body(paragraph) else {
        return Ok(None);
    };
    let with_head = |kept: &[(usize, String)]| format!("{head}\n{}", join(body.len(), kept, "\n"));
    let mut kept: Vec<(usize, String)> = Vec::new();
    for i in ranked(question, &body) {
        let at = kept.partition_point(|(k, _)| *k < i);
        kept.insert(at, (i, body[i].to_string()));
        if !fits(&with_head(&kept))? {
            kept.remove(at);
        }
    }
    Ok((!kept.is_empty()).then(|| with_head(&kept)))
}

/// Whether `line` is a Markdown table's delimiter row ("|---|:---:|").
pub(crate) fn is_delimiter(line: &str) -> bool {
    line.trim_start().starts_with('|')
        && line.contains('-')
        && line
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// The cells of a Markdown table row: the text between `by` separators ("|", or " | " where a
/// cell holds a pipe), trimmed, without the row's outer pipes.
pub(crate) fn row_cells(row: &str, by: &str) -> Vec<String> {
    let r = row.trim();
    let r = r.strip_prefix('|').unwrap_or(r);
    let r = r.strip_suffix('|').unwrap_or(r);
    r.split(by).map(|c| c.trim().to_string()).collect()
}

/// The cells of table `row` and of its `header`, paired: split at pipes, or, where that gives
/// them different numbers of cells, at spaced pipes (a pipe inside a cell: "| |η| | 2022 |");
/// `None` where neither pairs them.
pub(crate) fn paired_cells(row: &str, header: &str) -> Option<(Vec<String>, Vec<String>)> {
    ["|", " | "].into_iter().find_map(|by| {
        let (r, h) = (row_cells(row, by), row_cells(header, by));
        (r.len() == h.len()).then_some((r, h))
    })
}

/// A Markdown table paragraph's caption and header lines (through its delimiter row) and its
/// body rows; `None` when `paragraph` is no such table (optional caption lines, then `|` rows
/// with a delimiter row, every line after it a row).
fn table_body(paragraph: &str) -> Option<(String, Vec<&str>)> {
    let lines: Vec<&str> = paragraph.lines().collect();
    let is_row = |l: &str| l.trim_start().starts_with('|');
    let delimiter = lines.iter().position(|l| is_delimiter(l))?;
    let body = &lines[delimiter + 1..];
    (!body.is_empty() && body.iter().all(|l| is_row(l)))
        .then(|| (lines[..=delimiter].join("\n"), body.to_vec()))
}

/// The longest beginning of `paragraph` that ends at a sentence end (or a line end), holds
/// [`MIN_WORDS`] words or more (a heading or a caption alone says nothing) and that `fits`
/// accepts, a [`GAP`] after it; `None` when there is none.
fn beginning<E>(
    paragraph: &str,
    fits: &mut dyn FnMut(&str) -> Result<bool, E>,
) -> Result<Option<String>, E> {
    let mut best = None;
    for end in grounding::sentence_ends(paragraph) {
        let head = paragraph[..end].trim_end();
        if head.split_whitespace().count() < MIN_WORDS {
            continue;
        }
        let t = format!("{head} {GAP}");
        if !fits(&t)? {
            break;
        }
        best = Some(t);
    }
    Ok(best)
}

/// The `kept` parts (index among `n`, text) in their order, joined by `sep`, a [`GAP`] where
/// parts were left out.
fn join(n: usize, kept: &[(usize, String)], sep: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut next = 0;
    for (i, t) in kept {
        if *i > next {
            out.push(GAP);
        }
        out.push(t);
        next = i + 1;
    }
    if next < n {
        out.push(GAP);
    }
    out.join(sep)
}

/// The paragraphs of `text`: its blocks between blank (or white-space) lines, trimmed, a block
/// of fewer than [`MIN_WORDS`] words read with the blocks after it (the last short one with
/// the paragraph before it). A chunk's heading line thus stays with its first paragraph, and
/// the one-line blocks of some PDF pages make paragraphs of several lines.
pub(crate) fn paragraphs(text: &str) -> Vec<&str> {
    let words = |r: &(usize, usize)| text[r.0..r.1].split_whitespace().count();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    let mut open = false; // the last paragraph still holds fewer than MIN_WORDS words
    for b in blocks(text) {
        match merged.last_mut() {
            Some(last) if open => last.1 = b.1,
            _ => merged.push(b),
        }
        open = merged.last().is_some_and(|r| words(r) < MIN_WORDS);
    }
    if open && merged.len() >= 2 {
        let (_, to) = merged.pop().unwrap_or_default();
        if let Some(last) = merged.last_mut() {
            last.1 = to;
        }
    }
    merged
        .into_iter()
        .map(|(from, to)| &text[from..to])
        .collect()
}

/// The byte ranges of the blocks of `text` between blank (or white-space) lines, trimmed.
fn blocks(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // The byte range of the block being read.
    let mut block: Option<(usize, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.extend(block.take());
        } else {
            let from = block.map_or(at, |(from, _)| from);
            block = Some((from, at + line.len()));
        }
        at += line.len();
    }
    out.extend(block);
    // Trimmed: the range of the block's text without its surrounding white space.
    out.into_iter()
        .map(|(from, to)| {
            let s = &text[from..to];
            let start = from + (s.len() - s.trim_start().len());
            (start, start + s.trim().len())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Three paragraphs of 30 words or more, the second after a heading line.
    const TRIGGER: &str = "Trigger: events are recorded with a single muon trigger with pT > 24 \
                           GeV, isolated, in the barrel and the endcaps, and the efficiency is \
                           measured with tag and probe on Z decays in data and simulation.";
    const BDT: &str = "The BDT has 14 input variables and 500 trees. It is trained on simulated \
                       signal and on data sidebands, with a k-fold split so that no event is \
                       classified by a forest that saw it in training.";
    const LUMI: &str = "Luminosity is 138 fb-1.\nCertified runs only, from the golden list of \
                        the physics validation group, with periods of detector problems removed \
                        and the same list for all control regions.";

    fn note() -> String {
        format!("{TRIGGER}\n\nClassifier\n\n{BDT}\n  \n\n{LUMI}")
    }

    #[test]
    fn paragraphs_split_at_blank_lines_and_keep_short_blocks_with_the_next() {
        let note = note();
        assert_eq!(
            paragraphs(&note),
            [TRIGGER, &format!("Classifier\n\n{BDT}"), LUMI]
        );
        assert_eq!(
            paragraphs("one block\nof two lines"),
            ["one block\nof two lines"]
        );
        assert!(paragraphs(" \n\n ").is_empty());
        // One-line blocks are read together; a short last one with the paragraph before.
        let ten = "a b c d e f g h i j";
        let lines = [ten; 6].join("\n\n") + "\n\no p";
        let first = [ten; 3].join("\n\n");
        let second = [ten; 3].join("\n\n") + "\n\no p";
        assert_eq!(paragraphs(&lines), [first, second]);
    }

    #[test]
    fn the_window_keeps_the_paragraphs_sharing_most_words_in_text_order() {
        let note = note();
        assert_eq!(
            window("How many trees has the BDT?", &note, 1),
            format!("Classifier\n\n{BDT}")
        );
        assert_eq!(
            window(
                "Which runs enter the luminosity of the BDT training?",
                &note,
                2
            ),
            format!("Classifier\n\n{BDT}\n\n{LUMI}")
        );
        // Nothing shared: the first paragraphs.
        assert_eq!(window("Quel est le seuil?", &note, 1), TRIGGER);
        // Short enough, or no window asked: the whole text.
        assert_eq!(window("trees?", &note, 3), note);
        assert_eq!(window("trees?", &note, 0), note);
        // Short blocks only: one paragraph, the whole text.
        assert_eq!(
            window("trees?", "Selection\n\n500 trees.", 1),
            "Selection\n\n500 trees."
        );
    }

    /// Words as the token count of the tests.
    fn words(s: &str) -> Result<usize, ()> {
        Ok(s.split_whitespace().count())
    }

    #[test]
    fn a_long_passage_keeps_the_paragraphs_sharing_most_words_that_fit() {
        let note = note();
        let trigger = TRIGGER.split_whitespace().count();
        let bdt = format!("Classifier\n\n{BDT}");
        let lumi = LUMI.split_whitespace().count();
        // Room for the luminosity paragraph and the gap marks, not for a second paragraph.
        let max = lumi + 2;
        assert_eq!(
            select("Which runs enter the luminosity?", &note, max, &mut words),
            Ok(Selected::Kept(format!("{GAP}\n\n{LUMI}")))
        );
        // Two paragraphs fit: the trigger one (a word shared) before the luminosity one, in
        // the text's order, the gap marked where the classifier was.
        assert_eq!(
            select(
                "Which runs of the muon trigger enter the luminosity?",
                &note,
                trigger + lumi + 3,
                &mut words
            ),
            Ok(Selected::Kept(format!("{TRIGGER}\n\n{GAP}\n\n{LUMI}")))
        );
        // Nothing shared: the beginning.
        assert_eq!(
            select("Quel est le seuil?", &note, trigger + 1, &mut words),
            Ok(Selected::Kept(format!("{TRIGGER}\n\n{GAP}")))
        );
        // Not even the best paragraph fits: that one, for the caller to cut.
        assert_eq!(
            select("How many trees has the BDT?", &note, 10, &mut words),
            Ok(Selected::Best(bdt.as_str()))
        );
    }

    #[test]
    fn question_words_match_their_parts_and_abbreviations() {
        let words = terms_of("The HF veto removes hadronic fragmentation in the forward region.");
        assert!(holds(&words, "frag"));
        assert!(holds(&words, "vetoing"));
        assert!(holds(&words, "forward-calorimeter"));
        // Neither hyphen part held or opened; a number only as itself.
        assert!(!holds(&words, "hadrons-like"));
        assert!(!holds(&terms_of("the 2024 data"), "202"));
        // A range holds where both its edges are written (realistic9 HIN-26-012-q02: the
        // "60–70%" row of a centrality table, the en dash splitting it).
        let row = terms_of("| 60–70% | 30.4 ± 1.9 | 0.541 ± 0.004 |");
        assert!(holds(&row, "60-70"));
        assert!(!holds(&terms_of("| 50–60% | 53.6 ± 2.4 |"), "60-70"));
        assert!(holds(&terms_of("| 0.3–0.6 | 0.97 |"), "0.3-0.6"));
        // Greek letters typed in ASCII (realistic7 TOP-25-004-q02: the "eμ" row for "e-mu").
        let row = terms_of("| eμ | 0.992 ± 0.004 | 0.989 ± 0.005 |");
        assert!(holds(&row, "e-mu"));
        assert!(holds(&row, "emu"));
        assert!(!holds(&terms_of("| ee | 0.981 ± 0.006 |"), "e-mu"));
        assert!(holds(&terms_of("the τh candidates"), "tauh"));
        // A sum asked for: the table's total row (realistic17 BTV-26-043-q02).
        assert!(holds(&terms_of("| Total | 4.8 |"), "overall"));
        assert!(holds(&terms_of("| Total | 7.2 |"), "summed"));
        assert!(!holds(&terms_of("| JES | 0.8 |"), "overall"));
        // A word every paragraph writes tells none apart: the rarer word decides.
        let parts = [
            "Photon in the barrel.",
            "Scale factors in the endcap.",
            "Photon in the barrel and the tracker.",
        ];
        assert_eq!(ranked("photon SF, barrel or endcap?", &parts), [1, 0, 2]);
    }

    #[test]
    fn a_paragraph_too_long_to_come_whole_comes_with_its_first_sentences() {
        let first = "The fake-lepton background is estimated with a tight-to-loose method in a \
                     multijet region enriched in non-prompt leptons, with the prompt \
                     contamination subtracted using simulation and the rates parametrised in \
                     pT and eta.";
        let second = "The closure of the method is tested in simulated top quark pair events, \
                      where the predicted and observed yields of events with a non-prompt \
                      lepton agree within thirty percent, which is taken as the systematic \
                      uncertainty.";
        let text = format!("{TRIGGER}\n\n{first} {second}");
        let budget = first.split_whitespace().count() + 3;
        assert_eq!(
            select(
                "How is the fake-lepton background estimated?",
                &text,
                budget,
                &mut words
            ),
            Ok(Selected::Kept(format!("{GAP}\n\n{first} {GAP}")))
        );
    }

    #[test]
    fn a_long_table_keeps_its_header_and_the_rows_sharing_most_words() {
        let prose = "The charm tagging scale factors are measured in W+c events with a soft \
                     muon inside the jet, opposite sign minus same sign, per working point and \
                     per bin of jet transverse momentum, separately for each year.";
        let table = "Table 2: charm SF\n\n| pT bin | WP | SF |\n|---|:-:|---|\n\
                     | 30-50 | loose | 0.95 |\n| 30-50 | tight | 0.93 |\n\
                     | 50-80 | loose | 0.97 |\n| 50-80 | tight | 0.91 |";
        let text = format!("{prose}\n\n{table}");
        let head = "Table 2: charm SF\n\n| pT bin | WP | SF |\n|---|:-:|---|";
        let prose_words = prose.split_whitespace().count();
        // The prose shares "charm", the table "charm", "tight", "50-80": caption
        // and header (13 words), a gap and the best row (8), no room for a second row (7)
        // nor the prose.
        assert_eq!(
            select("charm SF, tight WP, 50-80 bin?", &text, 25, &mut words),
            Ok(Selected::Kept(format!(
                "{GAP}\n\n{head}\n{GAP}\n| 50-80 | tight | 0.91 |"
            )))
        );
        // The prose first (four words shared), then caption, header and the two rows of the
        // 50-80 bin, in their order: no room for the whole table.
        assert_eq!(
            select(
                "charm scale factors in the 50-80 bin?",
                &text,
                prose_words + 13 + 15,
                &mut words
            ),
            Ok(Selected::Kept(format!(
                "{prose}\n\n{head}\n{GAP}\n| 50-80 | loose | 0.97 |\n| 50-80 | tight | 0.91 |"
            )))
        );
        // A question word opening a word of a row counts: "tig" of "tight".
        assert_eq!(
            select("SF, tig WP, 50-80?", &text, 25, &mut words),
            Ok(Selected::Kept(format!(
                "{GAP}\n\n{head}\n{GAP}\n| 50-80 | tight | 0.91 |"
            )))
        );
        // The header alone does not fit: the table is the caller's to cut.
        assert_eq!(
            select("SF, tight WP, 50-80 bin?", table, 12, &mut words),
            Ok(Selected::Best(table))
        );
    }

    #[test]
    fn a_question_asking_why_reads_the_prose_before_the_tables() {
        // realistic10 BPH-26-011-q05: the table listing the cut took the room, and the
        // sentence after it saying why the cut is there was left out.
        let intro = "Candidate selection: the requirements on muons, the dimuon vertex and the \
                     decay time are listed in the table below, as applied to data and simulation \
                     alike in every era of the run.";
        let table = "| Quantity | Cut |\n|---|---|\n| Decay-time window | 0.4 < t < 8.0 ps |\n\
                     | Muon pT | > 4 GeV |\n| Dimuon mass | 3.0-3.2 GeV |\n| Vertex probability | > 2% |";
        let reason = "The lower edge of the decay-time window is set at 0.4 ps because the \
                      displaced trigger sculpts the efficiency steeply at short decay times, \
                      where it depends on the beam-spot modelling.";
        let text = format!("{intro}\n\n{table}\n\n{reason}");
        assert_eq!(paragraphs(&text), [intro, table, reason]);
        let room = reason.split_whitespace().count() + 1;
        assert_eq!(
            select(
                "why does the decay-time window start at 0.4 ps?",
                &text,
                room,
                &mut words
            ),
            Ok(Selected::Kept(format!("{GAP}\n\n{reason}")))
        );
        // Asked for the value, the table comes first.
        let Ok(Selected::Kept(kept)) =
            select("decay-time window cut in ps?", &text, room, &mut words)
        else {
            panic!("a table row fits");
        };
        assert!(kept.contains("| Decay-time window |") && !kept.contains("because"));
        assert_eq!(
            order("why the decay-time window?", &[intro, table, reason]),
            [2, 0, 1]
        );
    }
}
