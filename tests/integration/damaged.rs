//! Damaged documents through the sandboxed extractors, with a fixed seed: PDFs with deleted
//! cross-reference tables, huge declared lengths, deep nesting, page-tree cycles and
//! decompression bombs besides bit flips and truncations, and HTML/Markdown with truncations,
//! byte flips, tag soup, invalid UTF-8, deep nesting and huge lines. Each ends as an extraction
//! or a per-document error naming the plugin; the host never panics; every document stays
//! within the plugin limits. `MITRA_DAMAGED_DOCS=N` (default 150 per format) runs more
//! (`benches/run_damaged.sh`).

use std::time::{Duration, Instant};

use mitra::plugins::{PluginError, PluginHost};
use pdfgen::replace_all;

use super::plugins_common::{plugin_config, Rng};

/// How documents of one format ended.
#[derive(Default, Debug)]
struct Outcomes {
    extracted: usize,
    refused: usize,
    stopped: usize,
    slowest: Duration,
}

fn count() -> usize {
    std::env::var("MITRA_DAMAGED_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

/// Runs `doc` through `plugin`; the outcome must be one the sandbox promises.
fn run(host: &PluginHost, plugin: &str, media: &str, doc: &[u8], what: &str, o: &mut Outcomes) {
    let x = host.extractor(plugin).unwrap();
    let t = Instant::now();
    let r = x.extract(doc, media);
    o.slowest = o.slowest.max(t.elapsed());
    match r {
        Ok(_) => o.extracted += 1,
        Err(PluginError::Failed { plugin: p, .. }) => {
            assert_eq!(p, plugin, "{what}: the error names the plugin");
            o.refused += 1;
        }
        Err(
            e @ (PluginError::Trap { .. }
            | PluginError::Timeout { .. }
            | PluginError::MemoryLimit { .. }
            | PluginError::StackOverflow { .. }
            | PluginError::OutputTooLarge { .. }),
        ) => {
            assert!(e.to_string().contains(plugin), "{what}: {e}");
            o.stopped += 1;
        }
        Err(e) => panic!("{what}: unexpected {e}"),
    }
}

/// A one-page PDF whose content stream is `content` (FlateDecode when `deflate`), with a
/// correct cross-reference table.
fn pdf_with_content(content: &[u8], deflate: bool) -> Vec<u8> {
    let (data, filter) = if deflate {
        (
            miniz_oxide::deflate::compress_to_vec_zlib(content, 1),
            " /Filter /FlateDecode",
        )
    } else {
        (content.to_vec(), "")
    };
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    let objs: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_vec(),
        {
            let mut s = format!("<< /Length {}{filter} >>\nstream\n", data.len()).into_bytes();
            s.extend_from_slice(&data);
            s.extend_from_slice(b"\nendstream");
            s
        },
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    for (i, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn damage_pdf(
    i: usize,
    rng: &mut Rng,
    bases: &[Vec<u8>],
    bombs: &[Vec<u8>; 2],
) -> (Vec<u8>, &'static str) {
    let base = &bases[rng.below(bases.len())];
    let mut m = base.clone();
    let kind = match i % 10 {
        0 => {
            m.truncate(rng.below(m.len()));
            "truncated"
        }
        1 => {
            for _ in 0..1 + rng.below(40) {
                let p = rng.below(m.len());
                m[p] ^= 1 << rng.below(8);
            }
            "bit flips"
        }
        2 => {
            // The cross-reference table and its pointer are gone: objects must be found by
            // scanning, or the document refused.
            if let Some(x) = m.windows(4).rposition(|w| w == b"xref") {
                m.truncate(x);
            }
            "deleted xref"
        }
        3 => {
            let huge = ["99999999999", "4294967296", "-5", "18446744073709551615"][rng.below(4)];
            m = replace_all(&m, b"/Length ", format!("/Length {huge} %").as_bytes());
            "huge declared lengths"
        }
        4 => {
            let depth = 1_000 + rng.below(100_000);
            let open = ["[", "<<", "<< /A "][rng.below(3)];
            let p = m
                .windows(6)
                .position(|w| w == b"/Count")
                .unwrap_or(m.len() / 2);
            m.splice(p..p, open.repeat(depth).into_bytes());
            "deep nesting"
        }
        5 => {
            // A page tree that contains itself.
            m = replace_all(&m, b"/Kids [", b"/Kids [2 0 R ");
            m = replace_all(&m, b"/Parent 2 0 R", b"/Parent 3 0 R");
            "page-tree cycle"
        }
        6 => {
            m = bombs[0].clone();
            "decompression bomb (drawing operators)"
        }
        7 => {
            m = bombs[1].clone();
            "decompression bomb (zeros)"
        }
        8 => {
            let a = rng.below(m.len());
            let len = rng.below(4000).min(m.len() - a);
            m.drain(a..a + len);
            "deleted range"
        }
        _ => {
            for tok in [
                &b"999999999 0 R"[..],
                b"-1",
                b"<<",
                b"]",
                b"stream",
                b"endobj",
                b"(\\",
            ] {
                let p = rng.below(m.len());
                m.splice(p..p, tok.iter().copied());
            }
            "token soup"
        }
    };
    (m, kind)
}

fn damage_text(i: usize, rng: &mut Rng, bases: &[Vec<u8>], html: bool) -> Vec<u8> {
    let mut m = bases[rng.below(bases.len())].clone();
    match i % 10 {
        0 => m.truncate(rng.below(m.len())),
        1 => {
            for _ in 0..1 + rng.below(60) {
                let p = rng.below(m.len());
                m[p] = rng.next_u64() as u8;
            }
        }
        2 => {
            let soup: &[&[u8]] = if html {
                &[
                    b"<",
                    b"</div>",
                    b"<table>",
                    b"<td>",
                    b"&#x",
                    b"&",
                    b"<!--",
                    b"<![CDATA[",
                    b"<script>",
                    b"<svg><math>",
                    b"\"'>",
                    b"<a href=",
                ]
            } else {
                &[
                    b"```", b"$$", b"|", b"---\n", b"> ", b"* ", b"[", b"](", b"<div>", b"\\",
                    b"<!--", b"    ",
                ]
            };
            for _ in 0..1 + rng.below(200) {
                let p = rng.below(m.len());
                let s = soup[rng.below(soup.len())];
                m.splice(p..p, s.iter().copied());
            }
        }
        3 => {
            let depth = 1_000 + rng.below(20_000);
            let open: &str = if html {
                [
                    "<div>",
                    "<ul><li>",
                    "<table><tr><td>",
                    "<b><i>",
                    "<blockquote>",
                ][rng.below(5)]
            } else {
                ["> ", "- ", "[", "*", "  - "][rng.below(5)]
            };
            let p = rng.below(m.len());
            m.splice(p..p, open.repeat(depth).into_bytes());
        }
        4 => {
            // Invalid UTF-8 and NUL bytes.
            for _ in 0..1 + rng.below(100) {
                let p = rng.below(m.len());
                let b: &[u8] = [&b"\xff\xfe"[..], b"\0", b"\xc3", b"\xed\xa0\x80"][rng.below(4)];
                m.splice(p..p, b.iter().copied());
            }
        }
        5 => {
            let line = b"x".repeat((1 + rng.below(8)) << 20);
            let p = rng.below(m.len());
            m.splice(p..p, line);
        }
        6 => {
            // A wide table.
            let cols = 200 + rng.below(2_000);
            let t = if html {
                format!(
                    "<table>{}</table>",
                    "<tr>".to_string() + &"<td>c</td>".repeat(cols)
                )
                .repeat(20)
            } else {
                format!("|{}\n|{}\n", " h |".repeat(cols), "---|".repeat(cols))
                    + &format!("|{}\n", " c |".repeat(cols)).repeat(20)
            };
            let p = rng.below(m.len());
            m.splice(p..p, t.into_bytes());
        }
        7 => {
            let a = rng.below(m.len());
            let chunk: Vec<u8> = m[a..(a + rng.below(5000)).min(m.len())].to_vec();
            for _ in 0..1 + rng.below(50) {
                let b = rng.below(m.len());
                m.splice(b..b, chunk.iter().copied());
            }
        }
        8 => {
            let a = rng.below(m.len());
            let len = rng.below(3000).min(m.len() - a);
            m.drain(a..a + len);
        }
        _ => {
            let attr = format!("<p title=\"{}\">", "a".repeat(1 << 20));
            let p = rng.below(m.len());
            m.splice(p..p, attr.into_bytes());
        }
    }
    m
}

#[test]
fn damaged_documents_end_as_extractions_or_per_document_errors() {
    let data = tempfile::tempdir().unwrap();
    let mut cfg = plugin_config(data.path(), None);
    cfg.plugins.timeout_ms = 5_000;
    cfg.plugins.memory_mb = 256;
    cfg.plugins.max_output_mb = 16;
    let host = PluginHost::new(&cfg).unwrap();
    let limit = Duration::from_millis(cfg.plugins.timeout_ms) + Duration::from_secs(2);
    let n = count();
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let started = Instant::now();

    let pdfs = vec![
        pdfgen::sample_paper().0,
        pdfgen::one_column_doc().0,
        pdf_with_content(
            b"BT /F1 12 Tf 72 720 Td (Muons with pT > 26 GeV) Tj ET",
            false,
        ),
        pdf_with_content(b"BT /F1 12 Tf 72 720 Td (Z+jets background) Tj ET", true),
    ];
    // 48 MiB of a repeated drawing operator and 128 MiB of zeros, from kilobytes of deflate.
    let bombs = [
        pdf_with_content(&b"0 0 m 1 1 l S\n".repeat((48 << 20) / 14), true),
        pdf_with_content(&vec![0u8; 128 << 20], true),
    ];
    let mut pdf = Outcomes::default();
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    for i in 0..n {
        let (doc, kind) = damage_pdf(i, &mut rng, &pdfs, &bombs);
        *kinds.entry(kind).or_default() += 1;
        run(
            &host,
            "pdf-extractor",
            "application/pdf",
            &doc,
            &format!("pdf {i} ({kind})"),
            &mut pdf,
        );
    }

    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo");
    let mut mds: Vec<Vec<u8>> = std::fs::read_dir(&demo)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    mds.sort();
    let htmls: Vec<Vec<u8>> = mds
        .iter()
        .map(|md| {
            let body: String = String::from_utf8_lossy(md)
                .lines()
                .map(|l| match l.strip_prefix("## ") {
                    Some(h) => format!("<h2>{h}</h2>"),
                    None => match l.strip_prefix("# ") {
                        Some(h) => format!("<h1>{h}</h1>"),
                        None => format!("<p>{l}</p>"),
                    },
                })
                .collect();
            format!("<html><head><title>n</title></head><body><nav><a href='/'>Home</a></nav><main>{body}</main><footer>f</footer></body></html>").into_bytes()
        })
        .collect();
    let (mut html, mut md) = (Outcomes::default(), Outcomes::default());
    for i in 0..n {
        let doc = damage_text(i, &mut rng, &htmls, true);
        run(
            &host,
            "html-extractor",
            "text/html",
            &doc,
            &format!("html {i}"),
            &mut html,
        );
        let doc = damage_text(i, &mut rng, &mds, false);
        run(
            &host,
            "markdown-extractor",
            "text/markdown",
            &doc,
            &format!("markdown {i}"),
            &mut md,
        );
    }
    eprintln!(
        "damaged documents, {n} per format, {:.1} s in all; PDF mutations {kinds:?}",
        started.elapsed().as_secs_f64()
    );
    for (name, o) in [("pdf", &pdf), ("html", &html), ("markdown", &md)] {
        eprintln!(
            "{name}: {} extracted, {} refused by the plugin, {} stopped by the sandbox; slowest {:.2} s",
            o.extracted,
            o.refused,
            o.stopped,
            o.slowest.as_secs_f64()
        );
        assert!(
            o.slowest <= limit,
            "{name}: {:?} beyond the time limit",
            o.slowest
        );
        assert_eq!(o.extracted + o.refused + o.stopped, n);
    }
    // Light damage still extracts, and the host is healthy afterwards.
    assert!(pdf.extracted > n / 5, "{pdf:?}");
    assert!(
        html.extracted > n / 2 && md.extracted > n / 2,
        "{html:?} {md:?}"
    );
    let x = host.extractor("html-extractor").unwrap();
    let out = x.extract(&htmls[0], "text/html").unwrap();
    let title = String::from_utf8_lossy(&mds[0])
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# "))
        .unwrap_or_default()
        .to_string();
    assert!(!title.is_empty());
    assert!(
        out.blocks.iter().any(|b| b.text == title),
        "{title}: {:?}",
        out.blocks
    );
}
