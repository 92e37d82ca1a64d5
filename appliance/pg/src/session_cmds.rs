//! Session commands that drivers and poolers send and DataFusion does not know:
//! `DEALLOCATE [PREPARE] name | ALL`, `DISCARD ALL`, transaction blocks with savepoints (a
//! read-only session has nothing to commit, but clients need the states and the 25P02 rule),
//! and the settings clients may not change (`datafusion.*`: limits are the operator's).

use async_trait::async_trait;
use datafusion::common::ParamValues;
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::{Set, Statement};
use datafusion_postgres::hooks::{HookClient, QueryHook};
use std::sync::Arc;

use pgwire::api::results::{DataRowEncoder, FieldFormat, FieldInfo, QueryResponse, Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::ClientInfo;
use pgwire::api::Type;
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::response::TransactionStatus;

use super::errors::FrontError;

/// Transaction statements, and the rule that a failed transaction block accepts nothing but
/// its end (25P02). `None`: the statement is not affected.
pub fn transaction_gate(
    statement: &Statement,
    client: &mut dyn HookClient,
) -> Option<PgWireResult<Response>> {
    let status = client.transaction_status();
    let resp = match statement {
        Statement::StartTransaction { .. } => match status {
            TransactionStatus::Idle => Response::TransactionStart(Tag::new("BEGIN")),
            TransactionStatus::Transaction => Response::Execution(Tag::new("BEGIN")),
            TransactionStatus::Error => {
                return Some(Err(FrontError::InFailedTransaction.into_pg()))
            }
        },
        Statement::Commit { .. } => match status {
            TransactionStatus::Error => Response::TransactionEnd(Tag::new("ROLLBACK")),
            _ => Response::TransactionEnd(Tag::new("COMMIT")),
        },
        Statement::Rollback {
            savepoint: Some(_), ..
        } => {
            // Back to the savepoint: the block is usable again.
            if status == TransactionStatus::Idle {
                return Some(Err(
                    FrontError::NoTransaction("ROLLBACK TO SAVEPOINT").into_pg()
                ));
            }
            Response::TransactionStart(Tag::new("ROLLBACK"))
        }
        Statement::Rollback { .. } => Response::TransactionEnd(Tag::new("ROLLBACK")),
        Statement::Savepoint { .. } | Statement::ReleaseSavepoint { .. }
            if status == TransactionStatus::Error =>
        {
            return Some(Err(FrontError::InFailedTransaction.into_pg()))
        }
        Statement::Savepoint { .. } => {
            if status == TransactionStatus::Idle {
                return Some(Err(FrontError::NoTransaction("SAVEPOINT").into_pg()));
            }
            Response::Execution(Tag::new("SAVEPOINT"))
        }
        Statement::ReleaseSavepoint { .. } => {
            if status == TransactionStatus::Idle {
                return Some(Err(FrontError::NoTransaction("RELEASE SAVEPOINT").into_pg()));
            }
            Response::Execution(Tag::new("RELEASE"))
        }
        _ if status == TransactionStatus::Error => {
            return Some(Err(FrontError::InFailedTransaction.into_pg()))
        }
        Statement::Set(set) => return refuse_setting(set).map(Err),
        _ => return None,
    };
    Some(Ok(resp))
}

/// `SET datafusion.*` (memory limits, batch sizes, file formats) is the operator's.
fn refuse_setting(set: &Set) -> Option<PgWireError> {
    let name = match set {
        Set::SingleAssignment { variable, .. } => variable.to_string(),
        _ => return None,
    };
    name.to_ascii_lowercase()
        .starts_with("datafusion.")
        .then(|| FrontError::Setting(name).into_pg())
}

/// Handles `DEALLOCATE` and `DISCARD` for both protocols.
pub struct SessionCommandsHook;

fn tag_for(statement: &Statement) -> Option<(&'static str, Option<String>)> {
    match statement {
        Statement::Deallocate { name, .. } => {
            let n = name.value.clone();
            if n.eq_ignore_ascii_case("all") {
                Some(("DEALLOCATE ALL", None))
            } else {
                Some(("DEALLOCATE", Some(n)))
            }
        }
        Statement::Discard { .. } => Some(("DISCARD ALL", None)),
        // Pool resets (asyncpg: `UNLISTEN *; RESET ALL`): nothing is listened to, and the
        // settings a client may change are reported per statement.
        Statement::UNLISTEN { .. } => Some(("UNLISTEN", None)),
        Statement::Reset(_) => Some(("RESET", None)),
        _ => None,
    }
}

/// `SHOW` of the parameters where Mitra answers for itself (the others: datafusion-postgres).
fn show(statement: &Statement) -> Option<PgWireResult<Response>> {
    let Statement::ShowVariable { variable } = statement else {
        return None;
    };
    let name = variable
        .iter()
        .map(|v| v.value.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let value = match name.as_str() {
        "server_version" => super::version::server_version(),
        "server_version_num" => "160006".into(),
        "transaction_read_only" | "default_transaction_read_only" => "on".into(),
        "is_superuser" => "off".into(),
        _ => return None,
    };
    Some(show_response(&name, value))
}

/// The answer to `SHOW name`: one text column named `name`, one row.
pub fn show_response(name: &str, value: String) -> PgWireResult<Response> {
    let fields = Arc::new(vec![FieldInfo::new(
        name.to_string(),
        None,
        None,
        Type::TEXT,
        FieldFormat::Text,
    )]);
    let mut encoder = DataRowEncoder::new(fields.clone());
    encoder.encode_field(&Some(value))?;
    let row = encoder.take_row();
    Ok(Response::Query(QueryResponse::new(
        fields,
        futures::stream::once(async move { Ok(row) }),
    )))
}

fn run(statement: &Statement, client: &mut dyn HookClient) -> Option<PgWireResult<Response>> {
    if let Some(resp) = show(statement) {
        return Some(resp);
    }
    let (tag, name) = tag_for(statement)?;
    if let Some(name) = name {
        client.portal_store().rm_statement(&name);
    }
    Some(Ok(Response::Execution(Tag::new(tag))))
}

#[async_trait]
impl QueryHook for SessionCommandsHook {
    async fn handle_simple_query(
        &self,
        statement: &Statement,
        _ctx: &SessionContext,
        client: &mut dyn HookClient,
    ) -> Option<PgWireResult<Response>> {
        run(statement, client)
    }

    async fn handle_extended_parse_query(
        &self,
        statement: &Statement,
        _ctx: &SessionContext,
        _client: &(dyn ClientInfo + Send + Sync),
    ) -> Option<PgWireResult<LogicalPlan>> {
        tag_for(statement)?;
        Some(
            LogicalPlanBuilder::empty(false)
                .build()
                .map_err(|e| PgWireError::ApiError(Box::new(e))),
        )
    }

    async fn handle_extended_query(
        &self,
        statement: &Statement,
        _plan: &LogicalPlan,
        _params: &ParamValues,
        _ctx: &SessionContext,
        client: &mut dyn HookClient,
    ) -> Option<PgWireResult<Response>> {
        run(statement, client)
    }
}
