//! The lane registry: which branches are lanes, in which order, in which state.
//!
//! Stored as git data shared by every worktree: a small TOML file committed on
//! `refs/fleet/lanes` ([`refs::LANES`]), each change a new commit whose parent is the
//! previous one, moved by compare-and-swap, so two fleet processes never lose each
//! other's updates (the loser re-reads and re-applies its change). Pushable like any ref.
//!
//! The registry is a record, not the truth about safety: whether a lane has landed,
//! how far ahead or behind it is and whether it still applies are derived from the
//! refs on every read.
//!
//! This module is the registry alone: it reads and writes it on the ref it is given.
//! Which ref that is (this repository's own or a remote's), and how a change reaches a
//! remote, is the queue's business (the `queue` module, which uses this one). When a
//! lane counts as landed is [`landed`]'s one rule.

use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod landed;
pub mod overlap;

use crate::error::{Error, Result};
// Ids are stored as full hex strings, as the receipts store theirs.
use crate::git::hex;
use crate::git::{ObjectId, OwnRefStep, Repo};
use crate::refs;

const FILE: &str = "lanes.toml";

/// The lane states and their names, from one list: the name is what the registry stores
/// (serde) and what `fleet status` shows ([`LaneState::as_str`]).
macro_rules! lane_states {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum LaneState {
            $($(#[$doc])* #[serde(rename = $name)] $variant,)*
        }

        impl LaneState {
            pub fn as_str(self) -> &'static str {
                match self {
                    $(LaneState::$variant => $name,)*
                }
            }
        }
    };
}

lane_states! {
    /// Tracked; its worker is still at it.
    Running = "running",
    Ready = "ready",
    Testing = "testing",
    Landed = "landed",
    /// Landed, then undone by `fleet revert` (the lane `revert/<branch>` landed the
    /// reversal). Finished like a landed lane (`worktree rm` and `untrack --landed` clear
    /// it), but its work is no longer in the target, so it is not called landed; and
    /// never ready again: its commits would land the reverted work a second time behind
    /// the revert's back. Reverting the revert is the way back.
    Reverted = "reverted",
    Failed = "failed",
    Conflicted = "conflicted",
    /// Touches protected paths or adds a forbidden marker.
    Blocked = "blocked",
    /// Cannot land as it is, for a reason of its own the detail names (a tree git
    /// cannot check out, a rebase that would lose changes); `fleet ready` after a fix.
    Refused = "refused",
}

impl LaneState {
    /// Nothing left to land: landed, or landed and reverted.
    pub fn finished(self) -> bool {
        matches!(self, LaneState::Landed | LaneState::Reverted)
    }
}

/// The refusal every command gives for a reverted lane it is asked to land, ready or
/// revert: the way back is the revert's own revert.
pub fn reverted(branch: &str) -> Error {
    Error::refused(format!(
        "lane `{branch}` was reverted (revert/{branch} landed its reversal)"
    ))
    .with_help(format!(
        "to land its work again, revert the revert: `fleet revert revert/{branch}`; new work goes on a new lane"
    ))
}

/// How a conflicted lane gets out of that state: what `fleet land` says with the
/// conflict.
pub const CONFLICT_HELP: &str = "in the lane's worktree, `git rebase` it onto the target \
     branch (resolve each file, `git add` it, `git rebase --continue`), then `fleet ready` \
     and land it again";

/// The worker's own test run, attached by `fleet ready`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerTest {
    pub exit_code: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    pub at: i64,
}

impl WorkerTest {
    /// A worker's test run as `fleet ready` attaches it: the log (when given) copied
    /// into the common git dir, where every worktree can read it.
    pub fn record(repo: &Repo, exit_code: i32, log: Option<&Path>) -> Result<WorkerTest> {
        let log = log
            .map(|l| crate::state::keep_worker_log(repo, l))
            .transpose()?;
        Ok(WorkerTest {
            exit_code,
            log,
            at: crate::time::now(),
        })
    }
}

