//! Refs: reading them, and moving them only by compare-and-swap (a ref moves from the
//! value the caller saw, or not at all). Also the leftovers of killed writers: stale
//! `<ref>.lock` and `packed-refs.lock` files, cleared once nobody can be holding them.

use gix::bstr::ByteSlice;
use gix::refs::Target;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

use super::{ObjectId, Repo, clear_stale_file, wait_out_lock};
use crate::error::{Context, Error, Result};

/// Does git accept `name` as a branch name (`refs/heads/<name>`)? git's own
/// `check-ref-format` rules, as gix implements them; fleet's stricter rule for its
/// configuration is [`crate::config::is_valid_branch_name`].
pub fn is_valid_branch_name(name: &str) -> bool {
    let full = format!("refs/heads/{name}");
    gix::validate::reference::branch_name(full.as_bytes().as_bstr()).is_ok()
}

impl Repo {
    /// The tip of local branch `name`, `None` if there is no such branch.
    pub fn branch_tip(&self, name: &str) -> Result<Option<ObjectId>> {
        // A name git would reject cannot name an existing branch.
        if !crate::config::is_valid_branch_name(name) {
            return Ok(None);
        }
        self.ref_target(&format!("refs/heads/{name}"))
    }

    /// The object a full ref name points at (peeled through symbolic refs).
    pub fn ref_target(&self, full_name: &str) -> Result<Option<ObjectId>> {
        let Some(mut reference) = self
            .inner
            .try_find_reference(full_name)
            .context(|| format!("cannot read {full_name}"))?
        else {
            return Ok(None);
        };
        let id = reference
            .peel_to_id()
            .context(|| format!("cannot resolve {full_name}"))?;
        Ok(Some(id.detach()))
    }

    /// Tips of the refs that hold local work: branches, tags, the stash.
    pub fn local_work_tips(&self) -> Result<Vec<(String, ObjectId)>> {
        let what = || "cannot list refs".to_string();
        let refs = self.inner.references().context(what)?;
        let mut out = Vec::new();
        for r in refs.all().context(what)? {
            let Ok(r) = r else { continue };
            let name = r.name().as_bstr().to_str_lossy().into_owned();
            if !(name.starts_with("refs/heads/")
                || name.starts_with("refs/tags/")
                || name == "refs/stash")
            {
                continue;
            }
            let mut r = r;
            if let Ok(id) = r.peel_to_id() {
                out.push((name, id.detach()));
            }
        }
        Ok(out)
    }

