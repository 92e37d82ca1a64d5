//! Mitra PDF extractor: text-layer PDFs to ordered, classified blocks; OCR for image pages.
//!
//! The core ([`extract`]) is independent of the component bindings: OCR goes through the
//! [`ocr::Ocr`] trait, so native tests pass a fake. The component glue at the bottom implements
//! the SDK's `Extract` trait with the host's OCR import (wasm only).

pub mod content;
mod crypt;
pub mod document;
mod encodings;
mod filters;
mod fonts;
pub mod layout;
pub mod objects;
pub mod ocr;
mod type1;

use content::{Interpreter, PageContent};
use document::Document;
use layout::PageText;
use ocr::{Ocr, OcrError};

/// Bounds on the work done for one document.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Pages extracted at most (the rest are reported as skipped).
    pub max_pages: usize,
    /// Largest decoded stream (and page content) in bytes.
    pub max_stream_bytes: usize,
    /// Total decoded bytes for the whole document.
    pub max_decoded_total: usize,
    /// Content-stream operators interpreted per page.
    pub max_ops_per_page: usize,
    /// Glyphs shown per page (runs kept per page are bounded by the same number).
    pub max_glyphs_per_page: usize,
    /// Text runs kept for the whole document.
    pub max_runs_total: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_pages: 2000,
            max_stream_bytes: 64 << 20,
            max_decoded_total: 512 << 20,
            max_ops_per_page: 2_000_000,
            max_glyphs_per_page: 500_000,
            max_runs_total: 5_000_000,
        }
    }
}

pub use pdf_common::Kind;

/// One block in reading order.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Its kind.
    pub kind: Kind,
    /// 1-based page number.
    pub page: u32,
    /// Its text.
    pub text: String,
    /// For headings: 0 for the document title, 1 for a top-level section, 2 for a subsection...
    pub level: Option<u8>,
}

/// A page whose text could not be recovered.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    /// 1-based page number.
    pub page: u32,
    /// Why.
    pub reason: String,
}

/// The result of one extraction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Output {
    /// Blocks in reading order, page by page.
    pub blocks: Vec<Block>,
    /// Pages without recovered text, with reasons.
    pub skipped: Vec<Skipped>,
}

/// Extracts a PDF with the default [`Limits`].
pub fn extract(bytes: &[u8], ocr: &dyn Ocr) -> Result<Output, String> {
    extract_with_limits(bytes, ocr, &Limits::default())
}

fn page_matrix(rotate: i64, b: [f64; 4]) -> ([f64; 6], [f64; 4]) {
    let (w, h) = (b[2] - b[0], b[3] - b[1]);
    match rotate.rem_euclid(360) {
        90 => ([0.0, -1.0, 1.0, 0.0, -b[1], b[2]], [0.0, 0.0, h, w]),
        180 => ([-1.0, 0.0, 0.0, -1.0, b[0] + b[2], b[1] + b[3]], b),
        270 => ([0.0, 1.0, -1.0, 0.0, b[3], -b[0]], [0.0, 0.0, h, w]),
        _ => ([1.0, 0.0, 0.0, 1.0, 0.0, 0.0], b),
    }
}

