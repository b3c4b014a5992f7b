//! Worktrees: listing a repository's worktrees, adding and removing linked ones, and
//! the administrative records git keeps for them under `<common>/worktrees/<id>/`
//! (read as files, since a record a crash left half written must be readable too).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gix::bstr::ByteSlice;

use super::{ObjectId, Repo, absolute};
use crate::error::{Context, Error, Result};

/// A worktree of a repository, main or linked, as registered with git.
#[derive(Clone, Debug)]
pub struct WorktreeInfo {
    /// The checkout folder (may be gone for a prunable linked worktree).
    pub path: PathBuf,
    /// `None` for the main worktree; the id under `<common>/worktrees/` otherwise.
    pub id: Option<String>,
    /// Short branch name, `None` when detached or unreadable.
    pub branch: Option<String>,
    pub head: Option<ObjectId>,
    pub is_main: bool,
    pub locked: bool,
    /// The folder is gone: `fleet worktree prune` would drop the record.
    pub missing: bool,
}

/// How long a worktree record's `gitdir` file may stay empty before its writer is taken
/// for dead: git and gix write it in one go right after creating it.
const UNWRITTEN_GITDIR_GRACE: Duration = Duration::from_secs(1);

/// A linked worktree's administrative folder, `<common>/worktrees/<id>/`, where git
/// keeps its `HEAD`, `index`, `commondir`, `gitdir` and `locked` files.
#[derive(Clone, Debug)]
pub struct AdminRecord {
    /// The worktree's id: the folder's name.
    pub id: String,
    /// The folder itself.
    pub dir: PathBuf,
}

impl AdminRecord {
    /// Has git finished writing it (its `commondir` and `HEAD` are there)?
    pub fn is_complete(&self) -> bool {
        self.dir.join("commondir").is_file() && self.dir.join("HEAD").is_file()
    }

    /// Still locked `initializing`: gix writes that first and removes it only once the
    /// checkout is done, so the add never finished. Between the two its HEAD can hold
    /// the null id (gix writes that before the real one), which `git fetch` in any
    /// worktree then rejects as a bad object.
    pub fn is_initializing(&self) -> bool {
        self.lock_reason()
            .is_some_and(|reason| reason.trim() == "initializing")
    }

    /// The worktree's `.git` file, as the record's `gitdir` names it; `None` when that
    /// file is missing or empty.
    pub fn gitdir(&self) -> Option<PathBuf> {
        let text = std::fs::read_to_string(self.dir.join("gitdir")).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| PathBuf::from(text))
    }

    /// How long ago the record's `gitdir` file was created or last written, when that
    /// file is there but says nothing (what a writer killed between creating and filling
    /// it leaves); `None` when it is missing or names a path.
    pub fn unwritten_gitdir_age(&self) -> Option<Duration> {
        let file = self.dir.join("gitdir");
        let text = std::fs::read(&file).ok()?;
        if !text.trim_ascii().is_empty() {
            return None;
        }
        let age = std::fs::metadata(&file)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        Some(age.unwrap_or_default())
    }

    /// The reason given when the worktree was locked; `None` when it is not locked.
    pub fn lock_reason(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.join("locked")).ok()
    }

    /// Has the worktree an index of its own (its checkout was written)?
    pub fn has_index(&self) -> bool {
        self.dir.join("index").is_file()
    }

    /// The lock git holds while it writes this worktree's index.
    pub fn index_lock(&self) -> PathBuf {
        self.dir.join("index.lock")
    }

    /// How long ago the folder last changed; `None` when that cannot be read.
    pub fn age(&self) -> Option<Duration> {
        std::fs::metadata(&self.dir)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
    }
}

impl Repo {
    /// The record of the linked worktree `id` (whether or not git has one).
    pub fn worktree_record(&self, id: &str) -> AdminRecord {
        AdminRecord {
            id: id.to_string(),
            dir: self.common_dir().join("worktrees").join(id),
        }
    }

