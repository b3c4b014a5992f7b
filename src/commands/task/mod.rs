//! `fleet task`: the task queue, one subcommand per file.

pub mod add;
pub mod cancel;
pub mod claim;
pub mod list;
pub mod retry;
pub mod show;

use fleet::error::Result;
use fleet::tasks::TaskName;

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

/// A task name, checked where the arguments are parsed; the refusal is fleet's own
/// error in fleet's shape, exit 2 (as `args::agent_name`).
pub fn task_name(text: &str) -> Result<TaskName, fleet::error::Error> {
    TaskName::parse(text)
}

/// The help of `--remote` for the task commands.
pub const REMOTE_HELP: &str = "Use the task queue of this git remote, shared by every machine that \
                               pushes to it (default: [lanes] remote in fleet.toml, else this repository)";
