//! Objects: reading files and trees out of commits, comparing two trees, and writing
//! blobs, trees and small commits (the lane registry, notes, landing candidates)
//! without any worktree.

use gix::bstr::ByteSlice;

use super::{ObjectId, Repo};
use crate::error::{Context, Error, Result};

/// The blob id git gives `bytes` (what `git hash-object` prints, no filters applied);
/// `None` only if hashing fails.
pub fn blob_id(bytes: &[u8]) -> Option<ObjectId> {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes).ok()
}

/// The id of the empty tree (sha1 repositories, which are all fleet supports).
pub fn empty_tree_id() -> ObjectId {
    ObjectId::empty_tree(gix::hash::Kind::Sha1)
}

/// The all-zero id git uses for "no object" (sha1).
pub fn null_id() -> ObjectId {
    ObjectId::null(gix::hash::Kind::Sha1)
}

/// A path that differs between two trees, with each side's blob (`None`: absent there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedPath {
    pub path: String,
    pub old: Option<ObjectId>,
    pub new: Option<ObjectId>,
    /// git's file modes (0o100644, 0o100755, 0o120000 symlink, 0o160000 submodule);
    /// 0 where the path does not exist on that side.
    pub old_mode: u16,
    pub new_mode: u16,
}

/// The mode git gives a submodule (a gitlink: a commit id, not a blob).
pub const GITLINK: u16 = 0o160000;

impl ChangedPath {
    /// Does this change touch a submodule pointer?
    pub fn is_gitlink(&self) -> bool {
        self.old_mode == GITLINK || self.new_mode == GITLINK
    }
}

/// What a commit of a lane carries over to its replayed copy.
pub struct CommitInfo {
    pub id: ObjectId,
    pub parents: Vec<ObjectId>,
    pub tree: ObjectId,
    pub message: String,
    /// The raw author signature line, kept byte for byte.
    pub author: gix::actor::Signature,
}

impl Repo {
    /// The bytes of `path` in `commit`'s tree, `None` when there is no such file.
    pub fn file_at(&self, commit: ObjectId, path: &str) -> Result<Option<Vec<u8>>> {
        let Some(entry) = self.entry_at(commit, path)? else {
            return Ok(None);
        };
        if !entry.mode().is_blob() {
            return Ok(None);
        }
        let object = entry
            .object()
            .context(|| format!("cannot read {path} from {commit}"))?;
        Ok(Some(object.data.clone()))
    }

