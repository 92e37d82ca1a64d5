//! Simple and extended query handling over one connection's DataFusion session: the read-only
//! guard, session commands, cursors, `COPY ... TO STDOUT`, parameters bound before planning.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::common::{DFSchema, ParamValues, ScalarValue};
use datafusion::dataframe::DataFrame;
use datafusion::logical_expr::{EmptyRelation, LogicalPlan};
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::Statement as DfStatement;
use datafusion::sql::sqlparser::ast::{CloseCursor, Statement};
use datafusion_postgres::hooks::set_show::SetShowHook;
use datafusion_postgres::hooks::{HookClient, QueryHook};
use futures::{Sink, StreamExt};
use pgwire::api::portal::{Format, Portal};
use pgwire::api::query::{ExtendedQueryHandler, SimpleQueryHandler};
use pgwire::api::results::{FieldInfo, QueryResponse, Response, Tag};
use pgwire::api::stmt::{QueryParser, StoredStatement};
use pgwire::api::store::PortalStore;
use pgwire::api::{ClientInfo, ClientPortalStore, Type};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::extendedquery::Execute;
use pgwire::messages::PgWireBackendMessage;
use pgwire::types::format::FormatOptions;

use super::errors::{error_info, FrontError};
use super::{copy, floats, guard, params, rewrite, wire_types};
use mitra_sql::interrupt::{Interrupt, Statement as Running, Stop};

/// A prepared statement: its SQL, and (unless empty) its AST and plan with unbound parameters.
/// This is the statement type of datafusion-postgres, so that its hooks (SET, SHOW) work
/// unchanged.
pub type Prepared = (String, Option<(Statement, LogicalPlan)>);

fn api_err(e: impl std::error::Error + Send + Sync + 'static) -> PgWireError {
    PgWireError::ApiError(Box::new(e))
}

/// The most `$n` parameters a statement may use (the Bind message's limit).
const MAX_PARAMETERS: usize = u16::MAX as usize;
/// The most rows one Execute returns before the portal is suspended.
const MAX_ROWS_PER_EXECUTE: i32 = 65_536;

/// A Bind's result formats must be one for all columns or one per column.
fn check_result_formats(format: &Format, columns: usize) -> PgWireResult<()> {
    match format {
        Format::Individual(v) if v.len() > 1 && v.len() != columns => {
            Err(FrontError::Protocol(format!(
                "bind message has {} result formats but query has {columns} columns",
                v.len()
            ))
            .into_pg())
        }
        _ => Ok(()),
    }
}

/// Makes the logged-in user the session's reader, once, before its first statement is planned.
struct Login {
    users: Option<Arc<super::UsersSource>>,
    bound: std::sync::atomic::AtomicBool,
}

impl Login {
    fn bind(&self, ctx: &SessionContext, client: &(impl ClientInfo + ?Sized)) {
        use std::sync::atomic::Ordering;
        if self.bound.load(Ordering::Acquire) {
            return;
        }
        // Only reached after authentication succeeded (or with none): the startup user is the
        // login, which `pg_roles` lists.
        let Some(user) = client.metadata().get(pgwire::api::METADATA_USER).cloned() else {
            return;
        };
        if let Some(login) = ctx
            .state()
            .config()
            .get_extension::<super::catalog::SessionLogin>()
        {
            login.set(&user);
        }
        let Some(users) = &self.users else {
            self.bound.store(true, Ordering::Release);
            return;
        };
        if let Some(access) = ctx
            .state()
            .config()
            .get_extension::<mitra_store::analyses::SessionAccess>()
        {
            access.set_principal(users.principal(&user));
        }
        self.bound.store(true, Ordering::Release);
    }
}

/// The error a stopped statement ends with.
fn stopped(why: Stop) -> PgWireError {
    match why {
        Stop::Timeout => FrontError::Timeout.into_pg(),
        Stop::Cancelled | Stop::Gone => FrontError::Cancelled.into_pg(),
    }
}

/// The response's rows until the statement is stopped; then one 57014 error ends them.
fn until_stopped(resp: QueryResponse, stop: Running) -> QueryResponse {
    let QueryResponse {
        command_tag,
        row_schema,
        data_rows,
        ..
    } = resp;
    let rows = futures::stream::unfold(Some((data_rows, stop)), |state| async move {
        let (mut rows, stop) = state?;
        tokio::select! {
            biased;
            why = stop.stopped() => Some((Err(stopped(why)), None)),
            row = rows.next() => row.map(|r| (r, Some((rows, stop)))),
        }
    });
    let mut out = QueryResponse::new(row_schema, rows);
    out.command_tag = command_tag;
    out
}

