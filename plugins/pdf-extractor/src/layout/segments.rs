//! Baseline segments: runs grouped by baseline and split at wide gaps, and reading-order lines.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

use crate::content::Run;
use crate::fonts::FontStyle;

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
    /// The first run is small and raised above the baseline: a footnote or affiliation mark.
    pub(super) first_mark: bool,
    pub(super) chars: usize,
    /// The styles of the segment's runs in order, for run-in headings (see
    /// [`super::headings::run_in`]).
    pub(super) styles: Vec<RunStyle>,
    /// Most characters italic.
    pub(super) italic: bool,
}

impl Seg {
    pub(super) fn top(&self) -> f64 {
        self.y + 0.7 * self.size
    }
    pub(super) fn bottom(&self) -> f64 {
        self.y - 0.15 * self.size
    }
}

/// One text run as heading, code and run-in detection read it: its font style and length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct RunStyle {
    /// Non-space characters.
    pub(super) chars: usize,
    pub(super) style: FontStyle,
    /// A short run of digits, capitals and full stops ("9.2.", "IV.", "A"): a section number.
    pub(super) number: bool,
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
    /// The first run is small and raised above the baseline: a footnote or affiliation mark.
    pub(super) first_mark: bool,
    /// The styles of the line's runs in order (its segments' [`Seg::styles`]).
    pub(super) styles: Vec<RunStyle>,
    /// Most characters italic.
    pub(super) italic: bool,
    pub(super) region: usize,
    pub(super) rx0: f64,
    pub(super) rx1: f64,
}

pub(super) fn count_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

/// Runs sharing one baseline.
struct Baseline {
    /// Baseline of its largest text.
    y: f64,
    /// Size of its largest text.
    size: f64,
    x0: f64,
    x1: f64,
    runs: Vec<usize>,
}

impl Baseline {
    fn near(&self, r: &Run, ems: f64) -> bool {
        let pad = ems * r.size.max(self.size);
        r.x0 <= self.x1 + pad && r.x1 >= self.x0 - pad
    }

    fn add(&mut self, i: usize, r: &Run) {
        self.runs.push(i);
        self.x0 = self.x0.min(r.x0);
        self.x1 = self.x1.max(r.x1);
        if r.size > self.size {
            self.y = r.y;
            self.size = r.size;
        }
    }
}

