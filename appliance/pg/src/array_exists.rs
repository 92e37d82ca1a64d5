//! `ARRAY(subquery)` and `EXISTS (subquery)` in a select list, which psql's `\d+` and `\dp`,
//! pgcli and SQLAlchemy send, as aggregates DataFusion plans and decorrelates:
//! - `ARRAY(SELECT e FROM r WHERE p ORDER BY o)` → `(SELECT array_agg(e ORDER BY o) FROM r
//!   WHERE p)`; a subquery with grouping, `DISTINCT`, a limit or a set operation is aggregated
//!   as a derived table: `(SELECT array_agg(_a._v) FROM (subquery) AS _a(_v))`. Over no rows
//!   the value is NULL where PostgreSQL gives `{}`.
//! - `EXISTS (SELECT … FROM r WHERE p)` → `(SELECT count(*) > 0 FROM r WHERE p)` (NOT EXISTS
//!   negated); DataFusion decorrelates `EXISTS` only as a condition of `WHERE`, which stays
//!   as it is.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, Expr, FunctionArguments, GroupByExpr, Query, SelectItem, SetExpr,
    Statement, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
use datafusion::sql::sqlparser::parser::Parser;

use super::ast::last_name;

/// Rewrites every `ARRAY(subquery)` of `statement`, and every `EXISTS` of a select list.
pub fn rewrite(statement: &mut Statement) {
    let _ = visit_expressions_mut(statement, |e| {
        if let Expr::Function(f) = e {
            if let FunctionArguments::Subquery(q) = &f.args {
                if last_name(&f.name) == "array" {
                    if let Some(new) = array_of(q) {
                        *e = new;
                    }
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
    struct SelectLists;
    impl VisitorMut for SelectLists {
        type Break = ();
        fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
            if let SetExpr::Select(s) = q.body.as_mut() {
                for item in s.projection.iter_mut() {
                    exists_in(item);
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = statement.visit(&mut SelectLists);
}

/// `EXISTS` anywhere in one select-list item, as a count.
fn exists_in(item: &mut SelectItem) {
    let _ = visit_expressions_mut(item, |e| {
        if let Expr::Exists { subquery, negated } = e {
            if let Some(new) = exists_of(subquery, *negated) {
                *e = new;
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

fn expr(sql: &str) -> Option<Expr> {
    Parser::new(&PostgreSqlDialect {})
        .try_with_sql(sql)
        .ok()?
        .parse_expr()
        .ok()
}

/// Whether the subquery is one `SELECT` without grouping or `DISTINCT` (so that an
/// aggregate can take the place of its select list).
fn simple(q: &Query) -> bool {
    if q.with.is_some() || q.fetch.is_some() {
        return false;
    }
    let SetExpr::Select(s) = q.body.as_ref() else {
        return false;
    };
    let grouped =
        !matches!(&s.group_by, GroupByExpr::Expressions(v, m) if v.is_empty() && m.is_empty());
    s.distinct.is_none() && !grouped && s.having.is_none() && s.projection.len() == 1
}

fn array_of(q: &Query) -> Option<Expr> {
    if let Some(t) = transformed(q) {
        return Some(t);
    }
    if !simple(q) || q.limit_clause.is_some() {
        return expr(&format!("(SELECT array_agg(_a._v) FROM ({q}) AS _a(_v))"));
    }
    let mut inner = q.clone();
    let order = inner.order_by.take();
    let SetExpr::Select(s) = inner.body.as_mut() else {
        return None;
    };
    let value = match &s.projection[0] {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e.clone(),
        _ => return None,
    };
    let order = order.map(|o| format!(" {o}")).unwrap_or_default();
    s.projection[0] = SelectItem::UnnamedExpr(expr(&format!("array_agg({value}{order})"))?);
    Some(Expr::Subquery(Box::new(inner)))
}

/// `ARRAY(SELECT e FROM unnest(a) [AS] x)` (psql's `\d+`: `array(select 'toast.' || x from
/// pg_catalog.unnest(tc.reloptions) x)`), an unnest of the outer row that DataFusion cannot
/// correlate, as `array_transform(a, x -> e)`.
fn transformed(q: &Query) -> Option<Expr> {
    use datafusion::sql::sqlparser::ast::{
        FunctionArg, FunctionArgExpr, LambdaFunction, LambdaFunctionParameter, LambdaSyntax,
        OneOrManyWithParens, TableFactor,
    };
    let SetExpr::Select(s) = q.body.as_ref() else {
        return None;
    };
    if !simple(q)
        || q.order_by.is_some()
        || q.limit_clause.is_some()
        || s.selection.is_some()
        || s.from.len() != 1
        || !s.from[0].joins.is_empty()
    {
        return None;
    }
    let (array, x) = match &s.from[0].relation {
        TableFactor::Table {
            name,
            args: Some(args),
            alias: Some(alias),
            ..
        } if last_name(name) == "unnest" && args.args.len() == 1 => match &args.args[0] {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(a)) => (a.clone(), alias.name.clone()),
            _ => return None,
        },
        TableFactor::UNNEST {
            alias: Some(alias),
            array_exprs,
            with_offset: false,
            ..
        } if array_exprs.len() == 1 => (array_exprs[0].clone(), alias.name.clone()),
        _ => return None,
    };
    let body = match &s.projection[0] {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e.clone(),
        _ => return None,
    };
    let lambda = Expr::Lambda(LambdaFunction {
        params: OneOrManyWithParens::One(LambdaFunctionParameter {
            name: x,
            data_type: None,
        }),
        body: Box::new(body),
        syntax: LambdaSyntax::Arrow,
    });
    Some(super::ast::call("array_transform", vec![array, lambda]))
}

fn exists_of(q: &Query, negated: bool) -> Option<Expr> {
    let not = if negated { "NOT " } else { "" };
    let derived = || expr(&format!("{not}(SELECT count(*) > 0 FROM ({q}) AS _e)"));
    // A positive limit does not change whether a row exists.
    let limited = q
        .limit_clause
        .as_ref()
        .is_some_and(|l| !matches!(l.to_string().trim(), "LIMIT 1" | "LIMIT ALL"));
    let SetExpr::Select(s) = q.body.as_ref() else {
        return derived();
    };
    let grouped =
        !matches!(&s.group_by, GroupByExpr::Expressions(v, m) if v.is_empty() && m.is_empty());
    if q.with.is_some() || q.fetch.is_some() || limited || grouped {
        return derived();
    }
    if s.distinct.is_some() || s.having.is_some() {
        return derived();
    }
    let mut inner = q.clone();
    inner.order_by = None;
    inner.limit_clause = None;
    if let SetExpr::Select(s) = inner.body.as_mut() {
        s.projection = vec![SelectItem::UnnamedExpr(expr("count(*) > 0")?)];
    }
    let sub = Expr::Subquery(Box::new(inner));
    Some(if negated {
        Expr::UnaryOp {
            op: datafusion::sql::sqlparser::ast::UnaryOperator::Not,
            expr: Box::new(Expr::Nested(Box::new(sub))),
        }
    } else {
        sub
    })
}

#[cfg(test)]
mod tests {
    use super::super::ast::parse_one;
    use super::*;

    fn rewritten(sql: &str) -> String {
        let mut s = parse_one(sql);
        rewrite(&mut s);
        s.to_string()
    }

    #[test]
    fn arrays_and_exists_become_aggregates() {
        assert_eq!(
            rewritten("SELECT ARRAY(SELECT a.attname FROM pg_attribute a WHERE a.attrelid = c.oid ORDER BY a.attnum) FROM pg_class c"),
            "SELECT (SELECT array_agg(a.attname ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = c.oid) FROM pg_class c"
        );
        assert_eq!(
            rewritten("SELECT ARRAY(SELECT DISTINCT x FROM t) AS xs"),
            "SELECT (SELECT array_agg(_a._v) FROM (SELECT DISTINCT x FROM t) AS _a (_v)) AS xs"
        );
        assert_eq!(
            rewritten("SELECT c.relname, EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid LIMIT 1) FROM pg_class c"),
            "SELECT c.relname, (SELECT count(*) > 0 FROM pg_inherits i WHERE i.inhrelid = c.oid) FROM pg_class c"
        );
        assert_eq!(
            rewritten("SELECT NOT EXISTS (SELECT 1 FROM t)"),
            "SELECT NOT ((SELECT count(*) > 0 FROM t))"
        );
        assert_eq!(
            rewritten("SELECT array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x)"),
            "SELECT array_transform(tc.reloptions, x -> 'toast.' || x)"
        );
        // EXISTS as a condition stays for DataFusion's semi join.
        let cond = "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)";
        assert_eq!(rewritten(cond), cond);
    }
}