    /// Every ref under `prefix` (e.g. `refs/fleet/snapshots/`) with the commit it names.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        let what = || format!("cannot list {prefix}");
        let refs = self.inner.references().context(what)?;
        let mut out = Vec::new();
        for r in refs.prefixed(prefix).context(what)? {
            let Ok(mut r) = r else { continue };
            let name = r.name().as_bstr().to_str_lossy().into_owned();
            if let Ok(id) = r.peel_to_id() {
                out.push((name, id.detach()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Every ref under `prefix` that names an object directly, with that object's id as
    /// stored, not peeled, so no object is read: [`Self::refs_under`] peels each ref,
    /// which looks up each object (10,000 lookups for 10,000 task refs). For refs fleet
    /// writes itself, always straight at a commit; a symbolic ref there is skipped.
    pub fn ref_ids_under(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        let what = || format!("cannot list {prefix}");
        let refs = self.inner.references().context(what)?;
        let mut out = Vec::new();
        for r in refs.prefixed(prefix).context(what)? {
            let Ok(r) = r else { continue };
            if let Some(id) = r.target().try_id() {
                out.push((
                    r.name().as_bstr().to_str_lossy().into_owned(),
                    id.to_owned(),
                ));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Point this worktree's HEAD at `refs/heads/<branch>` (a symbolic ref, as a
    /// checkout of the branch leaves it). Through gix: no hook runs, which is what
    /// lets the watchdog put a shared checkout back past the guard.
    pub fn attach_head(&self, branch: &str) -> Result<()> {
        let name: gix::refs::FullName = format!("refs/heads/{branch}")
            .try_into()
            .map_err(|e| Error::usage(format!("bad branch name {branch}: {e}")))?;
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: format!("fleet watchdog: back to {branch}").into(),
                },
                expected: PreviousValue::Any,
                new: Target::Symbolic(name),
            },
            name: "HEAD".try_into().expect("HEAD is a valid ref name"),
            deref: false,
        };
        self.inner
            .edit_reference(edit)
            .map(|_| ())
            .context(|| format!("cannot point HEAD at {branch}"))
    }

    /// Create branch `name` at `at`; fails if it already exists elsewhere.
    pub fn create_branch(&self, name: &str, at: ObjectId, reason: &str) -> Result<()> {
        let full = format!("refs/heads/{name}");
        self.edit_past_stale_lock(&full, Some(at), PreviousValue::MustNotExist, reason)
            .map_err(|e| match self.blocking_branch(name) {
                Some(other) => Error::refused(format!(
                    "cannot create branch {name} in {}: branch `{other}` exists, and git cannot have both (one would be a folder of the other)",
                    self.workdir().unwrap_or_else(|| self.git_dir()).display()
                ))
                .with_help(format!("rename `{other}` there, or set another [lanes] prefix")),
                None => Error::refused(format!("cannot create branch {name}: {e}")),
            })
    }

    /// A branch that makes `name` impossible: a prefix of it (`fleet` for `fleet/x`).
    fn blocking_branch(&self, name: &str) -> Option<String> {
        let parts: Vec<&str> = name.split('/').collect();
        (1..parts.len())
            .map(|n| parts[..n].join("/"))
            .find(|prefix| self.branch_tip(prefix).ok().flatten().is_some())
    }

    /// Does `packed-refs` hold `full_name` at `hex`? Read from the file itself, whether
    /// or not a loose copy of the ref shadows it (`git pack-refs` writes the packed copy
    /// before it prunes the loose one).
    pub fn packed_ref_is(&self, full_name: &str, hex: &str) -> bool {
        let packed =
            std::fs::read_to_string(self.common_dir().join("packed-refs")).unwrap_or_default();
        packed
            .lines()
            .any(|l| l.split_once(' ') == Some((hex, full_name)))
    }

    /// The lock file git and gix hold while they update the ref `full_name`
    /// (`<common>/<ref>.lock`; a packed ref is locked there too).
    pub fn ref_lock(&self, full_name: &str) -> std::path::PathBuf {
        self.common_dir().join(format!("{full_name}.lock"))
    }

    /// Remove `<ref>.lock` when it is older than `min_age`: the leftover of a process
    /// killed while it updated the ref (git and gix write a ref lock for milliseconds).
    /// Returns whether a lock was removed.
    pub fn clear_stale_ref_lock(&self, full_name: &str, min_age: std::time::Duration) -> bool {
        clear_stale_file(&self.ref_lock(full_name), min_age)
    }

    /// Remove `packed-refs.lock` when it is at least ten seconds old and nobody has it
    /// open: the leftover of a git or fleet killed while it rewrote packed refs (gix
    /// takes it to update a ref that is also packed). Unlike a ref's own lock, other
    /// programs take this one, so only age and the open-file check can call it stale;
    /// the age is generous because git closes the file while a `reference-transaction`
    /// hook runs.
    pub fn clear_stale_packed_refs_lock(&self) -> bool {
        let lock = self.common_dir().join("packed-refs.lock");
        clear_stale_file(&lock, std::time::Duration::from_secs(10))
    }

    /// Is a `packed-refs.lock` in the way of ref updates?
    fn packed_refs_locked(&self) -> bool {
        self.common_dir().join("packed-refs.lock").exists()
    }

    /// Move one of fleet's own refs by compare-and-swap: `step` sees the ref's current
    /// value and says where it goes; when another process moved it first, the ref is
    /// read again and `step` runs again (so it must be idempotent over a re-read).
    /// Every writer of fleet's refs holds fleet's `refs` flock, so a lock file on the
    /// ref found meanwhile is a killed fleet's leftover and is cleared; a
    /// `packed-refs.lock` is waited out.
    pub fn update_own_ref<T>(
        &self,
        full_name: &str,
        reason: &str,
        mut step: impl FnMut(Option<ObjectId>) -> Result<OwnRefStep<T>>,
    ) -> Result<T> {
        const ATTEMPTS: usize = 50;
        let _refs = self.lock("refs", std::time::Duration::from_secs(60))?;
        let mut last_error = None;
        for _ in 0..ATTEMPTS {
            self.clear_stale_ref_lock(full_name, std::time::Duration::ZERO);
            let old = self.ref_target(full_name)?;
            let (new, result) = match step(old)? {
                OwnRefStep::Keep(result) => return Ok(result),
                OwnRefStep::Set(new, result) => (new, result),
            };
            match self.cas_update(full_name, old, new, reason) {
                Ok(()) => return Ok(result),
                Err(e) => last_error = Some(e),
            }
            if self.packed_refs_locked() {
                self.wait_out_packed_refs_lock();
            } else {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        let last = last_error.map(|e| e.to_string()).unwrap_or_default();
        Err(Error::env(format!(
            "{full_name} kept changing under fleet ({ATTEMPTS} attempts; last: {last}); {reason} was not written"
        ))
        .with_help("another fleet process is updating it in a loop; retry in a moment"))
    }

    /// Wait while a `packed-refs.lock` is in the way (at most a little longer than it
    /// takes to call one stale), clearing it once it is stale.
    pub fn wait_out_packed_refs_lock(&self) {
        wait_out_lock(&self.common_dir().join("packed-refs.lock"));
    }

    /// Move `full_name` from exactly `old` to `new` (compare-and-swap). `old == None`
    /// means the ref must not exist yet. Nothing changes when someone moved it first.
    pub fn cas_update(
        &self,
        full_name: &str,
        old: Option<ObjectId>,
        new: ObjectId,
        reason: &str,
    ) -> Result<()> {
        let expected = match old {
            Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
            None => PreviousValue::MustNotExist,
        };
        self.edit(full_name, Some(new), expected, reason)
            .map_err(|e| {
                let now = self.ref_target(full_name).ok().flatten();
                Error::refused(format!(
                    "{full_name} was not updated: expected {}, found {} ({e})",
                    describe(old),
                    describe(now)
                ))
                .with_help("someone else moved it first; re-read and try again")
            })
    }

    /// Delete `full_name` only if it still points at `expected`.
    pub fn cas_delete(&self, full_name: &str, expected: ObjectId) -> Result<()> {
        let expected = PreviousValue::MustExistAndMatch(Target::Object(expected));
        self.edit_past_stale_lock(full_name, None, expected, "")
            .map_err(|e| Error::refused(format!("cannot delete {full_name}: {e}")))
    }

    /// [`Self::edit`], and once more after waiting out a `<ref>.lock` in the way: a
    /// process killed while it changed the ref leaves one (cleared once it is stale).
    fn edit_past_stale_lock(
        &self,
        full_name: &str,
        new: Option<ObjectId>,
        expected: PreviousValue,
        reason: &str,
    ) -> std::result::Result<(), String> {
        self.edit(full_name, new, expected.clone(), reason)
            .or_else(|first| {
                let lock = self.ref_lock(full_name);
                if !lock.exists() {
                    return Err(first);
                }
                wait_out_lock(&lock);
                self.edit(full_name, new, expected, reason)
            })
    }

    fn edit(
        &self,
        full_name: &str,
        new: Option<ObjectId>,
        expected: PreviousValue,
        reason: &str,
    ) -> std::result::Result<(), String> {
        let name: gix::refs::FullName = full_name.try_into().map_err(|e| format!("{e}"))?;
        let change = match new {
            Some(new) => Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: format!("fleet: {reason}").into(),
                },
                expected,
                new: Target::Object(new),
            },
            None => Change::Delete {
                expected,
                log: RefLog::AndReference,
            },
        };
        let edit = RefEdit {
            change,
            name,
            deref: false,
        };
        let result = self.inner.edit_reference(edit);
        result.map(|_| ()).map_err(|e| e.to_string())
    }
}

fn describe(id: Option<ObjectId>) -> String {
    id.map_or_else(|| "no ref".into(), |id| id.to_hex_with_len(12).to_string())
}

/// What one attempt of [`Repo::update_own_ref`] decides.
pub enum OwnRefStep<T> {
    /// Move the ref to this commit, then answer `T`.
    Set(ObjectId, T),
    /// Leave the ref as it is and answer `T`.
    Keep(T),
}
