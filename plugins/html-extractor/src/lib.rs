//! html-extractor: HTML pages (wikis, Sphinx/MkDocs sites, CMS pages) parsed with html5ever into
//! headings, body, tables, captions, equations and footnotes of the main content; navigation,
//! sidebars, headers, footers and page actions are removed.

mod boilerplate;

use ego_tree::iter::Edge;
use ego_tree::NodeRef;
use mitra_plugin_sdk::extractor::{block, mark_title, Block, BlockKind, Extract, Extraction};
use mitra_plugin_sdk::html::squash_ws;
use mitra_plugin_sdk::text::is_caption_start;
use scraper::{ElementRef, Html, Node};

use boilerplate::{class_words_have, is_boilerplate, main_content};

/// The plugin.
pub struct HtmlExtractor;

/// Elements that end a text block.
const BLOCK_TAGS: [&str; 27] = [
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
    "dl",
    "hr",
    "main",
    "figure",
    "body",
    "table",
    "caption",
    "figcaption",
    "aside",
];

/// Elements whose text is never content.
const NEVER_TEXT: [&str; 11] = [
    "script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas",
    "select", "button",
];

/// A table being read: rows of cells, the cell being read, nesting of inner tables.
#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    cells: Vec<String>,
    cell: String,
    inner: usize,
}

impl Table {
    fn end_row(&mut self) {
        if !self.cells.is_empty() {
            self.rows.push(std::mem::take(&mut self.cells));
        }
    }

    /// A grid (two rows and two columns at least) is a table; anything else is layout, and
    /// its text is body.
    fn finish(mut self) -> Option<(BlockKind, String)> {
        self.end_row();
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let text = if self.rows.len() >= 2 && cols >= 2 {
            let rows: Vec<String> = self.rows.iter().map(|r| r.join("\t")).collect();
            (BlockKind::Table, rows.join("\n"))
        } else {
            let cells: Vec<String> = self.rows.into_iter().flatten().collect();
            (BlockKind::Body, cells.join(" "))
        };
        (!text.1.trim().is_empty()).then_some(text)
    }
}

struct Walker {
    out: Vec<Block>,
    text: String,
    /// Kinds given by enclosing elements (innermost last), with the element that gave them.
    kinds: Vec<(ego_tree::NodeId, BlockKind)>,
    /// Level of the last heading element opened (`h2` is 2).
    heading_level: u8,
    /// `pre` elements open (their text keeps its line breaks).
    pre: usize,
    table: Option<Table>,
}

impl Walker {
    fn kind(&self) -> BlockKind {
        self.kinds.last().map(|k| k.1).unwrap_or(BlockKind::Body)
    }

    fn flush(&mut self) {
        let raw = std::mem::take(&mut self.text);
        let t = if self.pre > 0 {
            raw.trim_matches('\n').trim_end().to_string()
        } else {
            squash_ws(&raw)
        };
        if t.trim().is_empty() {
            return;
        }
        let mut kind = self.kind();
        if kind == BlockKind::Body && is_caption_start(&t) {
            kind = BlockKind::Caption;
        }
        let mut b = block(kind, None, t);
        if kind == BlockKind::Heading {
            b.level = Some(self.heading_level);
        }
        self.out.push(b);
    }

    fn push_text(&mut self, s: &str) {
        match self.table.as_mut() {
            Some(t) => t.cell.push_str(s),
            None => self.text.push_str(s),
        }
    }

