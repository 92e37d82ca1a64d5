//! Scalar subqueries as clients write them, in a shape DataFusion decorrelates: one aggregate
//! ([`single_row_value`](super::single_row): NULL over no rows, an error over two, as in
//! Postgres) over the subquery's own columns, with the outer row's columns and conditions
//! outside it.
//!
//! SQLAlchemy's column reflection, for one, selects
//! `CASE WHEN a.atthasdef THEN (SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
//! WHERE a.atthasdef AND d.adrelid = a.attrelid) END`; DataFusion plans neither a subquery
//! without an aggregate nor one whose select list or filter reads the outer row alone. For
//! `(SELECT e FROM r WHERE o AND p)`, `o` on the outer row only, each rewrite keeps the value
//! for every row:
//! - `e` on `r`'s columns: `CASE WHEN o THEN (SELECT single_row_value(e) FROM r WHERE p) END`;
//! - `e` on outer columns too: `CASE WHEN o THEN CASE WHEN (SELECT single_row_value(true) FROM
//!   r WHERE p) IS NOT NULL THEN e' END END`, `e'` being `e` with each of `r`'s columns `c` as
//!   `(SELECT single_row_value(c) FROM r WHERE p)`.

use std::collections::HashSet;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::helpers::attached_token::AttachedToken;
use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, BinaryOperator, CaseWhen, Expr, GroupByExpr, Ident,
    Query, Select, SelectItem, SetExpr, Statement, TableFactor, TableWithJoins, Value,
};

use super::ast::{call, last_name, take};
use super::single_row;

