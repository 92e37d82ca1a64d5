//! The PDF file: cross-reference tables and streams (with reconstruction of broken files),
//! object loading with object streams, stream decoding and the page tree.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::crypt::Decryptor;
use crate::filters;
use crate::objects::{is_white, Dict, Lexer, Obj, Stream, Tok};
use crate::type1::{self, BuiltIn};
use crate::Limits;

#[derive(Clone, Copy, Debug)]
enum Entry {
    Offset(usize),
    Compressed { stream: u32, index: u32 },
}

/// A parsed PDF file. Objects are loaded lazily and cached.
pub struct Document<'a> {
    data: &'a [u8],
    xref: RefCell<HashMap<u32, Entry>>,
    trailer: Dict,
    cache: RefCell<HashMap<u32, Obj>>,
    loading: RefCell<HashSet<u32>>,
    reconstructed: Cell<bool>,
    decoded_total: Cell<usize>,
    limits: Limits,
    /// Built-in encodings of embedded Type 1 programs, by the font file's object number.
    type1_encodings: RefCell<HashMap<u32, Option<Rc<BuiltIn>>>>,
    /// Decryption of strings and streams (encrypted files with an empty user password).
    decryptor: Option<Decryptor>,
    /// The object number of the `/Encrypt` dictionary (never decrypted).
    encrypt_obj: Option<u32>,
}

/// One page: its dictionary with inherited attributes resolved.
#[derive(Clone, Debug)]
pub struct PageInfo {
    /// The page dictionary.
    pub dict: Rc<Dict>,
    /// Resources (possibly inherited).
    pub resources: Rc<Dict>,
    /// MediaBox as (x0, y0, x1, y1), normalised.
    pub media_box: [f64; 4],
}

fn find_last(data: &[u8], pat: &[u8]) -> Option<usize> {
    if data.len() < pat.len() {
        return None;
    }
    (0..=data.len() - pat.len())
        .rev()
        .find(|&i| &data[i..i + pat.len()] == pat)
}

