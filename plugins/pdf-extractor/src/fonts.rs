//! Fonts: code → Unicode (ToUnicode CMaps, encodings with Differences) and glyph widths
//! (`/Widths`, CID `/W`, standard-14 approximations).

use std::collections::HashMap;

use pdf_common::{std14_width, Std14 as Family};

use crate::document::Document;
use crate::encodings::{self, Base};
use crate::objects::{Dict, Lexer, Obj, Tok};
use crate::type1::BuiltIn;

/// A parsed ToUnicode (or encoding) CMap.
#[derive(Clone, Debug, Default)]
pub struct CMap {
    /// Code space ranges: (byte length, low, high).
    pub codespace: Vec<(usize, u32, u32)>,
    single: HashMap<u32, String>,
    ranges: Vec<(u32, u32, Vec<u16>)>,
}

fn be(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .take(4)
        .fold(0u32, |a, &b| (a << 8) | u32::from(b))
}

fn utf16(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks(2)
        .map(|c| {
            if c.len() == 2 {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from(c[0])
            }
        })
        .collect()
}

impl CMap {
    /// Parses `begincodespacerange`, `beginbfchar` and `beginbfrange` sections.
    pub fn parse(data: &[u8]) -> CMap {
        let mut cm = CMap::default();
        let mut lex = Lexer::new(data, 0);
        let mut entries = 0usize;
        loop {
            let tok = lex.next_tok();
            let kw = match tok {
                Tok::Eof => break,
                Tok::Keyword(k) => k,
                _ => continue,
            };
            match kw.as_slice() {
                b"begincodespacerange" => loop {
                    match (lex.next_tok(), lex.next_tok()) {
                        (Tok::Str(lo), Tok::Str(hi)) if !lo.is_empty() => {
                            cm.codespace.push((lo.len().min(4), be(&lo), be(&hi)));
                        }
                        _ => break,
                    }
                },
                b"beginbfchar" => loop {
                    let src = lex.next_tok();
                    let dst = lex.next_tok();
                    match (src, dst) {
                        (Tok::Str(s), Tok::Str(d)) => {
                            cm.single
                                .insert(be(&s), String::from_utf16_lossy(&utf16(&d)));
                        }
                        (Tok::Str(s), Tok::Name(n)) => {
                            if let Some(u) = encodings::glyph_to_unicode(&n) {
                                cm.single.insert(be(&s), u);
                            }
                        }
                        _ => break,
                    }
                    entries += 1;
                    if entries > 200_000 {
                        return cm;
                    }
                },
                b"beginbfrange" => {
                    while let (Tok::Str(lo), Tok::Str(hi)) = (lex.next_tok(), lex.next_tok()) {
                        let (lo, hi) = (be(&lo), be(&hi));
                        if hi < lo {
                            let _ = lex.next_tok();
                            continue;
                        }
                        match lex.next_tok() {
                            Tok::Str(d) => cm.ranges.push((lo, hi, utf16(&d))),
                            Tok::ArrOpen => {
                                let mut code = lo;
                                loop {
                                    match lex.next_tok() {
                                        Tok::Str(d) => {
                                            if code <= hi {
                                                cm.single.insert(
                                                    code,
                                                    String::from_utf16_lossy(&utf16(&d)),
                                                );
                                            }
                                            code = code.saturating_add(1);
                                        }
                                        Tok::ArrClose | Tok::Eof => break,
                                        _ => {}
                                    }
                                }
                            }
                            _ => break,
                        }
                        entries += 1;
                        if entries > 200_000 {
                            return cm;
                        }
                    }
                }
                _ => {}
            }
        }
        cm
    }

    /// The Unicode text of `code`.
    pub fn lookup(&self, code: u32) -> Option<String> {
        if let Some(s) = self.single.get(&code) {
            return Some(s.clone());
        }
        for (lo, hi, base) in self.ranges.iter().rev() {
            if (*lo..=*hi).contains(&code) {
                let mut v = base.clone();
                if let Some(last) = v.last_mut() {
                    *last = last.wrapping_add((code - lo) as u16);
                }
                return Some(String::from_utf16_lossy(&v));
            }
        }
        None
    }

