//! Writes small PDFs with known structure (standard-14 text, a ToUnicode CID font, an embedded
//! Type 1 font with a built-in encoding, image pages; optionally encrypted).
//!
//! The writer varies how text is emitted (`Td`, `TD`, `Tm`, `T*`, `'`, `TJ` with kerning, several
//! `Tj` per line, `cm`) so that a reader's content-stream interpreter is exercised, and
//! [`sample_paper`] returns a document together with its ground truth ([`ExpectedBlock`]s).

mod cmr;
mod crypt;
mod metrics;
mod mutate;
mod samples;

pub use crypt::{Cipher, Encryption};
pub use mutate::{replace_all, Rng};
pub use samples::{
    image_doc, one_column_doc, sample_paper, sample_paper_doc, styled_headings_doc,
    test_gray_image, tounicode_doc,
};

use std::fmt::Write as _;

/// US letter width in points.
pub const LETTER_WIDTH: f64 = 612.0;
/// US letter height in points.
pub const LETTER_HEIGHT: f64 = 792.0;

/// A font of a generated document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Font {
    /// Standard-14 Helvetica (WinAnsiEncoding).
    Helvetica,
    /// Standard-14 Helvetica-Bold (WinAnsiEncoding).
    HelveticaBold,
    /// Standard-14 Times-Roman (WinAnsiEncoding).
    TimesRoman,
    /// Standard-14 Times-Bold (WinAnsiEncoding).
    TimesBold,
    /// Standard-14 Courier (WinAnsiEncoding).
    Courier,
    /// A Type0 font (Identity-H, two-byte codes that are not ASCII) whose text is only
    /// recoverable through its ToUnicode CMap (bfrange, bfrange with an array, bfchar "fi").
    Cid,
    /// An embedded Type 1 font as pdflatex writes it (Computer Modern, OT1 layout: ligatures on
    /// codes 11..=15, quotes on 34 and 92, dashes on 123 and 124) with no `/Encoding` and no
    /// ToUnicode: the text is only recoverable through the program's built-in encoding.
    Cmr,
}

impl Font {
    const ALL: [Font; 7] = [
        Font::Helvetica,
        Font::HelveticaBold,
        Font::TimesRoman,
        Font::TimesBold,
        Font::Courier,
        Font::Cid,
        Font::Cmr,
    ];

    /// The resource name of the font in every page's `/Font` dictionary (`F1`..`F6`).
    pub fn resource_name(self) -> &'static str {
        match self {
            Font::Helvetica => "F1",
            Font::HelveticaBold => "F2",
            Font::TimesRoman => "F3",
            Font::TimesBold => "F4",
            Font::Courier => "F5",
            Font::Cid => "F6",
            Font::Cmr => "F7",
        }
    }

    fn base_font(self) -> &'static str {
        match self {
            Font::Helvetica | Font::Cid => "Helvetica",
            Font::HelveticaBold => "Helvetica-Bold",
            Font::TimesRoman => "Times-Roman",
            Font::TimesBold => "Times-Bold",
            Font::Courier => "Courier",
            Font::Cmr => "CMR10",
        }
    }
}

/// How a text item is written into the content stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// `x y Td (..) Tj`, later lines with relative `Td`.
    Td,
    /// Like `Td` but later lines use `TD` (which also sets the leading).
    TD,
    /// Every line positioned with `1 0 0 1 x y Tm`.
    Tm,
    /// Leading set with `TL`, later lines with `T*`.
    TStar,
    /// Leading set with `TL`, later lines shown with the `'` operator.
    Quote,
    /// Every line a `TJ` array: spaces replaced by kerning numbers, small kerns inside words.
    TjKern,
    /// Every line split into several `Tj` operators.
    MultiTj,
    /// Every line inside `q 1 0 0 1 x y cm BT .. 0 0 Td .. ET Q`.
    Cm,
}