    /// Every folder under `<common>/worktrees/`, finished or not (none when there is no
    /// such folder), in the order the file system lists them.
    pub fn worktree_records(&self) -> Vec<AdminRecord> {
        let Ok(entries) = std::fs::read_dir(self.common_dir().join("worktrees")) else {
            return Vec::new();
        };
        entries
            .flatten()
            .map(|entry| AdminRecord {
                id: entry.file_name().to_string_lossy().into_owned(),
                dir: entry.path(),
            })
            .collect()
    }

    /// Drop the unfinished records whose `gitdir` file was created but never filled: what
    /// a `git worktree add` (or gix's) killed in between leaves. Such a record names no
    /// worktree, so it holds nothing of anyone's; git skips it (and `git worktree prune`
    /// would drop it, were it not left locked `initializing`), but gix fails to add any
    /// worktree beside it. A live writer fills the file within moments, so a record is
    /// dropped only once its file has stayed empty for [`UNWRITTEN_GITDIR_GRACE`],
    /// waiting out the rest of that for a young one. The records dropped come back.
    pub fn drop_unwritten_worktree_records(&self) -> Vec<PathBuf> {
        let unwritten = |record: &AdminRecord| {
            if record.is_complete() {
                None
            } else {
                record.unwritten_gitdir_age()
            }
        };
        let youngest = self.worktree_records().iter().filter_map(unwritten).min();
        let Some(youngest) = youngest else {
            return Vec::new();
        };
        if let Some(rest) = UNWRITTEN_GITDIR_GRACE.checked_sub(youngest) {
            std::thread::sleep(rest);
        }
        let mut dropped = Vec::new();
        for record in self.worktree_records() {
            let dead = unwritten(&record).is_some_and(|age| age >= UNWRITTEN_GITDIR_GRACE);
            if dead && std::fs::remove_dir_all(&record.dir).is_ok() {
                dropped.push(record.dir);
            }
        }
        dropped
    }

    /// Every worktree of this repository: the main one first, then the linked ones.
    pub fn worktrees(&self) -> Result<Vec<WorktreeInfo>> {
        let main = self.main_repo()?;
        let mut out = Vec::new();
        if let Some(path) = main.workdir() {
            out.push(WorktreeInfo {
                path,
                id: None,
                branch: main.head_branch().ok().flatten(),
                head: main.head_id().ok().flatten(),
                is_main: true,
                locked: false,
                missing: false,
            });
        }
        let proxies = self
            .inner
            .worktrees()
            .context(|| "cannot list worktrees".into())?;
        for proxy in proxies {
            let id = proxy.id().ok().map(|id| id.to_str_lossy().into_owned());
            let path = proxy.base().map(|p| absolute(&p)).unwrap_or_default();
            let missing = !path.exists();
            let locked = proxy.is_locked();
            let (branch, head) = self.read_linked_head(proxy.git_dir());
            out.push(WorktreeInfo {
                path,
                id,
                branch,
                head,
                is_main: false,
                locked,
                missing,
            });
        }
        Ok(out)
    }

    /// Drop the record of the linked worktree `id` (its folder must already be gone or
    /// moved aside): what `git worktree prune` does for one worktree. The branch stays.
    ///
    /// In process: gix 0.90 has no prune, and its `remove_worktree` deletes the folder
    /// first, so a crash part way leaves a registered folder without its files.
    pub fn drop_worktree_record(&self, id: &str) -> Result<()> {
        let admin = self.worktree_record(id).dir;
        crate::files::remove_tree(&admin).map_err(|e| {
            Error::env(format!(
                "cannot drop the worktree record {}: {e}",
                admin.display()
            ))
        })
    }