    /// Whether the CMap maps anything.
    pub fn is_empty(&self) -> bool {
        self.single.is_empty() && self.ranges.is_empty()
    }
}

/// The standard-14 family whose metrics approximate a font without `/Widths`.
fn family_of(name: &str, bold: bool) -> Family {
    let n = name.to_ascii_lowercase();
    if n.contains("courier") || n.contains("mono") {
        Family::Courier
    } else if n.contains("times")
        || n.contains("roman")
        || n.contains("serif") && !n.contains("sans")
    {
        if bold {
            Family::TimesBold
        } else {
            Family::Times
        }
    } else if bold {
        Family::HelveticaBold
    } else {
        Family::Helvetica
    }
}

/// Width of `text` in 1/1000 em under a family's metrics (a space's width for empty text).
fn family_width(family: Family, text: &str) -> f64 {
    if text.is_empty() {
        return f64::from(std14_width(family, ' '));
    }
    text.chars()
        .map(|c| f64::from(std14_width(family, c)))
        .sum()
}

/// One decoded glyph.
#[derive(Clone, Debug)]
pub struct Glyph {
    /// Its Unicode text (possibly empty, possibly several characters for ligatures).
    pub text: String,
    /// Advance width in text space units per unit font size (i.e. already divided by 1000).
    pub width: f64,
    /// Whether it is the single-byte code 32 (word spacing applies).
    pub is_space: bool,
}

/// What a font's name, weight and flags say of its look: what the layout reads to tell
/// headings, emphasis and code from body text. Carried by every text run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FontStyle {
    /// Bold (by name, weight or flags).
    pub bold: bool,
    /// Italic or slanted (by name, flags or italic angle).
    pub italic: bool,
    /// Small capitals (by name: CMCSC, EC's ECCC, "Caps", "SC").
    pub smallcaps: bool,
    /// Monospaced (by name or the FixedPitch flag): code, not headings.
    pub mono: bool,
    /// The typeface: a hash of the font's name, equal for the same font on every page.
    pub face: u32,
}

impl FontStyle {
    /// The style of the font `name` whose descriptor hangs off `d`.
    fn of(doc: &Document, name: &str, d: &Dict) -> FontStyle {
        FontStyle {
            bold: is_bold(doc, name, d),
            italic: is_italic(doc, name, d),
            smallcaps: is_smallcaps(name),
            mono: is_mono(doc, name, d),
            face: face_of(name),
        }
    }
}

/// A font ready for decoding.
#[derive(Clone, Debug)]
pub struct Font {
    /// Base font name (subset prefix removed).
    pub name: String,
    /// Bold, italic, small capitals, monospace, typeface.
    pub style: FontStyle,
    cid: bool,
    codespace: Vec<(usize, u32, u32)>,
    to_unicode: Option<CMap>,
    /// Code → text for simple fonts.
    encoding: Vec<Option<String>>,
    /// Simple fonts: widths by code (glyph space units).
    widths: HashMap<u32, f64>,
    default_width: f64,
    family: Option<Family>,
    scale: f64,
    ucs2: bool,
}

impl Font {
    /// A fallback font (Helvetica metrics, WinAnsi) for missing or broken fonts.
    pub fn fallback() -> Font {
        Font {
            name: "Helvetica".into(),
            style: FontStyle::default(),
            cid: false,
            codespace: Vec::new(),
            to_unicode: None,
            encoding: base_table(Base::WinAnsi),
            widths: HashMap::new(),
            default_width: 500.0,
            family: Some(Family::Helvetica),
            scale: 0.001,
            ucs2: false,
        }
    }

