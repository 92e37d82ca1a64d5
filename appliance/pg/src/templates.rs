//! PostgreSQL's date/time templates (`to_char(ts, 'YYYY-MM-DD')`, `to_timestamp(text,
//! 'YYYY-MM-DD HH24:MI:SS.US')`) as the chrono formats DataFusion's functions take. Without this
//! a PostgreSQL template reaches chrono as literal text: `to_char` answers the template itself.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Value,
};

use crate::ast::last_name;
use crate::errors::FrontError;

/// Template patterns and their chrono forms, longest first (`HH24` before `HH`).
const PATTERNS: &[(&str, &str, &str)] = &[
    // (PostgreSQL, chrono, chrono under FM: no padding)
    ("HH24", "%H", "%-H"),
    ("HH12", "%I", "%-I"),
    ("YYYY", "%Y", "%Y"),
    ("IYYY", "%G", "%G"),
    ("MONTH", "%B", "%B"),
    ("Month", "%B", "%B"),
    ("month", "%B", "%B"),
    ("DDD", "%j", "%-j"),
    ("A.M.", "%p", "%p"),
    ("P.M.", "%p", "%p"),
    ("a.m.", "%P", "%P"),
    ("p.m.", "%P", "%P"),
    ("DAY", "%A", "%A"),
    ("Day", "%A", "%A"),
    ("day", "%A", "%A"),
    ("MON", "%b", "%b"),
    ("Mon", "%b", "%b"),
    ("mon", "%b", "%b"),
    ("YY", "%y", "%y"),
    ("MM", "%m", "%-m"),
    ("DD", "%d", "%-d"),
    ("HH", "%I", "%-I"),
    ("MI", "%M", "%-M"),
    ("SS", "%S", "%-S"),
    ("MS", "%3f", "%3f"),
    ("US", "%6f", "%6f"),
    ("AM", "%p", "%p"),
    ("PM", "%p", "%p"),
    ("am", "%P", "%P"),
    ("pm", "%P", "%P"),
    ("DY", "%a", "%a"),
    ("Dy", "%a", "%a"),
    ("dy", "%a", "%a"),
    ("IW", "%V", "%-V"),
    ("TZ", "%Z", "%Z"),
    ("tz", "%Z", "%Z"),
    ("OF", "%:z", "%:z"),
    // Lower case as PostgreSQL accepts it for the numeric fields.
    ("hh24", "%H", "%-H"),
    ("hh12", "%I", "%-I"),
    ("yyyy", "%Y", "%Y"),
    ("ddd", "%j", "%-j"),
    ("yy", "%y", "%y"),
    ("mm", "%m", "%-m"),
    ("dd", "%d", "%-d"),
    ("hh", "%I", "%-I"),
    ("mi", "%M", "%-M"),
    ("ss", "%S", "%-S"),
    ("ms", "%3f", "%3f"),
    ("us", "%6f", "%6f"),
];

/// Patterns PostgreSQL has and chrono cannot write: refused rather than answered wrongly.
const UNSUPPORTED: &[&str] = &[
    "SSSSS", "SSSS", "Y,YYY", "YYY", "IYY", "IY", "CC", "RM", "WW", "Q", "J", "ID", "D", "W", "I",
    "Y", "FX", "TH", "SP",
];

