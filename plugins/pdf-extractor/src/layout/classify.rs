//! Block classification: paragraphs as headings, captions, tables, footnotes, equations or body.

use super::headings::{caps, has_leaders, has_letters, numbering, run_in, Numbering};
use super::join_line;
use super::segments::{count_chars, OLine, RunStyle, Seg};
use crate::Kind;
use mitra_plugin_sdk::text::is_caption_start;

pub(super) fn eq_number(t: &str) -> bool {
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

pub(super) struct PBlock {
    pub(super) kind: Kind,
    pub(super) text: String,
    pub(super) size: f64,
    pub(super) bold: bool,
    pub(super) region: usize,
    pub(super) top: f64,
    pub(super) marker: bool,
    /// The numbering of a numbered section heading.
    pub(super) numbering: Option<Numbering>,
    /// A heading run into its paragraph (bold start of the paragraph's first line).
    pub(super) run_in: bool,
}

fn starts_with_marker(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || "*†‡§¶#∗⋆".contains(c))
}

pub(super) struct Stats {
    pub(super) body_size: f64,
    pub(super) body_bold: bool,
    /// The typeface of most body characters (see [`crate::fonts::Font::face`]).
    pub(super) body_face: u32,
    pub(super) pitch: f64,
}

/// Whether the cells of consecutive multi-segment lines align in a grid: at least two columns
/// whose left edges, right edges or centres line up in most rows.
fn is_grid(rows: &[&OLine], segs: &[Seg]) -> bool {
    if rows.len() < 2 {
        return false;
    }
    let tol = rows.iter().map(|r| r.size).fold(0.0f64, f64::max).max(4.0) * 0.6;
    let mut columns = 0;
    for edge in 0..3 {
        let mut xs: Vec<(f64, usize)> = Vec::new();
        for (ri, r) in rows.iter().enumerate() {
            for &s in &r.segs {
                let x = match edge {
                    0 => segs[s].x0,
                    1 => segs[s].x1,
                    _ => (segs[s].x0 + segs[s].x1) / 2.0,
                };
                xs.push((x, ri));
            }
        }
        xs.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Clusters of aligned edges, counted by the distinct rows they hold.
        let mut k = 0;
        let mut found = 0;
        while k < xs.len() {
            let mut m = k + 1;
            while m < xs.len() && xs[m].0 - xs[m - 1].0 <= tol {
                m += 1;
            }
            let mut rs: Vec<usize> = xs[k..m].iter().map(|x| x.1).collect();
            rs.sort_unstable();
            rs.dedup();
            if rs.len() * 10 >= rows.len() * 6 && rs.len() >= 2 {
                found += 1;
            }
            k = m;
        }
        columns = columns.max(found);
    }
    columns >= 2
}

/// Whether aligned rows are set in a monospaced face: a code listing, whose indentation makes
/// columns, not a table.
fn is_code<'a>(rows: impl IntoIterator<Item = &'a OLine>) -> bool {
    let (mut mono, mut total) = (0usize, 0usize);
    for s in rows.into_iter().flat_map(|r| &r.styles) {
        total += s.chars;
        if s.style.mono {
            mono += s.chars;
        }
    }
    total > 0 && mono * 10 >= total * 9
}

/// Whether aligned rows are a table of contents without leaders: most rows are an optional
/// section number, a title and a page number ("2.5 | Licença de uso … | 6").
fn is_contents(rows: &[&OLine], segs: &[Seg]) -> bool {
    let entry = |r: &&OLine| {
        let cells: Vec<&str> = r.segs.iter().map(|&s| segs[s].text.trim()).collect();
        let Some((last, rest)) = cells.split_last() else {
            return false;
        };
        let page = !last.is_empty() && last.chars().all(|c| c.is_ascii_digit());
        let (number, titles) = match rest.split_first() {
            Some((first, more)) if first.chars().all(|c| c.is_ascii_digit() || c == '.') => {
                (true, more)
            }
            _ => (false, rest),
        };
        page && (1..=2).contains(&rest.len())
            && titles.len() == 1
            && (number || rest.len() == 1)
            && titles[0].chars().filter(|c| c.is_alphabetic()).count() >= 8
    };
    rows.iter().filter(|r| entry(r)).count() * 3 >= rows.len() * 2
}

