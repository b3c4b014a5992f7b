//! `fleet worktree prune`: forget worktrees whose folders are gone, in every repository.

use fleet::error::Result;
use fleet::worktree;

use crate::cli::args::Output;
use crate::commands::CommandEnv;
use crate::render;

/// Forget worktrees whose folders are gone, in every repo
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  rm -rf ../.fleet-work/app/task-42 && fleet worktree prune"
)]
pub struct Args {
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let ctx = env.context()?;
    let pruned = worktree::prune(&ctx)?;
    if args.out.json {
        render::json(&pruned);
        return Ok(0);
    }
    for p in &pruned {
        let text = p.output.trim();
        if text.is_empty() {
            render::note(&format!("{}: nothing to prune", p.repo.display()));
        } else {
            render::note(&format!("{}:\n{text}", p.repo.display()));
        }
    }
    Ok(0)
}
