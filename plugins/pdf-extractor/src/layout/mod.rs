//! Layout analysis: runs → lines → segments, page furniture by repetition, reading order by
//! gutter detection (XY-cut style), then paragraphs classified as headings, captions, tables,
//! footnotes, equations or body text.

mod classify;
mod furniture;
mod headings;
mod order;
mod segments;

use std::collections::HashMap;

use crate::content::Run;
use crate::Kind;
use classify::{blocks_of_page, PBlock, Stats};
use furniture::{drop_line_numbers, find_furniture, Band, PageSegs};
use headings::HeadingInfo;
use order::Order;
use segments::{segments, OLine, Seg};

pub use mitra_plugin_sdk::text::is_caption_start;

/// The text runs of one page.
#[derive(Clone, Debug)]
pub struct PageText {
    /// 1-based page number.
    pub page: u32,
    /// The page's runs (user space, y up).
    pub runs: Vec<Run>,
    /// The page box (x0, y0, x1, y1).
    pub bbox: [f64; 4],
}

/// A classified block of one page.
#[derive(Clone, Debug, PartialEq)]
pub struct LBlock {
    /// Its kind.
    pub kind: Kind,
    /// Its text.
    pub text: String,
    /// For headings: 0 for the document title, 1 for a top-level section, 2 for a
    /// subsection, ...
    pub level: Option<u8>,
}

/// Appends `next` to `cur` with a space, or joining a hyphenated word across lines.
pub fn join_line(cur: &mut String, next: &str) {
    if cur.is_empty() {
        cur.push_str(next);
        return;
    }
    let mut rev = cur.chars().rev();
    let hyphenated = rev.next() == Some('-')
        && rev.next().is_some_and(char::is_alphabetic)
        && next.chars().next().is_some_and(char::is_lowercase);
    if hyphenated {
        cur.pop();
    } else {
        cur.push(' ');
    }
    cur.push_str(next);
}

