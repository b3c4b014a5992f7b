//! The gate's private worktree: one per repository under fleet's folder, forced to the
//! candidate and cleaned before every run (ignored build caches kept warm), and the
//! repair of what a killed run left there (half-written registrations, processes).
//! Only the holder of the land lock touches it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::git::{self, ObjectId, Repo};
use crate::state::no_hooks_dir;

/// Where the gate worktree of `repo` lives.
pub fn worktree_path(repo: &Repo) -> PathBuf {
    crate::state::gate_worktree(&repo.common_dir())
}

/// A gate run whose fleet was killed with -9 may have left processes working in the
/// gate worktree: kill them. Called once per landing run, holding the land lock. The
/// number killed comes back, for the caller to tell.
pub fn kill_leftovers(repo: &Repo) -> usize {
    crate::proc::kill_processes_under(&worktree_path(repo))
}

/// A run killed while it created a gate worktree can leave its registration half
/// written: without `commondir` git fails in every command that looks at all worktrees
/// (`fetch` included), and with its `gitdir` file created but not filled yet gix fails
/// to add any worktree beside it, the gate's next one included; one still locked
/// `initializing` may have the null id for HEAD, which `git fetch` rejects as a bad
/// object, so the next landing's fetch from a remote queue fails. Drop such registrations:
/// every unfinished one whose `gitdir` stayed empty (it names no worktree, so it is
/// nobody's; and in a nested repository, fleet's are not named `gate*`), and those of
/// fleet's own gate worktrees (whose `gitdir` points into fleet's folder, or unfinished
/// ones named `gate*` older than ten seconds), with their folders. Called holding the
/// land lock. The records removed come back, for the caller to tell.
pub fn drop_broken_gate_worktrees(repo: &Repo, fleet_folder: &Path) -> Vec<PathBuf> {
    let mut removed = repo.drop_unwritten_worktree_records();
    for record in repo.worktree_records() {
        // Only landing calls this, under its lock: an add still `initializing` is one a
        // killed run started, never one in progress.
        if record.is_complete() && !record.is_initializing() {
            continue;
        }
        let gitdir = record.gitdir();
        let ours = match &gitdir {
            Some(gitdir) => gitdir.starts_with(fleet_folder),
            None => {
                let old = record
                    .age()
                    .is_some_and(|age| age > Duration::from_secs(10));
                record.id.starts_with("gate") && old
            }
        };
        if !ours {
            continue;
        }
        if let Some(folder) = gitdir.as_deref().and_then(Path::parent) {
            let _ = std::fs::remove_dir_all(folder);
        }
        if std::fs::remove_dir_all(&record.dir).is_ok() {
            removed.push(record.dir);
        }
    }
    removed
}

/// The gate worktree, checked out at `candidate` and clean. Created on first use,
/// reused after (so build caches in ignored folders stay warm).
pub fn prepare_worktree(repo: &Repo, candidate: ObjectId) -> Result<PathBuf> {
    let path = worktree_path(repo);
    prepare_worktree_at(repo, &path, candidate)?;
    Ok(path)
}

/// A detached worktree of `repo` at `path`, checked out at `commit` and clean: the gate
/// worktree itself, or a nested repository's inside it.
pub fn prepare_worktree_at(repo: &Repo, path: &Path, candidate: ObjectId) -> Result<()> {
    let path = path.to_path_buf();
    let registered = repo.worktrees()?.into_iter().find(|w| w.path == path);
    if let Some(wt) = &registered
        && !wt.missing
    {
        // Only the holder of the land lock uses this worktree: an index lock here is
        // a leftover of a killed run, not someone's live operation.
        if let Some(id) = &wt.id {
            let _ = std::fs::remove_file(repo.worktree_record(id).index_lock());
        }
        let reset = reset_gate(&path, candidate, &no_hooks_dir(repo)?);
        if reset.is_ok() {
            return Ok(());
        }
        // A run killed while it created the worktree leaves one git does not
        // recognise: start it over.
    }
    // Registered but gone or broken: drop the registration (fleet's own; a run killed
    // while creating it leaves it locked, which `git worktree prune` would keep).
    if let Some(id) = registered.as_ref().and_then(|wt| wt.id.as_ref()) {
        let admin = repo.worktree_record(id).dir;
        std::fs::remove_dir_all(&admin)
            .map_err(|e| Error::env(format!("cannot clear {}: {e}", admin.display())))?;
    }
    if path.exists() {
        std::fs::remove_dir_all(&path)
            .map_err(|e| Error::env(format!("cannot clear {}: {e}", path.display())))?;
    }
    repo.add_detached_worktree(&path, candidate)
}

/// Check `candidate` out in the gate worktree at `path`, then clear what an earlier
/// gate run left there. Leftovers are looked for after the checkout, with the
/// candidate's own ignore rules, in process; `git clean` runs only when there are some.
fn reset_gate(path: &Path, candidate: ObjectId, no_hooks: &Path) -> Result<()> {
    git::cli::checkout_gate_worktree(path, &candidate.to_string(), no_hooks)?;
    let leftovers = Repo::open(path)
        .and_then(|gate| gate.has_untracked())
        .unwrap_or(true);
    if leftovers {
        git::cli::clean_gate_worktree(path)?;
    }
    Ok(())
}
