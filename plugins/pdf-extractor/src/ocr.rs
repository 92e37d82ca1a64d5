//! Image-only pages: the page image as JPEG or PNM for the host's OCR, behind a small trait.

use crate::document::Document;
use crate::objects::{Dict, Obj, Stream};

/// Why recognition did not produce text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OcrError {
    /// No OCR engine is available; the page is reported as skipped.
    Unavailable(String),
    /// The engine ran and failed.
    Failed(String),
}

/// Optical character recognition (the host's in the component, a fake in tests).
pub trait Ocr {
    /// Recognises the text of one image (`image/jpeg` or `image/x-portable-anymap`).
    fn recognize(&self, image: &[u8], media_type: &str) -> Result<String, OcrError>;
}

/// An OCR that is never available.
pub struct NoOcr;

impl Ocr for NoOcr {
    fn recognize(&self, _image: &[u8], _media_type: &str) -> Result<String, OcrError> {
        Err(OcrError::Unavailable("no OCR engine".into()))
    }
}

/// Media type of PNM images.
pub const PNM: &str = "image/x-portable-anymap";
/// Media type of JPEG images.
pub const JPEG: &str = "image/jpeg";

const MAX_SAMPLES: usize = 100_000_000;

/// The image of an XObject ready for OCR: JPEG data as stored, or a PNM (P5 grey / P6 RGB)
/// built from raw samples. Errors name what is unsupported.
pub fn image_for_ocr(doc: &Document, s: &Stream) -> Result<(Vec<u8>, &'static str), String> {
    let (data, codec) = doc.decode_partial(s)?;
    match codec.as_deref() {
        Some(b"DCTDecode") | Some(b"DCT") => return Ok((data, JPEG)),
        Some(other) => {
            return Err(format!(
                "unsupported image encoding {}",
                String::from_utf8_lossy(other)
            ))
        }
        None => {}
    }
    let d = &s.dict;
    let int = |k: &[u8]| d.get(k).map(|o| doc.resolve(o)).and_then(|o| o.as_i64());
    let w = int(b"Width").unwrap_or(0);
    let h = int(b"Height").unwrap_or(0);
    if w <= 0 || h <= 0 {
        return Err("image without valid dimensions".into());
    }
    let (w, h) = (w as usize, h as usize);
    if w.saturating_mul(h) > MAX_SAMPLES {
        return Err("image too large".into());
    }
    let mask = matches!(d.get(b"ImageMask"), Some(Obj::Bool(true)));
    let bpc = if mask {
        1
    } else {
        int(b"BitsPerComponent").unwrap_or(8)
    };
    if ![1, 2, 4, 8, 16].contains(&bpc) {
        return Err(format!("unsupported bits per component {bpc}"));
    }
    let bpc = bpc as usize;
    let cs = d
        .get(b"ColorSpace")
        .map(|o| doc.resolve(o))
        .unwrap_or(Obj::Null);
    let space = if mask {
        Space::Gray
    } else {
        color_space(doc, &cs)?
    };
    let comps = match &space {
        Space::Gray | Space::Indexed(..) => 1,
        Space::Rgb => 3,
        Space::Cmyk => 4,
    };
    let row_bytes = (w * comps * bpc).div_ceil(8);
    if data.len() < row_bytes * h {
        return Err("image data shorter than its dimensions".into());
    }
    let invert = match d.get(b"Decode").map(|o| doc.resolve(o)) {
        Some(Obj::Array(a)) => a.first().and_then(Obj::as_f64).is_some_and(|v| v > 0.5),
        _ => false,
    };
    let maxv = ((1u32 << bpc.min(8)) - 1) as f64;
    let mut samples = Vec::with_capacity(w * h * comps);
    for row in data.chunks(row_bytes).take(h) {
        for i in 0..w * comps {
            let v = match bpc {
                8 => u32::from(row[i]),
                16 => u32::from(row[i * 2]),
                _ => {
                    let bit = i * bpc;
                    let byte = row[bit / 8];
                    u32::from(byte >> (8 - bpc - bit % 8)) & ((1 << bpc) - 1)
                }
            };
            samples.push(v);
        }
    }
    let scale = |v: u32| -> u8 {
        let s = if bpc == 8 || bpc == 16 {
            v as f64
        } else {
            v as f64 / maxv * 255.0
        };
        let s = if invert { 255.0 - s } else { s };
        s.clamp(0.0, 255.0) as u8
    };
    let (magic, pixels): (&str, Vec<u8>) = match space {
        Space::Gray => ("P5", samples.iter().map(|&v| scale(v)).collect()),
        Space::Rgb => ("P6", samples.iter().map(|&v| scale(v)).collect()),
        Space::Cmyk => (
            "P6",
            samples
                .chunks(4)
                .flat_map(|c| {
                    let k = f64::from(scale(c[3])) / 255.0;
                    [0, 1, 2]
                        .map(|i| ((1.0 - f64::from(scale(c[i])) / 255.0) * (1.0 - k) * 255.0) as u8)
                })
                .collect(),
        ),
        Space::Indexed(base_comps, lut) => {
            let mut px = Vec::with_capacity(w * h * 3);
            for &v in &samples {
                let i = v as usize * base_comps;
                for k in 0..3 {
                    let c = if base_comps == 1 { i } else { i + k };
                    px.push(lut.get(c).copied().unwrap_or(255));
                }
            }
            ("P6", px)
        }
    };
    let mut out = format!("{magic}\n{w} {h}\n255\n").into_bytes();
    out.extend_from_slice(&pixels);
    Ok((out, PNM))
}

