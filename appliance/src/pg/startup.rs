//! Connection startup: database name check, then no authentication (loopback) or passwords.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;
use futures::{Sink, SinkExt};
use pgwire::api::auth::cleartext::CleartextPasswordAuthStartupHandler;
use pgwire::api::auth::noop::NoopStartupHandler;
use pgwire::api::auth::{
    AuthSource, DefaultServerParameterProvider, LoginInfo, Password, StartupHandler,
};
use pgwire::api::{ClientInfo, ConnectionManager};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::startup::ParameterStatus;
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};

use crate::sql::DATABASE;

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

/// Passwords from the `[server.users]` config table.
#[derive(Debug)]
pub struct ConfigUsers(BTreeMap<String, String>);

#[async_trait]
impl AuthSource for ConfigUsers {
    async fn get_password(&self, login: &LoginInfo) -> PgWireResult<Password> {
        let user = login.user().unwrap_or_default();
        match self.0.get(user) {
            Some(p) => Ok(Password::new(None, p.as_bytes().to_vec())),
            None => Err(PgWireError::InvalidPassword(user.to_string())),
        }
    }
}

/// The startup handler of the Mitra server.
pub enum MitraStartup {
    /// Any user name is accepted.
    NoAuth(NoAuth),
    /// Cleartext password checked against the configured users.
    Password(Box<CleartextPasswordAuthStartupHandler<ConfigUsers, DefaultServerParameterProvider>>),
}

impl MitraStartup {
    /// No authentication when `users` is empty, cleartext passwords otherwise.
    pub fn new(users: BTreeMap<String, String>, manager: Arc<ConnectionManager>) -> Self {
        if users.is_empty() {
            Self::NoAuth(NoAuth { manager })
        } else {
            Self::Password(Box::new(
                CleartextPasswordAuthStartupHandler::new(ConfigUsers(users), parameters())
                    .with_connection_manager(manager),
            ))
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
            Self::Password(h) => h.on_startup(client, message).await,
        }
    }
}