/// Groups runs into baselines. Text of one size joins a baseline within a quarter em (TeX
/// lowers the E of "TeX" by 0.2 em), so the lines of two columns a few points apart stay apart;
/// smaller or larger text (sub- and superscripts, raised letters) joins within half an em when
/// it stands next to the baseline's text, and is otherwise attached afterwards to the nearest
/// baseline of larger text it overlaps.
fn baselines(runs: &[Run]) -> Vec<Vec<usize>> {
    let mut idx: Vec<usize> = (0..runs.len()).collect();
    idx.sort_by(|&a, &b| {
        runs[b]
            .y
            .total_cmp(&runs[a].y)
            .then(runs[a].x0.total_cmp(&runs[b].x0))
    });
    let mut lines: Vec<Baseline> = Vec::new();
    for i in idx {
        let r = &runs[i];
        let mut best: Option<(usize, f64)> = None;
        for (k, l) in lines.iter().enumerate().rev().take(8) {
            let dy = (l.y - r.y).abs();
            let same = (r.size - l.size).abs() <= 0.15 * r.size.max(l.size);
            let fits = if same {
                dy <= 0.25 * l.size
            } else {
                dy <= 0.5 * l.size.max(r.size) && l.near(r, 1.5)
            };
            if fits && best.is_none_or(|(_, d)| dy < d) {
                best = Some((k, dy));
            }
        }
        match best {
            Some((k, _)) => lines[k].add(i, r),
            None => lines.push(Baseline {
                y: r.y,
                size: r.size,
                x0: r.x0,
                x1: r.x1,
                runs: vec![i],
            }),
        }
    }
    // Baselines of small text only (a superscript met before its line) join the nearest
    // baseline of larger text they overlap.
    let mut merged_into: Vec<Option<usize>> = vec![None; lines.len()];
    for k in 0..lines.len() {
        let small = &lines[k];
        // Baselines were opened top to bottom: the one it belongs to is among its neighbours.
        let window = k.saturating_sub(16)..(k + 17).min(lines.len());
        let target = window
            .filter(|&t| t != k && merged_into[t].is_none())
            .filter(|&t| {
                let l = &lines[t];
                small.size < 0.85 * l.size
                    && (l.y - small.y).abs() <= 0.6 * l.size
                    && small.x0 <= l.x1 + 0.5 * l.size
                    && small.x1 >= l.x0 - 0.5 * l.size
            })
            .min_by(|&a, &b| {
                (lines[a].y - small.y)
                    .abs()
                    .total_cmp(&(lines[b].y - small.y).abs())
            });
        if let Some(t) = target {
            merged_into[k] = Some(t);
        }
    }
    let mut out: Vec<(f64, Vec<usize>)> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; lines.len()];
    for k in 0..lines.len() {
        if merged_into[k].is_none() {
            slot[k] = Some(out.len());
            out.push((lines[k].y, lines[k].runs.clone()));
        }
    }
    for k in 0..lines.len() {
        // Follow a chain of merges to a kept baseline.
        let mut t = k;
        let mut hops = 0;
        while let Some(n) = merged_into[t] {
            t = n;
            hops += 1;
            if hops > lines.len() {
                break;
            }
        }
        if t != k {
            if let Some(o) = slot[t] {
                let runs = lines[k].runs.clone();
                out[o].1.extend(runs);
            } else {
                out.push((lines[k].y, lines[k].runs.clone()));
            }
        }
    }
    // Line numbers count down the page.
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.into_iter().map(|(_, r)| r).collect()
}

/// Groups runs by baseline and splits each baseline at wide gaps.
pub(super) fn segments(runs: &[Run]) -> Vec<Seg> {
    let clusters = baselines(runs);
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

/// Whether `mark` is a raised, smaller footnote or affiliation mark ("¹", "*", "a") set tight
/// against the word that follows it ("¹American Astronomical Society"): they are two words. A
/// raised number before a chemical symbol ("⁶⁰Co") stays joined.
fn is_mark_before(mark: &Run, r: &Run) -> bool {
    let m = mark.text.trim();
    let word = r.text.chars().take_while(|c| c.is_alphabetic()).count();
    !m.is_empty()
        && m.chars().count() <= 3
        && m.chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase() || "*†‡§¶,".contains(c))
        && mark.size < 0.8 * r.size
        && mark.y > r.y + 0.2 * r.size
        && word >= 3
}

/// The combining mark of a spacing accent (´ ` ˆ ˜ ¨ ¯ ˘ ˙ ˚ ˝ ˇ ¸ ˛).
fn combining(c: char) -> Option<char> {
    Some(match c {
        '\u{b4}' => '\u{301}',
        '`' => '\u{300}',
        '\u{2c6}' | '^' => '\u{302}',
        '\u{2dc}' | '~' => '\u{303}',
        '\u{a8}' => '\u{308}',
        '\u{af}' | '\u{2c9}' => '\u{304}',
        '\u{2d8}' => '\u{306}',
        '\u{2d9}' => '\u{307}',
        '\u{2da}' => '\u{30a}',
        '\u{2dd}' => '\u{30b}',
        '\u{2c7}' => '\u{30c}',
        '\u{b8}' => '\u{327}',
        '\u{2db}' => '\u{328}',
        _ => return None,
    })
}

