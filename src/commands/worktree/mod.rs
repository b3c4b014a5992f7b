//! `fleet worktree`: agent worktrees, one subcommand per file.

pub mod list;
pub mod new;
pub mod prune;
pub mod rm;

use fleet::error::Result;

use super::CommandEnv;

/// Agent worktrees: create, list, remove, prune
#[derive(Debug, clap::Subcommand)]
#[command(
    after_long_help = "Examples:\n  cd \"$(fleet worktree new task-42)\"\n  fleet worktree list\n  fleet worktree rm task-42\n  fleet worktree prune"
)]
pub enum WorktreeCommand {
    New(new::Args),
    List(list::Args),
    Rm(rm::Args),
    Prune(prune::Args),
}

pub fn run(env: &CommandEnv, cmd: WorktreeCommand) -> Result<u8> {
    match cmd {
        WorktreeCommand::New(args) => new::run(env, args),
        WorktreeCommand::List(args) => list::run(env, args),
        WorktreeCommand::Rm(args) => rm::run(env, args),
        WorktreeCommand::Prune(args) => prune::run(env, args),
    }
}