    fn open(&mut self, node: NodeRef<'_, Node>, el: ElementRef<'_>) {
        let name = el.value().name();
        if let Some(t) = self.table.as_mut() {
            match name {
                "table" => t.inner += 1,
                "tr" if t.inner == 0 => t.end_row(),
                "td" | "th" if t.inner == 0 => t.cell.clear(),
                "br" | "p" | "div" | "li" => t.cell.push(' '),
                _ => {}
            }
            return;
        }
        if name == "table" {
            self.flush();
            self.table = Some(Table::default());
            return;
        }
        let kind = match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.heading_level = name.as_bytes()[1] - b'0';
                Some(BlockKind::Heading)
            }
            "figcaption" | "caption" => Some(BlockKind::Caption),
            // Display math is a block of its own; inline math stays in its sentence.
            "math" if el.value().attr("display") == Some("block") => Some(BlockKind::Equation),
            _ if class_words_have(el, &["footnote", "footnotes", "fn", "footnote-list"]) => {
                Some(BlockKind::Footnote)
            }
            _ if class_words_have(el, &["equation", "math-display", "displaymath"])
                || (matches!(name, "div" | "p") && class_words_have(el, &["math"])) =>
            {
                Some(BlockKind::Equation)
            }
            _ if class_words_have(el, &["caption", "caption-text"]) => Some(BlockKind::Caption),
            _ => None,
        };
        if kind.is_some() || BLOCK_TAGS.contains(&name) {
            self.flush();
        }
        if let Some(k) = kind {
            self.kinds.push((node.id(), k));
        }
        match name {
            "pre" => self.pre += 1,
            "br" => self.push_text("\n"),
            "img" => {
                if let Some(alt) = el.value().attr("alt").filter(|a| !a.trim().is_empty()) {
                    if self.kinds.iter().any(|k| k.1 == BlockKind::Caption) || in_figure(node) {
                        self.out
                            .push(block(BlockKind::Caption, None, squash_ws(alt)));
                    }
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, node: NodeRef<'_, Node>, el: ElementRef<'_>) {
        let name = el.value().name();
        if let Some(t) = self.table.as_mut() {
            match name {
                "table" if t.inner > 0 => t.inner -= 1,
                "table" => {
                    if let Some(t) = self.table.take() {
                        if let Some((kind, text)) = t.finish() {
                            self.out.push(block(kind, None, text));
                        }
                    }
                }
                "td" | "th" if t.inner == 0 => {
                    let c = squash_ws(&std::mem::take(&mut t.cell));
                    t.cells.push(c);
                }
                "tr" if t.inner == 0 => t.end_row(),
                _ => {}
            }
            return;
        }
        let gave_kind = self.kinds.last().is_some_and(|k| k.0 == node.id());
        if gave_kind || BLOCK_TAGS.contains(&name) {
            self.flush();
        }
        if gave_kind {
            self.kinds.pop();
        }
        if name == "pre" {
            self.pre = self.pre.saturating_sub(1);
        }
    }
}

fn in_figure(node: NodeRef<'_, Node>) -> bool {
    node.ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| a.value().name() == "figure")
}

