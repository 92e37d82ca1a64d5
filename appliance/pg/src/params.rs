//! Bound parameters: counting and typing `$n` (including inside table-function arguments, which
//! DataFusion cannot type), and binding them as literals before planning.

use std::collections::HashMap;
use std::ops::ControlFlow;

use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef};
use datafusion::common::{ParamValues, ScalarValue};
use datafusion::logical_expr::LogicalPlan;
use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, Statement, TableFactor, Value, Visit, Visitor,
};
use pgwire::api::portal::Portal;
use pgwire::api::Type;
use pgwire::error::PgWireResult;

use mitra_sql::{TableFnSignature, SCALAR_PARAM_TYPES};

fn placeholder_index(v: &Value) -> Option<usize> {
    match v {
        Value::Placeholder(p) => p.strip_prefix('$')?.parse().ok(),
        _ => None,
    }
}

/// The highest `$n` used by the statement (its parameter count).
pub fn count(stmt: &Statement) -> usize {
    let mut max = 0;
    let _ = visit_expressions(stmt, |e| {
        if let Expr::Value(v) = e {
            if let Some(i) = placeholder_index(&v.value) {
                max = max.max(i);
            }
        }
        ControlFlow::<()>::Continue(())
    });
    max
}

struct TableFnTypes(HashMap<usize, DataType>);

impl TableFnTypes {
    fn record(&mut self, sig: Option<&TableFnSignature>, args: &[FunctionArg]) {
        for (i, a) in args.iter().enumerate() {
            let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = a else {
                continue;
            };
            let mut e = e;
            // `$1`: the argument's declared type for a call of this many arguments;
            // `$1::int`: the type written (the innermost cast, as Postgres types it).
            let mut written = None;
            loop {
                match e {
                    Expr::Cast {
                        expr, data_type, ..
                    } => {
                        written = arrow_type_of(data_type);
                        e = expr;
                    }
                    Expr::Nested(inner) => e = inner,
                    _ => break,
                }
            }
            if let Expr::Value(v) = e {
                let declared = written.or_else(|| sig.and_then(|s| s.arg_type(args.len(), i)));
                if let (Some(p), Some(t)) = (placeholder_index(&v.value), declared) {
                    self.0.insert(p, t);
                }
            }
        }
    }
}

/// The Arrow type a cast to `t` gives a parameter, for the types a function argument takes.
fn arrow_type_of(t: &datafusion::sql::sqlparser::ast::DataType) -> Option<DataType> {
    use datafusion::sql::sqlparser::ast::DataType as S;
    Some(match t {
        S::Text | S::Varchar(_) | S::Char(_) | S::CharacterVarying(_) | S::String(_) => {
            DataType::Utf8
        }
        S::SmallInt(_)
        | S::Int(_)
        | S::Integer(_)
        | S::BigInt(_)
        | S::Int2(_)
        | S::Int4(_)
        | S::Int8(_) => DataType::Int64,
        S::Real
        | S::Float(_)
        | S::Float4
        | S::Float8
        | S::Double(_)
        | S::DoublePrecision
        | S::Numeric(_)
        | S::Decimal(_) => DataType::Float64,
        _ => return None,
    })
}

