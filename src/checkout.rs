//! The shared checkout follows the target: when `fleet land` moves the branch the shared
//! checkout has checked out, its index and files move with it.
//!
//! Promise: nothing of the user's is overwritten. Before the target moves, every path
//! the landing changes must be exactly as in the old target on disk (not modified, not
//! untracked, not ignored); otherwise the landing is refused. After the move the files
//! follow with a two-tree `read-tree -m -u`, and a landing killed half way through that
//! step is repaired path by path on the next run.

use std::os::unix::ffi::OsStringExt;
use std::path::Path;

use crate::error::Result;
use crate::git::{self, ChangedPath, GITLINK, ObjectId, Repo};
use crate::report::Ui;

/// Paths the landing would change that the shared checkout holds something of its own
/// in: a modification, an untracked or an ignored file (as `git status` sees them, with
/// the user's filters and ignore rules), or a file standing where the change needs a
/// folder. `git status` runs only when the index and `lstat` cannot prove the paths
/// untouched.
pub fn collisions(shared: &Path, changed: &[ChangedPath]) -> Result<Vec<String>> {
    let paths: Vec<String> = changed.iter().map(|c| c.path.clone()).collect();
    let local = if Repo::open(shared).is_ok_and(|repo| repo.provably_as_before(changed)) {
        Vec::new()
    } else {
        local_paths(shared, &paths)?
    };
    let mut hits: Vec<String> = changed
        .iter()
        .filter(|c| {
            local.iter().any(|l| {
                c.path == *l
                    || c.path.starts_with(&format!("{l}/"))
                    || l.starts_with(&format!("{}/", c.path))
            }) || blocked_by_a_file(shared, &c.path, &paths)
        })
        .map(|c| c.path.clone())
        .collect();
    hits.dedup();
    Ok(hits)
}

/// Why the shared checkout cannot follow a move of its branch right now, seen before
/// the target moves (`None`: it can). The landing is then refused with the reason, and
/// the shared checkout is left exactly as it was: moving the target first would leave
/// its files behind and its index staging the landing's inverse.
///
/// - A merge, rebase, cherry-pick, revert, am or bisect in progress, or conflicts in
///   the index: the files cannot move (`read-tree` needs a resolved index), and
///   finishing the operation later would commit a tree without the landing.
/// - Edits the index hides (skip-worktree, assume-unchanged) at a path the landing
///   changes: `git status` does not see them, the move would trip over them. A hidden
///   entry whose file is absent (a sparse checkout) is no edit, and one at a path the
///   landing does not change stays as it is.
/// - A live git holds the index lock (`git commit` with its editor open, say).
pub fn cannot_follow(shared: &Path, changed: &[ChangedPath]) -> Result<Option<String>> {
    let repo = Repo::open(shared)?;
    if let Some(op) = repo.operation_in_progress() {
        let (what, finish) = operation_words(op);
        return Ok(Some(format!(
            "the shared checkout is in the middle of {what}: finish it or abort it ({finish}), \
             then land again"
        )));
    }
    let unmerged = repo.unmerged_paths()?;
    if !unmerged.is_empty() {
        return Ok(Some(format!(
            "the shared checkout's index has unresolved conflicts: {}; resolve them (git add) \
             or drop them, then land again",
            unmerged.join(", ")
        )));
    }
    let hidden = hidden_edits(&repo, shared, changed)?;
    if !hidden.is_empty() {
        let flags: Vec<String> = hidden
            .iter()
            .map(|(path, flag)| format!("{path} ({flag})"))
            .collect();
        return Ok(Some(format!(
            "the shared checkout has local edits its index hides from git status where this \
             lane changes: {}; show them with `git update-index --no-skip-worktree \
             --no-assume-unchanged PATH`, then commit, move or drop them",
            flags.join(", ")
        )));
    }
    if let Some(pid) = live_index_lock_holder(&repo) {
        let command = crate::sys::procfs::args(pid)
            .map(|a| a.join(" "))
            .unwrap_or_default();
        return Ok(Some(format!(
            "the shared checkout's {} is held by a running git, or may be (pid {pid}: \
             `{command}`); land again once that has finished",
            repo.index_lock().display()
        )));
    }
    Ok(None)
}

