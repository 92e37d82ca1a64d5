//! Rewrites of the type-introspection queries drivers send (asyncpg): type names as Postgres
//! prints them, and domain base types without a correlated recursive query.
//!
//! asyncpg learns how to decode a result column (`real[]` vectors) from a catalog query that
//! DataFusion cannot run as written: it finds a domain's base type with a recursive CTE
//! correlated to the outer row (DataFusion plans no correlated recursive query), and it names
//! types with `oid::regtype::text` (which datafusion-pg-catalog answers with the number, and
//! which fails to plan under `SELECT DISTINCT`).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, ArrayElemTypeDef, BinaryOperator, CastKind, DataType, Expr, FunctionArg,
    FunctionArgExpr, FunctionArguments, Ident, ObjectName, Query, SetExpr, Statement, Value,
};

use super::ast::{call, last_name, take};

/// The rewrites, in order.
pub fn rewrite(statement: &mut Statement) {
    let _ = visit_expressions_mut(statement, |e| {
        if let Some(base) = domain_base(e) {
            *e = base;
        } else if let Some(oid) = regtype_text(e) {
            *e = call("format_type", vec![oid, Expr::value(Value::Null)]);
        } else if let Some(oids) = regtype_array(e) {
            *e = call("regtype_names", vec![oids]);
        } else if is_oid_array_agg(e) {
            *e = Expr::Cast {
                kind: CastKind::DoubleColon,
                expr: Box::new(take(e)),
                data_type: DataType::Array(ArrayElemTypeDef::SquareBracket(
                    Box::new(DataType::Custom(
                        ObjectName::from(vec![Ident::new("oid")]),
                        vec![],
                    )),
                    None,
                )),
                array: false,
                format: None,
            };
        }
        ControlFlow::<()>::Continue(())
    });
}

/// The catalog's oid columns that clients aggregate into arrays (asyncpg's composite-type
/// attributes: `array_agg(ia.atttypid ORDER BY ia.attnum)`).
const OID_COLUMNS: &[&str] = &["oid", "atttypid", "attrelid", "typelem", "typbasetype"];

/// `array_agg(c)` over an oid column: DataFusion's aggregates keep no field metadata, so the
/// result would be `int4[]` where Postgres (and asyncpg, which decodes its introspection only
/// with built-in types) has `oid[]`; the cast restores it.
fn is_oid_array_agg(e: &Expr) -> bool {
    let Expr::Function(f) = e else {
        return false;
    };
    if last_name(&f.name) != "array_agg" {
        return false;
    }
    let FunctionArguments::List(list) = &f.args else {
        return false;
    };
    let column = match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(i)))] => &i.value,
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(p)))] => {
            match p.last() {
                Some(i) => &i.value,
                None => return false,
            }
        }
        _ => return false,
    };
    OID_COLUMNS.contains(&column.to_ascii_lowercase().as_str())
}

/// `x::regtype::text` (or `varchar`): the type's name as Postgres prints a `regtype`, which is
/// `format_type(x, NULL)`. Returns `x::regtype`, so a type name in `x` is still resolved.
fn regtype_text(e: &mut Expr) -> Option<Expr> {
    let Expr::Cast {
        expr, data_type, ..
    } = e
    else {
        return None;
    };
    if !is_text(data_type) {
        return None;
    }
    match expr.as_ref() {
        Expr::Cast { data_type, .. } if is_regtype(data_type) => Some(take(expr)),
        _ => None,
    }
}

/// `x::regtype[]` of an oid array (pgcli's `proargtypes::regtype[]`): the types' names, as
/// Postgres prints a `regtype[]`.
fn regtype_array(e: &mut Expr) -> Option<Expr> {
    let Expr::Cast {
        expr, data_type, ..
    } = e
    else {
        return None;
    };
    match data_type {
        DataType::Array(ArrayElemTypeDef::SquareBracket(inner, _)) if is_regtype(inner) => {
            Some(take(expr))
        }
        _ => None,
    }
}

fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Text | DataType::Varchar(_) | DataType::CharacterVarying(_) => true,
        DataType::Custom(name, args) => args.is_empty() && last_name(name) == "text",
        _ => false,
    }
}

fn is_regtype(t: &DataType) -> bool {
    matches!(t, DataType::Custom(name, args) if args.is_empty() && last_name(name) == "regtype")
}