    /// Add a linked worktree at `path` on the existing local branch `branch`, its files
    /// checked out.
    ///
    /// In process, not gix's add, for two reasons. A kill: gix creates the record and
    /// writes its HEAD afterwards, so a kill in between leaves a worktree git lists with
    /// the null id as HEAD. Here the record (HEAD naming the branch, locked
    /// `initializing`) is written whole beside `worktrees/` and renamed into place, as
    /// [`Repo::add_detached_worktree`] does; the checkout follows, and the lock goes last,
    /// so a kill anywhere leaves either nothing git reads or a record that
    /// [`AdminRecord::is_initializing`] and has no index (what `worktree new` redoes).
    /// And time: gix opens every worktree of the repository as a repository to see
    /// whether the branch is checked out there, which grows with the agents; here their
    /// HEADs (and rebase and bisect states) are read as files.
    ///
    /// With `extensions.worktreeConfig` or `worktree.useRelativePaths` set, gix's add is
    /// used: it copies the worktree config and writes relative links, which this does not.
    pub fn add_worktree(&self, path: &Path, branch: &str) -> Result<()> {
        let full = format!("refs/heads/{branch}");
        let name: gix::refs::FullName = full
            .as_str()
            .try_into()
            .map_err(|e| Error::usage(format!("bad branch name {branch}: {e}")))?;
        let config = self.inner.config_snapshot();
        let set = |key: &str| config.boolean(key).unwrap_or(false);
        if set("extensions.worktreeConfig") || set("worktree.useRelativePaths") {
            return self.add_worktree_at(path, gix::worktree::add::Head::Attached(name));
        }
        let sparse = set("core.sparseCheckout");
        if self.ref_target(&full)?.is_none() {
            return Err(Error::env(format!(
                "cannot create the worktree {}: there is no branch {branch}",
                path.display()
            )));
        }
        self.refuse_occupied(path, branch, &full)?;
        self.drop_unwritten_worktree_records();
        let existed = path.exists();
        let registered = self.register_worktree(path, &format!("ref: {full}\n"), true, sparse)?;
        let checked_out = crate::failpoint::hit("worktree-add-registered")
            .and_then(|()| checkout_new(&registered.path));
        if let Err(e) = checked_out {
            // Undo it all: the files, the record, the folder when this made it.
            let _ = crate::files::remove_tree(&registered.path);
            if existed {
                let _ = std::fs::create_dir_all(&registered.path);
            }
            let _ = crate::files::remove_tree(&registered.record);
            return Err(e);
        }
        let locked = registered.record.join("locked");
        std::fs::remove_file(&locked)
            .map_err(|e| Error::env(format!("cannot unlock {}: {e}", locked.display())))
    }

    /// Refuse to add a worktree at `path` on `branch` when the branch is checked out in
    /// a worktree, a rebase or bisect there holds it, or `path` is registered already.
    fn refuse_occupied(&self, path: &Path, branch: &str, full: &str) -> Result<()> {
        let cannot = |why: String| {
            Err(Error::env(format!(
                "cannot create the worktree {}: {why}",
                path.display()
            )))
        };
        let dest = path.canonicalize().unwrap_or_else(|_| absolute(path));
        let main_git_dir = absolute(&self.common_dir());
        for wt in self.worktrees()? {
            if wt.branch.as_deref() == Some(branch) {
                return cannot(format!(
                    "branch {branch} is checked out at {}",
                    wt.path.display()
                ));
            }
            if wt.path == dest || wt.path.canonicalize().is_ok_and(|p| p == dest) {
                return cannot("it is registered as a worktree already".into());
            }
            let git_dir = match &wt.id {
                Some(id) => self.worktree_record(id).dir,
                None => main_git_dir.clone(),
            };
            let read = |file: &str| std::fs::read_to_string(git_dir.join(file)).ok();
            let rebasing = ["rebase-merge/head-name", "rebase-apply/head-name"]
                .iter()
                .filter_map(|file| read(file))
                .any(|head| head.trim() == full);
            let bisecting = read("BISECT_START").is_some_and(|start| start.trim() == branch);
            if rebasing || bisecting {
                return cannot(format!(
                    "branch {branch} is being {} at {}",
                    if rebasing { "rebased" } else { "bisected" },
                    wt.path.display()
                ));
            }
        }
        Ok(())
    }