/// What an operation in progress is called, and the commands that end it.
fn operation_words(op: git::Operation) -> (&'static str, &'static str) {
    use git::Operation as Op;
    match op {
        Op::Merge => ("a merge", "git commit, or git merge --abort"),
        Op::Rebase { .. } => ("a rebase", "git rebase --continue, or git rebase --abort"),
        Op::Am => ("a git am", "git am --continue, or git am --abort"),
        Op::CherryPick => (
            "a cherry-pick",
            "git cherry-pick --continue, or git cherry-pick --abort",
        ),
        Op::Revert => ("a revert", "git revert --continue, or git revert --abort"),
        Op::Bisect => ("a bisect", "git bisect reset"),
    }
}

/// The paths `changed` touches whose index entry is hidden from `git status` and whose
/// file is there and differs from the entry, or whose entry is not the old side, with
/// the flag that hides it.
fn hidden_edits(
    repo: &Repo,
    shared: &Path,
    changed: &[ChangedPath],
) -> Result<Vec<(String, &'static str)>> {
    let paths: Vec<String> = changed.iter().map(|c| c.path.clone()).collect();
    let hidden = repo.hidden_entries(&paths)?;
    if hidden.is_empty() {
        return Ok(Vec::new());
    }
    let hidden_paths: Vec<String> = hidden.iter().map(|h| h.path.clone()).collect();
    let on_disk = disk_blobs_filtered(shared, &hidden_paths)?;
    Ok(hidden
        .into_iter()
        .zip(on_disk)
        .filter(|(entry, disk)| {
            let old = changed
                .iter()
                .find(|c| c.path == entry.path)
                .and_then(|c| c.old);
            let present = std::fs::symlink_metadata(shared.join(&entry.path)).is_ok();
            old != Some(entry.id) || (present && *disk != Some(entry.id))
        })
        .map(|(entry, _)| (entry.path, entry.flag))
        .collect())
}

