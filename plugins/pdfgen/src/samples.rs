//! Ready-made documents with ground truth: a two-column analysis note, a one-column report, a
//! ToUnicode (CID font) page and image-only pages.

use crate::{text_width, Doc, Emit, ExpectedBlock, Font, Kind, Page, Style};

const LEFT: f64 = 72.0;
const RIGHT: f64 = 540.0;
const COL_W: f64 = 222.0;
const RIGHT_COL: f64 = 318.0;
const HEADER: &str = "CMS Analysis Note AN-2026/042";
const FOOTER: &str = "Internal - do not distribute";

/// Filler sentences (no digits or maths, so they never look like numbers or equations).
const FILLER: [&str; 8] = [
    "The detector response is modelled with a full simulation of the apparatus.",
    "Events are required to contain exactly one isolated lepton with large transverse momentum.",
    "Jets are clustered with the anti-kt algorithm using particle flow candidates as inputs.",
    "The missing transverse momentum is computed as the negative vector sum of all candidates.",
    "Background processes are estimated from control regions that are enriched in each process.",
    "The trigger efficiency is measured in data with an independent reference trigger.",
    "Corrections for pileup are applied by reweighting the simulated vertex distribution.",
    "The selection was optimised before looking at the data in the signal region.",
];

fn para(lead: &str, seed: usize, n: usize) -> String {
    let mut s = lead.to_string();
    for i in 0..n {
        s.push(' ');
        s.push_str(FILLER[(seed + i) % FILLER.len()]);
    }
    s
}

fn body(emit: Emit) -> Style {
    Style::new(Font::TimesRoman, 10.0).leading(12.0).emit(emit)
}

fn furniture(page: &mut Page, n: u32, exp: &mut Vec<ExpectedBlock>, top: bool) {
    if top {
        page.text(LEFT, 756.0, Font::Helvetica, 8.0, HEADER);
        exp.push(ExpectedBlock::new(Kind::Header, n, HEADER));
    } else {
        page.text(LEFT, 40.0, Font::Helvetica, 8.0, FOOTER);
        page.right_aligned(RIGHT, 40.0, Font::Helvetica, 8.0, &n.to_string());
        exp.push(ExpectedBlock::new(Kind::Footer, n, FOOTER));
        exp.push(ExpectedBlock::new(Kind::PageNumber, n, &n.to_string()));
    }
}

/// A body paragraph in a column; records it and returns the next baseline (with a gap).
fn body_para(
    page: &mut Page,
    exp: &mut Vec<ExpectedBlock>,
    n: u32,
    (x, y): (f64, f64),
    lead: &str,
    seed: usize,
    emit: Emit,
) -> f64 {
    let text = para(lead, seed, 3);
    exp.push(ExpectedBlock::new(Kind::Body, n, lead));
    page.paragraph(x, y, COL_W, body(emit), &text) - 6.0
}

fn heading(page: &mut Page, exp: &mut Vec<ExpectedBlock>, n: u32, x: f64, y: f64, t: &str) -> f64 {
    page.text_with(x, y, Font::HelveticaBold, 12.0, t, Emit::Tm);
    exp.push(ExpectedBlock::new(Kind::Heading, n, t));
    y - 20.0
}

fn caption(
    page: &mut Page,
    exp: &mut Vec<ExpectedBlock>,
    n: u32,
    x: f64,
    y: f64,
    width: f64,
    t: &str,
) -> f64 {
    exp.push(ExpectedBlock::new(Kind::Caption, n, t));
    page.paragraph(
        x,
        y,
        width,
        Style::new(Font::TimesRoman, 9.0).leading(11.0),
        t,
    ) - 8.0
}

fn figure_box(page: &mut Page, x: f64, y_top: f64, w: f64, h: f64) {
    page.raw(&format!(
        "q 0.5 w 0 0 0 RG {x} {} {w} {h} re S {} {} m {} {} l S Q\n",
        y_top - h,
        x + 10.0,
        y_top - h + 10.0,
        x + w - 10.0,
        y_top - 10.0
    ));
}

