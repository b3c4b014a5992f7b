//! The only place that talks to git: [`Repo`], one repository as seen from one of its
//! worktrees, split by concern the way gix splits its `Repository`.
//!
//! gix does the reads, the object work and every ref update (compare-and-swap, so a ref
//! only moves from the value we saw). The git binary is used only where gix 0.90 lacks
//! the operation; those calls live in [`cli`], one function each, with the reason.
//! Nothing outside this module uses gix or reads git's own files: those questions are
//! asked here.
//!
//! This file opens a repository and answers where it is (paths, kind, HEAD, config);
//! `refs.rs` reads refs and moves them, `objects.rs` reads and writes blobs, trees and
//! commits, `merge.rs` merges in memory and compares histories, `status.rs` reads the
//! index and the worktree, `worktrees.rs` lists, adds and removes linked worktrees and
//! reads their records, `submodules.rs` lists a checkout's submodules, and `layout.rs`
//! knows git's files (state files, lock files, what a `.git` entry is); `hex` writes
//! object ids into serde records.

mod branch;
pub mod cli;
pub mod hex;
mod hidden;
mod layout;
mod merge;
mod objects;
mod refs;
mod status;
mod submodules;
mod worktrees;

pub use hidden::HiddenEntry;
pub use layout::{DotGit, INDEX_LOCK, Operation, dot_git, head_file, is_git_dir};
pub use merge::Merged;
pub use objects::{ChangedPath, CommitInfo, GITLINK, blob_id, empty_tree_id, null_id};
pub use refs::{OwnRefStep, is_valid_branch_name};
pub use submodules::Submodule;
pub use worktrees::{AdminRecord, WorktreeInfo, gitdir_link};

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use crate::error::{Context, Error, Result};

pub use gix::ObjectId;

/// One repository as seen from one of its worktrees (or a bare repository).
///
/// A clone reads nothing from disk (gix shares the ref store, the object store and the
/// configuration it read when it opened): the way to hand an open repository to another
/// function or thread instead of opening it again, which reads and parses every config
/// file (about half a millisecond each time; `worktree new` opened the shared checkout's
/// repository five more times, and drain's worktree thread eight).
#[derive(Clone)]
pub struct Repo {
    inner: gix::Repository,
}

/// A repository handle that can be shared between threads; each thread takes its own
/// [`Repo`] from it (gix repositories are per thread).
pub struct SharedRepo {
    inner: gix::ThreadSafeRepository,
}

impl SharedRepo {
    /// This thread's handle on the shared repository.
    pub fn to_thread_local(&self) -> Repo {
        Repo::from_gix(self.inner.to_thread_local())
    }
}

impl Repo {
    /// Find the repository `path` belongs to, walking up like git does.
    /// gix applies `GIT_DIR`, `GIT_WORK_TREE` and friends from the environment; the
    /// binary takes them out of it first (see [`crate::repo_env`]), except in `fleet hook`.
    pub fn discover(path: &Path) -> Result<Repo> {
        let trust = gix::sec::trust::Mapping {
            full: open_options(gix::sec::Trust::Full),
            reduced: open_options(gix::sec::Trust::Reduced),
        };
        let found = gix::ThreadSafeRepository::discover_opts(path, Default::default(), trust);
        let inner = found.map(|r| prepared(r.into())).map_err(|e| {
            // gix found no repository it can open; git may still see one (SHA-256).
            if let Ok((found, _)) = gix::discover::upwards(path) {
                let (git_dir, workdir) = found.into_repository_and_work_tree_directories();
                let at = workdir.unwrap_or_else(|| git_dir.clone());
                if let Some(error) = unsupported_repository(&git_dir, &at) {
                    return error;
                }
            }
            // Not a refusal: fleet has nothing to work on here (exit 3, an environment
            // problem, as the design's exit codes say).
            Error::env(format!(
                "{} is not inside a git repository ({e})",
                path.display()
            ))
            .with_help("run fleet inside a git checkout, or `git init` one first")
        })?;
        Ok(Repo { inner })
    }

