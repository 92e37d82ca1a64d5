//! Plain-text tables for the CLI, in the style of psql.

use arrow::util::display::{ArrayFormatter, FormatOptions};
use arrow_array::RecordBatch;

/// Renders batches as an aligned table with a `(N rows)` footer (a cell's line breaks shown
/// as `↵`, values longer than 80 characters cut with `…`).
pub fn render(batches: &[RecordBatch]) -> String {
    if batches.is_empty() {
        return footer(0);
    }
    let (headers, mut rows) = cells(batches);
    for cell in rows.iter_mut().flatten() {
        *cell = cell.replace('\n', "↵");
    }
    render_rows(&headers, &rows)
}

/// Renders batches unaligned, as `psql -A` does: the header and each row as their values in
/// full, separated by `|`, then a `(N rows)` footer.
pub fn render_unaligned(batches: &[RecordBatch]) -> String {
    let (headers, rows) = cells(batches);
    let mut out = String::new();
    if !headers.is_empty() {
        out.push_str(&headers.join("|"));
        out.push('\n');
    }
    for r in &rows {
        out.push_str(&r.join("|"));
        out.push('\n');
    }
    out.push_str(&footer(rows.len()));
    out
}

/// The column names and every row's values as text (NULL as the empty string).
fn cells(batches: &[RecordBatch]) -> (Vec<String>, Vec<Vec<String>>) {
    let Some(first) = batches.first() else {
        return (Vec::new(), Vec::new());
    };
    let headers = first
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let opts = FormatOptions::default().with_null("");
    for b in batches {
        let fmts: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).expect("displayable column"))
            .collect();
        for r in 0..b.num_rows() {
            rows.push(fmts.iter().map(|f| f.value(r).to_string()).collect());
        }
    }
    (headers, rows)
}

/// `(N rows)`.
fn footer(n: usize) -> String {
    format!("({n} row{})\n", if n == 1 { "" } else { "s" })
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
    out.push_str(&footer(rows.len()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, StringArray};

    fn batch() -> RecordBatch {
        let long = "word ".repeat(30) + "\nsecond line";
        RecordBatch::try_from_iter([
            (
                "chunk_id",
                Arc::new(StringArray::from(vec!["a@1#0", "b@1#0"])) as ArrayRef,
            ),
            (
                "text",
                Arc::new(StringArray::from(vec![Some(long.as_str()), None])) as ArrayRef,
            ),
            ("n", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
        ])
        .unwrap()
    }

    #[test]
    fn aligned_tables_cut_long_values_and_unaligned_output_keeps_them() {
        let b = batch();
        let table = render(std::slice::from_ref(&b));
        assert!(table.contains('…'), "{table}");
        assert!(table.ends_with("(2 rows)\n"));
        assert!(table.lines().all(|l| l.chars().count() < 120), "{table}");
        let plain = render_unaligned(&[b]);
        let want = format!(
            "chunk_id|text|n\na@1#0|{}\nsecond line|1\nb@1#0||2\n(2 rows)\n",
            "word ".repeat(30)
        );
        assert_eq!(plain, want);
        assert_eq!(render_unaligned(&[]), "(0 rows)\n");
        assert_eq!(render(&[]), "(0 rows)\n");
    }
}
