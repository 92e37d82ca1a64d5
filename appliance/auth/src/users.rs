//! The users file: login names, groups and SCRAM-SHA-256 verifiers (never passwords).
//!
//! A verifier is `SCRAM-SHA-256$<iterations>:<salt>$<salted password>` (base64), where the
//! salted password is SCRAM's `Hi(SASLprep(password), salt, iterations)`: the value the
//! server side of the exchange checks client proofs against. The password itself cannot be
//! recovered from it; the file is still a secret (mode 0600), as PostgreSQL's `pg_authid` is.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Iterations of every verifier (pgwire announces one count for all users; RFC 7677 minimum).
pub const SCRAM_ITERATIONS: usize = 4096;
const PREFIX: &str = "SCRAM-SHA-256$";
const SALT_BYTES: usize = 16;
/// Longest password accepted (PostgreSQL accepts up to 1000 bytes in a password message).
const MAX_PASSWORD_BYTES: usize = 1000;

/// Errors of the users file.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Reading or writing the file failed.
    #[error("users file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid.
    #[error("users file {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A user name, group or password is not acceptable.
    #[error("{0}")]
    Refused(String),
}

/// One user as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserEntry {
    /// Groups the user belongs to (analyses name the groups that may read them).
    #[serde(default)]
    pub groups: BTreeSet<String>,
    /// The SCRAM-SHA-256 verifier.
    pub scram: String,
}

/// A parsed verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier {
    /// Salt.
    pub salt: Vec<u8>,
    /// `Hi(password, salt, iterations)`.
    pub salted_password: Vec<u8>,
    /// Iteration count.
    pub iterations: usize,
}

impl Verifier {
    /// A new verifier for `password` with a fresh random salt.
    pub fn new(password: &str) -> Self {
        let salt: [u8; SALT_BYTES] = rand::random();
        Self::with_salt(password, &salt)
    }

    fn with_salt(password: &str, salt: &[u8]) -> Self {
        Self {
            salt: salt.to_vec(),
            salted_password: pgwire::api::auth::sasl::scram::gen_salted_password(
                password,
                salt,
                SCRAM_ITERATIONS,
            ),
            iterations: SCRAM_ITERATIONS,
        }
    }

    /// A verifier no password matches, stable per name: offered for unknown users so that a
    /// login attempt cannot tell a missing user from a wrong password.
    pub fn decoy(name: &str, secret: &[u8]) -> Self {
        let digest = |tag: &[u8]| {
            let mut h = Sha256::new();
            h.update(secret);
            h.update(tag);
            h.update(name.as_bytes());
            h.finalize().to_vec()
        };
        Self {
            salt: digest(b"salt")[..SALT_BYTES].to_vec(),
            salted_password: digest(b"key"),
            iterations: SCRAM_ITERATIONS,
        }
    }

    /// The stored form.
    pub fn encode(&self) -> String {
        format!(
            "{PREFIX}{}:{}${}",
            self.iterations,
            STANDARD.encode(&self.salt),
            STANDARD.encode(&self.salted_password)
        )
    }

    /// Parses the stored form.
    pub fn parse(s: &str) -> Result<Self, String> {
        let rest = s
            .strip_prefix(PREFIX)
            .ok_or("verifier does not start with SCRAM-SHA-256$")?;
        let (params, key) = rest.split_once('$').ok_or("verifier lacks its key")?;
        let (iters, salt) = params.split_once(':').ok_or("verifier lacks its salt")?;
        let iterations: usize = iters.parse().map_err(|_| "bad iteration count")?;
        if iterations != SCRAM_ITERATIONS {
            return Err(format!(
                "verifier has {iterations} iterations; this server uses {SCRAM_ITERATIONS}"
            ));
        }
        let salt = STANDARD.decode(salt).map_err(|_| "salt is not base64")?;
        let salted_password = STANDARD.decode(key).map_err(|_| "key is not base64")?;
        if salt.is_empty() || salted_password.len() != 32 {
            return Err("verifier has an empty salt or a key that is not 32 bytes".into());
        }
        Ok(Self {
            salt,
            salted_password,
            iterations,
        })
    }
}

/// The users file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsersFile {
    /// Users by login name.
    #[serde(default)]
    pub users: BTreeMap<String, UserEntry>,
}

fn check_name(kind: &str, name: &str) -> Result<(), AuthError> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(AuthError::Refused(format!(
            "{kind} {name:?} is not valid: use 1-63 characters from A-Z a-z 0-9 _ - ."
        )))
    }
}

impl UsersFile {
    /// Whether `name` is a valid group name (the rule of user names).
    pub fn valid_group(name: &str) -> bool {
        check_name("group", name).is_ok()
    }

