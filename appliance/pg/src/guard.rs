//! The read-only policy of the SQL front: which statements a client may run, checked on the
//! statement (allow-list) and again on the logical plan (no DDL, DML or COPY node anywhere).

use datafusion::execution::context::SQLOptions;
use datafusion::logical_expr::LogicalPlan;
use datafusion::sql::sqlparser::ast::{CopySource, CopyTarget, Query, SetExpr, Statement};

use super::errors::FrontError;

/// Checks a parsed statement against the allow-list: queries, EXPLAIN, session commands
/// (SET/SHOW/RESET, transactions, cursors, DEALLOCATE/DISCARD) and `COPY (query) TO STDOUT`.
/// Everything else (DDL, DML, COPY to or from files or programs, PREPARE/EXECUTE of
/// arbitrary statements, GRANT, ...) is refused with SQLSTATE 42501.
pub fn check_statement(statement: &Statement) -> Result<(), FrontError> {
    let refuse = |what: &str| Err(FrontError::ReadOnly(what.to_string()));
    match statement {
        Statement::Query(q) => check_query(q),
        Statement::Explain { statement, .. } => check_statement(statement),
        Statement::Copy {
            source, to, target, ..
        } => match (source, to, target) {
            (CopySource::Query(_), true, CopyTarget::Stdout) => Ok(()),
            (CopySource::Table { .. }, true, CopyTarget::Stdout) => Ok(()),
            (_, false, _) => refuse("COPY FROM"),
            (_, true, CopyTarget::File { .. }) => refuse("COPY to a server file"),
            (_, true, CopyTarget::Program { .. }) => refuse("COPY to a program"),
            (_, true, _) => refuse("COPY to this target"),
        },
        Statement::Set(_)
        | Statement::Reset(_)
        | Statement::ShowVariable { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowTables { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowFunctions { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowCatalogs { .. }
        | Statement::ShowDatabases { .. }
        | Statement::StartTransaction { .. }
        | Statement::Commit { .. }
        | Statement::Rollback { .. }
        | Statement::Savepoint { .. }
        | Statement::ReleaseSavepoint { .. }
        | Statement::Fetch { .. }
        | Statement::Close { .. }
        | Statement::Deallocate { .. }
        | Statement::Discard { .. }
        | Statement::UNLISTEN { .. } => Ok(()),
        Statement::Declare { stmts } => {
            for d in stmts {
                if let Some(q) = &d.for_query {
                    check_query(q)?;
                }
            }
            Ok(())
        }
        other => refuse(statement_kind(other)),
    }
}

/// A query may not write: no `SELECT ... INTO`, no data-modifying body or CTE.
fn check_query(q: &Query) -> Result<(), FrontError> {
    if let Some(with) = &q.with {
        for cte in &with.cte_tables {
            check_query(&cte.query)?;
        }
    }
    check_set_expr(&q.body)
}

fn check_set_expr(body: &SetExpr) -> Result<(), FrontError> {
    let refuse = |what: &str| Err(FrontError::ReadOnly(what.to_string()));
    match body {
        SetExpr::Select(s) if s.into.is_some() => refuse("SELECT ... INTO"),
        SetExpr::Select(_) | SetExpr::Values(_) | SetExpr::Table(_) => Ok(()),
        SetExpr::Query(q) => check_query(q),
        SetExpr::SetOperation { left, right, .. } => {
            check_set_expr(left)?;
            check_set_expr(right)
        }
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => {
            refuse("data-modifying statements")
        }
    }
}

/// A short name of a refused statement for the error message.
fn statement_kind(statement: &Statement) -> &'static str {
    match statement {
        Statement::Insert(_) => "INSERT",
        Statement::Update { .. } => "UPDATE",
        Statement::Delete(_) => "DELETE",
        Statement::Merge { .. } => "MERGE",
        Statement::Truncate { .. } => "TRUNCATE",
        Statement::CreateTable(_) => "CREATE TABLE",
        Statement::CreateView { .. } => "CREATE VIEW",
        Statement::CreateIndex(_) => "CREATE INDEX",
        Statement::CreateSchema { .. } => "CREATE SCHEMA",
        Statement::CreateDatabase { .. } => "CREATE DATABASE",
        Statement::CreateFunction(_) => "CREATE FUNCTION",
        Statement::CreateExtension { .. } => "CREATE EXTENSION",
        Statement::AlterTable { .. } => "ALTER TABLE",
        Statement::Drop { .. } => "DROP",
        Statement::DropFunction { .. } => "DROP FUNCTION",
        Statement::Grant { .. } => "GRANT",
        Statement::Revoke { .. } => "REVOKE",
        Statement::Prepare { .. } => "PREPARE",
        Statement::Execute { .. } => "EXECUTE",
        Statement::Call(_) => "CALL",
        Statement::Load { .. } | Statement::LoadData { .. } => "LOAD",
        Statement::Install { .. } => "INSTALL",
        Statement::AttachDatabase { .. } => "ATTACH",
        Statement::Analyze { .. } | Statement::Vacuum(_) => "maintenance commands",
        Statement::Comment { .. } => "COMMENT",
        Statement::Lock(_) | Statement::LockTables { .. } => "LOCK",
        Statement::Kill { .. } => "KILL",
        Statement::LISTEN { .. } | Statement::NOTIFY { .. } => "LISTEN/NOTIFY",
        _ => "this statement",
    }
}

/// Checks a logical plan (including subqueries and CTEs) for DDL, DML and COPY nodes.
pub fn check_plan(plan: &LogicalPlan) -> Result<(), FrontError> {
    SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_dml(false)
        .verify_plan(plan)
        .map_err(|e| FrontError::ReadOnly(e.strip_backtrace()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn check(sql: &str) -> Result<(), FrontError> {
        let stmts = Parser::parse_sql(&PostgreSqlDialect {}, sql).unwrap();
        stmts.iter().try_for_each(check_statement)
    }

    #[test]
    fn allows_queries_and_session_commands_refuses_writes() {
        for ok in [
            "SELECT 1",
            "WITH x AS (SELECT 1) SELECT * FROM x",
            "EXPLAIN SELECT 1",
            "SET extra_float_digits = 3",
            "SHOW server_version",
            "BEGIN",
            "COMMIT",
            "ROLLBACK",
            "SAVEPOINT a",
            "RELEASE SAVEPOINT a",
            "COPY (SELECT 1) TO STDOUT",
            "COPY chunks TO STDOUT WITH (FORMAT csv)",
            "DECLARE c CURSOR FOR SELECT 1",
            "FETCH 10 FROM c",
            "CLOSE c",
            "DISCARD ALL",
            "DEALLOCATE ALL",
        ] {
            assert!(check(ok).is_ok(), "{ok} should be allowed");
        }
        for bad in [
            "COPY (SELECT 1) TO '/tmp/x'",
            "COPY chunks FROM '/etc/passwd'",
            "COPY chunks FROM STDIN",
            "COPY (SELECT 1) TO PROGRAM 'id'",
            "DROP TABLE documents",
            "CREATE TABLE t AS SELECT 1",
            "CREATE VIEW v AS SELECT 1",
            "INSERT INTO documents VALUES (1)",
            "UPDATE documents SET title = 'x'",
            "DELETE FROM documents",
            "TRUNCATE documents",
            "SELECT 1 INTO t",
            "EXPLAIN DELETE FROM documents",
            "PREPARE p AS DELETE FROM documents",
            "GRANT ALL ON documents TO public",
            "CREATE EXTENSION x",
            "ALTER TABLE documents ADD COLUMN x int",
            "WITH d AS (DELETE FROM documents RETURNING *) SELECT * FROM d",
        ] {
            let e = check(bad).expect_err(bad);
            assert_eq!(e.sqlstate(), "42501", "{bad}");
        }
    }
}
