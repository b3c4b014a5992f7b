//! Submodules of a shared checkout are shared checkouts too: a commit or a switch inside
//! one changes what the shared checkout records for it (` M lib` in its status), for
//! everyone. Each checked-out submodule (and theirs, recursively) gets the guard's hooks
//! in its own hooks folder (git runs a submodule's hooks from its own git dir,
//! `.git/modules/NAME/hooks`, never the outer repository's) and a `guard-refs` file in
//! its git dir, which is what marks a repository as guarded for the hooks.
//!
//! The submodules of an agent worktree are clones of their own (under that worktree's
//! git dir): no guard-refs, so agents commit in them freely.
//!
//! `fleet hooks install` covers every submodule of every guarded shared checkout; the
//! guard step every fleet command runs ([`sync`]) covers submodules of the outer shared
//! checkout that were added or checked out after install.

use std::path::{Path, PathBuf};

use super::hooks::{
    DirReport, HOOKS, RepoReport, hook_status, install_hook, read_guard_refs, uninstall_hook,
    write_guard_refs,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, Repo};
use crate::state;

/// A checked-out submodule found under a shared checkout.
struct Checkout {
    /// Relative to the shared checkout the walk started from.
    rel: PathBuf,
    repo: Repo,
    path: PathBuf,
}

/// Every checked-out submodule of the checkout at `shared`, and their submodules,
/// parents first. One registered but never checked out (no `.git` in its folder) has
/// no hooks to run and is skipped.
fn checkouts(shared: &Path) -> Vec<Checkout> {
    let mut out = Vec::new();
    collect(shared, Path::new(""), &mut out);
    out
}

fn collect(dir: &Path, rel: &Path, out: &mut Vec<Checkout>) {
    let Ok(repo) = Repo::open(dir) else {
        return;
    };
    for sub in repo.submodule_paths() {
        let path = dir.join(&sub);
        if std::fs::symlink_metadata(path.join(".git")).is_err() {
            continue;
        }
        let Ok(sub_repo) = Repo::open(&path) else {
            continue;
        };
        // The folder must be the submodule's own checkout, not a plain folder of ours.
        if sub_repo.common_dir() == repo.common_dir() {
            continue;
        }
        let sub_rel = rel.join(&sub);
        out.push(Checkout {
            rel: sub_rel.clone(),
            repo: sub_repo,
            path: path.clone(),
        });
        collect(&path, &sub_rel, out);
    }
}

/// The branches guarded in a submodule: the one it has checked out (a submodule is
/// usually detached: then none, and guard-refs only marks it guarded) and whatever was
/// recorded before.
fn guard_refs(sub: &Checkout) -> Result<Vec<String>> {
    let mut refs = read_guard_refs(&sub.repo.common_dir());
    if let Some(branch) = sub.repo.head_branch()? {
        let full = crate::refs::branch(&branch);
        if !refs.contains(&full) {
            refs.push(full);
        }
    }
    Ok(refs)
}

fn install_one(sub: &Checkout, base: &Path, fleet: &Path) -> Result<RepoReport> {
    let dir = git::cli::hooks_dir(&sub.path)?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let hooks = HOOKS
        .iter()
        .map(|hook| install_hook(&dir, hook, fleet))
        .collect::<Result<Vec<_>>>()?;
    let refs = guard_refs(sub)?;
    write_guard_refs(&sub.repo.common_dir(), &refs)?;
    Ok(RepoReport {
        repo: base.join(&sub.rel),
        guarded_refs: refs,
        dirs: vec![DirReport { dir, hooks }],
        warnings: Vec::new(),
    })
}

/// Install the hooks in every checked-out submodule of the shared checkout `shared`
/// (`base` relative to the outer one). `fleet` is the binary the hooks call.
pub fn install(shared: &Path, base: &Path, fleet: &Path) -> Result<Vec<RepoReport>> {
    checkouts(shared)
        .iter()
        .map(|sub| install_one(sub, base, fleet))
        .collect()
}

/// Take the hooks out of every checked-out submodule that fleet guards.
pub fn uninstall(shared: &Path, base: &Path) -> Result<Vec<RepoReport>> {
    let mut reports = Vec::new();
    for sub in checkouts(shared) {
        let refs_file = state::guard_refs(&sub.repo.common_dir());
        if !refs_file.is_file() {
            continue;
        }
        let dir = git::cli::hooks_dir(&sub.path)?;
        let hooks = HOOKS
            .iter()
            .map(|hook| uninstall_hook(&dir, hook))
            .collect::<Result<Vec<_>>>()?;
        std::fs::remove_file(&refs_file)
            .map_err(|e| Error::env(format!("cannot remove {}: {e}", refs_file.display())))?;
        reports.push(RepoReport {
            repo: base.join(&sub.rel),
            guarded_refs: Vec::new(),
            dirs: vec![DirReport { dir, hooks }],
            warnings: Vec::new(),
        });
    }
    Ok(reports)
}

/// The hooks of every checked-out submodule.
pub fn status(shared: &Path, base: &Path) -> Result<Vec<RepoReport>> {
    checkouts(shared)
        .into_iter()
        .map(|sub| {
            let dir = git::cli::hooks_dir(&sub.path)?;
            Ok(RepoReport {
                repo: base.join(&sub.rel),
                guarded_refs: read_guard_refs(&sub.repo.common_dir()),
                dirs: vec![DirReport {
                    hooks: HOOKS.iter().map(|hook| hook_status(&dir, hook)).collect(),
                    dir,
                }],
                warnings: Vec::new(),
            })
        })
        .collect()
}

/// The guard step for submodules: when the outer shared checkout is guarded, give any
/// checked-out submodule of it that is not guarded yet (added, or first checked out,
/// after `fleet hooks install`) the hooks. Cheap when there is nothing new: reading
/// `.gitmodules` and one file per submodule.
pub fn sync(ctx: &Context) -> Result<()> {
    if !state::guard_refs(&ctx.repo.common_dir()).is_file() {
        return Ok(());
    }
    let new: Vec<Checkout> = checkouts(&ctx.shared)
        .into_iter()
        .filter(|sub| !state::guard_refs(&sub.repo.common_dir()).is_file())
        .collect();
    if new.is_empty() {
        return Ok(());
    }
    let fleet = super::hooks::fleet_binary()?;
    for sub in &new {
        install_one(sub, Path::new(""), &fleet).map_err(|e| {
            Error::env(format!(
                "submodule {} is not guarded: {}",
                sub.rel.display(),
                e.message
            ))
        })?;
    }
    Ok(())
}
