//! `COPY (query) TO STDOUT` and `COPY table [(columns)] TO STDOUT`, in text or CSV format
//! (psql `\copy`, psycopg `copy()`, pgjdbc `CopyManager`). Fields are the same text the
//! query would return; COPY to files, programs or from anywhere is refused by the guard.

use bytes::Bytes;
use datafusion::dataframe::DataFrame;
use datafusion::sql::sqlparser::ast::{
    CopyLegacyCsvOption, CopyLegacyOption, CopyOption, CopySource, Expr, Ident, ObjectName, Query,
    SelectItem, Statement,
};
use futures::StreamExt;
use pgwire::api::portal::Format;
use pgwire::api::results::{CopyResponse, Response};
use pgwire::error::PgWireResult;
use pgwire::messages::copy::CopyData;

use super::errors::FrontError;

/// How rows are written.
#[derive(Debug, Clone)]
pub struct CopyOptions {
    csv: bool,
    header: bool,
    delimiter: char,
    null: String,
    quote: char,
}

impl Default for CopyOptions {
    fn default() -> Self {
        Self {
            csv: false,
            header: false,
            delimiter: '\t',
            null: "\\N".into(),
            quote: '"',
        }
    }
}

/// The query a COPY statement reads, and its options.
pub fn query_of(statement: &Statement) -> Result<(Statement, CopyOptions), FrontError> {
    let Statement::Copy {
        source,
        options,
        legacy_options,
        ..
    } = statement
    else {
        return Err(FrontError::NotSupported("not a COPY statement".into()));
    };
    let query = match source {
        CopySource::Query(q) => Statement::Query(q.clone()),
        CopySource::Table {
            table_name,
            columns,
        } => table_query(table_name, columns)?,
    };
    let mut o = CopyOptions::default();
    let mut null_set = false;
    let mut delim_set = false;
    for opt in options {
        match opt {
            CopyOption::Format(f) => match f.value.to_ascii_lowercase().as_str() {
                "text" => o.csv = false,
                "csv" => o.csv = true,
                other => {
                    return Err(FrontError::NotSupported(format!("COPY format {other}")));
                }
            },
            CopyOption::Header(h) => o.header = *h,
            CopyOption::Delimiter(d) => {
                o.delimiter = *d;
                delim_set = true;
            }
            CopyOption::Null(n) => {
                o.null = n.clone();
                null_set = true;
            }
            CopyOption::Quote(q) => o.quote = *q,
            CopyOption::Encoding(e)
                if e.eq_ignore_ascii_case("utf8") || e.eq_ignore_ascii_case("utf-8") => {}
            other => return Err(FrontError::NotSupported(format!("COPY option {other}"))),
        }
    }
    for opt in legacy_options {
        match opt {
            CopyLegacyOption::Csv(csv) => {
                o.csv = true;
                for c in csv {
                    match c {
                        CopyLegacyCsvOption::Header => o.header = true,
                        CopyLegacyCsvOption::Quote(q) => o.quote = *q,
                        other => {
                            return Err(FrontError::NotSupported(format!("COPY option {other}")))
                        }
                    }
                }
            }
            CopyLegacyOption::Delimiter(d) => {
                o.delimiter = *d;
                delim_set = true;
            }
            CopyLegacyOption::Null(n) => {
                o.null = n.clone();
                null_set = true;
            }
            CopyLegacyOption::Binary => {
                return Err(FrontError::NotSupported("COPY in binary format".into()))
            }
            other => return Err(FrontError::NotSupported(format!("COPY option {other}"))),
        }
    }
    if o.csv {
        if !delim_set {
            o.delimiter = ',';
        }
        if !null_set {
            o.null = String::new();
        }
    }
    Ok((query, o))
}

