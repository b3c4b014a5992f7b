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

/// Who may make and remove the agent worktrees of one repository at once: `new`s of
/// different names side by side (a drainer makes the next runs' worktrees on threads
/// while its agents run), a `new` of one name one at a time, and `rm` alone.
///
/// - [`LOCK`]: `new` holds it shared, `rm` exclusive. `rm` empties the trash and takes
///   a worktree's files and records away, which no checkout under way may see.
/// - [`name_lock`]: a `new` holds its name's exclusively, so a second `new` of that
///   name cannot take a checkout still under way for a crash's leftover and redo it.
///   Names share [`NAME_LOCKS`] lock files by a hash (one file per name would leave a
///   file per drained run behind); two names on one file only wait for each other.
/// - [`TURNSTILE`]: taken exclusively by both for a moment before [`LOCK`], and held by
///   `rm` until it has [`LOCK`]: a steady stream of `new`s, each holding [`LOCK`]
///   shared, cannot keep an `rm` waiting (`flock` itself does not queue its waiters).
///
/// The order is always turnstile, [`LOCK`], name: nothing waits for a lock while
/// holding one that comes after it.
const LOCK: &str = "worktree";
const TURNSTILE: &str = "worktree-turnstile";
const NAME_LOCKS: u32 = 16;
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The locks a `new` of `name` holds while it runs (see [`LOCK`]).
struct Making {
    _all: crate::state::RepoLock,
    _name: crate::state::RepoLock,
}

fn lock_to_make(repo: &Repo, name: &AgentName) -> Result<Making> {
    let turnstile = repo.lock(TURNSTILE, LOCK_WAIT)?;
    let all = repo.lock_shared(LOCK, LOCK_WAIT)?;
    drop(turnstile);
    let name = repo.lock(&name_lock(name), LOCK_WAIT)?;
    Ok(Making {
        _all: all,
        _name: name,
    })
}

/// The locks an `rm` holds while it runs: no `new` runs meanwhile (see [`LOCK`]).
struct Removing {
    _turnstile: crate::state::RepoLock,
    _all: crate::state::RepoLock,
}

fn lock_to_remove(repo: &Repo) -> Result<Removing> {
    let turnstile = repo.lock(TURNSTILE, LOCK_WAIT)?;
    let all = repo.lock(LOCK, LOCK_WAIT)?;
    Ok(Removing {
        _turnstile: turnstile,
        _all: all,
    })
}

/// The lock file `name`'s `new`s take turns on: FNV-1a of the name, so every fleet
/// binary, of any version, picks the same one.
fn name_lock(name: &AgentName) -> String {
    let hash = name.as_str().bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("worktree-name-{}", hash % NAME_LOCKS)
}

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