    /// Reads the file; a missing file is an empty one (no users: no authentication).
    pub fn load(path: &Path) -> Result<Self, AuthError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => {
                return Err(AuthError::Io {
                    path: path.into(),
                    source,
                })
            }
        };
        let file: Self = toml::from_str(&text).map_err(|e| AuthError::Invalid {
            path: path.into(),
            message: e.to_string(),
        })?;
        for (name, u) in &file.users {
            let invalid = |message: String| AuthError::Invalid {
                path: path.into(),
                message,
            };
            check_name("user name", name).map_err(|e| invalid(e.to_string()))?;
            Verifier::parse(&u.scram).map_err(|m| invalid(format!("user {name}: {m}")))?;
        }
        Ok(file)
    }

    /// Writes the file atomically (a temporary file renamed over it), readable by its owner only.
    pub fn save(&self, path: &Path) -> Result<(), AuthError> {
        let io = |source| AuthError::Io {
            path: path.into(),
            source,
        };
        let mut text = String::from(
            "# Mitra users: SCRAM-SHA-256 verifiers, never passwords. Managed by `mitra users`.\n",
        );
        text.push_str(&toml::to_string(self).map_err(|e| AuthError::Invalid {
            path: path.into(),
            message: e.to_string(),
        })?);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let tmp = path.with_extension("toml.tmp");
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(&tmp).map_err(io)?;
        f.write_all(text.as_bytes()).map_err(io)?;
        f.sync_all().map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// Adds a user, or replaces the password and groups of an existing one.
    pub fn add(&mut self, name: &str, password: &str, groups: &[String]) -> Result<(), AuthError> {
        check_name("user name", name)?;
        for g in groups {
            check_name("group", g)?;
        }
        if password.is_empty() {
            return Err(AuthError::Refused("the password is empty".into()));
        }
        if password.len() > MAX_PASSWORD_BYTES {
            return Err(AuthError::Refused(format!(
                "the password is longer than {MAX_PASSWORD_BYTES} bytes"
            )));
        }
        self.users.insert(
            name.to_string(),
            UserEntry {
                groups: groups.iter().cloned().collect(),
                scram: Verifier::new(password).encode(),
            },
        );
        Ok(())
    }

    /// Removes a user; false if there was none.
    pub fn remove(&mut self, name: &str) -> bool {
        self.users.remove(name).is_some()
    }

    /// The verifier of a user, if the user exists.
    pub fn verifier(&self, name: &str) -> Option<Verifier> {
        self.users
            .get(name)
            .and_then(|u| Verifier::parse(&u.scram).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Verifier {
        /// Whether `password` matches (logins check SCRAM proofs instead).
        fn matches(&self, password: &str) -> bool {
            Self::with_salt(password, &self.salt).salted_password == self.salted_password
        }
    }

    #[test]
    fn round_trip_and_verify() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.toml");
        assert!(UsersFile::load(&path).unwrap().users.is_empty());
        let mut f = UsersFile::default();
        f.add("alice", "s3cret pass", &["hmumu".into()]).unwrap();
        f.add("bob", "other", &[]).unwrap();
        f.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("s3cret"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let back = UsersFile::load(&path).unwrap();
        assert_eq!(back, f);
        let v = back.verifier("alice").unwrap();
        assert!(v.matches("s3cret pass"));
        assert!(!v.matches("s3cret pas"));
        assert_eq!(Verifier::parse(&v.encode()).unwrap(), v);
        // Same password, different salts.
        assert_ne!(Verifier::new("x").salt, Verifier::new("x").salt);
        // Decoys are stable per name and match nothing.
        assert_eq!(Verifier::decoy("eve", b"k"), Verifier::decoy("eve", b"k"));
        assert_ne!(Verifier::decoy("eve", b"k"), Verifier::decoy("eva", b"k"));
    }

    #[test]
    fn bad_input_is_refused() {
        let mut f = UsersFile::default();
        assert!(f.add("", "p", &[]).is_err());
        assert!(f.add("a b", "p", &[]).is_err());
        assert!(f.add("alice", "", &[]).is_err());
        assert!(f.add("alice", "p", &["bad group".into()]).is_err());
        assert!(f.add("alice", &"x".repeat(1001), &[]).is_err());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.toml");
        std::fs::write(&path, "[users.alice]\nscram = \"plain\"\n").unwrap();
        assert!(UsersFile::load(&path).is_err());
        std::fs::write(&path, "[users.alice]\npassword = \"x\"\n").unwrap();
        assert!(UsersFile::load(&path).is_err());
        for bad in [
            "SCRAM-SHA-256$4096:$AAAA",
            "SCRAM-SHA-256$100:AAAA$AAAA",
            "SCRAM-SHA-256$4096:AAAA",
            "md5abc",
        ] {
            assert!(Verifier::parse(bad).is_err(), "{bad}");
        }
    }
}