impl Visitor for TableFnTypes {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = expr {
            let fname = f.name.to_string().to_ascii_lowercase();
            if let (Some(sig), FunctionArguments::List(list)) =
                (SCALAR_PARAM_TYPES.iter().find(|s| s.name == fname), &f.args)
            {
                self.record(Some(sig), &list.args);
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table {
            name,
            args: Some(args),
            ..
        } = tf
        {
            // Any table function's cast parameters (`ask_plan($1, $2::bigint)`) take the type
            // written; Mitra's own also their declared types.
            let fname = name.to_string().to_ascii_lowercase();
            self.record(mitra_sql::table_fn_signature(&fname), &args.args);
        }
        ControlFlow::Continue(())
    }
}

/// Types of `$1..$n`: from Mitra's table-function signatures, else from DataFusion's inference.
pub fn types(stmt: &Statement, plan: &LogicalPlan) -> Vec<Option<DataType>> {
    fields(stmt, plan)
        .into_iter()
        .map(|f| f.map(|f| f.data_type().clone()))
        .collect()
}

/// [`types`] as fields, with the metadata DataFusion's inference gives them (`$1::oid[]`
/// keeps its `pg.oid_alias`).
pub fn fields(stmt: &Statement, plan: &LogicalPlan) -> Vec<Option<FieldRef>> {
    let n = count(stmt);
    let mut fn_types = TableFnTypes(HashMap::new());
    let _ = stmt.visit(&mut fn_types);
    let inferred = plan.get_parameter_fields().unwrap_or_default();
    let cast = cast_fields(plan);
    (1..=n)
        .map(|i| {
            let id = format!("${i}");
            fn_types
                .0
                .get(&i)
                .map(|t| Arc::new(Field::new(id.clone(), t.clone(), true)))
                .or_else(|| inferred.get(&id).cloned().flatten())
                .or_else(|| cast.get(&id).cloned())
        })
        .collect()
}

/// Parameters typed by an explicit cast, as Postgres types them: `$1::oid[]` is an `oid[]`
/// (asyncpg sends its type-introspection argument in the type it is told).
fn cast_fields(plan: &LogicalPlan) -> HashMap<String, FieldRef> {
    use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
    use datafusion::logical_expr::expr::{Cast, Placeholder};
    use datafusion::logical_expr::Expr as Logical;
    let mut out = HashMap::new();
    let _ = plan.apply_with_subqueries(|node| {
        node.apply_expressions(|e| {
            e.apply(|e| {
                if let Logical::Cast(Cast { expr, field }) = e {
                    if let Logical::Placeholder(Placeholder { id, field: None }) = expr.as_ref() {
                        out.entry(id.clone()).or_insert_with(|| field.clone());
                    }
                }
                Ok(TreeNodeRecursion::Continue)
            })
        })
    });
    out
}

/// Decodes a portal's parameters: types from the client, else Mitra's function signatures or
/// DataFusion's inference, else text (Postgres' rule for parameters of unknown type, so an
/// untyped NULL binds as NULL).
pub fn decode<S: Clone>(
    portal: &Portal<S>,
    stmt: &Statement,
    plan: &LogicalPlan,
) -> PgWireResult<ParamValues> {
    let mut types = types(stmt, plan);
    types.resize(portal.parameter_len().max(types.len()), None);
    let client_types = &portal.statement.parameter_types;
    let types: Vec<Option<DataType>> = types
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let client = client_types.get(i).cloned().flatten();
            let typed = client
                .as_ref()
                .is_some_and(|c| !matches!(*c, Type::UNKNOWN | Type::TEXT | Type::VARCHAR));
            match t {
                // A typed value is not turned into text: it keeps the client's type.
                Some(DataType::Utf8) | None if typed => None,
                Some(t) => Some(t),
                None => Some(DataType::Utf8),
            }
        })
        .collect();
    let refs: Vec<Option<&DataType>> = types.iter().map(Option::as_ref).collect();
    datafusion_postgres::arrow_pg::datatypes::df::deserialize_parameters(portal, &refs)
}

/// A temporal value as a typed SQL literal, e.g. `CAST('2024-01-01T00:00:00Z' AS TIMESTAMP)`.
fn temporal_literal(v: &ScalarValue) -> Option<Expr> {
    use datafusion::sql::sqlparser::ast::{DataType as SqlType, TimezoneInfo};
    let sql_type = match v.data_type() {
        DataType::Timestamp(_, None) => SqlType::Timestamp(None, TimezoneInfo::None),
        DataType::Timestamp(_, Some(_)) => SqlType::Timestamp(None, TimezoneInfo::WithTimeZone),
        DataType::Date32 | DataType::Date64 => SqlType::Date,
        DataType::Time32(_) | DataType::Time64(_) => SqlType::Time(None, TimezoneInfo::None),
        _ => return None,
    };
    let arr = v.to_array().ok()?;
    let text = arrow::util::display::array_value_to_string(&arr, 0).ok()?;
    Some(cast(Expr::value(Value::SingleQuotedString(text)), sql_type))
}

/// A SQL literal for a bound value.
fn literal(v: &ScalarValue) -> Expr {
    if !v.is_null() {
        if let Some(e) = temporal_literal(v) {
            return e;
        }
    }
    if let (ScalarValue::List(list), false) = (v, v.is_null()) {
        // An array parameter (`$1::oid[]`, asyncpg's type introspection): `ARRAY[...]`.
        let values = list.value(0);
        let elem = (0..values.len())
            .map(|i| {
                ScalarValue::try_from_array(&values, i)
                    .map(|e| literal(&e))
                    .unwrap_or_else(|_| Expr::value(Value::Null))
            })
            .collect();
        return Expr::Array(datafusion::sql::sqlparser::ast::Array { elem, named: true });
    }
    let val = if v.is_null() {
        Value::Null
    } else {
        match v {
            ScalarValue::Boolean(Some(b)) => Value::Boolean(*b),
            ScalarValue::Float32(Some(f)) if f.is_finite() => Value::Number(f.to_string(), false),
            ScalarValue::Float64(Some(f)) if f.is_finite() => Value::Number(f.to_string(), false),
            v if v.data_type().is_integer() => Value::Number(v.to_string(), false),
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)) => Value::SingleQuotedString(s.clone()),
            other => Value::SingleQuotedString(other.to_string()),
        }
    };
    Expr::value(val)
}

