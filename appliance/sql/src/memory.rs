//! Query memory: one pool for the whole server, shared fairly among spilling operators, and a
//! limit per session on top of it.
//!
//! The server's pool is DataFusion's `FairSpillPool` (each spilling consumer gets an equal share
//! of what unspillable ones leave; sorts and aggregates spill to disk instead of failing). Each
//! session draws from it through a [`SessionPool`] that also holds it to
//! `limits.max_query_memory_mb`. A statement that cannot get its memory ends with
//! `ResourcesExhausted` (SQLSTATE 53200); other sessions and the server carry on.

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{
    FairSpillPool, MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation, TrackConsumersPool,
};
use mitra_store::config::LimitsConfig;

const MIB: usize = 1024 * 1024;

/// The server's query memory when `limits.server_memory_mb` is 0: 40% of the machine's
/// memory (the rest for the models, Lance's caches and the system), at least 256 MiB.
pub fn auto_server_memory() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
            .map(|kb| kb * 1024)
    });
    match total {
        Some(bytes) => (bytes / 5 * 2).max(256 * MIB),
        None => 4096 * MIB,
    }
}

/// The server's pool size in bytes under `limits`.
pub fn server_memory(limits: &LimitsConfig) -> usize {
    match limits.server_memory_mb {
        0 => auto_server_memory(),
        mb => mb.saturating_mul(MIB),
    }
}

/// A session's view of the server's pool: what it reserves counts against both the server's
/// pool and the session's own limit.
pub struct SessionPool {
    server: Arc<dyn MemoryPool>,
    server_bytes: usize,
    limit: usize,
    used: AtomicUsize,
}

impl fmt::Debug for SessionPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SessionPool(used: {}, limit: {}, server: {})",
            self.used.load(Ordering::Relaxed),
            self.limit,
            self.server_bytes
        )
    }
}

impl fmt::Display for SessionPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl SessionPool {
    /// The server's pool for `limits` and the first session on it.
    pub fn for_server(limits: &LimitsConfig) -> Self {
        let server_bytes = server_memory(limits);
        let top = NonZeroUsize::new(3).expect("3 is not zero");
        Self {
            server: Arc::new(TrackConsumersPool::new(
                FairSpillPool::new(server_bytes),
                top,
            )),
            server_bytes,
            limit: limits
                .max_query_memory_mb
                .saturating_mul(MIB)
                .min(server_bytes),
            used: AtomicUsize::new(0),
        }
    }

    /// Another session on the same server pool, with the same limit and nothing reserved.
    pub fn sibling(&self) -> Self {
        Self {
            server: self.server.clone(),
            server_bytes: self.server_bytes,
            limit: self.limit,
            used: AtomicUsize::new(0),
        }
    }

    /// Bytes reserved on the whole server.
    pub fn server_reserved(&self) -> usize {
        self.server.reserved()
    }
}

impl MemoryPool for SessionPool {
    fn name(&self) -> &str {
        "session"
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.server.register(consumer)
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.server.unregister(consumer)
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.used.fetch_add(additional, Ordering::Relaxed);
        self.server.grow(reservation, additional)
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.used.fetch_sub(shrink, Ordering::Relaxed);
        self.server.shrink(reservation, shrink)
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        let used = self.used.load(Ordering::Relaxed);
        if used + additional > self.limit {
            return Err(DataFusionError::ResourcesExhausted(format!(
                "the statement needs more memory than one session may use \
                 (limits.max_query_memory_mb = {} MiB; {} consumed it); sorts and aggregates \
                 spill to disk, but this operator cannot",
                self.limit / MIB,
                reservation.consumer().name()
            )));
        }
        self.server
            .try_grow(reservation, additional)
            .map_err(|e| match e {
                DataFusionError::ResourcesExhausted(m) => {
                    DataFusionError::ResourcesExhausted(format!(
                        "the server's query memory (limits.server_memory_mb = {} MiB, shared \
                         by all sessions) cannot hold this statement now: {m}",
                        self.server_bytes / MIB
                    ))
                }
                other => other,
            })?;
        self.used.fetch_add(additional, Ordering::Relaxed);
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    fn memory_limit(&self) -> MemoryLimit {
        MemoryLimit::Finite(self.limit)
    }
}

/// The most a statement may return on the wire (a session-config extension of every session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultCaps {
    /// Rows (0: no limit).
    pub rows: u64,
    /// Bytes of row data (0: no limit).
    pub bytes: u64,
}

impl ResultCaps {
    /// The caps of `limits`.
    pub fn new(limits: &LimitsConfig) -> Self {
        Self {
            rows: limits.max_result_rows,
            bytes: limits.max_result_mb.saturating_mul(MIB as u64),
        }
    }
}