/// The live process holding the index lock, after waiting a few seconds for one that
/// only refreshes the index (`git status`); `None` when there is no lock or it is
/// stale (then [`follow`] clears it).
fn live_index_lock_holder(repo: &Repo) -> Option<u32> {
    let lock = repo.index_lock();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        if !lock.exists() {
            return None;
        }
        let holder = git::lock_holder(&lock)?;
        if std::time::Instant::now() >= deadline {
            return Some(holder);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// What `git status` shows in `shared` among `paths`: limited to them (the cost
/// follows the change, not the repository), unless there are so many that the command
/// line would not hold them.
fn local_paths(shared: &Path, paths: &[String]) -> Result<Vec<String>> {
    let only = (paths.len() <= 2000).then_some(paths);
    Ok(git::cli::status_paths(shared, only)?
        .into_iter()
        .map(|p| p.trim_end_matches('/').to_string())
        .collect())
}

/// A file (not a folder) on disk where `path` needs a folder, and which the change does
/// not itself remove.
fn blocked_by_a_file(shared: &Path, path: &str, changed: &[String]) -> bool {
    let mut ancestor = std::path::PathBuf::new();
    let parts: Vec<&str> = path.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        ancestor.push(part);
        if std::fs::symlink_metadata(shared.join(&ancestor)).is_ok_and(|m| !m.is_dir()) {
            let name = ancestor.to_string_lossy();
            return !changed.iter().any(|c| *c == name);
        }
    }
    false
}

/// Bring the shared checkout's index and files from `base` to `candidate`, after the
/// collision check found nothing of the user's in the way.
pub fn follow(shared: &Path, base: ObjectId, candidate: ObjectId, no_hooks: &Path) -> Result<()> {
    wait_out_index_lock(shared);
    git::cli::move_checkout(shared, &base.to_string(), &candidate.to_string(), no_hooks)
}

/// A live git holds the index lock for moments; one a killed git (or a `kill -9`ed
/// fleet's `git status`) left is cleared once it is ten seconds old and no live process
/// can hold it (see [`git::lock_holder`]), so the files can follow.
fn wait_out_index_lock(shared: &Path) {
    let Ok(repo) = Repo::open(shared) else {
        return;
    };
    git::wait_out_lock(&repo.index_lock());
}

/// Finish a `follow` that was killed half way: paths whose file already has the new
/// content get the new index entry; the rest are moved by `follow`. A path whose file
/// is neither the old nor the new version (edited in the meantime) keeps the file and
/// gets the new index entry, so the edit shows as a local change; those are returned.
/// Files the last step could not move are a warning to `ui`, not an error.
pub fn repair(
    repo: &Repo,
    shared: &Path,
    base: ObjectId,
    candidate: ObjectId,
    no_hooks: &Path,
    ui: &dyn Ui,
) -> Result<Vec<String>> {
    wait_out_index_lock(shared);
    let changed = repo.changed_paths(repo.tree_of(base)?, repo.tree_of(candidate)?)?;
    let mut index_lines = String::new();
    let mut kept = Vec::new();
    let mut rewrite = Vec::new();
    for change in &changed {
        let path = shared.join(&change.path);
        let on_disk = disk_blob(&path);
        let already_new = on_disk == change.new;
        let still_old = on_disk == change.old;
        if change.new_mode == GITLINK || change.old_mode == GITLINK || already_new || !still_old {
            if !already_new
                && !still_old
                && change.new_mode != GITLINK
                && change.old_mode != GITLINK
            {
                if half_written(repo, &path, change.new)? {
                    rewrite.push(change.path.clone());
                } else {
                    kept.push(change.path.clone());
                }
            }
            index_lines.push_str(&index_line(change));
        }
    }
    if !index_lines.is_empty() {
        git::cli::update_index_info(shared, &index_lines)?;
    }
    if !rewrite.is_empty() {
        git::cli::checkout_index(shared, &rewrite)?;
    }
    // Entries set to the new version are left alone by the two-tree merge; the others
    // are still at the old version, on disk and in the index, and move now.
    git::cli::refresh_index(shared)?;
    if let Err(e) = follow(shared, base, candidate, no_hooks) {
        ui.warn(&format!(
            "some files of the shared checkout could not be updated: {}",
            e.message
        ));
    }
    Ok(kept)
}

/// The lock on a shared checkout's files ([`crate::state::RepoLock`] `shared-files`):
/// the guard holds it while it puts a refused command's files back, and the watchdog
/// while it reads or moves them, so a snapshot never shows the put-back half done (a
/// refused switch's files, say, with `fleet.toml` deleted).
pub fn lock_files(repo: &Repo, wait: std::time::Duration) -> Result<crate::state::RepoLock> {
    repo.lock("shared-files", wait)
}

/// Undo what a refused command already did to the shared checkout: `git switch`,
/// `reset` and `merge` rewrite the index and files to `moved_to` before git asks the
/// guard, which then refuses to move HEAD off `back_to` (both trees). Each path the two
/// trees differ in goes back to `back_to` in the index and on disk, but only where it still
/// holds exactly what the command put there; anything else is the user's and stays.
/// Returns the paths put back.
pub fn put_back(
    repo: &Repo,
    shared: &Path,
    moved_to: ObjectId,
    back_to: ObjectId,
) -> Result<Vec<String>> {
    // A watchdog snapshot takes a second or so; after longer than that the files go
    // back without the lock: they matter more than one snapshot.
    let _files = lock_files(repo, std::time::Duration::from_secs(10)).ok();
    let mut changed = repo.changed_paths(moved_to, back_to)?;
    changed.retain(|c| c.old_mode != GITLINK && c.new_mode != GITLINK);
    // Removals first, so a file can give way to a folder and the other way round.
    changed.sort_by_key(|c| c.new.is_some());
    let paths: Vec<String> = changed.iter().map(|c| c.path.clone()).collect();
    let index = repo.index_entries(&paths)?;
    let on_disk = disk_blobs_filtered(shared, &paths)?;
    let mut index_lines = String::new();
    let mut from_index = Vec::new();
    let mut restored = Vec::new();
    for (change, disk) in changed.iter().zip(&on_disk) {
        let index_moved = match (index.get(&change.path), change.old) {
            (Some(&(mode, id)), Some(old)) => id == old && mode == change.old_mode,
            (None, None) => true,
            _ => false,
        };
        if index_moved {
            index_lines.push_str(&index_line(change));
        }
        let file = shared.join(&change.path);
        let disk_moved = *disk == change.old && !file.is_dir();
        if disk_moved && change.new.is_none() {
            write_version(repo, shared, &file, change)?;
        } else if disk_moved && index_moved {
            // Written by git from the index below, through the checkout's filters.
            if std::fs::symlink_metadata(&file).is_ok() {
                std::fs::remove_file(&file).map_err(|e| {
                    crate::error::Error::env(format!("cannot replace {}: {e}", file.display()))
                })?;
            }
            from_index.push(change.path.clone());
        } else if disk_moved {
            write_version(repo, shared, &file, change)?;
        }
        if disk_moved || index_moved {
            restored.push(change.path.clone());
        }
    }
    if !index_lines.is_empty() {
        update_index_patiently(shared, &index_lines)?;
    }
    if !from_index.is_empty() {
        git::cli::checkout_index(shared, &from_index)?;
    }
    git::cli::refresh_index(shared)?;
    restored.dedup();
    Ok(restored)
}

/// The blob each path's file on disk would be (`None` when absent), through the
/// checkout's clean filters (eol conversion, LFS), as `git add` would see it.
fn disk_blobs_filtered(shared: &Path, paths: &[String]) -> Result<Vec<Option<ObjectId>>> {
    let regular: Vec<String> = paths
        .iter()
        .filter(|p| std::fs::symlink_metadata(shared.join(p)).is_ok_and(|m| m.is_file()))
        .cloned()
        .collect();
    let hashed = git::cli::hash_files(shared, &regular)?;
    Ok(paths
        .iter()
        .map(|p| match regular.iter().position(|r| r == p) {
            Some(i) => hashed.get(i).copied(),
            None => disk_blob(&shared.join(p)),
        })
        .collect())
}

/// `git status` run by an editor or a polling agent takes `index.lock` for a moment to
/// refresh the index; wait that out (up to about two seconds) instead of leaving the
/// index half put back.
fn update_index_patiently(shared: &Path, lines: &str) -> Result<()> {
    let mut attempt = 0;
    loop {
        match git::cli::update_index_info(shared, lines) {
            Err(e) if attempt < 40 && e.kind == crate::error::Kind::Locked => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Put `change`'s new side on disk at `file` (or remove it when the new side has none).
fn write_version(repo: &Repo, shared: &Path, file: &Path, change: &ChangedPath) -> Result<()> {
    use crate::error::Context;
    use std::os::unix::fs::PermissionsExt;
    if std::fs::symlink_metadata(file).is_ok() {
        std::fs::remove_file(file).context(|| format!("cannot remove {}", file.display()))?;
    }
    let Some(id) = change.new else {
        remove_empty_parents(shared, file);
        return Ok(());
    };
    let bytes = repo.blob(id)?;
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent)
            .context(|| format!("cannot create {}", parent.display()))?;
    }
    if change.new_mode == 0o120000 {
        let target = std::ffi::OsString::from_vec(bytes);
        std::os::unix::fs::symlink(&target, file)
            .context(|| format!("cannot create the link {}", file.display()))?;
        return Ok(());
    }
    std::fs::write(file, &bytes).context(|| format!("cannot write {}", file.display()))?;
    if change.new_mode == 0o100755 {
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755))
            .context(|| format!("cannot make {} executable", file.display()))?;
    }
    Ok(())
}