fn table_query(table: &ObjectName, columns: &[Ident]) -> Result<Statement, FrontError> {
    let projection: Vec<SelectItem> = if columns.is_empty() {
        vec![SelectItem::Wildcard(Default::default())]
    } else {
        columns
            .iter()
            .map(|c| SelectItem::UnnamedExpr(Expr::Identifier(c.clone())))
            .collect()
    };
    let cols = projection
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!("SELECT {cols} FROM {table}");
    let dialect = datafusion::sql::sqlparser::dialect::PostgreSqlDialect {};
    let mut stmts = datafusion::sql::sqlparser::parser::Parser::parse_sql(&dialect, &sql)
        .map_err(|e| FrontError::NotSupported(format!("COPY {table}: {e}")))?;
    match stmts.pop() {
        Some(Statement::Query(q)) => Ok(Statement::Query(q as Box<Query>)),
        _ => Err(FrontError::NotSupported(format!("COPY {table}"))),
    }
}

fn push_field(line: &mut String, value: Option<&str>, o: &CopyOptions) {
    match value {
        None => line.push_str(&o.null),
        Some(v) if o.csv => {
            let needs = v.is_empty() && o.null.is_empty()
                || v.contains(o.delimiter)
                || v.contains(o.quote)
                || v.contains('\n')
                || v.contains('\r')
                || v == o.null;
            if needs {
                line.push(o.quote);
                for ch in v.chars() {
                    if ch == o.quote {
                        line.push(o.quote);
                    }
                    line.push(ch);
                }
                line.push(o.quote);
            } else {
                line.push_str(v);
            }
        }
        Some(v) => {
            for ch in v.chars() {
                match ch {
                    '\\' => line.push_str("\\\\"),
                    '\n' => line.push_str("\\n"),
                    '\r' => line.push_str("\\r"),
                    '\t' => line.push_str("\\t"),
                    c if c == o.delimiter => {
                        line.push('\\');
                        line.push(c);
                    }
                    c => line.push(c),
                }
            }
        }
    }
}

/// Runs the query and streams its rows as COPY data.
pub async fn copy_out(df: DataFrame, options: &CopyOptions) -> PgWireResult<Response> {
    let names: Vec<String> = df
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let columns = names.len();
    let mut resp = super::floats::postgres_infinity(
        datafusion_postgres::arrow_pg::datatypes::df::encode_dataframe(
            df,
            &Format::UnifiedText,
            None,
        )
        .await?,
    );
    let o = options.clone();
    let header = o.header.then(|| {
        let mut line = String::new();
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                line.push(o.delimiter);
            }
            push_field(&mut line, Some(n), &o);
        }
        line.push('\n');
        Ok(CopyData::new(Bytes::from(line)))
    });
    let rows = std::mem::replace(resp.data_rows(), Box::pin(futures::stream::empty()));
    let body = rows.map(move |row| {
        let row = row?;
        let mut line = String::new();
        for (i, v) in super::wire_types::row_fields(&row.data)
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                line.push(o.delimiter);
            }
            let text = v.map(String::from_utf8_lossy);
            push_field(&mut line, text.as_deref(), &o);
        }
        line.push('\n');
        Ok(CopyData::new(Bytes::from(line)))
    });
    let stream = futures::stream::iter(header).chain(body);
    Ok(Response::CopyOut(CopyResponse::new(0, columns, stream)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_csv_fields_are_escaped() {
        let text = CopyOptions::default();
        let mut l = String::new();
        push_field(&mut l, Some("a\tb\\c\nd"), &text);
        l.push(text.delimiter);
        push_field(&mut l, None, &text);
        assert_eq!(l, "a\\tb\\\\c\\nd\t\\N");
        let csv = CopyOptions {
            csv: true,
            delimiter: ',',
            null: String::new(),
            ..Default::default()
        };
        let mut l = String::new();
        push_field(&mut l, Some("x,\"y\""), &csv);
        l.push(',');
        push_field(&mut l, None, &csv);
        l.push(',');
        push_field(&mut l, Some(""), &csv);
        assert_eq!(l, "\"x,\"\"y\"\"\",,\"\"");
    }
}