    /// What to call a bare repository `self` belongs to, in an error: it may be a linked
    /// worktree of one (a checkout, but no shared checkout to go with it).
    pub fn bare_description(&self) -> String {
        match self.workdir() {
            Some(workdir) if self.is_linked_worktree() => format!(
                "{} is a linked worktree of the bare repository {}",
                workdir.display(),
                self.common_dir().display()
            ),
            _ => format!("{} is a bare repository", self.git_dir().display()),
        }
    }

    /// Open the repository whose worktree or git dir is exactly `path`.
    pub fn open(path: &Path) -> Result<Repo> {
        let opened = gix::open_opts(path, open_options(gix::sec::Trust::Full)).map(prepared);
        let inner = match opened {
            Ok(inner) => inner,
            Err(e) => {
                if let Some(error) = unsupported_repository(&git_dir_at(path), path) {
                    return Err(error);
                }
                return Err(e)
                    .context(|| format!("cannot open the repository at {}", path.display()));
            }
        };
        Ok(Repo { inner })
    }

    /// The checkout folder of this worktree, `None` for a bare repository.
    pub fn workdir(&self) -> Option<PathBuf> {
        self.inner.workdir().map(absolute)
    }

    pub fn git_dir(&self) -> PathBuf {
        absolute(self.inner.git_dir())
    }

    pub fn common_dir(&self) -> PathBuf {
        absolute(self.inner.common_dir())
    }

    pub fn is_bare(&self) -> bool {
        self.inner.is_bare()
    }

    /// True for a linked worktree (`git worktree add`), false for the main worktree.
    /// A private git dir never holds objects: gix 0.90 also calls a submodule clone
    /// living under `<common>/worktrees/<id>/modules/` "linked", which it is not.
    pub fn is_linked_worktree(&self) -> bool {
        self.inner.kind() == gix::repository::Kind::LinkedWorkTree
            && !self.git_dir().join("objects").is_dir()
    }

    /// A submodule checkout: its git dir lives elsewhere (`.git/modules/...`) and
    /// names the checkout with `core.worktree`.
    pub fn is_submodule(&self) -> bool {
        self.inner.kind() == gix::repository::Kind::Submodule
            || (!self.is_linked_worktree()
                && self
                    .inner
                    .config_snapshot()
                    .string("core.worktree")
                    .is_some())
    }

    /// The main worktree's folder: the shared checkout. `None` when the main repo is bare.
    pub fn main_workdir(&self) -> Result<Option<PathBuf>> {
        if !self.is_linked_worktree() {
            return Ok(self.workdir());
        }
        let main = self
            .inner
            .main_repo()
            .context(|| "cannot open the main worktree".into())?;
        Ok(main.workdir().map(absolute))
    }

    /// Open the repository of the main worktree.
    pub fn main_repo(&self) -> Result<Repo> {
        let inner = self
            .inner
            .main_repo()
            .map(prepared)
            .context(|| "cannot open the main worktree".into())?;
        Ok(Repo { inner })
    }

    /// Short name of the checked-out branch; `None` on a detached HEAD.
    pub fn head_branch(&self) -> Result<Option<String>> {
        let name = self
            .inner
            .head_name()
            .context(|| "cannot read HEAD".into())?;
        Ok(name.map(|n| n.shorten().to_string()))
    }

    /// The commit HEAD points at; `None` on an unborn branch.
    pub fn head_id(&self) -> Result<Option<ObjectId>> {
        let mut head = self.inner.head().context(|| "cannot read HEAD".into())?;
        if head.is_unborn() {
            return Ok(None);
        }
        let id = head
            .try_peel_to_id()
            .context(|| "cannot resolve HEAD".into())?;
        Ok(id.map(|id| id.detach()))
    }

    /// Resolve a revision to a commit id.
    pub fn resolve_commit(&self, rev: &str) -> Result<ObjectId> {
        let id = match self.inner.rev_parse_single(rev) {
            Ok(id) => id,
            Err(e) => {
                // What gix cannot read, git may (`@{upstream}` of a local tracking branch).
                let dir = self.workdir().unwrap_or_else(|| self.git_dir());
                return cli::rev_parse_commit(&dir, rev)
                    .and_then(|hex| ObjectId::from_hex(hex.as_bytes()).ok())
                    .ok_or_else(|| {
                        Error::usage(format!("cannot resolve revision `{rev}`: {e}")).with_help(
                            "pass a branch, tag or commit that exists in this repository",
                        )
                    });
            }
        };
        let commit = id
            .object()
            .and_then(|o| o.peel_to_commit())
            .map_err(|e| Error::usage(format!("revision `{rev}` is not a commit: {e}")))?;
        Ok(commit.id)
    }