    /// Register a linked worktree at `path` with a detached HEAD at `commit`, its files
    /// not checked out yet (the caller checks them out, with git).
    ///
    /// In process, not gix's add: that writes the null id as the new record's HEAD before
    /// the real one, and a kill in between leaves a record that makes every `git fetch`
    /// of the repository fail ("bad object worktrees/<id>/HEAD") until someone removes it.
    /// Here the record is written whole in a scratch folder beside `worktrees/` and
    /// renamed into place: it appears with its HEAD naming `commit`, which the
    /// repository has. A kill before the worktree's `.git` file is written leaves a record
    /// git calls prunable, which breaks nothing.
    pub fn add_detached_worktree(&self, path: &Path, commit: ObjectId) -> Result<()> {
        self.drop_unwritten_worktree_records();
        self.register_worktree(path, &format!("{commit}\n"), false, false)
            .map(|_| ())
    }

    /// Write a new worktree's record (`HEAD` holding `head`, `commondir`, `gitdir`,
    /// `locked` when `initializing`, the sparse-checkout patterns when `sparse`) in a
    /// scratch folder, rename it into `worktrees/`, then write the worktree's `.git`.
    fn register_worktree(
        &self,
        path: &Path,
        head: &str,
        initializing: bool,
        sparse: bool,
    ) -> Result<Registered> {
        let io = |what: &str, at: &Path, e: std::io::Error| {
            Error::env(format!("cannot {what} {}: {e}", at.display()))
        };
        std::fs::create_dir_all(path).map_err(|e| io("create", path, e))?;
        let path = path.canonicalize().map_err(|e| io("resolve", path, e))?;
        let common = absolute(&self.common_dir());
        let records = common.join("worktrees");
        std::fs::create_dir_all(&records).map_err(|e| io("create", &records, e))?;
        let base: String = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "worktree".into())
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let scratch = new_scratch(&common, &base)?;
        // Paths as bytes: a folder whose name is not UTF-8 is named exactly.
        let line = |prefix: &str, path: &Path| {
            use std::os::unix::ffi::OsStrExt;
            [prefix.as_bytes(), path.as_os_str().as_bytes(), b"\n"].concat()
        };
        let dot_git = path.join(".git");
        let mut files = vec![
            ("HEAD", head.as_bytes().to_vec()),
            ("commondir", b"../..\n".to_vec()),
            ("gitdir", line("", &dot_git)),
        ];
        if initializing {
            files.push(("locked", b"initializing\n".to_vec()));
        }
        for (name, text) in files {
            let file = scratch.join(name);
            std::fs::write(&file, text).map_err(|e| io("write", &file, e))?;
        }
        // The patterns of the worktree this adds from, as git and gix copy them.
        let patterns = absolute(&self.git_dir())
            .join("info")
            .join("sparse-checkout");
        if sparse && patterns.is_file() {
            let info = scratch.join("info");
            std::fs::create_dir_all(&info).map_err(|e| io("create", &info, e))?;
            std::fs::copy(&patterns, info.join("sparse-checkout"))
                .map_err(|e| io("copy", &patterns, e))?;
        }
        let record = match move_into_place(&scratch, &records, &base) {
            Ok(record) => record,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&scratch);
                return Err(io("register the worktree in", &records, e));
            }
        };
        std::fs::write(&dot_git, line("gitdir: ", &record))
            .map_err(|e| io("write", &dot_git, e))?;
        Ok(Registered { path, record })
    }

    fn add_worktree_at(&self, path: &Path, head: gix::worktree::add::Head) -> Result<()> {
        // gix refuses to add a worktree beside a record a killed add left without its
        // `gitdir` written, this one's own earlier attempt included.
        self.drop_unwritten_worktree_records();
        let interrupt = AtomicBool::new(false);
        self.inner
            .add_worktree(path, head, gix::progress::Discard, &interrupt)
            .map_err(|e| {
                Error::env(format!(
                    "cannot create the worktree {}: {e}",
                    path.display()
                ))
            })?;
        Ok(())
    }

    /// Remove the linked worktree at `path`: its folder and its registration.
    /// The branch stays. Callers have checked for unsaved work and for a user's lock
    /// already; the lock is overridden because the one left here is fleet's own
    /// (`initializing`, from a checkout a crash interrupted).
    pub fn remove_worktree(&self, path: &Path) -> Result<()> {
        self.inner
            .remove_worktree(
                path,
                gix::worktree::remove::Force::OverrideLock,
                gix::progress::Discard,
            )
            .map_err(|e| {
                Error::env(format!(
                    "cannot remove the worktree {}: {e}",
                    path.display()
                ))
            })
    }

    /// Read a linked worktree's HEAD straight from its private git dir, so a worktree
    /// whose folder is gone still reports its branch. Refs are shared, so the branch is
    /// resolved in this repository.
    fn read_linked_head(&self, git_dir: &Path) -> (Option<String>, Option<ObjectId>) {
        let Ok(text) = std::fs::read_to_string(git_dir.join("HEAD")) else {
            return (None, None);
        };
        let text = text.trim();
        match text.strip_prefix("ref: ") {
            Some(full) => {
                let branch = full.strip_prefix("refs/heads/").unwrap_or(full).to_string();
                (Some(branch), self.ref_target(full).ok().flatten())
            }
            None => (None, ObjectId::from_hex(text.as_bytes()).ok()),
        }
    }
}

