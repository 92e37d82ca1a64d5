//! Where in a passage a question's fact would be: the paragraphs sharing most content words.

use crate::focus;

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
    let q = focus::content(question);
    let mut ranked: Vec<(usize, usize)> = paragraphs
        .iter()
        .enumerate()
        .map(|(i, p)| (i, focus::content(p).intersection(&q).count()))
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut keep: Vec<usize> = ranked.iter().take(n).map(|&(i, _)| i).collect();
    keep.sort_unstable();
    keep.iter()
        .map(|&i| paragraphs[i])
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The paragraphs of `text`: its blocks between blank (or white-space) lines, trimmed, a block
/// of fewer than [`MIN_WORDS`] words read with the blocks after it (the last short one with
/// the paragraph before it). A chunk's heading line thus stays with its first paragraph, and
/// the one-line blocks of some PDF pages make paragraphs of several lines.
fn paragraphs(text: &str) -> Vec<&str> {
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
}
