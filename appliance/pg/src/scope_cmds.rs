//! `SET mitra.analysis = 'ID[,ID2]'`, `RESET mitra.analysis`, `SHOW mitra.analysis`: the session scope.
//!
//! The scope restricts every retrieval function of the connection to the named analyses until
//! it is reset or the connection ends. Setting an analysis that does not exist and one the user
//! may not read fail alike (22023, `analysis "X" does not exist`). `RESET ALL` and `DISCARD
//! ALL` (pool resets) clear it too.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use async_trait::async_trait;
use datafusion::common::{DFSchema, ParamValues};
use datafusion::logical_expr::{EmptyRelation, LogicalPlan, LogicalPlanBuilder};
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::{Expr, Reset, Set, Statement, Value};
use datafusion_postgres::hooks::{HookClient, QueryHook};
use pgwire::api::results::{Response, Tag};
use pgwire::api::ClientInfo;
use pgwire::error::{PgWireError, PgWireResult};

use super::errors::FrontError;
use mitra_store::analyses::{parse_scope, AnalysisCatalog, SessionAccess};

/// The setting's name.
pub const SETTING: &str = "mitra.analysis";

/// What a statement does to the scope.
enum ScopeCmd {
    Set(String),
    Clear,
    Show,
    /// `RESET ALL` / `DISCARD ALL`: clear, then let the other hooks answer.
    ClearAll,
}

fn is_setting(parts: &[String]) -> bool {
    parts.join(".").eq_ignore_ascii_case(SETTING)
}

fn classify(statement: &Statement) -> Option<ScopeCmd> {
    match statement {
        Statement::Set(Set::SingleAssignment {
            variable, values, ..
        }) => {
            let parts: Vec<String> = variable.0.iter().map(|p| p.to_string()).collect();
            if !is_setting(&parts) {
                return None;
            }
            match values.as_slice() {
                [Expr::Value(v)] => match &v.value {
                    Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                        Some(ScopeCmd::Set(s.clone()))
                    }
                    Value::Number(n, _) => Some(ScopeCmd::Set(n.clone())),
                    _ => Some(ScopeCmd::Set(v.to_string())),
                },
                [Expr::Identifier(i)] if i.value.eq_ignore_ascii_case("default") => {
                    Some(ScopeCmd::Clear)
                }
                [Expr::Identifier(i)] => Some(ScopeCmd::Set(i.value.clone())),
                // `SET mitra.analysis = 'a', 'b'` (a list, as Postgres allows for list settings).
                vals => {
                    let mut ids = Vec::new();
                    for e in vals {
                        match e {
                            Expr::Value(v) => match &v.value {
                                Value::SingleQuotedString(s) => ids.push(s.clone()),
                                other => ids.push(other.to_string()),
                            },
                            Expr::Identifier(i) => ids.push(i.value.clone()),
                            other => ids.push(other.to_string()),
                        }
                    }
                    Some(ScopeCmd::Set(ids.join(",")))
                }
            }
        }
        Statement::Reset(r) => match &r.reset {
            Reset::ALL => Some(ScopeCmd::ClearAll),
            Reset::ConfigurationParameter(name) => {
                let parts: Vec<String> = name.0.iter().map(|p| p.to_string()).collect();
                is_setting(&parts).then_some(ScopeCmd::Clear)
            }
        },
        Statement::Discard { .. } => Some(ScopeCmd::ClearAll),
        Statement::ShowVariable { variable } => {
            let parts: Vec<String> = variable.iter().map(|p| p.value.clone()).collect();
            is_setting(&parts).then_some(ScopeCmd::Show)
        }
        _ => None,
    }
}

fn user_error(e: mitra_store::analyses::AnalysesError) -> PgWireError {
    match e {
        mitra_store::analyses::AnalysesError::Unknown(_) => FrontError::InvalidValue(e.to_string()),
        other => FrontError::Internal(other.to_string()),
    }
    .into_pg()
}

/// Runs the command; `None` when the statement is not about the scope (or, for pool resets,
/// after clearing it, so that the other hooks answer).
async fn run(ctx: &SessionContext, statement: &Statement) -> Option<PgWireResult<Response>> {
    let cmd = classify(statement)?;
    let config = ctx.state().config().clone();
    let access = config.get_extension::<SessionAccess>();
    let set = |scope: Option<Vec<String>>| {
        if let Some(a) = &access {
            a.set_scope(scope);
        }
    };
    match cmd {
        ScopeCmd::ClearAll => {
            set(None);
            None
        }
        ScopeCmd::Clear => {
            set(None);
            Some(Ok(Response::Execution(Tag::new("RESET"))))
        }
        ScopeCmd::Set(text) => {
            let scope = match parse_scope(&text) {
                Ok(s) => s,
                Err(e) => return Some(Err(user_error(e))),
            };
            if let (Some(ids), Some(catalog)) = (&scope, config.get_extension::<AnalysisCatalog>())
            {
                let principal = SessionAccess::principal_of(&config);
                if let Err(e) = catalog.check_scope(&principal, ids).await {
                    return Some(Err(user_error(e)));
                }
            }
            set(scope);
            Some(Ok(Response::Execution(Tag::new("SET"))))
        }
        ScopeCmd::Show => {
            let value = access
                .and_then(|a| a.scope())
                .map(|s| s.join(","))
                .unwrap_or_default();
            Some(super::session_cmds::show_response(SETTING, value))
        }
    }
}

/// The scope commands, for both protocols.
pub struct ScopeHook;

#[async_trait]
impl QueryHook for ScopeHook {
    async fn handle_simple_query(
        &self,
        statement: &Statement,
        ctx: &SessionContext,
        _client: &mut dyn HookClient,
    ) -> Option<PgWireResult<Response>> {
        run(ctx, statement).await
    }

    async fn handle_extended_parse_query(
        &self,
        statement: &Statement,
        _ctx: &SessionContext,
        _client: &(dyn ClientInfo + Send + Sync),
    ) -> Option<PgWireResult<LogicalPlan>> {
        let plan = match classify(statement)? {
            ScopeCmd::ClearAll => return None,
            ScopeCmd::Show => {
                let schema = Schema::new(vec![Field::new(SETTING, DataType::Utf8, false)]);
                DFSchema::try_from(schema).map(|s| {
                    LogicalPlan::EmptyRelation(EmptyRelation {
                        produce_one_row: false,
                        schema: Arc::new(s),
                    })
                })
            }
            _ => LogicalPlanBuilder::empty(false).build(),
        };
        Some(plan.map_err(|e| PgWireError::ApiError(Box::new(e))))
    }

    async fn handle_extended_query(
        &self,
        statement: &Statement,
        _plan: &LogicalPlan,
        _params: &ParamValues,
        ctx: &SessionContext,
        _client: &mut dyn HookClient,
    ) -> Option<PgWireResult<Response>> {
        run(ctx, statement).await
    }
}
