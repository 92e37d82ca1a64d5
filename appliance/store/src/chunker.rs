//! Paragraph chunking with a size limit and overlap; each chunk carries its section heading.

use crate::config::ChunkingConfig;

/// One chunk of a document, before it gets its ids.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkText {
    /// Section heading the chunk sits under (markdown ATX or setext heading), if any.
    pub heading: Option<String>,
    /// Text: the heading line (if any), a blank line, then the body.
    pub text: String,
}

/// A parsed section: heading plus its paragraphs.
struct Section {
    heading: Option<String>,
    paragraphs: Vec<String>,
}

/// Splits text into sections at markdown headings, and sections into paragraphs at blank lines.
fn sections(text: &str) -> Vec<Section> {
    let mut out = vec![Section {
        heading: None,
        paragraphs: Vec::new(),
    }];
    let mut para: Vec<&str> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let flush = |para: &mut Vec<&str>, out: &mut Vec<Section>| {
        if !para.is_empty() {
            let p = para.join("\n").trim().to_string();
            if !p.is_empty() {
                out.last_mut().expect("one section").paragraphs.push(p);
            }
            para.clear();
        }
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        let atx = trimmed.starts_with('#')
            && trimmed.trim_start_matches('#').starts_with(' ')
            && trimmed.chars().take_while(|c| *c == '#').count() <= 6;
        let setext = !trimmed.is_empty()
            && para.is_empty()
            && i + 1 < lines.len()
            && is_setext_underline(lines[i + 1]);
        if atx || setext {
            flush(&mut para, &mut out);
            let h = if atx {
                trimmed
                    .trim_start_matches('#')
                    .trim()
                    .trim_end_matches('#')
                    .trim()
            } else {
                i += 1;
                trimmed
            };
            out.push(Section {
                heading: Some(h.to_string()),
                paragraphs: Vec::new(),
            });
        } else if trimmed.is_empty() {
            flush(&mut para, &mut out);
        } else {
            para.push(line);
        }
        i += 1;
    }
    flush(&mut para, &mut out);
    out.retain(|s| !s.paragraphs.is_empty());
    out
}

fn is_setext_underline(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && (t.chars().all(|c| c == '=') || t.chars().all(|c| c == '-'))
}

/// The first heading of a markdown/text document, used as its title.
pub fn first_heading(text: &str) -> Option<String> {
    let mut secs = sections(text);
    secs.retain(|s| s.heading.is_some());
    secs.into_iter().next().and_then(|s| s.heading)
}