fn find_from(data: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    if from >= data.len() {
        return None;
    }
    data[from..]
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

impl<'a> Document<'a> {
    /// Opens a file: checks the header, reads the cross-reference chain (reconstructing it by
    /// scanning for objects when broken) and sets up decryption of files encrypted with an
    /// empty user password.
    pub fn load(data: &'a [u8], limits: Limits) -> Result<Document<'a>, String> {
        let head = &data[..data.len().min(1024)];
        if !head.windows(5).any(|w| w == b"%PDF-") {
            return Err("not a PDF (no %PDF- header)".into());
        }
        let mut doc = Document {
            data,
            xref: RefCell::new(HashMap::new()),
            trailer: Dict::default(),
            cache: RefCell::new(HashMap::new()),
            loading: RefCell::new(HashSet::new()),
            reconstructed: Cell::new(false),
            decoded_total: Cell::new(0),
            limits,
            type1_encodings: RefCell::new(HashMap::new()),
            decryptor: None,
            encrypt_obj: None,
        };
        let ok = match doc.read_xref_chain() {
            Ok(t) if t.get(b"Root").is_some() => {
                doc.trailer = t;
                doc.setup_decryption()?;
                true
            }
            _ => false,
        };
        if !ok || doc.catalog().is_none() {
            let t = doc.reconstruct();
            if doc.trailer.get(b"Root").is_none() || doc.catalog().is_none() {
                doc.trailer = t;
            }
            if doc.decryptor.is_none() && doc.setup_decryption()? {
                // Object streams could not be read before the key was known.
                let t = doc.reconstruct();
                if doc.catalog().is_none() {
                    doc.trailer = t;
                }
            }
        }
        // Without a catalog the page objects may still be there: `pages` falls back to
        // taking every page object in object-number order, and extraction reports a document
        // without any page.
        Ok(doc)
    }

    /// Reads the trailer's `/Encrypt` (if any) and sets up decryption; true when it did. Fails
    /// when the file needs a password or uses an unsupported handler.
    fn setup_decryption(&mut self) -> Result<bool, String> {
        let Some(e) = self
            .trailer
            .get(b"Encrypt")
            .filter(|e| **e != Obj::Null)
            .cloned()
        else {
            return Ok(false);
        };
        if let Obj::Ref(n, _) = e {
            self.encrypt_obj = Some(n);
        }
        let Some(dict) = self.dict(Some(&e)) else {
            return Err("encrypted PDF: the encryption dictionary is missing".into());
        };
        let id0 = match self.trailer.get(b"ID").map(|o| self.resolve(o)) {
            Some(Obj::Array(a)) => a.first().and_then(Obj::as_str).unwrap_or_default().to_vec(),
            _ => Vec::new(),
        };
        self.decryptor = Some(Decryptor::new(&dict, &id0)?);
        // Objects loaded so far were not decrypted.
        self.cache.borrow_mut().clear();
        self.type1_encodings.borrow_mut().clear();
        Ok(true)
    }

    fn catalog(&self) -> Option<Rc<Dict>> {
        match self.resolve(self.trailer.get(b"Root")?) {
            Obj::Dict(d) => Some(d),
            _ => None,
        }
    }

    fn read_xref_chain(&self) -> Result<Dict, String> {
        let tail_from = self.data.len().saturating_sub(4096);
        let sx = find_last(&self.data[tail_from..], b"startxref")
            .map(|p| p + tail_from)
            .or_else(|| find_last(self.data, b"startxref"))
            .ok_or("no startxref")?;
        let mut lex = Lexer::new(self.data, sx + 9);
        let mut offset = match lex.next_tok() {
            Tok::Int(o) => usize::try_from(o).map_err(|_| "bad startxref")?,
            _ => return Err("bad startxref".into()),
        };
        let mut trailer = Dict::default();
        let mut seen = HashSet::new();
        let mut pending_xrefstm: Vec<usize> = Vec::new();
        for _ in 0..64 {
            if !seen.insert(offset) {
                break;
            }
            let t = self.read_xref_section(offset)?;
            for (k, v) in t.iter() {
                if trailer.get(k).is_none() {
                    trailer.insert(k.to_vec(), v.clone());
                }
            }
            if let Some(x) = t.get(b"XRefStm").and_then(Obj::as_i64) {
                if let Ok(x) = usize::try_from(x) {
                    pending_xrefstm.push(x);
                }
            }
            for x in pending_xrefstm.drain(..) {
                if seen.insert(x) {
                    let _ = self.read_xref_section(x);
                }
            }
            match t.get(b"Prev").and_then(Obj::as_i64) {
                Some(p) if p >= 0 => offset = p as usize,
                _ => break,
            }
        }
        Ok(trailer)
    }

    /// Reads one xref table or xref stream at `offset`; returns its trailer dictionary.
    fn read_xref_section(&self, offset: usize) -> Result<Dict, String> {
        let mut lex = Lexer::new(self.data, offset);
        lex.skip_ws();
        if self.data.get(lex.pos..lex.pos + 4) == Some(b"xref") {
            lex.pos += 4;
            loop {
                match lex.next_tok() {
                    Tok::Int(start) => {
                        let count = match lex.next_tok() {
                            Tok::Int(c) => c,
                            _ => return Err("bad xref subsection".into()),
                        };
                        if start < 0 || !(0..=10_000_000).contains(&count) {
                            return Err("bad xref subsection".into());
                        }
                        for i in 0..count {
                            let off = lex.next_tok();
                            let _gen = lex.next_tok();
                            let kind = lex.next_tok();
                            let (Tok::Int(off), Tok::Keyword(kind)) = (off, kind) else {
                                return Err("bad xref entry".into());
                            };
                            let Ok(num) = u32::try_from(start + i) else {
                                break;
                            };
                            if kind == b"n" && off > 0 {
                                let mut x = self.xref.borrow_mut();
                                x.entry(num).or_insert(Entry::Offset(off as usize));
                            }
                        }
                    }
                    Tok::Keyword(k) if k == b"trailer" => {
                        return match lex.parse_obj(0)? {
                            Obj::Dict(d) => Ok((*d).clone()),
                            _ => Err("bad trailer".into()),
                        };
                    }
                    _ => return Err("bad xref table".into()),
                }
            }
        }
        // An xref stream.
        let (_, _, obj) = self.parse_indirect_at(offset, None)?;
        let Obj::Stream(s) = obj else {
            return Err("startxref does not point to an xref".into());
        };
        let data = self.decode(&s)?;
        let w: Vec<usize> = s
            .dict
            .get(b"W")
            .and_then(Obj::as_array)
            .ok_or("xref stream without /W")?
            .iter()
            .map(|o| o.as_i64().unwrap_or(0).clamp(0, 8) as usize)
            .collect();
        if w.len() < 3 {
            return Err("bad /W".into());
        }
        let size = s.dict.get(b"Size").and_then(Obj::as_i64).unwrap_or(0);
        let index: Vec<i64> = match s.dict.get(b"Index").and_then(Obj::as_array) {
            Some(a) => a.iter().filter_map(Obj::as_i64).collect(),
            None => vec![0, size],
        };
        let entry_len: usize = w.iter().sum();
        if entry_len == 0 {
            return Err("bad /W".into());
        }
        let mut rows = data.chunks_exact(entry_len);
        let field = |row: &[u8], start: usize, len: usize| -> u64 {
            row[start..start + len]
                .iter()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
        };
        'outer: for pair in index.chunks(2) {
            let [start, count] = pair else { break };
            for i in 0..(*count).clamp(0, 10_000_000) {
                let Some(row) = rows.next() else { break 'outer };
                let ty = if w[0] == 0 { 1 } else { field(row, 0, w[0]) };
                let a = field(row, w[0], w[1]);
                let b = field(row, w[0] + w[1], w[2]);
                let Ok(num) = u32::try_from(start + i) else {
                    break 'outer;
                };
                let e = match ty {
                    1 => Entry::Offset(a as usize),
                    2 => Entry::Compressed {
                        stream: a as u32,
                        index: b as u32,
                    },
                    _ => continue,
                };
                self.xref.borrow_mut().entry(num).or_insert(e);
            }
        }
        Ok(s.dict.clone())
    }

    /// Rebuilds the xref by scanning for `n g obj`; returns the merged trailer found.
    fn reconstruct(&self) -> Dict {
        self.reconstructed.set(true);
        let data = self.data;
        let mut table: HashMap<u32, Entry> = HashMap::new();
        let mut i = 0;
        while let Some(p) = find_from(data, i, b"obj") {
            i = p + 3;
            if data
                .get(p + 3)
                .is_some_and(|&c| !is_white(c) && c != b'<' && c != b'[')
            {
                continue;
            }
            // Walk back over "num ws gen ws".
            let mut j = p;
            let ws_end = j;
            while j > 0 && is_white(data[j - 1]) {
                j -= 1;
            }
            if j == ws_end {
                continue;
            }
            let gen_end = j;
            while j > 0 && data[j - 1].is_ascii_digit() {
                j -= 1;
            }
            if j == gen_end {
                continue;
            }
            let ws2 = j;
            while j > 0 && is_white(data[j - 1]) {
                j -= 1;
            }
            if j == ws2 {
                continue;
            }
            let num_end = j;
            while j > 0 && data[j - 1].is_ascii_digit() {
                j -= 1;
            }
            if j == num_end || num_end - j > 10 {
                continue;
            }
            let Ok(num) = std::str::from_utf8(&data[j..num_end])
                .unwrap_or("x")
                .parse::<u32>()
            else {
                continue;
            };
            table.insert(num, Entry::Offset(j));
        }
        *self.xref.borrow_mut() = table;
        self.cache.borrow_mut().clear();
        // Object streams: register their members not found directly.
        let nums: Vec<u32> = self.xref.borrow().keys().copied().collect();
        for num in &nums {
            if let Some(Obj::Stream(s)) = self.get(*num) {
                if s.dict.is_type(b"ObjStm") {
                    if let Ok((members, _, _)) = self.objstm_members(&s) {
                        let mut x = self.xref.borrow_mut();
                        for (k, (m, _)) in members.iter().enumerate() {
                            x.entry(*m).or_insert(Entry::Compressed {
                                stream: *num,
                                index: k as u32,
                            });
                        }
                    }
                }
            }
        }
        // Trailer: the last "trailer" dictionary, else a catalog found by scanning.
        let mut trailer = Dict::default();
        if let Some(p) = find_last(data, b"trailer") {
            if let Ok(Obj::Dict(d)) = Lexer::new(data, p + 7).parse_obj(0) {
                trailer = (*d).clone();
            }
        }
        let root_ok = trailer
            .get(b"Root")
            .map(|r| matches!(self.resolve(r), Obj::Dict(_)))
            .unwrap_or(false);
        if !root_ok {
            let mut nums: Vec<u32> = self.xref.borrow().keys().copied().collect();
            nums.sort_unstable();
            for num in nums {
                if let Some(Obj::Dict(d)) = self.get(num) {
                    if d.is_type(b"Catalog") {
                        trailer.insert(b"Root".to_vec(), Obj::Ref(num, 0));
                        break;
                    }
                }
            }
        }
        trailer
    }

    /// Parses `n g obj ... endobj` at `offset`. `expect` checks the object number.
    fn parse_indirect_at(
        &self,
        offset: usize,
        expect: Option<u32>,
    ) -> Result<(u32, u16, Obj), String> {
        if offset >= self.data.len() {
            return Err("object offset out of range".into());
        }
        let mut lex = Lexer::new(self.data, offset);
        let (Tok::Int(num), Tok::Int(gen), Tok::Keyword(kw)) =
            (lex.next_tok(), lex.next_tok(), lex.next_tok())
        else {
            return Err("no object header at offset".into());
        };
        if kw != b"obj" {
            return Err("no object header at offset".into());
        }
        let num = u32::try_from(num).map_err(|_| "bad object number")?;
        let gen = u16::try_from(gen).unwrap_or(0);
        if expect.is_some_and(|e| e != num) {
            return Err("object number mismatch".into());
        }
        let obj = lex.parse_obj(0)?;
        if let (Obj::Dict(d), Tok::Keyword(k)) = (&obj, lex.next_tok()) {
            if k == b"stream" {
                let mut start = lex.pos;
                if self.data.get(start) == Some(&b'\r') {
                    start += 1;
                }
                if self.data.get(start) == Some(&b'\n') {
                    start += 1;
                }
                let raw = self.stream_bytes(d, start)?;
                return Ok((
                    num,
                    gen,
                    Obj::Stream(Rc::new(Stream {
                        dict: (**d).clone(),
                        raw,
                    })),
                ));
            }
        }
        Ok((num, gen, obj))
    }

    fn stream_bytes(&self, d: &Dict, start: usize) -> Result<Vec<u8>, String> {
        let data = self.data;
        let len = match d.get(b"Length") {
            Some(Obj::Ref(n, _)) if !self.loading.borrow().contains(n) => {
                self.get(*n).and_then(|o| o.as_i64())
            }
            Some(o) => o.as_i64(),
            None => None,
        };
        if let Some(len) = len.and_then(|l| usize::try_from(l).ok()) {
            if let Some(end) = start.checked_add(len).filter(|&e| e <= data.len()) {
                let mut k = end;
                while k < data.len() && is_white(data[k]) {
                    k += 1;
                }
                if data[k..].starts_with(b"endstream") {
                    return Ok(data[start..end].to_vec());
                }
            }
        }
        // Length missing or wrong: search for endstream.
        let end = find_from(data, start, b"endstream").unwrap_or(data.len());
        let mut e = end;
        if e > start && data[e - 1] == b'\n' {
            e -= 1;
        }
        if e > start && data[e - 1] == b'\r' {
            e -= 1;
        }
        Ok(data[start.min(e)..e].to_vec())
    }

    /// Object `num` (cached), or None when missing or broken.
    pub fn get(&self, num: u32) -> Option<Obj> {
        if let Some(o) = self.cache.borrow().get(&num) {
            return Some(o.clone());
        }
        if !self.loading.borrow_mut().insert(num) {
            return None; // reference cycle
        }
        let r = self.load_obj(num);
        self.loading.borrow_mut().remove(&num);
        let obj = match r {
            Some(o) => o,
            None if !self.reconstructed.get() => {
                self.reconstruct();
                self.loading.borrow_mut().insert(num);
                let r = self.load_obj(num);
                self.loading.borrow_mut().remove(&num);
                r?
            }
            None => return None,
        };
        self.cache.borrow_mut().insert(num, obj.clone());
        Some(obj)
    }

    fn load_obj(&self, num: u32) -> Option<Obj> {
        let entry = *self.xref.borrow().get(&num)?;
        match entry {
            Entry::Offset(off) => {
                let (_, gen, obj) = self.parse_indirect_at(off, Some(num)).ok()?;
                match &self.decryptor {
                    Some(d) if self.encrypt_obj != Some(num) => Some(decrypt_obj(d, num, gen, obj)),
                    _ => Some(obj),
                }
            }
            Entry::Compressed { stream, index } => {
                let Obj::Stream(s) = self.get(stream)? else {
                    return None;
                };
                let (members, data, first) = self.objstm_members(&s).ok()?;
                let (m, off) = members
                    .get(index as usize)
                    .filter(|(m, _)| *m == num)
                    .or_else(|| members.iter().find(|(m, _)| *m == num))?;
                let _ = m;
                let pos = first.checked_add(*off)?;
                if pos >= data.len() {
                    return None;
                }
                Lexer::new(&data, pos).parse_obj(0).ok()
            }
        }
    }

    /// Members (object number, offset) of an object stream, its decoded data and /First.
    #[allow(clippy::type_complexity)]
    fn objstm_members(&self, s: &Stream) -> Result<(Vec<(u32, usize)>, Vec<u8>, usize), String> {
        let data = self.decode(s)?;
        let n = s
            .dict
            .get(b"N")
            .and_then(Obj::as_i64)
            .unwrap_or(0)
            .clamp(0, 1_000_000);
        let first = s.dict.get(b"First").and_then(Obj::as_i64).unwrap_or(0);
        let first = usize::try_from(first).map_err(|_| "bad /First")?;
        let mut lex = Lexer::new(&data, 0);
        let mut members = Vec::new();
        for _ in 0..n {
            match (lex.next_tok(), lex.next_tok()) {
                (Tok::Int(m), Tok::Int(o)) => {
                    if let (Ok(m), Ok(o)) = (u32::try_from(m), usize::try_from(o)) {
                        members.push((m, o));
                    }
                }
                _ => break,
            }
        }
        Ok((members, data, first))
    }

    /// Follows references (up to a small depth); missing objects become Null.
    pub fn resolve(&self, o: &Obj) -> Obj {
        let mut cur = o.clone();
        for _ in 0..16 {
            match cur {
                Obj::Ref(n, _) => cur = self.get(n).unwrap_or(Obj::Null),
                other => return other,
            }
        }
        Obj::Null
    }

    /// Resolves and returns a dictionary (of a dictionary or stream object).
    pub fn dict(&self, o: Option<&Obj>) -> Option<Rc<Dict>> {
        match self.resolve(o?) {
            Obj::Dict(d) => Some(d),
            Obj::Stream(s) => Some(Rc::new(s.dict.clone())),
            _ => None,
        }
    }

    /// The decoding budget check: counts decoded bytes against the per-document cap.
    fn charge(&self, n: usize) -> Result<(), String> {
        let total = self.decoded_total.get().saturating_add(n);
        self.decoded_total.set(total);
        if total > self.limits.max_decoded_total {
            return Err("document decodes to too much data".into());
        }
        Ok(())
    }

    /// Decodes a stream completely (fails on image codecs).
    pub fn decode(&self, s: &Stream) -> Result<Vec<u8>, String> {
        let (data, rest) = self.decode_partial(s)?;
        match rest {
            None => Ok(data),
            Some(f) => Err(format!(
                "unsupported filter {}",
                String::from_utf8_lossy(&f)
            )),
        }
    }

    /// Decodes a stream up to the first image codec; returns the data and that codec's name.
    pub fn decode_partial(&self, s: &Stream) -> Result<(Vec<u8>, Option<Vec<u8>>), String> {
        let filters: Vec<Vec<u8>> = match s.dict.get(b"Filter").map(|f| self.resolve(f)) {
            Some(Obj::Name(n)) => vec![n],
            Some(Obj::Array(a)) => a
                .iter()
                .filter_map(|o| self.resolve(o).as_name().map(<[u8]>::to_vec))
                .collect(),
            _ => Vec::new(),
        };
        let parms: Vec<Option<Rc<Dict>>> = match s.dict.get(b"DecodeParms").map(|f| self.resolve(f))
        {
            Some(Obj::Dict(d)) => vec![Some(d)],
            Some(Obj::Array(a)) => a.iter().map(|o| self.dict(Some(o))).collect(),
            _ => Vec::new(),
        };
        let limit = self.limits.max_stream_bytes;
        let mut data: Option<Vec<u8>> = None;
        for (i, f) in filters.iter().enumerate() {
            if filters::IMAGE_FILTERS.contains(&f.as_slice()) {
                return Ok((data.unwrap_or_else(|| s.raw.clone()), Some(f.clone())));
            }
            let input = data.as_deref().unwrap_or(&s.raw);
            let p = parms.get(i).and_then(|p| p.as_deref());
            let out = filters::apply(f, input, p, limit)?;
            self.charge(out.len())?;
            data = Some(out);
        }
        Ok((data.unwrap_or_else(|| s.raw.clone()), None))
    }

    /// The pages in order (at most `max_pages`); the flag says whether more were left out.
    pub fn pages(&self) -> (Vec<PageInfo>, bool) {
        let mut out = Vec::new();
        let mut truncated = false;
        let root = self.catalog();
        let tree = root.as_ref().and_then(|c| c.get(b"Pages").cloned());
        let mut visited = HashSet::new();
        if let Some(t) = tree {
            self.walk(&t, None, None, &mut out, &mut visited, 0, &mut truncated);
        }
        if out.is_empty() {
            // Broken page tree: take every page object in object-number order.
            let mut nums: Vec<u32> = self.xref.borrow().keys().copied().collect();
            nums.sort_unstable();
            for n in nums {
                if out.len() >= self.limits.max_pages {
                    truncated = true;
                    break;
                }
                if let Some(Obj::Dict(d)) = self.get(n) {
                    if d.is_type(b"Page") {
                        let resources = self.dict(d.get(b"Resources")).unwrap_or_default();
                        let media_box = self.media_box(d.get(b"MediaBox"));
                        out.push(PageInfo {
                            dict: d,
                            resources,
                            media_box,
                        });
                    }
                }
            }
        }
        (out, truncated)
    }

    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        node: &Obj,
        res: Option<Rc<Dict>>,
        mbox: Option<[f64; 4]>,
        out: &mut Vec<PageInfo>,
        visited: &mut HashSet<u32>,
        depth: usize,
        truncated: &mut bool,
    ) {
        if depth > 64 {
            return;
        }
        if let Obj::Ref(n, _) = node {
            if !visited.insert(*n) {
                return;
            }
        }
        let Some(d) = self.dict(Some(node)) else {
            return;
        };
        let res = self.dict(d.get(b"Resources")).or(res);
        let mbox = d.get(b"MediaBox").map(|m| self.media_box(Some(m))).or(mbox);
        let kids = d.get(b"Kids").map(|k| self.resolve(k));
        if let (Some(Obj::Array(kids)), false) = (&kids, d.is_type(b"Page")) {
            for k in kids.iter() {
                if out.len() >= self.limits.max_pages {
                    *truncated = true;
                    return;
                }
                self.walk(k, res.clone(), mbox, out, visited, depth + 1, truncated);
            }
        } else if out.len() < self.limits.max_pages {
            out.push(PageInfo {
                dict: d,
                resources: res.unwrap_or_default(),
                media_box: mbox.unwrap_or([0.0, 0.0, 612.0, 792.0]),
            });
        } else {
            *truncated = true;
        }
    }

    fn media_box(&self, o: Option<&Obj>) -> [f64; 4] {
        let v: Vec<f64> = match o.map(|o| self.resolve(o)) {
            Some(Obj::Array(a)) => a.iter().filter_map(|x| self.resolve(x).as_f64()).collect(),
            _ => Vec::new(),
        };
        if v.len() == 4 {
            let (x0, x1) = (v[0].min(v[2]), v[0].max(v[2]));
            let (y0, y1) = (v[1].min(v[3]), v[1].max(v[3]));
            if x1 - x0 > 1.0 && y1 - y0 > 1.0 {
                return [x0, y0, x1, y1];
            }
        }
        [0.0, 0.0, 612.0, 792.0]
    }

    /// The built-in encoding of the Type 1 program in a font descriptor's `/FontFile` (decoded
    /// once per font file).
    pub(crate) fn type1_encoding(&self, descriptor: &Dict) -> Option<Rc<BuiltIn>> {
        let file = descriptor.get(b"FontFile")?;
        let num = match file {
            Obj::Ref(n, _) => Some(*n),
            _ => None,
        };
        if let Some(hit) = num.and_then(|n| self.type1_encodings.borrow().get(&n).cloned()) {
            return hit;
        }
        let enc = match self.resolve(file) {
            Obj::Stream(s) => self
                .decode(&s)
                .ok()
                .and_then(|b| type1::builtin_encoding(&b))
                .map(Rc::new),
            _ => None,
        };
        if let Some(n) = num {
            self.type1_encodings.borrow_mut().insert(n, enc.clone());
        }
        enc
    }

    /// The concatenated, decoded content streams of a page.
    pub fn page_content(&self, page: &PageInfo) -> Result<Vec<u8>, String> {
        let Some(c) = page.dict.get(b"Contents") else {
            return Ok(Vec::new());
        };
        let parts: Vec<Obj> = match self.resolve(c) {
            Obj::Array(a) => a.iter().map(|o| self.resolve(o)).collect(),
            o => vec![o],
        };
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for p in parts {
            if let Obj::Stream(s) = p {
                match self.decode(&s) {
                    Ok(d) => {
                        out.extend_from_slice(&d);
                        out.push(b'\n');
                    }
                    Err(e) => errors.push(e),
                }
            }
            if out.len() > self.limits.max_stream_bytes {
                return Err("page content too large".into());
            }
        }
        if out.is_empty() {
            if let Some(e) = errors.into_iter().next() {
                return Err(format!("unreadable page content: {e}"));
            }
        }
        Ok(out)
    }
}

/// Decrypts the strings (and stream data) of object `num` generation `gen`; cross-reference
/// streams are left as they are.
fn decrypt_obj(d: &Decryptor, num: u32, gen: u16, obj: Obj) -> Obj {
    fn strings(d: &Decryptor, num: u32, gen: u16, o: &Obj) -> Obj {
        match o {
            Obj::Str(s) => Obj::Str(d.string(num, gen, s)),
            Obj::Array(a) => {
                Obj::Array(Rc::new(a.iter().map(|x| strings(d, num, gen, x)).collect()))
            }
            Obj::Dict(x) => Obj::Dict(Rc::new(dict_strings(d, num, gen, x))),
            other => other.clone(),
        }
    }
    fn dict_strings(d: &Decryptor, num: u32, gen: u16, x: &Dict) -> Dict {
        let mut out = Dict::default();
        for (k, v) in x.iter() {
            out.insert(k.to_vec(), strings(d, num, gen, v));
        }
        out
    }
    match obj {
        Obj::Stream(s) if s.dict.is_type(b"XRef") => Obj::Stream(s),
        Obj::Stream(s) => {
            let raw = d.stream(num, gen, &s.dict, &s.raw);
            Obj::Stream(Rc::new(Stream {
                dict: dict_strings(d, num, gen, &s.dict),
                raw,
            }))
        }
        other => strings(d, num, gen, &other),
    }
}
