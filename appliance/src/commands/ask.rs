//! `mitra ask`: questions in a terminal, tier 1 (the analysis from its abstract) then tier 2.

use std::sync::Arc;

use mitra::config::Config;
use mitra::AppError;

/// Arguments of `mitra ask`.
#[derive(clap::Args)]
pub struct AskArgs {
    /// The first question (else read from the terminal).
    question: Option<String>,
    /// Passages shown per question.
    #[arg(long, default_value_t = 5)]
    k: usize,
    /// Analyses offered for confirmation.
    #[arg(long, default_value_t = 5)]
    choices: usize,
    /// Start scoped to this analysis (skips the confirmation).
    #[arg(long)]
    analysis: Option<String>,
    /// See what this user of the users file may read (default: the operator, everything).
    #[arg(long)]
    user: Option<String>,
    /// Print the passages instead of answering with the language model.
    #[arg(long)]
    passages: bool,
}

/// Runs `mitra ask`.
pub async fn run(cfg: Config, args: AskArgs) -> Result<(), AppError> {
    super::init_logs("warn");
    let ctx = super::session(&cfg).await?;
    if let Some(u) = args.user {
        let users = mitra_auth::UsersFile::load(&cfg.server.users_path(&cfg.data_dir))
            .map_err(|e| AppError::Config(e.to_string()))?;
        let entry = users
            .users
            .get(&u)
            .ok_or_else(|| AppError::Config(format!("no user {u:?} in the users file")))?;
        let principal = mitra::analyses::Principal::User {
            name: u.clone(),
            groups: entry.groups.clone(),
        };
        ctx.state_ref()
            .write()
            .config_mut()
            .set_extension(Arc::new(mitra::analyses::SessionAccess::new(principal)));
    }
    let llm = Arc::new(mitra::llm::Llm::new(&cfg));
    let llm = match (args.passages, llm.unavailable()) {
        (true, _) => None,
        (false, Some(why)) => {
            eprintln!("No language model ({why}); showing the passages.");
            None
        }
        (false, None) => Some(llm),
    };
    let opts = mitra::ask::AskOptions {
        k: args.k,
        choices: args.choices,
        analysis: args.analysis,
        llm,
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    mitra::ask::run(&ctx, &opts, args.question, &mut input, &mut out).await
}
