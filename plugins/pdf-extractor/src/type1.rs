//! Built-in encodings of embedded Type 1 font programs (the cleartext `/Encoding` before `eexec`).

use crate::objects::{Lexer, Tok};

/// Bytes of a font program searched for the encoding (the cleartext part is small).
const MAX_SCAN: usize = 64 << 10;
/// Tokens read after `/Encoding` at most.
const MAX_TOKENS: usize = 20_000;

/// The built-in encoding of a Type 1 font program.
#[derive(Clone, Debug, PartialEq)]
pub enum BuiltIn {
    /// `/Encoding StandardEncoding def`.
    Standard,
    /// An encoding array: the glyph name of each code (`None` for unset or `.notdef`).
    Names(Vec<Option<Vec<u8>>>),
}

fn find(data: &[u8], pat: &[u8]) -> Option<usize> {
    data.windows(pat.len()).position(|w| w == pat)
}

/// Parses the `/Encoding` of a Type 1 font program (PFA or PFB; only the cleartext part before
/// `eexec` is read). Returns `None` when there is none or it is not understood.
pub fn builtin_encoding(program: &[u8]) -> Option<BuiltIn> {
    let head = program.get(..program.len().min(MAX_SCAN))?;
    let head = match find(head, b"eexec") {
        Some(p) => head.get(..p)?,
        None => head,
    };
    let start = find(head, b"/Encoding")? + b"/Encoding".len();
    let mut lex = Lexer::new(head, start);
    let mut names: Vec<Option<Vec<u8>>> = vec![None; 256];
    let mut window: [Tok; 4] = [Tok::Eof, Tok::Eof, Tok::Eof, Tok::Eof];
    let mut any = false;
    for i in 0..MAX_TOKENS {
        let tok = lex.next_tok();
        if i == 0 {
            if let Tok::Keyword(k) = &tok {
                return (k == b"StandardEncoding").then_some(BuiltIn::Standard);
            }
        }
        // The array ends at `readonly def` (or `def`); `readonly` alone may precede entries.
        let end = match &tok {
            Tok::Eof => true,
            Tok::Keyword(k) => k == b"def" || (any && k == b"readonly"),
            _ => false,
        };
        if end {
            break;
        }
        window.rotate_left(1);
        window[3] = tok;
        // `dup CODE /name put`
        if let [Tok::Keyword(dup), Tok::Int(code), Tok::Name(name), Tok::Keyword(put)] = &window {
            if dup == b"dup" && put == b"put" {
                if let Some(slot) = usize::try_from(*code).ok().and_then(|c| names.get_mut(c)) {
                    *slot = (name.as_slice() != b".notdef").then(|| name.clone());
                    any = true;
                }
            }
        }
    }
    any.then_some(BuiltIn::Names(names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_array_and_standard() {
        let prog = b"%!PS-AdobeFont-1.0: CMR10\n/FontName /CMR10 def\n/Encoding 256 array\n\
            0 1 255 {1 index exch /.notdef put} for\ndup 12 /fi put\ndup 97 /a put\n\
            dup 98 /.notdef put\nreadonly def\ncurrentdict end\ncurrentfile eexec\n\
            dup 99 /c put\x80\xff";
        let Some(BuiltIn::Names(n)) = builtin_encoding(prog) else {
            panic!("no encoding");
        };
        assert_eq!(n[12].as_deref(), Some(&b"fi"[..]));
        assert_eq!(n[97].as_deref(), Some(&b"a"[..]));
        assert_eq!(n[98], None);
        assert_eq!(n[99], None); // after eexec: not read
        assert_eq!(
            builtin_encoding(b"/FontName /X def /Encoding StandardEncoding def"),
            Some(BuiltIn::Standard)
        );
        assert_eq!(builtin_encoding(b"/FontName /X def"), None);
        assert_eq!(
            builtin_encoding(b"/Encoding 256 array dup 300 /a put def"),
            None
        );
        assert_eq!(builtin_encoding(b"/Encoding"), None);
    }
}
