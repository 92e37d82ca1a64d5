//! Cancel requests (psql's Ctrl-C, JDBC's `Statement.cancel()`): the connection named by the
//! request's process id and secret key has its running statement stopped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use async_trait::async_trait;
use bytes::Bytes;
use pgwire::api::cancel::{CancelHandler, DefaultCancelHandler};
use pgwire::api::ConnectionManager;
use pgwire::messages::cancel::CancelRequest;
use pgwire::messages::startup::SecretKey;

use mitra_sql::interrupt::Interrupt;

type Key = (i32, Bytes);

/// The server's connections by the key their clients were given at startup.
#[derive(Debug, Default)]
pub struct Connections {
    by_key: Mutex<HashMap<Key, Weak<Interrupt>>>,
}

/// Removes a connection from [`Connections`] when it ends.
pub struct Registered {
    connections: Arc<Connections>,
    key: Key,
}

impl Connections {
    /// Registers a connection's interrupts under its process id and secret key.
    pub fn register(
        self: &Arc<Self>,
        pid: i32,
        secret: &SecretKey,
        interrupt: &Arc<Interrupt>,
    ) -> Registered {
        let key = (pid, secret.to_bytes());
        if let Ok(mut m) = self.by_key.lock() {
            m.insert(key.clone(), Arc::downgrade(interrupt));
        }
        Registered {
            connections: self.clone(),
            key,
        }
    }

    fn get(&self, pid: i32, secret: &SecretKey) -> Option<Arc<Interrupt>> {
        let m = self.by_key.lock().ok()?;
        m.get(&(pid, secret.to_bytes())).and_then(Weak::upgrade)
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut m) = self.connections.by_key.lock() {
            m.remove(&self.key);
        }
    }
}

/// Stops the named connection's statement, wherever it is: planning (pgwire's own handle),
/// sending rows, or generating an answer. A request naming no connection does nothing, as in
/// PostgreSQL.
pub struct MitraCancel {
    planning: DefaultCancelHandler,
    connections: Arc<Connections>,
}

impl MitraCancel {
    /// The handler over pgwire's connection manager and Mitra's connections.
    pub fn new(manager: Arc<ConnectionManager>, connections: Arc<Connections>) -> Self {
        Self {
            planning: DefaultCancelHandler::new(manager),
            connections,
        }
    }
}

#[async_trait]
impl CancelHandler for MitraCancel {
    async fn on_cancel_request(&self, req: CancelRequest) {
        if let Some(i) = self.connections.get(req.pid, &req.secret_key) {
            tracing::info!(pid = req.pid, "cancel request");
            i.cancel();
        }
        self.planning.on_cancel_request(req).await;
    }
}
