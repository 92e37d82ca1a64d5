//! Untyped literals typed as PostgreSQL types them: a string literal compared with a value of
//! another type takes that type (`ix.indisprimary = 'f'`, `n = '1'`, `b IN ('t', 'f')`), before
//! DataFusion's own coercion (which refuses `Boolean = Utf8` and compares numbers as text).
//! Comparisons are typed while the SQL is planned (an expression planner: DataFusion checks
//! their types right there), `IN` lists by an analyzer rule before type coercion.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{plan_err, DFSchema, Result, ScalarValue};
use datafusion::config::ConfigOptions;
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::utils::merge_schema;
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan};
use datafusion::optimizer::AnalyzerRule;

/// The expression planner and analyzer rule.
#[derive(Debug, Default)]
pub struct UnknownLiterals;

impl ExprPlanner for UnknownLiterals {
    fn plan_binary_op(
        &self,
        expr: RawBinaryExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawBinaryExpr>> {
        use datafusion::sql::sqlparser::ast::BinaryOperator as B;
        let RawBinaryExpr { op, left, right } = expr;
        let comparison = matches!(op, B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq);
        let (left, right) = match (comparison, text(&left), text(&right)) {
            (true, None, Some(s)) => match typed(s, &left, schema)? {
                Some(r) => (left, r),
                None => (left, right),
            },
            (true, Some(s), None) => match typed(s, &right, schema)? {
                Some(l) => (l, right),
                None => (left, right),
            },
            _ => (left, right),
        };
        Ok(PlannerResult::Original(RawBinaryExpr { op, left, right }))
    }
}

impl AnalyzerRule for UnknownLiterals {
    fn name(&self) -> &str {
        "mitra_unknown_literals"
    }

    fn analyze(&self, plan: LogicalPlan, _: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up_with_subqueries(|node| {
            let mut schema = merge_schema(&node.inputs());
            if let LogicalPlan::TableScan(ts) = &node {
                schema.merge(&DFSchema::try_from_qualified_schema(
                    ts.table_name.clone(),
                    &ts.source.schema(),
                )?);
            }
            let names = NamePreserver::new(&node);
            node.map_expressions(|e| {
                let saved = names.save(&e);
                let t = e.transform_up(|e| type_literals(e, &schema))?;
                Ok(t.update_data(|e| saved.restore(e)))
            })
        })
        .map(|t| t.data)
    }
}

/// The text of a string literal.
fn text(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::Utf8View(Some(s))
            | ScalarValue::LargeUtf8(Some(s)),
            _,
        ) => Some(s),
        _ => None,
    }
}

/// Types an untyped literal takes from the other side (others are left to DataFusion:
/// temporal types it already parses from text).
fn takes_type(t: &DataType) -> bool {
    t.is_numeric() || matches!(t, DataType::Boolean | DataType::Date32 | DataType::Date64)
}

/// `s` as a value of the type of `other`, when that type is one an untyped literal takes
/// (`Ok(None)` otherwise); text that is no value of the type is PostgreSQL's error.
fn typed(s: &str, other: &Expr, schema: &DFSchema) -> Result<Option<Expr>> {
    let Ok(t) = other.get_type(schema) else {
        return Ok(None);
    };
    if let DataType::List(item) = &t {
        if takes_type(item.data_type()) || item.data_type() == &DataType::Utf8 {
            return array_literal(s, item.data_type()).map(Some);
        }
    }
    if !takes_type(&t) {
        return Ok(None);
    }
    match ScalarValue::try_from_string(s.trim().to_string(), &t) {
        Ok(v) if !v.is_null() => Ok(Some(Expr::Literal(v, None))),
        _ => plan_err!(
            "invalid input syntax for type {}: \"{}\"",
            pg_name(&t),
            s.chars().take(64).collect::<String>()
        ),
    }
}

