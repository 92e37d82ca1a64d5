//! Simple-font encodings (WinAnsi, MacRoman, Standard, Symbol) and glyph names to Unicode.

use pdf_common::ASCII_GLYPH_NAMES as ASCII_NAMES;

/// WinAnsiEncoding 0x80..=0x9F (cp1252); `\0` marks unused codes.
const WIN_80: [char; 32] = [
    '€', '\0', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\0', 'Ž', '\0', '\0', '‘',
    '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\0', 'ž', 'Ÿ',
];

/// MacRomanEncoding 0x80..=0xFF.
const MAC_80: &str = "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø\
¿¡¬√ƒ≈∆«»… ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\u{F8FF}ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ";

/// A base encoding of a simple font.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// WinAnsiEncoding.
    WinAnsi,
    /// MacRomanEncoding.
    MacRoman,
    /// StandardEncoding (the Type 1 default).
    Standard,
    /// The Symbol font's built-in encoding (Greek letters on Latin positions).
    Symbol,
}

/// Decodes one code of a base encoding.
pub fn decode(base: Base, code: u8) -> Option<char> {
    match base {
        Base::WinAnsi => match code {
            0x20..=0x7E => Some(code as char),
            0x80..=0x9F => Some(WIN_80[usize::from(code - 0x80)]).filter(|c| *c != '\0'),
            0xA0..=0xFF => char::from_u32(u32::from(code)),
            _ => None,
        },
        Base::MacRoman => match code {
            0x20..=0x7E => Some(code as char),
            0x80..=0xFF => MAC_80.chars().nth(usize::from(code - 0x80)),
            _ => None,
        },
        Base::Standard => match code {
            0x27 => Some('’'),
            0x60 => Some('‘'),
            0x20..=0x7E => Some(code as char),
            0xA1 => Some('¡'),
            0xA2 => Some('¢'),
            0xA3 => Some('£'),
            0xA5 => Some('¥'),
            0xA7 => Some('§'),
            0xA9 => Some('\''),
            0xAA => Some('“'),
            0xAB => Some('«'),
            0xAE => Some('ﬁ'),
            0xAF => Some('ﬂ'),
            0xB1 => Some('–'),
            0xB2 => Some('†'),
            0xB3 => Some('‡'),
            0xB7 => Some('•'),
            0xBA => Some('”'),
            0xBB => Some('»'),
            0xBC => Some('…'),
            0xBF => Some('¿'),
            0xD0 => Some('—'),
            0xE1 => Some('Æ'),
            0xE9 => Some('Ø'),
            0xEA => Some('Œ'),
            0xF1 => Some('æ'),
            0xF5 => Some('ı'),
            0xF8 => Some('ø'),
            0xF9 => Some('œ'),
            0xFA => Some('ß'),
            _ => None,
        },
        Base::Symbol => {
            const GREEK_UPPER: &str = "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ";
            const GREEK_LOWER: &str = "αβχδεφγηιϕκλμνοπθρστυϖωξψζ";
            match code {
                b'A'..=b'Z' => GREEK_UPPER.chars().nth(usize::from(code - b'A')),
                b'a'..=b'z' => GREEK_LOWER.chars().nth(usize::from(code - b'a')),
                0x20..=0x40 | 0x5B..=0x60 | 0x7B..=0x7E => Some(code as char),
                0xA3 => Some('≤'),
                0xA5 => Some('∞'),
                0xAE => Some('→'),
                0xB0 => Some('°'),
                0xB1 => Some('±'),
                0xB3 => Some('≥'),
                0xB4 => Some('×'),
                0xB5 => Some('∝'),
                0xB6 => Some('∂'),
                0xB7 => Some('•'),
                0xB8 => Some('÷'),
                0xB9 => Some('≠'),
                0xBB => Some('≈'),
                0xD6 => Some('√'),
                0xE5 => Some('∑'),
                0xF2 => Some('∫'),
                _ => None,
            }
        }
    }
}

