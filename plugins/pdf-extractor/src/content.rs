//! Content-stream interpreter: text state and matrices, text-showing operators, form XObjects
//! and image draws, producing positioned text runs.

use std::collections::HashMap;
use std::rc::Rc;

use crate::document::Document;
use crate::fonts::{Font, FontStyle};
use crate::objects::{is_white, Dict, Lexer, Obj, Stream, Tok};
use crate::Limits;

/// A run of text shown by one string operand, in user space (points, y up).
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Start x.
    pub x0: f64,
    /// End x (after the advance of the last glyph).
    pub x1: f64,
    /// Baseline y.
    pub y: f64,
    /// Effective font size (points).
    pub size: f64,
    /// The font's style (bold, italic, small capitals, monospace, typeface).
    pub style: FontStyle,
    /// The text.
    pub text: String,
}

/// An image drawn on the page.
#[derive(Clone, Debug)]
pub struct ImageDraw {
    /// The image XObject.
    pub stream: Rc<Stream>,
    /// Area covered on the page (square points).
    pub area: f64,
}

/// What a page shows.
#[derive(Clone, Debug, Default)]
pub struct PageContent {
    /// Horizontal text runs.
    pub runs: Vec<Run>,
    /// Images drawn (image XObjects; inline images are ignored).
    pub images: Vec<ImageDraw>,
    /// Whether a limit cut the interpretation short.
    pub truncated: bool,
}

