//! Repository overrides in fleet's own environment (`GIT_DIR`, `GIT_WORK_TREE`, ...).
//!
//! fleet finds repositories from the current folder (or `-C`), never from these
//! variables: gix applies them to every repository it opens, so with `GIT_WORK_TREE`
//! set, the dirty check of another agent's worktree would look at the wrong tree. The
//! binary takes them out of its environment before anything else runs ([`take`]),
//! except for `fleet hook`, which git runs with them on purpose (it takes out only
//! `GIT_NAMESPACE`, which gix would apply to its own reads of HEAD: see `main.rs`). `fleet preflight`
//! still judges the values fleet was started with, through [`started_with`].

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The variables that make git or gix look at another repository, worktree, index,
/// object store or ref namespace than the folder's own: the one list. The binary takes
/// them out of its own environment ([`take`]); every git command fleet starts, and every
/// gate command, runs without them ([`FOR_CHILDREN`]). Not `GIT_PREFIX`: git sets it for
/// shell aliases, and neither git nor gix reads it to find anything.
pub const OVERRIDES: [&str; 7] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
];

/// What fleet removes from the environment of the commands it starts (git, and the
/// gate's commands): [`OVERRIDES`], plus `GIT_PREFIX`. fleet runs git with `-C` at a
/// checkout's top, where the subfolder a git alias was started in means nothing, and a
/// gate command that reads `$GIT_PREFIX` (as alias scripts do) would look in the wrong
/// folder of the candidate. fleet itself keeps it: it finds nothing with it, and the
/// warning about ignored overrides does not name it.
pub const FOR_CHILDREN: [&str; OVERRIDES.len() + 1] = {
    let mut all = ["GIT_PREFIX"; OVERRIDES.len() + 1];
    let mut i = 0;
    while i < OVERRIDES.len() {
        all[i] = OVERRIDES[i];
        i += 1;
    }
    all
};

static TAKEN: OnceLock<Vec<(&'static str, OsString)>> = OnceLock::new();

/// Remove [`OVERRIDES`] (but those in `keep`) from the process environment and remember
/// their values; returns the ones that were set.
///
/// # Safety
///
/// Changes the process environment: call it before any other thread starts.
pub unsafe fn take(keep: &[&str]) -> &'static [(&'static str, OsString)] {
    let found: Vec<_> = OVERRIDES
        .iter()
        .filter(|var| !keep.contains(var))
        .filter_map(|var| std::env::var_os(var).map(|value| (*var, value)))
        .collect();
    for (var, _) in &found {
        // SAFETY: the caller guarantees no other thread runs.
        unsafe { std::env::remove_var(var) };
    }
    TAKEN.get_or_init(|| found)
}

/// The value `var` had when fleet started: the taken one after [`take`], else the
/// environment's.
pub fn started_with(var: &str) -> Option<OsString> {
    match TAKEN.get() {
        Some(taken) => taken
            .iter()
            .find(|(name, _)| *name == var)
            .map(|(_, value)| value.clone()),
        None => std::env::var_os(var),
    }
}

/// The warning for the overrides [`take`] removed, naming those that would have changed
/// what git sees from `cwd`; `None` when all of them agree with the folder (a git shell
/// alias run in a linked worktree exports its own `GIT_DIR`, for one).
pub fn ignored_warning(taken: &[(&'static str, OsString)], cwd: &Path) -> Option<String> {
    let value = |var: &str| {
        taken
            .iter()
            .find(|(name, _)| *name == var)
            .map(|(_, v)| v.as_os_str())
    };
    let agrees = location_problem(cwd, value("GIT_DIR"), value("GIT_WORK_TREE")).is_none();
    let named: Vec<String> = taken
        .iter()
        .filter(|(var, _)| !(agrees && matches!(*var, "GIT_DIR" | "GIT_WORK_TREE")))
        .map(|(var, v)| format!("{var}={}", Path::new(v).display()))
        .collect();
    if named.is_empty() {
        return None;
    }
    Some(format!(
        "ignoring {}: fleet finds the repository from the current folder (or -C), not from the environment",
        named.join(", ")
    ))
}

/// Why `GIT_DIR`/`GIT_WORK_TREE` (either may be unset) make git see another repository
/// or another worktree top than the folder `cwd` belongs to; `None` when they agree.
/// "The folder's own" is found by hand, walking up to the nearest `.git`.
pub fn location_problem(
    cwd: &Path,
    git_dir: Option<&OsStr>,
    work_tree: Option<&OsStr>,
) -> Option<String> {
    if git_dir.is_none() && work_tree.is_none() {
        return None;
    }
    let cwd = canon(cwd);
    let own = nearest_dot_git(&cwd);
    let elsewhere = |var: &str, value: &OsStr| {
        Some(format!(
            "{var}={} points somewhere other than the repository of this folder; unset it",
            Path::new(value).display()
        ))
    };
    if let Some(value) = git_dir {
        let Some((top, dir)) = &own else {
            return elsewhere("GIT_DIR", value);
        };
        if canon(Path::new(value)) != *dir {
            return elsewhere("GIT_DIR", value);
        }
        // Without GIT_WORK_TREE (or core.worktree, which fleet does not use), git takes
        // the current folder as the top of the worktree.
        if work_tree.is_none() && cwd != *top {
            return Some(format!(
                "GIT_DIR={} without GIT_WORK_TREE makes git take {} as the top of the worktree instead of {}; unset GIT_DIR",
                Path::new(value).display(),
                cwd.display(),
                top.display()
            ));
        }
    }
    if let Some(value) = work_tree {
        let matches = own
            .as_ref()
            .is_some_and(|(top, _)| canon(Path::new(value)) == *top);
        if !matches {
            return elsewhere("GIT_WORK_TREE", value);
        }
    }
    None
}

/// The nearest folder at or above `start` holding `.git`, and the git dir it names.
fn nearest_dot_git(start: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            return Some((d.to_path_buf(), canon(&dot_git)));
        }
        if let Ok(text) = std::fs::read_to_string(&dot_git) {
            let target = text.trim().strip_prefix("gitdir:")?.trim().to_string();
            return Some((d.to_path_buf(), canon(&d.join(target))));
        }
        dir = d.parent();
    }
    None
}

fn canon(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_lose_every_override_and_the_alias_prefix() {
        for var in OVERRIDES.iter().chain(&["GIT_PREFIX"]) {
            assert!(FOR_CHILDREN.contains(var), "{var}");
        }
        assert_eq!(FOR_CHILDREN.len(), OVERRIDES.len() + 1);
        assert!(FOR_CHILDREN.contains(&"GIT_NAMESPACE"));
        assert!(FOR_CHILDREN.contains(&"GIT_ALTERNATE_OBJECT_DIRECTORIES"));
    }
}