/// A fresh scratch folder for a record named like `base`, in fleet's state folder: its
/// own for this call, so two worktrees registered at once (a drainer makes them on
/// threads, other fleets in other processes) never write into one. It is made with
/// `mkdir`, which fails where the name is taken (a process of the same pid in another
/// pid namespace), so nothing there is ever taken over or removed.
///
/// What a kill left there is cleared once it is a minute older than the new scratch:
/// a live registration holds its scratch for a few small writes only (the checkout
/// comes after the rename), and both times are the file system's own, so a host clock
/// apart from a file server's clears nothing early.
fn new_scratch(common: &Path, base: &str) -> Result<PathBuf> {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let state = crate::state::dir(common);
    std::fs::create_dir_all(&state)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", state.display())))?;
    let scratch = loop {
        let seq = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let scratch = state.join(format!("worktree-{base}.{}-{seq}.new", std::process::id()));
        match std::fs::create_dir(&scratch) {
            Ok(()) => break scratch,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(Error::env(format!(
                    "cannot create {}: {e}",
                    scratch.display()
                )));
            }
        }
    };
    let made = std::fs::metadata(&scratch).and_then(|m| m.modified());
    if let Ok(made) = made
        && let Ok(entries) = std::fs::read_dir(&state)
    {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| made.duration_since(t).ok())
                .is_some_and(|age| age >= Duration::from_secs(60));
            if name.starts_with("worktree-") && name.ends_with(".new") && old {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    Ok(scratch)
}

/// Rename the written record `scratch` into `records` under the first free id of
/// `base`, `base1`, `base2`...: never over a record that is there, even one made a
/// moment ago by another fleet (`a.b` and `a-b` both want `a-b`) or by git (whose
/// `mkdir` makes it empty at first: a plain rename would replace an empty folder).
/// `records` itself is made again when it is gone: a worktree removed meanwhile (a
/// rolled-back `new`, a `git worktree prune`) takes the folder with its last record.
fn move_into_place(scratch: &Path, records: &Path, base: &str) -> std::io::Result<PathBuf> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    let mut remade = 0;
    let mut n = 0;
    while n < 10_000 {
        let id = if n == 0 {
            base.to_string()
        } else {
            format!("{base}{n}")
        };
        let record = records.join(&id);
        if record.exists() {
            n += 1;
            continue;
        }
        let renamed = match renameat_with(CWD, scratch, CWD, &record, RenameFlags::NOREPLACE) {
            // A file system without renameat2's no-replace: a plain rename, which
            // refuses a folder with files in it.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                std::fs::rename(scratch, &record)
            }
            other => other.map_err(std::io::Error::from),
        };
        match renamed {
            Ok(()) => return Ok(record),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::DirectoryNotEmpty
                ) =>
            {
                n += 1;
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound && remade < 10 && scratch.is_dir() =>
            {
                remade += 1;
                std::fs::create_dir_all(records)?;
            }
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!(
        "every id from {base} to {base}9999 is taken"
    )))
}