    /// Loads a font dictionary.
    pub fn load(doc: &Document, d: &Dict) -> Font {
        let subtype = d.name(b"Subtype").unwrap_or(b"Type1").to_vec();
        let raw_name = d
            .get(b"BaseFont")
            .map(|o| doc.resolve(o))
            .and_then(|o| o.as_name().map(|n| String::from_utf8_lossy(n).into_owned()))
            .unwrap_or_default();
        let name = match raw_name.split_once('+') {
            Some((prefix, rest)) if prefix.len() == 6 => rest.to_string(),
            _ => raw_name,
        };
        let to_unicode = match d.get(b"ToUnicode").map(|o| doc.resolve(o)) {
            Some(Obj::Stream(s)) => doc.decode(&s).ok().map(|b| CMap::parse(&b)),
            _ => None,
        }
        .filter(|c| !c.is_empty());

        let mut font = Font::fallback();
        font.name = name.clone();
        font.to_unicode = to_unicode;

        if subtype == b"Type0" {
            font.cid = true;
            font.encoding = Vec::new();
            font.family = None;
            match d.get(b"Encoding").map(|o| doc.resolve(o)) {
                Some(Obj::Name(n)) => {
                    let n = String::from_utf8_lossy(&n).into_owned();
                    font.ucs2 = n.contains("UCS2") || n.contains("UTF16");
                    font.codespace = vec![(2, 0, 0xFFFF)];
                }
                Some(Obj::Stream(s)) => {
                    if let Ok(b) = doc.decode(&s) {
                        font.codespace = CMap::parse(&b).codespace;
                    }
                }
                _ => {}
            }
            if font.codespace.is_empty() {
                font.codespace = vec![(2, 0, 0xFFFF)];
            }
            let desc = d
                .get(b"DescendantFonts")
                .map(|o| doc.resolve(o))
                .and_then(|a| a.as_array().and_then(|a| a.first().cloned()))
                .and_then(|o| doc.dict(Some(&o)));
            font.default_width = 1000.0;
            if let Some(desc) = desc {
                if let Some(dw) = desc.get(b"DW").and_then(|o| doc.resolve(o).as_f64()) {
                    font.default_width = dw;
                }
                if let Obj::Array(w) = desc.get(b"W").map(|o| doc.resolve(o)).unwrap_or(Obj::Null) {
                    parse_cid_widths(doc, &w, &mut font.widths);
                }
                font.style = FontStyle::of(doc, &name, &desc);
            } else {
                font.style = FontStyle::of(doc, &name, d);
            }
            return font;
        }

        font.style = FontStyle::of(doc, &name, d);
        let lname = name.to_ascii_lowercase();
        let symbolic = lname.contains("symbol");
        let mut base = if symbolic {
            Base::Symbol
        } else {
            Base::Standard
        };
        let mut diffs: Vec<(u8, Vec<u8>)> = Vec::new();
        // Whether the dictionary names a base encoding (else a Type 1 program's own applies).
        let mut explicit_base = false;
        match d.get(b"Encoding").map(|o| doc.resolve(o)) {
            Some(Obj::Name(n)) => {
                explicit_base = true;
                base = named_base(&n).unwrap_or(base);
            }
            Some(Obj::Dict(e)) => {
                if let Some(b) = e.name(b"BaseEncoding").and_then(named_base) {
                    base = b;
                    explicit_base = true;
                }
                if let Some(Obj::Array(a)) = e.get(b"Differences").map(|o| doc.resolve(o)) {
                    let mut code: i64 = 0;
                    for item in a.iter() {
                        match item {
                            Obj::Int(i) => code = *i,
                            Obj::Name(n) => {
                                if let Ok(c) = u8::try_from(code) {
                                    diffs.push((c, n.clone()));
                                }
                                code += 1;
                            }
                            _ => {}
                        }
                    }
                }
            }
            _ => {
                if !symbolic && subtype == b"TrueType" {
                    base = Base::WinAnsi;
                }
            }
        }
        font.encoding = base_table(base);
        let type1 = matches!(subtype.as_slice(), b"Type1" | b"MMType1");
        if !explicit_base && font.to_unicode.is_none() && type1 {
            let builtin = doc
                .dict(d.get(b"FontDescriptor"))
                .and_then(|fd| doc.type1_encoding(&fd));
            match builtin.as_deref() {
                Some(BuiltIn::Standard) => font.encoding = base_table(Base::Standard),
                Some(BuiltIn::Names(names)) => {
                    font.encoding = names
                        .iter()
                        .map(|n| n.as_deref().and_then(encodings::glyph_to_unicode))
                        .collect();
                }
                None => {}
            }
        }
        for (c, n) in diffs {
            font.encoding[usize::from(c)] = encodings::glyph_to_unicode(&n);
        }
        if subtype == b"Type3" {
            if let Some(Obj::Array(m)) = d.get(b"FontMatrix").map(|o| doc.resolve(o)) {
                if let Some(a) = m.first().and_then(Obj::as_f64) {
                    if a.is_finite() && a.abs() > 1e-9 && a.abs() < 100.0 {
                        font.scale = a.abs();
                    }
                }
            }
        }
        let first = d
            .get(b"FirstChar")
            .and_then(|o| doc.resolve(o).as_i64())
            .unwrap_or(0);
        if let Obj::Array(ws) = d
            .get(b"Widths")
            .map(|o| doc.resolve(o))
            .unwrap_or(Obj::Null)
        {
            for (i, w) in ws.iter().enumerate().take(256) {
                if let (Some(w), Ok(code)) =
                    (doc.resolve(w).as_f64(), u32::try_from(first + i as i64))
                {
                    font.widths.insert(code, w);
                }
            }
        }
        let missing = doc.dict(d.get(b"FontDescriptor")).and_then(|fd| {
            fd.get(b"MissingWidth")
                .and_then(|o| doc.resolve(o).as_f64())
        });
        if font.widths.is_empty() {
            font.family = Some(family_of(&name, font.style.bold));
        } else {
            font.family = None;
            font.default_width = missing.unwrap_or_else(|| {
                let sum: f64 = font.widths.values().filter(|w| **w > 0.0).sum();
                let n = font.widths.values().filter(|w| **w > 0.0).count().max(1);
                sum / n as f64
            });
        }
        font
    }