enum Space {
    Gray,
    Rgb,
    Cmyk,
    Indexed(usize, Vec<u8>),
}

fn color_space(doc: &Document, cs: &Obj) -> Result<Space, String> {
    let simple = |n: &[u8]| -> Option<Space> {
        match n {
            b"DeviceGray" | b"CalGray" | b"G" => Some(Space::Gray),
            b"DeviceRGB" | b"CalRGB" | b"RGB" => Some(Space::Rgb),
            b"DeviceCMYK" | b"CMYK" => Some(Space::Cmyk),
            _ => None,
        }
    };
    match cs {
        Obj::Name(n) => simple(n)
            .ok_or_else(|| format!("unsupported colour space {}", String::from_utf8_lossy(n))),
        Obj::Array(a) => {
            let kind = a.first().and_then(Obj::as_name).unwrap_or(b"");
            match kind {
                b"ICCBased" => {
                    let n = a
                        .get(1)
                        .and_then(|s| doc.dict(Some(s)))
                        .and_then(|d: std::rc::Rc<Dict>| d.get(b"N").and_then(Obj::as_i64))
                        .unwrap_or(3);
                    match n {
                        1 => Ok(Space::Gray),
                        4 => Ok(Space::Cmyk),
                        _ => Ok(Space::Rgb),
                    }
                }
                b"Indexed" | b"I" => {
                    let base = a.get(1).map(|o| doc.resolve(o)).unwrap_or(Obj::Null);
                    let base_comps = match color_space(doc, &base)? {
                        Space::Gray => 1,
                        Space::Rgb => 3,
                        _ => return Err("unsupported indexed base colour space".into()),
                    };
                    let lut = match a.get(3).map(|o| doc.resolve(o)) {
                        Some(Obj::Str(s)) => s,
                        Some(Obj::Stream(s)) => doc.decode(&s)?,
                        _ => return Err("indexed colour space without lookup".into()),
                    };
                    Ok(Space::Indexed(base_comps, lut))
                }
                other => simple(other).ok_or_else(|| {
                    format!(
                        "unsupported colour space {}",
                        String::from_utf8_lossy(other)
                    )
                }),
            }
        }
        _ => Ok(Space::Gray),
    }
}

/// Splits OCR output into paragraphs (blank lines separate; lines joined with spaces).
pub fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        crate::layout::join_line(&mut cur, l);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
