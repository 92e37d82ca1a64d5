//! The Postgres wire protocol front end: startup/auth, query handlers, SQLSTATE mapping.

mod array_exists;
mod ast;
mod cancel;
mod caps;
mod catalog;
mod copy;
mod division;
mod errors;
mod explain;
mod floats;
mod frames;
mod guard;
mod handler;
mod number_format;
mod params;
mod parse;
mod rewrite;
mod scope_cmds;
mod session_cmds;
mod single_row;
mod startup;
mod subquery;
mod templates;
mod tls;
mod type_queries;
mod version;
mod wire_types;

use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

use futures::FutureExt;
use std::sync::Arc;

use datafusion::prelude::SessionContext;
use datafusion_postgres::datafusion_pg_catalog::pg_catalog::context::EmptyContextProvider;
use datafusion_postgres::datafusion_pg_catalog::pg_catalog::setup_pg_catalog;
use pgwire::api::{ConnectionManager, PgWireServerHandlers};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

pub use catalog::{pg_type, MitraFunction, PgType, FUNCTIONS};
pub use errors::{classify, error_info, FrontError, ServerError, SqlStateErrors};
pub use handler::MitraService;
pub use startup::{MitraStartup, UsersSource};

use mitra_sql::interrupt::Interrupt;
use mitra_store::analyses::{Principal, SessionAccess};
pub use version::{server_version, version_string};

use mitra_sql::DATABASE;
use mitra_store::config::ServerConfig;

/// All pgwire handlers of one server.
pub struct MitraHandlers {
    service: Arc<MitraService>,
    startup: Arc<MitraStartup>,
    cancel: Arc<cancel::MitraCancel>,
    /// The connection's interrupts (cancel requests, statement timeout, disconnect).
    interrupt: Arc<Interrupt>,
    /// Where cancel requests find the connection.
    connections: Arc<cancel::Connections>,
    /// `server.idle_session_timeout_s`: an idle session (outside a transaction) is closed.
    idle_timeout: Option<std::time::Duration>,
}

impl PgWireServerHandlers for MitraHandlers {
    fn simple_query_handler(&self) -> Arc<impl pgwire::api::query::SimpleQueryHandler> {
        self.service.clone()
    }

    fn extended_query_handler(&self) -> Arc<impl pgwire::api::query::ExtendedQueryHandler> {
        self.service.clone()
    }

    fn startup_handler(&self) -> Arc<impl pgwire::api::auth::StartupHandler> {
        self.startup.clone()
    }

    fn error_handler(&self) -> Arc<impl pgwire::api::ErrorHandler> {
        Arc::new(SqlStateErrors)
    }

    fn cancel_handler(&self) -> Arc<impl pgwire::api::cancel::CancelHandler> {
        self.cancel.clone()
    }
}

/// Whether the users file names any user; an unreadable or invalid file is an error.
fn users_configured(cfg: &ServerConfig) -> Result<bool, ServerError> {
    match &cfg.users_file {
        Some(p) => UsersSource::new(p.clone())
            .has_users()
            .map_err(|e| ServerError(e.to_string())),
        None => Ok(false),
    }
}

/// Refuses to serve a non-loopback address without authentication.
pub fn check_listen(addr: &SocketAddr, cfg: &ServerConfig) -> Result<(), ServerError> {
    refuse_unauthenticated(addr, users_configured(cfg)?)
}

fn refuse_unauthenticated(addr: &SocketAddr, logins: bool) -> Result<(), ServerError> {
    if !addr.ip().is_loopback() && !logins {
        return Err(ServerError(format!(
            "refusing to serve {addr} without authentication: only loopback addresses may be served \
             without users. Add users with `mitra users add NAME --groups G`, or listen on 127.0.0.1"
        )));
    }
    Ok(())
}

/// Rewrites a users file that still holds SaltedPasswords (Mitra's first format, from which a
/// login can be made) as StoredKey/ServerKey verifiers; refuses to start when it cannot.
fn migrate_users(cfg: &ServerConfig) -> Result<(), ServerError> {
    let Some(path) = &cfg.users_file else {
        return Ok(());
    };
    let file = mitra_auth::UsersFile::load(path).map_err(|e| ServerError(e.to_string()))?;
    if file.converted == 0 {
        return Ok(());
    }
    file.save(path).map_err(|e| {
        ServerError(format!(
            "the users file holds {} verifier(s) in Mitra's first format (SaltedPassword, which \
             logs in if the file is stolen) and cannot be rewritten: {e}. Run `mitra users list` \
             as the file's owner to convert it",
            file.converted
        ))
    })?;
    tracing::warn!(
        converted = file.converted,
        "users file: SaltedPassword verifiers rewritten as StoredKey/ServerKey (PostgreSQL's form)"
    );
    Ok(())
}

