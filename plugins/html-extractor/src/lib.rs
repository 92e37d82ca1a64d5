//! html-extractor: HTML pages into headings, body, tables, captions; nav/header/footer as furniture.

use mitra_plugin_sdk::extractor::{block, Block, BlockKind, Extract, Extraction};
use mitra_plugin_sdk::html::{squash_ws, tokenize, Token};
use mitra_plugin_sdk::text::is_caption_start;

/// The plugin.
pub struct HtmlExtractor;

/// Elements that end a text block.
const BLOCK_TAGS: [&str; 22] = [
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "br",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "blockquote",
    "pre",
    "dd",
    "dt",
    "hr",
    "main",
    "figure",
    "body",
];

fn class_has(t: &Token, words: &[&str]) -> bool {
    let c = t.attr("class").unwrap_or("").to_ascii_lowercase();
    let id = t.attr("id").unwrap_or("").to_ascii_lowercase();
    c.split_whitespace()
        .chain(id.split_whitespace())
        .any(|w| words.contains(&w))
}

struct State {
    out: Vec<Block>,
    text: String,
    /// Kinds pushed by enclosing elements (innermost last) with their tag names.
    stack: Vec<(String, BlockKind)>,
    skip: usize,
    table: Option<(Vec<String>, Vec<String>, String)>,
}

impl State {
    fn kind(&self) -> BlockKind {
        self.stack.last().map(|s| s.1).unwrap_or(BlockKind::Body)
    }

    fn flush(&mut self) {
        let t = squash_ws(&self.text);
        self.text.clear();
        if t.is_empty() {
            return;
        }
        let mut kind = self.kind();
        if kind == BlockKind::Body && is_caption_start(&t) {
            kind = BlockKind::Caption;
        }
        // Adjacent blocks of furniture of the same kind stay separate; body stays paragraph-sized.
        self.out.push(block(kind, None, t));
    }
}

/// Splits an HTML document into blocks in document order.
pub fn html_blocks(html: &str) -> Vec<Block> {
    let mut s = State {
        out: Vec::new(),
        text: String::new(),
        stack: Vec::new(),
        skip: 0,
        table: None,
    };
    for tok in tokenize(html) {
        match &tok {
            Token::Start {
                name, self_closing, ..
            } => {
                let name = name.as_str();
                if matches!(
                    name,
                    "script" | "style" | "noscript" | "template" | "svg" | "head"
                ) && !self_closing
                {
                    s.skip += 1;
                    continue;
                }
                if s.skip > 0 {
                    continue;
                }
                if let Some((rows, cells, cell)) = s.table.as_mut() {
                    match name {
                        "tr" if !cells.is_empty() => {
                            rows.push(cells.join("\t"));
                            cells.clear();
                        }
                        "td" | "th" => {
                            cell.clear();
                        }
                        "caption" => {}
                        "br" => cell.push(' '),
                        _ => {}
                    }
                    continue;
                }
                if name == "table" {
                    s.flush();
                    s.table = Some((Vec::new(), Vec::new(), String::new()));
                    continue;
                }
                let pushed = match name {
                    "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Some(BlockKind::Heading),
                    "figcaption" => Some(BlockKind::Caption),
                    "header" => Some(BlockKind::Header),
                    "footer" | "nav" => Some(BlockKind::Footer),
                    "math" => Some(BlockKind::Equation),
                    "aside" if class_has(&tok, &["footnote", "footnotes"]) => {
                        Some(BlockKind::Footnote)
                    }
                    _ if class_has(&tok, &["footnote", "footnotes", "fn"]) => {
                        Some(BlockKind::Footnote)
                    }
                    _ if class_has(&tok, &["equation", "math-display", "displaymath"]) => {
                        Some(BlockKind::Equation)
                    }
                    _ if class_has(&tok, &["caption"]) => Some(BlockKind::Caption),
                    _ => None,
                };
                if pushed.is_some() || BLOCK_TAGS.contains(&name) {
                    s.flush();
                }
                if let Some(k) = pushed {
                    if !self_closing {
                        s.stack.push((name.to_string(), k));
                    }
                }
                if name == "img" {
                    if let Some(alt) = tok.attr("alt").filter(|a| !a.trim().is_empty()) {
                        s.out.push(block(BlockKind::Caption, None, squash_ws(alt)));
                    }
                }
            }
            Token::End(name) => {
                let name = name.as_str();
                if matches!(
                    name,
                    "script" | "style" | "noscript" | "template" | "svg" | "head"
                ) {
                    s.skip = s.skip.saturating_sub(1);
                    continue;
                }
                if s.skip > 0 {
                    continue;
                }
                if let Some((rows, cells, cell)) = s.table.as_mut() {
                    match name {
                        "td" | "th" => {
                            cells.push(squash_ws(cell));
                            cell.clear();
                        }
                        "tr" if !cells.is_empty() => {
                            rows.push(cells.join("\t"));
                            cells.clear();
                        }
                        "table" => {
                            if !cells.is_empty() {
                                rows.push(cells.join("\t"));
                            }
                            let text = rows.join("\n");
                            if !text.trim().is_empty() {
                                s.out.push(block(BlockKind::Table, None, text));
                            }
                            s.table = None;
                        }
                        _ => {}
                    }
                    continue;
                }
                if BLOCK_TAGS.contains(&name) || s.stack.iter().any(|(n, _)| n == name) {
                    s.flush();
                }
                if let Some(pos) = s.stack.iter().rposition(|(n, _)| n == name) {
                    s.stack.truncate(pos);
                }
            }
            Token::Text(t) => {
                if s.skip > 0 {
                    continue;
                }
                if let Some((_, _, cell)) = s.table.as_mut() {
                    cell.push_str(t);
                } else {
                    s.text.push_str(t);
                }
            }
        }
    }
    s.flush();
    s.out
}

impl Extract for HtmlExtractor {
    fn extract(bytes: Vec<u8>, _media_type: String) -> Result<Extraction, String> {
        let html = String::from_utf8_lossy(&bytes);
        Ok(Extraction {
            blocks: html_blocks(&html),
            skipped: Vec::new(),
        })
    }
}

mitra_plugin_sdk::extractor::export_extractor!(HtmlExtractor);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_every_kind() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
          <nav>Home | Analyses</nav><header>CMS Wiki</header>
          <h1>Muon <em>selection</em></h1><p>Muons with pT &gt; 20 GeV.</p>
          <table><tr><th>cut</th><th>eff</th></tr><tr><td>iso</td><td>0.95</td></tr></table>
          <figure><img src="a.png"><figcaption>Figure 2: Efficiency.</figcaption></figure>
          <div class="equation">E = mc^2</div><p class="footnote">1 Measured in 2024.</p>
          <footer>Last edited 2026</footer></body></html>"#;
        let b = html_blocks(html);
        let got: Vec<(BlockKind, &str)> = b.iter().map(|b| (b.kind, b.text.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (BlockKind::Footer, "Home | Analyses"),
                (BlockKind::Header, "CMS Wiki"),
                (BlockKind::Heading, "Muon selection"),
                (BlockKind::Body, "Muons with pT > 20 GeV."),
                (BlockKind::Table, "cut\teff\niso\t0.95"),
                (BlockKind::Caption, "Figure 2: Efficiency."),
                (BlockKind::Equation, "E = mc^2"),
                (BlockKind::Footnote, "1 Measured in 2024."),
                (BlockKind::Footer, "Last edited 2026"),
            ]
        );
    }
}