fn make_seg(runs: &[Run], g: &[usize], line: usize) -> Seg {
    let mut text = String::new();
    let mut prev_x1 = f64::NEG_INFINITY;
    let mut size_w: HashMap<i64, usize> = HashMap::new();
    let (mut bold_chars, mut total) = (0usize, 0usize);
    let mut y = runs[g[0]].y;
    let mut best = 0usize;
    let mut styles = Vec::with_capacity(g.len());
    let mut italic_chars = 0usize;
    // A spacing accent drawn over the next letter (TeX's \accent in OT1 fonts: "Th´eor`eme").
    let mut accent: Option<(char, f64)> = None;
    let mut prev: Option<&Run> = None;
    let mut composed = false;
    for &i in g {
        let r = &runs[i];
        let gap = r.x0 - prev_x1;
        let over = accent
            .filter(|&(_, x1)| r.x0 < x1 && r.text.starts_with(char::is_alphabetic))
            .and_then(|(c, _)| combining(c));
        if let Some(mark) = over {
            text.pop();
            styles.pop();
            let mut cs = r.text.chars();
            text.extend(cs.next());
            text.push(mark);
            text.push_str(cs.as_str());
            composed = true;
        } else {
            let after_mark = prev.is_some_and(|p| is_mark_before(p, r));
            if !text.is_empty()
                && (gap > 0.17 * r.size || after_mark)
                && !text.ends_with(' ')
                && !r.text.starts_with(' ')
            {
                text.push(' ');
            }
            text.push_str(&r.text);
        }
        prev = Some(r);
        let mut one = r.text.chars();
        accent = match (one.next(), one.next()) {
            (Some(c), None) if combining(c).is_some() => Some((c, r.x1)),
            _ => None,
        };
        prev_x1 = prev_x1.max(r.x1);
        let n = count_chars(&r.text);
        if n > 0 {
            styles.push(RunStyle {
                chars: n,
                style: r.style,
                number: r.text.trim().len() <= 8
                    && r.text.chars().all(|c| {
                        c.is_ascii_alphanumeric() && !c.is_ascii_lowercase() || ". ".contains(c)
                    }),
            });
        }
        if r.style.italic {
            italic_chars += n;
        }
        *size_w.entry((r.size * 10.0).round() as i64).or_default() += n;
        total += n;
        if r.style.bold {
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
    if composed {
        text = text.nfc().collect();
    }
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
        first_mark: runs[g[0]].size < 0.8 * size && runs[g[0]].y > y + 0.2 * size,
        chars: count_chars(&text),
        text,
        line,
        styles,
        italic: italic_chars * 2 > total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(x0: f64, x1: f64, text: &str) -> Run {
        Run {
            x0,
            x1,
            y: 700.0,
            size: 10.0,
            style: FontStyle {
                face: 1,
                ..FontStyle::default()
            },
            text: text.into(),
        }
    }

    #[test]
    fn accents_drawn_over_letters_compose() {
        // "Th´eor`eme": each accent, then a kern back, then its letter.
        let runs = [
            run(100.0, 110.0, "Th"),
            run(110.0, 115.0, "\u{b4}"),
            run(110.0, 125.0, "eor"),
            run(124.0, 129.0, "`"),
            run(124.0, 140.0, "eme"),
            run(143.0, 150.0, "de"),
        ];
        let seg = make_seg(&runs, &[0, 1, 2, 3, 4, 5], 0);
        assert_eq!(seg.text, "Théorème de");
        assert_eq!(seg.chars, 10);
        assert_eq!(seg.styles.iter().map(|s| s.chars).sum::<usize>(), 10);
        // A raised affiliation mark is its own word; a mass number stays on its symbol.
        let mut mark = run(100.0, 103.0, "1");
        mark.size = 6.0;
        mark.y = 704.0;
        let runs = [mark.clone(), run(103.0, 140.0, "American")];
        assert_eq!(make_seg(&runs, &[0, 1], 0).text, "1 American");
        mark.text = "60".into();
        let runs = [mark, run(103.0, 112.0, "Co")];
        assert_eq!(make_seg(&runs, &[0, 1], 0).text, "60Co");
        // An accent standing apart stays as it is.
        let runs = [run(100.0, 105.0, "\u{b4}"), run(108.0, 120.0, "apart")];
        assert_eq!(make_seg(&runs, &[0, 1], 0).text, "\u{b4} apart");
    }
}