    /// Decodes a string operand into glyphs.
    pub fn decode(&self, bytes: &[u8]) -> Vec<Glyph> {
        let mut out = Vec::with_capacity(bytes.len());
        if !self.cid {
            for &b in bytes {
                let code = u32::from(b);
                let text = self
                    .to_unicode
                    .as_ref()
                    .and_then(|m| m.lookup(code))
                    .or_else(|| self.encoding.get(usize::from(b)).cloned().flatten())
                    .unwrap_or_default();
                let w = match (self.widths.get(&code), self.family) {
                    (Some(w), _) => *w,
                    (None, Some(f)) => family_width(f, &text),
                    (None, None) => self.default_width,
                };
                out.push(Glyph {
                    text,
                    width: w * self.scale,
                    is_space: b == 32,
                });
            }
            return out;
        }
        let mut i = 0;
        while i < bytes.len() {
            let (len, code) = self.next_code(&bytes[i..]);
            i += len;
            let text = match &self.to_unicode {
                Some(m) => m.lookup(code).unwrap_or_default(),
                None if self.ucs2 => char::from_u32(code).map(String::from).unwrap_or_default(),
                None => String::new(),
            };
            let w = self
                .widths
                .get(&code)
                .copied()
                .unwrap_or(self.default_width);
            out.push(Glyph {
                text,
                width: w * self.scale,
                is_space: len == 1 && code == 32,
            });
        }
        out
    }

    fn next_code(&self, bytes: &[u8]) -> (usize, u32) {
        for len in 1..=4usize {
            if len > bytes.len() {
                break;
            }
            let code = be(&bytes[..len]);
            if self
                .codespace
                .iter()
                .any(|(l, lo, hi)| *l == len && (*lo..=*hi).contains(&code))
            {
                return (len, code);
            }
        }
        let len = 2.min(bytes.len()).max(1);
        (len, be(&bytes[..len]))
    }
}

