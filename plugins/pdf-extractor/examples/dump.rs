//! Prints the blocks extracted from a PDF file (or from pdfgen's sample paper without argument).

fn main() {
    let bytes = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path).expect("readable file"),
        None => pdfgen::sample_paper().0,
    };
    match pdf_extractor::extract(&bytes, &pdf_extractor::ocr::NoOcr) {
        Ok(out) => {
            for b in &out.blocks {
                println!("[p{} {:?}] {}", b.page, b.kind, b.text.replace('\n', " / "));
            }
            for s in &out.skipped {
                println!("skipped page {}: {}", s.page, s.reason);
            }
        }
        Err(e) => println!("error: {e}"),
    }
}
