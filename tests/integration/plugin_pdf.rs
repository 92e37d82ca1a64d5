//! The pdf-extractor through the real sandbox: block kinds and two-column reading order on
//! generated PDFs, hundreds of mutated PDFs, OCR of an image page (Tesseract) or its skip.

use mitra::plugins::{Block, BlockKind, PluginError, PluginHost};
use pdfgen::ExpectedBlock;

use super::plugins_common::{plugin_config, Rng};

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every expected block is found, with its kind and page, in the expected order.
fn check(blocks: &[Block], expected: &[ExpectedBlock]) {
    let mut at = 0usize;
    for e in expected {
        let want = squash(&e.text);
        let pos = blocks[at..]
            .iter()
            .position(|b| squash(&b.text).contains(&want))
            .map(|p| p + at);
        let Some(pos) = pos else {
            let shown: Vec<String> = blocks
                .iter()
                .map(|b| format!("{:?} p{:?}: {}", b.kind, b.page, squash(&b.text)))
                .collect();
            panic!(
                "{:?} {:?} on page {} not found in order after block {at}:\n{}",
                e.kind,
                e.text,
                e.page,
                shown.join("\n")
            );
        };
        let b = &blocks[pos];
        assert_eq!(b.kind.as_str(), e.kind.as_str(), "kind of {:?}", e.text);
        assert_eq!(b.page, Some(e.page), "page of {:?}", e.text);
        at = pos;
    }
}

#[test]
fn pdf_blocks_and_reading_order_match_the_generated_structure() {
    let data = tempfile::tempdir().unwrap();
    let host = PluginHost::new(&plugin_config(data.path(), None)).unwrap();
    let x = host.extractor("pdf-extractor").unwrap();
    for (name, (pdf, expected)) in [
        ("sample_paper", pdfgen::sample_paper()),
        ("one_column", pdfgen::one_column_doc()),
        ("tounicode", pdfgen::tounicode_doc()),
    ] {
        let out = x
            .extract(&pdf, "application/pdf")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out.skipped.is_empty(), "{name}: {:?}", out.skipped);
        check(&out.blocks, &expected);
        if name == "sample_paper" {
            let kinds: Vec<BlockKind> = out.blocks.iter().map(|b| b.kind).collect();
            for k in [
                BlockKind::Heading,
                BlockKind::Body,
                BlockKind::Caption,
                BlockKind::Table,
                BlockKind::PageNumber,
                BlockKind::Header,
                BlockKind::Footer,
                BlockKind::Footnote,
                BlockKind::Equation,
            ] {
                assert!(kinds.contains(&k), "{k:?} missing");
            }
        }
    }
}

#[test]
fn encrypted_and_tex_font_pdfs_extract_through_the_sandbox() {
    let data = tempfile::tempdir().unwrap();
    let host = PluginHost::new(&plugin_config(data.path(), None)).unwrap();
    let x = host.extractor("pdf-extractor").unwrap();
    // Permissions-only encryption (empty user password): same blocks as the plain document.
    for cipher in [
        pdfgen::Cipher::Rc4_128,
        pdfgen::Cipher::Aes128,
        pdfgen::Cipher::Aes256,
    ] {
        let (mut doc, expected) = pdfgen::sample_paper_doc();
        doc.set_encryption(Some(pdfgen::Encryption {
            cipher,
            user_password: String::new(),
            owner_password: "owner".into(),
        }));
        let out = x.extract(&doc.to_bytes(), "application/pdf").unwrap();
        check(&out.blocks, &expected);
        // A real user password is a clear failure naming the plugin, not a crash.
        let (mut doc, _) = pdfgen::sample_paper_doc();
        doc.set_encryption(Some(pdfgen::Encryption {
            cipher,
            user_password: "s3cret".into(),
            owner_password: "owner".into(),
        }));
        match x.extract(&doc.to_bytes(), "application/pdf") {
            Err(PluginError::Failed {
                plugin, message, ..
            }) => {
                assert_eq!(plugin, "pdf-extractor");
                assert!(message.contains("password"), "{message}");
            }
            other => panic!("{cipher:?}: expected a password error, got {other:?}"),
        }
    }
    // pdflatex-style Type 1 font without /Encoding or ToUnicode: ligatures from the font program.
    let mut doc = pdfgen::Doc::new();
    doc.add_letter_page().text(
        72.0,
        700.0,
        pdfgen::Font::Cmr,
        10.0,
        "The trigger efficiency was measured in the final fit.",
    );
    let out = x.extract(&doc.to_bytes(), "application/pdf").unwrap();
    let text: String = out.blocks.iter().map(|b| b.text.clone()).collect();
    assert!(
        text.contains("The trigger efficiency was measured in the final fit."),
        "{text}"
    );
}

