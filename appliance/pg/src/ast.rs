//! Small builders and readers of sqlparser ASTs that the statement rewrites share.

use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, Value,
};

/// `name(args...)`, `args` as written (`*` included).
pub fn call_args(name: &str, args: Vec<FunctionArgExpr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args.into_iter().map(FunctionArg::Unnamed).collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// `name(args...)` over expressions.
pub fn call(name: &str, args: Vec<Expr>) -> Expr {
    call_args(name, args.into_iter().map(FunctionArgExpr::Expr).collect())
}

/// The parts of a name (`s`, `t` in `s.t`), unquoted and lower case.
pub fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|p| p.to_string().trim_matches('"').to_ascii_lowercase())
        .collect()
}

/// The last part of a name (`t` in `s.t`), unquoted and lower case.
pub fn last_name(name: &ObjectName) -> String {
    name_parts(name).pop().unwrap_or_default()
}

/// Takes `e` out of its place, leaving NULL, to rebuild it into a new expression.
pub fn take(e: &mut Expr) -> Expr {
    std::mem::replace(e, Expr::value(Value::Null))
}

/// The one statement of `sql`, parsed as Postgres (for the rewrites' unit tests).
#[cfg(test)]
pub fn parse_one(sql: &str) -> datafusion::sql::sqlparser::ast::Statement {
    use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
    use datafusion::sql::sqlparser::parser::Parser;
    Parser::parse_sql(&PostgreSqlDialect {}, sql)
        .unwrap()
        .remove(0)
}