    /// What kind of object `id` is (`"commit"`, `"blob"`, `"tree"`, `"tag"`), `None` when
    /// the repository does not have it: for an error that says what a ref points to.
    pub fn object_kind(&self, id: ObjectId) -> Option<&'static str> {
        let header = self.inner.find_header(id).ok()?;
        Some(match header.kind() {
            gix::object::Kind::Commit => "commit",
            gix::object::Kind::Blob => "blob",
            gix::object::Kind::Tree => "tree",
            gix::object::Kind::Tag => "tag",
        })
    }

    /// The entry at `path` in `commit`'s tree, if there is one.
    fn entry_at(
        &self,
        commit: ObjectId,
        path: &str,
    ) -> Result<Option<gix::object::tree::Entry<'_>>> {
        let what = || format!("cannot read {path} from {commit}");
        let tree = self
            .inner
            .find_commit(commit)
            .context(what)?
            .tree()
            .context(what)?;
        tree.lookup_entry_by_path(path).context(what)
    }

    /// Every file in `commit`'s tree, at any depth, with its blob id. A notes ref is
    /// listed this way once, instead of one path lookup per annotated commit.
    pub fn files_in(&self, commit: ObjectId) -> Result<Vec<(String, ObjectId)>> {
        let mut out = Vec::new();
        let mut folders = vec![(String::new(), self.tree_of(commit)?)];
        while let Some((prefix, tree)) = folders.pop() {
            let what = || format!("cannot read tree {tree}");
            let tree = self.inner.find_tree(tree).context(what)?;
            for e in tree.decode().context(what)?.entries {
                let path = format!("{prefix}{}", e.filename.to_str_lossy());
                if e.mode.is_tree() {
                    folders.push((format!("{path}/"), e.oid.to_owned()));
                } else if e.mode.is_blob() {
                    out.push((path, e.oid.to_owned()));
                }
            }
        }
        Ok(out)
    }

    /// The first parent of `commit`, `None` for a root commit.
    pub fn first_parent(&self, commit: ObjectId) -> Result<Option<ObjectId>> {
        let found = self
            .inner
            .find_commit(commit)
            .context(|| format!("cannot read commit {commit}"))?;
        Ok(found.parent_ids().next().map(|p| p.detach()))
    }

    /// Write a commit whose tree holds exactly `files` (path, bytes), with `parents`.
    /// Does not move any ref.
    pub fn write_commit(
        &self,
        files: &[(&str, &[u8])],
        message: &str,
        parents: &[ObjectId],
    ) -> Result<ObjectId> {
        let what = || "cannot write a commit".to_string();
        let mut editor = self.inner.empty_tree().edit().context(what)?;
        for (path, bytes) in files {
            let blob = self.inner.write_blob(bytes).context(what)?.detach();
            editor
                .upsert(*path, gix::object::tree::EntryKind::Blob, blob)
                .context(what)?;
        }
        let tree = editor.write().context(what)?.detach();
        self.commit_tree(message, tree, parents)
    }

    /// A commit on top of `parent` whose tree is the parent's with `path` set to `bytes`
    /// (the way a git note is added). Does not move any ref.
    pub fn commit_with_file(
        &self,
        parent: Option<ObjectId>,
        path: &str,
        bytes: &[u8],
        message: &str,
    ) -> Result<ObjectId> {
        let parents: Vec<ObjectId> = parent.into_iter().collect();
        self.commit_editing(parent, &parents, (path, bytes), &[], message)
    }

    /// A commit with `parents` whose tree is `base`'s (a commit; none: empty) with
    /// `set` written and the files `remove` dropped. Does not move any ref.
    pub fn commit_editing(
        &self,
        base: Option<ObjectId>,
        parents: &[ObjectId],
        set: (&str, &[u8]),
        remove: &[String],
        message: &str,
    ) -> Result<ObjectId> {
        let (path, bytes) = set;
        let what = || format!("cannot write {path} into a commit");
        let mut editor = match base {
            Some(base) => self.inner.edit_tree(self.tree_of(base)?).context(what)?,
            None => self.inner.empty_tree().edit().context(what)?,
        };
        for gone in remove {
            editor.remove(gone.as_str()).context(what)?;
        }
        let blob = self.inner.write_blob(bytes).context(what)?.detach();
        editor
            .upsert(path, gix::object::tree::EntryKind::Blob, blob)
            .context(what)?;
        let tree = editor.write().context(what)?.detach();
        self.commit_tree(message, tree, parents)
    }

    /// The files directly in folder `dir` of `commit`'s tree (name, blob); none when
    /// there is no such folder.
    pub fn files_in_folder(&self, commit: ObjectId, dir: &str) -> Result<Vec<(String, ObjectId)>> {
        let what = || format!("cannot list {dir} in {commit}");
        let Some(entry) = self.entry_at(commit, dir)? else {
            return Ok(Vec::new());
        };
        if !entry.mode().is_tree() {
            return Ok(Vec::new());
        }
        let folder = entry.object().context(what)?.into_tree();
        let decoded = folder.decode().context(what)?;
        Ok(decoded
            .entries
            .iter()
            .filter(|e| e.mode.is_blob())
            .map(|e| (e.filename.to_str_lossy().into_owned(), e.oid.to_owned()))
            .collect())
    }

    /// A commit with parents `[theirs, ours]` whose tree is `theirs`'s plus every file
    /// only `ours` has: the union of two notes-like refs that grew apart (where both
    /// have a file, `theirs` wins). Does not move any ref.
    pub fn union_commit(
        &self,
        theirs: ObjectId,
        ours: ObjectId,
        message: &str,
    ) -> Result<ObjectId> {
        let what = || "cannot combine two notes trees".to_string();
        let (theirs_tree, ours_tree) = (self.tree_of(theirs)?, self.tree_of(ours)?);
        let mut editor = self.inner.edit_tree(theirs_tree).context(what)?;
        for change in self.changed_paths(theirs_tree, ours_tree)? {
            if let (None, Some(new)) = (change.old, change.new) {
                editor
                    .upsert(
                        change.path.as_str(),
                        gix::object::tree::EntryKind::Blob,
                        new,
                    )
                    .context(what)?;
            }
        }
        let tree = editor.write().context(what)?.detach();
        self.commit_tree(message, tree, &[theirs, ours])
    }

    /// Paths that differ between two trees, with both sides' blob ids (`None` where the
    /// path does not exist on that side).
    pub fn changed_paths(&self, old: ObjectId, new: ObjectId) -> Result<Vec<ChangedPath>> {
        let mut out = Vec::new();
        self.diff_trees_into(Some(old), Some(new), String::new(), &mut out)?;
        Ok(out)
    }

    fn diff_trees_into(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        prefix: String,
        out: &mut Vec<ChangedPath>,
    ) -> Result<()> {
        if old == new {
            return Ok(());
        }
        // name -> (is tree, mode, id)
        type Entries = std::collections::BTreeMap<Vec<u8>, (bool, u16, ObjectId)>;
        let read = |id: Option<ObjectId>| -> Result<Entries> {
            let Some(id) = id else {
                return Ok(Default::default());
            };
            Ok(self
                .tree_entries(id)?
                .into_iter()
                .map(|(name, mode, id)| (name, (mode.is_tree(), mode.value(), id)))
                .collect())
        };
        let (a, b) = (read(old)?, read(new)?);
        let names: std::collections::BTreeSet<&Vec<u8>> = a.keys().chain(b.keys()).collect();
        for name in names {
            let path = format!("{prefix}{}", name.to_str_lossy());
            // Mode included: a permission change is a change.
            let (x, y) = (a.get(name).copied(), b.get(name).copied());
            if x == y {
                continue;
            }
            let tree_side =
                |e: Option<(bool, u16, ObjectId)>| e.filter(|(t, _, _)| *t).map(|(_, _, id)| id);
            let leaf_side = |e: Option<(bool, u16, ObjectId)>| e.filter(|(t, _, _)| !*t);
            if tree_side(x).is_some() || tree_side(y).is_some() {
                self.diff_trees_into(tree_side(x), tree_side(y), format!("{path}/"), out)?;
            }
            let (lx, ly) = (leaf_side(x), leaf_side(y));
            if lx.is_some() || ly.is_some() {
                out.push(ChangedPath {
                    path,
                    old: lx.map(|(_, _, id)| id),
                    new: ly.map(|(_, _, id)| id),
                    old_mode: lx.map_or(0, |(_, m, _)| m),
                    new_mode: ly.map_or(0, |(_, m, _)| m),
                });
            }
        }
        Ok(())
    }

    /// The entries of `new` that differ from `old` and whose name gix refuses to write
    /// into a tree or check out (`.git` in any case or disguise, `..`, a symlinked
    /// `.gitmodules`, and what `core.protectNTFS`/`core.protectHFS` add), each as
    /// (path, why), in tree order. Folders that differ are searched; a refused folder
    /// is reported once, not its contents.
    pub fn refused_names(&self, old: ObjectId, new: ObjectId) -> Result<Vec<(String, String)>> {
        let options = self.name_protection();
        let mut out = Vec::new();
        self.refused_names_into(Some(old), new, String::new(), options, &mut out)?;
        Ok(out)
    }

    /// What gix checks names against when it writes a tree (its editor) or a checkout:
    /// `.git` and friends always, Windows and NTFS or HFS tricks as the config says
    /// (gix's own defaults: NTFS protection on everywhere, HFS on macOS).
    fn name_protection(&self) -> gix::validate::path::component::Options {
        let config = self.inner.config_snapshot();
        let flag = |key: &str, default: bool| config.boolean(key).unwrap_or(default);
        gix::validate::path::component::Options {
            protect_windows: flag("gitoxide.core.protectWindows", cfg!(windows)),
            protect_hfs: flag("core.protectHFS", cfg!(target_os = "macos")),
            protect_ntfs: flag("core.protectNTFS", true),
        }
    }

    /// The entries of tree `id`: name, mode, object.
    fn tree_entries(
        &self,
        id: ObjectId,
    ) -> Result<Vec<(Vec<u8>, gix::objs::tree::EntryMode, ObjectId)>> {
        let what = || format!("cannot read tree {id}");
        let tree = self.inner.find_tree(id).context(what)?;
        let decoded = tree.decode().context(what)?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| (e.filename.to_vec(), e.mode, e.oid.to_owned()))
            .collect())
    }

    fn refused_names_into(
        &self,
        old: Option<ObjectId>,
        new: ObjectId,
        prefix: String,
        options: gix::validate::path::component::Options,
        out: &mut Vec<(String, String)>,
    ) -> Result<()> {
        if old == Some(new) {
            return Ok(());
        }
        let before: std::collections::HashMap<Vec<u8>, (gix::objs::tree::EntryMode, ObjectId)> =
            match old {
                Some(old) => self
                    .tree_entries(old)?
                    .into_iter()
                    .map(|(name, mode, id)| (name, (mode, id)))
                    .collect(),
                None => Default::default(),
            };
        for (name, mode, id) in self.tree_entries(new)? {
            let was = before.get(&name).copied();
            if was == Some((mode, id)) {
                continue;
            }
            let path = format!("{prefix}{}", name.to_str_lossy());
            let link = mode
                .is_link()
                .then_some(gix::validate::path::component::Mode::Symlink);
            if let Err(why) = gix::validate::path::component(name.as_bstr(), link, options) {
                out.push((path, why.to_string()));
                continue;
            }
            if mode.is_tree() {
                let old_tree = was.filter(|(m, _)| m.is_tree()).map(|(_, id)| id);
                self.refused_names_into(old_tree, id, format!("{path}/"), options, out)?;
            }
        }
        Ok(())
    }

    /// The empty tree's id (written to the object database, as git assumes it is there).
    pub fn empty_tree(&self) -> ObjectId {
        self.inner.empty_tree().id
    }

    /// The bytes of a blob.
    pub fn blob(&self, id: ObjectId) -> Result<Vec<u8>> {
        let object = self
            .inner
            .find_object(id)
            .context(|| format!("cannot read blob {id}"))?;
        Ok(object.data.clone())
    }

    /// A commit of `tree` by the configured committer (author too).
    pub fn commit_tree(
        &self,
        message: &str,
        tree: ObjectId,
        parents: &[ObjectId],
    ) -> Result<ObjectId> {
        let commit = self
            .inner
            .new_commit(message, tree, parents.iter().copied())
            .context(|| "cannot write a commit".to_string())?;
        Ok(commit.id)
    }

    /// A commit of `tree` that keeps `author` (a replayed or squashed lane commit).
    pub fn commit_tree_as_author(
        &self,
        author: &gix::actor::Signature,
        message: &str,
        tree: ObjectId,
        parents: &[ObjectId],
    ) -> Result<ObjectId> {
        let what = || "cannot write a commit".to_string();
        let committer = self
            .inner
            .committer()
            .ok_or_else(|| Error::env("no committer identity"))?
            .context(what)?
            .to_owned()
            .context(what)?;
        let commit = self
            .inner
            .new_commit_as(
                committer.to_ref(&mut Default::default()),
                author.to_ref(&mut Default::default()),
                message,
                tree,
                parents.iter().copied(),
            )
            .context(what)?;
        Ok(commit.id)
    }

    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let what = || format!("cannot read commit {id}");
        let commit = self.inner.find_commit(id).context(what)?;
        let author = commit.author().context(what)?.to_owned().context(what)?;
        Ok(CommitInfo {
            id,
            parents: commit.parent_ids().map(|p| p.detach()).collect(),
            tree: commit.tree_id().context(what)?.detach(),
            message: commit
                .message_raw()
                .context(what)?
                .to_str_lossy()
                .into_owned(),
            author,
        })
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

    /// Does the object database have `id`?
    pub fn has_object(&self, id: ObjectId) -> bool {
        self.inner.has_object(id)
    }
}
