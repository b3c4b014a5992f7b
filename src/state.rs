//! fleet's own files under the common git dir (`<common>/fleet/`), in one place.
//!
//! The common dir is shared by every worktree of a repository, so what fleet keeps there
//! is seen from all of them (and by the guard's hook script, which reads the branch
//! list itself). Everything here is plain files: the shared-checkout record, the
//! guard's branch list, logs, journals, scratch files and the `flock` locks
//! ([`RepoLock`]). fleet's shared git data lives in refs instead (see [`crate::refs`]).

use std::path::{Path, PathBuf};

use crate::error::{Context, Error, Result};
use crate::git::Repo;

/// The folder itself, `<common>/fleet`.
pub fn dir(common: &Path) -> PathBuf {
    common.join("fleet")
}

/// The shared checkout as `fleet init` recorded it, for linked worktrees and the hooks.
pub fn shared_checkout(common: &Path) -> PathBuf {
    dir(common).join("shared-checkout")
}

/// Record `shared` as the shared checkout of `repo`, in the common git dir, where every
/// linked worktree (and the guard's hooks) can read it. Returns the file written.
pub fn record_shared_checkout(repo: &Repo, shared: &Path) -> Result<PathBuf> {
    let dir = dir(&repo.common_dir());
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let file = shared_checkout(&repo.common_dir());
    std::fs::write(&file, format!("{}\n", shared.display()))
        .map_err(|e| Error::env(format!("cannot write {}: {e}", file.display())))?;
    Ok(file)
}

/// The branches (full ref names) the guard protects, one per line, read by the hook
/// script itself. Its presence marks the repository as guarded.
pub fn guard_refs(common: &Path) -> PathBuf {
    dir(common).join("guard-refs")
}

/// Gate and worker logs.
pub fn logs(common: &Path) -> PathBuf {
    dir(common).join("logs")
}

/// Copy a worker's log (`fleet ready --log`) into [`logs`], where every worktree can
/// read it; returns the copy's path as text. A log that cannot be read is the caller's
/// mistake (a usage error).
pub fn keep_worker_log(repo: &Repo, log: &Path) -> Result<String> {
    let dir = logs(&repo.common_dir());
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let name = format!(
        "worker-{}-{}.log",
        log.file_stem().unwrap_or_default().to_string_lossy(),
        crate::time::now()
    );
    let dest = dir.join(name);
    std::fs::copy(log, &dest).map_err(|e| {
        Error::usage(format!("cannot read the log {}: {e}", log.display()))
            .with_help("pass an existing file to --log")
    })?;
    Ok(dest.display().to_string())
}

/// The status report's cache of facts about lanes (by tip and target), which any
/// worktree may reuse.
pub fn status_cache(common: &Path) -> PathBuf {
    dir(common).join("cache").join("status-facts-v1.json")
}

/// The task queue's memo of parsed tasks, keyed by the commit each was read from
/// (see `tasks::memo`), which any worktree may reuse.
pub fn task_memo(common: &Path) -> PathBuf {
    dir(common).join("cache").join("task-memo-v1.json")
}

/// The crash journal of a landing that spans nested repositories, written before its
/// first move and read back by the next landing when one was killed between moves.
pub fn unit_journal(common: &Path) -> PathBuf {
    dir(common).join("unit-journal")
}

/// The watchdog's restore journal in one worktree's own git dir (`git_dir`): written
/// before a drifted shared checkout's files move, removed once HEAD is back, so a journal
/// still there means a restore was killed half way. Per worktree, not under the common
/// dir: each shared checkout is restored on its own.
pub fn watchdog_restore_journal(git_dir: &Path) -> PathBuf {
    git_dir.join("fleet-watchdog-restore")
}

/// A folder in an agent worktree's own git dir (`git_dir`) holding one marker per
/// submodule whose checkout `worktree new` has started and not finished; a crash leaves
/// the marker there, and the next run checks that submodule out again.
pub fn submodule_markers(git_dir: &Path) -> PathBuf {
    git_dir.join("fleet-populating")
}