/// Paragraph style: font, size, leading, emission and first-line indent.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// The font.
    pub font: Font,
    /// Font size in points.
    pub size: f64,
    /// Baseline-to-baseline distance in points.
    pub leading: f64,
    /// How the lines are written.
    pub emit: Emit,
    /// Indent of the first line in points.
    pub indent: f64,
}

impl Style {
    /// A style with leading 1.2 × size, `Td` emission and no indent.
    pub fn new(font: Font, size: f64) -> Style {
        Style {
            font,
            size,
            leading: size * 1.2,
            emit: Emit::Td,
            indent: 0.0,
        }
    }
    /// Sets the leading.
    pub fn leading(mut self, leading: f64) -> Style {
        self.leading = leading;
        self
    }
    /// Sets the emission.
    pub fn emit(mut self, emit: Emit) -> Style {
        self.emit = emit;
        self
    }
    /// Sets the first-line indent.
    pub fn indent(mut self, indent: f64) -> Style {
        self.indent = indent;
        self
    }
}

/// Width of `text` in points when set in `font` at `size`.
pub fn text_width(font: Font, size: f64, text: &str) -> f64 {
    text.chars()
        .map(|c| f64::from(metrics::char_width(font, c)))
        .sum::<f64>()
        * size
        / 1000.0
}