/// An array literal as PostgreSQL writes one (`'{0}'`, `'{a,"b c"}'`, one dimension) as a
/// list of `item` (psql's `\dp` compares `polroles <> '{0}'`).
fn array_literal(s: &str, item: &DataType) -> Result<Expr> {
    let bad = || {
        plan_err!(
            "malformed array literal: \"{}\"",
            s.chars().take(64).collect::<String>()
        )
    };
    let Some(inner) = s.trim().strip_prefix('{').and_then(|r| r.strip_suffix('}')) else {
        return bad();
    };
    if inner.contains('{') {
        return bad();
    }
    let mut values = Vec::new();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let v = if part.eq_ignore_ascii_case("null") {
            ScalarValue::try_from(item)?
        } else {
            let text = part.trim_matches('"').to_string();
            match ScalarValue::try_from_string(text, item) {
                Ok(v) => v,
                Err(_) => return bad(),
            }
        };
        values.push(v);
    }
    Ok(Expr::Literal(
        ScalarValue::List(ScalarValue::new_list_nullable(&values, item)),
        None,
    ))
}

/// The PostgreSQL name of a type an untyped literal takes (for the error message).
fn pg_name(t: &DataType) -> &'static str {
    match t {
        DataType::Boolean => "boolean",
        DataType::Int8 | DataType::Int16 | DataType::UInt8 => "smallint",
        DataType::Int32 | DataType::UInt16 => "integer",
        DataType::Int64 | DataType::UInt32 | DataType::UInt64 => "bigint",
        DataType::Float16 | DataType::Float32 => "real",
        DataType::Float64 => "double precision",
        DataType::Date32 | DataType::Date64 => "date",
        _ => "numeric",
    }
}

fn type_literals(e: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    match e {
        Expr::InList(InList {
            expr,
            list,
            negated,
        }) if text(&expr).is_none() && list.iter().all(|x| text(x).is_some()) => {
            let mut typed_list = Vec::with_capacity(list.len());
            for x in &list {
                match text(x)
                    .map(|s| typed(s, &expr, schema))
                    .transpose()?
                    .flatten()
                {
                    Some(v) => typed_list.push(v),
                    None => {
                        return Ok(Transformed::no(Expr::InList(InList::new(
                            expr, list, negated,
                        ))))
                    }
                }
            }
            Ok(Transformed::yes(Expr::InList(InList::new(
                expr, typed_list, negated,
            ))))
        }
        other => Ok(Transformed::no(other)),
    }
}

#[cfg(test)]
mod tests {
    use datafusion::prelude::SessionContext;

    #[tokio::test]
    async fn untyped_literals_take_the_type_of_the_other_side() {
        let ctx = crate::with_unknown_literals(SessionContext::new());
        ctx.sql(
            "CREATE TABLE t (b boolean, n int, x text) AS VALUES (false, 2, '10'), (true, 10, '9')",
        )
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
        let count = |q: &'static str| {
            let ctx = ctx.clone();
            async move {
                let b = ctx.sql(q).await.unwrap().collect().await.unwrap();
                datafusion::arrow::util::pretty::pretty_format_batches(&b)
                    .unwrap()
                    .to_string()
            }
        };
        // Boolean = 'f' (SQLAlchemy's index reflection), either side, and IN.
        assert!(count("SELECT n FROM t WHERE b = 'f'")
            .await
            .contains("| 2 |"));
        assert!(count("SELECT n FROM t WHERE 't' = b")
            .await
            .contains("| 10 |"));
        assert!(count("SELECT count(*) AS c FROM t WHERE b IN ('t', 'f')")
            .await
            .contains("| 2 |"));
        // A number compared with a literal compares as numbers (10 > 9), text stays text.
        assert!(count("SELECT n FROM t WHERE n > '9'")
            .await
            .contains("| 10 |"));
        assert!(!count("SELECT n FROM t WHERE n > '9'")
            .await
            .contains("| 2 |"));
        assert!(!count("SELECT x FROM t WHERE x > '9'")
            .await
            .contains("| 9 |"));
        // An array literal compared with an array (psql's `polroles <> '{0}'`).
        assert!(count("SELECT n FROM t WHERE make_array(n) = '{10}'")
            .await
            .contains("| 10 |"));
        assert!(ctx
            .sql("SELECT n FROM t WHERE make_array(n) = '{ten}'")
            .await
            .unwrap_err()
            .to_string()
            .contains("malformed array literal"));
        // Text that is no value of the type is an error, as in PostgreSQL.
        let e = ctx
            .sql("SELECT n FROM t WHERE b = 'maybe'")
            .await
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("invalid input syntax for type boolean: \"maybe\""),
            "{e}"
        );
    }
}
