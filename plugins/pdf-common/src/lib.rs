//! What the pdf-extractor plugin and the pdfgen test writer share: block kinds, standard-14 widths.

/// What a block of a document is (mirrors the WIT `block-kind` of `mitra:plugin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A title or section heading.
    Heading,
    /// Body text.
    Body,
    /// A figure or table caption.
    Caption,
    /// A table: rows separated by `\n`, cells by `\t`.
    Table,
    /// A page number.
    PageNumber,
    /// A running header.
    Header,
    /// A running footer.
    Footer,
    /// A footnote.
    Footnote,
    /// A displayed equation.
    Equation,
}

impl Kind {
    /// The WIT spelling (`page-number`, ...), as stored in `chunks.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Heading => "heading",
            Kind::Body => "body",
            Kind::Caption => "caption",
            Kind::Table => "table",
            Kind::PageNumber => "page-number",
            Kind::Header => "header",
            Kind::Footer => "footer",
            Kind::Footnote => "footnote",
            Kind::Equation => "equation",
        }
    }
}

/// Metric families of the standard-14 fonts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Std14 {
    /// Helvetica (also the fallback for unknown sans fonts).
    Helvetica,
    /// Helvetica-Bold.
    HelveticaBold,
    /// Times-Roman.
    Times,
    /// Times-Bold.
    TimesBold,
    /// Courier (monospaced, 600 units).
    Courier,
}

// Widths of ASCII 32..=126 in 1/1000 em (Adobe's standard-14 AFM metrics).
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
    611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
    222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
const HELVETICA_BOLD: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667,
    611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556,
    278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];
const TIMES: [u16; 95] = [
    250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278, 500, 500, 500,
    500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444, 921, 722, 667, 667, 722, 611,
    556, 722, 722, 333, 389, 722, 611, 889, 722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722,
    722, 611, 333, 278, 333, 469, 500, 333, 444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500,
    278, 778, 500, 500, 500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541,
];
const TIMES_BOLD: [u16; 95] = [
    250, 333, 555, 500, 500, 1000, 833, 278, 333, 333, 500, 570, 250, 333, 250, 278, 500, 500, 500,
    500, 500, 500, 500, 500, 500, 500, 333, 333, 570, 570, 570, 500, 930, 722, 667, 722, 722, 667,
    611, 778, 778, 389, 500, 778, 667, 944, 722, 778, 611, 778, 722, 556, 667, 722, 722, 1000, 722,
    722, 667, 333, 278, 333, 581, 500, 333, 500, 556, 444, 556, 444, 333, 500, 556, 278, 333, 556,
    278, 833, 556, 500, 556, 556, 444, 389, 333, 556, 500, 722, 500, 500, 444, 394, 220, 394, 520,
];

/// Width of one character in 1/1000 em; characters outside ASCII get the width of `o`.
pub fn std14_width(face: Std14, c: char) -> u16 {
    let table = match face {
        Std14::Courier => return 600,
        Std14::Helvetica => &HELVETICA,
        Std14::HelveticaBold => &HELVETICA_BOLD,
        Std14::Times => &TIMES,
        Std14::TimesBold => &TIMES_BOLD,
    };
    let code = c as u32;
    if (32..=126).contains(&code) {
        table[(code - 32) as usize]
    } else {
        table[usize::from(b'o' - 32)]
    }
}

/// Adobe glyph names of the printable ASCII characters 0x20..=0x7E.
pub const ASCII_GLYPH_NAMES: [&str; 95] = [
    "space",
    "exclam",
    "quotedbl",
    "numbersign",
    "dollar",
    "percent",
    "ampersand",
    "quotesingle",
    "parenleft",
    "parenright",
    "asterisk",
    "plus",
    "comma",
    "hyphen",
    "period",
    "slash",
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "colon",
    "semicolon",
    "less",
    "equal",
    "greater",
    "question",
    "at",
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "H",
    "I",
    "J",
    "K",
    "L",
    "M",
    "N",
    "O",
    "P",
    "Q",
    "R",
    "S",
    "T",
    "U",
    "V",
    "W",
    "X",
    "Y",
    "Z",
    "bracketleft",
    "backslash",
    "bracketright",
    "asciicircum",
    "underscore",
    "grave",
    "a",
    "b",
    "c",
    "d",
    "e",
    "f",
    "g",
    "h",
    "i",
    "j",
    "k",
    "l",
    "m",
    "n",
    "o",
    "p",
    "q",
    "r",
    "s",
    "t",
    "u",
    "v",
    "w",
    "x",
    "y",
    "z",
    "braceleft",
    "bar",
    "braceright",
    "asciitilde",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_and_names() {
        assert_eq!(std14_width(Std14::Helvetica, ' '), 278);
        assert_eq!(std14_width(Std14::TimesBold, 'W'), 1000);
        assert_eq!(std14_width(Std14::Courier, 'x'), 600);
        assert_eq!(
            std14_width(Std14::Helvetica, 'α'),
            std14_width(Std14::Helvetica, 'o')
        );
        assert_eq!(Kind::PageNumber.as_str(), "page-number");
        assert_eq!(ASCII_GLYPH_NAMES[(b'A' - 32) as usize], "A");
        assert_eq!(ASCII_GLYPH_NAMES[0], "space");
    }
}
