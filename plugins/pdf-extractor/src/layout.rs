//! Layout analysis: runs → lines → segments, page furniture by repetition, reading order by
//! gutter detection (XY-cut style), then paragraphs classified as headings, captions, tables,
//! footnotes, equations or body text.

use std::collections::{HashMap, HashSet};

use crate::content::Run;
use crate::Kind;

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
}

/// A horizontal piece of one baseline, separated from its neighbours by wide gaps.
#[derive(Clone, Debug)]
struct Seg {
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    bold: bool,
    text: String,
    line: usize,
    first_small: bool,
    chars: usize,
}

impl Seg {
    fn top(&self) -> f64 {
        self.y + 0.7 * self.size
    }
    fn bottom(&self) -> f64 {
        self.y - 0.15 * self.size
    }
}

/// A line in reading order: segments of one baseline inside one region.
#[derive(Clone, Debug)]
struct OLine {
    segs: Vec<usize>,
    text: String,
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    bold: bool,
    first_small: bool,
    region: usize,
    rx0: f64,
    rx1: f64,
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

fn count_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

/// Groups runs by baseline and splits each baseline at wide gaps.
fn segments(runs: &[Run]) -> Vec<Seg> {
    let mut idx: Vec<usize> = (0..runs.len()).collect();
    idx.sort_by(|&a, &b| {
        runs[b]
            .y
            .total_cmp(&runs[a].y)
            .then(runs[a].x0.total_cmp(&runs[b].x0))
    });
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    let (mut ref_y, mut ref_size) = (f64::NAN, 0.0f64);
    for i in idx {
        let r = &runs[i];
        let joins = !clusters.is_empty() && (ref_y - r.y) <= 0.5 * ref_size.max(r.size);
        if joins {
            if let Some(c) = clusters.last_mut() {
                c.push(i);
            }
            if r.size > ref_size {
                ref_y = r.y;
                ref_size = r.size;
            }
        } else {
            clusters.push(vec![i]);
            ref_y = r.y;
            ref_size = r.size;
        }
    }
    let mut segs = Vec::new();
    for (line, mut c) in clusters.into_iter().enumerate() {
        c.sort_by(|&a, &b| runs[a].x0.total_cmp(&runs[b].x0));
        let dom = c.iter().map(|&i| runs[i].size).fold(0.0f64, f64::max);
        let mut cur: Vec<usize> = Vec::new();
        let mut last_x1 = f64::NEG_INFINITY;
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for &i in &c {
            let r = &runs[i];
            if let Some(&p) = cur.last() {
                let prev = &runs[p];
                // Overprinted duplicates (fake bold) are dropped.
                if prev.text == r.text && (prev.x0 - r.x0).abs() < 1.0 {
                    continue;
                }
                if r.x0 - last_x1 > 0.9 * dom {
                    groups.push(std::mem::take(&mut cur));
                }
            }
            last_x1 = if cur.is_empty() {
                r.x1
            } else {
                last_x1.max(r.x1)
            };
            cur.push(i);
        }
        if !cur.is_empty() {
            groups.push(cur);
        }
        for g in groups {
            segs.push(make_seg(runs, &g, line));
        }
    }
    segs
}

fn make_seg(runs: &[Run], g: &[usize], line: usize) -> Seg {
    let mut text = String::new();
    let mut prev_x1 = f64::NEG_INFINITY;
    let mut size_w: HashMap<i64, usize> = HashMap::new();
    let (mut bold_chars, mut total) = (0usize, 0usize);
    let mut y = runs[g[0]].y;
    let mut best = 0usize;
    for &i in g {
        let r = &runs[i];
        let gap = r.x0 - prev_x1;
        if !text.is_empty()
            && gap > 0.17 * r.size
            && !text.ends_with(' ')
            && !r.text.starts_with(' ')
        {
            text.push(' ');
        }
        text.push_str(&r.text);
        prev_x1 = prev_x1.max(r.x1);
        let n = count_chars(&r.text);
        *size_w.entry((r.size * 10.0).round() as i64).or_default() += n;
        total += n;
        if r.bold {
            bold_chars += n;
        }
        if n > best {
            best = n;
            y = r.y;
        }
    }
    let size = size_w
        .iter()
        .max_by_key(|(s, n)| (**n, **s))
        .map(|(s, _)| *s as f64 / 10.0)
        .unwrap_or(runs[g[0]].size);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Seg {
        x0: g.iter().map(|&i| runs[i].x0).fold(f64::INFINITY, f64::min),
        x1: g
            .iter()
            .map(|&i| runs[i].x1)
            .fold(f64::NEG_INFINITY, f64::max),
        y,
        size,
        bold: bold_chars * 2 > total,
        first_small: runs[g[0]].size < 0.8 * size,
        chars: count_chars(&text),
        text,
        line,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Band {
    Top,
    Bottom,
}

/// Parses page-number forms: "7", "Page 7", "7 of 12", "7/12", "- 7 -", "[7]".
fn page_number(text: &str) -> Option<i64> {
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

struct PageSegs {
    page: u32,
    bbox: [f64; 4],
    segs: Vec<Seg>,
    furniture: HashMap<usize, (Kind, Band)>,
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

fn find_furniture(pages: &mut [PageSegs]) {
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

/// Uncovered x-intervals of `[x0, x1]` at least `min` wide.
fn gaps_of(segs: &[Seg], band: &[usize], x0: f64, x1: f64, min: f64) -> Vec<(f64, f64)> {
    let mut iv: Vec<(f64, f64)> = band.iter().map(|&i| (segs[i].x0, segs[i].x1)).collect();
    iv.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Vec::new();
    let mut cur = x0;
    for (a, b) in iv {
        if a - cur >= min {
            out.push((cur, a));
        }
        cur = cur.max(b);
    }
    if x1 - cur >= min {
        out.push((cur, x1));
    }
    out
}

fn intersect(a: &[(f64, f64)], b: &[(f64, f64)], min: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for &(a0, a1) in a {
        for &(b0, b1) in b {
            let (lo, hi) = (a0.max(b0), a1.min(b1));
            if hi - lo >= min {
                out.push((lo, hi));
            }
        }
    }
    out
}

fn median(mut v: Vec<usize>) -> usize {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[v.len() / 2]
}

struct Order<'a> {
    segs: &'a [Seg],
    min_gutter: f64,
    lines: Vec<OLine>,
    regions: usize,
}

impl Order<'_> {
    fn bands(&self, idx: &[usize]) -> Vec<Vec<usize>> {
        let mut v = idx.to_vec();
        v.sort_by(|&a, &b| self.segs[b].top().total_cmp(&self.segs[a].top()));
        let mut bands: Vec<Vec<usize>> = Vec::new();
        let mut bottom = f64::INFINITY;
        for i in v {
            let s = &self.segs[i];
            match bands.last_mut() {
                Some(b) if s.top() > bottom => {
                    b.push(i);
                    bottom = bottom.min(s.bottom());
                }
                _ => {
                    bands.push(vec![i]);
                    bottom = s.bottom();
                }
            }
        }
        bands
    }

    /// A band that looks like a table row: several short cells.
    fn row_like(&self, band: &[usize]) -> bool {
        let n = band.len();
        let short = |lim: usize| band.iter().all(|&i| self.segs[i].chars <= lim);
        (n >= 3 && short(24)) || (n == 2 && short(12))
    }

    fn cut(&mut self, idx: Vec<usize>, depth: usize) {
        if idx.is_empty() {
            return;
        }
        let region = self.regions;
        self.regions += 1;
        let x0 = idx
            .iter()
            .map(|&i| self.segs[i].x0)
            .fold(f64::INFINITY, f64::min);
        let x1 = idx
            .iter()
            .map(|&i| self.segs[i].x1)
            .fold(f64::NEG_INFINITY, f64::max);
        let bands = self.bands(&idx);
        let n = bands.len();
        let gaps: Vec<Vec<(f64, f64)>> = bands
            .iter()
            .map(|b| gaps_of(self.segs, b, x0, x1, self.min_gutter))
            .collect();
        let rows: Vec<bool> = bands.iter().map(|b| self.row_like(b)).collect();
        let table_at = |i: usize| rows[i] && i + 1 < n && rows[i + 1];
        let mut i = 0;
        while i < n {
            if table_at(i) {
                let mut j = i;
                while j < n && rows[j] {
                    j += 1;
                }
                for b in &bands[i..j] {
                    self.emit(b, region, x0, x1);
                }
                i = j;
                continue;
            }
            let mut g = gaps[i].clone();
            let mut j = i + 1;
            while j < n && !table_at(j) {
                let inter = intersect(&g, &gaps[j], self.min_gutter);
                if inter.is_empty() {
                    break;
                }
                g = inter;
                j += 1;
            }
            let members: Vec<usize> = bands[i..j].concat();
            if depth < 12 && n <= 2000 {
                if let Some((lo, hi)) = self.best_split(&members, &g) {
                    let (left, right): (Vec<usize>, Vec<usize>) =
                        members.iter().partition(|&&k| self.segs[k].x1 <= lo + 0.5);
                    let _ = hi;
                    self.cut(left, depth + 1);
                    self.cut(right, depth + 1);
                    i = j;
                    continue;
                }
            }
            // No column split here: this band is read as is; the next one may start columns.
            self.emit(&bands[i], region, x0, x1);
            i += 1;
        }
    }

    /// The widest gap with text columns (long lines) on both sides.
    fn best_split(&self, members: &[usize], gaps: &[(f64, f64)]) -> Option<(f64, f64)> {
        let mut gs = gaps.to_vec();
        gs.sort_by(|a, b| (b.1 - b.0).total_cmp(&(a.1 - a.0)));
        for (lo, hi) in gs {
            let left: Vec<usize> = members
                .iter()
                .filter(|&&k| self.segs[k].x1 <= lo + 0.5)
                .map(|&k| self.segs[k].chars)
                .collect();
            let right: Vec<usize> = members
                .iter()
                .filter(|&&k| self.segs[k].x0 >= hi - 0.5)
                .map(|&k| self.segs[k].chars)
                .collect();
            if left.is_empty() || right.is_empty() || left.len() + right.len() != members.len() {
                continue;
            }
            if median(left) >= 10 && median(right) >= 10 {
                return Some((lo, hi));
            }
        }
        None
    }

    fn emit(&mut self, band: &[usize], region: usize, rx0: f64, rx1: f64) {
        let mut by_line: Vec<(usize, Vec<usize>)> = Vec::new();
        for &i in band {
            let l = self.segs[i].line;
            match by_line.iter_mut().find(|(k, _)| *k == l) {
                Some((_, v)) => v.push(i),
                None => by_line.push((l, vec![i])),
            }
        }
        by_line.sort_by_key(|(l, _)| *l);
        for (_, mut v) in by_line {
            v.sort_by(|&a, &b| self.segs[a].x0.total_cmp(&self.segs[b].x0));
            let segs = self.segs;
            let total: usize = v.iter().map(|&i| segs[i].chars.max(1)).sum();
            let size = v
                .iter()
                .map(|&i| segs[i].size * segs[i].chars.max(1) as f64)
                .sum::<f64>()
                / total as f64;
            let bold_chars: usize = v
                .iter()
                .filter(|&&i| segs[i].bold)
                .map(|&i| segs[i].chars.max(1))
                .sum();
            let text = v
                .iter()
                .map(|&i| segs[i].text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            self.lines.push(OLine {
                x0: segs[v[0]].x0,
                x1: v
                    .iter()
                    .map(|&i| segs[i].x1)
                    .fold(f64::NEG_INFINITY, f64::max),
                y: v.iter()
                    .map(|&i| segs[i].y)
                    .fold(f64::NEG_INFINITY, f64::max),
                size,
                bold: bold_chars * 2 > total,
                first_small: segs[v[0]].first_small,
                segs: v,
                text,
                region,
                rx0,
                rx1,
            });
        }
    }
}

/// Whether `t` starts like a caption: "Figure 3:", "Fig. 2.", "Table 1:", "Tab. 4.".
pub fn is_caption_start(t: &str) -> bool {
    let t = t.trim_start();
    for p in [
        "Figure", "FIGURE", "Fig.", "FIG.", "Fig", "Table", "TABLE", "Tab.",
    ] {
        let Some(rest) = t.strip_prefix(p) else {
            continue;
        };
        let rest = rest.trim_start();
        let mut chars = rest.chars().peekable();
        if chars.peek().is_some_and(|c| c.is_ascii_uppercase()) {
            chars.next(); // appendix tables: "Table A1:"
        }
        let mut digits = 0;
        while chars
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || *c == '.')
        {
            if chars.peek().is_some_and(char::is_ascii_digit) {
                digits += 1;
            }
            let c = chars.next();
            if c == Some('.') && !chars.peek().is_some_and(char::is_ascii_digit) {
                // "Fig. 2." — the dot ends the number.
                return digits > 0;
            }
        }
        if digits == 0 {
            continue;
        }
        if chars.peek().is_some_and(|c| c.is_ascii_lowercase()) {
            chars.next(); // "Figure 2a:"
        }
        if matches!(chars.next(), Some(':') | Some('.')) {
            return true;
        }
    }
    false
}

fn eq_number(t: &str) -> bool {
    let t = t.trim();
    let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
        return false;
    };
    let inner = inner.trim();
    let digits = inner.chars().take_while(char::is_ascii_digit).count();
    digits > 0
        && digits <= 4
        && inner[digits..]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '.' || c.is_ascii_digit())
        && inner.len() - digits <= 2
}

const MATH: &[char] = &[
    '=', '<', '>', '≤', '≥', '≈', '∑', '∫', '√', '±', '×', '^', '_', '∝', '→', '≡', '∂', '∈',
];

fn is_equation(l: &OLine, segs: &[Seg]) -> bool {
    if is_caption_start(&l.text) {
        return false;
    }
    let (main, numbered): (&[usize], bool) = match l.segs.split_last() {
        Some((last, rest)) if !rest.is_empty() && eq_number(&segs[*last].text) => (rest, true),
        _ => (&l.segs[..], false),
    };
    let text: String = main
        .iter()
        .map(|&i| segs[i].text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let (mut text_main, mut numbered) = (text.as_str(), numbered);
    if !numbered {
        // "(3)" at the end of the same segment.
        if let Some(p) = text.rfind(" (") {
            if eq_number(&text[p + 1..]) {
                text_main = text[..p].trim_end();
                numbered = true;
            }
        }
    }
    let mx0 = main
        .iter()
        .map(|&i| segs[i].x0)
        .fold(f64::INFINITY, f64::min);
    let mx1 = main
        .iter()
        .map(|&i| segs[i].x1)
        .fold(f64::NEG_INFINITY, f64::max);
    let rw = (l.rx1 - l.rx0).max(1.0);
    let centered = ((mx0 + mx1) / 2.0 - (l.rx0 + l.rx1) / 2.0).abs() <= 0.12 * rw
        && (mx1 - mx0) <= 0.8 * rw
        && mx0 > l.rx0 + 0.05 * rw;
    let math = text_main.contains(MATH) || text_main.contains("sqrt");
    let prose_words = text_main
        .split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
        .count();
    if prose_words >= 8 || text_main.is_empty() {
        return false;
    }
    (numbered && (math || centered))
        || (centered && math && !text_main.ends_with('.') && text_main.chars().count() <= 120)
}

struct PBlock {
    kind: Kind,
    text: String,
    size: f64,
    region: usize,
    top: f64,
    marker: bool,
}

fn starts_with_marker(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || "*†‡§¶#∗⋆".contains(c))
}

struct Stats {
    body_size: f64,
    body_bold: bool,
    pitch: f64,
}

fn blocks_of_page(lines: &[OLine], segs: &[Seg], st: &Stats, bbox: &[f64; 4]) -> Vec<LBlock> {
    let mut out: Vec<PBlock> = Vec::new();
    let n = lines.len();
    let eq: Vec<bool> = lines.iter().map(|l| is_equation(l, segs)).collect();
    let multi = |i: usize| lines[i].segs.len() >= 2 && !eq[i];
    let close = |a: &OLine, b: &OLine, f: f64| {
        let dy = a.y - b.y;
        dy > 0.0 && dy <= st.pitch * (a.size.max(b.size) / st.body_size) * f + 0.5
    };
    let table_at =
        |i: usize| multi(i) && i + 1 < n && multi(i + 1) && close(&lines[i], &lines[i + 1], 2.5);
    let mut i = 0;
    while i < n {
        let l = &lines[i];
        if eq[i] {
            let mut text = String::new();
            for &s in &l.segs {
                join_line(&mut text, &segs[s].text);
            }
            out.push(PBlock {
                kind: Kind::Equation,
                text,
                size: l.size,
                region: l.region,
                top: l.y,
                marker: false,
            });
            i += 1;
            continue;
        }
        if table_at(i) {
            let mut j = i + 1;
            while j < n && multi(j) && close(&lines[j - 1], &lines[j], 2.5) {
                j += 1;
            }
            let rows: Vec<String> = lines[i..j]
                .iter()
                .map(|r| {
                    r.segs
                        .iter()
                        .map(|&s| segs[s].text.as_str())
                        .collect::<Vec<_>>()
                        .join("\t")
                })
                .collect();
            out.push(PBlock {
                kind: Kind::Table,
                text: rows.join("\n"),
                size: l.size,
                region: l.region,
                top: l.y,
                marker: false,
            });
            i = j;
            continue;
        }
        let mut j = i + 1;
        while j < n && !eq[j] && !table_at(j) {
            let (p, c) = (&lines[j - 1], &lines[j]);
            let same_style =
                (p.size - c.size).abs() <= 0.08 * p.size.max(c.size) && p.bold == c.bold;
            let overlap = c.x0 < p.x1 && c.x1 > p.x0;
            let indented = c.x0 > p.x0 + 0.8 * c.size
                && c.x0 > c.rx0 + 0.8 * c.size
                && p.x0 <= p.rx0 + 0.5 * p.size;
            if !(same_style && overlap && close(p, c, 1.3)) || indented || is_caption_start(&c.text)
            {
                break;
            }
            j += 1;
        }
        let mut text = String::new();
        let mut chars = 0usize;
        let mut weighted = 0.0;
        let mut bold_chars = 0usize;
        for line in &lines[i..j] {
            join_line(&mut text, &line.text);
            let c = count_chars(&line.text).max(1);
            chars += c;
            weighted += line.size * c as f64;
            if line.bold {
                bold_chars += c;
            }
        }
        let size = weighted / chars as f64;
        let bold = bold_chars * 2 > chars;
        let kind = if is_caption_start(&text) {
            Kind::Caption
        } else if j - i <= 3
            && text.chars().count() <= 150
            && (size >= 1.15 * st.body_size
                || (bold && !st.body_bold && size >= 0.95 * st.body_size))
        {
            Kind::Heading
        } else {
            Kind::Body
        };
        out.push(PBlock {
            kind,
            marker: l.first_small || starts_with_marker(&text),
            text,
            size,
            region: l.region,
            top: l.y,
        });
        i = j;
    }
    // Footnotes: small text with a marker low on the page, nothing body-sized below it in its
    // region.
    let h = bbox[3] - bbox[1];
    for k in 0..out.len() {
        let b = &out[k];
        if b.kind != Kind::Body
            || !b.marker
            || b.size > 0.9 * st.body_size
            || b.top > bbox[1] + 0.4 * h
        {
            continue;
        }
        let region = b.region;
        let below_body = out[k + 1..]
            .iter()
            .any(|o| o.region == region && o.size >= 0.95 * st.body_size);
        if !below_body {
            out[k].kind = Kind::Footnote;
            // Continuation lines of the same footnote area that lost their marker.
            for o in out[k + 1..].iter_mut() {
                if o.region == region && o.kind == Kind::Body && o.size <= 0.9 * st.body_size {
                    o.kind = Kind::Footnote;
                }
            }
        }
    }
    out.into_iter()
        .map(|b| LBlock {
            kind: b.kind,
            text: b.text,
        })
        .collect()
}

/// Lays out all text pages of a document (furniture needs every page) and returns the blocks
/// of each page in reading order.
pub fn layout(pages: &[PageText]) -> Vec<(u32, Vec<LBlock>)> {
    let mut ps: Vec<PageSegs> = pages
        .iter()
        .map(|p| PageSegs {
            page: p.page,
            bbox: p.bbox,
            segs: segments(&p.runs),
            furniture: HashMap::new(),
        })
        .collect();
    find_furniture(&mut ps);

    // Body font size and boldness: the dominant size by characters.
    let mut sizes: HashMap<i64, usize> = HashMap::new();
    let mut bold_at: HashMap<i64, usize> = HashMap::new();
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
        }
    }
    let (bk, bn) = sizes
        .iter()
        .max_by_key(|(k, n)| (**n, -**k))
        .map(|(k, n)| (*k, *n))
        .unwrap_or((20, 0));
    let body_size = (bk as f64 / 2.0).max(1.0);
    let body_bold = bold_at.get(&bk).copied().unwrap_or(0) * 2 > bn.max(1);

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
        pitch,
    };

    let mut result = Vec::new();
    for (p, lines) in ps.iter().zip(&ordered) {
        let mut furn: Vec<(&Seg, Kind, Band)> = p
            .furniture
            .iter()
            .map(|(i, (k, b))| (&p.segs[*i], *k, *b))
            .collect();
        furn.sort_by(|a, b| b.0.y.total_cmp(&a.0.y).then(a.0.x0.total_cmp(&b.0.x0)));
        let mut blocks: Vec<LBlock> = furn
            .iter()
            .filter(|f| f.2 == Band::Top)
            .map(|f| LBlock {
                kind: f.1,
                text: f.0.text.clone(),
            })
            .collect();
        blocks.extend(blocks_of_page(lines, &p.segs, &stats, &p.bbox));
        blocks.extend(furn.iter().filter(|f| f.2 == Band::Bottom).map(|f| LBlock {
            kind: f.1,
            text: f.0.text.clone(),
        }));
        result.push((p.page, blocks));
    }
    result
}

#[cfg(test)]
mod tests {
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
