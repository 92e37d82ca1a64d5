//! Reading order: bands, gutter detection and column splits (XY-cut style) into ordered lines.

use super::segments::{OLine, Seg};

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

pub(super) struct Order<'a> {
    pub(super) segs: &'a [Seg],
    pub(super) min_gutter: f64,
    pub(super) lines: Vec<OLine>,
    pub(super) regions: usize,
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

    pub(super) fn cut(&mut self, idx: Vec<usize>, depth: usize) {
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
                .copied()
                .filter(|&k| self.segs[k].x1 <= lo + 0.5)
                .collect();
            let right: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&k| self.segs[k].x0 >= hi - 0.5)
                .collect();
            if left.is_empty() || right.is_empty() || left.len() + right.len() != members.len() {
                continue;
            }
            // Text columns on both sides: lines of ten characters or more. Counted per line, so
            // that the pieces of a display equation (sub- and superscripts, fraction parts)
            // read as the lines they belong to, not as many one-character cells.
            if median(self.line_chars(&left)) >= 10 && median(self.line_chars(&right)) >= 10 {
                return Some((lo, hi));
            }
        }
        None
    }

    /// Characters per baseline of some segments.
    fn line_chars(&self, idx: &[usize]) -> Vec<usize> {
        let mut per: Vec<(usize, usize)> = Vec::new();
        for &k in idx {
            let s = &self.segs[k];
            match per.iter_mut().find(|(l, _)| *l == s.line) {
                Some((_, n)) => *n += s.chars,
                None => per.push((s.line, s.chars)),
            }
        }
        per.into_iter().map(|(_, n)| n).collect()
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
                first_mark: segs[v[0]].first_mark,
                styles: v
                    .iter()
                    .flat_map(|&i| segs[i].styles.iter().copied())
                    .collect(),
                italic: {
                    let it: usize = v
                        .iter()
                        .filter(|&&i| segs[i].italic)
                        .map(|&i| segs[i].chars.max(1))
                        .sum();
                    it * 2 > total
                },
                segs: v,
                text,
                region,
                rx0,
                rx1,
            });
        }
    }
}