/// A worktree just registered: its folder (resolved) and its record.
struct Registered {
    path: PathBuf,
    record: PathBuf,
}

/// The first checkout of the linked worktree at `path`, registered with its HEAD and no
/// index: its files and its index, by gix (the sparse-checkout patterns of its record,
/// attributes and filters applied).
fn checkout_new(path: &Path) -> Result<()> {
    let fail = |e: &dyn std::fmt::Display| {
        Error::env(format!(
            "cannot check out the worktree {}: {e}",
            path.display()
        ))
    };
    let repo = Repo::open(path)?;
    let worktree = repo
        .inner
        .worktree()
        .ok_or_else(|| fail(&"it opens as a bare repository"))?;
    worktree
        .checkout(gix::progress::Discard, &AtomicBool::new(false))
        .map_err(|e| fail(&e))?;
    Ok(())
}

/// The git dir a `.git` file in `checkout` names (`gitdir: X`, relative to `checkout`
/// or absolute); `None` when there is no such file.
pub fn gitdir_link(checkout: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(checkout.join(".git")).ok()?;
    let dir = text.trim_end().strip_prefix("gitdir: ")?;
    Some(checkout.join(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            // Never /dev/null: on some machines it has been a plain file others write into.
            .env("GIT_CONFIG_GLOBAL", dir.join("no-such-gitconfig"))
            .stdin(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// A record written in a scratch folder under `dir`, its HEAD on `mine`.
    fn scratch_record(dir: &Path) -> PathBuf {
        let scratch = dir.join("scratch");
        std::fs::create_dir(&scratch).unwrap();
        std::fs::write(scratch.join("HEAD"), "ref: refs/heads/mine\n").unwrap();
        scratch
    }

    #[test]
    fn a_record_never_replaces_one_there_not_even_an_empty_folder_git_just_made() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("worktrees");
        // `a-b`: what git's `mkdir` makes before it writes the files; `a-b1`: a record.
        std::fs::create_dir_all(records.join("a-b")).unwrap();
        std::fs::create_dir_all(records.join("a-b1")).unwrap();
        std::fs::write(records.join("a-b1/HEAD"), "ref: refs/heads/x\n").unwrap();
        let scratch = scratch_record(dir.path());
        let record = move_into_place(&scratch, &records, "a-b").unwrap();
        assert_eq!(record, records.join("a-b2"));
        assert_eq!(
            std::fs::read_to_string(record.join("HEAD")).unwrap(),
            "ref: refs/heads/mine\n"
        );
        assert!(records.join("a-b").read_dir().unwrap().next().is_none());
        assert_eq!(
            std::fs::read_to_string(records.join("a-b1/HEAD")).unwrap(),
            "ref: refs/heads/x\n"
        );
        assert!(!scratch.exists());
    }

    #[test]
    fn a_record_is_moved_in_when_the_records_folder_was_taken_away_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("worktrees");
        let scratch = scratch_record(dir.path());
        let record = move_into_place(&scratch, &records, "a").unwrap();
        assert_eq!(record, records.join("a"));
        assert_eq!(
            std::fs::read_to_string(record.join("HEAD")).unwrap(),
            "ref: refs/heads/mine\n"
        );
    }

    #[test]
    fn a_scratch_never_takes_over_one_there_and_clears_only_what_is_a_minute_older() {
        let dir = tempfile::tempdir().unwrap();
        let state = crate::state::dir(dir.path());
        std::fs::create_dir_all(&state).unwrap();
        let pid = std::process::id();
        // Every name this process could pick next, as if another process of the same
        // pid (another pid namespace) held them.
        let taken: Vec<PathBuf> = (0..200)
            .map(|seq| state.join(format!("worktree-x.{pid}-{seq}.new")))
            .collect();
        for t in &taken {
            std::fs::create_dir(t).unwrap();
            std::fs::write(t.join("HEAD"), "theirs\n").unwrap();
        }
        let aged = |name: &str, secs: u64| {
            let path = state.join(name);
            std::fs::create_dir(&path).unwrap();
            let when = std::time::SystemTime::now() - Duration::from_secs(secs);
            std::fs::File::open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
            path
        };
        let stale = aged("worktree-y.1-0.new", 120);
        let recent = aged("worktree-y.1-1.new", 30);
        let scratch = new_scratch(dir.path(), "x").unwrap();
        assert!(!taken.contains(&scratch), "{}", scratch.display());
        assert!(scratch.is_dir());
        for t in &taken {
            assert_eq!(std::fs::read_to_string(t.join("HEAD")).unwrap(), "theirs\n");
        }
        assert!(!stale.exists(), "a scratch two minutes old is left");
        assert!(recent.exists(), "a scratch half a minute old was cleared");
    }

    #[test]
    fn two_worktrees_whose_names_make_one_id_registered_at_once_get_records_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q"]);
        git(&main, &["commit", "-q", "--allow-empty", "-m", "one"]);
        git(&main, &["branch", "dot"]);
        git(&main, &["branch", "dash"]);
        let repo = Repo::open(&main).unwrap();
        // `a.b` and `a-b` both sanitise to the id `a-b`.
        let paths = [dir.path().join("a.b"), dir.path().join("a-b")];
        std::thread::scope(|scope| {
            for (path, branch) in paths.iter().zip(["dot", "dash"]) {
                let repo = repo.clone();
                scope.spawn(move || repo.add_worktree(path, branch).unwrap());
            }
        });
        for (path, branch) in paths.iter().zip(["dot", "dash"]) {
            let record = gitdir_link(path).unwrap();
            let head = std::fs::read_to_string(record.join("HEAD")).unwrap();
            assert_eq!(
                head,
                format!("ref: refs/heads/{branch}\n"),
                "{}",
                path.display()
            );
            assert_eq!(
                git(path, &["symbolic-ref", "HEAD"]),
                format!("refs/heads/{branch}")
            );
        }
        let listed = git(&main, &["worktree", "list", "--porcelain"]);
        assert!(listed.contains("branch refs/heads/dot"), "{listed}");
        assert!(listed.contains("branch refs/heads/dash"), "{listed}");
        assert!(!listed.contains("locked"), "{listed}");
        // No scratch folder is left behind.
        let state = crate::state::dir(&repo.common_dir());
        let left: Vec<_> = std::fs::read_dir(&state)
            .map(|d| d.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(
            left.iter().all(|n| !n.to_string_lossy().ends_with(".new")),
            "{left:?}"
        );
    }

    #[test]
    fn a_worktree_is_added_beside_a_record_whose_gitdir_a_kill_left_empty() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q"]);
        git(&main, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let head = ObjectId::from_hex(git(&main, &["rev-parse", "HEAD"]).as_bytes()).unwrap();
        // What a kill between creating the record's `gitdir` and filling it leaves.
        let record = main.join(".git/worktrees/gone");
        std::fs::create_dir_all(&record).unwrap();
        std::fs::write(record.join("locked"), "initializing\n").unwrap();
        std::fs::write(record.join("gitdir"), "").unwrap();
        let repo = Repo::open(&main).unwrap();
        let linked = dir.path().join("linked");
        repo.add_detached_worktree(&linked, head).unwrap();
        assert!(!record.exists());
        let linked = linked.canonicalize().unwrap();
        let listed = repo.worktrees().unwrap();
        assert!(listed.iter().any(|w| w.path == linked), "{listed:?}");
        // A record that names its worktree is not touched.
        assert_eq!(
            repo.drop_unwritten_worktree_records(),
            Vec::<PathBuf>::new()
        );
        assert_eq!(repo.worktrees().unwrap().len(), 2);
    }
}
