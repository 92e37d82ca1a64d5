//! `mitra users`: who may log in over the wire (SCRAM-SHA-256) and their groups.

use clap::Subcommand;
use mitra::config::Config;
use mitra::{table_fmt, AppError};

/// What `mitra users` does.
#[derive(Subcommand)]
pub enum UsersCommand {
    /// Add a user (or set its password and groups); the password is read from a prompt, or
    /// from the first line of stdin with --password-stdin.
    Add {
        /// Login name.
        name: String,
        /// Groups, comma-separated.
        #[arg(long, value_delimiter = ',')]
        groups: Vec<String>,
        /// Read the password from stdin instead of a prompt.
        #[arg(long)]
        password_stdin: bool,
        /// Take a SCRAM-SHA-256 verifier as PostgreSQL stores it instead of a password
        /// (`SELECT rolpassword FROM pg_authid WHERE rolname = 'NAME'`): the user logs in with
        /// the same password as there.
        #[arg(long, conflicts_with = "password_stdin")]
        verifier: Option<String>,
    },
    /// List users and their groups.
    List,
    /// Remove a user.
    Remove {
        /// Login name.
        name: String,
    },
}

/// `mitra users add/list/remove` on the users file.
pub fn run(cfg: Config, action: UsersCommand) -> Result<(), AppError> {
    super::init_logs("warn");
    let path = cfg.server.users_path(&cfg.data_dir);
    let err = |e: mitra_auth::AuthError| AppError::Config(e.to_string());
    let mut users = mitra_auth::UsersFile::load(&path).map_err(err)?;
    if users.converted > 0 {
        // SaltedPasswords (Mitra's first format) log in if the file is stolen.
        users.save(&path).map_err(err)?;
        eprintln!(
            "{} verifier(s) rewritten as StoredKey/ServerKey in {}",
            users.converted,
            path.display()
        );
    }
    match action {
        UsersCommand::Add {
            name,
            groups,
            password_stdin,
            verifier,
        } => {
            let groups: Vec<String> = groups.into_iter().filter(|g| !g.is_empty()).collect();
            match verifier {
                Some(v) => users.add_verifier(&name, &v, &groups).map_err(err)?,
                None => {
                    let password = read_password(&name, password_stdin)?;
                    users.add(&name, &password, &groups).map_err(err)?;
                }
            }
            users.save(&path).map_err(err)?;
            println!(
                "user {name} saved in {} (groups: {})",
                path.display(),
                groups.join(",")
            );
        }
        UsersCommand::List => {
            let rows: Vec<Vec<String>> = users
                .users
                .iter()
                .map(|(n, u)| {
                    vec![
                        n.clone(),
                        u.groups.iter().cloned().collect::<Vec<_>>().join(","),
                    ]
                })
                .collect();
            print!(
                "{}",
                table_fmt::render_rows(&["user", "groups"].map(String::from), &rows)
            );
        }
        UsersCommand::Remove { name } => {
            if !users.remove(&name) {
                return Err(AppError::Config(format!("no user {name:?}")));
            }
            users.save(&path).map_err(err)?;
            println!("user {name} removed");
        }
    }
    Ok(())
}

/// A new password from stdin (`--password-stdin`) or typed twice at a prompt.
fn read_password(name: &str, stdin: bool) -> Result<String, AppError> {
    if stdin {
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .map_err(|source| AppError::Io {
                context: "reading the password from stdin".into(),
                source,
            })?;
        Ok(line.trim_end_matches(['\r', '\n']).to_string())
    } else {
        let io = |source| AppError::Io {
            context: "reading the password".into(),
            source,
        };
        let p = rpassword::prompt_password(format!("password for {name}: ")).map_err(io)?;
        let again = rpassword::prompt_password("again: ").map_err(io)?;
        if p != again {
            return Err(AppError::Config("the passwords differ".into()));
        }
        Ok(p)
    }
}