/// Result schemas of this connection's open cursors (a FETCH is described by its cursor's).
type Cursors = Arc<Mutex<HashMap<String, SchemaRef>>>;

/// Parses and plans statements for the extended protocol.
pub struct MitraParser {
    ctx: Arc<SessionContext>,
    login: Arc<Login>,
    sql_parser: super::parse::SqlParser,
    hooks: Vec<Arc<dyn QueryHook>>,
    cursors: Cursors,
    log: FailureLog,
}

fn empty_plan(schema: Option<SchemaRef>) -> PgWireResult<LogicalPlan> {
    let schema = match schema {
        Some(s) => DFSchema::try_from(s.as_ref().clone()).map_err(api_err)?,
        None => DFSchema::empty(),
    };
    Ok(LogicalPlan::EmptyRelation(EmptyRelation {
        produce_one_row: false,
        schema: Arc::new(schema),
    }))
}

impl MitraParser {
    /// Plans one checked, rewritten statement (parameters may still be unbound). Result
    /// columns get Postgres' names on the wire ([`wire_types::wire_names`]), not in the plan.
    async fn plan(&self, statement: &Statement) -> PgWireResult<LogicalPlan> {
        if let Some(plan) = super::explain::plan(&self.ctx, statement).await {
            return plan.map_err(api_err);
        }
        let plan = self
            .ctx
            .state()
            .statement_to_plan(DfStatement::Statement(Box::new(statement.clone())))
            .await
            .map_err(api_err)?;
        guard::check_plan(&plan).map_err(FrontError::into_pg)?;
        Ok(plan)
    }

    /// Parses and plans one statement of the extended protocol (a `Parse` message).
    async fn parse_one<C>(
        &self,
        client: &C,
        sql: &str,
        types: &[Option<Type>],
    ) -> PgWireResult<Prepared>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        self.login.bind(&self.ctx, client);
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
        let mut statement = statements.remove(0);
        guard::check_statement(&statement).map_err(FrontError::into_pg)?;
        if params::count(&statement) > MAX_PARAMETERS {
            return Err(FrontError::TooManyParameters.into_pg());
        }
        let arrays = params::array_casts(&statement, types);
        params::apply_casts(&mut statement, &arrays);
        let mut original = statement.clone();
        rewrite::all(&mut statement, client, &self.ctx).map_err(FrontError::into_pg)?;
        tracing::trace!(%statement, "rewritten");
        let text = original.to_string();
        // Statements answered without planning get a plan that only carries their result shape.
        let plan = match &statement {
            Statement::Fetch { name, .. } => {
                let schema = self
                    .cursors
                    .lock()
                    .ok()
                    .and_then(|c| c.get(&name.value).cloned());
                empty_plan(schema)?
            }
            Statement::Copy { .. }
            | Statement::Declare { .. }
            | Statement::Close { .. }
            | Statement::StartTransaction { .. }
            | Statement::Commit { .. }
            | Statement::Rollback { .. }
            | Statement::Savepoint { .. }
            | Statement::ReleaseSavepoint { .. }
            | Statement::Deallocate { .. }
            | Statement::Discard { .. }
            | Statement::Reset(_)
            | Statement::UNLISTEN { .. } => empty_plan(None)?,
            _ => {
                let mut hooked = None;
                for hook in &self.hooks {
                    if let Some(plan) = hook
                        .handle_extended_parse_query(&statement, &self.ctx, client)
                        .await
                    {
                        hooked = Some(plan?);
                        break;
                    }
                }
                match hooked {
                    Some(p) => p,
                    None => {
                        let plan = self.plan(&statement).await?;
                        let casts = params::client_casts(types, &params::types(&statement, &plan));
                        if casts.is_empty() {
                            plan
                        } else {
                            params::apply_casts(&mut statement, &casts);
                            params::apply_casts(&mut original, &casts);
                            self.plan(&statement).await?
                        }
                    }
                }
            }
        };
        // The original statement is kept: execution binds and rewrites it again.
        Ok((text, Some((original, plan))))
    }
}

#[async_trait]
impl QueryParser for MitraParser {
    type Statement = Prepared;

