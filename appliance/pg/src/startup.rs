//! Connection startup: database name check, then no authentication (loopback) or SCRAM-SHA-256
//! against StoredKeys, with channel binding on TLS and a failed-login limit per address.

use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use futures::{Sink, SinkExt};
use mitra_auth::scram::{self, Exchange, ScramError};
use mitra_auth::{LoginThrottle, Principal, UsersFile, Verifier};
use pgwire::api::auth::noop::NoopStartupHandler;
use pgwire::api::auth::{
    finish_authentication, protocol_negotiation, save_startup_parameters_to_metadata,
    DefaultServerParameterProvider, StartupHandler,
};
use pgwire::api::{
    ClientInfo, ConnectionManager, PgWireConnectionState, PidSecretKeyGenerator,
    RandomPidSecretKeyGenerator,
};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::startup::{Authentication, ParameterStatus};
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};
use tokio::sync::Mutex;

use mitra_sql::DATABASE;

/// Accepts any user name (used when no users are configured; loopback only).
pub struct NoAuth {
    manager: Arc<ConnectionManager>,
}

#[async_trait]
impl NoopStartupHandler for NoAuth {
    fn connection_manager(&self) -> Option<Arc<ConnectionManager>> {
        Some(self.manager.clone())
    }

    /// pgwire's no-auth path sends its default parameters; these override them (clients keep
    /// the last value reported for a parameter).
    async fn post_startup<C>(
        &self,
        client: &mut C,
        _message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        for (name, value) in overridden_parameters() {
            client
                .send(PgWireBackendMessage::ParameterStatus(ParameterStatus::new(
                    name.into(),
                    value,
                )))
                .await?;
        }
        Ok(())
    }
}

/// The startup parameters where Mitra differs from pgwire's defaults.
fn overridden_parameters() -> [(&'static str, String); 3] {
    [
        ("server_version", super::version::server_version()),
        ("is_superuser", "off".into()),
        ("default_transaction_read_only", "on".into()),
    ]
}

/// The parameters reported at startup.
fn parameters() -> DefaultServerParameterProvider {
    let mut p = DefaultServerParameterProvider::default();
    p.server_version = super::version::server_version();
    p.is_superuser = false;
    p.default_transaction_read_only = true;
    p
}

/// The users file as the server reads it: reloaded on every login, so `mitra users add` and
/// `remove` take effect without a restart.
#[derive(Debug)]
pub struct UsersSource {
    path: PathBuf,
    /// Server secret for decoy salts of unknown users (stable while the process runs).
    secret: [u8; 32],
}

impl UsersSource {
    /// The users file at `path`.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            secret: rand::random(),
        }
    }

    /// The file's current users (an unreadable file is logged and means nobody can log in).
    pub fn load(&self) -> UsersFile {
        UsersFile::load(&self.path).unwrap_or_else(|e| {
            tracing::error!(error = %e, "users file unreadable; refusing logins");
            UsersFile::default()
        })
    }

    /// Whether any user is configured; an unreadable or invalid file is an error (the server
    /// refuses to start rather than serve without the logins it was given).
    pub fn has_users(&self) -> Result<bool, mitra_auth::AuthError> {
        Ok(!UsersFile::load(&self.path)?.users.is_empty())
    }

    /// The principal of a logged-in user: its groups as the file lists them now.
    pub fn principal(&self, user: &str) -> Principal {
        let groups = self
            .load()
            .users
            .get(user)
            .map(|u| u.groups.clone())
            .unwrap_or_default();
        Principal::User {
            name: user.to_string(),
            groups,
        }
    }
}

impl UsersSource {
    /// The verifier of `user`; an unknown user gets a decoy that no password matches, so the
    /// exchange fails the same way as for a wrong password.
    fn verifier(&self, user: &str) -> Verifier {
        self.load()
            .verifier(user)
            .unwrap_or_else(|| Verifier::decoy(user, &self.secret))
    }
}

/// Process ids and cancel keys of logged-in connections (one counter for the server).
static PIDS: std::sync::LazyLock<RandomPidSecretKeyGenerator> =
    std::sync::LazyLock::new(RandomPidSecretKeyGenerator::default);

/// Where a SCRAM login stands.
enum ScramState {
    /// Waiting for the startup message.
    Initial,
    /// AuthenticationSASL sent; waiting for the SASLInitialResponse.
    Offered,
    /// server-first sent; waiting for the client-final message.
    FirstSent(Box<Exchange>),
}

/// SCRAM-SHA-256 (and SCRAM-SHA-256-PLUS on TLS) against the users file's StoredKeys.
pub struct ScramLogin {
    users: Arc<UsersSource>,
    manager: Arc<ConnectionManager>,
    /// The certificate hash of the server's TLS (channel binding), when it has one.
    end_point: Option<Arc<[u8]>>,
    throttle: Arc<LoginThrottle>,
    state: Mutex<ScramState>,
}

fn fatal(code: &str, message: String) -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "FATAL".into(),
        code.into(),
        message,
    )))
}