type Matrix = [f64; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

fn mul(m: &Matrix, n: &Matrix) -> Matrix {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

#[derive(Clone)]
struct State {
    ctm: Matrix,
    font: Option<Rc<Font>>,
    size: f64,
    char_space: f64,
    word_space: f64,
    hscale: f64,
    leading: f64,
    rise: f64,
}

/// Interprets page content.
pub struct Interpreter<'d, 'a> {
    doc: &'d Document<'a>,
    limits: &'d Limits,
    fonts: HashMap<Vec<u8>, Rc<Font>>,
    ops: usize,
    glyphs: usize,
    out: PageContent,
}

fn num(o: &Obj) -> f64 {
    o.as_f64().unwrap_or(0.0)
}

impl<'d, 'a> Interpreter<'d, 'a> {
    /// A new interpreter for one page.
    pub fn new(doc: &'d Document<'a>, limits: &'d Limits) -> Self {
        Interpreter {
            doc,
            limits,
            fonts: HashMap::new(),
            ops: 0,
            glyphs: 0,
            out: PageContent::default(),
        }
    }

    /// Runs the page content with its resources and returns what it shows.
    pub fn run(mut self, content: &[u8], resources: &Dict, ctm: Matrix) -> PageContent {
        let state = State {
            ctm,
            font: None,
            size: 10.0,
            char_space: 0.0,
            word_space: 0.0,
            hscale: 1.0,
            leading: 0.0,
            rise: 0.0,
        };
        self.exec(content, resources, state, 0);
        self.out
    }

    fn font(&mut self, resources: &Dict, name: &[u8], depth: usize) -> Rc<Font> {
        let fonts = self.doc.dict(resources.get(b"Font"));
        let obj = fonts.as_ref().and_then(|f| f.get(name).cloned());
        let key = match &obj {
            Some(Obj::Ref(n, _)) => format!("ref{n}").into_bytes(),
            _ => {
                let mut k = format!("d{depth}:{:p}:", resources).into_bytes();
                k.extend_from_slice(name);
                k
            }
        };
        if let Some(f) = self.fonts.get(&key) {
            return f.clone();
        }
        let f = match obj.as_ref().and_then(|o| self.doc.dict(Some(o))) {
            Some(d) => Font::load(self.doc, &d),
            None => Font::fallback(),
        };
        let f = Rc::new(f);
        self.fonts.insert(key, f.clone());
        f
    }

    fn exec(&mut self, content: &[u8], resources: &Dict, mut gs: State, depth: usize) {
        let mut stack: Vec<State> = Vec::new();
        let mut tm = IDENTITY;
        let mut tlm = IDENTITY;
        let mut operands: Vec<Obj> = Vec::new();
        let mut lex = Lexer::new(content, 0);
        loop {
            let tok = lex.next_tok();
            let op = match tok {
                Tok::Eof => break,
                Tok::Keyword(k) => k,
                t => {
                    match lex.obj_from(t, 1) {
                        Ok(o) => {
                            if operands.len() < 64 {
                                operands.push(o)
                            }
                        }
                        Err(_) => operands.clear(),
                    }
                    continue;
                }
            };
            self.ops += 1;
            if self.ops > self.limits.max_ops_per_page
                || self.glyphs > self.limits.max_glyphs_per_page
            {
                self.out.truncated = true;
                return;
            }
            let a = &operands;
            let n = |i: usize| a.get(i).map(num).unwrap_or(0.0);
            match op.as_slice() {
                b"q" if stack.len() < 256 => stack.push(gs.clone()),
                b"Q" => {
                    if let Some(s) = stack.pop() {
                        gs = s;
                    }
                }
                b"cm" if a.len() >= 6 => {
                    let m = [n(0), n(1), n(2), n(3), n(4), n(5)];
                    gs.ctm = mul(&m, &gs.ctm);
                }
                b"BT" => {
                    tm = IDENTITY;
                    tlm = IDENTITY;
                }
                b"Tf" if a.len() >= 2 => {
                    if let Some(name) = a[0].as_name() {
                        gs.font = Some(self.font(resources, name, depth));
                    }
                    gs.size = n(1);
                }
                b"Tc" => gs.char_space = n(0),
                b"Tw" => gs.word_space = n(0),
                b"Tz" => gs.hscale = n(0) / 100.0,
                b"TL" => gs.leading = n(0),
                b"Ts" => gs.rise = n(0),
                b"Td" => {
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, n(0), n(1)], &tlm);
                    tm = tlm;
                }
                b"TD" => {
                    gs.leading = -n(1);
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, n(0), n(1)], &tlm);
                    tm = tlm;
                }
                b"Tm" if a.len() >= 6 => {
                    tlm = [n(0), n(1), n(2), n(3), n(4), n(5)];
                    tm = tlm;
                }
                b"T*" => {
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.leading], &tlm);
                    tm = tlm;
                }
                b"Tj" => {
                    if let Some(s) = a.first().and_then(Obj::as_str) {
                        self.show(s, &gs, &mut tm);
                    }
                }
                b"'" => {
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.leading], &tlm);
                    tm = tlm;
                    if let Some(s) = a.first().and_then(Obj::as_str) {
                        self.show(s, &gs, &mut tm);
                    }
                }
                b"\"" if a.len() >= 3 => {
                    gs.word_space = n(0);
                    gs.char_space = n(1);
                    tlm = mul(&[1.0, 0.0, 0.0, 1.0, 0.0, -gs.leading], &tlm);
                    tm = tlm;
                    if let Some(s) = a[2].as_str() {
                        self.show(s, &gs, &mut tm);
                    }
                }
                b"TJ" => {
                    if let Some(items) = a.first().and_then(Obj::as_array) {
                        for it in items.iter() {
                            match it {
                                Obj::Str(s) => self.show(s, &gs, &mut tm),
                                o => {
                                    let tx = -num(o) / 1000.0 * gs.size * gs.hscale;
                                    tm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], &tm);
                                }
                            }
                        }
                    }
                }
                b"Do" => {
                    if let Some(name) = a.first().and_then(Obj::as_name) {
                        self.do_xobject(resources, name, &gs, depth);
                    }
                }
                b"BI" => skip_inline_image(&mut lex),
                _ => {}
            }
            operands.clear();
        }
    }

    fn do_xobject(&mut self, resources: &Dict, name: &[u8], gs: &State, depth: usize) {
        let Some(xobjs) = self.doc.dict(resources.get(b"XObject")) else {
            return;
        };
        let Some(Obj::Stream(s)) = xobjs.get(name).map(|o| self.doc.resolve(o)) else {
            return;
        };
        match s.dict.name(b"Subtype") {
            Some(b"Image") => {
                let c = &gs.ctm;
                let area = (c[0] * c[3] - c[1] * c[2]).abs();
                if self.out.images.len() < 64 {
                    self.out.images.push(ImageDraw { stream: s, area });
                }
            }
            Some(b"Form") if depth < 8 => {
                let Ok(data) = self.doc.decode(&s) else {
                    return;
                };
                let m: Vec<f64> = match s.dict.get(b"Matrix").map(|o| self.doc.resolve(o)) {
                    Some(Obj::Array(a)) => a.iter().map(num).collect(),
                    _ => Vec::new(),
                };
                let mut inner = gs.clone();
                if m.len() == 6 {
                    inner.ctm = mul(&[m[0], m[1], m[2], m[3], m[4], m[5]], &gs.ctm);
                }
                let res = self.doc.dict(s.dict.get(b"Resources"));
                match res {
                    Some(r) => self.exec(&data, &r, inner, depth + 1),
                    None => self.exec(&data, resources, inner, depth + 1),
                }
            }
            _ => {}
        }
    }

    fn show(&mut self, bytes: &[u8], gs: &State, tm: &mut Matrix) {
        let fallback;
        let font: &Font = match &gs.font {
            Some(f) => f,
            None => {
                fallback = Font::fallback();
                &fallback
            }
        };
        let glyphs = font.decode(bytes);
        self.glyphs += glyphs.len();
        let trm = mul(tm, &gs.ctm);
        let (x0, y0) = apply(&trm, 0.0, gs.rise);
        let mut text = String::new();
        let mut advance = 0.0;
        for g in &glyphs {
            let mut tx = g.width * gs.size + gs.char_space;
            if g.is_space {
                tx += gs.word_space;
            }
            advance += tx * gs.hscale;
            for c in g.text.chars() {
                match c {
                    '\u{a0}' | '\t' => text.push(' '),
                    '\u{ad}' => text.push('-'),
                    c if c.is_control() => {}
                    c => text.push(c),
                }
            }
        }
        *tm = mul(&[1.0, 0.0, 0.0, 1.0, advance, 0.0], tm);
        let end = mul(tm, &gs.ctm);
        let (x1, _) = apply(&end, 0.0, gs.rise);
        // Keep only upright, left-to-right text.
        let horizontal = trm[0] > 0.0 && trm[1].abs() <= 0.05 * trm[0].abs();
        let size = gs.size.abs() * (trm[2] * trm[2] + trm[3] * trm[3]).sqrt();
        if !horizontal || text.trim().is_empty() || !size.is_finite() || size < 0.5 {
            return;
        }
        if !(x0.is_finite() && x1.is_finite() && y0.is_finite()) {
            return;
        }
        if self.out.runs.len() < self.limits.max_glyphs_per_page {
            self.out.runs.push(Run {
                x0,
                x1: x1.max(x0),
                y: y0,
                size,
                style: font.style,
                text,
            });
        }
    }
}

/// Skips an inline image (`BI ... ID <data> EI`).
fn skip_inline_image(lex: &mut Lexer) {
    loop {
        match lex.next_tok() {
            Tok::Eof => return,
            Tok::Keyword(k) if k == b"ID" => break,
            _ => {}
        }
    }
    let data = lex.data;
    let mut i = lex.pos + 1;
    while i + 2 <= data.len() {
        if &data[i..i + 2] == b"EI"
            && is_white(data[i - 1])
            && data.get(i + 2).is_none_or(|&c| is_white(c))
        {
            lex.pos = i + 2;
            return;
        }
        i += 1;
    }
    lex.pos = data.len();
}
