//! What a worktree's index keeps from `git status`: entries marked skip-worktree or
//! assume-unchanged (their files are not looked at, so a local edit there is invisible)
//! and unmerged entries of a conflict. A move of the checkout's files trips over both.

use gix::bstr::ByteSlice;

use super::{ObjectId, Repo};
use crate::error::{Context, Result};

/// One index entry `git status` does not compare with its file.
#[derive(Debug)]
pub struct HiddenEntry {
    pub path: String,
    pub id: ObjectId,
    /// `skip-worktree` or `assume-unchanged`.
    pub flag: &'static str,
}

impl Repo {
    /// The stage-0 file entries among `paths` marked skip-worktree or assume-unchanged
    /// (gitlinks left out).
    pub fn hidden_entries(&self, paths: &[String]) -> Result<Vec<HiddenEntry>> {
        use gix::index::entry::Flags;
        let wanted: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
        let index = self
            .inner
            .index_or_empty()
            .context(|| "cannot read the index".into())?;
        Ok(super::status::file_entries(&index)
            .filter_map(|e| {
                let flag = if e.flags.contains(Flags::SKIP_WORKTREE) {
                    "skip-worktree"
                } else if e.flags.contains(Flags::ASSUME_VALID) {
                    "assume-unchanged"
                } else {
                    return None;
                };
                let path = e.path(&index).to_str_lossy();
                wanted.contains(path.as_ref()).then(|| HiddenEntry {
                    path: path.into_owned(),
                    id: e.id,
                    flag,
                })
            })
            .collect())
    }

    /// The paths with unmerged (conflict) entries in the index, each once.
    pub fn unmerged_paths(&self) -> Result<Vec<String>> {
        let index = self
            .inner
            .index_or_empty()
            .context(|| "cannot read the index".into())?;
        let mut out: Vec<String> = index
            .entries()
            .iter()
            .filter(|e| e.stage_raw() != 0)
            .map(|e| e.path(&index).to_str_lossy().into_owned())
            .collect();
        out.dedup();
        Ok(out)
    }
}