/// Greedy word wrap of `text` into lines no wider than `width` (the first `indent` narrower).
pub fn wrap(text: &str, font: Font, size: f64, width: f64, indent: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let avail = if lines.is_empty() {
            width - indent
        } else {
            width
        };
        let candidate = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if !cur.is_empty() && text_width(font, size, &candidate) > avail {
            lines.push(std::mem::replace(&mut cur, word.to_string()));
        } else {
            cur = candidate;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

#[derive(Clone, Debug)]
enum Item {
    Text {
        font: Font,
        size: f64,
        emit: Emit,
        lines: Vec<(f64, f64, String)>,
    },
    Raw(String),
}

#[derive(Clone, Debug)]
enum PageImage {
    Gray {
        data: Vec<u8>,
        width: u32,
        height: u32,
    },
    Jpeg {
        data: Vec<u8>,
        width: u32,
        height: u32,
        components: u8,
    },
}

/// One page under construction.
#[derive(Clone, Debug)]
pub struct Page {
    width: f64,
    height: f64,
    items: Vec<Item>,
    image: Option<PageImage>,
}

impl Page {
    /// Page width in points.
    pub fn width(&self) -> f64 {
        self.width
    }

    /// Page height in points.
    pub fn height(&self) -> f64 {
        self.height
    }

    /// One line of text with its baseline starting at (x, y), written with `Td`.
    pub fn text(&mut self, x: f64, y: f64, font: Font, size: f64, text: &str) -> &mut Page {
        self.text_with(x, y, font, size, text, Emit::Td)
    }

    /// One line of text at (x, y) written with the given emission.
    pub fn text_with(
        &mut self,
        x: f64,
        y: f64,
        font: Font,
        size: f64,
        text: &str,
        emit: Emit,
    ) -> &mut Page {
        self.lines(font, size, emit, vec![(x, y, text.to_string())])
    }

    /// One line centred on `cx`.
    pub fn centered(&mut self, cx: f64, y: f64, font: Font, size: f64, text: &str) -> &mut Page {
        let x = cx - text_width(font, size, text) / 2.0;
        self.text(x, y, font, size, text)
    }

    /// One line ending at `right`.
    pub fn right_aligned(
        &mut self,
        right: f64,
        y: f64,
        font: Font,
        size: f64,
        text: &str,
    ) -> &mut Page {
        let x = right - text_width(font, size, text);
        self.text(x, y, font, size, text)
    }

    /// Several lines `(x, y, text)` written as one text object with the given emission.
    pub fn lines(
        &mut self,
        font: Font,
        size: f64,
        emit: Emit,
        lines: Vec<(f64, f64, String)>,
    ) -> &mut Page {
        self.items.push(Item::Text {
            font,
            size,
            emit,
            lines,
        });
        self
    }

    /// A wrapped paragraph whose first baseline is at `y`, left edge `x`, width `width`.
    /// Returns the baseline of the line that would follow it (`y` of last line − leading).
    pub fn paragraph(&mut self, x: f64, y: f64, width: f64, style: Style, text: &str) -> f64 {
        let wrapped = wrap(text, style.font, style.size, width, style.indent);
        let mut lines = Vec::new();
        let mut yy = y;
        for (i, l) in wrapped.into_iter().enumerate() {
            let lx = if i == 0 { x + style.indent } else { x };
            lines.push((lx, yy, l));
            yy -= style.leading;
        }
        self.lines(style.font, style.size, style.emit, lines);
        yy
    }

    /// A line starting with a raised, smaller marker (a footnote mark), then `text`.
    pub fn marked(
        &mut self,
        x: f64,
        y: f64,
        font: Font,
        size: f64,
        marker: &str,
        text: &str,
    ) -> &mut Page {
        let f = font.resource_name();
        let msize = size * 0.7;
        let rise = size * 0.4;
        let gap = text_width(font, msize, marker) + size * 0.25;
        let ops = format!(
            "BT /{f} {} Tf {} {} Td {} Ts {} Tj 0 Ts /{f} {} Tf {} 0 Td {} Tj ET\n",
            num(msize),
            num(x),
            num(y),
            num(rise),
            pdf_string(font, marker),
            num(size),
            num(gap),
            pdf_string(font, text)
        );
        self.raw(&ops)
    }

    /// Appends raw content-stream operators (paths, colours, anything), ended by a newline
    /// when they do not end in whitespace (so that the next item's first operator stays a
    /// separate token).
    pub fn raw(&mut self, ops: &str) -> &mut Page {
        let mut ops = ops.to_string();
        if !ops.ends_with(char::is_whitespace) {
            ops.push('\n');
        }
        self.items.push(Item::Raw(ops));
        self
    }

    fn content(&self) -> String {
        let mut out = String::new();
        if self.image.is_some() {
            let _ = writeln!(
                out,
                "q {} 0 0 {} 0 0 cm /Im1 Do Q",
                num(self.width),
                num(self.height)
            );
        }
        for item in &self.items {
            match item {
                Item::Raw(s) => out.push_str(s),
                Item::Text {
                    font,
                    size,
                    emit,
                    lines,
                } => write_text(&mut out, *font, *size, *emit, lines),
            }
        }
        out
    }
}

/// Formats a number the way PDF writers do (at most three decimals, no trailing zeros).
fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" || s.is_empty() {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Encodes text for `font`: WinAnsi bytes for simple fonts, two-byte codes for [`Font::Cid`].
pub fn encode(font: Font, text: &str) -> Vec<u8> {
    if font == Font::Cid {
        let mut out = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let code: u16 = if c == 'f' && chars.peek() == Some(&'i') {
                chars.next();
                0x0001
            } else if c == 'α' {
                0x0002
            } else if c == 'β' {
                0x0003
            } else if (c as u32) < 0x100 {
                0x100 + c as u16
            } else {
                0x100 + u16::from(b'?')
            };
            out.extend_from_slice(&code.to_be_bytes());
        }
        return out;
    }
    if font == Font::Cmr {
        return cmr::encode(text);
    }
    text.chars()
        .map(|c| match c {
            '€' => 0x80,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '…' => 0x85,
            c if (c as u32) < 0x80 || (0xA0..=0xFF).contains(&(c as u32)) => c as u32 as u8,
            _ => b'?',
        })
        .collect()
}

/// A PDF string operand for `text`: a literal string for simple fonts, hex for CID fonts.
fn pdf_string(font: Font, text: &str) -> String {
    let bytes = encode(font, text);
    if font == Font::Cid {
        let mut s = String::from("<");
        for b in bytes {
            let _ = write!(s, "{b:02X}");
        }
        s.push('>');
        return s;
    }
    let mut s = String::from("(");
    for b in bytes {
        match b {
            b'(' | b')' | b'\\' => {
                s.push('\\');
                s.push(b as char);
            }
            0x20..=0x7E => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s.push(')');
    s
}

fn write_text(out: &mut String, font: Font, size: f64, emit: Emit, lines: &[(f64, f64, String)]) {
    let f = font.resource_name();
    let tf = format!("/{f} {} Tf", num(size));
    match emit {
        Emit::Cm => {
            for (x, y, t) in lines {
                let _ = writeln!(
                    out,
                    "q 1 0 0 1 {} {} cm BT {tf} 0 0 Td {} Tj ET Q",
                    num(*x),
                    num(*y),
                    pdf_string(font, t)
                );
            }
        }
        Emit::Tm => {
            let _ = writeln!(out, "BT {tf}");
            for (x, y, t) in lines {
                let _ = writeln!(
                    out,
                    "1 0 0 1 {} {} Tm {} Tj",
                    num(*x),
                    num(*y),
                    pdf_string(font, t)
                );
            }
            out.push_str("ET\n");
        }
        _ => {
            let _ = writeln!(out, "BT {tf} 0 Tc 0 Tw");
            let leading = if lines.len() > 1 {
                lines[0].1 - lines[1].1
            } else {
                size * 1.2
            };
            if matches!(emit, Emit::TStar | Emit::Quote) {
                let _ = writeln!(out, "{} TL", num(leading));
            }
            let mut prev: Option<(f64, f64)> = None;
            for (x, y, t) in lines {
                let (dx, dy) = match prev {
                    None => (*x, *y),
                    Some((px, py)) => (x - px, y - py),
                };
                let simple_next = prev.is_some() && dx.abs() < 1e-9 && (dy + leading).abs() < 1e-9;
                match emit {
                    Emit::TStar if simple_next => {
                        let _ = writeln!(out, "T* {} Tj", pdf_string(font, t));
                    }
                    Emit::Quote if simple_next => {
                        let _ = writeln!(out, "{} '", pdf_string(font, t));
                    }
                    Emit::TD if prev.is_some() => {
                        let _ =
                            writeln!(out, "{} {} TD {} Tj", num(dx), num(dy), pdf_string(font, t));
                    }
                    Emit::TjKern => {
                        let _ = writeln!(out, "{} {} Td {} TJ", num(dx), num(dy), kerned(font, t));
                    }
                    Emit::MultiTj => {
                        let _ = write!(out, "{} {} Td", num(dx), num(dy));
                        for chunk in chunks(t) {
                            let _ = write!(out, " {} Tj", pdf_string(font, &chunk));
                        }
                        out.push('\n');
                    }
                    _ => {
                        let _ =
                            writeln!(out, "{} {} Td {} Tj", num(dx), num(dy), pdf_string(font, t));
                    }
                }
                prev = Some((*x, *y));
            }
            out.push_str("ET\n");
        }
    }
}

/// A `TJ` array for `text`: every space becomes a kerning number of the space's width, and
/// words of five or more letters get a small kern pair that cancels out.
fn kerned(font: Font, text: &str) -> String {
    let space = metrics::char_width(font, ' ');
    let mut s = String::from("[");
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            let _ = write!(s, " -{space} ");
        }
        let chars: Vec<char> = word.chars().collect();
        if chars.len() >= 5 {
            let a: String = chars[..2].iter().collect();
            let b: String = chars[2..4].iter().collect();
            let c: String = chars[4..].iter().collect();
            let _ = write!(
                s,
                "{} 12 {} -12 {}",
                pdf_string(font, &a),
                pdf_string(font, &b),
                pdf_string(font, &c)
            );
        } else {
            s.push_str(&pdf_string(font, word));
        }
    }
    s.push(']');
    s
}

/// Splits a line into up to three chunks at spaces (the spaces stay in the chunks).
fn chunks(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split(' ').collect();
    if words.len() < 3 {
        return vec![text.to_string()];
    }
    let third = words.len().div_ceil(3);
    words
        .chunks(third)
        .enumerate()
        .map(|(i, ws)| {
            let mut c = ws.join(" ");
            if (i + 1) * third < words.len() {
                c.push(' ');
            }
            c
        })
        .collect()
}

/// A document under construction.
#[derive(Clone, Debug)]
pub struct Doc {
    pages: Vec<Page>,
    compress: bool,
    widths: bool,
    encryption: Option<Encryption>,
}

impl Default for Doc {
    fn default() -> Self {
        Doc::new()
    }
}

impl Doc {
    /// An empty document: uncompressed content streams, `/Widths` written for simple fonts.
    pub fn new() -> Doc {
        Doc {
            pages: Vec::new(),
            compress: false,
            widths: true,
            encryption: None,
        }
    }

    /// Whether content streams are Flate-compressed.
    pub fn set_compress(&mut self, on: bool) -> &mut Doc {
        self.compress = on;
        self
    }

    /// Whether simple fonts carry `/FirstChar`/`/Widths` (otherwise readers must use built-in
    /// standard-14 metrics).
    pub fn set_widths(&mut self, on: bool) -> &mut Doc {
        self.widths = on;
        self
    }

    /// Encrypts the document with the standard security handler (`None`: not encrypted).
    pub fn set_encryption(&mut self, encryption: Option<Encryption>) -> &mut Doc {
        self.encryption = encryption;
        self
    }

    /// Adds a page of the given size (points) and returns it.
    pub fn add_page(&mut self, width: f64, height: f64) -> &mut Page {
        self.pages.push(Page {
            width,
            height,
            items: Vec::new(),
            image: None,
        });
        let last = self.pages.len() - 1;
        &mut self.pages[last]
    }

    /// Adds a US letter page (612 × 792 pt).
    pub fn add_letter_page(&mut self) -> &mut Page {
        self.add_page(LETTER_WIDTH, LETTER_HEIGHT)
    }

    /// Adds a letter page showing an 8-bit DeviceGray image (`width` × `height` samples, row
    /// major, top row first, FlateDecode) across the whole page, with no text layer.
    pub fn image_page(&mut self, gray: &[u8], width: u32, height: u32) -> &mut Page {
        let page = self.add_letter_page();
        page.image = Some(PageImage::Gray {
            data: gray.to_vec(),
            width,
            height,
        });
        page
    }

    /// Adds a letter page showing a JPEG (DCTDecode, stored as given) across the whole page.
    pub fn jpeg_page(&mut self, jpeg: &[u8], width: u32, height: u32, components: u8) -> &mut Page {
        let page = self.add_letter_page();
        page.image = Some(PageImage::Jpeg {
            data: jpeg.to_vec(),
            width,
            height,
            components,
        });
        page
    }

    /// Number of pages so far.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Serialises the document (header, objects, xref table, trailer).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer {
            keys: self.encryption.as_ref().map(crypt::Keys::new),
            ..Writer::default()
        };
        w.out.extend_from_slice(b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n");
        // Object numbers: 1 catalog, 2 page tree, fonts, then per page (page, content, image).
        let font_base = 3u32;
        let cid_extra = font_base + Font::ALL.len() as u32; // descendant, ToUnicode
        let cmr_extra = cid_extra + 2; // descriptor, font program
        let first_page_obj = cmr_extra + 2;
        let mut next = first_page_obj;
        let mut page_objs = Vec::new();
        for p in &self.pages {
            let page_obj = next;
            let image_obj = if p.image.is_some() {
                Some(next + 2)
            } else {
                None
            };
            next += if p.image.is_some() { 3 } else { 2 };
            page_objs.push((page_obj, image_obj));
        }

        w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>");
        let kids: Vec<String> = page_objs.iter().map(|(p, _)| format!("{p} 0 R")).collect();
        w.obj(
            2,
            &format!(
                "<< /Type /Pages /Kids [{}] /Count {} >>",
                kids.join(" "),
                self.pages.len()
            ),
        );
        let mut font_dict = String::from("<<");
        for (i, f) in Font::ALL.iter().enumerate() {
            let num = font_base + i as u32;
            let _ = write!(font_dict, " /{} {num} 0 R", f.resource_name());
            if *f == Font::Cmr {
                w.obj(num, &cmr::font_dict(cmr_extra));
                w.obj(cmr_extra, &cmr::descriptor(cmr_extra + 1));
                let program = cmr::program();
                let extra = format!(
                    "/Length1 {} /Length2 {} /Length3 0",
                    cmr::cleartext_len(),
                    program.len() - cmr::cleartext_len()
                );
                w.stream(cmr_extra + 1, &extra, &program, self.compress);
            } else if *f == Font::Cid {
                w.obj(
                    num,
                    &format!(
                        "<< /Type /Font /Subtype /Type0 /BaseFont /Helvetica-Identity \
                         /Encoding /Identity-H /DescendantFonts [{} 0 R] /ToUnicode {} 0 R >>",
                        cid_extra,
                        cid_extra + 1
                    ),
                );
            } else {
                let mut d = format!(
                    "<< /Type /Font /Subtype /Type1 /BaseFont /{} /Encoding /WinAnsiEncoding",
                    f.base_font()
                );
                if self.widths && *f != Font::Courier {
                    let ws: Vec<String> = (32u8..=255)
                        .map(|c| metrics::char_width(*f, c as char).to_string())
                        .collect();
                    let _ = write!(d, " /FirstChar 32 /LastChar 255 /Widths [{}]", ws.join(" "));
                }
                d.push_str(" >>");
                w.obj(num, &d);
            }
        }
        font_dict.push_str(" >>");
        // The CID font: widths of codes 0x120..=0x17E are Helvetica's ASCII widths.
        let ascii: Vec<String> = (32u8..=126)
            .map(|c| metrics::char_width(Font::Cid, c as char).to_string())
            .collect();
        w.obj(
            cid_extra,
            &format!(
                "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Helvetica-Identity \
                 /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> \
                 /DW 556 /W [1 [556 600 580] 288 [{}]] >>",
                ascii.join(" ")
            ),
        );
        let cmap = "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
            /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
            /CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
            1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n\
            1 beginbfchar\n<0001> <00660069>\nendbfchar\n\
            2 beginbfrange\n<0002> <0003> [<03B1> <03B2>]\n<0100> <01FF> <0000>\nendbfrange\n\
            endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
        w.stream(cid_extra + 1, "", cmap.as_bytes(), self.compress);

        for (p, (page_obj, image_obj)) in self.pages.iter().zip(&page_objs) {
            let xobj = match image_obj {
                Some(i) => format!(" /XObject << /Im1 {i} 0 R >>"),
                None => String::new(),
            };
            w.obj(
                *page_obj,
                &format!(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] \
                     /Resources << /Font {font_dict}{xobj} >> /Contents {} 0 R >>",
                    num(p.width),
                    num(p.height),
                    page_obj + 1
                ),
            );
            w.stream(page_obj + 1, "", p.content().as_bytes(), self.compress);
            if let (Some(img), Some(num_img)) = (&p.image, image_obj) {
                match img {
                    PageImage::Gray {
                        data,
                        width,
                        height,
                    } => {
                        let dict = format!(
                            "/Type /XObject /Subtype /Image /Width {width} /Height {height} \
                             /ColorSpace /DeviceGray /BitsPerComponent 8"
                        );
                        w.stream(*num_img, &dict, data, true);
                    }
                    PageImage::Jpeg {
                        data,
                        width,
                        height,
                        components,
                    } => {
                        let cs = if *components == 1 {
                            "/DeviceGray"
                        } else {
                            "/DeviceRGB"
                        };
                        let dict = format!(
                            "/Type /XObject /Subtype /Image /Width {width} /Height {height} \
                             /ColorSpace {cs} /BitsPerComponent 8 /Filter /DCTDecode"
                        );
                        w.stream(*num_img, &dict, data, false);
                    }
                }
            }
        }
        w.finish(next)
    }
}

