//! Evaluation of table-function arguments, and the declared parameter types of each function.

use arrow::array::Array;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use datafusion::catalog::Session;
use datafusion::common::tree_node::TreeNode;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::Expr;

use super::error::SqlFnError;

/// Declared argument types of a table function (used to type bound parameters `$n`).
#[derive(Debug, Clone, Copy)]
pub struct TableFnSignature {
    /// Function name.
    pub name: &'static str,
    /// Argument types in order (the longest form).
    pub args: &'static [DataType],
    /// Argument counts at which the last argument is a scope (text) rather than what the
    /// longest form has there: `hybrid(q, k, scope)` against `hybrid(q, k, w_dense, …)`.
    pub scope_last_at: &'static [usize],
}

impl TableFnSignature {
    /// The declared type of argument `i` (0-based) of a call with `arity` arguments. Text
    /// where the position may hold either a scope or a number: both read from text.
    pub fn arg_type(&self, arity: usize, i: usize) -> Option<DataType> {
        if i + 1 == arity && self.scope_last_at.contains(&arity) {
            return Some(DataType::Utf8);
        }
        self.args.get(i).cloned()
    }
}

/// Every Mitra table function with its argument types.
pub const PARAM_TYPES: &[TableFnSignature] = &[
    TableFnSignature {
        name: "bm25",
        args: &[DataType::Utf8, DataType::Int64, DataType::Utf8],
        scope_last_at: &[],
    },
    TableFnSignature {
        name: "dense",
        args: &[DataType::Utf8, DataType::Int64, DataType::Utf8],
        scope_last_at: &[],
    },
    TableFnSignature {
        name: "abstracts",
        args: &[
            DataType::Utf8,
            DataType::Int64,
            DataType::Float64,
            DataType::Float64,
            DataType::Float64,
        ],
        scope_last_at: &[],
    },
    TableFnSignature {
        name: "hybrid",
        args: &[
            DataType::Utf8,
            DataType::Int64,
            DataType::Float64,
            DataType::Float64,
            DataType::Float64,
            DataType::Int64,
            DataType::Utf8,
        ],
        scope_last_at: &[3],
    },
];

/// The declared signature of Mitra table function `name`.
pub fn signature(name: &str) -> Option<&'static TableFnSignature> {
    PARAM_TYPES.iter().find(|s| s.name == name)
}

/// Mitra scalar functions whose bound parameters DataFusion cannot type by itself.
pub const SCALAR_PARAM_TYPES: &[TableFnSignature] = &[
    TableFnSignature {
        name: "rrf",
        args: &[DataType::Int64, DataType::Float64],
        scope_last_at: &[],
    },
    TableFnSignature {
        name: "embed",
        args: &[DataType::Utf8],
        scope_last_at: &[],
    },
];

/// An argument value, or a bound parameter not yet known (while a statement is prepared).
pub enum Arg {
    /// A constant.
    Value(ScalarValue),
    /// `$n`, bound later.
    Placeholder,
}

/// Evaluates a constant argument expression (literals, casts, arithmetic, concatenation).
pub fn eval(session: &dyn Session, function: &'static str, expr: &Expr) -> Result<Arg, SqlFnError> {
    // `$1`, `$1::text`, `lower($1)`: known once the parameters are bound.
    let has_placeholder = expr
        .exists(|e| Ok(matches!(e, Expr::Placeholder(_))))
        .unwrap_or(false);
    if has_placeholder {
        return Ok(Arg::Placeholder);
    }
    if let Expr::Literal(v, _) = expr {
        return Ok(Arg::Value(v.clone()));
    }
    let bad = |m: String| SqlFnError::InvalidArgument {
        function,
        message: m,
    };
    let schema = DFSchema::empty();
    let phys = session
        .create_physical_expr(expr.clone(), &schema)
        .map_err(|e| bad(format!("arguments must be constants: {e}")))?;
    let batch = RecordBatch::try_new_with_options(
        std::sync::Arc::new(Schema::empty()),
        vec![],
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(1)),
    )
    .map_err(|e| bad(e.to_string()))?;
    let v = phys
        .evaluate(&batch)
        .map_err(|e| bad(format!("arguments must be constants: {e}")))?;
    let arr = v.into_array(1).map_err(|e| bad(e.to_string()))?;
    if arr.len() != 1 {
        return Err(bad("arguments must be constants".into()));
    }
    Ok(Arg::Value(
        ScalarValue::try_from_array(&arr, 0).map_err(|e| bad(e.to_string()))?,
    ))
}

