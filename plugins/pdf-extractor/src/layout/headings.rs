//! Section headings: numbering ("2.3", "IV.", "A.", "Chapter 3"), run-in heads, tables-of-contents
//! lines, and heading levels for the whole document (numbering scheme first, then the style).

use std::collections::HashMap;

use super::segments::{OLine, RunStyle};
use mitra_plugin_sdk::text::is_caption_start;

/// How a heading is numbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Numbering {
    /// "2", "2.3", "2.3.1." (the number of components).
    Arabic(u8),
    /// "IV." (REVTeX sections).
    Roman,
    /// "A." (REVTeX subsections) or "A.1" (appendix sections; the number of components).
    Letter(u8),
    /// "Chapter 3", "Appendix B", "Part II".
    Chapter,
}

fn roman(s: &str) -> bool {
    !s.is_empty() && s.len() <= 6 && s.chars().all(|c| "IVXLC".contains(c))
}

/// The numbering a line starts with, when what follows it reads like a title (it starts with an
/// upper-case letter or a letter of a script without case).
pub(super) fn numbering(text: &str) -> Option<Numbering> {
    let t = text.trim_start();
    let (first, rest) = t.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    let title_like = |r: &str| {
        r.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() && !c.is_lowercase())
    };
    for w in ["chapter", "appendix", "part", "section"] {
        if first.eq_ignore_ascii_case(w) {
            let (num, _) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let num = num.trim_end_matches([':', '.']);
            let ok = !num.is_empty()
                && num.len() <= 4
                && (num.chars().all(|c| c.is_ascii_digit())
                    || roman(num)
                    || (num.len() == 1 && num.chars().all(|c| c.is_ascii_uppercase())));
            return ok.then_some(Numbering::Chapter);
        }
    }
    let core = first.strip_suffix('.').unwrap_or(first);
    let dotted = core.len() < first.len();
    let parts: Vec<&str> = core.split('.').collect();
    // "4.3.1 terminal output": three components are no decimal number, whatever follows.
    if !title_like(rest) && parts.len() < 3 {
        return None;
    }
    if parts.len() > 5 || parts.iter().any(|p| p.is_empty() || p.len() > 3) {
        return None;
    }
    let n = parts.len() as u8;
    let digits = |p: &str| p.chars().all(|c| c.is_ascii_digit());
    if parts.iter().all(|p| digits(p)) {
        // "2010 Results" is a year, not a section.
        return (parts[0].len() <= 2).then_some(Numbering::Arabic(n));
    }
    // "A. Rossi, B. Chen" and "V. G. Mitts" are initials of names, not sections.
    let next = rest.split_whitespace().next().unwrap_or("");
    let initials = (next.ends_with(',') && !caps(next)) || (next.len() == 2 && next.ends_with('.'));
    if parts.len() == 1 && roman(core) && dotted && !initials {
        return Some(Numbering::Roman);
    }
    let letter = parts[0].len() == 1 && parts[0].chars().all(|c| c.is_ascii_uppercase());
    // "B ONLINE RESOURCES" (acmart's appendices): a bare letter before a title in capitals.
    let bare = n == 1 && caps(rest);
    if letter && parts[1..].iter().all(|p| digits(p)) && (dotted || n > 1 || bare) && !initials {
        return Some(Numbering::Letter(n));
    }
    None
}

/// Whether a line is an entry of a table of contents or an index: dot leaders ("....",
/// ". . .", "⋅⋅⋅").
pub(super) fn has_leaders(text: &str) -> bool {
    text.contains("....")
        || text.contains(". . .")
        || text.contains("⋅⋅⋅")
        || text.contains("···")
        || text.contains("…")
}

/// Whether the letters of a line are (nearly) all upper-case: "I. INTRODUCTION".
pub(super) fn caps(text: &str) -> bool {
    let (mut up, mut letters) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        if c.is_uppercase() {
            up += 1;
        }
    }
    letters >= 4 && up * 10 >= letters * 9
}

/// Whether `text` has a run of at least `n` letters: a word, not only numbers, symbols and
/// single-letter variables.
pub(super) fn has_letters(text: &str, n: usize) -> bool {
    text.split(|c: char| !c.is_alphabetic())
        .any(|w| w.chars().count() >= n)
}

/// Words that start bold run-in paragraphs that are not sections (theorem-like heads).
const NOT_SECTIONS: &[&str] = &[
    "Theorem",
    "Lemma",
    "Proof",
    "Definition",
    "Corollary",
    "Proposition",
    "Remark",
    "Example",
    "Note",
    "Exercise",
    "Problem",
    "Solution",
    "Claim",
    "Conjecture",
    "Step",
    "Case",
];

