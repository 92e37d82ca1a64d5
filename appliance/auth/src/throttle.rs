//! The failed-login limit: a peer address that fails too many logins in a window is refused
//! for a while, before any password exchange.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Addresses remembered at most; beyond it, entries that no longer matter are dropped.
const MAX_PEERS: usize = 4096;

#[derive(Debug, Clone, Copy)]
struct Entry {
    failures: u32,
    since: Instant,
    locked_until: Option<Instant>,
}

/// Failed logins per peer address: `max_failures` failures within `lockout` lock the address
/// out for `lockout`. A successful login clears the address's count.
#[derive(Debug)]
pub struct LoginThrottle {
    max_failures: u32,
    lockout: Duration,
    peers: Mutex<HashMap<IpAddr, Entry>>,
}

impl LoginThrottle {
    /// A limit of `max_failures` (0: no limit) per `lockout`.
    pub fn new(max_failures: u32, lockout: Duration) -> Self {
        Self {
            max_failures,
            lockout,
            peers: Mutex::new(HashMap::new()),
        }
    }

    fn peers(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Entry>> {
        self.peers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `Err(wait)` while `ip` is locked out.
    pub fn check(&self, ip: IpAddr) -> Result<(), Duration> {
        self.check_at(ip, Instant::now())
    }

    fn check_at(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        match self.peers().get(&ip).and_then(|e| e.locked_until) {
            Some(until) if until > now => Err(until - now),
            _ => Ok(()),
        }
    }

    /// Records a failed login from `ip`.
    pub fn failed(&self, ip: IpAddr) {
        self.failed_at(ip, Instant::now())
    }

    fn failed_at(&self, ip: IpAddr, now: Instant) {
        if self.max_failures == 0 {
            return;
        }
        let lockout = self.lockout;
        let mut peers = self.peers();
        if peers.len() >= MAX_PEERS {
            peers.retain(|_, e| {
                e.locked_until.is_some_and(|u| u > now) || now.duration_since(e.since) < lockout
            });
        }
        let e = peers.entry(ip).or_insert(Entry {
            failures: 0,
            since: now,
            locked_until: None,
        });
        if now.duration_since(e.since) >= lockout {
            e.failures = 0;
            e.since = now;
        }
        e.failures += 1;
        if e.failures >= self.max_failures {
            e.locked_until = Some(now + lockout);
            e.failures = 0;
            e.since = now;
        }
    }

    /// Records a successful login from `ip`: its failures are forgotten.
    pub fn succeeded(&self, ip: IpAddr) {
        self.peers().remove(&ip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_out_after_the_limit_and_releases_after_the_lockout() {
        let t = LoginThrottle::new(3, Duration::from_secs(60));
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        t.failed_at(a, t0);
        t.failed_at(a, t0 + Duration::from_secs(1));
        assert!(t.check_at(a, t0 + Duration::from_secs(2)).is_ok());
        t.failed_at(a, t0 + Duration::from_secs(2));
        let wait = t.check_at(a, t0 + Duration::from_secs(3)).unwrap_err();
        assert_eq!(wait, Duration::from_secs(59));
        // Other addresses are not affected.
        assert!(t.check_at(b, t0 + Duration::from_secs(3)).is_ok());
        assert!(t.check_at(a, t0 + Duration::from_secs(62)).is_ok());
        // Failures spread wider than the window never lock.
        let c: IpAddr = "10.0.0.3".parse().unwrap();
        for i in 0..10 {
            t.failed_at(c, t0 + Duration::from_secs(61 * i));
            assert!(t.check_at(c, t0 + Duration::from_secs(61 * i)).is_ok());
        }
        // A success clears the count.
        t.failed_at(b, t0);
        t.failed_at(b, t0);
        t.succeeded(b);
        t.failed_at(b, t0);
        assert!(t.check_at(b, t0).is_ok());
        // 0: no limit.
        let off = LoginThrottle::new(0, Duration::from_secs(60));
        for _ in 0..100 {
            off.failed_at(a, t0);
        }
        assert!(off.check_at(a, t0).is_ok());
    }

    #[test]
    fn remembers_a_bounded_number_of_addresses() {
        let t = LoginThrottle::new(5, Duration::from_secs(60));
        let t0 = Instant::now();
        for i in 0..(MAX_PEERS as u32 * 3) {
            let ip = IpAddr::from(i.to_be_bytes());
            t.failed_at(
                ip,
                t0 + Duration::from_secs(61 * (i as u64 / MAX_PEERS as u64)),
            );
        }
        assert!(t.peers().len() <= MAX_PEERS);
    }
}