/// Whether aligned rows are the pieces of a display equation: mostly mathematical symbols
/// (operators, Greek and mathematical alphanumerics, delimiters), or every row ending in an
/// equation number ("3a + 4b = 7   (2.1a)").
fn is_display_math(rows: &[&OLine], segs: &[Seg]) -> bool {
    let numbered = rows
        .iter()
        .all(|r| r.segs.len() >= 2 && r.segs.last().is_some_and(|&s| eq_number(&segs[s].text)));
    let (mut math, mut total) = (0usize, 0usize);
    for r in rows {
        for c in r.text.chars().filter(|c| !c.is_whitespace()) {
            total += 1;
            let greek = ('\u{370}'..='\u{3ff}').contains(&c);
            let alnum = ('\u{1d400}'..='\u{1d7ff}').contains(&c);
            let symbol = MATH.contains(&c)
                || "+−-*/·()[]{}|‖∥⟨⟩‹›∞∇∆∏∑∫∂′ˆ˜¯".contains(c)
                || ('\u{2190}'..='\u{22ff}').contains(&c)
                || ('\u{fe00}'..='\u{fe0f}').contains(&c);
            if greek || alnum || symbol {
                math += 1;
            }
        }
    }
    numbered || (total > 0 && math * 10 >= total * 3)
}

/// Whether a short bold block is a list item ("• Added support for ..."), not a title.
fn in_paragraph(text: &str) -> bool {
    text.trim_start()
        .starts_with(['•', '◦', '▪', '‣', '∙', '·'])
}

/// Whether a line has a word of four letters (not only symbols and single-letter variables),
/// no equals sign and no comma: a title, not mathematics nor a sentence or a list of names.
fn has_word(text: &str) -> bool {
    !text.contains(['=', ',', '，', '。', '、']) && has_letters(text, 4)
}

/// A short line (60 characters) without the punctuation that ends a sentence or a list item.
fn short_open(l: &OLine) -> bool {
    count_chars(&l.text) <= 60 && !l.text.trim_end().ends_with(['.', ':', ',', ';'])
}

/// Whether line `i` has space above it and below it (or a region edge): set apart from the
/// lines around it by more than the body's leading.
fn spaced(lines: &[OLine], i: usize, st: &Stats) -> (bool, bool) {
    let l = &lines[i];
    let scale = st.pitch * (l.size / st.body_size);
    let above = i == 0 || lines[i - 1].region != l.region || lines[i - 1].y - l.y >= 1.35 * scale;
    let below = i + 1 >= lines.len()
        || lines[i + 1].region != l.region
        || l.y - lines[i + 1].y >= 1.2 * scale;
    (above, below)
}

/// Whether a run is set in another typeface than the body's, and not a monospaced one.
fn other_than_body(s: &RunStyle, st: &Stats) -> bool {
    s.style.face != st.body_face && !s.style.mono
}

/// A numbered line whose title is set in another typeface than the body's (not a monospaced
/// one): "2.1 bfhcolors" in a slab face over a rounded body face.
fn other_face(l: &OLine, st: &Stats) -> bool {
    let title = l.styles.iter().skip_while(|s| s.number);
    let (mut chars, mut other) = (0usize, 0usize);
    for s in title {
        chars += s.chars;
        if other_than_body(s, st) {
            other += s.chars;
        }
    }
    chars >= 3 && other * 10 >= chars * 9 && has_word(&l.text)
}

/// An unnumbered heading set in the body's size but in italic or small capitals, standing
/// alone (REVTeX's and many classes' lowest levels, "Collaborations"): one short line with
/// space above and below, starting with a capital, without closing punctuation, followed by
/// upright body text.
fn emphasis_head(lines: &[OLine], i: usize, st: &Stats, bbox: &[f64; 4]) -> bool {
    let l = &lines[i];
    let chars = count_chars(&l.text);
    let styled: usize = l
        .styles
        .iter()
        .filter(|s| s.style.italic || s.style.smallcaps || other_than_body(s, st))
        .map(|s| s.chars)
        .sum();
    if l.segs.len() != 1
        || chars < 4
        || styled * 10 < chars * 9
        || l.text.split_whitespace().count() > 10
        || !l.text.chars().next().is_some_and(char::is_alphanumeric)
        || !has_word(&l.text)
        || l.size < 0.85 * st.body_size
        || l.size > 1.12 * st.body_size
        || l.y < bbox[1] + 0.1 * (bbox[3] - bbox[1])
        || !short_open(l)
        || is_caption_start(&l.text)
        || !l
            .text
            .chars()
            .find(|c| c.is_alphabetic())
            .is_some_and(char::is_uppercase)
    {
        return false;
    }
    let Some(next) = lines.get(i + 1).filter(|n| n.region == l.region) else {
        return false;
    };
    let body_next = next.size >= 0.95 * st.body_size && !next.italic && !next.bold;
    spaced(lines, i, st) == (true, true) && body_next
}