    /// Wrap a repository that was opened by other means.
    fn from_gix(inner: gix::Repository) -> Repo {
        Repo {
            inner: prepared(inner),
        }
    }

    /// A handle other threads can open this repository from.
    pub fn share(&self) -> SharedRepo {
        SharedRepo {
            inner: self.inner.clone().into_sync(),
        }
    }

    /// The value of config `key` (`section.name`, or `section.sub.name`) as this
    /// repository sees it, every scope applied; `None` when it is not set.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.inner
            .config_snapshot()
            .string(key)
            .map(|v| v.to_string())
    }

    /// Does this repository know a remote by this name (or URL)?
    pub fn has_remote(&self, name: &str) -> bool {
        self.inner.find_remote(name).is_ok()
    }
}

/// The object format of the repository checked out (or whose git dir is) at `path`,
/// when it is not SHA-1, the only one fleet supports: `sha256` for a repository made by
/// `git init --object-format=sha256`. `None` for SHA-1, and for anything that is not a
/// readable repository. Read from the repository's own config file, since gix (built for
/// SHA-1 alone) cannot open such a repository at all.
pub fn unsupported_format(path: &Path) -> Option<String> {
    object_format(&git_dir_at(path)).filter(|format| format != "sha1")
}

/// The git dir of the checkout at `path` (its `.git` folder, or the one its `.git`
/// file names), or `path` itself when it is a git dir.
fn git_dir_at(path: &Path) -> PathBuf {
    let dot_git = path.join(".git");
    if dot_git.is_dir() {
        return dot_git;
    }
    worktrees::gitdir_link(path).unwrap_or_else(|| path.to_path_buf())
}

/// `extensions.objectFormat` of the repository whose git dir is `git_dir` (lower
/// case; `sha1` when unset), `None` when its config cannot be read.
fn object_format(git_dir: &Path) -> Option<String> {
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim_end()),
        Err(_) => git_dir.to_path_buf(),
    };
    let config =
        gix::config::File::from_path_no_includes(common.join("config"), gix::config::Source::Local)
            .ok()?;
    Some(
        config
            .string("extensions.objectFormat")
            .map_or_else(|| "sha1".to_string(), |f| f.to_str_lossy().to_lowercase()),
    )
}

/// The error for a repository fleet cannot work with, at `at` (its checkout, else its
/// git dir): an environment problem (exit 3) that names it and the reason.
fn unsupported_repository(git_dir: &Path, at: &Path) -> Option<Error> {
    let format = object_format(git_dir).filter(|format| format != "sha1")?;
    Some(
        Error::env(format!(
            "{} is a {} repository (extensions.objectFormat = {format}): fleet supports SHA-1 repositories only",
            at.display(),
            format_name(&format)
        ))
        .with_help("use fleet in a SHA-1 repository (the default of `git init`); a SHA-256 one cannot be converted in place"),
    )
}

/// How people write an object format's name: `SHA-256` for `sha256`.
pub fn format_name(format: &str) -> String {
    match format {
        "sha256" => "SHA-256".into(),
        other => other.to_uppercase(),
    }
}