    async fn parse_sql<C>(
        &self,
        client: &C,
        sql: &str,
        types: &[Option<Type>],
    ) -> PgWireResult<Prepared>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        let parsed = self.parse_one(client, sql, types).await;
        if let Err(e) = &parsed {
            self.log.failed(client, sql, None, e);
        }
        parsed
    }

    fn get_parameter_types(&self, stmt: &Prepared) -> PgWireResult<Vec<Type>> {
        let Some((ast, plan)) = &stmt.1 else {
            return Ok(vec![]);
        };
        params::fields(ast, plan)
            .iter()
            .map(|f| match f {
                Some(f) => wire_types::pg_type(f),
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
            Some((ast, plan)) => {
                let schema = wire_types::wire_schema(plan.schema().as_arrow());
                if let Some(f) = format {
                    check_result_formats(f, schema.fields().len())?;
                }
                let names = rewrite::pg_column_names(ast);
                wire_types::pg_fields(
                    &schema,
                    format.unwrap_or(&Format::UnifiedText),
                    None,
                    names.as_deref(),
                )
            }
            _ => Ok(vec![]),
        }
    }
}

/// What the log line of a failed statement carries ([`ServerConfig`](mitra_store::config::ServerConfig)'s
/// `log_statement_chars`, `log_parameters`).
#[derive(Debug, Clone, Copy, Default)]
pub struct FailureLog {
    /// Characters of the statement kept (0: none).
    pub statement_chars: usize,
    /// Whether bound parameters are logged.
    pub parameters: bool,
}

impl FailureLog {
    /// Logs a failed statement, as PostgreSQL's `log_min_error_statement` does: the SQLSTATE,
    /// the message, the statement (cut), the parameters when configured, and the session.
    fn failed<C: ClientInfo + ?Sized>(
        &self,
        client: &C,
        statement: &str,
        params: Option<&[ScalarValue]>,
        e: &PgWireError,
    ) {
        let who = (client.socket_addr(), super::rewrite::login(client));
        self.failed_as(&who, statement, params, e);
    }

    /// [`Self::failed`] for a session named by its peer and login (a statement whose rows
    /// fail while they are sent, after the handler has returned).
    fn failed_as(
        &self,
        (peer, user): &(std::net::SocketAddr, String),
        statement: &str,
        params: Option<&[ScalarValue]>,
        e: &PgWireError,
    ) {
        let (code, message) = match e {
            PgWireError::UserError(info) => (info.code.clone(), info.message.clone()),
            other => error_info(other)
                .map(|i| (i.code, i.message))
                .unwrap_or_else(|| ("08P01".into(), other.to_string())),
        };
        if self.statement_chars == 0 {
            tracing::info!(%peer, user, sqlstate = %code, error = %message, "statement failed");
            return;
        }
        let mut text: String = statement.chars().take(self.statement_chars).collect();
        if text.len() < statement.len() {
            text.push('…');
        }
        let params = match (self.parameters, params) {
            (true, Some(p)) if !p.is_empty() => {
                let list: Vec<String> = p.iter().map(|v| v.to_string()).collect();
                Some(list.join(", "))
            }
            _ => None,
        };
        tracing::info!(%peer, user, sqlstate = %code, error = %message, statement = %text, params, "statement failed");
    }

    /// `resp` with its rows watched: an error while they are computed (a cast of a value, a
    /// function failing on a row) is logged as a failed statement too.
    fn watch(
        self,
        resp: QueryResponse,
        who: (std::net::SocketAddr, String),
        statement: String,
        params: Option<Vec<ScalarValue>>,
    ) -> QueryResponse {
        let QueryResponse {
            command_tag,
            row_schema,
            data_rows,
            ..
        } = resp;
        let rows = data_rows.inspect(move |r| {
            if let Err(e) = r {
                self.failed_as(&who, &statement, params.as_deref(), e);
            }
        });
        let mut out = QueryResponse::new(row_schema, rows);
        out.command_tag = command_tag;
        out
    }
}

/// The query service of one connection: its own DataFusion session (settings, cursors and
/// prepared statements are per connection), over tables shared read-only with every other.
pub struct MitraService {
    ctx: Arc<SessionContext>,
    login: Arc<Login>,
    parser: Arc<MitraParser>,
    hooks: Vec<Arc<dyn QueryHook>>,
    cursors: Cursors,
    interrupt: Arc<Interrupt>,
    log: FailureLog,
}

