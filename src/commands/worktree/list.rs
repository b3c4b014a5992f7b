//! `fleet worktree list`: the agent worktrees as a table (render::table) or JSON.

use fleet::error::Result;
use fleet::worktree;

use crate::cli::args::Output;
use crate::commands::CommandEnv;
use crate::render;

/// List agent worktrees with branch, ahead/behind, dirty state and nested worktrees
#[derive(Debug, clap::Args)]
#[command(
    long_about = "One line per agent worktree: its branch, ahead/behind the target (`in target` \
                  once its lane has landed, as `fleet status` says: a rebased or squashed \
                  landing leaves git counting its commits ahead), clean or dirty, and the age \
                  of its last commit; then one indented line per nested repository's worktree \
                  inside it. --json prints them as a JSON array (`landed: true` for a landed \
                  lane).",
    after_long_help = "Examples:\n  fleet worktree list\n  fleet worktree list --json | jq '.[] | select(.dirty)'"
)]
pub struct Args {
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let ctx = env.context()?;
    let list = worktree::list(&ctx)?;
    if args.out.json {
        render::json(&list);
        return Ok(0);
    }
    if list.is_empty() {
        render::note("no agent worktrees; create one with `fleet worktree new NAME`");
        return Ok(0);
    }
    render::table::worktrees(&list);
    Ok(0)
}