/// Connections refused with 53300 at the same time, at most (each waits for its client's
/// startup packet, up to the startup timeout).
const MAX_REFUSALS: usize = 64;

/// A bound server, ready to accept connections.
pub struct Server {
    listener: TcpListener,
    base: SessionContext,
    users: Option<Arc<UsersSource>>,
    manager: Arc<ConnectionManager>,
    cancel: Arc<cancel::MitraCancel>,
    connections: Arc<cancel::Connections>,
    limiter: Option<Arc<Semaphore>>,
    log: handler::FailureLog,
    tls: Option<Arc<tls::Tls>>,
    throttle: Arc<mitra_auth::LoginThrottle>,
    idle_timeout: Option<std::time::Duration>,
    /// Connections being refused (53300) at once; beyond it they are dropped unanswered.
    refusals: Arc<Semaphore>,
}

/// A connection's own session: the server's tables and functions, its own settings, and its
/// own reader and scope (a user with no groups until its login is known).
fn connection_session(
    base: &SessionContext,
    auth: bool,
    interrupt: &Arc<Interrupt>,
) -> SessionContext {
    // The connection's own share of the server's query memory, under the per-session limit.
    let base_rt = base.runtime_env();
    let state = match base_rt
        .memory_pool
        .downcast_ref::<mitra_sql::memory::SessionPool>()
        .map(|p| {
            datafusion::execution::runtime_env::RuntimeEnvBuilder::from_runtime_env(&base_rt)
                .with_memory_pool(Arc::new(p.sibling()))
                .build_arc()
        }) {
        Some(Ok(rt)) => datafusion::execution::SessionStateBuilder::new_from_existing(base.state())
            .with_runtime_env(rt)
            .build(),
        _ => base.state(),
    };
    let mut state = state;
    let principal = if auth {
        Principal::nobody()
    } else {
        Principal::Operator
    };
    let access = Arc::new(SessionAccess::new(principal));
    state.config_mut().set_extension(access.clone());
    state
        .config_mut()
        .set_extension(Arc::new(catalog::SessionLogin::default()));
    // answer_from() records who asked and stops when the statement is stopped: bind it to
    // this connection's reader and interrupts.
    let bound = state
        .aggregate_functions()
        .get("answer_from")
        .and_then(|f| {
            f.inner()
                .downcast_ref::<mitra_sql::AnswerFromFunction>()
                .map(|a| a.for_session(access.clone(), interrupt.clone()))
        });
    if let Some(f) = bound {
        let _ = datafusion::execution::FunctionRegistry::register_udaf(&mut state, Arc::new(f));
    }
    // rerank() likewise stops with the statement.
    let rerank = state.scalar_functions().get("rerank").and_then(|f| {
        f.inner()
            .downcast_ref::<mitra_sql::RerankFunction>()
            .map(|r| r.for_session(interrupt.clone()))
    });
    if let Some(f) = rerank {
        let _ = datafusion::execution::FunctionRegistry::register_udf(&mut state, Arc::new(f));
    }
    SessionContext::new_with_state(state)
}

