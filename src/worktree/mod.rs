//! Agent worktrees: one linked worktree and branch per worker, with a linked worktree
//! of every nested repository at the same relative path inside it.
//!
//! Promises: the shared checkouts (outer and nested) are never touched; `new` is
//! all-or-nothing within a run (a failure undoes what the run created, in every
//! repository) and converges when run again after a crash; `rm` never deletes
//! uncommitted or unlanded work without `--force`, and never deletes an unlanded branch.

mod list;
mod new;
mod prune;
mod rm;
mod submodules;

pub use list::{Listed, ListedNested, list};
pub use new::{Member, NewOutcome, NewRequest, new, new_without_hooks_note};
pub use prune::{Pruned, prune};
pub use rm::{Removed, rm, rm_in};

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::Repo;

/// A validated agent name: one branch-name component that cannot leave the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentName(String);

impl AgentName {
    pub fn parse(name: &str) -> Result<AgentName> {
        let why = if name.is_empty() {
            Some("it is empty")
        } else if name == "." || name == ".." || name.contains("..") {
            Some("it contains `..`, which could leave the worktree root")
        } else if name.contains('/') || name.contains('\\') {
            Some("it contains a path separator")
        } else if name.chars().any(char::is_control) {
            Some("it contains a control character")
        } else if name.len() > 100 {
            Some("it is longer than 100 bytes")
        } else if name.starts_with('-') {
            Some("it starts with `-`")
        } else if !crate::config::is_valid_branch_name(name) {
            Some("it is not a valid branch name component")
        } else {
            None
        };
        match why {
            Some(why) => Err(Error::usage(format!("invalid agent name {name:?}: {why}"))
                .with_help("use letters, digits, `-`, `_` and `.`, like `task-42`")),
            None => Ok(AgentName(name.to_string())),
        }
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Agent worktrees of one repository are created and removed one at a time.
const LOCK: &str = "worktree";
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

fn same_path(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| {
        p.canonicalize()
            .unwrap_or_else(|_| crate::context::normalize(p))
    };
    canon(a) == canon(b)
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

/// Where agent `name`'s worktree is: `Ok(path)` when that folder is a linked worktree
/// registered with the repository and there (a symlink to one does not count),
/// `Err(path)` with the folder it would be at when it is not.
pub fn path_of(ctx: &Context, name: &AgentName) -> Result<std::result::Result<PathBuf, PathBuf>> {
    let path = ctx.worktree_root().join(name.as_str());
    let registered = ctx.repo.worktrees()?.into_iter().any(|w| {
        !w.is_main && !w.missing && w.path.canonicalize().ok() == path.canonicalize().ok()
    });
    if !registered || std::fs::read_link(&path).is_ok() {
        return Ok(Err(path));
    }
    Ok(Ok(path))
}

/// A worktree folder still holding its `.git` link.
fn is_checkout(path: &Path) -> bool {
    std::fs::symlink_metadata(path.join(".git")).is_ok()
}

/// gix and git lock a worktree with this reason while its first checkout runs; left
/// behind only by a crash, so it is not a user's lock.
fn is_initializing(reason: &str) -> bool {
    reason.trim() == "initializing"
}

fn lock_reason(repo: &Repo, id: Option<&str>) -> Option<String> {
    repo.worktree_record(id?).lock_reason()
}

/// Where `rm` moves a worktree before deleting it; agent names cannot start with a dot.
const TRASH: &str = ".fleet-trash";

/// Delete what earlier removals moved aside (a crash can leave it there).
fn empty_trash(root: &Path) {
    let trash = root.join(TRASH);
    if trash.exists() {
        let _ = std::fs::remove_dir_all(&trash);
    }
}

/// What `fleet ready` would leave behind: uncommitted changes and untracked files in the
/// worktree that has `branch` checked out and in its nested repositories' worktrees, each
/// as `<folder>: path, path, ...` (a few paths per folder). Only commits land.
pub fn uncommitted(ctx: &Context, branch: &str) -> Result<Vec<String>> {
    let Some(worktree) = ctx
        .repo
        .worktrees()?
        .into_iter()
        .find(|w| !w.is_main && !w.missing && w.branch.as_deref() == Some(branch))
    else {
        return Ok(Vec::new());
    };
    let (nested, _) = ctx.discover_nested(&ctx.worktree_root());
    let mut folders = vec![worktree.path.clone()];
    folders.extend(
        nested
            .iter()
            .map(|n| worktree.path.join(&n.rel))
            .filter(|p| is_checkout(p)),
    );
    let mut out = Vec::new();
    for folder in folders {
        let dirty = Repo::open(&folder)?.dirty_paths(5)?;
        if !dirty.is_empty() {
            out.push(format!("{}: {}", folder.display(), dirty.join(", ")));
        }
    }
    Ok(out)
}