/// Splits an HTML document into blocks of its main content, in document order.
pub fn html_blocks(html: &str) -> Vec<Block> {
    let doc = Html::parse_document(html);
    let root = main_content(&doc);
    let mut w = Walker {
        out: Vec::new(),
        text: String::new(),
        kinds: Vec::new(),
        heading_level: 1,
        pre: 0,
        table: None,
    };
    // Subtrees skipped: boilerplate and elements without text content. The walk is iterative
    // (documents nested thousands deep do not exhaust the stack).
    let mut skip: Option<ego_tree::NodeId> = None;
    for edge in root.traverse() {
        match edge {
            Edge::Open(node) => {
                if skip.is_some() {
                    continue;
                }
                match node.value() {
                    Node::Text(t) => w.push_text(t),
                    Node::Element(e) => {
                        let Some(el) = ElementRef::wrap(node) else {
                            continue;
                        };
                        if NEVER_TEXT.contains(&e.name()) || is_boilerplate(el) {
                            skip = Some(node.id());
                            continue;
                        }
                        w.open(node, el);
                    }
                    _ => {}
                }
            }
            Edge::Close(node) => {
                if let Some(id) = skip {
                    if id == node.id() {
                        skip = None;
                    }
                    continue;
                }
                if let Some(el) = ElementRef::wrap(node) {
                    w.close(node, el);
                }
            }
        }
    }
    if let Some(t) = w.table.take() {
        if let Some((kind, text)) = t.finish() {
            w.out.push(block(kind, None, text));
        }
    }
    w.flush();
    mark_title(&mut w.out);
    w.out
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

    fn kinds(html: &str) -> Vec<(BlockKind, String)> {
        html_blocks(html)
            .into_iter()
            .map(|b| (b.kind, b.text))
            .collect()
    }

    #[test]
    fn blocks_of_every_kind_without_the_furniture() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
          <nav>Home | Analyses</nav><header>CMS Wiki</header>
          <h1>Muon <em>selection</em></h1><p>Muons with pT &gt; 20 GeV.</p>
          <table><tr><th>cut</th><th>eff</th></tr><tr><td>iso</td><td>0.95</td></tr></table>
          <figure><img src="a.png" alt="Efficiency plot"><figcaption>Figure 2: Efficiency.</figcaption></figure>
          <div class="equation">E = mc^2</div><p class="footnote">1 Measured in 2024.</p>
          <pre>cut -f1
sort</pre>
          <footer>Last edited 2026</footer></body></html>"#;
        let s = |k, t: &str| (k, t.to_string());
        assert_eq!(
            kinds(html),
            vec![
                s(BlockKind::Heading, "Muon selection"),
                s(BlockKind::Body, "Muons with pT > 20 GeV."),
                s(BlockKind::Table, "cut\teff\niso\t0.95"),
                s(BlockKind::Caption, "Efficiency plot"),
                s(BlockKind::Caption, "Figure 2: Efficiency."),
                s(BlockKind::Equation, "E = mc^2"),
                s(BlockKind::Footnote, "1 Measured in 2024."),
                s(BlockKind::Body, "cut -f1\nsort"),
            ]
        );
    }

    #[test]
    fn a_sphinx_page_keeps_its_body_and_drops_sidebars_and_permalinks() {
        let html = r##"<html><body>
          <div class="related" role="navigation"><ul><li><a href="index.html">index</a></li><li><a href="x.html">next</a></li></ul></div>
          <div class="document"><div class="documentwrapper"><div class="bodywrapper">
          <div class="body" role="main">
            <section id="selection"><h1>2. Event selection<a class="headerlink" href="#selection" title="Permalink">¶</a></h1>
            <p>Events need two muons.</p>
            <section id="muons"><h2>2.1. Muons<a class="headerlink" href="#muons">¶</a></h2>
            <p>Muons with <code>pT &gt; 26</code> GeV.</p></section></section>
          </div></div></div>
          <div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li><a href="#">2. Event selection</a></li></ul>
            <div role="note"><h3>This Page</h3><ul><li><a href="_sources/x.rst.txt">Show Source</a></li></ul></div></div>
          </div>
          <div class="footer">© Copyright 2001-2023, Python Software Foundation.</div>
        </body></html>"##;
        let s = |k, t: &str| (k, t.to_string());
        assert_eq!(
            kinds(html),
            vec![
                s(BlockKind::Heading, "2. Event selection"),
                s(BlockKind::Body, "Events need two muons."),
                s(BlockKind::Heading, "2.1. Muons"),
                s(BlockKind::Body, "Muons with pT > 26 GeV."),
            ]
        );
    }

    #[test]
    fn a_twiki_topic_loses_its_bars_and_actions() {
        let html = r#"<html><body class="patternViewPage"><div id="patternScreen"><div id="patternPageShadow">
          <div id="patternTopBar"><div id="patternTopBarContents"><a href="/">CMS TWiki</a> <form><input name="search"></form></div></div>
          <div id="patternPage"><div id="patternWrapper"><div id="patternOuter">
          <div id="patternFloatWrap"><div id="patternMain"><div id="patternMainContents">
            <div class="patternTop"><span class="patternHomePath"><a href="/">CMS</a> &gt; <a href="/Higgs">Higgs</a> &gt; HmmAnalysis</span>
              <span class="patternToolBar"><a href="edit">Edit</a> <a href="attach">Attach</a></span></div>
            <div class="patternContent"><div class="patternTopic">
              <h1>H→μμ analysis</h1><p>The signal region requires m(μμ) in 110–150 GeV.</p>
              <table border="1"><tr><th>Sample</th><th>Events</th></tr><tr><td>DY</td><td>1.2M</td></tr></table>
            </div></div>
            <div class="patternInfo">Topic revision: r12 - 2026-11-02 - JaneDoe</div>
            <div class="patternTopicActions"><a href="edit">Edit</a> | <a href="rdiff">History</a></div>
          </div></div></div>
          <div id="patternSideBar"><div id="patternSideBarContents"><ul><li><a href="WebHome">Web Home</a></li></ul></div></div>
          </div></div></div>
          <div id="patternBottomBar">Copyright © 2008-2026 by the contributing authors.</div>
        </div></div></body></html>"#;
        let s = |k, t: &str| (k, t.to_string());
        assert_eq!(
            kinds(html),
            vec![
                s(BlockKind::Heading, "H→μμ analysis"),
                s(
                    BlockKind::Body,
                    "The signal region requires m(μμ) in 110–150 GeV."
                ),
                s(BlockKind::Table, "Sample\tEvents\nDY\t1.2M"),
            ]
        );
    }

    #[test]
    fn a_page_without_a_main_element_keeps_everything_but_the_boilerplate() {
        let html = r#"<body><div id="menu"><a href="a">A</a> <a href="b">B</a></div>
          <h2>Notes</h2><p>Run 3 at √s = 13.6 TeV.</p><table><tr><td>layout only</td></tr></table>
          <p><a class="edit-this-page" href="e">Edit this page</a></p></body>"#;
        let s = |k, t: &str| (k, t.to_string());
        assert_eq!(
            kinds(html),
            vec![
                s(BlockKind::Heading, "Notes"),
                s(BlockKind::Body, "Run 3 at √s = 13.6 TeV."),
                s(BlockKind::Body, "layout only"),
            ]
        );
    }

    #[test]
    fn broken_and_deep_markup_never_panics() {
        let deep = "<div>".repeat(3_000) + "deep text" + &"</div>".repeat(5);
        assert!(html_blocks(&deep)
            .iter()
            .any(|b| b.text.contains("deep text")));
        for html in [
            "",
            "<",
            "<table><tr><td>a<table><td>b</table>",
            "<h1><p>x</h1></p>",
            "&#xffffffff; &bogus; <a href='>",
            "<pre>\n\n</pre><math><mi>x</mi></math>",
        ] {
            let _ = html_blocks(html);
        }
    }
}