/// Code → text of a base encoding; ligature characters become plain letters (searchable).
fn base_table(base: Base) -> Vec<Option<String>> {
    (0..=255u8)
        .map(|c| {
            encodings::decode(base, c).map(|ch| match ch {
                '\u{FB00}' => "ff".to_string(),
                '\u{FB01}' => "fi".to_string(),
                '\u{FB02}' => "fl".to_string(),
                '\u{FB03}' => "ffi".to_string(),
                '\u{FB04}' => "ffl".to_string(),
                other => other.to_string(),
            })
        })
        .collect()
}

fn named_base(n: &[u8]) -> Option<Base> {
    match n {
        b"WinAnsiEncoding" => Some(Base::WinAnsi),
        b"MacRomanEncoding" | b"MacExpertEncoding" => Some(Base::MacRoman),
        b"StandardEncoding" => Some(Base::Standard),
        _ => None,
    }
}

fn is_bold(doc: &Document, name: &str, d: &Dict) -> bool {
    let n = name.to_ascii_lowercase();
    if [
        "bold",
        "black",
        "heavy",
        "semibold",
        "demi",
        "cmbx",
        "cmb10",
        "-bd",
        "bd,",
        // TeX's bold extended (CMSSBX, EC's SFBX, sans SFSX), Libertine/Biolinum "TB", URW's
        // "Medi" (NimbusRomNo9L-Medi: Times bold).
        "bx",
        "sfsx",
        "libertinetb",
        "biolinumtb",
    ]
    .iter()
    .any(|k| n.contains(k))
        || n.ends_with("bd")
        || (n.contains("-medi") && !n.contains("-medium"))
    {
        return true;
    }
    let fd = doc.dict(d.get(b"FontDescriptor"));
    if let Some(fd) = fd {
        if fd
            .get(b"FontWeight")
            .and_then(|o| doc.resolve(o).as_f64())
            .is_some_and(|w| w >= 600.0)
        {
            return true;
        }
        if fd
            .get(b"Flags")
            .and_then(|o| doc.resolve(o).as_i64())
            .is_some_and(|f| f & (1 << 18) != 0)
        {
            return true;
        }
    }
    false
}

/// A stable typeface identifier: FNV-1a of the lower-cased name without its digits, so that
/// optical sizes of one face (CMR10, CMR12; LMRoman10, LMRoman12) are one face.
fn face_of(name: &str) -> u32 {
    name.bytes()
        .filter(|b| !b.is_ascii_digit())
        .fold(0x811c_9dc5u32, |h, b| {
            (h ^ u32::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0193)
        })
}

/// Monospaced by name (TeX's CMTT, EC's ECTT/SFTT, txfonts' tt, "Mono", Courier, Menlo,
/// Consolas, Inconsolata, Source Code) or by the descriptor's FixedPitch flag.
fn is_mono(doc: &Document, name: &str, d: &Dict) -> bool {
    let n = name.to_ascii_lowercase();
    let tex = [
        "cmtt", "cmitt", "cmsltt", "ectt", "sftt", "tctt", "t1xtt", "t1xbtt", "txtt",
    ];
    if tex.iter().any(|k| n.starts_with(k))
        || [
            "mono",
            "courier",
            "menlo",
            "consola",
            "inconsolata",
            "sourcecode",
            "code",
        ]
        .iter()
        .any(|k| n.contains(k))
    {
        return true;
    }
    doc.dict(d.get(b"FontDescriptor"))
        .and_then(|fd| fd.get(b"Flags").and_then(|o| doc.resolve(o).as_i64()))
        .is_some_and(|f| f & 1 != 0)
}

