//! The gate: run the configured commands on the exact tree that would land, in a
//! private worktree, and keep the evidence.
//!
//! Promises: the commands see exactly the candidate commit (the gate worktree is forced
//! to it and cleaned of untracked files, ignored build caches kept); every command runs
//! through [`crate::proc`] in its own process group, killed as a whole on timeout and
//! after it exits; the full output goes to a log in the common git dir; a receipt for
//! every landing is written as a git note on `refs/notes/fleet` before the target moves.
//!
//! By job: [`policy`] (what the base's configuration asks of a change), [`worktree`]
//! (the private gate worktree), [`run`] (running the commands), [`receipt`] (the
//! evidence as notes), [`cache`] (results of trees gated before) and [`ci`] (the
//! `fleet gate` step a CI job runs).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub mod cache;
pub mod ci;
pub mod policy;
pub mod receipt;
pub mod run;
pub mod worktree;

pub use receipt::{Receipt, UnitMove, read_receipt, write_receipt};
pub use run::run;
pub use worktree::{
    drop_broken_gate_worktrees, kill_leftovers, owned_folders, prepare_worktree,
    prepare_worktree_at, private_folder, worktree_path,
};

/// One gate command's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandResult {
    pub command: String,
    pub exit_code: i32,
    pub timed_out: bool,
    pub duration_ms: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateOutcome {
    pub green: bool,
    pub results: Vec<CommandResult>,
    pub duration_ms: u64,
    pub log: PathBuf,
    /// Hash of the log's bytes (git's blob id), so a receipt pins the exact output.
    pub log_digest: String,
}

/// The last `lines` lines of a log, for the terminal.
pub fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The digest a receipt and the cache keep of some bytes: git's blob id as hex (empty
/// only if hashing fails).
pub fn blob_digest(bytes: &[u8]) -> String {
    crate::git::blob_id(bytes)
        .map(|id| id.to_string())
        .unwrap_or_default()
}
