//! PDF object model and the tokenizer/parser shared by the file reader and content streams.

use std::rc::Rc;

/// Deepest nesting of arrays and dictionaries accepted.
pub const MAX_NESTING: usize = 64;

/// A PDF object. Composite values are reference counted so that cloning is cheap.
#[derive(Clone, Debug, PartialEq)]
pub enum Obj {
    /// `null` (also what unresolvable references become).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// A name, without the slash, `#xx` escapes decoded.
    Name(Vec<u8>),
    /// A literal or hexadecimal string, decoded to bytes.
    Str(Vec<u8>),
    /// An array.
    Array(Rc<Vec<Obj>>),
    /// A dictionary.
    Dict(Rc<Dict>),
    /// A stream: its dictionary and raw (still encoded) bytes.
    Stream(Rc<Stream>),
    /// An indirect reference (object number, generation).
    Ref(u32, u16),
}

/// A dictionary: a small association list (later duplicates win).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dict {
    entries: Vec<(Vec<u8>, Obj)>,
}

impl Dict {
    /// The value of `key`, if present.
    pub fn get(&self, key: &[u8]) -> Option<&Obj> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Adds an entry.
    pub fn insert(&mut self, key: Vec<u8>, value: Obj) {
        self.entries.push((key, value));
    }

    /// All entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Obj)> {
        self.entries.iter().map(|(k, v)| (k.as_slice(), v))
    }

    /// The value of `key` if it is a name.
    pub fn name(&self, key: &[u8]) -> Option<&[u8]> {
        self.get(key).and_then(Obj::as_name)
    }

    /// Whether `/Type` (or `/Subtype`) equals `ty`.
    pub fn is_type(&self, ty: &[u8]) -> bool {
        self.name(b"Type") == Some(ty)
    }
}

/// A stream object.
#[derive(Clone, Debug, PartialEq)]
pub struct Stream {
    /// The stream dictionary.
    pub dict: Dict,
    /// The raw bytes between `stream` and `endstream`.
    pub raw: Vec<u8>,
}

