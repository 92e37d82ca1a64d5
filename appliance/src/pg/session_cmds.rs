//! Session commands that drivers and poolers send and DataFusion does not know:
//! `DEALLOCATE [PREPARE] name | ALL` and `DISCARD ALL`.

use async_trait::async_trait;
use datafusion::common::ParamValues;
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::Statement;
use datafusion_postgres::hooks::{HookClient, QueryHook};
use pgwire::api::results::{Response, Tag};
use pgwire::api::store::PortalStore;
use pgwire::api::ClientInfo;
use pgwire::error::{PgWireError, PgWireResult};

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
        _ => None,
    }
}

fn run(statement: &Statement, client: &mut dyn HookClient) -> Option<PgWireResult<Response>> {
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
