//! The one place where errors become SQLSTATEs on the wire.

use datafusion::error::DataFusionError;
use datafusion::sql::sqlparser::parser::ParserError;
use pgwire::api::{ClientInfo, ErrorHandler};
use pgwire::error::{ErrorInfo, PgWireError};

use mitra_sql::SqlFnError;

/// The server could not start (address, users file, catalog set-up).
#[derive(Debug, thiserror::Error)]
#[error("server: {0}")]
pub struct ServerError(pub String);

/// Errors of the wire front itself (policy, protocol, unsupported requests), each with its SQLSTATE.
#[derive(Debug, thiserror::Error)]
pub enum FrontError {
    /// The SQL surface is read-only: the statement would write or reach the server's files.
    #[error("permission denied: Mitra's SQL surface is read-only ({0} is not allowed)")]
    ReadOnly(String),
    /// A setting clients may not change.
    #[error("permission denied to set parameter \"{0}\"")]
    Setting(String),
    /// A valid request Mitra does not implement.
    #[error("not supported: {0}")]
    NotSupported(String),
    /// A malformed or out-of-sequence protocol message.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// The statement ran past `statement_timeout`.
    #[error("canceling statement due to statement timeout")]
    Timeout,
    /// A cancel request stopped the statement.
    #[error("canceling statement due to user request")]
    Cancelled,
    /// A cursor or prepared statement that does not exist.
    #[error("{0}")]
    UndefinedObject(String),
    /// More `$n` parameters than the protocol can bind.
    #[error("too many parameters: at most 65535 are allowed")]
    TooManyParameters,
    /// A transaction command outside a transaction block.
    #[error("{0} can only be used in transaction blocks")]
    NoTransaction(&'static str),
    /// A setting got a value it does not accept (an analysis that does not exist or may not
    /// be read).
    #[error("{0}")]
    InvalidValue(String),
    /// An internal failure (the analyses catalog could not be read).
    #[error("{0}")]
    Internal(String),
    /// A result beyond `limits.max_result_rows` or `limits.max_result_mb`.
    #[error("{0}")]
    ResultTooLarge(String),
    /// Other statements are ignored until the failed transaction block ends.
    #[error("current transaction is aborted, commands ignored until end of transaction block")]
    InFailedTransaction,
}

impl FrontError {
    /// The SQLSTATE this error maps to.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            FrontError::ReadOnly(_) | FrontError::Setting(_) => "42501",
            FrontError::NotSupported(_) => "0A000",
            FrontError::Protocol(_) => "08P01",
            FrontError::Timeout | FrontError::Cancelled => "57014",
            FrontError::UndefinedObject(_) => "34000",
            FrontError::InFailedTransaction => "25P02",
            FrontError::NoTransaction(_) => "25P01",
            FrontError::TooManyParameters => "54023",
            FrontError::InvalidValue(_) => "22023",
            FrontError::Internal(_) => "XX000",
            FrontError::ResultTooLarge(_) => "54000",
        }
    }

    /// As a pgwire error (sent to the client as an ErrorResponse).
    pub fn into_pg(self) -> PgWireError {
        PgWireError::UserError(Box::new(info(self.sqlstate(), self.to_string())))
    }
}

/// Rewrites API errors into Postgres errors with a SQLSTATE before they are sent.
pub struct SqlStateErrors;

impl ErrorHandler for SqlStateErrors {
    fn on_error<C>(&self, client: &C, error: &mut PgWireError)
    where
        C: ClientInfo,
    {
        if let Some(info) = error_info(error) {
            // The statement's own log line (handler.rs, `FailureLog`) says it at info level.
            tracing::debug!(peer = %client.socket_addr(), code = %info.code, message = %info.message, "query error");
            *error = PgWireError::UserError(Box::new(info));
        }
    }
}

fn info(code: &str, message: String) -> ErrorInfo {
    ErrorInfo::new("ERROR".into(), code.into(), scrub(&message))
}

/// `message` without source locations of the server's build (`/…/src/parse.rs:12:5`, as a
/// dependency's error or panic text may carry them): clients see the error, not the build.
pub fn scrub(message: &str) -> String {
    message
        .split_inclusive(char::is_whitespace)
        .map(|piece| {
            let word = piece.trim_end();
            if word.contains(".rs:") && word.contains('/') {
                piece.replacen(word, "(source location)", 1)
            } else {
                piece.to_string()
            }
        })
        .collect()
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
        return Some(info(sql_fn_state(f), f.to_string()));
    }
    if let Some(f) = inner.downcast_ref::<FrontError>() {
        return Some(info(f.sqlstate(), f.to_string()));
    }
    Some(info("XX000", inner.to_string()))
}