/// Wait while the lock file `lock` exists, at most a little longer than it takes to
/// call one stale (ten seconds old and held by nobody alive, see [`lock_holder`]), and
/// clear it once it is. A lock a live git holds is waited for, never removed.
pub fn wait_out_lock(lock: &Path) {
    let started = std::time::Instant::now();
    while lock.exists()
        && !clear_stale_file(lock, std::time::Duration::from_secs(10))
        && started.elapsed() < std::time::Duration::from_secs(12)
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Remove `path` when it exists, is older than `min_age` and nobody alive holds it (see
/// [`lock_holder`]).
pub fn clear_stale_file(path: &Path, min_age: std::time::Duration) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let age = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .unwrap_or_default();
    if age < min_age || lock_holder(path).is_some() {
        return false;
    }
    std::fs::remove_file(path).is_ok()
}

/// A live process that may hold the lock file `lock` (git's, or fleet's own under a
/// git dir): one that has it open, or a live git process of the repository the lock
/// belongs to. `None` means the lock is stale.
///
/// Age and open files cannot call a git lock stale: git closes a lock file while it
/// waits, and `git commit` holds `index.lock` closed for as long as its editor is open.
/// Only the death of every git that could hold it can. A git "of the repository" is
/// one whose git dir (its `GIT_DIR`, its `--git-dir`, the git dir it runs in, or the
/// one the `.git` above its working folder names) is the lock's own git dir, for a lock
/// in a worktree's git dir (`index.lock`, `HEAD.lock`, a linked worktree's record); or
/// any git dir of the repository, for a lock in the common dir (refs, packed-refs). A
/// git whose `GIT_INDEX_FILE` is the lock's index counts wherever it runs; one with
/// its own `GIT_INDEX_FILE` holds no other index lock.
pub fn lock_holder(lock: &Path) -> Option<u32> {
    if let Some(pid) = crate::sys::procfs::opened_by(lock) {
        return Some(pid);
    }
    let lock = canonical(lock);
    let scope = lock_scope(&lock)?;
    let index_lock = lock.file_name().is_some_and(|n| n == INDEX_LOCK);
    crate::sys::procfs::git_processes()
        .into_iter()
        .find(|p| {
            let cwd = p.cwd.clone().unwrap_or_default();
            let var = |key: &str| {
                p.env
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| canonical(&cwd.join(v)))
            };
            if let Some(index) = var("GIT_INDEX_FILE") {
                let mut own = index.into_os_string();
                own.push(".lock");
                if own == lock.as_os_str() {
                    return true;
                }
                if index_lock {
                    return false;
                }
            }
            let given = git_dir_argument(&p.args)
                .map(|d| canonical(&cwd.join(d)))
                .or_else(|| var("GIT_DIR"));
            given
                .or_else(|| p.cwd.as_deref().and_then(git_dir_of_folder))
                .is_some_and(|dir| scope.contains(&dir))
        })
        .map(|p| p.pid)
}

/// The git dirs whose git processes may hold `lock` (see [`lock_holder`]); `None` when
/// the lock is in no git dir.
fn lock_scope(lock: &Path) -> Option<Vec<PathBuf>> {
    let dir = lock.ancestors().skip(1).find(|d| is_any_git_dir(d))?;
    let per_worktree = dir.join("commondir").is_file()
        || (lock.parent() == Some(dir)
            && lock
                .file_name()
                .is_some_and(|n| n == INDEX_LOCK || n == "HEAD.lock"));
    let mut scope = vec![dir.to_path_buf()];
    if !per_worktree && let Ok(records) = std::fs::read_dir(dir.join("worktrees")) {
        scope.extend(records.flatten().map(|r| canonical(&r.path())));
    }
    Some(scope)
}

/// A repository's git dir, or a linked worktree's record in one.
fn is_any_git_dir(dir: &Path) -> bool {
    is_git_dir(dir) || (head_file(dir).is_file() && dir.join("commondir").is_file())
}

/// The git dir a git started in `folder` works on: the one `folder` is inside, or the
/// one the nearest `.git` above it is or names.
fn git_dir_of_folder(folder: &Path) -> Option<PathBuf> {
    folder.ancestors().find_map(|d| {
        if is_any_git_dir(d) {
            return Some(canonical(d));
        }
        let dot = d.join(".git");
        if dot.is_dir() {
            Some(canonical(&dot))
        } else if dot.is_file() {
            gitdir_link(d).map(|g| canonical(&g))
        } else {
            None
        }
    })
}

/// The folder a git command line names with `--git-dir` among its global options
/// (before the subcommand: after it, `--git-dir` may mean something else).
fn git_dir_argument(args: &[String]) -> Option<String> {
    let mut args = args.iter().skip(1);
    while let Some(arg) = args.next() {
        if let Some(dir) = arg.strip_prefix("--git-dir=") {
            return Some(dir.to_string());
        }
        match arg.as_str() {
            "--git-dir" => return args.next().cloned(),
            "-C" | "-c" | "--work-tree" | "--namespace" | "--config-env" => {
                args.next();
            }
            option if option.starts_with('-') => {}
            _ => return None,
        }
    }
    None
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| absolute(path))
}

