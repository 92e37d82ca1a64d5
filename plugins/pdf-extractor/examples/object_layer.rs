//! Mitra's PDF object layer (xref, object streams, filters, encryption) against lopdf's, on the
//! same files: which documents open, how many pages are found, how many page contents decode,
//! how long it takes, and whether anything panics. Reads a JSON array of PDF paths on stdin;
//! with `--damaged N SEED` it also makes N damaged variants of them (truncations, bit flips,
//! deleted xref, huge lengths, deep nesting, a decompression bomb) and reads those.
//!     cargo run --release --example object_layer -- [--damaged 1000 13] < paths.json

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use pdfgen::{replace_all, Rng};

/// What one reader made of one file.
#[derive(Default)]
struct Tally {
    opened: usize,
    refused: usize,
    panicked: usize,
    pages: usize,
    contents: usize,
    content_bytes: usize,
    seconds: f64,
}

impl Tally {
    fn line(&self, name: &str, files: usize) -> String {
        format!(
            "{name:6} read {}/{files} (a page or more), refused or no page {}, panicked {}; pages {}; page contents decoded {} ({:.1} MB); {:.2} s",
            self.opened,
            self.refused,
            self.panicked,
            self.pages,
            self.contents,
            self.content_bytes as f64 / 1e6,
            self.seconds
        )
    }
}

/// Pages found, page contents decoded and their bytes (`None`: the document was refused).
type Outcome = Option<(usize, usize, usize)>;

/// The page contents one reader decodes (`None`: it refused the document; an empty content:
/// the page's content could not be decoded).
type Contents = Option<Vec<Vec<u8>>>;

fn outcome(contents: Contents) -> Outcome {
    let contents = contents?;
    let decoded = contents.iter().filter(|c| !c.is_empty()).count();
    let bytes = contents.iter().map(Vec::len).sum();
    Some((contents.len(), decoded, bytes))
}

/// The page contents through Mitra's layer.
fn contents_mitra(bytes: &[u8]) -> Contents {
    let doc =
        pdf_extractor::document::Document::load(bytes, pdf_extractor::Limits::default()).ok()?;
    let (pages, _) = doc.pages();
    Some(
        pages
            .iter()
            .map(|p| doc.page_content(p).unwrap_or_default())
            .collect(),
    )
}

/// The same through lopdf (which decrypts with the empty password on load, and returns an
/// empty content for a page it cannot decode).
fn contents_lopdf(bytes: &[u8]) -> Contents {
    let doc = lopdf::Document::load_mem(bytes).ok()?;
    Some(
        doc.get_pages()
            .values()
            .map(|id| doc.get_page_content(*id))
            .collect(),
    )
}

/// What Mitra's layer reads of a document.
fn mitra(bytes: &[u8]) -> Outcome {
    outcome(contents_mitra(bytes))
}

/// What lopdf reads of a document.
fn lopdf(bytes: &[u8]) -> Outcome {
    outcome(contents_lopdf(bytes))
}

/// Reads `bytes` with `f`, counts the outcome in `tally` and returns the pages found.
fn run(tally: &mut Tally, f: fn(&[u8]) -> Outcome, bytes: &[u8]) -> usize {
    let t = Instant::now();
    match catch_unwind(AssertUnwindSafe(|| f(bytes))) {
        // A document without a page is not read, whatever the parser says.
        Ok(Some((pages, contents, total))) if pages > 0 => {
            tally.opened += 1;
            tally.pages += pages;
            tally.contents += contents;
            tally.content_bytes += total;
            tally.seconds += t.elapsed().as_secs_f64();
            return pages;
        }
        Ok(_) => tally.refused += 1,
        Err(_) => tally.panicked += 1,
    }
    tally.seconds += t.elapsed().as_secs_f64();
    0
}

/// The damage kinds, in the order [`damage`] draws them.
const KINDS: [&str; 6] = [
    "truncated",
    "bit flips",
    "xref deleted",
    "huge /Length",
    "deep nesting",
    "range deleted",
];

/// One damaged variant of `pdf` and the index of its kind in [`KINDS`].
fn damage(pdf: &[u8], rng: &mut Rng) -> (Vec<u8>, usize) {
    let mut d = pdf.to_vec();
    let kind = rng.below(KINDS.len());
    match kind {
        0 => d.truncate(rng.below(d.len())),
        1 => {
            for _ in 0..1 + rng.below(64) {
                let at = rng.below(d.len());
                d[at] ^= 1 << rng.below(8);
            }
        }
        2 => {
            d = replace_all(&d, b"startxref", b"startxxxx");
            d = replace_all(&d, b"xref", b"xxxx");
        }
        3 => d = replace_all(&d, b"/Length ", b"/Length 9999999999"),
        4 => {
            let at = rng.below(d.len());
            let open = if rng.below(2) == 0 { b"[" } else { b"<" };
            let nest: Vec<u8> = open.repeat(1000 + rng.below(100_000));
            d.splice(at..at, nest);
        }
        _ => {
            let at = rng.below(d.len());
            let len = rng.below(4096).min(d.len() - at);
            d.drain(at..at + len);
        }
    }
    (d, kind)
}

