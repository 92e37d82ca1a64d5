//! markdown-extractor: Markdown (CommonMark + GFM, through pulldown-cmark) and plain text into
//! headings, body, lists, code, tables, captions, footnotes and equations.

use mitra_plugin_sdk::extractor::{
    block, heading, mark_title, Block, BlockKind, Extract, Extraction,
};
use mitra_plugin_sdk::html::squash_ws;
use mitra_plugin_sdk::text::is_caption_start;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The plugin.
pub struct MarkdownExtractor;

/// The Markdown dialect: CommonMark with GFM tables, footnotes, strikethrough and task lists,
/// `$`/`$$` math, and YAML (`---`) or TOML (`+++`) front matter.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_MATH
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS
}

/// The blocks of a document, built from the parser's events in document order.
#[derive(Default)]
struct Blocks {
    out: Vec<Block>,
    /// Inline text of the block being read (paragraph, heading, list item, cell).
    text: String,
    /// Image descriptions met in the current paragraph: captions of their own.
    alts: Vec<String>,
    /// Nesting of lists (0: not in a list) and the lines of the list being read.
    list_depth: usize,
    list: Vec<String>,
    /// Rows of the table being read, cells tab-separated.
    table: Option<Vec<String>>,
    row: Vec<String>,
    /// Footnote definitions being read (their paragraphs become one footnote block).
    footnote: Option<String>,
    /// Raw HTML of an HTML block.
    html: Option<String>,
    in_metadata: bool,
    in_image: bool,
    /// Level of the heading being read (`#` is 1).
    heading_level: u8,
}

impl Blocks {
    fn push(&mut self, kind: BlockKind, text: String) {
        let text = text.trim();
        if !text.is_empty() {
            self.out.push(block(kind, None, text.to_string()));
        }
    }

    /// Ends a paragraph-like run of text: into the footnote, the list, or a block of its own.
    fn end_text(&mut self) {
        let text = squash_ws(&std::mem::take(&mut self.text));
        if let Some(f) = self.footnote.as_mut() {
            if !text.is_empty() {
                if !f.is_empty() {
                    f.push(' ');
                }
                f.push_str(&text);
            }
        } else if self.list_depth > 0 {
            if !text.is_empty() {
                let indent = "  ".repeat(self.list_depth - 1);
                self.list.push(format!("{indent}- {text}"));
            }
        } else if is_caption_start(&text) {
            self.push(BlockKind::Caption, text);
        } else {
            self.push(BlockKind::Body, text);
        }
        for alt in std::mem::take(&mut self.alts) {
            self.push(BlockKind::Caption, alt);
        }
    }

