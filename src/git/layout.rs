//! git's own files: what a `.git` entry or a folder is, what git is in the middle of
//! (the state files it leaves in a git dir), and where its lock files are. Only this
//! module knows these names.

use std::path::{Path, PathBuf};

use super::Repo;
use crate::error::Result;

/// The name of the lock git holds while it writes an index (also the word fleet uses
/// for "git is writing the index right now").
pub const INDEX_LOCK: &str = "index.lock";

/// Does `dir` look like a git dir itself (what git checks: `HEAD`, `objects/`, `refs/`)?
pub fn is_git_dir(dir: &Path) -> bool {
    head_file(dir).is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// The file that holds the HEAD of the git dir `git_dir`.
pub fn head_file(git_dir: &Path) -> PathBuf {
    git_dir.join("HEAD")
}

/// What the `.git` entry in a folder makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotGit {
    /// No `.git`, or one that names no git dir.
    None,
    /// A repository of its own.
    Repository,
    /// A linked worktree of some repository (an agent worktree, say).
    LinkedWorktree,
}

/// What the `.git` in `dir` makes it. A `.git` file names the git dir (`gitdir: X`): a
/// linked worktree's has a `commondir` file, a separate git dir (`git init
/// --separate-git-dir`) has none. A `.git` symlink to a git dir is a repository too.
pub fn dot_git(dir: &Path) -> DotGit {
    let dot_git = dir.join(".git");
    match std::fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => DotGit::Repository,
        Ok(meta) if meta.is_file() => {
            let Some(git_dir) = super::gitdir_link(dir) else {
                return DotGit::None;
            };
            if git_dir.join("commondir").is_file() {
                DotGit::LinkedWorktree
            } else {
                DotGit::Repository
            }
        }
        _ => DotGit::None,
    }
}

/// An operation git has started in a worktree and not finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// `git am` applying patches.
    Am,
    /// A rebase (or an am git cannot tell from one); `apply` when its state is kept in
    /// `rebase-apply` (the apply backend, or am), not `rebase-merge`.
    Rebase {
        apply: bool,
    },
    Merge,
    CherryPick,
    Revert,
    Bisect,
}

impl Repo {
    /// What git is in the middle of in this worktree, from the state files it leaves in
    /// the worktree's git dir: gix's `Repository::state()`, which follows git's own
    /// `wt_status_get_state`.
    pub fn operation_in_progress(&self) -> Option<Operation> {
        use gix::state::InProgress as S;
        let git_dir = self.git_dir();
        Some(match self.inner.state()? {
            S::ApplyMailbox => Operation::Am,
            S::ApplyMailboxRebase => Operation::Rebase { apply: true },
            // gix says `Rebase` for both backends; fleet's messages tell them apart.
            S::Rebase => Operation::Rebase {
                apply: git_dir.join("rebase-apply").is_dir(),
            },
            S::RebaseInteractive => Operation::Rebase { apply: false },
            S::CherryPick | S::CherryPickSequence => Operation::CherryPick,
            S::Merge => Operation::Merge,
            // gix ranks a bisect above a revert. A revert started during a bisect is
            // what the checkout is in the middle of, and what its `--abort` undoes.
            S::Bisect if git_dir.join("REVERT_HEAD").is_file() => Operation::Revert,
            S::Bisect => Operation::Bisect,
            S::Revert | S::RevertSequence => Operation::Revert,
        })
    }

    /// The lock file git holds while it writes this worktree's index.
    pub fn index_lock(&self) -> PathBuf {
        self.git_dir().join(INDEX_LOCK)
    }

    /// Is git writing this worktree's index right now (or did a killed git leave its
    /// lock behind)?
    pub fn index_locked(&self) -> bool {
        self.index_lock().exists()
    }

    /// Is the main worktree's HEAD being updated right now (git holds
    /// `<common>/HEAD.lock` while it moves the shared checkout's own HEAD; a linked
    /// worktree's HEAD is locked in its record instead)?
    pub fn main_head_locked(&self) -> bool {
        self.main_head_lock().exists()
    }

    /// The lock git and gix take while they move the main worktree's HEAD.
    pub fn main_head_lock(&self) -> PathBuf {
        self.common_dir().join("HEAD.lock")
    }