fn remove_empty_parents(shared: &Path, file: &Path) {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if d == shared || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

fn index_line(change: &ChangedPath) -> String {
    match change.new {
        Some(id) => format!("{:o} {id}\t{}\0", change.new_mode, change.path),
        None => format!("0 {}\t{}\0", git::null_id(), change.path),
    }
}

/// Did the killed checkout stop while writing this file? git removes the old file,
/// creates the new one and then writes it, so a kill leaves it missing, empty, or
/// holding the start of the new content: never mistaken for someone's edit.
fn half_written(repo: &Repo, path: &Path, new: Option<ObjectId>) -> Result<bool> {
    let Some(new) = new else {
        return Ok(false);
    };
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(true);
    };
    if !meta.is_file() {
        return Ok(false);
    }
    let on_disk = std::fs::read(path).unwrap_or_default();
    Ok(repo.blob(new)?.starts_with(&on_disk))
}

/// The blob id of what is on disk at `path` (a symlink's target for links), `None` when
/// nothing is there.
fn disk_blob(path: &Path) -> Option<ObjectId> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let bytes = if meta.file_type().is_symlink() {
        std::fs::read_link(path)
            .ok()?
            .into_os_string()
            .into_encoded_bytes()
    } else if meta.is_file() {
        std::fs::read(path).ok()?
    } else {
        return None;
    };
    git::blob_id(&bytes)
}