pub(super) fn blocks_of_page(
    lines: &[OLine],
    segs: &[Seg],
    st: &Stats,
    bbox: &[f64; 4],
) -> Vec<PBlock> {
    let mut out: Vec<PBlock> = Vec::new();
    let n = lines.len();
    let h = bbox[3] - bbox[1];
    let eq: Vec<bool> = lines.iter().map(|l| is_equation(l, segs)).collect();
    let leaders: Vec<bool> = lines.iter().map(|l| has_leaders(&l.text)).collect();
    // Set apart from body text: bold, larger, all capitals, or (for numbered headings) a
    // slightly smaller size above the footnote area.
    let distinct = |l: &OLine| {
        (l.bold && !st.body_bold && l.size >= 0.8 * st.body_size)
            || l.size >= 1.12 * st.body_size
            || (caps(&l.text) && l.size >= 0.8 * st.body_size)
    };
    // A line opening with a raised mark ("¹ Physics Department") is a footnote or an
    // affiliation, not a numbered section.
    let numbered: Vec<Option<Numbering>> = lines
        .iter()
        .map(|l| numbering(&l.text).filter(|_| !l.first_mark))
        .collect();
    // "2.1  Muons ....  7" or "2.1  Muons  7": a table of contents.
    let toc_line: Vec<bool> = lines
        .iter()
        .map(|l| {
            l.segs.len() >= 2
                && l.segs.last().is_some_and(|&s| {
                    let t = segs[s].text.trim();
                    !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || "ivxlc".contains(c))
                })
        })
        .collect();
    let head_line: Vec<bool> = (0..n)
        .map(|i| {
            let l = &lines[i];
            // Code in the body's size is no heading (a title set in monospace is larger, or
            // numbered).
            if is_code([l]) && numbered[i].is_none() && l.size < 1.12 * st.body_size {
                return false;
            }
            if numbered[i].is_none() {
                return emphasis_head(lines, i, st, bbox) && !eq[i] && !leaders[i];
            }
            let smaller = l.size >= 0.85 * st.body_size
                && l.size <= 0.95 * st.body_size
                && l.y > bbox[1] + 0.25 * h;
            let toc = toc_line[i];
            // Set in the body's font but standing alone: space above and below, short,
            // without the punctuation that ends a sentence or a list item.
            let alone = spaced(lines, i, st) == (true, true) && short_open(l);
            let larger = l.size >= 1.05 * st.body_size;
            // A bold number before a short upright title that stops short of the margin
            // ("**1.2.1** 推荐系统研究现状"): CJK theses set titles in the body face.
            // Numbered exercises ("3. 计算…") end their number with a full stop; sections not.
            let bold_number = l.styles.first().is_some_and(|s| s.style.bold && s.number)
                && l.text
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w.ends_with(|c: char| c.is_ascii_digit()))
                && !l.bold
                && count_chars(&l.text) <= 40
                && l.x1 < l.rx1 - 4.0 * l.size
                && !l
                    .text
                    .trim_end()
                    .ends_with(['.', ':', ',', ';', '。', '，', '：', '；', '．', '？', '?']);
            !eq[i]
                && !leaders[i]
                && !toc
                && count_chars(&l.text) <= 120
                && !is_caption_start(&l.text)
                && (distinct(l)
                    || larger
                    || smaller
                    || alone
                    || bold_number
                    || (other_face(l, st) && short_open(l))
                    || (l.italic && count_chars(&l.text) <= 80 && !l.text.ends_with('.')))
        })
        .collect();
    let multi = |i: usize| lines[i].segs.len() >= 2 && !eq[i] && !head_line[i] && !leaders[i];
    let close = |a: &OLine, b: &OLine, f: f64| {
        let dy = a.y - b.y;
        dy > 0.0 && dy <= st.pitch * (a.size.max(b.size) / st.body_size) * f + 0.5
    };
    // Tables: runs of multi-segment lines whose cells align in a grid.
    let mut table_end: Vec<Option<usize>> = vec![None; n];
    // Aligned pieces of a display equation (matrices, aligned systems, fractions) are no table.
    let mut math_grid: Vec<bool> = vec![false; n];
    let mut i = 0;
    while i < n {
        if multi(i) && i + 1 < n && multi(i + 1) && close(&lines[i], &lines[i + 1], 2.5) {
            let mut j = i + 1;
            while j < n && multi(j) && close(&lines[j - 1], &lines[j], 2.5) {
                j += 1;
            }
            let rows: Vec<&OLine> = lines[i..j].iter().collect();
            if is_grid(&rows, segs) && !is_code(rows.iter().copied()) && !is_contents(&rows, segs) {
                table_end[i] = Some(j);
                math_grid[i] = is_display_math(&rows, segs);
                i = j;
                continue;
            }
        }
        i += 1;
    }
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
                bold: l.bold,
                region: l.region,
                top: l.y,
                marker: false,
                numbering: None,
                run_in: false,
            });
            i += 1;
            continue;
        }
        if let Some(j) = table_end[i] {
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
                kind: if math_grid[i] {
                    Kind::Equation
                } else {
                    Kind::Table
                },
                text: rows.join("\n"),
                size: l.size,
                bold: l.bold,
                region: l.region,
                top: l.y,
                marker: false,
                numbering: None,
                run_in: false,
            });
            i = j;
            continue;
        }
        let mut j = i + 1;
        while j < n && !eq[j] && table_end[j].is_none() && !head_line[j] {
            let (p, c) = (&lines[j - 1], &lines[j]);
            let same_style =
                (p.size - c.size).abs() <= 0.08 * p.size.max(c.size) && p.bold == c.bold;
            let overlap = c.x0 < p.x1 && c.x1 > p.x0;
            let indented = c.x0 > p.x0 + 0.8 * c.size
                && c.x0 > c.rx0 + 0.8 * c.size
                && p.x0 <= p.rx0 + 0.5 * p.size;
            // A numbered heading goes on over at most three lines of its own style.
            let heading_ends = head_line[i] && (j - i >= 3 || !distinct(c) || !same_style);
            if !(same_style && overlap && close(p, c, 1.3))
                || indented
                || is_caption_start(&c.text)
                || heading_ends
                || leaders[j] != leaders[j - 1]
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
        let mut split = false;
        if !head_line[i] && !leaders[i] && !st.body_bold {
            if let Some((head, rest)) = run_in(l, &text) {
                split = true;
                out.push(PBlock {
                    kind: Kind::Heading,
                    numbering: numbering(&head),
                    text: head,
                    size: l.size,
                    bold: true,
                    region: l.region,
                    top: l.y,
                    marker: false,
                    run_in: true,
                });
                text = rest;
            }
        }
        // Code in the body's size is no heading (a title set in monospace is larger).
        let body_code = is_code(&lines[i..j]) && size < 1.12 * st.body_size;
        let short = j - i <= 3 && text.chars().count() <= 150 && !leaders[i];
        let kind = if is_caption_start(&text) {
            Kind::Caption
        } else if short
            && !split
            && !toc_line[i]
            && !in_paragraph(&text)
            && !body_code
            && (head_line[i]
                || size >= 1.15 * st.body_size
                || (bold && !st.body_bold && size >= 0.95 * st.body_size)
                || (bold
                    && !st.body_bold
                    && size >= 0.8 * st.body_size
                    && text.chars().count() <= 60
                    && !text.ends_with(['.', ':', ','])))
        {
            Kind::Heading
        } else {
            Kind::Body
        };
        out.push(PBlock {
            kind,
            run_in: false,
            marker: l.first_small || starts_with_marker(&text),
            numbering: if kind == Kind::Heading {
                numbered[i]
            } else {
                None
            },
            text,
            size,
            bold,
            region: l.region,
            top: l.y,
        });
        i = j;
    }
    // Footnotes: small text with a marker low on the page, nothing body-sized below it in its
    // region.
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
    out
}
