//! Plain-text tables for the CLI, in the style of psql.

use arrow::util::display::{ArrayFormatter, FormatOptions};
use arrow_array::RecordBatch;

/// Renders batches as an aligned table with a `(N rows)` footer.
pub fn render(batches: &[RecordBatch]) -> String {
    let Some(first) = batches.first() else {
        return "(0 rows)\n".to_string();
    };
    let schema = first.schema();
    let headers: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let opts = FormatOptions::default().with_null("");
    for b in batches {
        let fmts: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).expect("displayable column"))
            .collect();
        for r in 0..b.num_rows() {
            rows.push(
                fmts.iter()
                    .map(|f| f.value(r).to_string().replace('\n', "↵"))
                    .collect(),
            );
        }
    }
    render_rows(&headers, &rows)
}

/// Renders string rows under `headers` as an aligned table with a `(N rows)` footer.
pub fn render_rows(headers: &[String], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([headers[i].chars().count()])
                .max()
                .unwrap_or(0)
                .min(80)
        })
        .collect();
    let cell = |s: &str, w: usize| {
        let s: String = if s.chars().count() > w {
            s.chars().take(w.saturating_sub(1)).chain(['…']).collect()
        } else {
            s.to_string()
        };
        format!("{s:<w$}")
    };
    let mut out = String::new();
    let line = |cells: Vec<String>| format!(" {} \n", cells.join(" | "));
    out.push_str(&line(
        headers
            .iter()
            .zip(&widths)
            .map(|(h, w)| cell(h, *w))
            .collect(),
    ));
    out.push_str(&format!(
        "{}\n",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("+")
    ));
    for r in rows {
        out.push_str(&line(
            r.iter().zip(&widths).map(|(c, w)| cell(c, *w)).collect(),
        ));
    }
    out.push_str(&format!(
        "({} row{})\n",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    ));
    out
}

/// A size as PostgreSQL's `pg_size_pretty` writes it (bytes below 10 kB, then kB, MB, GB, TB).
pub fn size_pretty(bytes: u64) -> String {
    let mut size = bytes as f64;
    for unit in ["bytes", "kB", "MB", "GB"] {
        if size < 10.0 * 1024.0 - 0.5 {
            return format!("{} {unit}", size.round() as u64);
        }
        size /= 1024.0;
    }
    format!("{} TB", size.round() as u64)
}
