//! Prints the text runs of one page (x0, x1, baseline y, size, bold/italic, text): a layout
//! debugging aid.
//!     cargo run --example runs -- FILE PAGE

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), page) = (args.next(), args.next()) else {
        eprintln!("usage: runs FILE [PAGE]");
        std::process::exit(2);
    };
    let page: usize = page.and_then(|p| p.parse().ok()).unwrap_or(1);
    let bytes = std::fs::read(&path).unwrap_or_default();
    let limits = pdf_extractor::Limits::default();
    let doc = match pdf_extractor::document::Document::load(&bytes, limits.clone()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let (pages, _) = doc.pages();
    let Some(p) = pages.get(page.saturating_sub(1)) else {
        eprintln!("no page {page}");
        std::process::exit(1);
    };
    let data = doc.page_content(p).unwrap_or_default();
    let ctm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let content =
        pdf_extractor::content::Interpreter::new(&doc, &limits).run(&data, &p.resources, ctm);
    for r in &content.runs {
        println!(
            "{:7.1} {:7.1} {:7.1} {:5.1} {}{} {}",
            r.x0,
            r.x1,
            r.y,
            r.size,
            if r.style.bold { "B" } else { "-" },
            if r.style.italic { "I" } else { "-" },
            r.text
        );
    }
}