impl MitraService {
    /// Creates the service over a connection's session; `users` when logins are required
    /// (the session's reader is then the logged-in user); `interrupt` stops its statements;
    /// `log` says what the log line of a failed statement carries.
    pub fn new(
        ctx: Arc<SessionContext>,
        users: Option<Arc<super::UsersSource>>,
        interrupt: Arc<Interrupt>,
        log: FailureLog,
    ) -> Self {
        let hooks: Vec<Arc<dyn QueryHook>> = vec![
            Arc::new(super::scope_cmds::ScopeHook),
            Arc::new(super::session_cmds::SessionCommandsHook),
            Arc::new(SetShowHook),
        ];
        let cursors = Cursors::default();
        let login = Arc::new(Login {
            users,
            bound: std::sync::atomic::AtomicBool::new(false),
        });
        Self {
            login: login.clone(),
            parser: Arc::new(MitraParser {
                ctx: ctx.clone(),
                login,
                sql_parser: super::parse::SqlParser::new(),
                hooks: hooks.clone(),
                cursors: cursors.clone(),
                log,
            }),
            ctx,
            hooks,
            cursors,
            interrupt,
            log,
        }
    }

    /// Runs one statement whose parameters are bound: hooks, cursors, COPY, or plan and execute.
    async fn execute(
        &self,
        client: &mut dyn HookClient,
        mut statement: Statement,
        format: &Format,
        logged: (String, Option<Vec<ScalarValue>>),
    ) -> PgWireResult<Response> {
        self.login.bind(&self.ctx, client);
        guard::check_statement(&statement).map_err(FrontError::into_pg)?;
        if let Some(resp) = super::session_cmds::transaction_gate(&statement, client) {
            return resp;
        }
        let names = rewrite::pg_column_names(&statement);
        rewrite::all(&mut statement, client, &self.ctx).map_err(FrontError::into_pg)?;
        tracing::trace!(%statement, "rewritten");
        for hook in &self.hooks {
            if let Some(resp) = hook
                .handle_simple_query(&statement, &self.ctx, client)
                .await
            {
                return resp;
            }
        }
        match &statement {
            Statement::Copy { .. } => {
                let (query, options) = copy::query_of(&statement).map_err(FrontError::into_pg)?;
                let df = self.run_query(client, &query).await?;
                return copy::copy_out(df, &options).await;
            }
            Statement::Declare { stmts } => {
                for d in stmts {
                    self.declare(client, d).await?;
                }
                return Ok(Response::Execution(Tag::new("DECLARE CURSOR")));
            }
            Statement::Fetch { name, .. }
                if client.portal_store().get_portal(&name.value).is_none() =>
            {
                return Err(FrontError::UndefinedObject(format!(
                    "cursor \"{}\" does not exist",
                    name.value
                ))
                .into_pg());
            }
            Statement::Close { cursor } => {
                if let Ok(mut c) = self.cursors.lock() {
                    match cursor {
                        CloseCursor::All => c.clear(),
                        CloseCursor::Specific { name } => {
                            c.remove(&name.value);
                        }
                    }
                }
            }
            _ => {}
        }
        if matches!(statement, Statement::Fetch { .. } | Statement::Close { .. }) {
            let hook = datafusion_postgres::hooks::cursor::CursorStatementHook;
            if let Some(resp) = hook
                .handle_simple_query(&statement, &self.ctx, client)
                .await
            {
                return resp;
            }
        }
        let df = self.run_query(client, &statement).await?;
        check_result_formats(format, df.schema().fields().len())?;
        let opts = Arc::new(FormatOptions::from_client_metadata(client.metadata()));
        let fields =
            wire_types::pg_fields(df.schema().as_arrow(), format, Some(opts), names.as_deref())?;
        let resp = wire_types::encode(df, fields).await?;
        // Rows are computed as they are sent (answer() generates then): a cancel request or the
        // statement timeout stops the stream with 57014.
        let resp = until_stopped(resp, self.interrupt.statement());
        let caps = self
            .ctx
            .state_ref()
            .read()
            .config()
            .get_extension::<mitra_sql::memory::ResultCaps>();
        let resp = match caps {
            Some(c) => super::caps::capped(resp, *c),
            None => resp,
        };
        let who = (client.socket_addr(), rewrite::login(client));
        let resp = self.log.watch(resp, who, logged.0, logged.1);
        Ok(Response::Query(floats::postgres_infinity(resp)))
    }