/// Glyph names beyond the ones derivable from WinAnsi (ligatures, Greek, maths, TeX names).
const EXTRA_NAMES: &[(&str, &str)] = &[
    ("fi", "fi"),
    ("fl", "fl"),
    ("ff", "ff"),
    ("ffi", "ffi"),
    ("ffl", "ffl"),
    ("dotlessi", "ı"),
    ("minus", "−"),
    ("quotesingle", "'"),
    ("grave", "`"),
    ("quoteright", "’"),
    ("quoteleft", "‘"),
    ("fraction", "⁄"),
    ("periodcentered", "·"),
    ("middot", "·"),
    ("lessequal", "≤"),
    ("greaterequal", "≥"),
    ("notequal", "≠"),
    ("approxequal", "≈"),
    ("infinity", "∞"),
    ("partialdiff", "∂"),
    ("summation", "∑"),
    ("product", "∏"),
    ("integral", "∫"),
    ("radical", "√"),
    ("proportional", "∝"),
    ("element", "∈"),
    ("arrowright", "→"),
    ("arrowleft", "←"),
    ("arrowboth", "↔"),
    ("degree", "°"),
    ("prime", "′"),
    ("similar", "∼"),
    ("nabla", "∇"),
    ("Delta", "Δ"),
    ("Omega", "Ω"),
    ("mu", "µ"),
    ("lslash", "ł"),
    ("Lslash", "Ł"),
    ("dotaccent", "˙"),
    ("ring", "˚"),
    ("breve", "˘"),
    ("ogonek", "˛"),
    ("hungarumlaut", "˝"),
    ("caron", "ˇ"),
    ("nbspace", " "),
    ("sfthyphen", "-"),
];

/// Greek letter names in alphabet order (lower case; capitalised names map to capitals).
const GREEK: [(&str, char); 24] = [
    ("alpha", 'α'),
    ("beta", 'β'),
    ("gamma", 'γ'),
    ("delta", 'δ'),
    ("epsilon", 'ε'),
    ("zeta", 'ζ'),
    ("eta", 'η'),
    ("theta", 'θ'),
    ("iota", 'ι'),
    ("kappa", 'κ'),
    ("lambda", 'λ'),
    ("mu", 'μ'),
    ("nu", 'ν'),
    ("xi", 'ξ'),
    ("omicron", 'ο'),
    ("pi", 'π'),
    ("rho", 'ρ'),
    ("sigma", 'σ'),
    ("tau", 'τ'),
    ("upsilon", 'υ'),
    ("phi", 'φ'),
    ("chi", 'χ'),
    ("psi", 'ψ'),
    ("omega", 'ω'),
];

/// Names of WinAnsi 0x80..=0x9F (empty where unused).
const WIN_80_NAMES: [&str; 32] = [
    "Euro",
    "",
    "quotesinglbase",
    "florin",
    "quotedblbase",
    "ellipsis",
    "dagger",
    "daggerdbl",
    "circumflex",
    "perthousand",
    "Scaron",
    "guilsinglleft",
    "OE",
    "",
    "Zcaron",
    "",
    "",
    "quoteleft",
    "quoteright",
    "quotedblleft",
    "quotedblright",
    "bullet",
    "endash",
    "emdash",
    "tilde",
    "trademark",
    "scaron",
    "guilsinglright",
    "oe",
    "",
    "zcaron",
    "Ydieresis",
];

/// Names of Latin-1 0xA0..=0xFF.
const LATIN1_NAMES: [&str; 96] = [
    "space",
    "exclamdown",
    "cent",
    "sterling",
    "currency",
    "yen",
    "brokenbar",
    "section",
    "dieresis",
    "copyright",
    "ordfeminine",
    "guillemotleft",
    "logicalnot",
    "hyphen",
    "registered",
    "macron",
    "degree",
    "plusminus",
    "twosuperior",
    "threesuperior",
    "acute",
    "mu",
    "paragraph",
    "periodcentered",
    "cedilla",
    "onesuperior",
    "ordmasculine",
    "guillemotright",
    "onequarter",
    "onehalf",
    "threequarters",
    "questiondown",
    "Agrave",
    "Aacute",
    "Acircumflex",
    "Atilde",
    "Adieresis",
    "Aring",
    "AE",
    "Ccedilla",
    "Egrave",
    "Eacute",
    "Ecircumflex",
    "Edieresis",
    "Igrave",
    "Iacute",
    "Icircumflex",
    "Idieresis",
    "Eth",
    "Ntilde",
    "Ograve",
    "Oacute",
    "Ocircumflex",
    "Otilde",
    "Odieresis",
    "multiply",
    "Oslash",
    "Ugrave",
    "Uacute",
    "Ucircumflex",
    "Udieresis",
    "Yacute",
    "Thorn",
    "germandbls",
    "agrave",
    "aacute",
    "acircumflex",
    "atilde",
    "adieresis",
    "aring",
    "ae",
    "ccedilla",
    "egrave",
    "eacute",
    "ecircumflex",
    "edieresis",
    "igrave",
    "iacute",
    "icircumflex",
    "idieresis",
    "eth",
    "ntilde",
    "ograve",
    "oacute",
    "ocircumflex",
    "otilde",
    "odieresis",
    "divide",
    "oslash",
    "ugrave",
    "uacute",
    "ucircumflex",
    "udieresis",
    "yacute",
    "thorn",
    "ydieresis",
];