impl ScramLogin {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let ip = client.socket_addr().ip();
        let user = client
            .metadata()
            .get(pgwire::api::METADATA_USER)
            .cloned()
            .unwrap_or_default();
        // Channel binding is offered on TLS connections only.
        let end_point = self.end_point.as_deref().filter(|_| client.is_secure());
        let mut state = self.state.lock().await;
        match (message, &*state) {
            (PgWireFrontendMessage::Startup(startup), ScramState::Initial) => {
                protocol_negotiation(client, &startup).await?;
                save_startup_parameters_to_metadata(client, &startup);
                if let Err(wait) = self.throttle.check(ip) {
                    let user = startup.parameters.get("user").cloned().unwrap_or_default();
                    tracing::warn!(%user, peer = %client.socket_addr(), "login refused: too many failed logins from this address (SQLSTATE 28000)");
                    return Err(fatal(
                        "28000",
                        format!(
                            "too many failed logins from {ip}; try again in {} s",
                            wait.as_secs().max(1)
                        ),
                    ));
                }
                client.set_state(PgWireConnectionState::AuthenticationInProgress);
                client
                    .send(PgWireBackendMessage::Authentication(Authentication::SASL(
                        scram::mechanisms(end_point),
                    )))
                    .await?;
                *state = ScramState::Offered;
                Ok(())
            }
            (PgWireFrontendMessage::PasswordMessageFamily(msg), ScramState::Offered) => {
                let initial = msg.into_sasl_initial_response()?;
                let data = initial.data.as_deref().unwrap_or_default();
                let (first, exchange) = scram::server_first(
                    &initial.auth_method,
                    data,
                    self.users.verifier(&user),
                    end_point,
                    &scram::random_nonce(),
                )
                .map_err(|e| self.refused(&user, client.socket_addr(), e))?;
                client
                    .send(PgWireBackendMessage::Authentication(
                        Authentication::SASLContinue(first.into_bytes().into()),
                    ))
                    .await?;
                *state = ScramState::FirstSent(Box::new(exchange));
                Ok(())
            }
            (PgWireFrontendMessage::PasswordMessageFamily(msg), ScramState::FirstSent(ex)) => {
                let response = msg.into_sasl_response()?;
                let last = ex
                    .finish(&response.data)
                    .map_err(|e| self.refused(&user, client.socket_addr(), e))?;
                *state = ScramState::Initial;
                self.throttle.succeeded(ip);
                client
                    .send(PgWireBackendMessage::Authentication(
                        Authentication::SASLFinal(last.into_bytes().into()),
                    ))
                    .await?;
                let (pid, secret) = PIDS.generate(client);
                client.set_pid_and_secret_key(pid, secret.clone());
                // Cancel requests find the connection through pgwire's manager.
                let (handle, guard) = self.manager.register(pid, secret);
                client.session_extensions().insert(handle);
                client.session_extensions().insert(guard);
                finish_authentication(client, &parameters()).await
            }
            _ => Err(fatal(
                "08P01",
                "unexpected message during authentication".into(),
            )),
        }
    }

    /// The error of a failed exchange; a wrong proof counts against the address.
    fn refused(&self, user: &str, peer: std::net::SocketAddr, e: ScramError) -> PgWireError {
        match e {
            ScramError::InvalidProof => {
                self.throttle.failed(peer.ip());
                // SCRAM never carries the password: the log names only who and from where.
                tracing::warn!(%user, %peer, "authentication failed (SQLSTATE 28P01)");
                fatal(
                    "28P01",
                    format!("password authentication failed for user \"{user}\""),
                )
            }
            ScramError::Protocol(m) => {
                self.throttle.failed(peer.ip());
                tracing::warn!(%user, %peer, message = %m, "authentication failed (SQLSTATE 08P01)");
                fatal("08P01", m)
            }
        }
    }
}

/// The startup handler of one connection.
pub enum MitraStartup {
    /// Any user name is accepted (no users configured; loopback only).
    NoAuth(NoAuth),
    /// SCRAM-SHA-256 against the users file.
    Scram(Box<ScramLogin>),
}

impl MitraStartup {
    /// No authentication without `users` (decided once, when the server binds); SCRAM-SHA-256
    /// otherwise, for the server's lifetime, whatever later happens to the file (fail closed).
    /// SCRAM keeps per-connection state: one handler per connection.
    pub fn new(
        users: Option<Arc<UsersSource>>,
        manager: Arc<ConnectionManager>,
        end_point: Option<Arc<[u8]>>,
        throttle: Arc<LoginThrottle>,
    ) -> Self {
        match users {
            None => Self::NoAuth(NoAuth { manager }),
            Some(users) => Self::Scram(Box::new(ScramLogin {
                users,
                manager,
                end_point,
                throttle,
                state: Mutex::new(ScramState::Initial),
            })),
        }
    }
}

#[async_trait]
impl StartupHandler for MitraStartup {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if let PgWireFrontendMessage::Startup(ref startup) = message {
            if let Some(db) = startup.parameters.get("database") {
                if db != DATABASE {
                    return Err(PgWireError::UserError(Box::new(ErrorInfo::new(
                        "FATAL".into(),
                        "3D000".into(),
                        format!("database \"{db}\" does not exist; Mitra serves the database \"{DATABASE}\""),
                    ))));
                }
            }
        }
        match self {
            Self::NoAuth(h) => h.on_startup(client, message).await,
            // The login is the startup user (libpq leaves SCRAM's user name empty).
            Self::Scram(h) => h.on_startup(client, message).await,
        }
    }
}
