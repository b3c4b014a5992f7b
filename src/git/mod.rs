//! The only place that talks to git.
//!
//! gix does the reads, the object work and every ref update (compare-and-swap, so a ref
//! only moves from the value we saw). The git binary is used only where gix 0.90 lacks
//! the operation; those calls live in [`cli`], one function each, with the reason.

pub mod cli;
mod objects;

pub use objects::{ChangedPath, CommitInfo, GITLINK, Merged};

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use gix::bstr::ByteSlice;
use gix::refs::Target;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

use crate::error::{Context, Error, Result};

pub use gix::ObjectId;

/// One repository as seen from one of its worktrees (or a bare repository).
pub struct Repo {
    inner: gix::Repository,
}

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
            Error::refused(format!(
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
        let inner = gix::open_opts(path, open_options(gix::sec::Trust::Full))
            .map(prepared)
            .context(|| format!("cannot open the repository at {}", path.display()))?;
        Ok(Repo { inner })
    }

    pub fn gix(&self) -> &gix::Repository {
        &self.inner
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

    /// Does this worktree's index track `rel` (a path relative to its top)?
    pub fn tracks(&self, rel: &Path) -> bool {
        let path = rel.to_string_lossy().replace('\\', "/");
        self.inner
            .index_or_empty()
            .is_ok_and(|index| index.entry_by_path(path.as_str().into()).is_some())
    }

    /// Every stage-0 file entry of this worktree's index (path, blob), gitlinks left out.
    pub fn index_files(&self) -> Result<Vec<(String, ObjectId)>> {
        let index = self
            .inner
            .index_or_empty()
            .context(|| "cannot read the index".into())?;
        Ok(index
            .entries()
            .iter()
            .filter(|e| e.stage_raw() == 0 && e.mode.bits() as u16 != GITLINK)
            .map(|e| (e.path(&index).to_str_lossy().into_owned(), e.id))
            .collect())
    }

    /// Proof, from the index and `lstat` alone, that this checkout holds each of
    /// `changed` exactly as its old side: a path the change adds has no index entry
    /// and nothing on disk; any other path has a stage-0 index entry with the old blob
    /// and mode, and a file whose stat data match that entry and are not racy (git's
    /// own test for "unchanged"). `false` means "not proven", never "changed": the
    /// caller then asks `git status`. It is the common case of a landing (a shared
    /// checkout nobody edits), decided without starting git.
    pub fn provably_as_before(&self, changed: &[ChangedPath]) -> bool {
        let Some(workdir) = self.workdir() else {
            return false;
        };
        let Ok(index) = self.inner.index() else {
            return false;
        };
        // Case-folding file systems make `lstat` answer for other names.
        if self
            .inner
            .filesystem_options()
            .map_or(true, |fs| fs.ignore_case)
        {
            return false;
        }
        let options = gix::index::entry::stat::Options::default();
        let empty_blob = ObjectId::empty_blob(self.inner.object_hash());
        let odd = gix::index::entry::Flags::ASSUME_VALID
            | gix::index::entry::Flags::SKIP_WORKTREE
            | gix::index::entry::Flags::INTENT_TO_ADD;
        changed.iter().all(|change| {
            if change.is_gitlink() {
                return false;
            }
            let path = gix::bstr::BStr::new(change.path.as_bytes());
            let under = format!("{}/", change.path);
            if index
                .prefixed_entries_range(under.as_str().into())
                .is_some()
            {
                return false;
            }
            let on_disk =
                gix::index::fs::Metadata::from_path_no_follow(&workdir.join(&change.path));
            let entry = index.entry_by_path(path);
            let (Some(old), Some(entry)) = (change.old, entry) else {
                // Added by the change: nothing of the user's may be there yet.
                return change.old.is_none()
                    && entry.is_none()
                    && on_disk.is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
            };
            let Ok(meta) = on_disk else {
                return false;
            };
            let mode_on_disk = match (meta.is_symlink(), meta.is_file(), meta.is_executable()) {
                (true, _, _) => 0o120000,
                (false, true, true) => 0o100755,
                (false, true, false) => 0o100644,
                _ => return false,
            };
            let Ok(stat) = gix::index::entry::Stat::from_fs(&meta) else {
                return false;
            };
            // git records size 0 for an entry it could not trust when it wrote the
            // index (racily clean, and the file had changed): such an entry never
            // proves anything, unless the blob really is empty.
            let smudged = entry.stat.size == 0 && old != empty_blob;
            entry.stage_raw() == 0
                && !smudged
                && entry.id == old
                && entry.mode.bits() as u16 == change.old_mode
                && mode_on_disk == change.old_mode
                && !entry.flags.intersects(odd)
                && entry.stat.matches(&stat, options)
                && !entry.stat.is_racy(index.timestamp(), options)
        })
    }

    /// The index's stage-0 entries (mode, blob) for `paths`, read from this worktree's
    /// index file. Paths not in the index are absent from the map.
    pub fn index_entries(
        &self,
        paths: &[String],
    ) -> Result<std::collections::HashMap<String, (u16, ObjectId)>> {
        let wanted: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
        let index = self
            .inner
            .index_or_empty()
            .context(|| "cannot read the index".into())?;
        let mut found = std::collections::HashMap::new();
        for entry in index.entries() {
            if entry.stage_raw() != 0 {
                continue;
            }
            let path = entry.path(&index).to_str_lossy();
            if wanted.contains(path.as_ref()) {
                found.insert(path.into_owned(), (entry.mode.bits() as u16, entry.id));
            }
        }
        Ok(found)
    }

    /// Number of commits reachable from `tip` but not from `hide` (`git rev-list --count hide..tip`).
    pub fn count_exclusive(&self, tip: ObjectId, hide: ObjectId) -> Result<usize> {
        if tip == hide {
            return Ok(0);
        }
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden([hide])
            .all()
            .context(|| format!("cannot walk history from {tip}"))?;
        let mut n = 0;
        for info in walk {
            info.context(|| format!("cannot walk history from {tip}"))?;
            n += 1;
        }
        Ok(n)
    }

    /// The commits reachable from `tip` but not from `hide` (git's `hide..tip`).
    pub fn exclusive_commits(
        &self,
        tip: ObjectId,
        hide: ObjectId,
    ) -> Result<std::collections::HashSet<ObjectId>> {
        let what = || format!("cannot walk {hide}..{tip}");
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden([hide])
            .all()
            .context(what)?;
        let mut out = std::collections::HashSet::new();
        for info in walk {
            out.insert(info.context(what)?.id);
        }
        Ok(out)
    }

    /// (ahead, behind) of `tip` relative to `base`.
    pub fn ahead_behind(&self, tip: ObjectId, base: ObjectId) -> Result<(usize, usize)> {
        Ok((
            self.count_exclusive(tip, base)?,
            self.count_exclusive(base, tip)?,
        ))
    }

    /// Commit time (seconds since the epoch) of `id`.
    pub fn commit_time(&self, id: ObjectId) -> Result<i64> {
        let commit = self
            .inner
            .find_commit(id)
            .context(|| format!("cannot read commit {id}"))?;
        let time = commit
            .time()
            .context(|| format!("cannot read the time of commit {id}"))?;
        Ok(time.seconds)
    }

    pub fn tree_of(&self, commit: ObjectId) -> Result<ObjectId> {
        let commit = self
            .inner
            .find_commit(commit)
            .context(|| format!("cannot read commit {commit}"))?;
        Ok(commit
            .tree_id()
            .context(|| "cannot read tree".to_string())?
            .detach())
    }

    /// Are all the changes of `branch` already in `target`? True when every path the
    /// branch changed (since its merge base with `target`) holds exactly the branch's
    /// version in `target`. This counts squash, rebase and cherry-pick landings, which
    /// ancestry alone would miss, and uses no merge drivers or attributes, so it never
    /// calls work landed that a merge would have dropped. It can answer "no" for a
    /// landed branch whose files the target changed again later: the safe direction.
    pub fn changes_already_in(&self, branch: ObjectId, target: ObjectId) -> Result<bool> {
        if self.count_exclusive(branch, target)? == 0 {
            return Ok(true);
        }
        let Ok(Some(base)) = self.inner.merge_base(branch, target) else {
            // Unrelated histories: nothing of the branch can be in the target.
            return Ok(false);
        };
        let base = Some(TreeSide::Tree(self.tree_of(base.detach())?));
        let branch = Some(TreeSide::Tree(self.tree_of(branch)?));
        let target = Some(TreeSide::Tree(self.tree_of(target)?));
        self.branch_side_in_target(base, branch, target)
    }

    /// One path, three sides: unchanged by the branch, or the branch's version is in the
    /// target (recursing into folders the branch changed).
    fn branch_side_in_target(
        &self,
        base: Option<TreeSide>,
        branch: Option<TreeSide>,
        target: Option<TreeSide>,
    ) -> Result<bool> {
        if base == branch || branch == target {
            return Ok(true);
        }
        let Some(TreeSide::Tree(branch_tree)) = branch else {
            return Ok(false);
        };
        let base_children = match base {
            Some(TreeSide::Tree(id)) => self.tree_children(id)?,
            _ => Default::default(),
        };
        let target_children = match target {
            Some(TreeSide::Tree(id)) => self.tree_children(id)?,
            _ => Default::default(),
        };
        let branch_children = self.tree_children(branch_tree)?;
        let names: std::collections::BTreeSet<&Vec<u8>> =
            base_children.keys().chain(branch_children.keys()).collect();
        for name in names {
            let side = |map: &std::collections::BTreeMap<Vec<u8>, TreeSide>| map.get(name).copied();
            if !self.branch_side_in_target(
                side(&base_children),
                side(&branch_children),
                side(&target_children),
            )? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn tree_children(
        &self,
        tree: ObjectId,
    ) -> Result<std::collections::BTreeMap<Vec<u8>, TreeSide>> {
        let tree = self
            .inner
            .find_tree(tree)
            .context(|| format!("cannot read tree {tree}"))?;
        let decoded = tree
            .decode()
            .context(|| "cannot decode a tree".to_string())?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| {
                let side = if e.mode.is_tree() {
                    TreeSide::Tree(e.oid.to_owned())
                } else {
                    TreeSide::Leaf(e.mode.value(), e.oid.to_owned())
                };
                (e.filename.to_vec(), side)
            })
            .collect())
    }

    /// Does the object database have `id`?
    pub fn has_object(&self, id: ObjectId) -> bool {
        self.inner.has_object(id)
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

    /// Uncommitted changes: staged, unstaged or untracked (ignored files do not count,
    /// nor do nested repositories, which are checked on their own).
    pub fn is_dirty(&self) -> Result<bool> {
        Ok(!self.dirty_paths(1)?.is_empty())
    }

    /// Anything untracked in the worktree that is not ignored: a file, a folder (an
    /// empty one too) or a repository. A directory walk that stops at the first hit:
    /// unlike a status, it neither stats nor hashes tracked files, and starts no
    /// threads, so it is the cheap question to ask before every gate run.
    pub fn has_untracked(&self) -> Result<bool> {
        use gix::dir::walk::{Action, Delegate, EmissionMode};
        use gix::dir::{EntryRef, entry};

        /// Stops the walk at the first untracked entry.
        #[derive(Default)]
        struct FirstUntracked(bool);
        impl Delegate for FirstUntracked {
            fn emit(&mut self, entry: EntryRef<'_>, _: Option<entry::Status>) -> Action {
                if entry.status == entry::Status::Untracked {
                    self.0 = true;
                    return Action::Break(());
                }
                Action::Continue(())
            }
        }

        let what = || "cannot look for untracked files in the worktree".to_string();
        let index = self.inner.index_or_empty().context(what)?;
        let options = self
            .inner
            .dirwalk_options()
            .context(what)?
            .emit_untracked(EmissionMode::CollapseDirectory)
            .emit_ignored(None)
            .emit_tracked(false)
            .emit_empty_directories(true);
        let mut found = FirstUntracked::default();
        let interrupt = AtomicBool::new(false);
        self.inner
            .dirwalk(
                &index,
                Vec::<gix::bstr::BString>::new(),
                &interrupt,
                options,
                &mut found,
            )
            .context(what)?;
        Ok(found.0)
    }

    /// Up to `limit` paths with uncommitted changes, for messages.
    pub fn dirty_paths(&self, limit: usize) -> Result<Vec<String>> {
        let what = || "cannot compute the status of the worktree".to_string();
        // Whatever the user configured to hide (status.showUntrackedFiles=no, a
        // submodule's `ignore`), fleet must see: this answers "would work be lost?".
        let dirwalk = self.inner.dirwalk_options().context(what)?;
        let iter = self
            .inner
            .status(gix::progress::Discard)
            .context(what)?
            .index_worktree_options_mut(|o| o.dirwalk_options = Some(dirwalk))
            .index_worktree_submodules(gix::status::Submodule::Given {
                ignore: gix::submodule::config::Ignore::None,
                check_dirty: true,
            })
            .untracked_files(gix::status::UntrackedFiles::Collapsed)
            .into_iter(Vec::<gix::bstr::BString>::new())
            .context(what)?;
        let mut paths = Vec::new();
        for item in iter {
            let item = item.context(what)?;
            if is_nested_repository(&item) {
                continue;
            }
            paths.push(item.location().to_str_lossy().into_owned());
            if paths.len() >= limit {
                break;
            }
        }
        Ok(paths)
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
        let admin = self.common_dir().join("worktrees").join(id);
        crate::files::remove_tree(&admin).map_err(|e| {
            Error::env(format!(
                "cannot drop the worktree record {}: {e}",
                admin.display()
            ))
        })
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

    /// Remove `<ref>.lock` when it is older than `min_age`: the leftover of a process
    /// killed while it updated the ref (git and gix write a ref lock for milliseconds).
    /// Returns whether a lock was removed.
    pub fn clear_stale_ref_lock(&self, full_name: &str, min_age: std::time::Duration) -> bool {
        let lock = self.common_dir().join(format!("{full_name}.lock"));
        clear_stale_file(&lock, min_age)
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
                let lock = self.common_dir().join(format!("{full_name}.lock"));
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

    /// Add a linked worktree at `path` on the existing local branch `branch`.
    pub fn add_worktree(&self, path: &Path, branch: &str) -> Result<()> {
        let name: gix::refs::FullName = format!("refs/heads/{branch}")
            .try_into()
            .map_err(|e| Error::usage(format!("bad branch name {branch}: {e}")))?;
        self.add_worktree_at(path, gix::worktree::add::Head::Attached(name))
    }

    /// Add a linked worktree at `path` with a detached HEAD at `commit`.
    pub fn add_detached_worktree(&self, path: &Path, commit: ObjectId) -> Result<()> {
        self.add_worktree_at(path, gix::worktree::add::Head::Detached(commit))
    }

    fn add_worktree_at(&self, path: &Path, head: gix::worktree::add::Head) -> Result<()> {
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
}

fn is_nested_repository(item: &gix::status::Item) -> bool {
    use gix::status::index_worktree::Item as W;
    match item {
        gix::status::Item::IndexWorktree(W::DirectoryContents { entry, .. }) => {
            entry.disk_kind == Some(gix::dir::entry::Kind::Repository)
        }
        _ => false,
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

/// Wait while the lock file `lock` exists, at most a little longer than it takes to
/// call one stale (ten seconds old and open in no process), and clear it once it is.
pub fn wait_out_lock(lock: &Path) {
    let started = std::time::Instant::now();
    while lock.exists()
        && !clear_stale_file(lock, std::time::Duration::from_secs(10))
        && started.elapsed() < std::time::Duration::from_secs(12)
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Remove `path` when it exists, is older than `min_age` and no process has it open.
pub fn clear_stale_file(path: &Path, min_age: std::time::Duration) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let age = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .unwrap_or_default();
    if age < min_age || is_open_by_any_process(path) {
        return false;
    }
    std::fs::remove_file(path).is_ok()
}

/// Linux: does any process hold `path` open? (Unknown elsewhere: assume not.)
pub fn is_open_by_any_process(path: &Path) -> bool {
    crate::sys::procfs::is_open_by_any_process(path)
}

/// One side of a path in a three-way tree comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TreeSide {
    Tree(ObjectId),
    Leaf(u16, ObjectId),
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

/// The git dir a `.git` file in `checkout` names (`gitdir: X`, relative to `checkout`
/// or absolute); `None` when there is no such file.
pub fn gitdir_link(checkout: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(checkout.join(".git")).ok()?;
    let dir = text.trim_end().strip_prefix("gitdir: ")?;
    Some(checkout.join(dir))
}

/// Make a path absolute without resolving symlinks (the caller decides about those).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Repo {
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

    /// Wrap a repository that was opened by other means (preflight discovers by hand).
    pub fn from_gix(inner: gix::Repository) -> Repo {
        Repo {
            inner: prepared(inner),
        }
    }
}

/// A git path (bytes) as a file-system path.
pub fn bstr_path(path: &gix::bstr::BStr) -> PathBuf {
    PathBuf::from(path.to_str_lossy().into_owned())
}

/// An exclusive lock on `<common dir>/fleet/<name>.lock`, held until dropped.
///
/// `flock(2)`, not a create-exclusive file: the kernel drops it when the holder dies,
/// even by `kill -9`, so a crash never leaves a stale lock behind.
pub struct RepoLock {
    _file: std::fs::File,
}

impl Repo {
    /// Take the named lock, waiting up to `wait` for another fleet process to finish.
    pub fn lock(&self, name: &str, wait: std::time::Duration) -> Result<RepoLock> {
        use std::os::fd::AsRawFd;
        let dir = self.common_dir().join("fleet");
        std::fs::create_dir_all(&dir).context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(format!("{name}.lock"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .context(|| format!("cannot open {}", path.display()))?;
        let deadline = std::time::Instant::now() + wait;
        loop {
            // SAFETY: flock on a descriptor we own.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                return Ok(RepoLock { _file: file });
            }
            if std::time::Instant::now() >= deadline {
                return Err(Error::env(format!(
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