fn single_name(name: &str) -> Option<String> {
    if let Some(p) = ASCII_NAMES.iter().position(|n| *n == name) {
        return Some(((p as u8 + 0x20) as char).to_string());
    }
    if let Some((_, v)) = EXTRA_NAMES.iter().find(|(n, _)| *n == name) {
        return Some((*v).to_string());
    }
    if let Some(p) = WIN_80_NAMES
        .iter()
        .position(|n| *n == name && !n.is_empty())
    {
        return Some(WIN_80[p].to_string());
    }
    if let Some(p) = LATIN1_NAMES.iter().position(|n| *n == name) {
        return char::from_u32(0xA0 + p as u32).map(String::from);
    }
    if let Some((_, c)) = GREEK.iter().find(|(n, _)| *n == name) {
        return Some(c.to_string());
    }
    let mut cs = name.chars();
    if let Some(first) = cs.next() {
        let lower: String = first.to_lowercase().chain(cs).collect();
        if first.is_uppercase() {
            if let Some((_, c)) = GREEK.iter().find(|(n, _)| *n == lower) {
                return Some(c.to_uppercase().to_string());
            }
        }
    }
    // uniXXXX[XXXX...] and uXXXX[XX].
    if let Some(hex) = name.strip_prefix("uni") {
        if hex.len() >= 4 && hex.len() % 4 == 0 {
            let s: Option<String> = (0..hex.len() / 4)
                .map(|i| {
                    u32::from_str_radix(hex.get(i * 4..i * 4 + 4)?, 16)
                        .ok()
                        .and_then(char::from_u32)
                })
                .collect();
            if s.is_some() {
                return s;
            }
        }
    }
    if let Some(hex) = name.strip_prefix('u') {
        if (4..=6).contains(&hex.len()) {
            if let Some(c) = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
                return Some(c.to_string());
            }
        }
    }
    None
}

/// Unicode text of a glyph name (suffixes like `.sc` dropped, `f_f_i` split on `_`).
pub fn glyph_to_unicode(name: &[u8]) -> Option<String> {
    let name = std::str::from_utf8(name).ok()?;
    let base = name.split('.').next().unwrap_or(name);
    if base.is_empty() {
        return None;
    }
    if let Some(s) = single_name(base) {
        return Some(s);
    }
    if base.contains('_') {
        return base.split('_').map(single_name).collect();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_encodings() {
        assert_eq!(glyph_to_unicode(b"eacute").as_deref(), Some("é"));
        assert_eq!(glyph_to_unicode(b"fi").as_deref(), Some("fi"));
        assert_eq!(glyph_to_unicode(b"f_f_i").as_deref(), Some("ffi"));
        assert_eq!(glyph_to_unicode(b"uni03B1").as_deref(), Some("α"));
        assert_eq!(glyph_to_unicode(b"Sigma").as_deref(), Some("Σ"));
        assert_eq!(glyph_to_unicode(b"a.sc").as_deref(), Some("a"));
        assert_eq!(decode(Base::WinAnsi, 0x96), Some('–'));
        assert_eq!(decode(Base::MacRoman, 0xD0), Some('–'));
        assert_eq!(decode(Base::MacRoman, 0xDE), Some('ﬁ'));
        assert_eq!(decode(Base::Standard, 0x27), Some('’'));
    }
}
