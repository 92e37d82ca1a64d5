//! Mitra logins and access: the users file (SCRAM-SHA-256 verifiers) and the read rule for analyses.

mod access;
mod users;

pub use access::{Principal, Status};
pub use users::{AuthError, UserEntry, UsersFile, Verifier, SCRAM_ITERATIONS};
