//! The gate result cache: a tree that was gated once is never gated again.
//!
//! A result is keyed by what decides it: the candidate's tree, the gate commands, and
//! the values of the environment variables `[gate] env` names. Stored as git data on
//! `refs/fleet/gate-cache` (a commit whose tree holds one small TOML file per key,
//! fanned out by the key's first two hex digits), shared by every worktree and updated
//! by compare-and-swap like the receipts. Red results are kept as well, so a batch's
//! bisection never re-tests a combination already known to fail; `--no-cache` runs the
//! gate regardless. The values of the named variables are hashed into the key and never
//! stored, since they may be secrets. Bounded: a bucket (the key's first two hex digits)
//! holds at most [`PER_BUCKET`] results, the oldest making room, and each update is a
//! commit without a parent, so dropped results and old trees are unreachable garbage.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::gate::{self, CommandResult, GateOutcome};
use crate::git::{ObjectId, OwnRefStep, Repo};
use crate::refs::GATE_CACHE;

/// At most this many results share a key's first two hex digits, so the cache holds at
/// most 256 × 32 = 8,192: a full bucket drops its oldest entry to make room.
const PER_BUCKET: usize = 32;

/// One remembered gate run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub tree: String,
    pub green: bool,
    pub results: Vec<CommandResult>,
    pub duration_ms: u64,
    pub log: String,
    pub log_digest: String,
    pub at: i64,
}

impl Entry {
    pub fn outcome(&self) -> GateOutcome {
        GateOutcome {
            green: self.green,
            results: self.results.clone(),
            duration_ms: self.duration_ms,
            log: self.log.clone().into(),
            log_digest: self.log_digest.clone(),
        }
    }
}

/// The cache key for gating `tree` (with nested repositories' trees at their paths)
/// with `commands` while the named variables hold their current values (an unset
/// variable differs from an empty one).
pub fn key(
    tree: ObjectId,
    nested: &[(String, ObjectId)],
    commands: &[String],
    env_names: &[String],
) -> String {
    let mut text = format!("tree {tree}\n");
    for (path, tree) in nested {
        text.push_str(&format!("nested {} {tree}\n", path.escape_default()));
    }
    for command in commands {
        text.push_str(&format!("command {}\n", command.escape_default()));
    }
    let mut names: Vec<&String> = env_names.iter().collect();
    names.sort();
    names.dedup();
    for name in names {
        match std::env::var_os(name) {
            Some(value) => text.push_str(&format!(
                "env {name}={}\n",
                value.to_string_lossy().escape_default()
            )),
            None => text.push_str(&format!("unset {name}\n")),
        }
    }
    gate::blob_digest(text.as_bytes())
}

fn path_of(key: &str) -> String {
    format!("{}/{}", &key[..2], &key[2..])
}

/// The remembered result for `key`; an unreadable entry is a miss, never an error.
pub fn lookup(repo: &Repo, key: &str) -> Result<Option<Entry>> {
    let Some(commit) = repo.ref_target(GATE_CACHE)? else {
        return Ok(None);
    };
    Ok(repo
        .file_at(commit, &path_of(key))?
        .and_then(|bytes| parse(&bytes)))
}

/// An entry from its stored bytes; `None` when they do not parse.
fn parse(bytes: &[u8]) -> Option<Entry> {
    toml::from_str(&String::from_utf8_lossy(bytes)).ok()
}

/// Remember `outcome` of gating `tree` under `key`.
pub fn store(repo: &Repo, key: &str, tree: ObjectId, outcome: &GateOutcome) -> Result<()> {
    let entry = Entry {
        tree: tree.to_string(),
        green: outcome.green,
        results: outcome.results.clone(),
        duration_ms: outcome.duration_ms,
        log: outcome.log.display().to_string(),
        log_digest: outcome.log_digest.clone(),
        at: crate::time::now(),
    };
    let text = toml::to_string(&entry)
        .map_err(|e| crate::error::Error::env(format!("cannot write a gate cache entry: {e}")))?;
    let path = path_of(key);
    let message = format!(
        "fleet: gate {} for tree {tree}",
        if outcome.green { "passed" } else { "failed" }
    );
    repo.update_own_ref(GATE_CACHE, &message, |old| {
        let evicted = match old {
            Some(old) => to_evict(repo, old, key)?,
            None => Vec::new(),
        };
        // No parent: the cache keeps no history, so what it drops is garbage git's own
        // gc collects, and the ref stays one commit deep.
        let commit = repo.commit_editing(old, &[], (&path, text.as_bytes()), &evicted, &message)?;
        Ok(OwnRefStep::Set(commit, ()))
    })
}

/// The entries to drop from `key`'s bucket in `commit` so that adding `key` leaves at
/// most [`PER_BUCKET`]: the oldest first, unreadable ones before all.
fn to_evict(repo: &Repo, commit: ObjectId, key: &str) -> Result<Vec<String>> {
    let bucket = &key[..2];
    let others: Vec<(String, ObjectId)> = repo
        .files_in_folder(commit, bucket)?
        .into_iter()
        .filter(|(name, _)| *name != key[2..])
        .collect();
    let excess = (others.len() + 1).saturating_sub(PER_BUCKET);
    if excess == 0 {
        return Ok(Vec::new());
    }
    let mut aged: Vec<(i64, String)> = others
        .into_iter()
        .map(|(name, blob)| {
            let at = repo
                .blob(blob)
                .ok()
                .and_then(|bytes| parse(&bytes))
                .map_or(i64::MIN, |entry| entry.at);
            (at, format!("{bucket}/{name}"))
        })
        .collect();
    aged.sort();
    Ok(aged
        .into_iter()
        .take(excess)
        .map(|(_, path)| path)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome() -> GateOutcome {
        GateOutcome {
            green: true,
            results: Vec::new(),
            duration_ms: 1,
            log: "log".into(),
            log_digest: String::new(),
        }
    }

    #[test]
    fn a_full_bucket_drops_its_oldest_and_the_ref_keeps_no_history() {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(dir.path())
            .stdin(std::process::Stdio::piped())
            .status()
            .unwrap();
        assert!(ok.success());
        let repo = Repo::open(dir.path()).unwrap();
        let tree = crate::git::empty_tree_id();
        let key = |i: usize| format!("ab{i:038x}");
        store(
            &repo,
            "cd00000000000000000000000000000000000000",
            tree,
            &outcome(),
        )
        .unwrap();
        for i in 0..PER_BUCKET + 8 {
            store(&repo, &key(i), tree, &outcome()).unwrap();
        }
        let head = repo.ref_target(GATE_CACHE).unwrap().unwrap();
        let bucket = repo.files_in_folder(head, "ab").unwrap();
        assert_eq!(bucket.len(), PER_BUCKET);
        // Keys grow in the order they were written, as their times do.
        assert!(lookup(&repo, &key(7)).unwrap().is_none());
        assert!(lookup(&repo, &key(8)).unwrap().is_some());
        assert!(lookup(&repo, &key(PER_BUCKET + 7)).unwrap().is_some());
        assert!(
            lookup(&repo, "cd00000000000000000000000000000000000000")
                .unwrap()
                .is_some()
        );
        // Storing a key the full bucket already holds drops nothing.
        store(&repo, &key(8), tree, &outcome()).unwrap();
        let head = repo.ref_target(GATE_CACHE).unwrap().unwrap();
        assert_eq!(repo.files_in_folder(head, "ab").unwrap().len(), PER_BUCKET);
        assert_eq!(repo.first_parent(head).unwrap(), None);
    }
}