    /// This worktree's index file.
    pub fn index_path(&self) -> PathBuf {
        self.git_dir().join("index")
    }

    /// The ref the main worktree's HEAD names (`refs/heads/main`), read straight from
    /// the common dir's `HEAD` file, so it is cheap from any worktree; `None` when that
    /// HEAD is detached or unreadable.
    pub fn main_head_ref(&self) -> Option<String> {
        let head = std::fs::read_to_string(head_file(&self.common_dir())).ok()?;
        head.trim().strip_prefix("ref: ").map(String::from)
    }

    /// Every lock file of git's that exists in this repository: `index.lock`,
    /// `HEAD.lock` and `packed-refs.lock` in the common dir and in each linked
    /// worktree's record, then every `*.lock` under `refs/`.
    pub fn lock_files(&self) -> Result<Vec<PathBuf>> {
        let mut dirs: Vec<PathBuf> = vec![self.common_dir()];
        for wt in self.worktrees()? {
            if let Some(id) = &wt.id {
                dirs.push(self.worktree_record(id).dir);
            }
        }
        let mut out = Vec::new();
        for dir in &dirs {
            for file in [INDEX_LOCK, "HEAD.lock", "packed-refs.lock"] {
                let path = dir.join(file);
                if path.exists() {
                    out.push(path);
                }
            }
        }
        collect_ref_locks(&self.common_dir().join("refs"), &mut out);
        Ok(out)
    }
}

impl Repo {
    /// Remove the ref lock files under `prefix` (`refs/remotes/origin/`, say) that no live
    /// process can hold (see [`super::lock_holder`]): what a `git fetch` killed while it
    /// updated those refs leaves, and which makes every later fetch fail ("cannot lock
    /// ref ... File exists"). Returns how many were removed.
    pub fn clear_stale_ref_locks_under(&self, prefix: &str) -> usize {
        let mut locks = Vec::new();
        collect_ref_locks(&self.common_dir().join(prefix), &mut locks);
        locks
            .iter()
            .filter(|lock| super::clear_stale_file(lock, std::time::Duration::ZERO))
            .count()
    }
}

fn collect_ref_locks(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_ref_locks(&path, out);
        } else if path.extension().is_some_and(|e| e == "lock") {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `operation_in_progress` reads from a git dir holding exactly `files`
    /// (folders end with `/`).
    fn state_of(files: &[&str]) -> Option<Operation> {
        let dir = tempfile::tempdir().unwrap();
        gix::init(dir.path()).unwrap();
        let git_dir = dir.path().join(".git");
        for file in files {
            let path = git_dir.join(file);
            match file.strip_suffix('/') {
                Some(_) => std::fs::create_dir_all(&path).unwrap(),
                None => {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, "").unwrap();
                }
            }
        }
        Repo::open(dir.path()).unwrap().operation_in_progress()
    }

    #[test]
    fn operations_are_named_as_the_hand_lists_named_them() {
        assert_eq!(state_of(&[]), None);
        assert_eq!(state_of(&["rebase-apply/applying"]), Some(Operation::Am));
        let apply = Some(Operation::Rebase { apply: true });
        assert_eq!(state_of(&["rebase-apply/rebasing"]), apply);
        assert_eq!(state_of(&["rebase-apply/"]), apply);
        let merge_backend = Some(Operation::Rebase { apply: false });
        assert_eq!(state_of(&["rebase-merge/"]), merge_backend);
        assert_eq!(state_of(&["rebase-merge/interactive"]), merge_backend);
        assert_eq!(state_of(&["MERGE_HEAD"]), Some(Operation::Merge));
        assert_eq!(state_of(&["CHERRY_PICK_HEAD"]), Some(Operation::CherryPick));
        assert_eq!(state_of(&["REVERT_HEAD"]), Some(Operation::Revert));
        assert_eq!(state_of(&["BISECT_LOG"]), Some(Operation::Bisect));
        // A revert started during a bisect is the revert.
        let both = state_of(&["BISECT_LOG", "REVERT_HEAD"]);
        assert_eq!(both, Some(Operation::Revert));
        assert_eq!(
            state_of(&["BISECT_LOG", "MERGE_HEAD"]),
            Some(Operation::Merge)
        );
    }
}