/// The chrono format of a PostgreSQL template; `Err` names a pattern chrono cannot express.
pub fn to_chrono(template: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    let mut fill = false;
    let mut patterns = 0;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("FM") {
            fill = true;
            rest = r;
            continue;
        }
        if let Some(quoted) = rest.strip_prefix('"') {
            // Text in double quotes is written as it is.
            let end = quoted.find('"').unwrap_or(quoted.len());
            out.push_str(&quoted[..end].replace('%', "%%"));
            rest = quoted.get(end + 1..).unwrap_or("");
            continue;
        }
        if let Some((p, plain, fm)) = PATTERNS.iter().find(|(p, ..)| rest.starts_with(p)) {
            out.push_str(if fill { fm } else { plain });
            rest = &rest[p.len()..];
            fill = false;
            patterns += 1;
            continue;
        }
        if let Some(p) = UNSUPPORTED.iter().find(|p| rest.starts_with(**p)) {
            return Err(format!(
                "the template pattern \"{p}\" of \"{template}\" is not supported"
            ));
        }
        match c {
            '%' => out.push_str("%%"),
            '\\' => {}
            _ => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    if patterns == 0 {
        return Err(format!(
            "\"{template}\" has no date or time pattern (number templates are not supported)"
        ));
    }
    Ok(out)
}

/// `to_char(x, 'template')` and `to_timestamp(text, 'template')` with a literal template get
/// the chrono form of it; a template chrono cannot express is 0A000.
pub fn datetime_templates(
    statement: &mut datafusion::sql::sqlparser::ast::Statement,
) -> Result<(), FrontError> {
    let mut failure = None;
    let _ = visit_expressions_mut(statement, |e| {
        let Expr::Function(f) = e else {
            return ControlFlow::<()>::Continue(());
        };
        if !matches!(last_name(&f.name).as_str(), "to_char" | "to_timestamp") {
            return ControlFlow::Continue(());
        }
        let FunctionArguments::List(list) = &mut f.args else {
            return ControlFlow::Continue(());
        };
        if list.args.len() != 2 {
            return ControlFlow::Continue(());
        }
        let numeric = match &list.args[1] {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v))) => matches!(
                &v.value,
                Value::SingleQuotedString(t) if last_name(&f.name) == "to_char"
                    && crate::number_format::is_numeric_template(t)
            ),
            _ => false,
        };
        if numeric {
            // `to_char(number, '999D99')`: PostgreSQL's numeric templates.
            if let FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) = &mut list.args[0] {
                *x = Expr::Cast {
                    kind: datafusion::sql::sqlparser::ast::CastKind::DoubleColon,
                    expr: Box::new(crate::ast::take(x)),
                    data_type: datafusion::sql::sqlparser::ast::DataType::DoublePrecision,
                    array: false,
                    format: None,
                };
            }
            f.name = datafusion::sql::sqlparser::ast::ObjectName::from(vec![
                datafusion::sql::sqlparser::ast::Ident::new(crate::number_format::FUNCTION),
            ]);
            return ControlFlow::Continue(());
        }
        if let FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v))) = &mut list.args[1] {
            if let Value::SingleQuotedString(t) = &mut v.value {
                match to_chrono(t) {
                    Ok(c) => *t = c,
                    Err(m) => {
                        failure = Some(m);
                        return ControlFlow::Break(());
                    }
                }
            }
        }
        ControlFlow::Continue(())
    });
    match failure {
        Some(m) => Err(FrontError::NotSupported(m)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_templates_become_chrono_formats() {
        assert_eq!(to_chrono("YYYY-MM-DD").unwrap(), "%Y-%m-%d");
        assert_eq!(to_chrono("yyyy-mm-dd hh24:mi").unwrap(), "%Y-%m-%d %H:%M");
        assert_eq!(
            to_chrono("YYYY-MM-DD HH24:MI:SS.US").unwrap(),
            "%Y-%m-%d %H:%M:%S.%6f"
        );
        assert_eq!(
            to_chrono("FMDD Mon YYYY, HH12 AM").unwrap(),
            "%-d %b %Y, %I %p"
        );
        assert_eq!(to_chrono("\"week\" IW, 100%").unwrap(), "week %V, 100%%");
        assert_eq!(
            to_chrono("YYYY-MM-DD\"T\"HH24:MI:SSOF").unwrap(),
            "%Y-%m-%dT%H:%M:%S%:z"
        );
        assert!(to_chrono("Q").unwrap_err().contains("\"Q\""));
        assert!(to_chrono("999D99").is_err());
        assert!(to_chrono("").is_err());
    }
}