/// Largest byte index <= `i` on a char boundary.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Splits an over-long paragraph into windows of at most `max` bytes, breaking at whitespace when possible.
fn split_long(p: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = p.trim();
    while rest.len() > max {
        let cut = floor_boundary(rest, max);
        let at = rest[..cut]
            .rfind(char::is_whitespace)
            .filter(|&w| w > max / 2)
            .unwrap_or(cut);
        out.push(rest[..at].trim().to_string());
        rest = rest[at..].trim_start();
    }
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// Whether `line` is the delimiter row of a Markdown pipe table (`|---|:--:|`).
fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    t.contains('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Longest caption repeated before the rows of a split table, in bytes.
const MAX_CAPTION: usize = 200;

/// A paragraph holding a Markdown pipe table, cut between rows into pieces of at most `max`
/// bytes; each piece after the first starts with the table's header and delimiter rows, after
/// its caption (the lines before the table in the paragraph, else `before`, the paragraph
/// before it, when that is one short line), so that every cell is read with the names of its
/// column and table. `None` when `p` holds no table.
fn split_table(p: &str, before: Option<&str>, max: usize) -> Option<Vec<String>> {
    let lines: Vec<&str> = p.lines().collect();
    let at = (0..lines.len().saturating_sub(1))
        .find(|&i| lines[i].contains('|') && is_delimiter_row(lines[i + 1]))?;
    if p.len() <= max {
        return Some(vec![p.to_string()]);
    }
    let lead = lines[..at].join("\n");
    let caption = if at > 0 {
        Some(lead.as_str())
    } else {
        before.filter(|b| !b.contains('\n'))
    }
    .filter(|c| c.len() <= MAX_CAPTION);
    let header = format!("{}\n{}", lines[at], lines[at + 1]);
    // What each later piece starts with: caption and header, the header alone, or nothing
    // where even that takes more than half the room.
    let head = match caption {
        Some(c) if c.len() + 1 + header.len() <= max / 2 => format!("{c}\n{header}"),
        _ if header.len() <= max / 2 => header.clone(),
        _ => String::new(),
    };
    let first = if at > 0 {
        format!("{lead}\n{header}")
    } else {
        header
    };
    // The lead or header alone may exceed `max` (a long caption): cut it as prose.
    Some(
        pack_rows(first, &head, &lines[at + 2..], max)
            .into_iter()
            .flat_map(|piece| {
                if piece.len() > max {
                    split_long(&piece, max)
                } else {
                    vec![piece]
                }
            })
            .collect(),
    )
}

/// `rows` packed in order into pieces of at most `max` bytes, never cutting a row that fits a
/// piece (a longer one is cut as prose), the first piece starting with `first` and each later
/// one with `head` (empty: nothing).
fn pack_rows(first: String, head: &str, rows: &[&str], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = first;
    // Rows in `cur` beyond what it started with: a piece of only its head is not emitted.
    let mut n = 0;
    for row in rows {
        for part in split_long(row, max.saturating_sub(head.len() + 1).max(1)) {
            if n > 0 && cur.len() + 1 + part.len() > max {
                out.push(std::mem::replace(&mut cur, head.to_string()));
                n = 0;
            }
            if !cur.is_empty() {
                cur.push('\n');
            }
            cur.push_str(&part);
            n += 1;
        }
    }
    if n > 0 || out.is_empty() {
        out.push(cur);
    }
    out
}

/// The last `n` bytes of `s`, starting at a word boundary.
fn tail_overlap(s: &str, n: usize) -> &str {
    if n == 0 || s.len() <= n {
        return if n == 0 { "" } else { s };
    }
    let start = s.len() - n;
    let mut i = start;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    match s[i..].find(char::is_whitespace) {
        Some(w) => s[i + w..].trim_start(),
        None => &s[i..],
    }
}

/// A section heading cut to a quarter of the chunk size, and the prefix it puts before chunk text.
fn heading_prefix(heading: &Option<String>, cfg: &ChunkingConfig) -> (Option<String>, String) {
    let heading = heading
        .as_ref()
        .map(|h| h[..floor_boundary(h, cfg.max_chars / 4)].to_string());
    let prefix = heading
        .as_ref()
        .map(|h| format!("{h}\n\n"))
        .unwrap_or_default();
    (heading, prefix)
}

/// Chunks a document: paragraphs are packed up to `max_chars` (bytes of UTF-8), never across a
/// section boundary; consecutive chunks of one section overlap by about `overlap_chars`.
pub fn chunk(text: &str, cfg: &ChunkingConfig) -> Vec<ChunkText> {
    let mut out = Vec::new();
    for sec in sections(text) {
        let (heading, prefix) = heading_prefix(&sec.heading, cfg);
        let budget = cfg.max_chars - prefix.len();
        let overlap = cfg.overlap_chars.min(budget / 2);
        // Pieces, each marked when it ends in table rows.
        let mut pieces: Vec<(String, bool)> = Vec::new();
        let mut before: Option<&str> = None;
        for p in &sec.paragraphs {
            match split_table(p, before, budget - overlap - 2) {
                Some(rows) => pieces.extend(rows.into_iter().map(|r| (r, true))),
                None => pieces.extend(
                    split_long(p, budget - overlap - 2)
                        .into_iter()
                        .map(|r| (r, false)),
                ),
            }
            before = Some(p);
        }
        let mut body = String::new();
        let mut ends_in_table = false;
        for (piece, table) in pieces {
            let sep = if body.is_empty() { 0 } else { 2 };
            if !body.is_empty() && body.len() + sep + piece.len() > budget {
                out.push(make(&heading, &prefix, &body));
                // Rows carried over without their header would be cells without names: a
                // chunk after table rows starts afresh (a split table repeats its header).
                let keep = if ends_in_table { 0 } else { overlap };
                body = tail_overlap(&body, keep).to_string();
            }
            if !body.is_empty() {
                body.push_str("\n\n");
            }
            body.push_str(&piece);
            ends_in_table = table;
        }
        // A flush is always followed by the piece that caused it, so a non-empty body is new text.
        if !body.is_empty() {
            out.push(make(&heading, &prefix, &body));
        }
    }
    out
}

/// One extracted block, as the chunker sees it (kinds are the plugin API's block kinds).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockText {
    /// `heading`, `body`, `caption`, `table`, `footnote`, `equation`, `header`, `footer`, `page-number`.
    pub kind: String,
    /// 1-based page, for paginated formats.
    pub page: Option<i32>,
    /// Text.
    pub text: String,
    /// For headings: 0 for the document's title, 1 for a top-level section, 2 for a
    /// subsection...; `None` where the extractor cannot tell.
    pub level: Option<u8>,
}

/// A chunk made from blocks: its kind and the pages it starts and ends on.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockChunk {
    /// Heading path and text, as for [`chunk`].
    pub chunk: ChunkText,
    /// `body`, `caption`, `table` or `footnote`.
    pub kind: String,
    /// Page the chunk's text starts on.
    pub page: Option<i32>,
    /// Page the chunk's text ends on (equal to `page` unless it runs over a page break).
    pub page_end: Option<i32>,
}

