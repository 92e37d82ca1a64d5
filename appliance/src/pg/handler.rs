//! Simple and extended query handling over the DataFusion session.
use datafusion_postgres::arrow_pg;

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::logical_expr::LogicalPlan;
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::Statement as DfStatement;
use datafusion::sql::sqlparser::ast::Statement;
use datafusion_postgres::datafusion_pg_catalog::sql::PostgresCompatibilityParser;
use datafusion_postgres::hooks::cursor::CursorStatementHook;
use datafusion_postgres::hooks::set_show::SetShowHook;
use datafusion_postgres::hooks::transactions::TransactionStatementHook;
use datafusion_postgres::{DfSessionService, QueryHook};
use futures::Sink;
use pgwire::api::portal::{Format, Portal};
use pgwire::api::query::{ExtendedQueryHandler, SimpleQueryHandler};
use pgwire::api::results::{FieldInfo, Response};
use pgwire::api::stmt::QueryParser;
use pgwire::api::store::PortalStore;
use pgwire::api::{ClientInfo, ClientPortalStore, Type};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::PgWireBackendMessage;
use pgwire::types::format::FormatOptions;

use super::params;

/// A prepared statement: its SQL, and (unless empty) its AST and plan with unbound parameters.
/// This is the statement type of datafusion-postgres, so that its hooks (SET, SHOW, BEGIN,
/// cursors) work unchanged.
pub type Prepared = (String, Option<(Statement, LogicalPlan)>);

fn api_err(e: impl std::error::Error + Send + Sync + 'static) -> PgWireError {
    PgWireError::ApiError(Box::new(e))
}

/// Parses and plans statements for the extended protocol.
pub struct MitraParser {
    ctx: Arc<SessionContext>,
    sql_parser: PostgresCompatibilityParser,
    hooks: Vec<Arc<dyn QueryHook>>,
}

#[async_trait]
impl QueryParser for MitraParser {
    type Statement = Prepared;

    async fn parse_sql<C>(
        &self,
        client: &C,
        sql: &str,
        _types: &[Option<Type>],
    ) -> PgWireResult<Prepared>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        let mut statements = self.sql_parser.parse(sql).map_err(api_err)?;
        if statements.is_empty() {
            return Ok((sql.to_string(), None));
        }
        if statements.len() > 1 {
            return Err(PgWireError::UserError(Box::new(
                pgwire::error::ErrorInfo::new(
                    "ERROR".into(),
                    "42601".into(),
                    "cannot insert multiple commands into a prepared statement".into(),
                ),
            )));
        }
        let statement = statements.remove(0);
        for hook in &self.hooks {
            if let Some(plan) = hook
                .handle_extended_parse_query(&statement, &self.ctx, client)
                .await
            {
                return Ok((statement.to_string(), Some((statement, plan?))));
            }
        }
        let plan = self
            .ctx
            .state()
            .statement_to_plan(DfStatement::Statement(Box::new(statement.clone())))
            .await
            .map_err(api_err)?;
        Ok((statement.to_string(), Some((statement, plan))))
    }

    fn get_parameter_types(&self, stmt: &Prepared) -> PgWireResult<Vec<Type>> {
        let Some((ast, plan)) = &stmt.1 else {
            return Ok(vec![]);
        };
        params::types(ast, plan)
            .iter()
            .map(|t| match t {
                Some(dt) => arrow_pg::datatypes::into_pg_type(dt),
                None => Ok(Type::UNKNOWN),
            })
            .collect()
    }

    fn get_result_schema(
        &self,
        stmt: &Prepared,
        format: Option<&Format>,
    ) -> PgWireResult<Vec<FieldInfo>> {
        match &stmt.1 {
            Some((_, plan)) if !matches!(plan, LogicalPlan::Ddl(_) | LogicalPlan::Dml(_)) => {
                arrow_pg::datatypes::arrow_schema_to_pg_fields(
                    plan.schema().as_arrow(),
                    format.unwrap_or(&Format::UnifiedText),
                    None,
                )
            }
            _ => Ok(vec![]),
        }
    }
}

/// The query service: simple protocol via datafusion-postgres, extended protocol with bound
/// parameters substituted before planning (so they work inside table-function arguments).
pub struct MitraService {
    ctx: Arc<SessionContext>,
    simple: DfSessionService,
    parser: Arc<MitraParser>,
    hooks: Vec<Arc<dyn QueryHook>>,
}

impl MitraService {
    /// Creates the service over a session.
    pub fn new(ctx: Arc<SessionContext>) -> Self {
        let hooks: Vec<Arc<dyn QueryHook>> = vec![
            Arc::new(super::session_cmds::SessionCommandsHook),
            Arc::new(CursorStatementHook),
            Arc::new(SetShowHook),
            Arc::new(TransactionStatementHook),
        ];
        Self {
            simple: DfSessionService::new_with_hooks(ctx.clone(), hooks.clone()),
            parser: Arc::new(MitraParser {
                ctx: ctx.clone(),
                sql_parser: PostgresCompatibilityParser::new(),
                hooks: hooks.clone(),
            }),
            ctx,
            hooks,
        }
    }
}

#[async_trait]
impl SimpleQueryHandler for MitraService {
    async fn do_query<C>(&self, client: &mut C, query: &str) -> PgWireResult<Vec<Response>>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        tracing::debug!(query, "simple query");
        <DfSessionService as SimpleQueryHandler>::do_query(&self.simple, client, query).await
    }
}

#[async_trait]
impl ExtendedQueryHandler for MitraService {
    type Statement = Prepared;
    type QueryParser = MitraParser;

    fn query_parser(&self) -> Arc<MitraParser> {
        self.parser.clone()
    }

    async fn do_query<C>(
        &self,
        client: &mut C,
        portal: &Portal<Prepared>,
        _max_rows: usize,
    ) -> PgWireResult<Response>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let Some((ast, plan)) = &portal.statement.statement.1 else {
            return Ok(Response::EmptyQuery);
        };
        tracing::debug!(query = %portal.statement.statement.0, "extended query");
        let types = params::types(ast, plan);
        let type_refs: Vec<Option<&arrow_schema::DataType>> =
            types.iter().map(Option::as_ref).collect();
        let values = arrow_pg::datatypes::df::deserialize_parameters(portal, &type_refs)?;
        for hook in &self.hooks {
            if let Some(resp) = hook
                .handle_extended_query(ast, plan, &values, &self.ctx, client)
                .await
            {
                return resp;
            }
        }
        let scalars: Vec<_> = match values {
            datafusion::common::ParamValues::List(v) => v.into_iter().map(|s| s.value).collect(),
            datafusion::common::ParamValues::Map(_) => vec![],
        };
        // Plan again at every execution: retrieval functions search at planning time, so a
        // prepared statement reused after an ingest must not serve its Parse-time results.
        let mut bound = ast.clone();
        params::bind(&mut bound, &scalars).map_err(|m| {
            PgWireError::UserError(Box::new(pgwire::error::ErrorInfo::new(
                "ERROR".into(),
                "08P01".into(),
                m,
            )))
        })?;
        let plan = self
            .ctx
            .state()
            .statement_to_plan(DfStatement::Statement(Box::new(bound)))
            .await
            .map_err(api_err)?;
        let df = self.ctx.execute_logical_plan(plan).await.map_err(api_err)?;
        let opts = Arc::new(FormatOptions::from_client_metadata(client.metadata()));
        let resp =
            arrow_pg::datatypes::df::encode_dataframe(df, &portal.result_column_format, Some(opts))
                .await?;
        Ok(Response::Query(resp))
    }
}
