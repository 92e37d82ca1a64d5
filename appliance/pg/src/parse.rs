//! SQL text to statements: datafusion-pg-catalog's compatibility parser (its whole-query
//! substitutions for psql, pgcli and Grafana, and its rewrite rules), except that a scalar
//! subquery in a select list keeps its value.
//!
//! The compatibility parser's `RemoveSubqueryFromProjection` replaces every correlated subquery
//! of a select list by NULL and gives every other one `LIMIT 1`, so
//! `SELECT d.title, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id) FROM documents d`
//! would answer NULL counts without an error. Such subqueries are parenthesised before its
//! rules run, which that rule leaves alone; [`super::subquery`] then makes them plannable.
//! Subqueries over the catalog alone keep the compatibility parser's treatment.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, Query, SelectItem, SetExpr, Statement, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
use datafusion::sql::sqlparser::parser::{Parser, ParserError};
use datafusion_postgres::datafusion_pg_catalog::sql::PostgresCompatibilityParser;

/// The statement parser of a connection.
#[derive(Debug, Default)]
pub struct SqlParser {
    compat: PostgresCompatibilityParser,
}

impl SqlParser {
    /// A parser with the compatibility parser's substitutions and rules.
    pub fn new() -> Self {
        Self {
            compat: PostgresCompatibilityParser::new(),
        }
    }

    /// Parses `sql` into statements.
    pub fn parse(&self, sql: &str) -> Result<Vec<Statement>, ParserError> {
        let mut statements = self.compat.parse(sql)?;
        if !may_have_subquery(sql) {
            return Ok(statements);
        }
        let Ok(plain) = Parser::parse_sql(&PostgreSqlDialect {}, sql) else {
            return Ok(statements);
        };
        if plain.len() != statements.len() {
            return Ok(statements);
        }
        for (out, mut own) in statements.iter_mut().zip(plain) {
            let original = own.clone();
            if !protect_projected_subqueries(&mut own) {
                continue;
            }
            // Only where no whole-query substitution took place: the rules alone, run over the
            // statement as parsed, must give what the compatibility parser gave.
            if self.compat.rewrite(original) == *out {
                *out = self.compat.rewrite(own);
            }
        }
        Ok(statements)
    }
}

/// Two `SELECT`s at least (ASCII case-insensitive): the only texts that can hold a subquery.
fn may_have_subquery(sql: &str) -> bool {
    let bytes = sql.as_bytes();
    bytes
        .windows(6)
        .filter(|w| w.eq_ignore_ascii_case(b"select"))
        .nth(1)
        .is_some()
}

/// Calls `f` on every select-list item of every query (nested ones, derived tables and CTEs
/// included).
struct SelectItems<F>(F);

impl<F: FnMut(&mut Expr)> VisitorMut for SelectItems<F> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        fn body(b: &mut SetExpr, f: &mut impl FnMut(&mut Expr)) {
            match b {
                SetExpr::Select(s) => {
                    for item in &mut s.projection {
                        if let SelectItem::UnnamedExpr(e)
                        | SelectItem::ExprWithAlias { expr: e, .. } = item
                        {
                            f(e);
                        }
                    }
                }
                SetExpr::SetOperation { left, right, .. } => {
                    body(left, f);
                    body(right, f);
                }
                _ => {}
            }
        }
        body(&mut query.body, &mut self.0);
        ControlFlow::Continue(())
    }
}

/// Whether every relation a query reads is a catalog table (`pg_*`, `pg_catalog.*`,
/// `information_schema.*`).
fn reads_only_catalog(q: &Query) -> bool {
    datafusion::sql::sqlparser::ast::visit_relations(q, |name| {
        let catalog = match super::ast::name_parts(name).as_slice() {
            [.., schema, _] if schema == "pg_catalog" || schema == "information_schema" => true,
            [.., table] => table.starts_with("pg_"),
            [] => false,
        };
        if catalog {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    })
    .is_continue()
}

/// Parenthesises each subquery that is a whole select-list item and reads a table of the
/// store; whether there was one. Subqueries over the catalog alone are left to the
/// compatibility parser: psql's `\d` selects column defaults and collations with correlations
/// DataFusion cannot plan, and Mitra's tables have neither (NULL is their value).
fn protect_projected_subqueries(statement: &mut Statement) -> bool {
    let mut any = false;
    let mut items = SelectItems(|e: &mut Expr| {
        if matches!(e, Expr::Subquery(q) if !reads_only_catalog(q)) {
            *e = Expr::Nested(Box::new(super::ast::take(e)));
            any = true;
        }
    });
    let _ = statement.visit(&mut items);
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_list_subqueries_keep_their_value() {
        let p = SqlParser::new();
        let s = p
            .parse("SELECT d.title, (SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id) AS n FROM documents d")
            .unwrap();
        assert!(
            s[0].to_string().contains("(SELECT count(*) FROM"),
            "{}",
            s[0]
        );
        let s = p.parse("SELECT (SELECT x FROM t) AS a").unwrap();
        assert!(!s[0].to_string().contains("LIMIT"), "{}", s[0]);
        // Over the catalog alone, the compatibility parser's answer stands.
        let s = p
            .parse("SELECT a.attname, (SELECT d.adbin FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid) AS x FROM pg_attribute a")
            .unwrap();
        assert!(s[0].to_string().contains("NULL AS x"), "{}", s[0]);
        assert!(may_have_subquery("select 1 from (SELECT 2) t"));
        assert!(!may_have_subquery("SELECT * FROM bm25('muon', 5) x"));
    }
}