/// Extracts a PDF: blocks of every text page in reading order, OCR for image-only pages, and
/// a skipped entry (with a reason) for every page without recovered text.
pub fn extract_with_limits(bytes: &[u8], ocr: &dyn Ocr, limits: &Limits) -> Result<Output, String> {
    let doc = Document::load(bytes, limits.clone())?;
    let (pages, truncated) = doc.pages();
    if pages.is_empty() {
        return Err("damaged PDF: no pages found".into());
    }
    let mut out = Output::default();
    let mut text_pages: Vec<PageText> = Vec::new();
    let mut ocr_blocks: Vec<Block> = Vec::new();
    let mut runs_total = 0usize;
    for (i, p) in pages.iter().enumerate() {
        let page = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let skip = |out: &mut Output, reason: String| out.skipped.push(Skipped { page, reason });
        if runs_total > limits.max_runs_total {
            skip(&mut out, "document text limit reached".into());
            continue;
        }
        let data = match doc.page_content(p) {
            Ok(d) => d,
            Err(e) => {
                skip(&mut out, e);
                continue;
            }
        };
        let rotate = p
            .dict
            .get(b"Rotate")
            .and_then(|o| doc.resolve(o).as_i64())
            .unwrap_or(0);
        let (ctm, bbox) = page_matrix(rotate, p.media_box);
        let content: PageContent = Interpreter::new(&doc, limits).run(&data, &p.resources, ctm);
        if !content.runs.is_empty() {
            runs_total += content.runs.len();
            text_pages.push(PageText {
                page,
                runs: content.runs,
                bbox,
            });
            continue;
        }
        let Some(img) = content
            .images
            .iter()
            .max_by(|a, b| a.area.total_cmp(&b.area))
        else {
            let reason = if content.truncated {
                "page content exceeds the processing limits"
            } else {
                "no text layer and no image to recognise"
            };
            skip(&mut out, reason.into());
            continue;
        };
        let (image, media_type) = match ocr::image_for_ocr(&doc, &img.stream) {
            Ok(x) => x,
            Err(e) => {
                skip(&mut out, format!("image-only page: {e}"));
                continue;
            }
        };
        match ocr.recognize(&image, media_type) {
            Ok(text) => {
                let paras = ocr::paragraphs(&text);
                if paras.is_empty() {
                    skip(&mut out, "image-only page: OCR found no text".into());
                }
                ocr_blocks.extend(paras.into_iter().map(|t| Block {
                    kind: Kind::Body,
                    page,
                    text: t,
                    level: None,
                }));
            }
            Err(OcrError::Unavailable(m)) => {
                skip(&mut out, format!("image-only page: OCR unavailable ({m})"))
            }
            Err(OcrError::Failed(m)) => {
                skip(&mut out, format!("image-only page: OCR failed ({m})"))
            }
        }
    }
    if truncated {
        out.skipped.push(Skipped {
            page: u32::try_from(limits.max_pages + 1).unwrap_or(u32::MAX),
            reason: format!(
                "page limit ({}) reached; later pages were not extracted",
                limits.max_pages
            ),
        });
    }
    for (page, blocks) in layout::layout(&text_pages) {
        out.blocks.extend(blocks.into_iter().map(|b| Block {
            kind: b.kind,
            page,
            text: b.text,
            level: b.level,
        }));
    }
    out.blocks.extend(ocr_blocks);
    out.blocks.sort_by_key(|b| b.page); // stable: reading order within a page is kept
    Ok(out)
}

/// The component: the SDK's `Extract` implemented with the host's OCR. Only built for wasm: the
/// export names (`mitra:plugin/extract@0.2.0#extract`) are not valid native linker symbols.
#[cfg(target_arch = "wasm32")]
mod component {
    use mitra_plugin_sdk::extractor::{
        ocr as host_ocr, Block, BlockKind, Extract, Extraction, SkippedPage,
    };

    use crate::ocr::{Ocr, OcrError};
    use crate::Kind;

    struct HostOcr;

    impl Ocr for HostOcr {
        fn recognize(&self, image: &[u8], media_type: &str) -> Result<String, OcrError> {
            host_ocr::recognize(image, media_type, None).map_err(|e| match e {
                host_ocr::OcrError::Unavailable(m) => OcrError::Unavailable(m),
                host_ocr::OcrError::Failed(m) => OcrError::Failed(m),
            })
        }
    }

    fn kind(k: Kind) -> BlockKind {
        match k {
            Kind::Heading => BlockKind::Heading,
            Kind::Body => BlockKind::Body,
            Kind::Caption => BlockKind::Caption,
            Kind::Table => BlockKind::Table,
            Kind::PageNumber => BlockKind::PageNumber,
            Kind::Header => BlockKind::Header,
            Kind::Footer => BlockKind::Footer,
            Kind::Footnote => BlockKind::Footnote,
            Kind::Equation => BlockKind::Equation,
        }
    }

    /// The exported extractor.
    pub struct PdfExtractor;

    impl Extract for PdfExtractor {
        fn extract(bytes: Vec<u8>, _media_type: String) -> Result<Extraction, String> {
            let out = crate::extract(&bytes, &HostOcr)?;
            Ok(Extraction {
                blocks: out
                    .blocks
                    .into_iter()
                    .map(|b| Block {
                        kind: kind(b.kind),
                        page: Some(b.page),
                        text: b.text,
                        level: b.level,
                    })
                    .collect(),
                skipped: out
                    .skipped
                    .into_iter()
                    .map(|s| SkippedPage {
                        page: s.page,
                        reason: s.reason,
                    })
                    .collect(),
            })
        }
    }

    mitra_plugin_sdk::extractor::export_extractor!(PdfExtractor);
}
