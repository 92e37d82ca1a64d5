//! Statement rewrites that need the connection: `current_user`, `session_user`, `user` and
//! `current_role` answer the login of this connection.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, Expr, FunctionArguments, ObjectNamePart, Statement, TableFactor, Value,
    VisitMut, VisitorMut,
};
use pgwire::api::ClientInfo;

use super::ast::{call, last_name, take};

/// Every rewrite a statement goes through before planning, in order.
pub fn all<C: ClientInfo + ?Sized>(
    statement: &mut Statement,
    client: &C,
    ctx: &datafusion::prelude::SessionContext,
) -> Result<(), super::FrontError> {
    table_function_names(statement);
    duplicate_columns(statement);
    session_functions(statement, client);
    show_as_query(statement);
    cte_column_names(statement);
    like_escapes(statement);
    generate_subscripts(statement);
    super::type_queries::rewrite(statement);
    super::division::checked_division(statement);
    let state = ctx.state_ref();
    let is_aggregate = |name: &str| state.read().aggregate_functions().contains_key(name);
    super::array_exists::rewrite(statement);
    super::subquery::scalar_subqueries(statement, &is_aggregate);
    super::templates::datetime_templates(statement)
}

/// Table-function names resolved as PostgreSQL resolves names: an unquoted name folds to lower
/// case (`BM25(...)`, `Bm25(...)`: what sqlglot-based tools such as Superset send), a quoted one
/// is taken exactly as written, without its quotes (`"bm25"(...)`). DataFusion looks table
/// functions up by the name's text, quotes included, and folds only tables and scalars.
pub fn table_function_names(statement: &mut Statement) {
    struct Fold;
    impl VisitorMut for Fold {
        type Break = ();
        fn pre_visit_table_factor(&mut self, tf: &mut TableFactor) -> ControlFlow<()> {
            if let TableFactor::Table {
                name,
                args: Some(_),
                ..
            } = tf
            {
                for part in name.0.iter_mut() {
                    if let ObjectNamePart::Identifier(ident) = part {
                        if ident.quote_style.is_none() {
                            ident.value = ident.value.to_lowercase();
                        }
                        ident.quote_style = None;
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = statement.visit(&mut Fold);
}

/// `SELECT 1, 1` and `SELECT a, a FROM t`: PostgreSQL allows result columns with the same
/// expression, DataFusion refuses a projection whose names repeat. A repeated unaliased
/// expression of the outermost select list gets an internal alias; the wire still shows
/// PostgreSQL's names ([`pg_column_names`] reads the statement as the client wrote it).
pub fn duplicate_columns(statement: &mut Statement) {
    use datafusion::sql::sqlparser::ast::{Ident, SelectItem, SetExpr};
    /// Each `SELECT` of a query body, the branches of set operations (`UNION ALL`:
    /// Harlequin's catalog search) included.
    fn each_select(body: &mut SetExpr, f: &mut dyn FnMut(&mut [SelectItem])) {
        match body {
            SetExpr::Select(s) => f(&mut s.projection),
            SetExpr::SetOperation { left, right, .. } => {
                each_select(left, f);
                each_select(right, f);
            }
            _ => {}
        }
    }
    fn alias_repeats(projection: &mut [SelectItem]) {
        let mut seen = std::collections::HashSet::new();
        for (i, item) in projection.iter_mut().enumerate() {
            if let SelectItem::UnnamedExpr(e) = item {
                // A column by its name alone: `a` and `t.a` are one name to DataFusion.
                let key = match &*e {
                    Expr::Identifier(id) => id.value.to_lowercase(),
                    Expr::CompoundIdentifier(p) => {
                        p.last().map_or(String::new(), |id| id.value.to_lowercase())
                    }
                    other => other.to_string(),
                };
                if !seen.insert(key) {
                    *item = SelectItem::ExprWithAlias {
                        expr: take(e),
                        alias: Ident::with_quote('"', format!("?column?{}", i + 1)),
                    };
                }
            }
        }
    }
    let Statement::Query(q) = statement else {
        return;
    };
    each_select(q.body.as_mut(), &mut alias_repeats);
}

const SESSION_FUNCTIONS: &[&str] = &["current_user", "session_user", "user", "current_role"];

/// The login of a connection (the startup message's `user`).
pub fn login<C: ClientInfo + ?Sized>(client: &C) -> String {
    client
        .metadata()
        .get(pgwire::api::METADATA_USER)
        .cloned()
        .unwrap_or_default()
}

/// Replaces the SQL session-user functions by the connection's login.
pub fn session_functions<C: ClientInfo + ?Sized>(statement: &mut Statement, client: &C) {
    let user = login(client);
    let _ = visit_expressions_mut(statement, |e| {
        if let Expr::Function(f) = e {
            let name = f.name.to_string().to_ascii_lowercase();
            let no_args = match &f.args {
                FunctionArguments::None => true,
                FunctionArguments::List(l) => l.args.is_empty(),
                FunctionArguments::Subquery(_) => false,
            };
            if no_args && SESSION_FUNCTIONS.contains(&name.as_str()) {
                *e = Expr::value(Value::SingleQuotedString(user.clone()));
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// `SHOW TABLES` as the query over `information_schema.tables` it stands for.
pub fn show_as_query(statement: &mut Statement) {
    if !matches!(statement, Statement::ShowTables { .. }) {
        return;
    }
    let sql = "SELECT table_catalog, table_schema, table_name, table_type \
               FROM information_schema.tables \
               WHERE table_schema NOT IN ('pg_catalog', 'information_schema') \
               ORDER BY table_schema, table_name";
    let dialect = datafusion::sql::sqlparser::dialect::PostgreSqlDialect {};
    if let Ok(mut s) = datafusion::sql::sqlparser::parser::Parser::parse_sql(&dialect, sql) {
        if let Some(q) = s.pop() {
            *statement = q;
        }
    }
}

/// Result column names as Postgres gives them for a plain `SELECT` list: a column's own name,
/// a function's name, a cast's type, `?column?` for other expressions (DataFusion would say
/// `Int64(1)`). `None` where the list has a wildcard or the statement is not a plain query.
pub fn pg_column_names(statement: &Statement) -> Option<Vec<Option<String>>> {
    use datafusion::sql::sqlparser::ast::{SelectItem, SetExpr};
    let Statement::Query(q) = statement else {
        return None;
    };
    // A set operation takes its names from its first branch.
    let mut body = q.body.as_ref();
    while let SetExpr::SetOperation { left, .. } = body {
        body = left.as_ref();
    }
    let SetExpr::Select(select) = body else {
        return None;
    };
    select
        .projection
        .iter()
        .map(|item| match item {
            SelectItem::UnnamedExpr(e) => Some(Some(expr_name(e))),
            SelectItem::ExprWithAlias { .. } => Some(None),
            _ => None,
        })
        .collect()
}

fn expr_name(e: &Expr) -> String {
    match e {
        Expr::Identifier(i) => i.value.clone(),
        Expr::CompoundIdentifier(v) => v.last().map(|i| i.value.clone()).unwrap_or_default(),
        Expr::Function(f) => last_name(&f.name),
        Expr::Nested(inner) => expr_name(inner),
        Expr::Exists { negated: false, .. } => "exists".to_string(),
        Expr::Case { .. } => "case".to_string(),
        Expr::Array(_) => "array".to_string(),
        Expr::Cast {
            expr, data_type, ..
        } => match expr_name(expr).as_str() {
            "?column?" => data_type
                .to_string()
                .split('(')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase(),
            name => name.to_string(),
        },
        _ => "?column?".to_string(),
    }
}

/// `WITH RECURSIVE t(a, b) AS (SELECT x, 0 UNION ALL ...)`: DataFusion names the recursive
/// CTE's columns after the anchor query's expressions, not the declared list, so the declared
/// names are given to the anchor's select list as aliases (asyncpg's type introspection).
pub fn cte_column_names(statement: &mut Statement) {
    use datafusion::sql::sqlparser::ast::{SelectItem, SetExpr};
    let _ = datafusion::sql::sqlparser::ast::visit_statements_mut(statement, |s| {
        if let Statement::Query(q) = s {
            if let Some(with) = q.with.as_mut() {
                for cte in &mut with.cte_tables {
                    if cte.alias.columns.is_empty() {
                        continue;
                    }
                    let mut body = cte.query.body.as_mut();
                    while let SetExpr::SetOperation { left, .. } = body {
                        body = left.as_mut();
                    }
                    let SetExpr::Select(select) = body else {
                        continue;
                    };
                    if select.projection.len() != cte.alias.columns.len() {
                        continue;
                    }
                    for (item, col) in select.projection.iter_mut().zip(&cte.alias.columns) {
                        if let SelectItem::UnnamedExpr(e) = item {
                            *item = SelectItem::ExprWithAlias {
                                expr: e.clone(),
                                alias: col.name.clone(),
                            };
                        }
                    }
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// `LIKE p ESCAPE 'c'` with another escape than backslash (SQLAlchemy writes `ESCAPE '/'`):
/// DataFusion knows only backslash, so the pattern is rewritten to backslash escapes.
pub fn like_escapes(statement: &mut Statement) {
    let text = |s: &str| Expr::value(Value::SingleQuotedString(s.to_string()));
    let _ = visit_expressions_mut(statement, |e| {
        if let Expr::Like {
            pattern,
            escape_char,
            ..
        }
        | Expr::ILike {
            pattern,
            escape_char,
            ..
        } = e
        {
            let esc = escape_char
                .as_ref()
                .and_then(|v| v.value.clone().into_string());
            if let Some(esc) = esc.filter(|c| c != "\\" && c.chars().count() == 1) {
                let p = take(pattern.as_mut());
                let doubled = call("replace", vec![p, text("\\"), text("\\\\")]);
                *pattern.as_mut() = call("replace", vec![doubled, text(&esc), text("\\")]);
                *escape_char = None;
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// `generate_subscripts(a, d)` (SQLAlchemy's key-column order) as the set DataFusion can
/// produce in a select list: `unnest(generate_series(1, array_length(a, d)))`.
pub fn generate_subscripts(statement: &mut Statement) {
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr};
    let _ = visit_expressions_mut(statement, |e| {
        let Expr::Function(f) = e else {
            return ControlFlow::<()>::Continue(());
        };
        let name = f.name.to_string().to_ascii_lowercase();
        if !matches!(
            name.as_str(),
            "generate_subscripts" | "pg_catalog.generate_subscripts"
        ) {
            return ControlFlow::Continue(());
        }
        let FunctionArguments::List(list) = &f.args else {
            return ControlFlow::Continue(());
        };
        let args: Vec<Expr> = list
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x.clone()),
                _ => None,
            })
            .collect();
        if args.len() != 2 || list.args.len() != 2 {
            return ControlFlow::Continue(());
        }
        let one = Expr::value(Value::Number("1".into(), false));
        let length = call("array_length", args);
        let series = call("generate_series", vec![one, length]);
        *e = call("unnest", vec![series]);
        ControlFlow::Continue(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::parse_one as parse;

    #[test]
    fn rewrites_give_datafusion_what_postgres_clients_send() {
        let mut s = parse("SELECT x FROM t WHERE n NOT LIKE 'pg/_%' ESCAPE '/'");
        like_escapes(&mut s);
        assert_eq!(
            s.to_string(),
            "SELECT x FROM t WHERE n NOT LIKE replace(replace('pg/_%', '\\', '\\\\'), '/', '\\')"
        );
        let mut s = parse("WITH RECURSIVE t(a, d) AS (SELECT x, 0 UNION ALL SELECT a, d + 1 FROM t) SELECT * FROM t");
        cte_column_names(&mut s);
        assert!(
            s.to_string().contains("SELECT x AS a, 0 AS d UNION ALL"),
            "{s}"
        );
        let names = pg_column_names(&parse(
            "SELECT 1, count(*), t.a, x::text, 2::int, 'b' AS c FROM t",
        ));
        assert_eq!(
            names.unwrap(),
            vec![
                Some("?column?".into()),
                Some("count".into()),
                Some("a".into()),
                Some("x".into()),
                Some("int".into()),
                None
            ]
        );
        assert!(pg_column_names(&parse("SELECT * FROM t")).is_none());
    }

    #[test]
    fn repeated_columns_get_internal_aliases() {
        let mut s = parse("SELECT 1, 1, a, t.a, a AS b, a FROM t");
        duplicate_columns(&mut s);
        assert_eq!(
            s.to_string(),
            "SELECT 1, 1 AS \"?column?2\", a, t.a AS \"?column?4\", a AS b, a AS \"?column?6\" FROM t"
        );
    }

    #[test]
    fn table_function_names_fold_as_postgres_folds_them() {
        let mut s = parse(
            "SELECT * FROM BM25('Q', 3) b JOIN \"Documents\" d USING (doc_id), \"bm25\"('x', 1), \"BM25\"('y', 1), Hybrid('z')",
        );
        table_function_names(&mut s);
        assert_eq!(
            s.to_string(),
            "SELECT * FROM bm25('Q', 3) b JOIN \"Documents\" d USING(doc_id), bm25('x', 1), BM25('y', 1), hybrid('z')"
        );
    }
}
