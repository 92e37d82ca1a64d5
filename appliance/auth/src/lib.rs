//! Mitra logins and access: the users file (SCRAM-SHA-256 verifiers), the SCRAM exchange, the
//! failed-login limit, and the read rule for analyses.

mod access;
pub mod scram;
mod throttle;
mod users;

pub use access::{Principal, Status};
pub use scram::{ScramError, Verifier, SCRAM_ITERATIONS};
pub use throttle::LoginThrottle;
pub use users::{AuthError, UserEntry, UsersFile};
