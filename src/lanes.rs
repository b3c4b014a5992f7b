//! The lane registry: which branches are lanes, in which order, in which state.
//!
//! Stored as git data shared by every worktree: a small TOML file committed on
//! `refs/fleet/lanes`, each change a new commit whose parent is the previous one, moved
//! by compare-and-swap, so two fleet processes never lose each other's updates (the
//! loser re-reads and re-applies its change). Pushable like any ref.
//!
//! The registry is a record, not the truth about safety: whether a lane has landed,
//! how far ahead or behind it is and whether it still applies are derived from the
//! refs on every read.

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{ObjectId, OwnRefStep, Repo};

pub const REF: &str = "refs/fleet/lanes";
const FILE: &str = "lanes.toml";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneState {
    /// Tracked; its worker is still at it.
    Running,
    Ready,
    Testing,
    Landed,
    Failed,
    Conflicted,
    /// Touches protected paths or adds a forbidden marker.
    Blocked,
}

impl LaneState {
    pub fn as_str(self) -> &'static str {
        match self {
            LaneState::Running => "running",
            LaneState::Ready => "ready",
            LaneState::Testing => "testing",
            LaneState::Landed => "landed",
            LaneState::Failed => "failed",
            LaneState::Conflicted => "conflicted",
            LaneState::Blocked => "blocked",
        }
    }
}

/// The worker's own test run, attached by `fleet ready`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerTest {
    pub exit_code: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    pub at: i64,
}

/// The last gate run for a lane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateRecord {
    pub green: bool,
    pub duration_ms: u64,
    pub log: String,
    pub at: i64,
    /// The target commit the candidate was built on, and the candidate itself.
    pub base: String,
    pub candidate: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    pub branch: String,
    pub state: LaneState,
    pub tracked_at: i64,
    /// The branch tip when it was tracked: a lane whose tip moved and is now in the
    /// target has landed, even by a plain merge.
    pub tracked_tip: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<WorkerTest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateRecord>,
    /// Conflicting files, blocked paths and markers: why the state is what it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub detail: Vec<String>,
    /// The target commit this lane landed as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landed_as: Option<String>,
    /// The lane's own tip when it landed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landed_tip: Option<String>,
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

/// The ref holding the registry of the queue `ctx` works on: this repository's own, or
/// the remote's as last fetched (with a remote, the remote's registry is the queue and
/// this repository's own is left alone).
pub fn registry_ref(ctx: &Context) -> String {
    match &ctx.remote {
        Some(remote) => crate::remote::lanes_ref(remote),
        None => REF.to_string(),
    }
}

/// Read the queue's registry (empty when there is none yet) and the commit it came from.
pub fn load(ctx: &Context) -> Result<(Registry, Option<ObjectId>)> {
    load_ref(&ctx.repo, &registry_ref(ctx))
}

