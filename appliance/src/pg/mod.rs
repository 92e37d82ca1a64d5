//! The Postgres wire protocol front end: startup/auth, query handlers, SQLSTATE mapping.

mod errors;
mod handler;
mod params;
mod session_cmds;
mod startup;

use std::net::SocketAddr;
use std::sync::Arc;

use datafusion::prelude::SessionContext;
use datafusion_postgres::datafusion_pg_catalog::pg_catalog::context::EmptyContextProvider;
use datafusion_postgres::datafusion_pg_catalog::pg_catalog::setup_pg_catalog;
use pgwire::api::cancel::DefaultCancelHandler;
use pgwire::api::{ConnectionManager, PgWireServerHandlers};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

pub use errors::{classify, error_info, SqlStateErrors};
pub use handler::MitraService;
pub use startup::MitraStartup;

use crate::config::ServerConfig;
use crate::error::AppError;
use crate::sql::DATABASE;

/// All pgwire handlers of one server.
pub struct MitraHandlers {
    service: Arc<MitraService>,
    startup: Arc<MitraStartup>,
    cancel: Arc<DefaultCancelHandler>,
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

/// Refuses to serve a non-loopback address without authentication.
pub fn check_listen(addr: &SocketAddr, cfg: &ServerConfig) -> Result<(), AppError> {
    if !addr.ip().is_loopback() && cfg.users.is_empty() {
        return Err(AppError::Server(format!(
            "refusing to serve {addr} without authentication: only loopback addresses may be served \
             without users. Add a [server.users] table to the config (name = \"password\"), or \
             listen on 127.0.0.1"
        )));
    }
    Ok(())
}

/// A bound server, ready to accept connections.
pub struct Server {
    listener: TcpListener,
    handlers: Arc<MitraHandlers>,
    limiter: Option<Arc<Semaphore>>,
}

impl Server {
    /// Binds `cfg.listen` (port 0 picks a free port) and prepares the handlers over `ctx`.
    pub async fn bind(ctx: SessionContext, cfg: &ServerConfig) -> Result<Self, AppError> {
        let addr: SocketAddr = tokio::net::lookup_host(&cfg.listen)
            .await
            .map_err(|e| AppError::Server(format!("cannot resolve {}: {e}", cfg.listen)))?
            .next()
            .ok_or_else(|| AppError::Server(format!("{} resolves to no address", cfg.listen)))?;
        check_listen(&addr, cfg)?;
        setup_pg_catalog(&ctx, DATABASE, EmptyContextProvider)
            .map_err(|e| AppError::Server(format!("pg_catalog setup: {e}")))?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| AppError::Server(format!("cannot listen on {addr}: {e}")))?;
        let manager = Arc::new(ConnectionManager::new());
        let handlers = Arc::new(MitraHandlers {
            service: Arc::new(MitraService::new(Arc::new(ctx))),
            startup: Arc::new(MitraStartup::new(cfg.users.clone(), manager.clone())),
            cancel: Arc::new(DefaultCancelHandler::new(manager)),
        });
        let limiter =
            (cfg.max_connections > 0).then(|| Arc::new(Semaphore::new(cfg.max_connections)));
        Ok(Self {
            listener,
            handlers,
            limiter,
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
                        tracing::warn!(%peer, "connection refused: server.max_connections reached");
                        continue;
                    }
                },
                None => None,
            };
            let handlers = self.handlers.clone();
            tokio::spawn(async move {
                let _permit = permit;
                tracing::debug!(%peer, "connection");
                if let Err(e) = pgwire::tokio::process_socket(socket, None, handlers).await {
                    tracing::debug!(%peer, error = %e, "connection ended with error");
                }
            });
        }
    }
}