/// Rewrites every scalar subquery of `statement` that lacks an aggregate; `is_aggregate` tells
/// whether a function name is an aggregate of the session.
pub fn scalar_subqueries(statement: &mut Statement, is_aggregate: &dyn Fn(&str) -> bool) {
    let _ = visit_expressions_mut(statement, |e| {
        if let Expr::Subquery(q) = e {
            if let Some(new) = rewritten(q, is_aggregate) {
                *e = new;
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// The subquery's single select, when it is a plain one without aggregation.
fn plain_select<'a>(q: &'a Query, is_aggregate: &dyn Fn(&str) -> bool) -> Option<&'a Select> {
    if q.with.is_some() || q.order_by.is_some() || q.limit_clause.is_some() || q.fetch.is_some() {
        return None;
    }
    let SetExpr::Select(s) = q.body.as_ref() else {
        return None;
    };
    let grouped =
        !matches!(&s.group_by, GroupByExpr::Expressions(v, m) if v.is_empty() && m.is_empty());
    if s.distinct.is_some() || grouped || s.having.is_some() || s.projection.len() != 1 {
        return None;
    }
    let e = projected(&s.projection[0])?;
    if has_aggregate_or_subquery(e, is_aggregate) {
        return None;
    }
    Some(s)
}

fn projected(item: &SelectItem) -> Option<&Expr> {
    match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

fn has_aggregate_or_subquery(e: &Expr, is_aggregate: &dyn Fn(&str) -> bool) -> bool {
    visit_expressions(e, |x| match x {
        Expr::Function(f) if f.over.is_some() || is_aggregate(&last_name(&f.name)) => {
            ControlFlow::Break(())
        }
        Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Names (table names and aliases, lower case) by which the columns of a FROM list are
/// qualified; `None` where a relation is of a kind not understood here.
fn relation_names(from: &[TableWithJoins]) -> Option<HashSet<String>> {
    fn factor(t: &TableFactor, out: &mut HashSet<String>) -> Option<()> {
        let alias = match t {
            TableFactor::Table { name, alias, .. } => {
                out.insert(last_name(name));
                alias
            }
            TableFactor::Derived { alias, .. }
            | TableFactor::TableFunction { alias, .. }
            | TableFactor::Function { alias, .. }
            | TableFactor::UNNEST { alias, .. } => alias,
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                tables(std::slice::from_ref(table_with_joins.as_ref()), out)?;
                alias
            }
            _ => return None,
        };
        if let Some(a) = alias {
            out.insert(a.name.value.to_ascii_lowercase());
        }
        Some(())
    }
    fn tables(from: &[TableWithJoins], out: &mut HashSet<String>) -> Option<()> {
        for t in from {
            factor(&t.relation, out)?;
            for j in &t.joins {
                factor(&j.relation, out)?;
            }
        }
        Some(())
    }
    let mut out = HashSet::new();
    tables(from, &mut out)?;
    Some(out)
}

/// The qualifier of a column reference (`t` in `s.t.c`), lower case.
fn qualifier(parts: &[Ident]) -> Option<String> {
    (parts.len() >= 2).then(|| parts[parts.len() - 2].value.to_ascii_lowercase())
}

/// Whether `x` is a column of the inner relations (qualified by one of them, or unqualified);
/// `None` where it is no column reference.
fn inner_column(x: &Expr, inner: &HashSet<String>) -> Option<bool> {
    match x {
        Expr::Identifier(_) => Some(true),
        Expr::CompoundIdentifier(parts) => {
            Some(qualifier(parts).is_none_or(|q| inner.contains(&q)))
        }
        _ => None,
    }
}

/// Column references of `e`: (inner, outer).
fn references(e: &Expr, inner: &HashSet<String>) -> (usize, usize) {
    let (mut ins, mut outs) = (0, 0);
    let _ = visit_expressions(e, |x| {
        match inner_column(x, inner) {
            Some(true) => ins += 1,
            Some(false) => outs += 1,
            None => {}
        }
        ControlFlow::<()>::Continue(())
    });
    (ins, outs)
}

fn conjuncts(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts(*left, out);
            conjuncts(*right, out);
        }
        Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            conjuncts(*inner, out)
        }
        other => out.push(other),
    }
}

fn and_all(v: Vec<Expr>) -> Option<Expr> {
    v.into_iter().reduce(|acc, e| Expr::BinaryOp {
        left: Box::new(acc),
        op: BinaryOperator::And,
        right: Box::new(e),
    })
}

fn single(e: Expr) -> Expr {
    call(single_row::NAME, vec![e])
}

fn case_when(condition: Expr, result: Expr) -> Expr {
    Expr::Case {
        case_token: AttachedToken::empty(),
        end_token: AttachedToken::empty(),
        operand: None,
        conditions: vec![CaseWhen {
            condition: Expr::Nested(Box::new(condition)),
            result,
        }],
        else_result: None,
    }
}

/// The rewritten form of a plain scalar subquery (see the module's summary).
fn rewritten(q: &Query, is_aggregate: &dyn Fn(&str) -> bool) -> Option<Expr> {
    let select = plain_select(q, is_aggregate)?;
    let inner = relation_names(&select.from)?;
    let e = projected(&select.projection[0])?.clone();
    let mut parts = Vec::new();
    if let Some(w) = &select.selection {
        conjuncts(w.clone(), &mut parts);
    }
    let (outer_only, rest): (Vec<Expr>, Vec<Expr>) = parts.into_iter().partition(|c| {
        let (ins, outs) = references(c, &inner);
        ins == 0 && outs > 0 && !has_aggregate_or_subquery(c, is_aggregate)
    });
    let rest = and_all(rest);
    // The subquery over r WHERE p, selecting `single_row_value(x)`.
    let of = |x: Expr| -> Expr {
        let mut sub = q.clone();
        if let SetExpr::Select(s) = sub.body.as_mut() {
            s.projection = vec![SelectItem::UnnamedExpr(single(x))];
            s.selection = rest.clone();
        }
        Expr::Subquery(Box::new(sub))
    };
    let (_, outer_refs) = references(&e, &inner);
    let value = if outer_refs == 0 {
        of(e)
    } else {
        let one_row = Expr::IsNotNull(Box::new(of(Expr::value(Value::Boolean(true)))));
        case_when(one_row, inner_columns_as(e, &inner, &of))
    };
    Some(match and_all(outer_only) {
        Some(guard) => case_when(guard, value),
        None => value,
    })
}

/// `e` with each column of the inner relations replaced by `of(column)`.
fn inner_columns_as(mut e: Expr, inner: &HashSet<String>, of: &dyn Fn(Expr) -> Expr) -> Expr {
    let _ = visit_expressions_mut(&mut e, |x| {
        if inner_column(x, inner) == Some(true) {
            *x = of(take(x));
        }
        ControlFlow::<()>::Continue(())
    });
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        let mut s = crate::ast::parse_one(sql);
        scalar_subqueries(&mut s, &|n| matches!(n, "max" | "count"));
        s.to_string()
    }

    #[test]
    fn subqueries_get_an_aggregate_and_lose_outer_conditions() {
        assert_eq!(
            rewritten("SELECT CASE WHEN a.h THEN (SELECT f(d.x) FROM d WHERE a.h AND d.r = a.r) END FROM a"),
            "SELECT CASE WHEN a.h THEN CASE WHEN (a.h) THEN (SELECT single_row_value(f(d.x)) FROM d WHERE d.r = a.r) END END FROM a"
        );
        assert_eq!(
            rewritten("SELECT (SELECT g(a.i = 'a', s.v) FROM s WHERE s.r = a.r) FROM a"),
            "SELECT CASE WHEN ((SELECT single_row_value(true) FROM s WHERE s.r = a.r) IS NOT NULL) \
             THEN g(a.i = 'a', (SELECT single_row_value(s.v) FROM s WHERE s.r = a.r)) END FROM a"
        );
        // Already aggregated, ordered or limited subqueries are left as they are.
        for sql in [
            "SELECT (SELECT max(x) FROM t WHERE t.a = o.a) FROM o",
            "SELECT (SELECT x FROM t WHERE t.a = o.a ORDER BY y LIMIT 1) FROM o",
        ] {
            assert_eq!(rewritten(sql), sql);
        }
        assert_eq!(
            rewritten("SELECT * FROM o WHERE o.n = (SELECT n FROM t WHERE k = 1)"),
            "SELECT * FROM o WHERE o.n = (SELECT single_row_value(n) FROM t WHERE k = 1)"
        );
    }
}
