//! The shared checkout follows the target: when `fleet land` moves the branch the shared
//! checkout has checked out, its index and files move with it.
//!
//! Promise: nothing of the user's is overwritten. Before the target moves, every path
//! the landing changes must be exactly as in the old target on disk (not modified, not
//! untracked, not ignored); otherwise the landing is refused. After the move the files
//! follow with a two-tree `read-tree -m -u`, and a landing killed half way through that
//! step is repaired path by path on the next run.

use std::path::Path;

use crate::error::Result;
use crate::git::{self, ChangedPath, GITLINK, ObjectId, Repo};

/// Paths the landing would change that the shared checkout holds something of its own
/// in: a modification, an untracked or an ignored file (as `git status` sees them, with
/// the user's filters and ignore rules), or a file standing where the change needs a
/// folder.
pub fn collisions(shared: &Path, changed: &[ChangedPath]) -> Result<Vec<String>> {
    let paths: Vec<String> = changed.iter().map(|c| c.path.clone()).collect();
    // Limited to the changed paths (the cost follows the change, not the repository),
    // unless there are so many that the command line would not hold them.
    let only = (paths.len() <= 2000).then_some(paths.as_slice());
    let local: Vec<String> = git::cli::status_paths(shared, only)?
        .into_iter()
        .map(|p| p.trim_end_matches('/').to_string())
        .collect();
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

/// Bring the shared checkout's index and files from `base` to `candidate`. The
/// thorough collision check just before refreshed the index's stat data.
pub fn follow(shared: &Path, base: ObjectId, candidate: ObjectId, no_hooks: &Path) -> Result<()> {
    git::cli::move_checkout(shared, &base.to_string(), &candidate.to_string(), no_hooks)
}

/// Finish a `follow` that was killed half way: paths whose file already has the new
/// content get the new index entry; the rest are moved by `follow`. A path whose file
/// is neither the old nor the new version (edited in the meantime) keeps the file and
/// gets the new index entry, so the edit shows as a local change; those are returned.
pub fn repair(
    repo: &Repo,
    shared: &Path,
    base: ObjectId,
    candidate: ObjectId,
    no_hooks: &Path,
) -> Result<Vec<String>> {
    let changed = repo.changed_paths(repo.tree_of(base)?, repo.tree_of(candidate)?)?;
    let mut index_lines = String::new();
    let mut kept = Vec::new();
    for change in &changed {
        let on_disk = disk_blob(&shared.join(&change.path));
        let already_new = on_disk == change.new;
        let still_old = on_disk == change.old;
        if change.new_mode == GITLINK || change.old_mode == GITLINK || already_new || !still_old {
            if !already_new
                && !still_old
                && change.new_mode != GITLINK
                && change.old_mode != GITLINK
            {
                kept.push(change.path.clone());
            }
            index_lines.push_str(&index_line(change));
        }
    }
    if !index_lines.is_empty() {
        git::cli::update_index_info(shared, &index_lines)?;
    }
    // Entries set to the new version are left alone by the two-tree merge; the others
    // are still at the old version, on disk and in the index, and move now.
    git::cli::refresh_index(shared)?;
    if let Err(e) = follow(shared, base, candidate, no_hooks) {
        crate::ui::warn(&format!(
            "some files of the shared checkout could not be updated: {}",
            e.message
        ));
    }
    Ok(kept)
}

fn index_line(change: &ChangedPath) -> String {
    match change.new {
        Some(id) => format!("{:o} {id}\t{}\n", change.new_mode, change.path),
        None => format!(
            "0 {}\t{}\n",
            ObjectId::null(gix::hash::Kind::Sha1),
            change.path
        ),
    }
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
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, &bytes).ok()
}