#[test]
fn mutated_and_truncated_pdfs_never_crash_or_hang_the_host() {
    let data = tempfile::tempdir().unwrap();
    let mut cfg = plugin_config(data.path(), None);
    cfg.plugins.timeout_ms = 5_000;
    cfg.plugins.memory_mb = 256;
    let host = PluginHost::new(&cfg).unwrap();
    let x = host.extractor("pdf-extractor").unwrap();
    let (pdf, expected) = pdfgen::sample_paper();
    let (mut plain, _) = pdfgen::one_column_doc();
    plain.truncate(plain.len());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut failed, mut trapped) = (0, 0, 0);
    let started = std::time::Instant::now();
    for i in 0..300 {
        let base = if i % 3 == 0 { &plain } else { &pdf };
        let mut m = base.clone();
        match i % 6 {
            0 => m.truncate(rng.below(m.len())),
            1 => {
                for _ in 0..1 + rng.below(20) {
                    let p = rng.below(m.len());
                    m[p] = rng.next_u64() as u8;
                }
            }
            2 => {
                // Digits changed: object numbers, lengths, offsets, coordinates.
                for _ in 0..1 + rng.below(10) {
                    let p = rng.below(m.len());
                    if m[p].is_ascii_digit() {
                        m[p] = b"0123456789"[rng.below(10)];
                    }
                }
            }
            3 => {
                let a = rng.below(m.len());
                let len = rng.below(2000).min(m.len() - a);
                m.drain(a..a + len);
            }
            4 => {
                let a = rng.below(m.len());
                let chunk: Vec<u8> = m[a..(a + rng.below(4000)).min(m.len())].to_vec();
                let b = rng.below(m.len());
                m.splice(b..b, chunk);
            }
            _ => {
                for tok in [&b"999999999"[..], b"-1", b"<<", b"]", b"stream", b"endobj"] {
                    let p = rng.below(m.len());
                    m.splice(p..p, tok.iter().copied());
                }
            }
        }
        match x.extract(&m, "application/pdf") {
            Ok(_) => ok += 1,
            Err(PluginError::Failed { .. }) => failed += 1,
            Err(
                PluginError::Trap { .. }
                | PluginError::Timeout { .. }
                | PluginError::MemoryLimit { .. }
                | PluginError::StackOverflow { .. }
                | PluginError::OutputTooLarge { .. },
            ) => trapped += 1,
            Err(e) => panic!("mutation {i}: unexpected {e}"),
        }
    }
    eprintln!("300 mutated PDFs: {ok} extracted, {failed} refused, {trapped} stopped by the sandbox, {:.1}s", started.elapsed().as_secs_f64());
    assert!(ok > 30, "most light mutations still extract");
    // The host is healthy afterwards.
    let out = x.extract(&pdf, "application/pdf").unwrap();
    check(&out.blocks, &expected);
}

/// Renders a text-only PDF page to 8-bit grey with pdftoppm (poppler-utils).
fn rasterise(pdf: &[u8]) -> (Vec<u8>, u32, u32) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pdf");
    std::fs::write(&input, pdf).unwrap();
    let status = std::process::Command::new("pdftoppm")
        .args(["-r", "150", "-gray", "-singlefile"])
        .arg(&input)
        .arg(dir.path().join("page"))
        .status()
        .expect("pdftoppm runs");
    assert!(status.success());
    let pgm = std::fs::read(dir.path().join("page.pgm")).unwrap();
    // P5\n<w> <h>\n255\n<data>
    let mut fields = Vec::new();
    let mut i = 0;
    while fields.len() < 4 {
        while pgm[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while !pgm[i].is_ascii_whitespace() {
            i += 1;
        }
        fields.push(String::from_utf8_lossy(&pgm[start..i]).to_string());
    }
    i += 1;
    assert_eq!(fields[0], "P5");
    let (w, h): (u32, u32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    (pgm[i..].to_vec(), w, h)
}

fn scanned_pdf() -> Vec<u8> {
    let mut doc = pdfgen::Doc::new();
    doc.add_letter_page()
        .text(
            72.0,
            700.0,
            pdfgen::Font::Helvetica,
            28.0,
            "Muon chamber alignment",
        )
        .text(
            72.0,
            650.0,
            pdfgen::Font::Helvetica,
            28.0,
            "was checked with cosmic rays",
        );
    let (gray, w, h) = rasterise(&doc.to_bytes());
    pdfgen::image_doc(&gray, w, h)
}

/// Extracts a PDF with a fresh host of `cfg`.
fn extract_pdf(cfg: &mitra::config::Config, pdf: &[u8]) -> mitra::plugins::Extraction {
    PluginHost::new(cfg)
        .unwrap()
        .extractor("pdf-extractor")
        .unwrap()
        .extract(pdf, "application/pdf")
        .unwrap()
}

/// Whether an OCR-test tool is installed; with MITRA_TEST_REQUIRE_OCR a missing one fails.
fn ocr_tool(program: &str, package: &str) -> bool {
    if super::common::has_program(program) {
        return true;
    }
    assert!(
        std::env::var_os("MITRA_TEST_REQUIRE_OCR").is_none(),
        "{program} ({package}) is required"
    );
    eprintln!("skipped: {program} ({package}) is not installed");
    false
}

#[test]
fn image_pages_are_read_by_ocr_or_reported_skipped() {
    if !ocr_tool("pdftoppm", "poppler-utils") {
        return;
    }
    let pdf = scanned_pdf();
    let data = tempfile::tempdir().unwrap();
    // Without Tesseract the image page is reported, not dropped.
    let mut cfg = plugin_config(data.path(), None);
    cfg.plugins.ocr_command = "/nonexistent/tesseract".into();
    let out = extract_pdf(&cfg, &pdf);
    assert_eq!(out.skipped.len(), 1, "{:?}", out.skipped);
    assert_eq!(out.skipped[0].page, 2);
    assert!(
        out.skipped[0].reason.contains("not installed"),
        "{}",
        out.skipped[0].reason
    );
    assert!(out
        .blocks
        .iter()
        .any(|b| b.text.contains("A text page before")));

    if !ocr_tool("tesseract", "tesseract-ocr") {
        return;
    }
    cfg.plugins.ocr_command = "tesseract".into();
    cfg.plugins.timeout_ms = 60_000;
    let out = extract_pdf(&cfg, &pdf);
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    let page2: String = out
        .blocks
        .iter()
        .filter(|b| b.page == Some(2))
        .map(|b| b.text.clone())
        .collect::<Vec<_>>()
        .join(" ");
    let lower = page2.to_lowercase();
    for w in ["muon", "chamber", "alignment", "cosmic", "rays"] {
        assert!(lower.contains(w), "{w} not in OCR text {page2:?}");
    }
}
