//! `fleet worktree rm`: remove an agent worktree and its nested worktrees without
//! losing work.

use fleet::error::Result;
use fleet::worktree::{self, AgentName};

use crate::cli::args::Output;
use crate::commands::CommandEnv;
use crate::render;

/// Remove an agent worktree and its nested worktrees, refusing to lose work
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Remove the agent worktree and its nested worktrees. Refuses (exit 1, nothing \
                  removed) when any of them has uncommitted changes or commits not yet in the \
                  target (a squash- or rebase-landed branch counts as landed). With --force the \
                  uncommitted changes are deleted; unlanded branches are always kept, and so is \
                  any commit that would become unreachable (a detached HEAD's, a submodule \
                  clone's, or one in a repository made inside the worktree). A removal cut \
                  short by a crash is finished by running it again.",
    after_long_help = "Examples:\n  fleet worktree rm task-42\n  fleet worktree rm task-42 --force"
)]
pub struct Args {
    /// Agent name, as given to `fleet worktree new`
    #[arg(value_parser = AgentName::parse)]
    name: AgentName,
    /// Delete uncommitted changes too (unlanded branches are kept)
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let name = args.name;
    let ctx = env.context()?;
    let removed = worktree::rm(&ctx, &name, args.force)?;
    if args.out.json {
        render::json(&removed);
        return Ok(0);
    }
    for path in &removed.worktrees {
        render::ok(&format!("removed {}", path.display()));
    }
    for gone in &removed.branches_deleted {
        render::note(&format!(
            "deleted branch {} ({}): its changes are in the target",
            gone.branch,
            gone.repo.display()
        ));
    }
    for lane in &removed.untracked {
        render::note(&format!("no longer tracking {lane}: it has landed"));
    }
    for kept in &removed.branches_kept {
        render::warn(&format!(
            "kept branch {} ({}): it has work the target does not have",
            kept.branch,
            kept.repo.display()
        ));
    }
    Ok(0)
}