/// asyncpg's domain base type: `(WITH RECURSIVE typebases(oid, depth) AS (SELECT t2.typbasetype,
/// 0 FROM pg_type t2 WHERE t2.oid = t.oid UNION ALL ...) SELECT oid FROM typebases ORDER BY
/// depth DESC LIMIT 1)` follows a chain of domains over domains down to its base. Mitra's
/// catalog has no domain over a domain (a test keeps it so), so the base is the outer type's own
/// `typbasetype`: `t.typbasetype`.
fn domain_base(e: &Expr) -> Option<Expr> {
    let Expr::Subquery(q) = e else {
        return None;
    };
    let with = q.with.as_ref()?;
    if !with.recursive || with.cte_tables.len() != 1 {
        return None;
    }
    let cte = &with.cte_tables[0];
    if !cte.alias.name.value.eq_ignore_ascii_case("typebases") {
        return None;
    }
    let anchor = anchor(&cte.query)?;
    let Some(Expr::BinaryOp {
        left,
        op: BinaryOperator::Eq,
        right,
    }) = &anchor.selection
    else {
        return None;
    };
    let inner = anchor.from.first().and_then(|f| match &f.relation {
        datafusion::sql::sqlparser::ast::TableFactor::Table { alias, name, .. } => alias
            .as_ref()
            .map(|a| a.name.value.to_ascii_lowercase())
            .or_else(|| Some(last_name(name))),
        _ => None,
    })?;
    let outer = [left.as_ref(), right.as_ref()]
        .into_iter()
        .find_map(|side| match side {
            Expr::CompoundIdentifier(parts)
                if parts.len() == 2
                    && !parts[0].value.eq_ignore_ascii_case(&inner)
                    && parts[1].value.eq_ignore_ascii_case("oid") =>
            {
                Some(parts[0].clone())
            }
            _ => None,
        })?;
    Some(Expr::CompoundIdentifier(vec![
        outer,
        Ident::new("typbasetype"),
    ]))
}

/// The first `SELECT` of a (recursive) query: its anchor.
fn anchor(q: &Query) -> Option<&datafusion::sql::sqlparser::ast::Select> {
    let mut body = q.body.as_ref();
    loop {
        match body {
            SetExpr::SetOperation { left, .. } => body = left.as_ref(),
            SetExpr::Select(s) => return Some(s),
            SetExpr::Query(q) => body = q.body.as_ref(),
            _ => return None,
        }
    }
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

    /// `sql` comes out of the rewrites as it went in.
    fn assert_unchanged(sql: &str) {
        assert_eq!(rewritten(sql), parse_one(sql).to_string());
    }

    #[test]
    fn regtype_text_is_format_type() {
        assert_eq!(
            rewritten("SELECT elemtype::regtype::text AS n FROM tt"),
            "SELECT format_type(elemtype::regtype, NULL) AS n FROM tt"
        );
        assert_eq!(
            rewritten("SELECT 'int4'::pg_catalog.regtype::varchar"),
            "SELECT format_type('int4'::pg_catalog.regtype, NULL)"
        );
        // Other casts stay.
        assert_unchanged("SELECT x::regclass::text, x::regtype");
    }

    #[test]
    fn oid_array_aggregates_stay_oid_arrays() {
        assert_eq!(
            rewritten("SELECT array_agg(ia.atttypid ORDER BY ia.attnum) FROM pg_attribute ia"),
            "SELECT array_agg(ia.atttypid ORDER BY ia.attnum)::oid[] FROM pg_attribute ia"
        );
        assert_unchanged("SELECT array_agg(attname), array_agg(atttypid + 1) FROM pg_attribute");
    }

    #[test]
    fn domain_base_is_the_outer_typbasetype() {
        let sql = "SELECT (CASE WHEN t.typtype = 'd' THEN (WITH RECURSIVE typebases(oid, depth) AS \
                   (SELECT t2.typbasetype AS oid, 0 AS depth FROM pg_type t2 WHERE t2.oid = t.oid \
                   UNION ALL SELECT t2.typbasetype AS oid, tb.depth + 1 AS depth \
                   FROM pg_type t2, typebases tb WHERE tb.oid = t2.oid AND t2.typbasetype != 0) \
                   SELECT oid FROM typebases ORDER BY depth DESC LIMIT 1) ELSE NULL END) AS basetype \
                   FROM pg_type AS t";
        assert_eq!(
            rewritten(sql),
            "SELECT (CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE NULL END) AS basetype \
             FROM pg_type AS t"
        );
        // Another recursive subquery is left alone.
        assert_unchanged(
            "SELECT (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r \
                     WHERE n < 3) SELECT max(n) FROM r)",
        );
    }
}