    /// Plans (checking the plan), executes and brings the result to wire types.
    async fn run_query(
        &self,
        client: &dyn HookClient,
        statement: &Statement,
    ) -> PgWireResult<DataFrame> {
        // Where datafusion-postgres' SET hook keeps `statement_timeout`.
        let timeout = client
            .metadata()
            .get("statement_timeout_ms")
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|ms| *ms > 0)
            .map(std::time::Duration::from_millis);
        let stop = self.interrupt.statement();
        if let Some(t) = timeout {
            stop.stop_after(t);
        }
        let work = async {
            let plan = self.parser.plan(statement).await?;
            let df = self.ctx.execute_logical_plan(plan).await.map_err(api_err)?;
            wire_types::normalize(df).map_err(api_err)
        };
        tokio::select! {
            r = work => r,
            why = stop.stopped() => Err(stopped(why)),
        }
    }

    /// `DECLARE name CURSOR FOR query`: runs the query and keeps its result as a portal.
    async fn declare(
        &self,
        client: &mut dyn HookClient,
        d: &datafusion::sql::sqlparser::ast::Declare,
    ) -> PgWireResult<()> {
        let (Some(name), Some(query)) = (d.names.first(), &d.for_query) else {
            return Err(
                FrontError::NotSupported("DECLARE without CURSOR FOR query".into()).into_pg(),
            );
        };
        let df = self
            .run_query(client, &Statement::Query(query.clone()))
            .await?;
        let schema: SchemaRef = Arc::new(df.schema().as_arrow().clone());
        let opts = Arc::new(FormatOptions::from_client_metadata(client.metadata()));
        let fields = wire_types::pg_fields(&schema, &Format::UnifiedText, Some(opts), None)?;
        let resp = floats::postgres_infinity(wire_types::encode(df, fields).await?);
        // The cursor's portal carries its result shape: Describe Portal (psycopg's named
        // cursors) answers with the columns FETCH will return.
        let shape = empty_plan(Some(schema.clone()))?;
        let stored = Arc::new(StoredStatement::new(
            name.value.clone(),
            (
                query.to_string(),
                Some((Statement::Query(query.clone()), shape)),
            ),
            vec![],
        ));
        let portal = Portal::new_cursor(name.value.clone(), stored);
        portal.start(resp).await;
        client.portal_store().put_portal(Arc::new(portal));
        if let Ok(mut c) = self.cursors.lock() {
            c.insert(name.value.clone(), schema);
        }
        Ok(())
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
        let statements = match self.parser.sql_parser.parse(query).map_err(api_err) {
            Ok(s) => s,
            Err(e) => {
                self.log.failed(client, query, None, &e);
                return Err(e);
            }
        };
        if statements.is_empty() {
            return Ok(vec![Response::EmptyQuery]);
        }
        let mut out = Vec::with_capacity(statements.len());
        for statement in statements {
            let text = statement.to_string();
            let logged = (text.clone(), None);
            match self
                .execute(client, statement, &Format::UnifiedText, logged)
                .await
            {
                Ok(r) => out.push(r),
                Err(e) => {
                    self.log.failed(client, &text, None, &e);
                    return Err(e);
                }
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl ExtendedQueryHandler for MitraService {
    type Statement = Prepared;
    type QueryParser = MitraParser;

    fn query_parser(&self) -> Arc<MitraParser> {
        self.parser.clone()
    }

    /// Execute with a bounded row count: `max_rows` ≤ 0 means all rows (as in Postgres), and
    /// a portal is suspended after at most [`MAX_ROWS_PER_EXECUTE`] rows.
    async fn on_execute<C>(&self, client: &mut C, mut message: Execute) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        message.max_rows = if message.max_rows <= 0 {
            0
        } else {
            message.max_rows.min(MAX_ROWS_PER_EXECUTE)
        };
        self._on_execute(client, message).await
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
        let values = params::decode(portal, ast, plan)?;
        let scalars: Vec<_> = match values {
            ParamValues::List(v) => v.into_iter().map(|s| s.value).collect(),
            ParamValues::Map(_) => vec![],
        };
        // Bind and plan again at every execution: retrieval functions search at planning time,
        // so a prepared statement reused after an ingest must not serve its Parse-time results.
        let mut bound = ast.clone();
        let result = match params::bind(&mut bound, &scalars) {
            Ok(()) => {
                let logged = (portal.statement.statement.0.clone(), Some(scalars.clone()));
                self.execute(client, bound, &portal.result_column_format, logged)
                    .await
            }
            Err(m) => Err(FrontError::Protocol(m).into_pg()),
        };
        if let Err(e) = &result {
            self.log
                .failed(client, &portal.statement.statement.0, Some(&scalars), e);
        }
        result
    }
}