fn equation(
    page: &mut Page,
    exp: &mut Vec<ExpectedBlock>,
    n: u32,
    col_x: f64,
    y: f64,
    eq: &str,
    no: &str,
) {
    let f = Font::TimesRoman;
    let cx = col_x + COL_W / 2.0;
    page.text(cx - text_width(f, 10.0, eq) / 2.0, y, f, 10.0, eq);
    page.right_aligned(col_x + COL_W, y, f, 10.0, no);
    exp.push(ExpectedBlock::new(Kind::Equation, n, eq));
}

/// A three-page, two-column physics analysis note and its ground truth in reading order.
///
/// Page 1: running header, full-width bold title, authors and abstract, then two columns with
/// section headings, body paragraphs (emitted with every text operator variant), a displayed
/// equation with a right-aligned number "(1)", a footnote with a raised marker at the bottom of
/// the left column and a figure caption in the right column. Page 2: a full-width table caption
/// and a table (process / events / uncertainty) above two columns. Page 3: two columns with a
/// second equation and caption. Every page has the footer and its page number on one baseline.
/// Content streams are Flate-compressed; simple fonts carry `/Widths`.
pub fn sample_paper() -> (Vec<u8>, Vec<ExpectedBlock>) {
    let (doc, exp) = sample_paper_doc();
    (doc.to_bytes(), exp)
}