/// The last gate run for a lane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateRecord {
    pub green: bool,
    pub duration_ms: u64,
    pub log: String,
    pub at: i64,
    /// The target commit the candidate was built on, and the candidate itself.
    #[serde(with = "hex")]
    pub base: ObjectId,
    #[serde(with = "hex")]
    pub candidate: ObjectId,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    pub branch: String,
    pub state: LaneState,
    pub tracked_at: i64,
    /// The branch tip when it was tracked: a lane whose tip moved and is now in the
    /// target has landed, even by a plain merge.
    #[serde(with = "hex")]
    pub tracked_tip: ObjectId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<WorkerTest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateRecord>,
    /// Conflicting files, blocked paths and markers: why the state is what it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub detail: Vec<String>,
    /// The target commit this lane landed as.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "hex::option")]
    pub landed_as: Option<ObjectId>,
    /// The lane's own tip when it landed.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "hex::option")]
    pub landed_tip: Option<ObjectId>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    #[serde(default, rename = "lane")]
    pub lanes: Vec<Lane>,
}

impl Registry {
    pub fn get(&self, branch: &str) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.branch == branch)
    }
    pub fn get_mut(&mut self, branch: &str) -> Option<&mut Lane> {
        self.lanes.iter_mut().find(|l| l.branch == branch)
    }
}

/// The registry held by `full_ref` (empty when there is none yet) and the commit it
/// came from.
pub fn load_at(repo: &Repo, full_ref: &str) -> Result<(Registry, Option<ObjectId>)> {
    let commit = repo.ref_target(full_ref)?;
    Ok((read(repo, full_ref, commit)?, commit))
}

/// The registry in `commit` (read from `full_ref`, named in errors); empty for none.
fn read(repo: &Repo, full_ref: &str, commit: Option<ObjectId>) -> Result<Registry> {
    let Some(commit) = commit else {
        return Ok(Registry::default());
    };
    let bytes = repo.file_at(commit, FILE)?.unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let registry = toml::from_str(&text).map_err(|e| {
        let help = match refs::remote_of(full_ref) {
            Some(remote) => format!(
                "it came from the remote: inspect it with `git show {full_ref}:{FILE}`; `git push {remote} :{}` starts the shared queue over",
                refs::LANES
            ),
            None => format!(
                "inspect it with `git show {full_ref}:{FILE}`; `git update-ref -d {full_ref}` starts over"
            ),
        };
        Error::env(format!(
            "the lane registry ({full_ref}:{FILE}) is unreadable: {e}"
        ))
        .with_help(help)
    })?;
    Ok(registry)
}

/// Write `registry` as a commit with `parents`, moving no ref.
pub fn write(
    repo: &Repo,
    registry: &Registry,
    what: &str,
    parents: &[ObjectId],
) -> Result<ObjectId> {
    let text = toml::to_string(registry)
        .map_err(|e| Error::env(format!("cannot write the lane registry: {e}")))?;
    repo.write_commit(
        &[(FILE, text.as_bytes())],
        &format!("fleet: {what}"),
        parents,
    )
}

/// Apply `change` to the registry on this repository's `full_ref` and store it by
/// compare-and-swap, re-reading and re-applying when another process updated it first.
/// `change` must be idempotent over a re-read registry (it is called again on each retry).
pub fn update_at<T>(
    repo: &Repo,
    full_ref: &str,
    what: &str,
    mut change: impl FnMut(&mut Registry) -> Result<T>,
) -> Result<T> {
    repo.update_own_ref(full_ref, what, |old| {
        let mut registry = read(repo, full_ref, old)?;
        let result = change(&mut registry)?;
        let parents: Vec<ObjectId> = old.into_iter().collect();
        Ok(OwnRefStep::Set(
            write(repo, &registry, what, &parents)?,
            result,
        ))
    })
}

/// Resolve what a user typed to a branch name: the branch itself, or an agent name
/// (`task-a` for `fleet/task-a`).
pub fn resolve_branch(repo: &Repo, prefix: &str, given: &str) -> Result<Option<String>> {
    if repo.branch_tip(given)?.is_some() {
        return Ok(Some(given.to_string()));
    }
    let prefixed = format!("{prefix}{given}");
    if !given.starts_with(prefix) && repo.branch_tip(&prefixed)?.is_some() {
        return Ok(Some(prefixed));
    }
    Ok(None)
}

/// The lane a user means by `given`: its branch name or its agent name.
pub fn lane_name(registry: &Registry, prefix: &str, given: &str) -> Option<String> {
    if registry.get(given).is_some() {
        return Some(given.to_string());
    }
    let prefixed = format!("{prefix}{given}");
    registry.get(&prefixed).map(|_| prefixed)
}