/// Encrypted copies of pdfgen's sample paper (empty user password, as most encrypted papers
/// are): does each reader decrypt the page contents to those of the plain document?
fn encrypted() {
    let (plain_doc, _) = pdfgen::sample_paper_doc();
    let plain = plain_doc.to_bytes();
    for cipher in [
        pdfgen::Cipher::Rc4_128,
        pdfgen::Cipher::Aes128,
        pdfgen::Cipher::Aes256,
    ] {
        let (mut doc, _) = pdfgen::sample_paper_doc();
        doc.set_encryption(Some(pdfgen::Encryption {
            cipher,
            user_password: String::new(),
            owner_password: "owner".into(),
        }));
        let enc = doc.to_bytes();
        let same = |f: fn(&[u8]) -> Contents| match catch_unwind(AssertUnwindSafe(|| {
            (f(&plain), f(&enc))
        })) {
            Ok((Some(a), Some(b))) if !a.is_empty() && a == b => "decrypted",
            Ok(_) => "not decrypted",
            Err(_) => "panicked",
        };
        println!(
            "encrypted {cipher:?}: mitra {}, lopdf {}",
            same(contents_mitra),
            same(contents_lopdf)
        );
    }
}

/// A one-page PDF whose content stream inflates to `mb` MiB of zeros.
fn bomb(mb: usize) -> Vec<u8> {
    let zeros = vec![b' '; mb << 20];
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&zeros, 9);
    let mut pdf = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>endobj\n".to_vec();
    pdf.extend_from_slice(
        format!("4 0 obj<</Length {}/Filter/FlateDecode>>stream\n", z.len()).as_bytes(),
    );
    pdf.extend_from_slice(&z);
    pdf.extend_from_slice(b"\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");
    pdf
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let damaged: Option<(usize, u64)> = match args.as_slice() {
        [flag, n, seed] if flag == "--damaged" => {
            Some((n.parse().unwrap_or(0), seed.parse().unwrap_or(13)))
        }
        _ => None,
    };
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        eprintln!("reading stdin failed");
        std::process::exit(2);
    }
    let paths: Vec<String> = serde_json::from_str(&input).unwrap_or_default();
    // lopdf's own panics are counted, not printed.
    std::panic::set_hook(Box::new(|_| {}));
    let files: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let (mut m, mut l) = (Tally::default(), Tally::default());
    for f in &files {
        run(&mut m, mitra, f);
        run(&mut l, lopdf, f);
    }
    println!("real files: {}", files.len());
    println!("{}", m.line("mitra", files.len()));
    println!("{}", l.line("lopdf", files.len()));
    encrypted();
    if let Some((n, seed)) = damaged {
        let mut rng = Rng(seed.max(1));
        let mut by_kind: Vec<(Tally, Tally, usize)> = (0..=KINDS.len())
            .map(|_| (Tally::default(), Tally::default(), 0))
            .collect();
        // Files where each reader finds more pages than the other.
        let mut more = (0usize, 0usize);
        for i in 0..n {
            let (d, kind) = if i == 0 {
                (bomb(256), KINDS.len())
            } else {
                damage(&files[rng.below(files.len())], &mut rng)
            };
            let t = &mut by_kind[kind];
            let ours = run(&mut t.0, mitra, &d);
            let theirs = run(&mut t.1, lopdf, &d);
            t.2 += 1;
            match ours.cmp(&theirs) {
                std::cmp::Ordering::Greater => more.0 += 1,
                std::cmp::Ordering::Less => {
                    more.1 += 1;
                    if std::env::var_os("OBJECT_LAYER_VERBOSE").is_some() {
                        let name = KINDS.get(kind).copied().unwrap_or("bomb");
                        println!("lopdf finds more pages ({name}): {theirs} against {ours}");
                    }
                }
                std::cmp::Ordering::Equal => {}
            }
        }
        let (mut m, mut l) = (Tally::default(), Tally::default());
        for (km, kl, _) in &by_kind {
            for (all, k) in [(&mut m, km), (&mut l, kl)] {
                all.opened += k.opened;
                all.refused += k.refused;
                all.panicked += k.panicked;
                all.pages += k.pages;
                all.contents += k.contents;
                all.content_bytes += k.content_bytes;
                all.seconds += k.seconds;
            }
        }
        println!("damaged files: {n} (seed {seed}; the first is a 256 MiB decompression bomb)");
        println!("{}", m.line("mitra", n));
        println!("{}", l.line("lopdf", n));
        println!(
            "files where mitra finds more pages than lopdf: {}; where lopdf finds more: {} (OBJECT_LAYER_VERBOSE=1 lists them)",
            more.0, more.1
        );
        for (i, (km, kl, count)) in by_kind.iter().enumerate() {
            let name = KINDS.get(i).copied().unwrap_or("bomb");
            println!("  {name}:");
            println!("    {}", km.line("mitra", *count));
            println!("    {}", kl.line("lopdf", *count));
        }
    }
}
