//! Stream filters: Flate (with PNG/TIFF predictors), LZW, ASCIIHex, ASCII85 and RunLength.

use crate::objects::{Dict, Obj};

/// Image codecs that are not decoded here (their data is passed on as is).
pub const IMAGE_FILTERS: &[&[u8]] = &[
    b"DCTDecode",
    b"DCT",
    b"JPXDecode",
    b"CCITTFaxDecode",
    b"CCF",
    b"JBIG2Decode",
];

/// Applies one non-image filter, producing at most `limit` bytes.
pub fn apply(
    name: &[u8],
    data: &[u8],
    parms: Option<&Dict>,
    limit: usize,
) -> Result<Vec<u8>, String> {
    let out = match name {
        b"FlateDecode" | b"Fl" => flate(data, limit)?,
        b"LZWDecode" | b"LZW" => {
            let early = parms
                .and_then(|p| p.get(b"EarlyChange"))
                .and_then(Obj::as_i64)
                .unwrap_or(1);
            lzw(data, early != 0, limit)?
        }
        b"ASCIIHexDecode" | b"AHx" => ascii_hex(data),
        b"ASCII85Decode" | b"A85" => ascii85(data)?,
        b"RunLengthDecode" | b"RL" => run_length(data, limit),
        other => {
            return Err(format!(
                "unsupported filter {}",
                String::from_utf8_lossy(other)
            ))
        }
    };
    if out.len() > limit {
        return Err(format!("decoded stream exceeds {limit} bytes"));
    }
    match name {
        b"FlateDecode" | b"Fl" | b"LZWDecode" | b"LZW" => predict(out, parms),
        _ => Ok(out),
    }
}

fn flate(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    use miniz_oxide::inflate::{decompress_to_vec_with_limit, decompress_to_vec_zlib_with_limit};
    match decompress_to_vec_zlib_with_limit(data, limit) {
        Ok(v) => Ok(v),
        Err(e) if matches!(e.status, miniz_oxide::inflate::TINFLStatus::HasMoreOutput) => {
            Err(format!("decoded stream exceeds {limit} bytes"))
        }
        // Truncated or corrupt data: keep what was decoded, else try raw deflate.
        Err(e) if !e.output.is_empty() => Ok(e.output),
        Err(_) => match decompress_to_vec_with_limit(data, limit) {
            Ok(v) => Ok(v),
            Err(e) if !e.output.is_empty() => Ok(e.output),
            Err(_) => Err("corrupt Flate data".into()),
        },
    }
}

