//! The one place where errors become SQLSTATEs on the wire.

use datafusion::error::DataFusionError;
use datafusion::sql::sqlparser::parser::ParserError;
use pgwire::api::{ClientInfo, ErrorHandler};
use pgwire::error::{ErrorInfo, PgWireError};

use crate::sql::SqlFnError;

/// Rewrites API errors into Postgres errors with a SQLSTATE before they are sent.
pub struct SqlStateErrors;

impl ErrorHandler for SqlStateErrors {
    fn on_error<C>(&self, client: &C, error: &mut PgWireError)
    where
        C: ClientInfo,
    {
        if let Some(info) = error_info(error) {
            tracing::info!(peer = %client.socket_addr(), code = %info.code, message = %info.message, "query error");
            *error = PgWireError::UserError(Box::new(info));
        }
    }
}

fn info(code: &str, message: String) -> ErrorInfo {
    ErrorInfo::new("ERROR".into(), code.into(), message)
}

/// The Postgres error for an API error, or `None` for protocol errors pgwire maps itself.
pub fn error_info(error: &PgWireError) -> Option<ErrorInfo> {
    let PgWireError::ApiError(inner) = error else {
        return None;
    };
    if let Some(df) = inner.downcast_ref::<DataFusionError>() {
        let (code, msg) = classify(df);
        return Some(info(code, msg));
    }
    if let Some(p) = inner.downcast_ref::<ParserError>() {
        return Some(info("42601", format!("syntax error: {p}")));
    }
    if let Some(f) = inner.downcast_ref::<SqlFnError>() {
        return Some(info(f.sqlstate(), f.to_string()));
    }
    Some(info("XX000", inner.to_string()))
}

/// SQLSTATE and message for a DataFusion error.
pub fn classify(e: &DataFusionError) -> (&'static str, String) {
    match e.find_root() {
        DataFusionError::External(inner) => {
            if let Some(f) = inner.downcast_ref::<SqlFnError>() {
                return (f.sqlstate(), f.to_string());
            }
            if let Some(df) = inner.downcast_ref::<DataFusionError>() {
                return classify(df);
            }
            ("XX000", inner.to_string())
        }
        DataFusionError::SQL(p, _) => ("42601", format!("syntax error: {p}")),
        DataFusionError::SchemaError(s, _) => {
            let m = s.to_string();
            let code = if m.contains("No field named") {
                "42703"
            } else if m.contains("not found") && m.contains("table") {
                "42P01"
            } else if m.contains("Ambiguous") || m.contains("ambiguous") {
                "42702"
            } else {
                "42P10"
            };
            (code, m)
        }
        DataFusionError::Plan(m) => {
            let code = if m.contains("table function") && m.contains("not found") {
                "42883"
            } else if m.starts_with("table '") && m.contains("not found") {
                "42P01"
            } else if m.contains("Invalid function") || m.contains("No function matches") {
                "42883"
            } else if m.contains("No field named") {
                "42703"
            } else {
                "42601"
            };
            (code, m.clone())
        }
        DataFusionError::NotImplemented(m) => ("0A000", format!("not supported: {m}")),
        DataFusionError::ResourcesExhausted(m) => ("53200", m.clone()),
        DataFusionError::ArrowError(a, _) => {
            let code = match a.as_ref() {
                arrow_schema::ArrowError::DivideByZero => "22012",
                arrow_schema::ArrowError::CastError(_)
                | arrow_schema::ArrowError::ParseError(_) => "22P02",
                _ => "XX000",
            };
            (code, a.to_string())
        }
        DataFusionError::Execution(m) if m.contains("Divide by zero") => ("22012", m.clone()),
        other => ("XX000", other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_function_errors_through_wrappers() {
        let e = SqlFnError::InvalidArgument {
            function: "bm25",
            message: "k must be a positive integer, got 0".into(),
        }
        .into_df();
        let wrapped = DataFusionError::Context("planning".into(), Box::new(e));
        let (code, msg) = classify(&wrapped);
        assert_eq!(code, "22023");
        assert!(msg.contains("k must be"));
        let (code, _) = classify(&DataFusionError::Plan(
            "table 'mitra.public.nope' not found".into(),
        ));
        assert_eq!(code, "42P01");
    }
}