/// A run-in heading: the bold start of a paragraph's first line, when it is a numbered section
/// title ("9.2. Over and under arrows.") or a short title ending with a full stop or a dash
/// ("Online Sources."), followed by regular text; or a numbered title in italic or small
/// capitals after an upright number ("9.1. BOLD VERSIONS OF SYMBOLS."). Returns the heading and
/// the rest.
pub(super) fn run_in(first: &OLine, text: &str) -> Option<(String, String)> {
    // Bold starts may be titled or numbered; other emphasis only numbered (italic is emphasis).
    for (prefix, emphasis) in [
        (bold_prefix(&first.styles), false),
        (emphasis_prefix(&first.styles), true),
    ] {
        if let Some(x) = run_in_at(prefix, emphasis, text) {
            return Some(x);
        }
    }
    None
}

/// Characters of a bold start followed by regular text; 0 when there is none.
fn bold_prefix(styles: &[RunStyle]) -> usize {
    let n = styles.iter().take_while(|s| s.style.bold).count();
    if !mostly_plain(&styles[n..], |s| s.style.bold) {
        return 0;
    }
    styles[..n].iter().map(|s| s.chars).sum()
}

/// Whether the rest of a line after a styled start is regular text: two thirds of its
/// characters without the style (a heading with a word in another font, "IX.1. **figure**
/// `environment`", is no run-in heading).
fn mostly_plain(rest: &[RunStyle], styled: impl Fn(&RunStyle) -> bool) -> bool {
    let total: usize = rest.iter().map(|s| s.chars).sum();
    let plain: usize = rest.iter().filter(|s| !styled(s)).map(|s| s.chars).sum();
    total > 0 && plain * 3 >= total * 2
}

/// Characters of a start in italic, small capitals or bold, after an optional upright number,
/// followed by upright regular text; 0 when there is none.
fn emphasis_prefix(styles: &[RunStyle]) -> usize {
    let emph = |s: &RunStyle| s.style.italic || s.style.smallcaps || s.style.bold;
    let (mut chars, mut seen) = (0usize, false);
    for (i, s) in styles.iter().enumerate() {
        if emph(s) {
            seen = true;
        } else if !s.number || seen {
            return if seen && mostly_plain(&styles[i..], emph) {
                chars
            } else {
                0
            };
        }
        chars += s.chars;
    }
    0
}

fn run_in_at(prefix: usize, emphasis: bool, text: &str) -> Option<(String, String)> {
    if prefix < 3 {
        return None;
    }
    // The byte where the styled prefix ends in `text` (which starts with the line's text).
    let mut seen = 0usize;
    let mut end = None;
    for (b, c) in text.char_indices() {
        if !c.is_whitespace() {
            seen += 1;
            if seen == prefix {
                end = Some(b + c.len_utf8());
                break;
            }
        }
    }
    let end = end?;
    // The closing full stop or colon may be set upright after an italic title.
    let after = text[end..].trim_start();
    let end = match after.chars().next() {
        Some(c @ ('.' | ':' | '—' | '–')) => text.len() - after.len() + c.len_utf8(),
        _ => end,
    };
    let head = text[..end].trim();
    let rest = text[end..].trim();
    let words = head.split_whitespace().count();
    if rest.is_empty() || words > 12 || is_caption_start(head) {
        return None;
    }
    // A numbered run-in head has a title after its number, and ends with punctuation or is
    // followed by a sentence (not by the rest of a title in another font, nor by a page
    // number as in a table of contents).
    let ends = head.ends_with(['.', ':', '—', '–']);
    let sentence =
        rest.chars().next().is_some_and(char::is_uppercase) && rest.split_whitespace().count() >= 3;
    let numbered = words >= 2
        && (ends || sentence)
        && numbering(head).is_some_and(|n| n != Numbering::Chapter);
    let first_word = head.split_whitespace().next().unwrap_or("");
    let titled = !emphasis
        && words <= 8
        && has_letters(head, 3)
        && head.ends_with(['.', '—', '–'])
        && first_word.chars().next().is_some_and(char::is_uppercase)
        && !NOT_SECTIONS
            .iter()
            .any(|w| first_word.trim_end_matches(['.', ':']) == *w);
    if !(numbered || titled) {
        return None;
    }
    let head = head.trim_end_matches(['.', ':', '—', '–', ' ']).to_string();
    Some((head, rest.to_string()))
}