/// The values of a table function's arguments, after checking their count against `arity`;
/// `None` while parameters are unbound (planning a prepared statement).
pub fn values(
    a: &datafusion::catalog::TableFunctionArgs,
    function: &'static str,
    expected: &'static str,
    arity: std::ops::RangeInclusive<usize>,
) -> Result<Option<Vec<ScalarValue>>, SqlFnError> {
    let exprs = a.exprs();
    if !arity.contains(&exprs.len()) {
        return Err(SqlFnError::WrongArity {
            function,
            expected,
            got: exprs.len(),
        });
    }
    let mut vals = Vec::with_capacity(exprs.len());
    for e in exprs {
        match eval(a.session(), function, e)? {
            Arg::Value(v) => vals.push(v),
            Arg::Placeholder => return Ok(None),
        }
    }
    Ok(Some(vals))
}

/// A text argument.
pub fn text(function: &'static str, name: &str, v: &ScalarValue) -> Result<String, SqlFnError> {
    match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Ok(s.clone()),
        v if v.is_null() => Err(SqlFnError::InvalidArgument {
            function,
            message: format!("{name} must not be NULL"),
        }),
        other => Err(SqlFnError::InvalidArgument {
            function,
            message: format!("{name} must be text, got {}", other.data_type()),
        }),
    }
}

/// An integer argument (integers, or text holding an integer as some drivers send it).
pub fn integer(function: &'static str, name: &str, v: &ScalarValue) -> Result<i64, SqlFnError> {
    let bad = |m: String| SqlFnError::InvalidArgument {
        function,
        message: m,
    };
    if v.is_null() {
        return Err(bad(format!("{name} must not be NULL")));
    }
    match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => s
            .trim()
            .parse::<i64>()
            .map_err(|_| bad(format!("{name} must be an integer, got '{s}'"))),
        _ => match v.cast_to(&DataType::Int64) {
            Ok(ScalarValue::Int64(Some(n))) if v.data_type().is_integer() => Ok(n),
            _ => Err(bad(format!(
                "{name} must be an integer, got {}",
                v.data_type()
            ))),
        },
    }
}

/// A query-text argument, checked: not NULL, not blank, at most `limits.max_query_bytes`.
pub fn query_text(
    function: &'static str,
    v: &ScalarValue,
    limits: &mitra_store::config::LimitsConfig,
) -> Result<String, SqlFnError> {
    let query = text(function, "query", v)?;
    if query.trim().is_empty() {
        return Err(SqlFnError::InvalidArgument {
            function,
            message: "query must not be empty".into(),
        });
    }
    if query.len() > limits.max_query_bytes {
        return Err(SqlFnError::InvalidArgument {
            function,
            message: format!(
                "query is {} bytes; the limit is {} (limits.max_query_bytes)",
                query.len(),
                limits.max_query_bytes
            ),
        });
    }
    Ok(query)
}

/// A positive count argument (`k`, `depth`), capped at `limits.max_k`.
pub fn count(
    function: &'static str,
    name: &str,
    v: &ScalarValue,
    limits: &mitra_store::config::LimitsConfig,
) -> Result<usize, SqlFnError> {
    let k = integer(function, name, v)?;
    if k <= 0 {
        return Err(SqlFnError::InvalidArgument {
            function,
            message: format!("{name} must be a positive integer, got {k}"),
        });
    }
    Ok((k as u64).min(limits.max_k as u64) as usize)
}

/// A finite, non-negative number argument (weights, the RRF constant).
pub fn weight(function: &'static str, name: &str, v: &ScalarValue) -> Result<f64, SqlFnError> {
    let bad = |m: String| SqlFnError::InvalidArgument {
        function,
        message: m,
    };
    if v.is_null() {
        return Err(bad(format!("{name} must not be NULL")));
    }
    let x = match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| bad(format!("{name} must be a number, got '{s}'")))?,
        _ if v.data_type().is_numeric() => match v.cast_to(&DataType::Float64) {
            Ok(ScalarValue::Float64(Some(x))) => x,
            _ => return Err(bad(format!("{name} must be a number"))),
        },
        _ => {
            return Err(bad(format!(
                "{name} must be a number, got {}",
                v.data_type()
            )))
        }
    };
    if !(x.is_finite() && x >= 0.0) {
        return Err(bad(format!("{name} must be a finite number >= 0, got {x}")));
    }
    Ok(x)
}

/// A per-call scope argument: `'ID'`, `'ID1,ID2'`, or `'*'` / `''` for every readable analysis
/// (the session's `mitra.analysis` is ignored for that call).
pub fn scope(function: &'static str, v: &ScalarValue) -> Result<Option<Vec<String>>, SqlFnError> {
    let t = text(function, "scope", v)?;
    mitra_store::analyses::parse_scope(&t)
        .map_err(|source| SqlFnError::Analyses { function, source })
}

/// Whether a value is text that is not a number (a scope, where a weight could also stand).
pub fn is_scope_text(v: &ScalarValue) -> bool {
    match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => s.trim().parse::<f64>().is_err(),
        _ => false,
    }
}