/// Lays out all text pages of a document (furniture needs every page) and returns the blocks
/// of each page in reading order.
pub fn layout(pages: &[PageText]) -> Vec<(u32, Vec<LBlock>)> {
    let mut ps: Vec<PageSegs> = pages
        .iter()
        .map(|p| PageSegs {
            page: p.page,
            bbox: p.bbox,
            segs: drop_line_numbers(segments(&p.runs)),
            furniture: HashMap::new(),
        })
        .collect();
    find_furniture(&mut ps);

    // Body font size, boldness and typeface: the dominant ones by characters.
    let mut sizes: HashMap<i64, usize> = HashMap::new();
    let mut bold_at: HashMap<i64, usize> = HashMap::new();
    let mut faces: HashMap<u32, usize> = HashMap::new();
    for p in &ps {
        for (i, s) in p.segs.iter().enumerate() {
            if p.furniture.contains_key(&i) {
                continue;
            }
            let k = (s.size * 2.0).round() as i64;
            *sizes.entry(k).or_default() += s.chars;
            if s.bold {
                *bold_at.entry(k).or_default() += s.chars;
            }
            for r in &s.styles {
                *faces.entry(r.style.face).or_default() += r.chars;
            }
        }
    }
    let (bk, bn) = sizes
        .iter()
        .max_by_key(|(k, n)| (**n, -**k))
        .map(|(k, n)| (*k, *n))
        .unwrap_or((20, 0));
    let body_size = (bk as f64 / 2.0).max(1.0);
    let body_bold = bold_at.get(&bk).copied().unwrap_or(0) * 2 > bn.max(1);
    let body_face = faces
        .iter()
        .max_by_key(|(f, n)| (**n, **f))
        .map(|(f, _)| *f)
        .unwrap_or(0);

    // Reading order per page.
    let mut ordered: Vec<Vec<OLine>> = Vec::new();
    for p in &ps {
        let idx: Vec<usize> = (0..p.segs.len())
            .filter(|i| !p.furniture.contains_key(i))
            .collect();
        let mut o = Order {
            segs: &p.segs,
            min_gutter: body_size.max(8.0),
            lines: Vec::new(),
            regions: 0,
        };
        o.cut(idx, 0);
        ordered.push(o.lines);
    }

    // Typical baseline pitch of body lines.
    let mut pitches: HashMap<i64, usize> = HashMap::new();
    for lines in &ordered {
        for w in lines.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if a.region != b.region
                || (a.size - body_size).abs() > 0.5
                || (b.size - body_size).abs() > 0.5
            {
                continue;
            }
            let dy = a.y - b.y;
            if dy > 0.8 * body_size && dy < 2.5 * body_size {
                *pitches.entry((dy * 4.0).round() as i64).or_default() += 1;
            }
        }
    }
    let pitch = pitches
        .iter()
        .max_by_key(|(k, n)| (**n, -**k))
        .map(|(k, _)| *k as f64 / 4.0)
        .unwrap_or(1.2 * body_size);
    let stats = Stats {
        body_size,
        body_bold,
        body_face,
        pitch,
    };

    let furniture_block = |f: &(&Seg, Kind, Band)| PBlock {
        kind: f.1,
        text: f.0.text.clone(),
        size: f.0.size,
        bold: f.0.bold,
        numbering: None,
        run_in: false,
        region: usize::MAX,
        top: f.0.y,
        marker: false,
    };
    let mut result: Vec<(u32, Vec<PBlock>)> = Vec::new();
    for (p, lines) in ps.iter().zip(&ordered) {
        let mut furn: Vec<(&Seg, Kind, Band)> = p
            .furniture
            .iter()
            .map(|(i, (k, b))| (&p.segs[*i], *k, *b))
            .collect();
        furn.sort_by(|a, b| b.0.y.total_cmp(&a.0.y).then(a.0.x0.total_cmp(&b.0.x0)));
        let mut blocks: Vec<PBlock> = furn
            .iter()
            .filter(|f| f.2 == Band::Top)
            .map(furniture_block)
            .collect();
        blocks.extend(blocks_of_page(lines, &p.segs, &stats, &p.bbox));
        blocks.extend(
            furn.iter()
                .filter(|f| f.2 == Band::Bottom)
                .map(furniture_block),
        );
        result.push((p.page, blocks));
    }
    // Heading levels need every heading of the document.
    let heads: Vec<HeadingInfo> = result
        .iter()
        .flat_map(|(page, bs)| {
            bs.iter()
                .filter(|b| b.kind == Kind::Heading)
                .map(|b| HeadingInfo {
                    page: *page,
                    numbering: b.numbering,
                    size: b.size,
                    bold: b.bold,
                    caps: headings::caps(&b.text),
                    run_in: b.run_in,
                })
        })
        .collect();
    let mut levels = headings::levels(&heads).into_iter();
    result
        .into_iter()
        .map(|(page, bs)| {
            let blocks = bs
                .into_iter()
                .map(|b| LBlock {
                    level: if b.kind == Kind::Heading {
                        levels.next()
                    } else {
                        None
                    },
                    kind: b.kind,
                    text: b.text,
                })
                .collect();
            (page, blocks)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::classify::eq_number;
    use super::furniture::page_number;
    use super::*;

    #[test]
    fn captions_and_numbers() {
        assert!(is_caption_start("Figure 1: The mass"));
        assert!(is_caption_start("Fig. 12. The mass"));
        assert!(is_caption_start("Table A1: Yields"));
        assert!(is_caption_start("Figure 2a. Left"));
        assert!(!is_caption_start("Figure 1 shows the mass"));
        assert!(!is_caption_start("Tables are nice."));
        assert_eq!(page_number("Page 3 of 10"), Some(3));
        assert_eq!(page_number("- 4 -"), Some(4));
        assert_eq!(page_number("17"), Some(17));
        assert_eq!(page_number("3/9"), Some(3));
        assert_eq!(page_number("2026 results"), None);
        assert!(eq_number("(12)"));
        assert!(eq_number("(3a)"));
        assert!(!eq_number("(see)"));
    }

    #[test]
    fn hyphen_join() {
        let mut s = String::from("recon-");
        join_line(&mut s, "struction works");
        assert_eq!(s, "reconstruction works");
        let mut s = String::from("W+jets -");
        join_line(&mut s, "control");
        assert_eq!(s, "W+jets - control");
    }
}