/// Separator of the sections in a heading path ("2 Event selection › 2.1 Muons").
pub const PATH_SEPARATOR: &str = " › ";

/// The outline position of the blocks being read: the document's title and the open sections.
#[derive(Default)]
struct Outline {
    title: Option<String>,
    path: Vec<(u8, String)>,
}

impl Outline {
    fn enter(&mut self, level: Option<u8>, text: String) {
        match level {
            Some(0) => {
                self.title = Some(text);
                self.path.clear();
            }
            Some(l) => {
                while self.path.last().is_some_and(|(pl, _)| *pl >= l) {
                    self.path.pop();
                }
                self.path.push((l, text));
            }
            // Unknown depth: the heading replaces the last one.
            None => {
                self.path.clear();
                self.path.push((1, text));
            }
        }
    }

    /// The heading path, or the title before the first section.
    fn heading(&self) -> Option<String> {
        if self.path.is_empty() {
            return self.title.clone();
        }
        let parts: Vec<&str> = self.path.iter().map(|(_, t)| t.as_str()).collect();
        Some(parts.join(PATH_SEPARATOR))
    }
}

/// Text of one block with where it came from: its page and its position among the blocks.
struct Piece {
    text: String,
    page: Option<i32>,
    idx: usize,
}

/// Chunks extracted blocks. Page furniture (header, footer, page-number) is dropped; headings
/// start sections, and each chunk carries the path of the sections it sits in (a level-0
/// heading is the document's title: it heads the chunks before the first section and is not
/// repeated in paths); body and equation blocks of a section are packed like paragraphs;
/// captions, tables and footnotes become chunks of their own kind (tables split between rows
/// when too long). Each chunk is prefixed by its heading path and records the pages its text
/// starts and ends on.
pub fn chunk_blocks(blocks: &[BlockText], cfg: &ChunkingConfig) -> Vec<BlockChunk> {
    let mut out = Vec::new();
    let mut outline = Outline::default();
    let mut flow: Vec<Piece> = Vec::new();
    for (idx, b) in blocks.iter().enumerate() {
        let text = b.text.trim();
        if text.is_empty() {
            continue;
        }
        let piece = |text: &str| Piece {
            text: text.to_string(),
            page: b.page,
            idx,
        };
        match b.kind.as_str() {
            "header" | "footer" | "page-number" => {}
            "heading" => {
                pack(
                    &mut out,
                    &outline.heading(),
                    std::mem::take(&mut flow),
                    "body",
                    cfg,
                );
                outline.enter(
                    b.level,
                    text.split_whitespace().collect::<Vec<_>>().join(" "),
                );
            }
            "body" | "equation" => flow.push(piece(text)),
            kind => {
                let kind = match kind {
                    "caption" | "table" | "footnote" => kind,
                    _ => "body",
                };
                pack(&mut out, &outline.heading(), vec![piece(text)], kind, cfg);
            }
        }
    }
    pack(&mut out, &outline.heading(), flow, "body", cfg);
    // Document order: a chunk sits where its first block was.
    out.sort_by_key(|(idx, _)| *idx);
    out.into_iter().map(|(_, c)| c).collect()
}

