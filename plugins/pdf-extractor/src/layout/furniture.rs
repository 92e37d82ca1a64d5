//! Page furniture: page numbers, running headers and footers found by repetition across pages.

use std::collections::{HashMap, HashSet};

use super::segments::Seg;
use crate::Kind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Band {
    Top,
    Bottom,
}

/// Parses page-number forms: "7", "Page 7", "7 of 12", "7/12", "- 7 -", "[7]".
pub(super) fn page_number(text: &str) -> Option<i64> {
    let t = text.trim().to_lowercase();
    let t = t.strip_prefix("page").unwrap_or(&t).trim();
    let t = t.trim_matches(|c: char| matches!(c, '-' | '–' | '—' | '[' | ']' | ' '));
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 5 {
        return None;
    }
    let rest = t[digits.len()..].trim();
    let tail_ok = rest.is_empty()
        || rest
            .strip_prefix("of")
            .or_else(|| rest.strip_prefix('/'))
            .map(str::trim)
            .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()));
    if !tail_ok {
        return None;
    }
    digits.parse().ok()
}

fn normalize(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .filter(|c| !c.is_whitespace())
        .collect()
}

pub(super) struct PageSegs {
    pub(super) page: u32,
    pub(super) bbox: [f64; 4],
    pub(super) segs: Vec<Seg>,
    pub(super) furniture: HashMap<usize, (Kind, Band)>,
}

fn band_of(s: &Seg, bbox: &[f64; 4]) -> Option<Band> {
    let h = bbox[3] - bbox[1];
    if s.y >= bbox[3] - 0.1 * h {
        Some(Band::Top)
    } else if s.y <= bbox[1] + 0.1 * h {
        Some(Band::Bottom)
    } else {
        None
    }
}

pub(super) fn find_furniture(pages: &mut [PageSegs]) {
    let multi = pages.len() >= 2;
    // Running headers and footers are not set larger than the text (that is a heading).
    let mut sizes: HashMap<i64, usize> = HashMap::new();
    for p in pages.iter() {
        for s in &p.segs {
            *sizes.entry((s.size * 2.0).round() as i64).or_default() += s.chars;
        }
    }
    let common = sizes
        .iter()
        .max_by_key(|(k, n)| (**n, -**k))
        .map(|(k, _)| *k as f64 / 2.0)
        .unwrap_or(10.0);
    let small_enough = |s: &Seg| s.size <= 1.1 * common && !(s.bold && s.size > common);
    // Page numbers: number-like lines in a margin band that increase with the page.
    let mut cands: Vec<(usize, usize, i64, Band)> = Vec::new();
    for (pi, p) in pages.iter().enumerate() {
        for (si, s) in p.segs.iter().enumerate() {
            if let (Some(b), Some(n)) = (band_of(s, &p.bbox), page_number(&s.text)) {
                cands.push((pi, si, n, b));
            }
        }
    }
    for c in &cands {
        let confirmed = if multi {
            cands.iter().any(|d| {
                d.0 != c.0
                    && d.3 == c.3
                    && d.2 - c.2 == i64::from(pages[d.0].page) - i64::from(pages[c.0].page)
            })
        } else {
            true
        };
        if confirmed {
            pages[c.0].furniture.insert(c.1, (Kind::PageNumber, c.3));
        }
    }
    if !multi {
        return;
    }
    // Headers and footers: margin lines repeated (digits ignored) on at least two pages.
    let mut seen: HashMap<(Band, String), HashSet<usize>> = HashMap::new();
    for (pi, p) in pages.iter().enumerate() {
        for (si, s) in p.segs.iter().enumerate() {
            if p.furniture.contains_key(&si) || !small_enough(s) {
                continue;
            }
            if let Some(b) = band_of(s, &p.bbox) {
                seen.entry((b, normalize(&s.text))).or_default().insert(pi);
            }
        }
    }
    for p in pages.iter_mut() {
        for (si, s) in p.segs.iter().enumerate() {
            if p.furniture.contains_key(&si) || !small_enough(s) {
                continue;
            }
            if let Some(b) = band_of(s, &p.bbox) {
                if seen
                    .get(&(b, normalize(&s.text)))
                    .is_some_and(|set| set.len() >= 2)
                {
                    let kind = if b == Band::Top {
                        Kind::Header
                    } else {
                        Kind::Footer
                    };
                    p.furniture.insert(si, (kind, b));
                }
            }
        }
    }
}

/// Removes the line numbers of line-numbered manuscripts (lineno, ACM `review`, AASTeX): bare
/// integers stacked in one column (shared left or right edge), counting up down the page: ten
/// or more anywhere, three or more in a margin outside every other text of the page.
pub(super) fn drop_line_numbers(segs: Vec<Seg>) -> Vec<Seg> {
    let cands: Vec<(usize, i64)> = segs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let t = s.text.trim();
            (t.len() <= 4 && !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()))
                .then(|| t.parse().ok().map(|n| (i, n)))
                .flatten()
        })
        .collect();
    if cands.len() < 3 {
        return segs;
    }
    let is_cand: HashSet<usize> = cands.iter().map(|c| c.0).collect();
    let others = || {
        segs.iter()
            .enumerate()
            .filter(|(i, _)| !is_cand.contains(i))
            .map(|(_, s)| s)
    };
    let text_x0 = others().map(|s| s.x0).fold(f64::INFINITY, f64::min);
    let text_x1 = others().map(|s| s.x1).fold(f64::NEG_INFINITY, f64::max);
    let mut drop = HashSet::new();
    for edge in [0, 1] {
        let mut cols: HashMap<i64, Vec<(usize, i64)>> = HashMap::new();
        for &(i, n) in &cands {
            let x = if edge == 0 { segs[i].x0 } else { segs[i].x1 };
            cols.entry((x / 3.0).round() as i64)
                .or_default()
                .push((i, n));
        }
        let keys: Vec<i64> = cols.keys().copied().collect();
        for k in keys {
            // Neighbouring buckets hold the same column.
            let mut col: Vec<(usize, i64)> = Vec::new();
            for d in [-1, 0, 1] {
                col.extend(cols.get(&(k + d)).into_iter().flatten().copied());
            }
            col.sort_unstable();
            col.dedup();
            let col_x0 = col
                .iter()
                .map(|c| segs[c.0].x0)
                .fold(f64::INFINITY, f64::min);
            let col_x1 = col
                .iter()
                .map(|c| segs[c.0].x1)
                .fold(f64::NEG_INFINITY, f64::max);
            let margin = col_x1 <= text_x0 + 1.0 || col_x0 >= text_x1 - 1.0;
            // A long column of counting numbers is line numbering wherever it stands (in the
            // gutter of a two-column page too); a short one only in a margin.
            if col.len() < 10 && !(margin && col.len() >= 3) {
                continue;
            }
            col.sort_by(|a, b| segs[b.0].y.total_cmp(&segs[a.0].y));
            let steps = col.windows(2).filter(|w| w[1].1 > w[0].1).count();
            let ones = col.windows(2).filter(|w| w[1].1 - w[0].1 == 1).count();
            let pairs = col.len() - 1;
            if steps * 10 >= pairs * 9 && ones * 10 >= pairs * 6 {
                drop.extend(col.iter().map(|c| c.0));
            }
        }
    }
    if drop.is_empty() {
        return segs;
    }
    segs.into_iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, s)| s)
        .collect()
}