/// What the level assignment needs of a heading block.
#[derive(Clone, Debug)]
pub(super) struct HeadingInfo {
    /// 1-based page.
    pub(super) page: u32,
    /// The heading's numbering, if any.
    pub(super) numbering: Option<Numbering>,
    /// Font size (points).
    pub(super) size: f64,
    /// Bold.
    pub(super) bold: bool,
    /// All capitals.
    pub(super) caps: bool,
    /// Run into its paragraph.
    pub(super) run_in: bool,
}

fn style_key(h: &HeadingInfo) -> (i64, bool, bool) {
    ((h.size * 2.0).round() as i64, h.bold, h.caps)
}

/// Levels of a document's headings, in order: 0 for the document title, 1 for top-level
/// sections, 2 for their subsections, ... Numbered headings take their level from the numbering
/// scheme ("2" is 1, "2.3" is 2; where Roman numerals number the sections, "A." is 2 and "1."
/// is 3); unnumbered headings take the level of numbered headings set in the same style, else
/// the level of the numbered headings nearest in size.
pub(super) fn levels(heads: &[HeadingInfo]) -> Vec<u8> {
    let roman_sections = heads.iter().any(|h| h.numbering == Some(Numbering::Roman));
    let chapters = heads
        .iter()
        .any(|h| h.numbering == Some(Numbering::Chapter));
    let numbered_level = |n: Numbering| -> u8 {
        match n {
            Numbering::Chapter => 1,
            Numbering::Roman => 1,
            Numbering::Letter(k) if roman_sections => 1 + k,
            Numbering::Arabic(k) if roman_sections => 2 + k,
            Numbering::Letter(k) | Numbering::Arabic(k) => {
                if chapters {
                    k.max(2)
                } else {
                    k
                }
            }
        }
    };
    // Levels seen per style among numbered headings.
    let mut by_style: HashMap<(i64, bool, bool), HashMap<u8, usize>> = HashMap::new();
    let mut by_size: Vec<(f64, u8)> = Vec::new();
    for h in heads {
        if let Some(n) = h.numbering {
            let l = numbered_level(n).min(6);
            *by_style
                .entry(style_key(h))
                .or_default()
                .entry(l)
                .or_default() += 1;
            by_size.push((h.size, l));
        }
    }
    let max_size = heads.iter().map(|h| h.size).fold(0.0f64, f64::max);
    let first_numbered = heads
        .iter()
        .position(|h| h.numbering.is_some())
        .unwrap_or(heads.len());
    let deepest = by_size.iter().map(|(_, l)| *l).max().unwrap_or(0);
    let mut out = Vec::with_capacity(heads.len());
    for (i, h) in heads.iter().enumerate() {
        if let Some(n) = h.numbering {
            out.push(numbered_level(n).min(6));
            continue;
        }
        // Unnumbered run-in headings are paragraph heads, below every numbered level.
        if h.run_in {
            out.push((deepest + 1).min(6));
            continue;
        }
        // The title: the largest heading of the first pages, before any numbered section.
        let title = i == 0
            && h.page <= 2
            && i < first_numbered
            && h.size >= max_size - 0.5
            && !heads[1..]
                .iter()
                .any(|o| (o.size - h.size).abs() < 0.5 && o.page > 2);
        if title {
            out.push(0);
            continue;
        }
        if let Some(ls) = by_style.get(&style_key(h)) {
            let best = ls.iter().max_by_key(|(l, n)| (**n, -i64::from(**l)));
            if let Some((l, _)) = best {
                out.push(*l);
                continue;
            }
        }
        // Of the numbered levels nearest in size, the deepest: an unnumbered head in a style
        // no numbered one has ranks no higher than the numbered heads of its size (REVTeX's
        // italic "Collaborations" beside bold "A." and italic "1." heads of one size).
        let dmin = by_size
            .iter()
            .map(|(s, _)| (s - h.size).abs())
            .fold(f64::INFINITY, f64::min);
        let nearest = by_size
            .iter()
            .filter(|(s, _)| (s - h.size).abs() <= dmin + 0.25)
            .map(|(_, l)| *l)
            .max();
        // Larger than every numbered heading: a top-level unnumbered section.
        let larger = by_size.iter().all(|(s, _)| h.size > s + 0.5);
        out.push(if larger { 1 } else { nearest.unwrap_or(1) });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fonts::FontStyle;

    fn style(chars: usize, bold: bool, italic: bool, smallcaps: bool, number: bool) -> RunStyle {
        RunStyle {
            chars,
            style: FontStyle {
                bold,
                italic,
                smallcaps,
                ..FontStyle::default()
            },
            number,
        }
    }

    #[test]
    fn styled_prefixes() {
        // "9.1. BOLD VERSIONS OF SYMBOLS. In the amsmath package": an upright number, a title
        // in small capitals, the full stop upright, then text.
        let amsart = [
            style(4, false, false, false, true),
            style(22, false, false, true, false),
            style(1, false, false, false, false),
            style(30, false, false, false, false),
        ];
        assert_eq!(emphasis_prefix(&amsart), 26);
        assert_eq!(bold_prefix(&amsart), 0);
        let (head, rest) = run_in_at(
            26,
            true,
            "9.1. Bold versions of symbols. In the amsmath package",
        )
        .unwrap();
        assert_eq!(head, "9.1. Bold versions of symbols");
        assert_eq!(rest, "In the amsmath package");
        // "IX.1. figure environment": bold, then a word in another font, then bold again: a
        // heading with code in it, not a run-in head.
        let mixed = [
            style(5, true, false, false, true),
            style(6, false, false, false, false),
            style(11, true, false, false, false),
        ];
        assert_eq!(bold_prefix(&mixed), 0);
        assert_eq!(emphasis_prefix(&mixed), 0);
        // A number alone is no title; a table-of-contents line is no run-in head.
        assert_eq!(run_in_at(5, false, "IX.2. video environment"), None);
        assert_eq!(
            run_in_at(11, false, "3 The workpackage environment 6"),
            None
        );
    }

    #[test]
    fn numberings() {
        assert_eq!(numbering("2 Event selection"), Some(Numbering::Arabic(1)));
        assert_eq!(numbering("2.1 Muons"), Some(Numbering::Arabic(2)));
        assert_eq!(
            numbering("3.3.2. Signature page"),
            Some(Numbering::Arabic(3))
        );
        assert_eq!(numbering("IV. RESULTS"), Some(Numbering::Roman));
        assert_eq!(
            numbering("A. Second-level heading"),
            Some(Numbering::Letter(1))
        );
        assert_eq!(numbering("A.1 Extra plots"), Some(Numbering::Letter(2)));
        assert_eq!(numbering("Chapter 3"), Some(Numbering::Chapter));
        assert_eq!(numbering("APPENDIX B: Proofs"), Some(Numbering::Chapter));
        assert_eq!(numbering("10 events were selected"), None);
        assert_eq!(numbering("2010 Results"), None);
        assert_eq!(numbering("A search for"), None);
        assert_eq!(numbering("I think so"), None);
        assert_eq!(numbering("A. Rossi, B. Chen and C. Okafor"), None);
        assert_eq!(numbering("V. G. Mitts, CAMD"), None);
        assert_eq!(
            numbering("IV. FLOATS: FIGURES, TABLES, ETC."),
            Some(Numbering::Roman)
        );
        assert_eq!(numbering("B ONLINE RESOURCES"), Some(Numbering::Letter(1)));
        assert_eq!(
            numbering("4.3.1 terminal output"),
            Some(Numbering::Arabic(3))
        );
        assert_eq!(numbering("2.5 times larger"), None);
        assert_eq!(numbering("Introduction"), None);
        assert!(has_leaders("2.1 Muons . . . . . . 7"));
        assert!(caps("I. FIRST-LEVEL HEADING"));
        assert!(!caps("I. First-level heading"));
    }

    fn h(page: u32, numbering: Option<Numbering>, size: f64, bold: bool) -> HeadingInfo {
        HeadingInfo {
            page,
            numbering,
            size,
            bold,
            caps: false,
            run_in: false,
        }
    }

    #[test]
    fn levels_follow_numbering_then_style() {
        let heads = [
            h(1, None, 17.0, true),                        // title
            h(1, None, 12.0, true),                        // Abstract, set like sections
            h(1, Some(Numbering::Arabic(1)), 12.0, true),  // 1 Introduction
            h(2, Some(Numbering::Arabic(2)), 10.0, true),  // 1.1 Muons
            h(3, None, 10.0, true),                        // unnumbered subsection
            h(4, Some(Numbering::Arabic(3)), 10.0, false), // 1.1.1
            h(9, None, 12.0, true),                        // References
        ];
        assert_eq!(levels(&heads), vec![0, 1, 1, 2, 2, 3, 1]);
        let revtex = [
            h(1, None, 12.0, true),
            h(1, Some(Numbering::Roman), 9.0, true),
            h(1, Some(Numbering::Letter(1)), 9.0, true),
            h(1, Some(Numbering::Arabic(1)), 9.0, false),
            // An unnumbered italic head in 8.5 pt, a style no numbered head has: the deepest
            // of the numbered levels nearest in size.
            h(2, None, 8.5, false),
        ];
        assert_eq!(levels(&revtex), vec![0, 1, 2, 3, 3]);
    }
}
