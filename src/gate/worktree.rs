//! The gate's private worktree: one per project, beside the agent worktrees (outside
//! the project, on a path with no `.git` folder in it, so tools that look in parent
//! folders or skip `/.git/` paths see only the candidate), forced to the candidate and
//! cleaned before every run (ignored build caches kept warm), and the repair of what a
//! killed run left there (half-written registrations, processes, a gate worktree at
//! an older place). Only the holder of the land lock touches it.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, ObjectId, Repo};
use crate::state::no_hooks_dir;

/// The folder, inside a worktree root, that holds gate worktrees. Its name starts with
/// a dot, which no agent name can (a branch name component cannot), so `worktree rm`
/// and `list` never take it for an agent's.
const GATE_FOLDER: &str = ".fleet-gate";

/// The folder fleet keeps this project's gate worktree in (with the record of the nested
/// checkouts inside it): `<worktree root>/.fleet-gate/<project>-<id>`, the id telling
/// apart projects that share a root. When the root lies inside the project (or on a path
/// with a `.git` folder), the same folder beside the shared checkout instead. `Err` when
/// neither place is outside the project.
pub fn private_folder(ctx: &Context) -> Result<PathBuf> {
    let shared = ctx.shared.canonicalize().unwrap_or(ctx.shared.clone());
    let common = ctx.repo.common_dir();
    let common = common.canonicalize().unwrap_or(common);
    let name = shared
        .file_name()
        .map(|n| super::run::sanitize(&n.to_string_lossy()))
        .unwrap_or_default();
    let id = super::blob_digest(common.as_os_str().as_encoded_bytes());
    let key = format!("{name}-{}", &id[..id.len().min(12)]);
    let mut places = vec![ctx.worktree_root()];
    places.extend(shared.parent().map(Path::to_path_buf));
    for place in &places {
        let folder = place.join(GATE_FOLDER).join(&key);
        if outside_project(&folder, &shared, &common) {
            return Ok(folder);
        }
    }
    Err(Error::usage(format!(
        "no place for the gate worktree outside the project: the worktree root {} and the \
         folder holding the shared checkout {} are inside it or on a path with a `.git` folder",
        places[0].display(),
        places.last().unwrap_or(&places[0]).display()
    ))
    .with_help(
        "set [worktrees] root in fleet.toml to a folder outside the shared checkout whose path \
         has no `.git` folder, like \"../.fleet-work\"",
    ))
}

/// Is `folder` (absolute, its existing part resolved) a place whose every parent is
/// outside the project: not in the shared checkout or the git dir, no `.git` on the way?
fn outside_project(folder: &Path, shared: &Path, common: &Path) -> bool {
    let folder = crate::context::normalize(folder);
    let folder = crate::context::resolve_existing(&folder);
    let dot_git = folder.components().any(|c| match c {
        Component::Normal(name) => name.eq_ignore_ascii_case(".git"),
        _ => false,
    });
    folder.is_absolute() && !dot_git && !folder.starts_with(shared) && !folder.starts_with(common)
}

fn same_path(a: &Path, b: &Path) -> bool {
    a == b || crate::context::resolve_existing(a) == crate::context::resolve_existing(b)
}

/// Where the gate worktree of the project lives.
pub fn worktree_path(ctx: &Context) -> Result<PathBuf> {
    Ok(private_folder(ctx)?.join("gate"))
}

/// The folders whose worktree records are fleet's own gate worktrees: this project's
/// private folder, and the common dir's `fleet/` where versions before kept the gate.
pub fn owned_folders(ctx: &Context) -> Vec<PathBuf> {
    let mut folders = vec![crate::state::dir(&ctx.repo.common_dir())];
    folders.extend(private_folder(ctx).ok());
    folders
}

/// A gate run whose fleet was killed with -9 may have left processes working in the
/// gate worktree: kill them. Called once per landing run, holding the land lock. The
/// number killed comes back, for the caller to tell.
pub fn kill_leftovers(ctx: &Context) -> usize {
    owned_gate_places(ctx)
        .iter()
        .map(|place| crate::proc::kill_processes_under(place))
        .sum()
}

/// Every place a gate worktree of this project may be: the current one and the older
/// one inside the common dir.
fn owned_gate_places(ctx: &Context) -> Vec<PathBuf> {
    let mut places = vec![crate::state::legacy_gate_worktree(&ctx.repo.common_dir())];
    places.extend(worktree_path(ctx).ok());
    places
}