/// Replaces each `$n` for which `f(n, expr)` gives an expression.
fn map_placeholders(stmt: &mut Statement, mut f: impl FnMut(usize, &Expr) -> Option<Expr>) {
    let _ = visit_expressions_mut(stmt, |e| {
        let index = match e {
            Expr::Value(v) => placeholder_index(&v.value),
            _ => None,
        };
        if let Some(new) = index.and_then(|i| f(i, e)) {
            *e = new;
        }
        ControlFlow::<()>::Continue(())
    });
}

/// `CAST(expr AS t)`.
fn cast(expr: Expr, t: datafusion::sql::sqlparser::ast::DataType) -> Expr {
    Expr::Cast {
        kind: datafusion::sql::sqlparser::ast::CastKind::Cast,
        expr: Box::new(expr),
        data_type: t,
        array: false,
        format: None,
    }
}

/// Replaces every `$n` in the statement by the literal of `values[n - 1]`.
pub fn bind(stmt: &mut Statement, values: &[ScalarValue]) -> Result<(), String> {
    let mut missing = None;
    map_placeholders(stmt, |i, _| match values.get(i.wrapping_sub(1)) {
        Some(val) => Some(literal(val)),
        None => {
            missing = Some(i);
            None
        }
    });
    match missing {
        Some(i) => Err(format!(
            "parameter ${i} is not bound ({} given)",
            values.len()
        )),
        None => Ok(()),
    }
}

/// The SQL type of a client-declared parameter type, for the types a cast can give.
fn sql_type_of(t: &Type) -> Option<datafusion::sql::sqlparser::ast::DataType> {
    use datafusion::sql::sqlparser::ast::{DataType as S, ExactNumberInfo, TimezoneInfo};
    Some(match *t {
        Type::BOOL => S::Boolean,
        Type::INT2 => S::SmallInt(None),
        Type::INT4 => S::Int(None),
        Type::INT8 => S::BigInt(None),
        Type::FLOAT4 => S::Real,
        Type::FLOAT8 => S::DoublePrecision,
        Type::NUMERIC => S::Numeric(ExactNumberInfo::None),
        Type::DATE => S::Date,
        Type::TIMESTAMP => S::Timestamp(None, TimezoneInfo::None),
        Type::TIMESTAMPTZ => S::Timestamp(None, TimezoneInfo::WithTimeZone),
        Type::BYTEA => S::Bytea,
        _ => return None,
    })
}

/// Casts of the placeholders the client typed but nothing in the statement types (`SELECT $1`):
/// applied with [`apply_casts`], the statement's description and its rows agree (as in Postgres,
/// where the Parse message's types are the parameters' types).
pub fn client_casts(
    client: &[Option<Type>],
    inferred: &[Option<DataType>],
) -> HashMap<usize, datafusion::sql::sqlparser::ast::DataType> {
    client
        .iter()
        .enumerate()
        .filter(|(i, _)| inferred.get(*i).cloned().flatten().is_none())
        .filter_map(|(i, t)| Some((i + 1, sql_type_of(t.as_ref()?)?)))
        .collect()
}

