//! Submodules of a new agent worktree: checked out from the shared checkout's objects,
//! without the network, finished after a cut-short run by their markers.

use std::path::Path;

use super::new::Member;
use crate::error::{Error, Result};
use crate::git::{self, Repo};

/// Populate the submodules of a member's worktree that are not checked out yet, and
/// finish the ones a cut-short run left a marker for. Submodules without a marker are
/// never touched again: they may hold the agent's work.
pub(super) fn complete_submodules(member: &Member) -> Result<Vec<String>> {
    let repo = Repo::open(&member.path)?;
    let markers = crate::state::submodule_markers(&repo.git_dir());
    let notes = populate_submodules(&markers, &member.path, &repo, &member.path, &member.shared)?;
    let _ = std::fs::remove_dir(&markers);
    Ok(notes)
}

/// Check out the submodules of the checkout `path` (its repository `repo`, inside the
/// worktree `top`) from the objects of the shared checkout `shared`, recursively,
/// without the network.
fn populate_submodules(
    markers: &Path,
    top: &Path,
    repo: &Repo,
    path: &Path,
    shared: &Path,
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for sub in repo.submodules() {
        let (name, rel) = (sub.name, sub.path);
        let checkout = path.join(&rel);
        let source = shared.join(&rel);
        let Ok(source_repo) = Repo::open(&source) else {
            notes.push(format!(
                "submodule {} is not populated: the shared checkout has no copy of it (run `git submodule update --init` there)",
                rel.display()
            ));
            continue;
        };
        let url = sub.url;
        if let Some(recorded) = sub.index_id
            && !source_repo.has_object(recorded)
        {
            notes.push(format!(
                "submodule {} is not populated: the shared checkout's copy lacks its commit {} (run `git submodule update` there)",
                rel.display(),
                recorded.to_hex_with_len(12)
            ));
            continue;
        }
        let marker = markers.join(marker_name(checkout.strip_prefix(top).unwrap_or(&rel)));
        let cut_short = marker.exists();
        if cut_short {
            notes.push(format!(
                "submodule {} was being checked out when an earlier run stopped; checking it out again",
                checkout.display()
            ));
            restart_submodule(&checkout)?;
        }
        let checked_out = checkout.join(".git").exists();
        if !checked_out || cut_short {
            std::fs::create_dir_all(markers)
                .and_then(|()| std::fs::write(&marker, b""))
                .map_err(|e| Error::env(format!("cannot write {}: {e}", marker.display())))?;
            let rel_str = rel.to_string_lossy().replace('\\', "/");
            let source_dir = source_repo.git_dir();
            git::cli::submodule_update_from_local(path, &name, &rel_str, &source_dir, checked_out)?;
            let dot_git = checkout.join(".git");
            let git_dir = match dot_git.is_dir() {
                true => Some(dot_git),
                false => git::gitdir_link(&checkout).filter(|d| d.is_dir()),
            };
            let Some(git_dir) = git_dir else {
                return Err(Error::env(format!(
                    "git did not check submodule {} out in {} (its exit was 0)",
                    rel.display(),
                    checkout.display()
                ))
                .with_help("run `git submodule update --init` in the worktree, or `fleet worktree new` again"));
            };
            if let Some(url) = url {
                git::cli::set_origin_url(&checkout, &git_dir, &url)?;
            }
            let _ = std::fs::remove_file(&marker);
        }
        let inner = Repo::open(&checkout)?;
        notes.extend(populate_submodules(
            markers, top, &inner, &checkout, &source,
        )?);
    }
    Ok(notes)
}

/// A marker's file name: the submodule's path inside the worktree, hex-encoded.
fn marker_name(rel: &Path) -> String {
    rel.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Get a submodule checkout fleet started and did not finish ready to be checked out
/// again: one whose clone never got a readable HEAD is cleared (its module git dir too)
/// so it is cloned anew; otherwise the cut-short checkout's index lock is waited out and
/// the forced update that follows rewrites its files.
fn restart_submodule(checkout: &Path) -> Result<()> {
    let opened = Repo::open(checkout).ok();
    if let Some(repo) = &opened
        && matches!(repo.head_id(), Ok(Some(_)))
    {
        git::wait_out_lock(&repo.index_lock());
        return Ok(());
    }
    let module_dir = opened
        .map(|r| r.git_dir())
        .or_else(|| git::gitdir_link(checkout));
    for dir in module_dir.iter().chain([&checkout.to_path_buf()]) {
        crate::files::remove_tree(dir)
            .map_err(|e| Error::env(format!("cannot clear {}: {e}", dir.display())))?;
    }
    Ok(())
}
