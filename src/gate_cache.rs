//! The gate result cache: a tree that was gated once is never gated again.
//!
//! A result is keyed by what decides it: the candidate's tree, the gate commands, and
//! the values of the environment variables `[gate] env` names. Stored as git data on
//! `refs/fleet/gate-cache` (a commit whose tree holds one small TOML file per key,
//! fanned out by the key's first two hex digits), shared by every worktree and updated
//! by compare-and-swap like the receipts. Red results are kept as well, so a batch's
//! bisection never re-tests a combination already known to fail; `--no-cache` runs the
//! gate regardless. The values of the named variables are hashed into the key and never
//! stored, since they may be secrets.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::gate::{self, CommandResult, GateOutcome};
use crate::git::{ObjectId, Repo};

pub const REF: &str = "refs/fleet/gate-cache";

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
    let Some(commit) = repo.ref_target(REF)? else {
        return Ok(None);
    };
    let Some(bytes) = repo.file_at(commit, &path_of(key))? else {
        return Ok(None);
    };
    Ok(toml::from_str(&String::from_utf8_lossy(&bytes)).ok())
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
        at: crate::lanes::now(),
    };
    let text = toml::to_string(&entry)
        .map_err(|e| crate::error::Error::env(format!("cannot write a gate cache entry: {e}")))?;
    gate::put_file(
        repo,
        REF,
        &path_of(key),
        text.as_bytes(),
        &format!(
            "fleet: gate {} for tree {tree}",
            if outcome.green { "passed" } else { "failed" }
        ),
    )
}