/// The chunk body being filled, with the page of each piece from the byte where it starts.
#[derive(Default)]
struct Body {
    text: String,
    pages: Vec<(usize, Option<i32>)>,
    idx: usize,
}

impl Body {
    fn push(&mut self, piece: &Piece, sep: &str) {
        if self.text.is_empty() {
            self.idx = piece.idx;
        } else {
            self.text.push_str(sep);
        }
        self.pages.push((self.text.len(), piece.page));
        self.text.push_str(&piece.text);
    }

    fn first_page(&self) -> Option<i32> {
        self.pages.first().and_then(|p| p.1)
    }

    fn last_page(&self) -> Option<i32> {
        self.pages.iter().filter_map(|p| p.1).max()
    }

    /// Keeps the last `overlap` bytes (from a word boundary) to start the next chunk; the kept
    /// text keeps the pages it came from.
    fn keep_tail(&mut self, overlap: usize, next_idx: usize) {
        let tail = tail_overlap(&self.text, overlap).to_string();
        let cut = self.text.len() - tail.len();
        let from = self
            .pages
            .iter()
            .rposition(|(at, _)| *at <= cut)
            .unwrap_or(0);
        self.pages = self.pages[from..]
            .iter()
            .map(|(at, p)| (at.saturating_sub(cut), *p))
            .collect();
        if tail.is_empty() {
            self.pages.clear();
        }
        self.text = tail;
        self.idx = next_idx;
    }
}

/// Packs paragraphs (with their pages) into chunks of one kind under one heading.
fn pack(
    out: &mut Vec<(usize, BlockChunk)>,
    heading: &Option<String>,
    paragraphs: Vec<Piece>,
    kind: &str,
    cfg: &ChunkingConfig,
) {
    if paragraphs.is_empty() {
        return;
    }
    let (heading, prefix) = heading_prefix(heading, cfg);
    let budget = cfg.max_chars - prefix.len();
    let overlap = if kind == "table" {
        0
    } else {
        cfg.overlap_chars.min(budget / 2)
    };
    let mut pieces: Vec<Piece> = Vec::new();
    for p in paragraphs {
        let at = |text: String| Piece {
            text,
            page: p.page,
            idx: p.idx,
        };
        if kind == "table" {
            // Split between rows, never inside a cell; a Markdown table's later pieces start
            // with its header rows.
            let rows = split_table(&p.text, None, budget).unwrap_or_else(|| {
                let lines: Vec<&str> = p.text.lines().collect();
                pack_rows(String::new(), "", &lines, budget)
            });
            pieces.extend(rows.into_iter().map(at));
        } else {
            pieces.extend(
                split_long(&p.text, budget - overlap - 2)
                    .into_iter()
                    .map(at),
            );
        }
    }
    let emit = |body: &Body| BlockChunk {
        chunk: make(&heading, &prefix, &body.text),
        kind: kind.to_string(),
        page: body.first_page(),
        page_end: body.last_page(),
    };
    let sep = if kind == "table" { "\n" } else { "\n\n" };
    let mut body = Body::default();
    for piece in pieces {
        let gap = if body.text.is_empty() { 0 } else { sep.len() };
        if !body.text.is_empty() && body.text.len() + gap + piece.text.len() > budget {
            out.push((body.idx, emit(&body)));
            body.keep_tail(overlap, piece.idx);
        }
        body.push(&piece, sep);
    }
    if !body.text.is_empty() {
        out.push((body.idx, emit(&body)));
    }
}

