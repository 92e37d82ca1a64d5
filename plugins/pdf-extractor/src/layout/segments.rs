//! Baseline segments: runs grouped by baseline and split at wide gaps, and reading-order lines.

use std::collections::HashMap;

use crate::content::Run;

/// A horizontal piece of one baseline, separated from its neighbours by wide gaps.
#[derive(Clone, Debug)]
pub(super) struct Seg {
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) y: f64,
    pub(super) size: f64,
    pub(super) bold: bool,
    pub(super) text: String,
    pub(super) line: usize,
    pub(super) first_small: bool,
    pub(super) chars: usize,
}

impl Seg {
    pub(super) fn top(&self) -> f64 {
        self.y + 0.7 * self.size
    }
    pub(super) fn bottom(&self) -> f64 {
        self.y - 0.15 * self.size
    }
}

/// A line in reading order: segments of one baseline inside one region.
#[derive(Clone, Debug)]
pub(super) struct OLine {
    pub(super) segs: Vec<usize>,
    pub(super) text: String,
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) y: f64,
    pub(super) size: f64,
    pub(super) bold: bool,
    pub(super) first_small: bool,
    pub(super) region: usize,
    pub(super) rx0: f64,
    pub(super) rx1: f64,
}

pub(super) fn count_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

/// Groups runs by baseline and splits each baseline at wide gaps.
pub(super) fn segments(runs: &[Run]) -> Vec<Seg> {
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