fn predict(data: Vec<u8>, parms: Option<&Dict>) -> Result<Vec<u8>, String> {
    let Some(p) = parms else { return Ok(data) };
    let get = |k: &[u8], d: i64| p.get(k).and_then(Obj::as_i64).unwrap_or(d);
    let predictor = get(b"Predictor", 1);
    if predictor < 2 {
        return Ok(data);
    }
    let colors = get(b"Colors", 1).clamp(1, 32) as usize;
    let bpc = get(b"BitsPerComponent", 8).clamp(1, 16) as usize;
    let columns = get(b"Columns", 1).clamp(1, 1 << 20) as usize;
    let bpp = (colors * bpc).div_ceil(8).max(1);
    let row = (colors * bpc * columns).div_ceil(8);
    if predictor == 2 {
        if bpc != 8 {
            return Ok(data);
        }
        let mut out = data;
        for r in out.chunks_mut(row) {
            for i in bpp..r.len() {
                r[i] = r[i].wrapping_add(r[i - bpp]);
            }
        }
        return Ok(out);
    }
    // PNG predictors: every row starts with a filter-type byte.
    let mut out = Vec::with_capacity(data.len());
    let mut prev = vec![0u8; row];
    for chunk in data.chunks(row + 1) {
        let Some((&ty, src)) = chunk.split_first() else {
            break;
        };
        let mut cur = src.to_vec();
        cur.resize(row, 0);
        for i in 0..row {
            let a = if i >= bpp { cur[i - bpp] } else { 0 };
            let b = prev[i];
            let c = if i >= bpp { prev[i - bpp] } else { 0 };
            cur[i] = match ty {
                1 => cur[i].wrapping_add(a),
                2 => cur[i].wrapping_add(b),
                3 => cur[i].wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => cur[i].wrapping_add(paeth(a, b, c)),
                _ => cur[i],
            };
        }
        out.extend_from_slice(&cur);
        prev = cur;
    }
    Ok(out)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let pa = (p - i16::from(a)).abs();
    let pb = (p - i16::from(b)).abs();
    let pc = (p - i16::from(c)).abs();
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

fn lzw(data: &[u8], early: bool, limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut table: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    table.push(Vec::new()); // 256 clear
    table.push(Vec::new()); // 257 EOD
    let mut width = 9u32;
    let mut bitbuf = 0u32;
    let mut bits = 0u32;
    let mut prev: Option<Vec<u8>> = None;
    for &byte in data {
        bitbuf = (bitbuf << 8) | u32::from(byte);
        bits += 8;
        while bits >= width {
            let code = ((bitbuf >> (bits - width)) & ((1 << width) - 1)) as usize;
            bits -= width;
            if code == 256 {
                table.truncate(258);
                width = 9;
                prev = None;
                continue;
            }
            if code == 257 {
                return Ok(out);
            }
            let entry = if code < table.len() {
                table[code].clone()
            } else if let Some(p) = &prev {
                let mut e = p.clone();
                e.push(p[0]);
                e
            } else {
                return Err("corrupt LZW data".into());
            };
            if let Some(p) = prev.take() {
                if !p.is_empty() && table.len() < 4096 {
                    let mut n = p;
                    n.push(entry[0]);
                    table.push(n);
                }
            }
            out.extend_from_slice(&entry);
            if out.len() > limit {
                return Err(format!("decoded stream exceeds {limit} bytes"));
            }
            prev = Some(entry);
            let next = table.len() + usize::from(early);
            width = if next >= 2048 {
                12
            } else if next >= 1024 {
                11
            } else if next >= 512 {
                10
            } else {
                9
            };
        }
    }
    Ok(out)
}

/// ASCIIHexDecode (also hex strings `<...>`): pairs of hex digits up to `>`, other bytes skipped,
/// an odd final digit padded with 0.
pub(crate) fn ascii_hex(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut hi: Option<u8> = None;
    for &c in data {
        if c == b'>' {
            break;
        }
        let Some(v) = crate::objects::hex_val(c) else {
            continue;
        };
        match hi.take() {
            Some(h) => out.push(h * 16 + v),
            None => hi = Some(v),
        }
    }
    if let Some(h) = hi {
        out.push(h * 16);
    }
    out
}

fn ascii85(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut group = [0u8; 5];
    let mut n = 0usize;
    let body = data.strip_prefix(b"<~").unwrap_or(data);
    for &c in body {
        match c {
            b'~' => break,
            b'z' if n == 0 => out.extend_from_slice(&[0, 0, 0, 0]),
            b'!'..=b'u' => {
                group[n] = c - b'!';
                n += 1;
                if n == 5 {
                    let v = group.iter().fold(0u64, |acc, &d| acc * 85 + u64::from(d));
                    if v > u64::from(u32::MAX) {
                        return Err("corrupt ASCII85 data".into());
                    }
                    out.extend_from_slice(&(v as u32).to_be_bytes());
                    n = 0;
                }
            }
            _ => {}
        }
    }
    if n > 1 {
        for g in group.iter_mut().skip(n) {
            *g = 84;
        }
        let v = group.iter().fold(0u64, |acc, &d| acc * 85 + u64::from(d));
        let bytes = (v.min(u64::from(u32::MAX)) as u32).to_be_bytes();
        out.extend_from_slice(&bytes[..n - 1]);
    }
    Ok(out)
}

fn run_length(data: &[u8], limit: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() && out.len() <= limit {
        let len = data[i];
        i += 1;
        if len == 128 {
            break;
        }
        if len < 128 {
            let n = usize::from(len) + 1;
            let end = (i + n).min(data.len());
            out.extend_from_slice(&data[i..end]);
            i = end;
        } else if let Some(&b) = data.get(i) {
            out.extend(std::iter::repeat_n(b, 257 - usize::from(len)));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_filters() {
        assert_eq!(ascii_hex(b"48 65 6c6c 6f>"), b"Hello");
        assert_eq!(ascii85(b"87cURD]i,\"Ebo80~>").unwrap(), b"Hello World!");
        assert_eq!(
            run_length(&[2, b'a', b'b', b'c', 254, b'x', 128], 100),
            b"abcxxx"
        );
    }

    #[test]
    fn png_up_predictor() {
        let mut p = Dict::default();
        p.insert(b"Predictor".to_vec(), Obj::Int(12));
        p.insert(b"Columns".to_vec(), Obj::Int(2));
        let data = vec![2, 1, 2, 2, 1, 1];
        assert_eq!(predict(data, Some(&p)).unwrap(), vec![1, 2, 2, 3]);
    }
}