fn make(heading: &Option<String>, prefix: &str, body: &str) -> ChunkText {
    ChunkText {
        heading: heading.clone(),
        text: format!("{prefix}{body}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(max: usize, overlap: usize) -> ChunkingConfig {
        ChunkingConfig {
            max_chars: max,
            overlap_chars: overlap,
        }
    }

    #[test]
    fn keeps_heading_with_each_chunk_and_respects_limit() {
        let text = "# Title\n\nIntro para.\n\n## Background\n\nFirst paragraph about muons.\n\nSecond paragraph about jets and more jets.\n\nThird one.\n";
        let chunks = chunk(text, &cfg(70, 10));
        assert!(chunks.iter().all(|c| c.text.len() <= 70), "{chunks:#?}");
        assert_eq!(chunks[0].heading.as_deref(), Some("Title"));
        assert!(chunks[0].text.starts_with("Title\n\nIntro para."));
        let bg: Vec<_> = chunks
            .iter()
            .filter(|c| c.heading.as_deref() == Some("Background"))
            .collect();
        assert!(bg.len() >= 2);
        assert!(bg.iter().all(|c| c.text.starts_with("Background\n\n")));
        assert_eq!(first_heading(text).as_deref(), Some("Title"));
    }

    #[test]
    fn long_tables_split_between_rows_and_repeat_their_header() {
        let rows: Vec<String> = (0..30)
            .map(|i| format!("| bin {i} | {}.{i:02} ± 0.0{} |", i % 3, i % 7))
            .collect();
        let text = format!(
            "## Scale factors\n\nTrigger SFs per bin:\n\n| Bin | SF |\n|---|---|\n{}\n\nAfter the table.",
            rows.join("\n")
        );
        let chunks = chunk(&text, &cfg(300, 60));
        assert!(chunks.len() > 3, "{chunks:#?}");
        assert!(chunks.iter().all(|c| c.text.len() <= 300), "{chunks:#?}");
        for c in chunks.iter().filter(|c| c.text.contains("| bin ")) {
            // Every piece of the table has its caption and header before its first row.
            let first_row = c.text.find("| bin ").unwrap();
            let header = c.text.find("| Bin | SF |\n|---|---|").expect("header");
            let caption = c.text.find("Trigger SFs per bin:").expect("caption");
            assert!(caption < header && header < first_row, "{}", c.text);
        }
        // Every row survives whole, exactly once.
        for r in &rows {
            let n = chunks
                .iter()
                .filter(|c| c.text.lines().any(|l| l == r))
                .count();
            assert_eq!(n, 1, "{r}: {chunks:#?}");
        }
        assert!(chunks.last().unwrap().text.ends_with("After the table."));
        // An extracted table block is cut the same way.
        let block = BlockText {
            kind: "table".into(),
            page: Some(1),
            text: format!("| Bin | SF |\n|---|---|\n{}", rows.join("\n")),
            level: None,
        };
        let pieces = chunk_blocks(&[block], &cfg(300, 60));
        assert!(pieces.len() >= 3, "{pieces:#?}");
        assert!(pieces
            .iter()
            .all(|c| c.chunk.text.starts_with("| Bin | SF |\n|---|---|\n| bin ")));
        // A short table stays one piece; a paragraph without a delimiter row is prose.
        assert_eq!(
            split_table("| a | b |\n|---|---|\n| 1 | 2 |", None, 100),
            Some(vec!["| a | b |\n|---|---|\n| 1 | 2 |".to_string()])
        );
        assert_eq!(split_table("a | b, c | d", None, 5), None);
    }

    #[test]
    fn splits_long_paragraphs_with_overlap() {
        let words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
        let text = words.join(" ");
        let chunks = chunk(&text, &cfg(200, 40));
        assert!(chunks.len() > 5);
        assert!(chunks.iter().all(|c| c.text.len() <= 200));
        // Every word survives, and consecutive chunks share words.
        let all: String = chunks
            .iter()
            .map(|c| c.text.clone())
            .collect::<Vec<_>>()
            .join(" ");
        for w in &words {
            assert!(all.split_whitespace().any(|x| x == w), "lost {w}");
        }
        let first_last = chunks[0].text.split_whitespace().last().unwrap();
        assert!(chunks[1].text.split_whitespace().any(|x| x == first_last));
    }

    #[test]
    fn blocks_become_chunks_of_their_kind_without_furniture() {
        let b = |kind: &str, page: i32, text: &str| BlockText {
            kind: kind.into(),
            page: Some(page),
            text: text.into(),
            level: None,
        };
        let blocks = vec![
            b("header", 1, "CMS Note"),
            b("heading", 1, "1 Selection"),
            b("body", 1, "Muons are selected."),
            b("equation", 1, "m = 2"),
            b("caption", 1, "Figure 1: Mass."),
            b("page-number", 1, "1"),
            b("body", 2, "Jets too."),
            b("table", 2, "a\tb\n1\t2"),
            b("footnote", 2, "1 See ref."),
            b("footer", 2, "Internal"),
        ];
        let c = chunk_blocks(&blocks, &cfg(2000, 200));
        let got: Vec<(&str, Option<i32>, &str)> = c
            .iter()
            .map(|c| (c.kind.as_str(), c.page, c.chunk.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "body",
                    Some(1),
                    "1 Selection\n\nMuons are selected.\n\nm = 2\n\nJets too."
                ),
                ("caption", Some(1), "1 Selection\n\nFigure 1: Mass."),
                ("table", Some(2), "1 Selection\n\na\tb\n1\t2"),
                ("footnote", Some(2), "1 Selection\n\n1 See ref."),
            ]
        );
        assert!(c.iter().all(|c| !c.chunk.text.contains("Internal")));
        // A long table splits between rows.
        let rows: Vec<String> = (0..50).map(|i| format!("row{i}\t{i}")).collect();
        let t = chunk_blocks(&[b("table", 3, &rows.join("\n"))], &cfg(100, 20));
        assert!(t.len() > 3 && t.iter().all(|c| c.chunk.text.len() <= 100));
        assert!(t
            .iter()
            .all(|c| c.chunk.text.lines().all(|l| l.starts_with("row"))));
    }

    #[test]
    fn heading_paths_follow_levels_and_pages_follow_the_text() {
        let b = |kind: &str, page: i32, level: Option<u8>, text: &str| BlockText {
            kind: kind.into(),
            page: Some(page),
            text: text.into(),
            level,
        };
        let long = |n: usize, w: &str| vec![w; n].join(" ");
        let blocks = vec![
            b("heading", 1, Some(0), "Search for H→μμ"),
            b("body", 1, None, "We search for the decay."),
            b("heading", 1, Some(1), "2 Event selection"),
            b("heading", 1, Some(2), "2.1 Muons"),
            b("body", 1, None, &long(30, "alpha")),
            b("body", 2, None, &long(30, "beta")),
            b("body", 3, None, &long(30, "gamma")),
            b("heading", 3, Some(2), "2.2 Jets"),
            b("body", 3, None, "Jets are clustered."),
            b("heading", 4, Some(1), "3 Results"),
            b("body", 4, None, "A fit."),
            b("heading", 4, None, "Appendix"),
            b("body", 4, None, "Tables."),
        ];
        let c = chunk_blocks(&blocks, &cfg(300, 60));
        let heads: Vec<&str> = c
            .iter()
            .map(|c| c.chunk.heading.as_deref().unwrap_or(""))
            .collect();
        let path = "2 Event selection › 2.1 Muons";
        assert_eq!(
            heads[0], "Search for H→μμ",
            "the title heads the text before sections"
        );
        assert!(heads.contains(&path), "{heads:?}");
        assert!(heads.contains(&"2 Event selection › 2.2 Jets"));
        assert!(heads.contains(&"3 Results"));
        assert!(
            heads.contains(&"Appendix"),
            "a heading without level replaces the path"
        );
        // Every chunk's text starts on its page and ends on its page_end: the words of page n
        // are alpha/beta/gamma.
        let word_page = |w: &str| match w {
            "alpha" => Some(1),
            "beta" => Some(2),
            "gamma" => Some(3),
            _ => None,
        };
        let muons: Vec<&BlockChunk> = c
            .iter()
            .filter(|c| c.chunk.heading.as_deref() == Some(path))
            .collect();
        assert!(muons.len() >= 3, "{muons:?}");
        for m in &muons {
            let body = m.chunk.text.strip_prefix(&format!("{path}\n\n")).unwrap();
            let first = body.split_whitespace().next().unwrap();
            let last = body.split_whitespace().last().unwrap();
            assert_eq!(m.page, word_page(first), "{m:?}");
            assert_eq!(m.page_end, word_page(last), "{m:?}");
        }
        assert!(muons.iter().any(|m| m.page != m.page_end));
    }

    #[test]
    fn setext_headings_and_empty_input() {
        let text = "Results\n=======\n\nThe fit converges.\n";
        let c = chunk(text, &cfg(2000, 200));
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].heading.as_deref(), Some("Results"));
        assert!(chunk("   \n\n", &cfg(2000, 200)).is_empty());
    }
}
