//! What stops a running statement: the client's cancel request, the statement timeout, or the
//! client going away; one per connection, shared by the wire front and the SQL functions.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Why a statement was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// A cancel request (psql's Ctrl-C, JDBC's `Statement.cancel()`).
    Cancelled,
    /// `statement_timeout` elapsed.
    Timeout,
    /// The client disconnected.
    Gone,
}

impl Stop {
    /// The message PostgreSQL gives (SQLSTATE 57014 for the first two).
    pub fn message(self) -> &'static str {
        match self {
            Stop::Cancelled => "canceling statement due to user request",
            Stop::Timeout => "canceling statement due to statement timeout",
            Stop::Gone => "the client disconnected",
        }
    }
}

/// One connection's interrupts: the statement running now can be stopped, and every statement
/// stops when the connection is gone.
#[derive(Debug, Default)]
pub struct Interrupt {
    gone: CancellationToken,
    current: Mutex<Option<Statement>>,
}

/// The interrupt of one statement (cheap to clone; every clone sees the same stop).
#[derive(Debug, Clone)]
pub struct Statement {
    token: CancellationToken,
    why: Arc<Mutex<Option<Stop>>>,
    /// Cancelled when the next statement begins (ends its timeout timer).
    done: CancellationToken,
}

impl Interrupt {
    /// A connection's interrupts.
    pub fn new() -> Arc<Interrupt> {
        Arc::new(Interrupt::default())
    }

    /// A new statement starts: what stops it from now on.
    pub fn begin(&self) -> Statement {
        let s = Statement {
            token: self.gone.child_token(),
            why: Arc::default(),
            done: CancellationToken::new(),
        };
        if let Ok(mut c) = self.current.lock() {
            if let Some(old) = c.replace(s.clone()) {
                old.done.cancel();
            }
        }
        s
    }

    /// The running statement's interrupt (a fresh one if none has begun).
    pub fn statement(&self) -> Statement {
        let cur = self.current.lock().ok().and_then(|c| c.clone());
        cur.unwrap_or_else(|| self.begin())
    }

    /// A cancel request for this connection: stops the running statement, if any.
    pub fn cancel(&self) {
        if let Some(s) = self.current.lock().ok().and_then(|c| c.clone()) {
            s.stop(Stop::Cancelled);
        }
    }

    /// The client is gone: every statement of the connection stops.
    pub fn gone(&self) {
        self.gone.cancel();
    }

    /// Resolves when the client is gone.
    pub async fn is_gone(&self) {
        self.gone.cancelled().await
    }
}

impl Statement {
    /// Stops the statement (the first reason given is kept).
    pub fn stop(&self, why: Stop) {
        if let Ok(mut w) = self.why.lock() {
            w.get_or_insert(why);
        }
        self.token.cancel();
    }

    /// Stops the statement with [`Stop::Timeout`] after `after`, unless it was stopped or the
    /// connection's next statement began before (rows of a suspended portal fetched later are
    /// not timed).
    pub fn stop_after(&self, after: Duration) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let s = self.clone();
        rt.spawn(async move {
            tokio::select! {
                _ = tokio::time::sleep(after) => s.stop(Stop::Timeout),
                _ = s.token.cancelled() => {}
                _ = s.done.cancelled() => {}
            }
        });
    }

    /// Whether it has been stopped.
    pub fn is_stopped(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Resolves, with the reason, when the statement is stopped.
    pub async fn stopped(&self) -> Stop {
        self.token.cancelled().await;
        self.why.lock().ok().and_then(|w| *w).unwrap_or(Stop::Gone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cancel_stops_the_running_statement_only() {
        let i = Interrupt::new();
        i.cancel(); // nothing running: nothing happens
        let first = i.begin();
        assert!(!first.is_stopped());
        i.cancel();
        assert_eq!(first.stopped().await, Stop::Cancelled);
        let second = i.begin();
        assert!(!second.is_stopped());
        second.stop_after(Duration::from_millis(10));
        assert_eq!(second.stopped().await, Stop::Timeout);
        // A later cancel does not rename the reason.
        second.stop(Stop::Cancelled);
        assert_eq!(second.stopped().await, Stop::Timeout);
        let third = i.begin();
        i.gone();
        assert_eq!(third.stopped().await, Stop::Gone);
        assert!(i.begin().is_stopped());
    }
}