/// `x = ANY($n)`, `x <> ALL($n)` with `$n` of no type, or text (psycopg sends a list of
/// strings so): PostgreSQL takes `$n` as an array there, so it is cast to `text[]` (decoded from
/// the array's text form `{a,b}`), instead of a text scalar that `array_has` refuses.
pub fn array_casts(
    statement: &Statement,
    client: &[Option<Type>],
) -> HashMap<usize, datafusion::sql::sqlparser::ast::DataType> {
    use datafusion::sql::sqlparser::ast::{ArrayElemTypeDef, DataType as SqlType};
    let mut out = HashMap::new();
    let _ = visit_expressions(statement, |e| {
        let array = match e {
            Expr::AnyOp { right, .. } | Expr::AllOp { right, .. } => right.as_ref(),
            // `x <> ALL($1)` as the compatibility parser rewrites it.
            Expr::Function(f)
                if matches!(
                    crate::ast::last_name(&f.name).as_str(),
                    "array_contains" | "array_has"
                ) =>
            {
                match &f.args {
                    FunctionArguments::List(l) => match l.args.first() {
                        Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(a))) => a,
                        _ => return ControlFlow::Continue(()),
                    },
                    _ => return ControlFlow::Continue(()),
                }
            }
            _ => return ControlFlow::<()>::Continue(()),
        };
        let mut r = array;
        while let Expr::Nested(inner) = r {
            r = inner;
        }
        if let Expr::Value(v) = r {
            if let Some(i) = placeholder_index(&v.value) {
                let untyped = client
                    .get(i - 1)
                    .cloned()
                    .flatten()
                    .is_none_or(|t| matches!(t, Type::UNKNOWN | Type::TEXT | Type::VARCHAR));
                if untyped {
                    out.insert(
                        i,
                        SqlType::Array(ArrayElemTypeDef::SquareBracket(
                            Box::new(SqlType::Text),
                            None,
                        )),
                    );
                }
            }
        }
        ControlFlow::Continue(())
    });
    out
}

/// Wraps each `$n` with a cast in `casts` in that cast.
pub fn apply_casts(
    statement: &mut Statement,
    casts: &HashMap<usize, datafusion::sql::sqlparser::ast::DataType>,
) {
    map_placeholders(statement, |i, e| {
        casts.get(&i).map(|t| cast(e.clone(), t.clone()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::parse_one as parse;

    #[test]
    fn types_table_function_params_and_binds_literals() {
        let mut s = parse("SELECT * FROM bm25($1, $2) b WHERE b.doc_id = $3");
        assert_eq!(count(&s), 3);
        let mut v = TableFnTypes(HashMap::new());
        let _ = s.visit(&mut v);
        assert_eq!(v.0.get(&1), Some(&DataType::Utf8));
        assert_eq!(v.0.get(&2), Some(&DataType::Int64));
        bind(
            &mut s,
            &[
                ScalarValue::Utf8(Some("it's H→μμ".into())),
                ScalarValue::Int64(Some(5)),
                ScalarValue::Utf8(Some("d1".into())),
            ],
        )
        .unwrap();
        assert_eq!(
            s.to_string(),
            "SELECT * FROM bm25('it''s H→μμ', 5) b WHERE b.doc_id = 'd1'"
        );
        let s2 = parse("SELECT rrf($1, $2) + rrf(b.rank) FROM bm25($3, 10) b");
        let mut v = TableFnTypes(HashMap::new());
        let _ = s2.visit(&mut v);
        assert_eq!(v.0.get(&1), Some(&DataType::Int64));
        assert_eq!(v.0.get(&2), Some(&DataType::Float64));
        assert_eq!(v.0.get(&3), Some(&DataType::Utf8));
        // `hybrid(q, k, scope)`: the third argument is text there, a weight in the longer
        // forms; a cast says the type whatever the position.
        for (sql, third) in [
            ("SELECT * FROM hybrid($1, 10, $2)", DataType::Utf8),
            (
                "SELECT * FROM hybrid($1, 10, $2, 1, 60, 50)",
                DataType::Float64,
            ),
            (
                "SELECT * FROM hybrid($1, 10, $2::text, 1, 60, 50)",
                DataType::Utf8,
            ),
        ] {
            let mut v = TableFnTypes(HashMap::new());
            let _ = parse(sql).visit(&mut v);
            assert_eq!(v.0.get(&2), Some(&third), "{sql}");
        }
        let mut v = TableFnTypes(HashMap::new());
        let _ = parse("SELECT * FROM bm25($1::varchar, ($2)::int)").visit(&mut v);
        assert_eq!(v.0.get(&1), Some(&DataType::Utf8));
        assert_eq!(v.0.get(&2), Some(&DataType::Int64));
        let mut v = TableFnTypes(HashMap::new());
        let _ = parse("SELECT * FROM ask_plan($1, $2::bigint, $3)").visit(&mut v);
        assert_eq!(v.0.get(&1), None);
        assert_eq!(v.0.get(&2), Some(&DataType::Int64));
        let mut s = parse("SELECT $2");
        assert!(bind(&mut s, &[ScalarValue::Int64(Some(1))]).is_err());
    }
}
