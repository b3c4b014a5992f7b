//! A memo of parsed tasks, keyed by the id of the commit each was read from, so a list
//! or a claim reads the task refs and not 10,000 commits, trees and `task.toml`s.
//!
//! A commit id never changes what it names, so an entry is never wrong: a task that
//! moved has a new commit, which simply misses and is read from git. The memo is one
//! file for every queue (`<common>/fleet/cache/`, [`crate::state::task_memo`]), a
//! section per queue (the ref prefix it was read under), read once per [`super::Store`].
//! It is a cache and never an error: a file that is missing, partial, corrupt or of
//! another version is ignored and rebuilt. Rewrites go aside and are renamed into
//! place, so a reader sees a whole file; when several processes rewrite it at once the
//! last one wins, which loses nothing true. A rewrite keeps only the entries whose
//! commit a ref of that queue names, so the file stays the size of the queue.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Task;
use crate::git::ObjectId;

/// Bumped when the file's shape or [`Task`]'s changes: another version is ignored.
const VERSION: u32 = 3;

/// Changes after which a claim rewrites the file. A list always rewrites a changed memo;
/// a claim (many per second across drainers, each leaving one new commit) rewrites it
/// only once it has fallen this far behind, so a claim costs at most about this many
/// task reads.
pub(super) const SAVE_AFTER_CHANGES: usize = 64;

#[derive(Serialize, Deserialize)]
struct File {
    version: u32,
    /// Ref prefix -> commit id (hex) -> the task `task.toml` in that commit holds.
    queues: BTreeMap<String, HashMap<String, Task>>,
}

pub(super) struct Memo {
    path: PathBuf,
    prefix: String,
    tasks: HashMap<ObjectId, Task>,
    /// The other queues' sections, kept as they were read.
    others: BTreeMap<String, HashMap<String, Task>>,
    /// Entries added or dropped since the file was read or written.
    changes: usize,
}

impl Memo {
    /// The memo at `path`, this queue's section being `prefix`'s; empty when the file is
    /// missing or unreadable.
    pub(super) fn load(path: PathBuf, prefix: &str) -> Memo {
        let mut others = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<File>(&bytes).ok())
            .filter(|f| f.version == VERSION)
            .map(|f| f.queues)
            .unwrap_or_default();
        let tasks = others
            .remove(prefix)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(hex, task)| Some((ObjectId::from_hex(hex.as_bytes()).ok()?, task)))
            .collect();
        Memo {
            path,
            prefix: prefix.to_string(),
            tasks,
            others,
            changes: 0,
        }
    }

    pub(super) fn get(&self, commit: &ObjectId) -> Option<&Task> {
        self.tasks.get(commit)
    }

    /// `task` is what `commit` holds.
    pub(super) fn insert(&mut self, commit: ObjectId, task: Task) {
        if self.tasks.insert(commit, task).is_none() {
            self.changes += 1;
        }
    }

    /// Forget every entry (one disagreed with git: the file was edited by hand).
    pub(super) fn clear(&mut self) {
        self.changes += self.tasks.len().max(1);
        self.tasks.clear();
    }

    /// Entries added or dropped since the file was read or written.
    pub(super) fn changes(&self) -> usize {
        self.changes
    }

    /// Drop the entries whose commit no ref of the queue names (`live`).
    pub(super) fn retain(&mut self, live: &HashSet<ObjectId>) {
        let before = self.tasks.len();
        self.tasks.retain(|id, _| live.contains(id));
        self.changes += before - self.tasks.len();
    }

    /// Rewrite the file when anything changed. Best effort: a memo that cannot be
    /// written only costs reads next time.
    pub(super) fn save(&mut self) {
        if self.changes == 0 {
            return;
        }
        let mut queues = self.others.clone();
        queues.insert(
            self.prefix.clone(),
            self.tasks
                .iter()
                .map(|(id, t)| (id.to_string(), t.clone()))
                .collect(),
        );
        let file = File {
            version: VERSION,
            queues,
        };
        if let Ok(bytes) = serde_json::to_vec(&file)
            && write_aside_and_rename(&self.path, &bytes).is_ok()
        {
            self.changes = 0;
        }
    }
}

/// Write `bytes` to `path` through a file beside it and a rename. Not
/// [`crate::files::write_atomically`]: its temporary name is per process, and claimers
/// in one process (threads, each with its own store) would write the same temporary.
fn write_aside_and_rename(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(format!(
        ".tmp{}-{}",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}