#[derive(Default)]
struct Writer {
    out: Vec<u8>,
    offsets: Vec<(u32, usize)>,
    keys: Option<crypt::Keys>,
}

impl Writer {
    fn obj(&mut self, num: u32, body: &str) {
        let body = match &self.keys {
            Some(k) => k.encrypt_strings(num, body),
            None => body.to_string(),
        };
        self.offsets.push((num, self.out.len()));
        self.out
            .extend_from_slice(format!("{num} 0 obj\n{body}\nendobj\n").as_bytes());
    }

    /// A stream object; `dict` holds extra entries (without `<<`/`>>`).
    fn stream(&mut self, num: u32, dict: &str, data: &[u8], compress: bool) {
        self.offsets.push((num, self.out.len()));
        let (data, filter) = if compress {
            (
                miniz_oxide::deflate::compress_to_vec_zlib(data, 6),
                " /Filter /FlateDecode",
            )
        } else {
            (data.to_vec(), "")
        };
        let data = match &self.keys {
            Some(k) => k.encrypt(num, &data),
            None => data,
        };
        let sep = if dict.is_empty() { "" } else { " " };
        self.out.extend_from_slice(
            format!(
                "{num} 0 obj\n<< {dict}{sep}/Length {}{filter} >>\nstream\n",
                data.len()
            )
            .as_bytes(),
        );
        self.out.extend_from_slice(&data);
        self.out.extend_from_slice(b"\nendstream\nendobj\n");
    }

