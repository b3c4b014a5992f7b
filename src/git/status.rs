//! The index and the worktree: what the index tracks, whether a checkout holds
//! uncommitted or untracked work, and the in-process proof that a checkout is exactly
//! as a landing left it (so the common case starts no git).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use gix::bstr::ByteSlice;

use super::{ChangedPath, GITLINK, ObjectId, Repo};
use crate::error::{Context, Result};

impl Repo {
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
        Ok(file_entries(&index)
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
        if self.clean_by_stat() {
            return Ok(Vec::new());
        }
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
}

impl Repo {
    /// Proof, without hashing a file, that this worktree holds nothing uncommitted: the
    /// index's cache tree (git writes it at each commit) is whole and is HEAD's tree, so
    /// nothing is staged; every entry is a plain stage-0 file or symlink whose `lstat`
    /// matches the entry and is not racy; and the directory walk finds nothing
    /// untracked. `false` means "not proven", never "dirty": [`Repo::dirty_paths`] then
    /// runs the whole status, which hashes what the stat data cannot vouch for. This is
    /// the common case of a run's end (the agent committed everything), decided in
    /// about one `lstat` per file.
    ///
    /// Racy entries are told with nanoseconds: file and index times come from the same
    /// kernel clock, so a file last written before the index (at an earlier tick) was
    /// either recorded as it is or changed in the very tick it was recorded, the hole
    /// git's own check (in whole seconds by default) leaves wider.
    fn clean_by_stat(&self) -> bool {
        let Some(workdir) = self.workdir() else {
            return false;
        };
        let Ok(index) = self.inner.index() else {
            return false;
        };
        if index.is_sparse()
            || index.link().is_some()
            || self
                .inner
                .filesystem_options()
                .map_or(true, |fs| fs.ignore_case)
        {
            return false;
        }
        let Ok(head_tree) = self.inner.head_tree_id() else {
            return false;
        };
        let whole = index.tree().is_some_and(|tree| {
            tree.name.is_empty()
                && tree.id == head_tree.detach()
                && tree.num_entries == u32::try_from(index.entries().len()).ok()
        });
        if !whole {
            return false;
        }
        let options = gix::index::entry::stat::Options {
            use_nsec: true,
            ..Default::default()
        };
        let timestamp = index.timestamp();
        let empty_blob = ObjectId::empty_blob(self.inner.object_hash());
        let odd = gix::index::entry::Flags::ASSUME_VALID
            | gix::index::entry::Flags::SKIP_WORKTREE
            | gix::index::entry::Flags::INTENT_TO_ADD;
        let files_as_recorded = index.entries().iter().all(|entry| {
            let mode = entry.mode.bits() as u16;
            if entry.stage_raw() != 0 || entry.flags.intersects(odd) || mode == GITLINK {
                return false;
            }
            let Ok(path) = entry.path(&index).to_path() else {
                return false;
            };
            let Ok(meta) = gix::index::fs::Metadata::from_path_no_follow(&workdir.join(path))
            else {
                return false;
            };
            let on_disk = match (meta.is_symlink(), meta.is_file(), meta.is_executable()) {
                (true, _, _) => 0o120000,
                (false, true, true) => 0o100755,
                (false, true, false) => 0o100644,
                _ => return false,
            };
            // git records size 0 for an entry it could not trust (smudged): no proof,
            // unless the blob really is empty.
            let smudged = entry.stat.size == 0 && entry.id != empty_blob;
            gix::index::entry::Stat::from_fs(&meta).is_ok_and(|stat| {
                on_disk == mode
                    && !smudged
                    && entry.stat.matches(&stat, options)
                    && !entry.stat.is_racy(timestamp, options)
            })
        });
        files_as_recorded && self.has_untracked().is_ok_and(|found| !found)
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

/// The stage-0 entries of `index` that are files (gitlinks left out): what a checkout's
/// files are compared against.
pub(super) fn file_entries(index: &gix::index::File) -> impl Iterator<Item = &gix::index::Entry> {
    index
        .entries()
        .iter()
        .filter(|e| e.stage_raw() == 0 && e.mode.bits() as u16 != GITLINK)
}
