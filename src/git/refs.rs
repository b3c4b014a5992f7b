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
    ///
    /// fleet's own refs (`refs/fleet/`, which fleet writes straight at a commit) are read
    /// loose file first, as git reads a ref: gix takes its view of `packed-refs` before
    /// it opens the loose file, so beside a `git pack-refs` that commits `packed-refs`
    /// and then prunes the loose file, gix can miss the loose file and find the older
    /// packed value (or none). Read loose file first, a pruned file means the new
    /// `packed-refs` is already in place when gix looks.
    pub fn ref_target(&self, full_name: &str) -> Result<Option<ObjectId>> {
        if full_name.starts_with("refs/fleet/")
            && let Some(id) = self.loose_id(full_name)
        {
            return Ok(Some(id));
        }
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

    /// The object id in `full_name`'s loose file in the common dir, when it holds one
    /// (not when it is missing, symbolic or unreadable: then gix reads the ref).
    fn loose_id(&self, full_name: &str) -> Option<ObjectId> {
        let text = std::fs::read(self.common_dir().join(full_name)).ok()?;
        let hex = text.strip_suffix(b"\n").unwrap_or(&text);
        if hex.len() != 40 && hex.len() != 64 {
            return None;
        }
        ObjectId::from_hex(hex).ok()
    }

    /// When `full_name`'s loose file in the common dir was last written (seconds since the
    /// epoch): when the ref last moved, by this machine's clock, whatever date its commits
    /// carry. `None` for a ref that is packed or missing.
    pub fn loose_ref_written(&self, full_name: &str) -> Option<i64> {
        let at = std::fs::metadata(self.common_dir().join(full_name))
            .ok()?
            .modified()
            .ok()?;
        Some(at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64)
    }

    /// Hold fleet's pack lock (`<common>/fleet/pack-refs.lock`, an flock the kernel
    /// drops with its holder): shared by every listing and every compare-and-swap of
    /// fleet's refs, exclusive while [`Self::pack_refs_under`] packs them. A second
    /// flock, `pack-refs-next.lock`, lets a waiting pack go next: a new shared holder
    /// passes through it, and the pack holds it while it waits for the shared holders to
    /// finish, so a busy queue cannot keep a pack out for ever. Waits up to `wait`.
    ///
    /// Why: a gix 0.90 ref transaction reads `packed-refs` before it takes
    /// `packed-refs.lock`, and reads a ref's current value from that copy when the loose
    /// file is gone. Beside a `git pack-refs` that copies a ref's new value, commits
    /// `packed-refs` and prunes the loose file meanwhile, the swap would compare against
    /// the older value and win from it: a claim lost, a task claimed twice
    /// (`tests/task_pack.rs` caught both). gix's listings read `packed-refs` before the
    /// loose files too, and lose a ref pruned in between. git's own updates read under
    /// the lock, and its listings read the loose files first.
    fn pack_lock(&self, exclusive: bool, wait: std::time::Duration) -> Result<PackLock> {
        use rustix::fs::FlockOperation::{NonBlockingLockExclusive, NonBlockingLockShared};
        let deadline = std::time::Instant::now() + wait;
        let (next, op) = if exclusive {
            (NonBlockingLockExclusive, NonBlockingLockExclusive)
        } else {
            (NonBlockingLockShared, NonBlockingLockShared)
        };
        let turn = self.flock_until("pack-refs-next", next, deadline, exclusive)?;
        let held = self.flock_until("pack-refs", op, deadline, exclusive)?;
        Ok(PackLock {
            _held: held,
            _turn: exclusive.then_some(turn),
        })
    }

    fn flock_until(
        &self,
        name: &str,
        op: rustix::fs::FlockOperation,
        deadline: std::time::Instant,
        exclusive: bool,
    ) -> Result<std::fs::File> {
        let common = self.common_dir();
        let path = crate::state::lock_file(&common, name);
        let open = || {
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
        };
        let file = match open() {
            Ok(file) => file,
            Err(_) => {
                let dir = path.parent().unwrap_or(&common);
                std::fs::create_dir_all(dir)
                    .context(|| format!("cannot create {}", dir.display()))?;
                open().context(|| format!("cannot open {}", path.display()))?
            }
        };
        loop {
            if rustix::fs::flock(&file, op).is_ok() {
                return Ok(file);
            }
            if std::time::Instant::now() >= deadline {
                return Err(Error::locked(format!(
                    "{} is held by another fleet process ({})",
                    path.display(),
                    if exclusive {
                        "reading or updating fleet's refs"
                    } else {
                        "packing fleet's refs"
                    }
                ))
                .with_help(
                    "wait for it to finish; the lock goes away by itself when that process exits",
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
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
        self.listing_past_packs(prefix, || {
            let what = || format!("cannot list {prefix}");
            let refs = self.inner.references().context(what)?;
            let (mut out, mut unread) = (Vec::new(), false);
            for r in refs.prefixed(prefix).context(what)? {
                let Ok(mut r) = r else {
                    unread = true;
                    continue;
                };
                let name = r.name().as_bstr().to_str_lossy().into_owned();
                if let Ok(id) = r.peel_to_id() {
                    out.push((name, id.detach()));
                }
            }
            out.sort();
            Ok((out, unread))
        })
    }

    /// `list`, done again when `packed-refs` was rewritten while it ran or when a ref
    /// in it could not be read (`list` says so with its `bool`); after a few tries, what
    /// the last one read (a ref broken for good is left out, as before). Both are what a
    /// concurrent `git pack-refs` does to a gix listing: gix reads `packed-refs` when a
    /// listing starts and the loose files after it, so a pack that commits `packed-refs`
    /// and prunes a loose file in between makes that ref vanish (git itself reads the
    /// loose files first); and a loose file pruned between the folder's read and the
    /// file's is an error that hides the packed copy of the same name too. A rewrite is a
    /// rename, so the file's inode tells it, whatever the clock's grain.
    fn listing_past_packs<T>(
        &self,
        prefix: &str,
        mut list: impl FnMut() -> Result<(T, bool)>,
    ) -> Result<T> {
        const TRIES: usize = 5;
        // fleet's own packs wait for the listing (see `pack_lock`); the checks below
        // are for anyone else's (`git gc`, `git pack-refs --all`).
        let _not_packing = self.own_ref_swap(prefix)?;
        let packed = self.common_dir().join("packed-refs");
        let identity = || {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(&packed)
                .ok()
                .map(|m| (m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
        };
        let mut tries = 0;
        loop {
            let before = identity();
            let (out, unread) = list()?;
            tries += 1;
            if (!unread && identity() == before) || tries >= TRIES {
                return Ok(out);
            }
        }
    }

    /// How many loose ref files are under `prefix` (`refs/fleet/tasks/`) in the common
    /// dir: a walk of its folders, no file read. Lock files are not refs.
    pub fn loose_refs_under(&self, prefix: &str) -> usize {
        fn walk(dir: &std::path::Path) -> usize {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return 0;
            };
            entries
                .flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => walk(&e.path()),
                    Ok(t) if t.is_file() => {
                        usize::from(!e.file_name().to_string_lossy().ends_with(".lock"))
                    }
                    _ => 0,
                })
                .sum()
        }
        walk(&self.common_dir().join(prefix))
    }

    /// Pack the loose refs under `prefix` (`refs/fleet/tasks/`) into `packed-refs`
    /// ([`crate::git::cli::pack_refs`]: `git pack-refs --include '<prefix>*'`, which
    /// packs and prunes nothing else), so listing them reads one file instead of one
    /// file per ref. Safe beside compare-and-swap updates of those refs: git's lock
    /// protocol, described there, and no swap of fleet's refs while it runs
    /// ([`Self::pack_lock`]). A [`crate::error::Kind::Locked`] error when swaps or
    /// another pack kept the lock for 5 s, or git could not take `packed-refs.lock`:
    /// nothing changed, the next pack does it.
    ///
    /// A pack never follows the last rewrite of `packed-refs` within 50 ms: gix tells a
    /// rewritten `packed-refs` from the one it cached by its modification time alone
    /// (gix-fs 0.24's `SharedFileSnapshot`), and Linux stamps files from a clock that
    /// moves in ticks of 1 to 10 ms. A rewrite in the tick of the previous one would look unchanged to a
    /// gix process that cached the previous one, which would then read the refs this
    /// pack moves out of their loose files at their older packed values.
    pub fn pack_refs_under(&self, prefix: &str) -> Result<()> {
        // Only fleet's own refs: their swaps are the ones that take the pack lock.
        if !prefix.starts_with("refs/fleet/")
            || !prefix.ends_with('/')
            || prefix.contains(['*', '?', '[', '\\'])
        {
            return Err(Error::usage(format!(
                "cannot pack the refs under {prefix}: give a folder of fleet's refs such as refs/fleet/tasks/"
            )));
        }
        const SAME_TICK: std::time::Duration = std::time::Duration::from_millis(50);
        let packed = self.common_dir().join("packed-refs");
        let wait_for_a_new_tick = || {
            if let Some(age) = std::fs::metadata(&packed)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                && age < SAME_TICK
            {
                std::thread::sleep(SAME_TICK - age);
            }
        };
        // Outside the lock, then again inside it (another pack may have gone first).
        wait_for_a_new_tick();
        // No listing or swap of fleet's refs runs while git packs (see `pack_lock`).
        let _packing = self.pack_lock(true, std::time::Duration::from_secs(5))?;
        wait_for_a_new_tick();
        let no_hooks = crate::state::no_hooks_dir(self)?;
        super::cli::pack_refs(&self.common_dir(), &format!("{prefix}*"), &no_hooks)
    }

    /// Every ref under `prefix` that names an object directly, with that object's id as
    /// stored, not peeled, so no object is read: [`Self::refs_under`] peels each ref,
    /// which looks up each object (10,000 lookups for 10,000 task refs). For refs fleet
    /// writes itself, always straight at a commit; a symbolic ref there is skipped.
    pub fn ref_ids_under(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        self.listing_past_packs(prefix, || {
            let what = || format!("cannot list {prefix}");
            let refs = self.inner.references().context(what)?;
            let (mut out, mut unread) = (Vec::new(), false);
            for r in refs.prefixed(prefix).context(what)? {
                let Ok(r) = r else {
                    unread = true;
                    continue;
                };
                if let Some(id) = r.target().try_id() {
                    out.push((
                        r.name().as_bstr().to_str_lossy().into_owned(),
                        id.to_owned(),
                    ));
                }
            }
            out.sort();
            Ok((out, unread))
        })
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
        let _not_packing = self.own_ref_swap(full_name)?;
        self.edit(full_name, Some(new), expected, reason)
            .map_err(|e| {
                let now = self.ref_target(full_name).ok().flatten();
                let packed = self.common_dir().join("packed-refs.lock");
                let in_the_way = if packed.exists() {
                    format!("; {} is in the way", packed.display())
                } else {
                    String::new()
                };
                Error::refused(format!(
                    "{full_name} was not updated: expected {}, found {} ({e}{in_the_way})",
                    describe(old),
                    describe(now)
                ))
                .with_help("someone else moved it first; re-read and try again")
            })
    }

    /// Delete `full_name` only if it still points at `expected`.
    pub fn cas_delete(&self, full_name: &str, expected: ObjectId) -> Result<()> {
        let expected = PreviousValue::MustExistAndMatch(Target::Object(expected));
        let _not_packing = self.own_ref_swap(full_name)?;
        self.edit_past_stale_lock(full_name, None, expected, "")
            .map_err(|e| Error::refused(format!("cannot delete {full_name}: {e}")))
    }

    /// For a swap of one of fleet's own refs (which only fleet packs), the shared side
    /// of [`Self::pack_lock`], held until dropped; nothing for other refs.
    fn own_ref_swap(&self, full_name: &str) -> Result<Option<PackLock>> {
        if !full_name.starts_with("refs/fleet/") {
            return Ok(None);
        }
        self.pack_lock(false, std::time::Duration::from_secs(30))
            .map(Some)
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

    /// [`Self::edit_once`], and once more after clearing a stale `packed-refs.lock` in
    /// the way. While that file exists gix takes it for every swap that checks a ref's
    /// old value (to read the packed refs under it), so the leftover of a git or fleet
    /// killed while it held it (a `git branch -D` killed with its drainer) would fail
    /// every swap of every ref, each after the lock's timeout, until someone cleared it.
    fn edit(
        &self,
        full_name: &str,
        new: Option<ObjectId>,
        expected: PreviousValue,
        reason: &str,
    ) -> std::result::Result<(), String> {
        self.edit_once(full_name, new, expected.clone(), reason)
            .or_else(|first| {
                if self.packed_refs_locked() && self.clear_stale_packed_refs_lock() {
                    return self.edit_once(full_name, new, expected, reason);
                }
                Err(first)
            })
    }

    fn edit_once(
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

/// Fleet's pack lock, held until dropped (see [`Repo::pack_lock`]).
struct PackLock {
    _held: std::fs::File,
    /// A pack keeps its turn until it is done.
    _turn: Option<std::fs::File>,
}