    fn finish(mut self, mut size: u32) -> Vec<u8> {
        let mut trailer_extra = String::new();
        if let Some(k) = self.keys.take() {
            // The encryption dictionary's own strings are not encrypted.
            self.offsets.push((size, self.out.len()));
            self.out
                .extend_from_slice(format!("{size} 0 obj\n{}\nendobj\n", k.dict).as_bytes());
            let id: String = crypt::FILE_ID.iter().map(|b| format!("{b:02X}")).collect();
            trailer_extra = format!(" /Encrypt {size} 0 R /ID [<{id}> <{id}>]");
            size += 1;
        }
        let xref = self.out.len();
        let mut offs = vec![None; size as usize];
        for (n, o) in &self.offsets {
            offs[*n as usize] = Some(*o);
        }
        let mut s = format!("xref\n0 {size}\n0000000000 65535 f \n");
        for o in offs.iter().skip(1) {
            match o {
                Some(o) => {
                    let _ = writeln!(s, "{o:010} 00000 n ");
                }
                None => s.push_str("0000000000 00000 f \n"),
            }
        }
        let _ = write!(
            s,
            "trailer\n<< /Size {size} /Root 1 0 R{trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n"
        );
        self.out.extend_from_slice(s.as_bytes());
        self.out
    }
}

/// What kind of block the ground truth expects (the extractor's own vocabulary).
pub use pdf_common::Kind;

/// One expected block, in reading order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedBlock {
    /// The block kind.
    pub kind: Kind,
    /// 1-based page number.
    pub page: u32,
    /// A distinctive substring of the block's text (the whole text for short blocks).
    pub text: String,
}

impl ExpectedBlock {
    /// Shorthand constructor.
    pub fn new(kind: Kind, page: u32, text: &str) -> ExpectedBlock {
        ExpectedBlock {
            kind,
            page,
            text: text.to_string(),
        }
    }
}