/// The document of [`sample_paper`] before serialisation (to write it with other settings).
pub fn sample_paper_doc() -> (Doc, Vec<ExpectedBlock>) {
    let mut doc = Doc::new();
    doc.set_compress(true);
    let mut exp = Vec::new();

    // Page 1.
    {
        let p = doc.add_letter_page();
        let e = &mut exp;
        furniture(p, 1, e, true);
        let title = "Search for Heavy Resonances Decaying to Pairs of W Bosons";
        p.centered(306.0, 700.0, Font::HelveticaBold, 16.0, title);
        e.push(ExpectedBlock::new(Kind::Heading, 1, title));
        let authors = "A. Rossi, B. Chen and C. Okafor, University of Somewhere";
        p.centered(306.0, 676.0, Font::TimesRoman, 11.0, authors);
        e.push(ExpectedBlock::new(Kind::Body, 1, authors));
        let abs = para(
            "Abstract. This abstract spans the full page width and summarises the search.",
            0,
            3,
        );
        p.paragraph(LEFT, 648.0, RIGHT - LEFT, body(Emit::Td), &abs);
        e.push(ExpectedBlock::new(
            Kind::Body,
            1,
            "This abstract spans the full page width",
        ));

        // Left column.
        let mut y = 580.0;
        y = heading(p, e, 1, LEFT, y, "1 Introduction");
        y = body_para(
            p,
            e,
            1,
            (LEFT, y),
            "Left column paragraph one introduces the search.",
            1,
            Emit::Td,
        );
        y = body_para(
            p,
            e,
            1,
            (LEFT, y),
            "Left column paragraph two motivates the luminosity measurement.",
            2,
            Emit::TStar,
        );
        y -= 4.0;
        equation(
            p,
            e,
            1,
            LEFT,
            y,
            "m_T = sqrt(2 pT MET (1 - cos dphi))",
            "(1)",
        );
        y -= 22.0;
        body_para(
            p,
            e,
            1,
            (LEFT, y),
            "Left column paragraph three defines the transverse mass.",
            3,
            Emit::Quote,
        );
        // Footnote: "The integrated luminosity is measured with the pixel cluster counting
        // method.", on two lines under a short rule, with a raised marker.
        p.marked(
            LEFT,
            100.0,
            Font::TimesRoman,
            8.0,
            "1",
            "The integrated luminosity is measured with",
        );
        p.text(
            LEFT,
            90.5,
            Font::TimesRoman,
            8.0,
            "the pixel cluster counting method.",
        );
        p.raw("q 0.4 w 72 110 m 150 110 l S Q\n");
        e.push(ExpectedBlock::new(
            Kind::Footnote,
            1,
            "The integrated luminosity is measured",
        ));

        // Right column.
        let mut y = 580.0;
        y = body_para(
            p,
            e,
            1,
            (RIGHT_COL, y),
            "Right column paragraph one continues the introduction.",
            4,
            Emit::TjKern,
        );
        y = heading(p, e, 1, RIGHT_COL, y, "2 Data and simulated samples");
        y = body_para(
            p,
            e,
            1,
            (RIGHT_COL, y),
            "Right column paragraph two lists the simulated samples.",
            5,
            Emit::MultiTj,
        );
        figure_box(p, RIGHT_COL, y, COL_W, 90.0);
        y -= 104.0;
        y = caption(p, e, 1, RIGHT_COL, y, COL_W, "Figure 1: Distribution of the transverse mass in the signal region for data and simulation.");
        body_para(
            p,
            e,
            1,
            (RIGHT_COL, y),
            "Right column paragraph three describes the figure.",
            6,
            Emit::TD,
        );
        furniture(p, 1, e, false);
    }

    // Page 2.
    {
        let p = doc.add_letter_page();
        let e = &mut exp;
        furniture(p, 2, e, true);
        let cap = "Table 1: Expected event yields and relative uncertainties in the signal region.";
        let cw = text_width(Font::TimesRoman, 9.0, cap);
        p.text(306.0 - cw / 2.0, 720.0, Font::TimesRoman, 9.0, cap);
        e.push(ExpectedBlock::new(Kind::Caption, 2, cap));
        let rows = [
            ["Process", "Events", "Uncertainty (%)"],
            ["ttbar", "1520", "4.5"],
            ["W+jets", "870", "6.1"],
            ["Diboson", "132", "9.8"],
            ["Total", "2522", "3.7"],
        ];
        let cols = [130.0, 300.0, 430.0];
        let mut y = 700.0;
        for (i, row) in rows.iter().enumerate() {
            let font = if i == 0 {
                Font::HelveticaBold
            } else {
                Font::Helvetica
            };
            for (c, cell) in row.iter().enumerate() {
                let emit = if c == 1 { Emit::Tm } else { Emit::Td };
                p.text_with(cols[c], y, font, 9.0, cell, emit);
            }
            y -= 14.0;
        }
        let table: Vec<String> = rows.iter().map(|r| r.join("\t")).collect();
        e.push(ExpectedBlock::new(Kind::Table, 2, &table.join("\n")));

        let mut y = 610.0;
        y = heading(p, e, 2, LEFT, y, "3 Event selection");
        y = body_para(
            p,
            e,
            2,
            (LEFT, y),
            "Left column paragraph four explains the event selection.",
            7,
            Emit::Tm,
        );
        y = body_para(
            p,
            e,
            2,
            (LEFT, y),
            "Left column paragraph five covers lepton identification.",
            0,
            Emit::Cm,
        );
        body_para(
            p,
            e,
            2,
            (LEFT, y),
            "Left column paragraph six covers the jet requirements.",
            1,
            Emit::TjKern,
        );

        let mut y = 610.0;
        y = body_para(
            p,
            e,
            2,
            (RIGHT_COL, y),
            "Right column paragraph four describes the control regions.",
            2,
            Emit::Quote,
        );
        y = heading(p, e, 2, RIGHT_COL, y, "4 Background estimation");
        y = body_para(
            p,
            e,
            2,
            (RIGHT_COL, y),
            "Right column paragraph five explains the fit to sidebands.",
            3,
            Emit::TStar,
        );
        body_para(
            p,
            e,
            2,
            (RIGHT_COL, y),
            "Right column paragraph six closes the background section.",
            4,
            Emit::MultiTj,
        );
        furniture(p, 2, e, false);
    }

    // Page 3.
    {
        let p = doc.add_letter_page();
        let e = &mut exp;
        furniture(p, 3, e, true);
        let mut y = 720.0;
        y = heading(p, e, 3, LEFT, y, "5 Systematic uncertainties");
        y = body_para(
            p,
            e,
            3,
            (LEFT, y),
            "Left column paragraph seven lists the systematic uncertainties.",
            5,
            Emit::TD,
        );
        y -= 4.0;
        equation(
            p,
            e,
            3,
            LEFT,
            y,
            "sigma_tot = sqrt(sigma_stat^2 + sigma_syst^2)",
            "(2)",
        );
        y -= 22.0;
        body_para(
            p,
            e,
            3,
            (LEFT, y),
            "Left column paragraph eight combines the uncertainties.",
            6,
            Emit::Td,
        );

        let mut y = 720.0;
        y = heading(p, e, 3, RIGHT_COL, y, "6 Results");
        y = body_para(
            p,
            e,
            3,
            (RIGHT_COL, y),
            "Right column paragraph seven reports the observed limits.",
            7,
            Emit::Tm,
        );
        figure_box(p, RIGHT_COL, y, COL_W, 80.0);
        y -= 94.0;
        y = caption(
            p,
            e,
            3,
            RIGHT_COL,
            y,
            COL_W,
            "Figure 2: Observed and expected upper limits on the production cross section.",
        );
        y = heading(p, e, 3, RIGHT_COL, y, "7 Conclusions");
        body_para(
            p,
            e,
            3,
            (RIGHT_COL, y),
            "Right column paragraph eight concludes the note.",
            0,
            Emit::Quote,
        );
        furniture(p, 3, e, false);
    }
    (doc, exp)
}

