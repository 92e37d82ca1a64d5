//! Standard-14 glyph widths (1/1000 em) used to lay out generated text.

use pdf_common::{std14_width, Std14};

use crate::Font;

/// Width of one character in 1/1000 em.
pub fn char_width(font: Font, c: char) -> u16 {
    let face = match font {
        Font::Helvetica | Font::Cid => Std14::Helvetica,
        Font::HelveticaBold => Std14::HelveticaBold,
        Font::TimesRoman | Font::Cmr => Std14::Times,
        Font::TimesBold => Std14::TimesBold,
        Font::Courier => Std14::Courier,
    };
    std14_width(face, c)
}
