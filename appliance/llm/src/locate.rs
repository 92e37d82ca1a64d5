//! Where in a passage a question's fact would be: the paragraphs sharing most content words.

use crate::focus;

/// The `n` paragraphs of `text` (blocks between blank lines) that share the most distinct
/// content words with `question`, in their order in `text`; ties go to the earlier paragraph.
/// `text` itself when it has `n` paragraphs or fewer, or `n` is 0.
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

/// The blocks of `text` between blank (or white-space) lines, trimmed.
fn paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // The byte range of the block being read.
    let mut block: Option<(usize, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            if let Some((from, to)) = block.take() {
                out.push(text[from..to].trim());
            }
        } else {
            let from = block.map_or(at, |(from, _)| from);
            block = Some((from, at + line.len()));
        }
        at += line.len();
    }
    if let Some((from, to)) = block {
        out.push(text[from..to].trim());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "Trigger: single muon with pT > 24 GeV.\n\nThe BDT has 14 input \
                        variables and 500 trees.\n  \n\nLuminosity is 138 fb-1.\nCertified \
                        runs only.";

    #[test]
    fn paragraphs_split_at_blank_lines() {
        assert_eq!(
            paragraphs(NOTE),
            [
                "Trigger: single muon with pT > 24 GeV.",
                "The BDT has 14 input variables and 500 trees.",
                "Luminosity is 138 fb-1.\nCertified runs only."
            ]
        );
        assert_eq!(
            paragraphs("one block\nof two lines"),
            ["one block\nof two lines"]
        );
        assert!(paragraphs(" \n\n ").is_empty());
    }

    #[test]
    fn the_window_keeps_the_paragraphs_sharing_most_words_in_text_order() {
        assert_eq!(
            window("How many trees has the BDT?", NOTE, 1),
            "The BDT has 14 input variables and 500 trees."
        );
        assert_eq!(
            window(
                "Which runs enter the luminosity of the BDT training?",
                NOTE,
                2
            ),
            "The BDT has 14 input variables and 500 trees.\n\nLuminosity is 138 fb-1.\n\
             Certified runs only."
        );
        // Nothing shared: the first paragraphs.
        assert_eq!(
            window("Quel est le seuil?", NOTE, 1),
            "Trigger: single muon with pT > 24 GeV."
        );
        // Short enough, or no window asked: the whole text.
        assert_eq!(window("trees?", NOTE, 3), NOTE);
        assert_eq!(window("trees?", NOTE, 0), NOTE);
    }
}