impl Server {
    /// Binds `cfg.listen` (port 0 picks a free port) and prepares the handlers over `ctx`.
    pub async fn bind(ctx: SessionContext, cfg: &ServerConfig) -> Result<Self, ServerError> {
        let addr: SocketAddr = tokio::net::lookup_host(&cfg.listen)
            .await
            .map_err(|e| ServerError(format!("cannot resolve {}: {e}", cfg.listen)))?
            .next()
            .ok_or_else(|| ServerError(format!("{} resolves to no address", cfg.listen)))?;
        // Logins are required for the server's lifetime when users exist now.
        migrate_users(cfg)?;
        let logins = users_configured(cfg)?;
        refuse_unauthenticated(&addr, logins)?;
        // A missing or invalid certificate or key stops the server here (fail closed).
        let tls = tls::load(cfg)?;
        if tls.is_none() && logins && !addr.ip().is_loopback() {
            tracing::warn!(
                %addr,
                "serving logins on a non-loopback address without TLS: questions, answers and \
                 passages cross the network in clear. Set server.tls = \"required\" with \
                 server.tls_cert and server.tls_key"
            );
        }
        setup_pg_catalog(&ctx, DATABASE, EmptyContextProvider)
            .map_err(|e| ServerError(format!("pg_catalog setup: {e}")))?;
        catalog::install(&ctx, DATABASE)?;
        ctx.register_udaf(single_row::SingleRowValue::udaf());
        division::register(&ctx);
        // `information_schema` is Mitra's overlay (a schema of the catalog), not DataFusion's
        // built-in one, which the session would otherwise answer first.
        ctx.state_ref()
            .write()
            .config_mut()
            .options_mut()
            .catalog
            .information_schema = false;
        version::register(&ctx);
        install_panic_hook();
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| ServerError(format!("cannot listen on {addr}: {e}")))?;
        let manager = Arc::new(ConnectionManager::new());
        let connections = Arc::new(cancel::Connections::default());
        let limiter =
            (cfg.max_connections > 0).then(|| Arc::new(Semaphore::new(cfg.max_connections)));
        Ok(Self {
            listener,
            base: ctx,
            users: match (&cfg.users_file, logins) {
                (Some(p), true) => Some(Arc::new(UsersSource::new(p.clone()))),
                _ => None,
            },
            manager: manager.clone(),
            cancel: Arc::new(cancel::MitraCancel::new(manager, connections.clone())),
            connections,
            limiter,
            log: handler::FailureLog {
                statement_chars: cfg.log_statement_chars,
                parameters: cfg.log_parameters,
            },
            tls,
            throttle: Arc::new(mitra_auth::LoginThrottle::new(
                cfg.login_max_failures,
                std::time::Duration::from_secs(cfg.login_lockout_s),
            )),
            idle_timeout: (cfg.idle_session_timeout_s > 0)
                .then(|| std::time::Duration::from_secs(cfg.idle_session_timeout_s)),
            refusals: Arc::new(Semaphore::new(MAX_REFUSALS)),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("bound listener has an address")
    }

    /// Accepts connections until the task is dropped.
    pub async fn run(self) {
        loop {
            let (socket, peer) = match self.listener.accept().await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    continue;
                }
            };
            let permit = match &self.limiter {
                Some(sem) => match sem.clone().try_acquire_owned() {
                    Ok(p) => Some(p),
                    Err(_) => {
                        tracing::warn!(%peer, "connection refused: server.max_connections reached (SQLSTATE 53300)");
                        if let Ok(p) = self.refusals.clone().try_acquire_owned() {
                            let tls = self.tls.clone();
                            tokio::spawn(async move {
                                let _p = p;
                                let _ = frames::refuse(
                                    socket,
                                    peer,
                                    tls,
                                    "53300",
                                    "sorry, too many clients already (server.max_connections)",
                                )
                                .await;
                            });
                        }
                        continue;
                    }
                },
                None => None,
            };
            let startup = MitraStartup::new(
                self.users.clone(),
                self.manager.clone(),
                self.tls.as_ref().and_then(|t| t.end_point.clone()),
                self.throttle.clone(),
            );
            let interrupt = Interrupt::new();
            let ctx = Arc::new(connection_session(
                &self.base,
                self.users.is_some(),
                &interrupt,
            ));
            let handlers = Arc::new(MitraHandlers {
                service: Arc::new(MitraService::new(
                    ctx,
                    self.users.clone(),
                    interrupt.clone(),
                    self.log,
                )),
                startup: Arc::new(startup),
                cancel: self.cancel.clone(),
                interrupt,
                connections: self.connections.clone(),
                idle_timeout: self.idle_timeout,
            });
            let tls = self.tls.clone();
            tokio::spawn(async move {
                let _permit = permit;
                tracing::debug!(%peer, "connection");
                let session = SESSION.scope(
                    peer,
                    AssertUnwindSafe(frames::serve(socket, peer, handlers, tls)).catch_unwind(),
                );
                match session.await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::debug!(%peer, error = %e, "connection ended with error"),
                    // Logged once, in one line, by the panic hook; only this client is affected.
                    Err(_) => tracing::debug!(%peer, "connection closed after a panic"),
                }
            });
        }
    }
}

tokio::task_local! {
    /// The peer of the connection a task serves (for the panic hook's log line).
    static SESSION: SocketAddr;
}

static PANICS: AtomicU64 = AtomicU64::new(0);

/// Panics caught in connection tasks since the process started.
pub fn connection_panics() -> u64 {
    PANICS.load(Ordering::Relaxed)
}

/// A panic inside a connection task is logged in one line with its session (no backtrace);
/// the task's `catch_unwind` closes that connection only. Other panics keep the default hook.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| match SESSION.try_with(|p| *p) {
            Ok(peer) => {
                PANICS.fetch_add(1, Ordering::Relaxed);
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                let location = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                tracing::error!(%peer, %location, %message, "panic in a connection task; connection closed");
            }
            Err(_) => default(info),
        }));
    });
}
