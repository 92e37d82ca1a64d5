//! Connection startup: database name check, then no authentication (loopback) or SCRAM-SHA-256.

use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use futures::{Sink, SinkExt};
use mitra_auth::{Principal, UsersFile, Verifier, SCRAM_ITERATIONS};
use pgwire::api::auth::noop::NoopStartupHandler;
use pgwire::api::auth::sasl::scram::ScramAuth;
use pgwire::api::auth::sasl::SASLAuthStartupHandler;
use pgwire::api::auth::{
    AuthSource, DefaultServerParameterProvider, LoginInfo, Password, StartupHandler,
};
use pgwire::api::{ClientInfo, ConnectionManager};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::startup::ParameterStatus;
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};

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

#[async_trait]
impl AuthSource for UsersSource {
    /// The user's salt and salted password; an unknown user gets a decoy that no password
    /// matches, so the exchange fails the same way as for a wrong password.
    async fn get_password(&self, login: &LoginInfo) -> PgWireResult<Password> {
        let user = login.user().unwrap_or_default();
        let v = self
            .load()
            .verifier(user)
            .unwrap_or_else(|| Verifier::decoy(user, &self.secret));
        Ok(Password::new(Some(v.salt), v.salted_password))
    }
}

/// The startup handler of one connection.
pub enum MitraStartup {
    /// Any user name is accepted (no users configured; loopback only).
    NoAuth(NoAuth),
    /// SCRAM-SHA-256 against the users file.
    Scram(Box<SASLAuthStartupHandler<DefaultServerParameterProvider>>),
}

impl MitraStartup {
    /// No authentication without `users` (decided once, when the server binds); SCRAM-SHA-256
    /// otherwise, for the server's lifetime, whatever later happens to the file (fail closed).
    /// SCRAM keeps per-connection state: one handler per connection.
    pub fn new(users: Option<Arc<UsersSource>>, manager: Arc<ConnectionManager>) -> Self {
        match users {
            None => Self::NoAuth(NoAuth { manager }),
            Some(users) => {
                let mut scram = ScramAuth::new(users);
                scram.set_iterations(SCRAM_ITERATIONS);
                Self::Scram(Box::new(
                    SASLAuthStartupHandler::new(Arc::new(parameters()))
                        .with_scram(scram)
                        .with_connection_manager(manager),
                ))
            }
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
            Self::Scram(h) => match h.on_startup(client, message).await {
                Err(PgWireError::InvalidPassword(_)) => {
                    // The login is the startup user (libpq leaves SCRAM's user name empty).
                    // SCRAM never carries the password: the log names only who and from where.
                    let user = client
                        .metadata()
                        .get(pgwire::api::METADATA_USER)
                        .cloned()
                        .unwrap_or_default();
                    tracing::warn!(%user, peer = %client.socket_addr(), "authentication failed (SQLSTATE 28P01)");
                    Err(PgWireError::UserError(Box::new(ErrorInfo::new(
                        "FATAL".into(),
                        "28P01".into(),
                        format!("password authentication failed for user \"{user}\""),
                    ))))
                }
                r => r,
            },
        }
    }
}