/// The SQLSTATE of an error of Mitra's SQL functions.
pub fn sql_fn_state(e: &SqlFnError) -> &'static str {
    match e {
        SqlFnError::InvalidArgument { .. } => "22023",
        SqlFnError::WrongArity { .. } => "42883",
        SqlFnError::Index(_) => "XX000",
        SqlFnError::Stopped(_) => "57014",
        SqlFnError::NotFound { .. } => "42704",
        SqlFnError::Store { .. } => "XX000",
        SqlFnError::OperatorOnly { .. } => "42501",
        SqlFnError::NotReplayable { .. } => "55000",
        SqlFnError::RerankUnavailable { .. } => "55000",
        SqlFnError::Rerank { source, .. } => {
            use mitra_rerank::RerankError as R;
            match source {
                R::QueryTooLong { .. } => "22023",
                R::Cancelled => "57014",
                R::Io { .. } => "58P01",
                R::Config { .. } | R::Embed(_) => "55000",
                R::Tokenizer(_) | R::Candle(_) => "XX000",
            }
        }
        SqlFnError::Analyses { source, .. } => match source {
            mitra_store::analyses::AnalysesError::Unknown(_) => "22023",
            _ => "XX000",
        },
        SqlFnError::Llm { source, .. } => {
            use mitra_llm::LlmError as L;
            match source.cause() {
                L::Busy { .. } => "53300",
                L::NotConfigured(_) => "55000",
                L::Model { message, .. } if message.contains("no such file") => "58P01",
                L::Model { .. } | L::Checksum { .. } => "XX001",
                L::Unsupported { .. } => "0A000",
                L::PromptTooLong { .. } => "54000",
                L::Cancelled => "57014",
                L::Tokenizer(_) | L::Template(_) => "55000",
                L::Generation(_) | L::Unavailable(_) => "XX000",
            }
        }
        SqlFnError::Dense { source, .. } => {
            use mitra_store::dense::DenseError as D;
            match source {
                D::Models(_) | D::ModelMismatch { .. } | D::NoEmbeddings | D::Unavailable(_) => {
                    "55000"
                }
                D::Embed(_) | D::Store(_) | D::Lance(_) | D::WorkerGone => "XX000",
            }
        }
    }
}

/// SQLSTATE and message for a DataFusion error.
pub fn classify(e: &DataFusionError) -> (&'static str, String) {
    let (code, message) = classify_raw(e);
    (code, scrub(&message))
}

fn classify_raw(e: &DataFusionError) -> (&'static str, String) {
    match e.find_root() {
        DataFusionError::External(inner) => {
            if let Some(f) = inner.downcast_ref::<SqlFnError>() {
                return (sql_fn_state(f), f.to_string());
            }
            if let Some(df) = inner.downcast_ref::<DataFusionError>() {
                return classify_raw(df);
            }
            if let Some(f) = inner.downcast_ref::<FrontError>() {
                return (f.sqlstate(), f.to_string());
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
            } else if m.starts_with("invalid input syntax for type") {
                "22P02"
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
        DataFusionError::Execution(m) if m == super::division::DIVISION_BY_ZERO => {
            ("22012", m.clone())
        }
        DataFusionError::Execution(m) if m == super::single_row::TOO_MANY_ROWS => {
            ("21000", m.clone())
        }
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

    #[test]
    fn messages_carry_no_source_locations_of_the_build() {
        let m = "chrono panicked at /root/.cargo/registry/src/index.crates.io-1949/chrono-0.4.42/src/format/parse.rs:517:13: bad\nat src/x.rs:1 and 3.5 GeV/c";
        assert_eq!(
            scrub(m),
            "chrono panicked at (source location) bad\nat (source location) and 3.5 GeV/c"
        );
        let (code, msg) = classify(&DataFusionError::Execution(m.into()));
        assert_eq!(code, "XX000");
        assert!(!msg.contains(".cargo") && !msg.contains(".rs:"), "{msg}");
    }
}
