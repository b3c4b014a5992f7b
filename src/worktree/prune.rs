//! `worktree prune`: drop the records of agent worktrees whose folders are gone.

use std::path::PathBuf;

use serde::Serialize;

use crate::context::Context;
use crate::error::Result;
use crate::git;

#[derive(Debug, Serialize)]
pub struct Pruned {
    pub repo: PathBuf,
    pub output: String,
}

/// Drop the records of worktrees whose folders are gone, in the outer repository and
/// every nested one.
pub fn prune(ctx: &Context) -> Result<Vec<Pruned>> {
    let root = ctx.worktree_root();
    let (nested, _) = ctx.discover_nested(&root);
    let mut repos = vec![ctx.shared.clone()];
    repos.extend(nested.iter().map(|n| ctx.shared.join(&n.rel)));
    let mut out = Vec::new();
    for repo in repos {
        let output = git::cli::worktree_prune(&repo)?;
        out.push(Pruned { repo, output });
    }
    Ok(out)
}