/// A two-page, one-column report (uncompressed, no `/Widths`: standard-14 metrics), with a
/// heading per page, paragraphs separated by first-line indents only, a centred equation, a
/// caption and "Page N of 2" footers.
pub fn one_column_doc() -> (Vec<u8>, Vec<ExpectedBlock>) {
    let mut doc = Doc::new();
    doc.set_widths(false);
    let mut exp = Vec::new();
    let width = RIGHT - LEFT;
    for n in 1..=2u32 {
        let p = doc.add_letter_page();
        let h = format!("Chapter {n} Overview of part {n}");
        p.text(LEFT, 720.0, Font::HelveticaBold, 14.0, &h);
        exp.push(ExpectedBlock::new(Kind::Heading, n, &h));
        let mut y = 690.0;
        for k in 0..3usize {
            let lead = format!(
                "Single column paragraph {} of page {}.",
                ["alpha", "beta", "gamma"][k],
                ["one", "two"][n as usize - 1]
            );
            let style = body(if k == 1 { Emit::TjKern } else { Emit::Td }).indent(18.0);
            y = p.paragraph(LEFT, y, width, style, &para(&lead, k + n as usize, 4));
            exp.push(ExpectedBlock::new(Kind::Body, n, &lead));
            if k == 0 {
                y -= 10.0;
                let eq = "E = m c^2 + p^2 / (2 m)";
                p.centered(306.0, y, Font::TimesRoman, 10.0, eq);
                exp.push(ExpectedBlock::new(Kind::Equation, n, eq));
                y -= 22.0;
            }
        }
        y -= 10.0;
        let cap = format!("Fig. {n}. A caption below an omitted figure on page {n}.");
        p.text(LEFT, y, Font::TimesRoman, 9.0, &cap);
        exp.push(ExpectedBlock::new(Kind::Caption, n, &cap));
        let f = format!("Page {n} of 2");
        p.centered(306.0, 36.0, Font::Courier, 9.0, &f);
        exp.push(ExpectedBlock::new(Kind::PageNumber, n, &f));
    }
    (doc.to_bytes(), exp)
}

