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

/// Chunks a document: paragraphs are packed up to `max_chars` (bytes of UTF-8), never across a
/// section boundary; consecutive chunks of one section overlap by about `overlap_chars`.
pub fn chunk(text: &str, cfg: &ChunkingConfig) -> Vec<ChunkText> {
    let mut out = Vec::new();
    for sec in sections(text) {
        let heading = sec
            .heading
            .as_ref()
            .map(|h| h[..floor_boundary(h, cfg.max_chars / 4)].to_string());
        let prefix = heading
            .as_ref()
            .map(|h| format!("{h}\n\n"))
            .unwrap_or_default();
        let budget = cfg.max_chars - prefix.len();
        let overlap = cfg.overlap_chars.min(budget / 2);
        let mut pieces = Vec::new();
        for p in &sec.paragraphs {
            pieces.extend(split_long(p, budget - overlap - 2));
        }
        let mut body = String::new();
        for piece in pieces {
            let sep = if body.is_empty() { 0 } else { 2 };
            if !body.is_empty() && body.len() + sep + piece.len() > budget {
                out.push(make(&heading, &prefix, &body));
                body = tail_overlap(&body, overlap).to_string();
            }
            if !body.is_empty() {
                body.push_str("\n\n");
            }
            body.push_str(&piece);
        }
        // A flush is always followed by the piece that caused it, so a non-empty body is new text.
        if !body.is_empty() {
            out.push(make(&heading, &prefix, &body));
        }
    }
    out
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
    fn setext_headings_and_empty_input() {
        let text = "Results\n=======\n\nThe fit converges.\n";
        let c = chunk(text, &cfg(2000, 200));
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].heading.as_deref(), Some("Results"));
        assert!(chunk("   \n\n", &cfg(2000, 200)).is_empty());
    }
}