/// A repository as fleet uses it: opened with `open_options`, and with a small cache
/// of decoded objects (status and landing read the same target commit and trees once
/// per lane; without it each read maps and inflates the object anew).
fn prepared(mut inner: gix::Repository) -> gix::Repository {
    inner.object_cache_size_if_unset(4 << 20);
    inner
}

/// The options every repository is opened with: git's defaults for `trust` (ownership
/// still decides the trust a repository gets), plus a fallback identity. gix needs a
/// committer for reflogs (ref updates, new worktrees' HEAD) and fails without one, where
/// git falls back to a default identity; fleet falls back to `fleet <fleet@localhost>`,
/// in memory only, so a machine without `user.name` still works. The fallback keys rank
/// below every configured identity, so nothing has to be checked when opening (checking
/// means computing a signature's time, which loads the time-zone database), and gix
/// carries open options over to the repositories it opens itself.
fn open_options(trust: gix::sec::Trust) -> gix::open::Options {
    use gix::sec::trust::DefaultForLevel;
    gix::open::Options::default_for_level(trust).config_overrides([
        "gitoxide.committer.nameFallback=fleet",
        "gitoxide.committer.emailFallback=fleet@localhost",
        "gitoxide.author.nameFallback=fleet",
        "gitoxide.author.emailFallback=fleet@localhost",
    ])
}

/// Make a path absolute without resolving symlinks (the caller decides about those).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A git path (bytes) as a file-system path.
pub fn bstr_path(path: &gix::bstr::BStr) -> PathBuf {
    PathBuf::from(path.to_str_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn only_a_global_git_dir_option_names_the_repository() {
        let arg = |a: &[&str]| git_dir_argument(&strings(a));
        assert_eq!(
            arg(&["git", "--git-dir=/r/.git", "status"]).as_deref(),
            Some("/r/.git")
        );
        assert_eq!(
            arg(&["git", "-C", "x", "--git-dir", "g", "log"]).as_deref(),
            Some("g")
        );
        assert_eq!(
            arg(&["git", "-c", "a=b", "--no-pager", "--git-dir=g"]).as_deref(),
            Some("g")
        );
        assert_eq!(arg(&["git", "rev-parse", "--git-dir"]), None);
        assert_eq!(arg(&["git", "-C", "--git-dir=x", "status"]), None);
    }

    #[test]
    fn a_live_git_in_the_worktree_holds_its_closed_index_lock_and_a_dead_one_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().canonicalize().unwrap().join("r");
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .current_dir(&repo)
                .args(args)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", tmp.path().join("none"))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        std::fs::create_dir_all(&repo).unwrap();
        assert!(git(&["init", "-q"]).wait().unwrap().success());
        // A git alive in a linked worktree holds the repository's ref locks, never
        // the main worktree's index lock.
        let ok = |mut c: std::process::Child| assert!(c.wait().unwrap().success());
        ok(git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "i",
        ]));
        ok(git(&["worktree", "add", "-q", "--detach", "../linked"]));
        let lock = repo.join(".git").join(INDEX_LOCK);
        std::fs::write(&lock, "").unwrap();
        assert_eq!(lock_holder(&lock), None);
        let ref_lock = repo.join(".git/refs/heads/held.lock");
        std::fs::write(&ref_lock, "").unwrap();
        let mut elsewhere = std::process::Command::new("git")
            .current_dir(tmp.path().join("linked"))
            .args(["cat-file", "--batch"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while lock_holder(&ref_lock).is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "the linked git was not seen"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(lock_holder(&lock), None);
        drop(elsewhere.stdin.take());
        elsewhere.wait().unwrap();
        assert_eq!(lock_holder(&ref_lock), None);
        // A git that lives until its stdin closes, working in the repository.
        let mut live = git(&["cat-file", "--batch"]);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while lock_holder(&lock).is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "the live git was not seen"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(lock_holder(&lock), Some(live.id()));
        assert!(!clear_stale_file(&lock, std::time::Duration::ZERO));
        drop(live.stdin.take());
        live.wait().unwrap();
        assert!(clear_stale_file(&lock, std::time::Duration::ZERO));
    }
}