/// Small capitals by name: TeX's CMCSC, EC's ECCC and TeX Gyre/Latin Modern "Caps", "…SC"
/// faces (MinionPro-RegularSC, LinLibertineTSC).
fn is_smallcaps(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with("cmcsc")
        || n.starts_with("eccc")
        || n.contains("caps")
        || n.contains("smallcap")
        || (n.ends_with("sc") && n.len() > 4)
}

fn is_italic(doc: &Document, name: &str, d: &Dict) -> bool {
    let n = name.to_ascii_lowercase();
    // TeX's CMTI/CMSL/CMBXTI, EC's SFTI/SFSL, Libertine "TI", URW "ReguItal"/"MediItal".
    let tex = [
        "cmti", "cmsl", "cmbxti", "cmbxsl", "cmitt", "sfti", "sfsl", "sfbi", "sfbl",
    ];
    if ["italic", "oblique", "ital", "slanted", "-it"]
        .iter()
        .any(|k| n.contains(k))
        || tex.iter().any(|k| n.starts_with(k))
        || n.ends_with("ti")
        || n.ends_with("tbi")
    {
        return true;
    }
    let Some(fd) = doc.dict(d.get(b"FontDescriptor")) else {
        return false;
    };
    fd.get(b"Flags")
        .and_then(|o| doc.resolve(o).as_i64())
        .is_some_and(|f| f & (1 << 6) != 0)
        || fd
            .get(b"ItalicAngle")
            .and_then(|o| doc.resolve(o).as_f64())
            .is_some_and(|a| a.abs() > 1.0)
}

fn parse_cid_widths(doc: &Document, w: &[Obj], out: &mut HashMap<u32, f64>) {
    let mut i = 0;
    while i < w.len() && out.len() < 200_000 {
        let Some(first) = doc.resolve(&w[i]).as_i64() else {
            i += 1;
            continue;
        };
        match w.get(i + 1).map(|o| doc.resolve(o)) {
            Some(Obj::Array(list)) => {
                for (k, v) in list.iter().enumerate() {
                    if let (Some(v), Ok(c)) = (v.as_f64(), u32::try_from(first + k as i64)) {
                        out.insert(c, v);
                    }
                }
                i += 2;
            }
            Some(o) => {
                let last = o.as_i64().unwrap_or(first);
                let v = w
                    .get(i + 2)
                    .and_then(|o| doc.resolve(o).as_f64())
                    .unwrap_or(1000.0);
                if last >= first && last - first <= 65_536 {
                    for c in first..=last {
                        if let Ok(c) = u32::try_from(c) {
                            out.insert(c, v);
                        }
                    }
                }
                i += 3;
            }
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_and_small_capitals() {
        assert_eq!(face_of("CMR10"), face_of("CMR12"));
        assert_eq!(face_of("LMRoman10-Regular"), face_of("LMRoman12-Regular"));
        assert_ne!(face_of("CMR10"), face_of("CMBX10"));
        assert!(is_smallcaps("CMCSC10"));
        assert!(is_smallcaps("LMRomanCaps10-Regular"));
        assert!(is_smallcaps("MinionPro-RegularSC"));
        assert!(!is_smallcaps("CMR10"));
        assert!(!is_smallcaps("Times-Roman"));
    }

    #[test]
    fn cmap_sections() {
        let cm = CMap::parse(
            b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n\
              2 beginbfchar <0001> <00660069> <0005> <D835DC00> endbfchar\n\
              2 beginbfrange <0010> <0012> <0041> <0020> <0021> [<03B1> <03B2>] endbfrange",
        );
        assert_eq!(cm.codespace, vec![(2, 0, 0xFFFF)]);
        assert_eq!(cm.lookup(1).as_deref(), Some("fi"));
        assert_eq!(cm.lookup(5).as_deref(), Some("𝐀"));
        assert_eq!(cm.lookup(0x12).as_deref(), Some("C"));
        assert_eq!(cm.lookup(0x21).as_deref(), Some("β"));
        assert_eq!(cm.lookup(0x30), None);
    }
}