/// A run killed while it created a gate worktree can leave its registration half
/// written: without `commondir` git fails in every command that looks at all worktrees
/// (`fetch` included), and with its `gitdir` file created but not filled yet gix fails
/// to add any worktree beside it, the gate's next one included; one still locked
/// `initializing` may have the null id for HEAD, which `git fetch` rejects as a bad
/// object, so the next landing's fetch from a remote queue fails. Drop such registrations:
/// every unfinished one whose `gitdir` stayed empty (it names no worktree, so it is
/// nobody's; and in a nested repository, fleet's are not named `gate*`), and those of
/// fleet's own gate worktrees (whose `gitdir` points into one of the `owned` folders,
/// see [`owned_folders`], or unfinished ones named `gate*` older than ten seconds), with
/// their folders. Called holding the land lock. The records removed come back, for the
/// caller to tell.
pub fn drop_broken_gate_worktrees(repo: &Repo, owned: &[PathBuf]) -> Vec<PathBuf> {
    let mut removed = repo.drop_unwritten_worktree_records();
    for record in repo.worktree_records() {
        // Only landing calls this, under its lock: an add still `initializing` is one a
        // killed run started, never one in progress.
        if record.is_complete() && !record.is_initializing() {
            continue;
        }
        let gitdir = record.gitdir();
        let ours = match &gitdir {
            Some(gitdir) => owned.iter().any(|folder| gitdir.starts_with(folder)),
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
/// reused after (so build caches in ignored folders stay warm). A gate worktree left at
/// an older place (inside the common dir, or under another worktree root) is retired
/// first: its records in every repository of the project and its folder go.
pub fn prepare_worktree(ctx: &Context, candidate: ObjectId) -> Result<PathBuf> {
    let path = worktree_path(ctx)?;
    retire_old_gate_worktrees(ctx, &path)?;
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|e| Error::env(format!("cannot create {}: {e}", folder.display())))?;
    }
    prepare_worktree_at(&ctx.repo, &path, candidate)?;
    Ok(path)
}

/// Retire every gate worktree of this project that is not at `current`: the one inside
/// the common dir older versions made, and those under a worktree root the
/// configuration no longer names (recognised by this project's private folder name).
/// Processes still working there are killed; the records (outer and nested
/// repositories) go before the folders, so no record is left naming a missing folder.
fn retire_old_gate_worktrees(ctx: &Context, current: &Path) -> Result<()> {
    let key = current.parent().and_then(Path::file_name);
    let legacy = crate::state::legacy_gate_worktree(&ctx.repo.common_dir());
    let mut old: Vec<PathBuf> = Vec::new();
    for wt in ctx.repo.worktrees()? {
        if wt.is_main || same_path(&wt.path, current) {
            continue;
        }
        let ours = same_path(&wt.path, &legacy)
            || (wt.path.file_name().is_some_and(|n| n == "gate")
                && wt.path.parent().and_then(Path::file_name) == key
                && wt
                    .path
                    .parent()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == GATE_FOLDER));
        if ours {
            old.push(wt.path);
        }
    }
    if legacy.exists() && !old.iter().any(|p| same_path(p, &legacy)) {
        old.push(legacy.clone());
    }
    if old.is_empty() {
        return Ok(());
    }
    let mut repos = vec![Repo::open(&ctx.shared)?];
    repos.extend(
        ctx.nested_repos()
            .iter()
            .filter_map(|n| Repo::open(&ctx.shared.join(&n.rel)).ok()),
    );
    for place in &old {
        crate::proc::kill_processes_under(place);
        for repo in &repos {
            for wt in repo.worktrees()? {
                if let Some(id) = wt.id.as_deref()
                    && wt.path.starts_with(place)
                {
                    repo.drop_worktree_record(id)?;
                }
            }
        }
        let folder = if same_path(place, &legacy) {
            let _ = std::fs::remove_file(place.with_file_name("gate-nested"));
            place.clone()
        } else {
            place.parent().map_or(place.clone(), Path::to_path_buf)
        };
        if folder.exists() {
            std::fs::remove_dir_all(&folder)
                .map_err(|e| Error::env(format!("cannot remove {}: {e}", folder.display())))?;
        }
    }
    Ok(())
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
    repo.add_detached_worktree(&path, candidate)?;
    // gix's checkout follows the repository's sparse settings, leaving paths out and
    // marked skip-worktree: the reset gives the new worktree the whole tree.
    reset_gate(&path, candidate, &no_hooks_dir(repo)?)
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
