//! The users file: login names, groups and SCRAM-SHA-256 verifiers (never passwords).
//!
//! A verifier is `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (base64), as
//! PostgreSQL's `pg_authid` stores it (and can be copied from there): neither the password
//! nor anything a client could log in with can be recovered from it. The file is still kept
//! secret (mode 0600): it allows offline guessing of weak passwords.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::scram::Verifier;

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

/// The users file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsersFile {
    /// Users by login name.
    #[serde(default)]
    pub users: BTreeMap<String, UserEntry>,
    /// Verifiers converted on load from the SaltedPassword form of Mitra's first files (a
    /// stolen copy of such a file logs in): saving the file rewrites them.
    #[serde(skip)]
    pub converted: usize,
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
        let mut file: Self = toml::from_str(&text).map_err(|e| AuthError::Invalid {
            path: path.into(),
            message: e.to_string(),
        })?;
        for (name, u) in &mut file.users {
            let invalid = |message: String| AuthError::Invalid {
                path: path.into(),
                message,
            };
            check_name("user name", name).map_err(|e| invalid(e.to_string()))?;
            let (v, legacy) =
                Verifier::parse(&u.scram).map_err(|m| invalid(format!("user {name}: {m}")))?;
            if legacy {
                u.scram = v.encode();
                file.converted += 1;
            }
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
        if password.is_empty() {
            return Err(AuthError::Refused("the password is empty".into()));
        }
        if password.len() > MAX_PASSWORD_BYTES {
            return Err(AuthError::Refused(format!(
                "the password is longer than {MAX_PASSWORD_BYTES} bytes"
            )));
        }
        self.add_verifier(name, &Verifier::new(password).encode(), groups)
    }

    /// Adds a user with a verifier in PostgreSQL's form (e.g. copied from `pg_authid`), or
    /// replaces the verifier and groups of an existing one.
    pub fn add_verifier(
        &mut self,
        name: &str,
        verifier: &str,
        groups: &[String],
    ) -> Result<(), AuthError> {
        check_name("user name", name)?;
        for g in groups {
            check_name("group", g)?;
        }
        let (v, legacy) = Verifier::parse(verifier).map_err(AuthError::Refused)?;
        if legacy {
            return Err(AuthError::Refused(
                "give a verifier as PostgreSQL stores it: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>".into(),
            ));
        }
        self.users.insert(
            name.to_string(),
            UserEntry {
                groups: groups.iter().cloned().collect(),
                scram: v.encode(),
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
            .map(|(v, _)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `password` matches (logins check SCRAM proofs instead).
    fn matches(v: &Verifier, password: &str) -> bool {
        Verifier::with_salt(password, &v.salt, v.iterations) == *v
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
        assert!(matches(&v, "s3cret pass"));
        assert!(!matches(&v, "s3cret pas"));
    }

    /// A file of Mitra's first format (SaltedPassword) loads converted, and saving it leaves
    /// no SaltedPassword on disk.
    #[test]
    fn salted_password_files_are_converted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.toml");
        // alice / "s3cret pass", as the first format stored it.
        std::fs::write(
            &path,
            "[users.alice]\ngroups = [\"hmumu\"]\nscram = \"SCRAM-SHA-256$4096:S+1q3aKPxHGC20ReBHskew==$U54nTU5IyBmwIEOzmcIPI0wHsLOo/AtIqdEUNvNuz5g=\"\n",
        )
        .unwrap();
        let f = UsersFile::load(&path).unwrap();
        assert_eq!(f.converted, 1);
        f.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("U54nTU5IyBmwIEOzmcIPI0wHsLOo/AtIqdEUNvNuz5g="),
            "{text}"
        );
        // The same keys PostgreSQL computes for that password and salt.
        assert!(text.contains("v7gCjtGMZ0TJvJG4NsKkhoAtd9+3+QIlYXiahQcZjYg=:v3LD02GMNpoHpbAGhznZbzXx4zfQnIJai1WzsZ5jd5A="), "{text}");
        let again = UsersFile::load(&path).unwrap();
        assert_eq!(again.converted, 0);
        assert_eq!(again.users, f.users);
    }

    /// A verifier copied from PostgreSQL's `pg_authid` logs in with its password.
    #[test]
    fn verifiers_from_postgres_are_taken_as_they_are() {
        let pg = "SCRAM-SHA-256$4096:S+1q3aKPxHGC20ReBHskew==$v7gCjtGMZ0TJvJG4NsKkhoAtd9+3+QIlYXiahQcZjYg=:v3LD02GMNpoHpbAGhznZbzXx4zfQnIJai1WzsZ5jd5A=";
        let mut f = UsersFile::default();
        f.add_verifier("alice", pg, &["hmumu".into()]).unwrap();
        assert!(matches(&f.verifier("alice").unwrap(), "s3cret pass"));
        assert!(f
            .add_verifier("bob", "SCRAM-SHA-256$4096:AAAA$AAAA", &[])
            .is_err());
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
    }
}