    fn event(&mut self, e: Event<'_>) {
        if self.in_metadata {
            if matches!(e, Event::End(TagEnd::MetadataBlock(_))) {
                self.in_metadata = false;
            }
            return;
        }
        match e {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) if self.in_image => {
                if let Some(alt) = self.alts.last_mut() {
                    alt.push_str(&t);
                }
            }
            Event::Text(t) | Event::Code(t) => self.text.push_str(&t),
            Event::InlineMath(m) => {
                self.text.push('$');
                self.text.push_str(&m);
                self.text.push('$');
            }
            Event::DisplayMath(m) => {
                // A display equation ends the text before it and is a block of its own.
                if self.list_depth == 0 && self.footnote.is_none() && self.table.is_none() {
                    self.end_text();
                    self.push(BlockKind::Equation, m.to_string());
                } else {
                    self.text.push_str(&format!(" $${m}$$ "));
                }
            }
            Event::Html(h) => match self.html.as_mut() {
                Some(raw) => raw.push_str(&h),
                None => self.text.push_str(&html_text(&h)),
            },
            // Inline tags (`<sup>`, `<br>`) are dropped; the text between them stays.
            Event::InlineHtml(_) | Event::FootnoteReference(_) | Event::TaskListMarker(_) => {}
            Event::SoftBreak | Event::HardBreak => self.text.push(' '),
            Event::Rule => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        if let Tag::Heading { level, .. } = &tag {
            self.heading_level = *level as u8;
        }
        match tag {
            // A tight list item's text ends where a nested block starts.
            Tag::Heading { .. } | Tag::Paragraph | Tag::BlockQuote(_)
                if !self.text.trim().is_empty() =>
            {
                self.end_text()
            }
            Tag::CodeBlock(_) => self.end_text(),
            Tag::List(_) => {
                // The text before the list (or the item's own text, before its sub-list).
                self.end_text();
                self.list_depth += 1;
            }
            Tag::Item => {}
            Tag::Table(_) => {
                self.end_text();
                self.table = Some(Vec::new());
            }
            Tag::TableHead | Tag::TableRow => self.row.clear(),
            Tag::TableCell => self.text.clear(),
            Tag::FootnoteDefinition(_) => {
                self.end_text();
                self.footnote = Some(String::new());
            }
            Tag::HtmlBlock => self.html = Some(String::new()),
            Tag::MetadataBlock(_) => self.in_metadata = true,
            Tag::Image { .. } => {
                self.in_image = true;
                self.alts.push(String::new());
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                let text = squash_ws(&std::mem::take(&mut self.text));
                if self.list_depth == 0 && self.footnote.is_none() {
                    let text = text.trim();
                    if !text.is_empty() {
                        self.out.push(heading(self.heading_level, None, text));
                    }
                } else {
                    self.text = text;
                    self.end_text();
                }
            }
            TagEnd::Paragraph | TagEnd::Item => self.end_text(),
            TagEnd::CodeBlock => {
                let code = std::mem::take(&mut self.text);
                if self.list_depth > 0 || self.footnote.is_some() {
                    self.text = code;
                    self.end_text();
                } else {
                    self.push(BlockKind::Body, code);
                }
            }
            TagEnd::List(_) => {
                self.end_text();
                self.list_depth = self.list_depth.saturating_sub(1);
                if self.list_depth == 0 {
                    let lines = std::mem::take(&mut self.list);
                    self.push(BlockKind::Body, lines.join("\n"));
                }
            }
            TagEnd::TableCell => {
                let cell = squash_ws(&std::mem::take(&mut self.text));
                self.row.push(cell.trim().to_string());
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                let row = std::mem::take(&mut self.row).join("\t");
                if let Some(t) = self.table.as_mut() {
                    t.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(rows) = self.table.take() {
                    self.push(BlockKind::Table, rows.join("\n"));
                }
            }
            TagEnd::FootnoteDefinition => {
                self.end_text();
                if let Some(f) = self.footnote.take() {
                    self.push(BlockKind::Footnote, f);
                }
            }
            TagEnd::HtmlBlock => {
                if let Some(raw) = self.html.take() {
                    self.text.push_str(&html_text(&raw));
                    self.end_text();
                }
            }
            TagEnd::Image => self.in_image = false,
            _ => {}
        }
    }
}

/// The text of an HTML fragment (html5ever): tags dropped, script and style contents skipped.
fn html_text(html: &str) -> String {
    let frag = scraper::Html::parse_fragment(html);
    let mut out = String::new();
    for node in frag.tree.root().descendants() {
        if let scraper::Node::Text(t) = node.value() {
            let hidden = node.ancestors().any(|a| {
                a.value()
                    .as_element()
                    .is_some_and(|e| matches!(e.name(), "script" | "style"))
            });
            if !hidden {
                out.push_str(t);
                out.push(' ');
            }
        }
    }
    out
}

/// Splits Markdown (or plain text) into blocks in document order.
pub fn markdown_blocks(text: &str) -> Vec<Block> {
    let mut b = Blocks::default();
    for e in Parser::new_ext(text, options()) {
        b.event(e);
    }
    // pulldown-cmark closes every block it opens, so lists and tables are already flushed.
    b.end_text();
    mark_title(&mut b.out);
    b.out
}

impl Extract for MarkdownExtractor {
    fn extract(bytes: Vec<u8>, media_type: String) -> Result<Extraction, String> {
        let text = String::from_utf8(bytes).map_err(|e| {
            format!(
                "{media_type} is not valid UTF-8 (at byte {})",
                e.utf8_error().valid_up_to()
            )
        })?;
        Ok(Extraction {
            blocks: markdown_blocks(&text),
            skipped: Vec::new(),
        })
    }
}

mitra_plugin_sdk::extractor::export_extractor!(MarkdownExtractor);

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_texts(md: &str) -> Vec<(BlockKind, String)> {
        markdown_blocks(md)
            .into_iter()
            .map(|b| (b.kind, b.text))
            .collect()
    }