impl Obj {
    /// The integer value (reals are truncated).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Obj::Int(i) => Some(*i),
            Obj::Real(r) if r.is_finite() => Some(*r as i64),
            _ => None,
        }
    }

    /// The numeric value.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Obj::Int(i) => Some(*i as f64),
            Obj::Real(r) if r.is_finite() => Some(*r),
            _ => None,
        }
    }

    /// The name bytes.
    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Obj::Name(n) => Some(n),
            _ => None,
        }
    }

    /// The string bytes.
    pub fn as_str(&self) -> Option<&[u8]> {
        match self {
            Obj::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The array elements.
    pub fn as_array(&self) -> Option<&[Obj]> {
        match self {
            Obj::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The dictionary (of a dictionary or a stream).
    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Obj::Dict(d) => Some(d),
            Obj::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }

    /// The stream.
    pub fn as_stream(&self) -> Option<&Rc<Stream>> {
        match self {
            Obj::Stream(s) => Some(s),
            _ => None,
        }
    }
}

/// A lexical token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An integer.
    Int(i64),
    /// A real.
    Real(f64),
    /// A name.
    Name(Vec<u8>),
    /// A string (literal or hex), decoded.
    Str(Vec<u8>),
    /// `[`
    ArrOpen,
    /// `]`
    ArrClose,
    /// `<<`
    DictOpen,
    /// `>>`
    DictClose,
    /// Any other bare word: operators, `true`, `obj`, `R`, ...
    Keyword(Vec<u8>),
    /// End of input.
    Eof,
}

/// Whether `b` is PDF white space.
pub fn is_white(b: u8) -> bool {
    matches!(b, 0 | 9 | 10 | 12 | 13 | 32)
}

/// Whether `b` is a PDF delimiter.
pub fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(b: u8) -> bool {
    !is_white(b) && !is_delim(b)
}

pub(crate) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// A tokenizer over a byte slice.
pub struct Lexer<'a> {
    /// The input.
    pub data: &'a [u8],
    /// The current position.
    pub pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at `pos`.
    pub fn new(data: &'a [u8], pos: usize) -> Lexer<'a> {
        Lexer { data, pos }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Skips white space and comments.
    pub fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(c) = self.peek() {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next token.
    pub fn next_tok(&mut self) -> Tok {
        self.skip_ws();
        let Some(b) = self.peek() else {
            return Tok::Eof;
        };
        match b {
            b'(' => {
                self.pos += 1;
                Tok::Str(self.literal_string())
            }
            b'<' => {
                if self.data.get(self.pos + 1) == Some(&b'<') {
                    self.pos += 2;
                    Tok::DictOpen
                } else {
                    self.pos += 1;
                    Tok::Str(self.hex_string())
                }
            }
            b'>' => {
                if self.data.get(self.pos + 1) == Some(&b'>') {
                    self.pos += 2;
                    Tok::DictClose
                } else {
                    self.pos += 1;
                    Tok::Keyword(b">".to_vec())
                }
            }
            b'[' => {
                self.pos += 1;
                Tok::ArrOpen
            }
            b']' => {
                self.pos += 1;
                Tok::ArrClose
            }
            b'/' => {
                self.pos += 1;
                Tok::Name(self.name())
            }
            b'0'..=b'9' | b'+' | b'-' | b'.' => self.number(),
            _ => {
                let start = self.pos;
                while self.peek().is_some_and(is_regular) {
                    self.pos += 1;
                }
                if self.pos == start {
                    self.pos += 1; // a stray delimiter such as ')' or '{'
                }
                Tok::Keyword(self.data[start..self.pos].to_vec())
            }
        }
    }

    fn number(&mut self) -> Tok {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.'))
        {
            self.pos += 1;
        }
        let s = std::str::from_utf8(&self.data[start..self.pos]).unwrap_or("0");
        if !s.contains('.') {
            if let Ok(i) = s.parse::<i64>() {
                return Tok::Int(i);
            }
        }
        // Lenient: "--5", "1.2.3", "-" all become some number rather than an error.
        let cleaned: String = {
            let mut out = String::new();
            let mut seen_dot = false;
            for (i, c) in s.chars().enumerate() {
                match c {
                    '-' | '+' if i == 0 => out.push(c),
                    '.' if !seen_dot => {
                        seen_dot = true;
                        out.push(c)
                    }
                    '0'..='9' => out.push(c),
                    _ => {}
                }
            }
            out
        };
        Tok::Real(cleaned.parse::<f64>().unwrap_or(0.0))
    }

    fn name(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            if !is_regular(c) {
                break;
            }
            self.pos += 1;
            if c == b'#' {
                let h = self.data.get(self.pos).copied().and_then(hex_val);
                let l = self.data.get(self.pos + 1).copied().and_then(hex_val);
                if let (Some(h), Some(l)) = (h, l) {
                    out.push(h * 16 + l);
                    self.pos += 2;
                    continue;
                }
            }
            out.push(c);
        }
        out
    }

    fn literal_string(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    out.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    out.push(c);
                }
                b'\\' => {
                    let Some(e) = self.peek() else { break };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'\r' => {
                            if self.peek() == Some(b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push((v & 0xFF) as u8);
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        out
    }

    fn hex_string(&mut self) -> Vec<u8> {
        let rest = &self.data[self.pos.min(self.data.len())..];
        let end = rest
            .iter()
            .position(|&c| c == b'>')
            .map_or(rest.len(), |p| p + 1);
        let out = crate::filters::ascii_hex(&rest[..end]);
        self.pos += end;
        out
    }

    /// Parses one object (references `n g R` included). Errors on end of input, unbalanced
    /// closers and excessive nesting; unknown keywords become [`Obj::Null`].
    pub fn parse_obj(&mut self, depth: usize) -> Result<Obj, String> {
        if depth > MAX_NESTING {
            return Err("objects nested too deeply".into());
        }
        let tok = self.next_tok();
        self.obj_from(tok, depth)
    }

    /// Builds an object starting with an already read token.
    pub fn obj_from(&mut self, tok: Tok, depth: usize) -> Result<Obj, String> {
        if depth > MAX_NESTING {
            return Err("objects nested too deeply".into());
        }
        Ok(match tok {
            Tok::Int(i) => {
                let save = self.pos;
                if let (Ok(num), Ok(gen)) = (u32::try_from(i), self.try_ref_tail()) {
                    return Ok(Obj::Ref(num, gen));
                }
                self.pos = save;
                Obj::Int(i)
            }
            Tok::Real(r) => Obj::Real(r),
            Tok::Name(n) => Obj::Name(n),
            Tok::Str(s) => Obj::Str(s),
            Tok::ArrOpen => {
                let mut items = Vec::new();
                loop {
                    let t = self.next_tok();
                    match t {
                        Tok::ArrClose => break,
                        Tok::Eof => return Err("unterminated array".into()),
                        Tok::DictClose => return Err("unbalanced '>>' in array".into()),
                        t => items.push(self.obj_from(t, depth + 1)?),
                    }
                }
                Obj::Array(Rc::new(items))
            }
            Tok::DictOpen => Obj::Dict(Rc::new(self.dict_body(depth)?)),
            Tok::Keyword(k) => match k.as_slice() {
                b"true" => Obj::Bool(true),
                b"false" => Obj::Bool(false),
                _ => Obj::Null,
            },
            Tok::ArrClose | Tok::DictClose => return Err("unexpected closing delimiter".into()),
            Tok::Eof => return Err("unexpected end of data".into()),
        })
    }

    /// Parses dictionary entries after `<<` up to `>>`.
    pub fn dict_body(&mut self, depth: usize) -> Result<Dict, String> {
        let mut d = Dict::default();
        loop {
            match self.next_tok() {
                Tok::DictClose => break,
                Tok::Eof => return Err("unterminated dictionary".into()),
                Tok::Name(k) => {
                    let t = self.next_tok();
                    if t == Tok::DictClose {
                        break;
                    }
                    let v = self.obj_from(t, depth + 1)?;
                    d.insert(k, v);
                }
                Tok::ArrClose => return Err("unbalanced ']' in dictionary".into()),
                _ => {} // junk key: skip
            }
        }
        Ok(d)
    }

    /// After an integer: `gen R`? Returns the generation and leaves the position after `R`.
    fn try_ref_tail(&mut self) -> Result<u16, ()> {
        let save = self.pos;
        self.skip_ws();
        let gen = match self.peek() {
            Some(b'0'..=b'9') => match self.next_tok() {
                Tok::Int(g) => u16::try_from(g).map_err(|_| ())?,
                _ => return Err(()),
            },
            _ => return Err(()),
        };
        self.skip_ws();
        if self.peek() == Some(b'R') && self.data.get(self.pos + 1).is_none_or(|&c| !is_regular(c))
        {
            self.pos += 1;
            return Ok(gen);
        }
        self.pos = save;
        Err(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_objects() {
        let mut l = Lexer::new(
            b"<< /A [1 2.5 (x\\(y\\)) <4142>] /B 3 0 R /C#20d true >>",
            0,
        );
        let o = l.parse_obj(0).unwrap();
        let d = o.as_dict().unwrap();
        let a = d.get(b"A").unwrap().as_array().unwrap();
        assert_eq!(a[0], Obj::Int(1));
        assert_eq!(a[1], Obj::Real(2.5));
        assert_eq!(a[2], Obj::Str(b"x(y)".to_vec()));
        assert_eq!(a[3], Obj::Str(b"AB".to_vec()));
        assert_eq!(d.get(b"B"), Some(&Obj::Ref(3, 0)));
        assert_eq!(d.get(b"C d"), Some(&Obj::Bool(true)));
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let data = vec![b'['; 10_000];
        assert!(Lexer::new(&data, 0).parse_obj(0).is_err());
    }
}