/// A one-page document whose section headings are set apart only by their typeface (a
/// numbered title in Helvetica at the body's leading, an unnumbered one standing alone) over a
/// Times body, and whose accents are drawn over their letters as TeX's OT1 fonts do
/// ("Th´eor`eme": the accent, a kern back, the letter); then a code listing in two aligned
/// columns, and on page 2 a table of contents without leaders.
pub fn styled_headings_doc() -> (Vec<u8>, Vec<ExpectedBlock>) {
    let mut doc = Doc::new();
    let p = doc.add_letter_page();
    let body = Style::new(Font::TimesRoman, 10.0);
    let width = RIGHT - LEFT;
    let title = "Muon identification studies";
    p.text(LEFT, 720.0, Font::HelveticaBold, 16.0, title);
    let mut exp = vec![ExpectedBlock::new(Kind::Heading, 1, title)];
    let lead = "The muon system records tracks of penetrating particles.";
    let y = p.paragraph(LEFT, 690.0, width, body, &para(lead, 1, 3));
    exp.push(ExpectedBlock::new(Kind::Body, 1, lead));
    let sub = "2.1 Muon selection";
    p.text(LEFT, y, Font::Helvetica, 10.0, sub);
    exp.push(ExpectedBlock::new(Kind::Heading, 1, sub));
    let lead = "Selected muons pass the tight identification criteria.";
    let y = p.paragraph(LEFT, y - 12.0, width, body, &para(lead, 2, 3));
    exp.push(ExpectedBlock::new(Kind::Body, 1, lead));
    let ack = "Acknowledgements";
    p.text(LEFT, y - 8.0, Font::Helvetica, 10.0, ack);
    exp.push(ExpectedBlock::new(Kind::Heading, 1, ack));
    // WinAnsi 0xB4 is the acute accent and 0x60 the grave, each 333 units wide in Times.
    let y = y - 30.0;
    let accented = [
        "(Le th) (\\264) 333 (eor) (\\140) 333 (eme de Cauchy est cit)",
        "(\\264) 333 (e dans les notes d'analyse du groupe.)",
    ];
    p.raw(&format!(
        "BT /F3 10 Tf {LEFT} {y} Td [{} {}] TJ ET",
        accented[0], accented[1]
    ));
    exp.push(ExpectedBlock::new(
        Kind::Body,
        1,
        "Le théorème de Cauchy est cité dans les notes",
    ));
    // A code listing whose comments align in a column: monospaced, so no table.
    let mut y = y - 30.0;
    for (code, comment) in [("fn select()", "// muons"), ("let pt_cut", "// GeV")] {
        p.text(LEFT, y, Font::Courier, 10.0, code);
        p.text(LEFT + 150.0, y, Font::Courier, 10.0, comment);
        y -= 12.0;
    }
    exp.push(ExpectedBlock::new(Kind::Body, 1, "fn select()"));
    // A table of contents without leaders: number, title, page in aligned columns.
    let p = doc.add_letter_page();
    let mut y = 700.0;
    for (n, t, pg) in [
        ("1", "Introduction to the analysis", "3"),
        ("2", "Event selection and triggers", "7"),
        ("2.1", "Muon identification", "9"),
    ] {
        p.text(LEFT, y, Font::TimesRoman, 10.0, n);
        p.text(LEFT + 30.0, y, Font::TimesRoman, 10.0, t);
        p.right_aligned(RIGHT, y, Font::TimesRoman, 10.0, pg);
        y -= 12.0;
    }
    exp.push(ExpectedBlock::new(
        Kind::Body,
        2,
        "Introduction to the analysis",
    ));
    (doc.to_bytes(), exp)
}

/// A one-page document set in the Type0 font [`Font::Cid`] (text only recoverable through its
/// ToUnicode CMap, including a "fi" ligature code and Greek letters from an array bfrange).
pub fn tounicode_doc() -> (Vec<u8>, Vec<ExpectedBlock>) {
    let mut doc = Doc::new();
    let p = doc.add_letter_page();
    p.text(
        LEFT,
        720.0,
        Font::HelveticaBold,
        14.0,
        "Unicode mapping test",
    );
    let text = "The final fit uses α and β parameters from the simulation of the detector.";
    p.paragraph(LEFT, 690.0, RIGHT - LEFT, Style::new(Font::Cid, 10.0), text);
    let exp = vec![
        ExpectedBlock::new(Kind::Heading, 1, "Unicode mapping test"),
        ExpectedBlock::new(Kind::Body, 1, text),
    ];
    (doc.to_bytes(), exp)
}

/// A document of one text page followed by one image page showing `gray` (8-bit samples).
pub fn image_doc(gray: &[u8], width: u32, height: u32) -> Vec<u8> {
    let mut doc = Doc::new();
    doc.add_letter_page().text(
        LEFT,
        720.0,
        Font::Helvetica,
        10.0,
        "A text page before the scanned page.",
    );
    doc.image_page(gray, width, height);
    doc.to_bytes()
}

/// A deterministic 8-bit grey test pattern (horizontal bars) of `width` × `height` samples.
pub fn test_gray_image(width: u32, height: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            let dark = (y / 8) % 2 == 0 && x % 16 < 12;
            v.push(if dark { 30 } else { 230 });
        }
    }
    v
}
