//! `fleet worktree new`: an agent worktree on its own branch, nested repositories
//! included; stdout is its path.

use fleet::error::Result;
use fleet::worktree::{self, AgentName, NewRequest};

use crate::cli::args::Output;
use crate::commands::CommandEnv;
use crate::render;

/// Create an agent worktree on branch <prefix>NAME, nested repos included
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Create branch <prefix>NAME at the base and a linked worktree at <root>/NAME. \
                  Every nested repository gets its own linked worktree at the same relative \
                  path, on the same branch name, based on its own current branch; submodules \
                  are populated from the shared checkout's objects, without the network. \
                  stdout is the worktree path only. Running it again for a consistent \
                  worktree prints the path and succeeds.",
    after_long_help = "Examples:\n  cd \"$(fleet worktree new task-42)\"\n  fleet worktree new hotfix --base v1.2.0 --force-base"
)]
pub struct Args {
    /// Agent name: one branch-name component
    #[arg(value_parser = AgentName::parse)]
    name: AgentName,
    /// Start from this revision instead of the target branch (resolved where you are:
    /// in an agent worktree, HEAD is that worktree's)
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// Accept a base more than max_behind commits behind
    #[arg(long)]
    force_base: bool,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let req = NewRequest {
        name: args.name,
        base: args.base,
        force_base: args.force_base,
        cwd: Some(env.cwd().to_path_buf()),
    };
    let json = args.out.json;
    let ctx = env.context()?;
    // No "creating" when it is there already: the answer would be "already there".
    let there = ctx.worktree_root().join(req.name.as_str()).exists();
    if !json && !there {
        render::note(&format!(
            "creating agent worktree {} on {} ...",
            req.name.as_str(),
            ctx.branch_for(req.name.as_str())
        ));
    }
    let outcome = worktree::new(&ctx, &req)?;
    for note in &outcome.notes {
        render::warn(note);
    }
    if json {
        render::json(&outcome);
        return Ok(0);
    }
    if outcome.created {
        for m in outcome.members.iter().skip(1) {
            render::note(&format!(
                "  nested {} -> {}",
                m.rel.display(),
                m.path.display()
            ));
        }
    } else {
        render::note(&format!(
            "agent worktree {} is already there and consistent",
            req.name.as_str()
        ));
    }
    println!("{}", outcome.path.display());
    Ok(0)
}