/// Where versions before kept the gate's private worktree: inside the shared checkout's
/// git dir, where tools looking in parent folders saw the shared checkout. The gate now
/// lives beside the agent worktrees (see [`crate::gate::worktree`]), which retires a
/// gate worktree found here.
pub fn legacy_gate_worktree(common: &Path) -> PathBuf {
    dir(common).join("gate")
}

/// The crash journal of a landing's last steps (`base candidate`), which the next
/// landing finishes or drops.
pub fn land_journal(common: &Path) -> PathBuf {
    dir(common).join("land-journal")
}

/// The file behind the lock `name` (see [`RepoLock`]).
pub fn lock_file(common: &Path, name: &str) -> PathBuf {
    dir(common).join(format!("{name}.lock"))
}

/// Has fleet treated the repository with common dir `common` as a project: `fleet init`
/// recorded its shared checkout, or `fleet worktree new` made agent worktrees of it
/// (and so took the worktree lock)? Other state, such as a watchdog run or a dry-run
/// landing leaves, does not count.
pub fn was_a_project(common: &Path) -> bool {
    shared_checkout(common).is_file() || lock_file(common, "worktree").is_file()
}

/// An empty hooks folder, so fleet's private git calls run nobody's hooks.
pub fn no_hooks_dir(repo: &Repo) -> Result<PathBuf> {
    let dir = dir(&repo.common_dir()).join("no-hooks");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir)
}

/// A lock on `<common dir>/fleet/<name>.lock`, held until dropped: exclusive
/// ([`Repo::lock`]) or shared with other shared holders ([`Repo::lock_shared`]).
///
/// `flock(2)`, not a create-exclusive file: the kernel drops it when the holder dies,
/// even by `kill -9`, so a crash never leaves a stale lock behind. Each take opens the
/// file anew, so two threads of one process exclude each other as two processes do.
pub struct RepoLock {
    _file: std::fs::File,
}

impl Repo {
    /// Take the named lock exclusively, waiting up to `wait` for other fleet processes
    /// (or threads) to finish.
    pub fn lock(&self, name: &str, wait: std::time::Duration) -> Result<RepoLock> {
        self.take_lock(name, wait, true)
    }

    /// Take the named lock shared: any number of shared holders at once, none while an
    /// exclusive one holds it.
    pub fn lock_shared(&self, name: &str, wait: std::time::Duration) -> Result<RepoLock> {
        self.take_lock(name, wait, false)
    }

    fn take_lock(
        &self,
        name: &str,
        wait: std::time::Duration,
        exclusive: bool,
    ) -> Result<RepoLock> {
        use rustix::fs::{FlockOperation, flock};
        let dir = dir(&self.common_dir());
        std::fs::create_dir_all(&dir).context(|| format!("cannot create {}", dir.display()))?;
        let path = lock_file(&self.common_dir(), name);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .context(|| format!("cannot open {}", path.display()))?;
        let operation = if exclusive {
            FlockOperation::NonBlockingLockExclusive
        } else {
            FlockOperation::NonBlockingLockShared
        };
        let deadline = std::time::Instant::now() + wait;
        loop {
            if flock(&file, operation).is_ok() {
                return Ok(RepoLock { _file: file });
            }
            if std::time::Instant::now() >= deadline {
                return Err(Error::locked(format!(
                    "{} is held by another fleet process",
                    path.display()
                ))
                .with_help(
                    "wait for it to finish; the lock goes away by itself when that process exits",
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// One record per process group fleet started and guards (`fleet run`, gate commands),
/// for doctor's orphan check (see [`crate::proc::registry`]).
pub fn process_groups(common: &Path) -> PathBuf {
    dir(common).join("groups")
}

/// The drainer's per-run folders, `<common>/fleet/runs/` (see [`run_dir`]).
pub fn runs(common: &Path) -> PathBuf {
    dir(common).join("runs")
}

/// One run's folder, `<common>/fleet/runs/<run-id>/`: the agent's `stdout` and `stderr`,
/// the check's `check.log`, and with `home = "isolated"` the agent's `home/`. Under the
/// common dir, so every worktree (and `fleet task show`) finds a run's logs.
pub fn run_dir(common: &Path, run: &str) -> PathBuf {
    runs(common).join(run)
}