    #[test]
    fn blocks_of_every_kind() {
        let md = "---\ntitle: x\n---\n# Signal region\n\nEvents pass\nthe trigger.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nFigure 3: The mT spectrum.\n\n$$ m_T = \\sqrt{2} $$\n\n[^1]: Footnote text.\n\n```\ncode\n```\n";
        let b = markdown_blocks(md);
        let kinds: Vec<BlockKind> = b.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            vec![
                BlockKind::Heading,
                BlockKind::Body,
                BlockKind::Table,
                BlockKind::Caption,
                BlockKind::Equation,
                BlockKind::Footnote,
                BlockKind::Body
            ]
        );
        assert_eq!(b[1].text, "Events pass the trigger.");
        assert_eq!(b[2].text, "a\tb\n1\t2");
        assert_eq!(b[4].text, "m_T = \\sqrt{2}");
    }

    #[test]
    fn heading_levels_with_the_title_at_zero() {
        let levels = |md: &str| -> Vec<(String, Option<u8>)> {
            markdown_blocks(md)
                .into_iter()
                .filter(|b| b.kind == BlockKind::Heading)
                .map(|b| (b.text, b.level))
                .collect()
        };
        let md = "# H to mumu\n\nIntro.\n\n## Selection\n\n### Muons\n\nText.\n\n## Fit\n";
        assert_eq!(
            levels(md),
            vec![
                ("H to mumu".into(), Some(0)),
                ("Selection".into(), Some(2)),
                ("Muons".into(), Some(3)),
                ("Fit".into(), Some(2)),
            ]
        );
        // Two top-level headings: neither is the title.
        let md = "# One\n\ntext\n\n# Two\n\ntext\n";
        assert_eq!(
            levels(md),
            vec![("One".into(), Some(1)), ("Two".into(), Some(1))]
        );
    }

    #[test]
    fn setext_headings_nested_lists_and_inline_markup() {
        let md = "Event selection\n===============\n\nMuons with *pT* > 25 `GeV`:\n\n- tight ID\n- isolated\n  1. track iso\n  2. calo iso\n\nSub\n---\n\n> quoted <sup>note</sup> text\n";
        assert_eq!(
            kinds_and_texts(md),
            vec![
                (BlockKind::Heading, "Event selection".into()),
                (BlockKind::Body, "Muons with pT > 25 GeV:".into()),
                (
                    BlockKind::Body,
                    "- tight ID\n- isolated\n  - track iso\n  - calo iso".into()
                ),
                (BlockKind::Heading, "Sub".into()),
                (BlockKind::Body, "quoted note text".into()),
            ]
        );
    }

    #[test]
    fn html_blocks_images_and_front_matter() {
        let md = "+++\nkey = 1\n+++\n<div class=\"note\">\n<p>Raw &amp; HTML</p>\n<script>x()</script>\n</div>\n\n![Figure 2: Dimuon mass](m.png)\n\nInline $E=mc^2$ math.\n";
        assert_eq!(
            kinds_and_texts(md),
            vec![
                (BlockKind::Body, "Raw & HTML".into()),
                (BlockKind::Caption, "Figure 2: Dimuon mass".into()),
                (BlockKind::Body, "Inline $E=mc^2$ math.".into()),
            ]
        );
    }

    #[test]
    fn never_panics_on_odd_input() {
        for md in [
            "",
            "\u{0}",
            "|",
            "|-|\n|",
            "$$",
            "[^",
            "![",
            "```",
            "<",
            "- - - -",
            "> > >",
            "1. \n   ```\n",
            "\t\t*",
        ] {
            let _ = markdown_blocks(md);
        }
        let deep = "> ".repeat(10_000) + "x";
        let _ = markdown_blocks(&deep);
        let lists = "- ".repeat(5_000) + "x";
        let _ = markdown_blocks(&lists);
    }
}