/// The registry held by `full_ref`.
pub fn load_ref(repo: &Repo, full_ref: &str) -> Result<(Registry, Option<ObjectId>)> {
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
        let help = match full_ref.strip_prefix("refs/fleet/remotes/") {
            Some(rest) => {
                let remote = rest.split('/').next().unwrap_or(rest);
                format!(
                    "it came from the remote: inspect it with `git show {full_ref}:{FILE}`; `git push {remote} :{REF}` starts the shared queue over"
                )
            }
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

/// Apply `change` to the registry and store it by compare-and-swap, re-reading and
/// re-applying when another process updated it first. `change` must be idempotent
/// over a re-read registry (it is called again on each retry).
pub fn update<T>(
    ctx: &Context,
    what: &str,
    change: impl FnMut(&mut Registry) -> Result<T>,
) -> Result<T> {
    match &ctx.remote {
        Some(remote) => crate::remote::update_registry(ctx, remote, what, change),
        None => update_here(&ctx.repo, what, change),
    }
}

fn update_here<T>(
    repo: &Repo,
    what: &str,
    mut change: impl FnMut(&mut Registry) -> Result<T>,
) -> Result<T> {
    repo.update_own_ref(REF, what, |old| {
        let mut registry = read(repo, REF, old)?;
        let result = change(&mut registry)?;
        let parents: Vec<ObjectId> = old.into_iter().collect();
        Ok(OwnRefStep::Set(
            write(repo, &registry, what, &parents)?,
            result,
        ))
    })
}

/// The registry as `change` leaves it, committed on top of the current one but on no
/// ref (a remote landing pushes it, and the local ref follows once the push is in).
pub fn staged(ctx: &Context, what: &str, change: impl FnOnce(&mut Registry)) -> Result<ObjectId> {
    let (mut registry, old) = load(ctx)?;
    change(&mut registry);
    let parents: Vec<ObjectId> = old.into_iter().collect();
    write(&ctx.repo, &registry, what, &parents)
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
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

/// Register branches as lanes, all or none. With the queue on a remote, the branches
/// are looked up there.
pub fn track(ctx: &Context, given: &[String], ready: bool) -> Result<Vec<String>> {
    let target = ctx.target();
    let prefix = ctx.config.lanes.prefix.as_str();
    let mut branches = Vec::new();
    let mut tips = Vec::new();
    for name in given {
        let prefixed = format!("{prefix}{name}");
        let mut found = None;
        for candidate in [name.as_str(), prefixed.as_str()] {
            if let Some(tip) = ctx.lane_tip(candidate)? {
                found = Some((candidate.to_string(), tip));
                break;
            }
        }
        let (branch, tip) = found.ok_or_else(|| match &ctx.remote {
            Some(remote) => Error::usage(format!("there is no branch `{name}` on {remote}"))
                .with_help(format!("push it first (`git push {remote} {name}`), or create it here and run this again")),
            None => Error::usage(format!("there is no branch `{name}` to track"))
                .with_help("`git branch --list` shows the branches; create the worktree with `fleet worktree new`"),
        })?;
        if !crate::config::is_valid_branch_name(&branch) {
            return Err(Error::usage(format!("`{branch}` is not a branch name")));
        }
        if branch == target {
            return Err(Error::usage(format!(
                "`{branch}` is the target branch; it cannot be a lane"
            ))
            .with_help("track the branches that land on it"));
        }
        if branches.contains(&branch) {
            return Err(Error::usage(format!("`{branch}` is given twice")));
        }
        branches.push(branch);
        tips.push(tip);
    }
    let state = if ready {
        LaneState::Ready
    } else {
        LaneState::Running
    };
    update(ctx, &format!("track {}", branches.join(" ")), |registry| {
        for branch in &branches {
            if let Some(lane) = registry.get(branch)
                && lane.state != LaneState::Landed
            {
                return Err(Error::refused(format!(
                    "`{branch}` is already a lane ({})",
                    lane.state.as_str()
                ))
                .with_help("`fleet status` shows the lanes; `fleet ready` marks one ready"));
            }
        }
        registry.lanes.retain(|l| !branches.contains(&l.branch));
        for (branch, tip) in branches.iter().zip(&tips) {
            registry.lanes.push(Lane {
                branch: branch.clone(),
                state,
                tracked_at: now(),
                tracked_tip: tip.to_string(),
                worker: None,
                gate: None,
                detail: Vec::new(),
                landed_as: None,
                landed_tip: None,
            });
        }
        Ok(())
    })?;
    Ok(branches)
}

/// Forget lanes. The branches themselves are not touched.
pub fn untrack(ctx: &Context, given: &[String]) -> Result<Vec<String>> {
    let prefix = ctx.config.lanes.prefix.as_str();
    let (registry, _) = load(ctx)?;
    let mut branches = Vec::new();
    for name in given {
        let branch = lane_name(&registry, prefix, name).ok_or_else(|| {
            Error::usage(format!("`{name}` is not a lane"))
                .with_help("`fleet status` lists the lanes")
        })?;
        if !branches.contains(&branch) {
            branches.push(branch);
        }
    }
    update(
        ctx,
        &format!("untrack {}", branches.join(" ")),
        |registry| {
            registry.lanes.retain(|l| !branches.contains(&l.branch));
            Ok(())
        },
    )?;
    Ok(branches)
}

/// The lane a user means by `given`: its branch name or its agent name.
pub fn lane_name(registry: &Registry, prefix: &str, given: &str) -> Option<String> {
    if registry.get(given).is_some() {
        return Some(given.to_string());
    }
    let prefixed = format!("{prefix}{given}");
    registry.get(&prefixed).map(|_| prefixed)
}

/// Mark lanes ready to land. A worker's own test result may come along; its exit code
/// decides (a non-zero code leaves the lane running and refuses), never the log's words.
pub fn ready(ctx: &Context, given: &[String], worker: Option<WorkerTest>) -> Result<Vec<String>> {
    let prefix = ctx.config.lanes.prefix.as_str();
    let (registry, _) = load(ctx)?;
    let mut branches = Vec::new();
    for name in given {
        let branch = lane_name(&registry, prefix, name).ok_or_else(|| {
            Error::usage(format!("`{name}` is not a lane")).with_help(format!(
                "track it and mark it at once: `fleet track --ready {name}`"
            ))
        })?;
        branches.push(branch);
    }
    // A landed lane becomes ready again only with new commits to land.
    for branch in &branches {
        if let Some(lane) = registry.get(branch)
            && lane.state == LaneState::Landed
            && ctx.lane_tip(branch)?.map(|t| t.to_string()) == lane.landed_tip
        {
            return Err(Error::refused(format!(
                "lane `{branch}` has landed and has no new commits"
            )));
        }
    }
    let failed = worker.as_ref().is_some_and(|w| w.exit_code != 0);
    update(ctx, &format!("ready {}", branches.join(" ")), |registry| {
        for branch in &branches {
            if let Some(lane) = registry.get_mut(branch) {
                lane.worker = worker.clone();
                // The exit code decides: a failing test takes a ready lane back to running.
                lane.state = if failed {
                    LaneState::Running
                } else {
                    LaneState::Ready
                };
                lane.detail.clear();
            }
        }
        Ok(())
    })?;
    if let Some(w) = worker.filter(|w| w.exit_code != 0) {
        return Err(Error::refused(format!(
            "not marked ready: the worker's test exited {} (recorded{})",
            w.exit_code,
            w.log.map(|l| format!(", log {l}")).unwrap_or_default()
        ))
        .with_help("fix the failure and run `fleet ready` again with a passing test"));
    }
    Ok(branches)
}
