//! `fleet task`: the task queue, one subcommand per file.

pub mod add;
pub mod cancel;
pub mod claim;
pub mod list;
pub mod retry;
pub mod show;

use fleet::error::Result;
use fleet::tasks::Store;

use crate::cli::args::QueueArgs;

use super::CommandEnv;

/// The task queue: add, list, show, cancel, retry
#[derive(Debug, clap::Subcommand)]
#[command(
    long_about = "The task queue: work for agents, kept in git (one ref per task under \
                  refs/fleet/tasks/), changed only by compare-and-swap, and shared through a \
                  remote with --remote. A drainer claims the queued tasks.",
    after_long_help = "Examples:\n  fleet task add fix-login --prompt 'Fix the login redirect loop'\n  fleet task add docs --plan plans/docs.md --after fix-login\n  fleet task list\n  fleet task show fix-login\n  fleet task cancel docs\n  fleet task retry fix-login"
)]
pub enum TaskCommand {
    Add(add::Args),
    List(list::Args),
    Show(show::Args),
    Cancel(cancel::Args),
    Retry(retry::Args),
    /// Claim the next task (for tests and scripts; `fleet drain` claims its own)
    #[command(hide = true)]
    Claim(claim::Args),
}

pub fn run(env: &CommandEnv, cmd: TaskCommand) -> Result<u8> {
    match cmd {
        TaskCommand::Add(args) => add::run(env, args),
        TaskCommand::List(args) => list::run(env, args),
        TaskCommand::Show(args) => show::run(env, args),
        TaskCommand::Cancel(args) => cancel::run(env, args),
        TaskCommand::Retry(args) => retry::run(env, args),
        TaskCommand::Claim(args) => claim::run(env, args),
    }
}

/// Open the task queue the command names (`--remote`, else the configured one, else
/// this repository's), fetched when it is a remote's, and run `f` on it.
pub fn with_store<T>(
    env: &CommandEnv,
    queue: &QueueArgs,
    f: impl FnOnce(&Store) -> Result<T>,
) -> Result<T> {
    let (ctx, queue) = env.queue(queue)?;
    let store = Store::new(&ctx, &queue);
    store.refresh()?;
    f(&store)
}

/// The help of `--remote` for the task commands.
pub const REMOTE_HELP: &str = "Use the task queue of this git remote, shared by every machine that \
                               pushes to it (default: [lanes] remote in fleet.toml, else this repository)";
