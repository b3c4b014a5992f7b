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

/// Take the hooks out of every submodule that fleet guards: the checked-out ones, and
/// those whose checkout is gone (`git submodule deinit`, or dropped from `.gitmodules`)
/// but whose git dir under `.git/modules/` still has them.
pub fn uninstall(shared: &Path, base: &Path) -> Result<Vec<RepoReport>> {
    let mut reports = Vec::new();
    let mut done = Vec::new();
    for sub in checkouts(shared) {
        let common = sub.repo.common_dir();
        done.push(canon(&common));
        if !state::guard_refs(&common).is_file() {
            continue;
        }
        let dir = git::cli::hooks_dir(&sub.path)?;
        reports.push(uninstall_from(&common, dir, base.join(&sub.rel))?);
    }
    let Ok(outer) = Repo::open(shared) else {
        return Ok(reports);
    };
    for git_dir in guarded_module_dirs(&outer.common_dir().join("modules")) {
        if done.contains(&canon(&git_dir)) {
            continue;
        }
        let rel = base.join(git_dir.strip_prefix(shared).unwrap_or(&git_dir));
        let hooks_path = Repo::open(&git_dir)
            .ok()
            .and_then(|r| r.config_string("core.hooksPath"));
        match hooks_path {
            None => reports.push(uninstall_from(&git_dir, git_dir.join("hooks"), rel)?),
            Some(path) if Path::new(&path).is_absolute() => {
                reports.push(uninstall_from(&git_dir, PathBuf::from(path), rel)?)
            }
            Some(path) => reports.push(RepoReport {
                repo: rel,
                guarded_refs: read_guard_refs(&git_dir),
                dirs: Vec::new(),
                warnings: vec![format!(
                    "{} has no checkout, and its core.hooksPath `{path}` is relative to \
                     one: its hooks were left; check the submodule out and run `fleet hooks \
                     uninstall` again",
                    git_dir.display()
                )],
            }),
        }
    }
    Ok(reports)
}

/// Take the hooks out of `dir` and the guard-refs out of the git dir `common`.
fn uninstall_from(common: &Path, dir: PathBuf, repo: PathBuf) -> Result<RepoReport> {
    let hooks = HOOKS
        .iter()
        .map(|hook| uninstall_hook(&dir, hook))
        .collect::<Result<Vec<_>>>()?;
    let refs_file = state::guard_refs(common);
    std::fs::remove_file(&refs_file)
        .map_err(|e| Error::env(format!("cannot remove {}: {e}", refs_file.display())))?;
    Ok(RepoReport {
        repo,
        guarded_refs: Vec::new(),
        dirs: vec![DirReport { dir, hooks }],
        warnings: Vec::new(),
    })
}

/// The submodule git dirs under `modules` (a repository's `.git/modules`, where a name
/// with slashes makes folders, and a submodule's own submodules sit in its `modules`)
/// that hold fleet's guard-refs.
fn guarded_module_dirs(modules: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(modules).into_iter().flatten().flatten();
    for entry in entries.filter(|e| e.file_type().is_ok_and(|k| k.is_dir())) {
        let path = entry.path();
        if git::is_git_dir(&path) {
            if state::guard_refs(&path).is_file() {
                out.push(path.clone());
            }
            out.extend(guarded_module_dirs(&path.join("modules")));
        } else {
            out.extend(guarded_module_dirs(&path));
        }
    }
    out
}

fn canon(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
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
