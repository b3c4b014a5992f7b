//! `fleet status`: every lane with the facts that matter for landing, derived from the
//! refs on each read (the registry only says what was decided, not what is true now).

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::context::Context;
use crate::error::Result;
use crate::git::{Merged, ObjectId, Repo, WorktreeInfo};
use crate::lanes::{self, GateRecord, Lane, LaneState, WorkerTest};

#[derive(Debug, Serialize)]
pub struct LaneView {
    pub branch: String,
    /// The effective state: `landed` whenever the lane's changes are in the target.
    pub state: LaneState,
    /// What the registry says, when it differs from `state`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_state: Option<LaneState>,
    pub tip: Option<String>,
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    /// Files that would conflict if the lane landed now; empty when it applies cleanly.
    pub conflicts: Vec<String>,
    /// Running, but no commit and no file change for `[lanes] stale_after`.
    pub stale: bool,
    /// The branch is gone.
    pub missing: bool,
    pub worktree: Option<PathBuf>,
    pub worker: Option<WorkerTest>,
    pub gate: Option<GateRecord>,
    pub detail: Vec<String>,
}

pub fn lanes(ctx: &Context) -> Result<Vec<LaneView>> {
    let (registry, _) = lanes::load(&ctx.repo)?;
    let target = ctx.target_tip()?;
    let worktrees = ctx.repo.worktrees()?;
    let stale_after = ctx.config.lanes.stale_after.0;
    registry
        .lanes
        .iter()
        .map(|lane| view(&ctx.repo, lane, target, &worktrees, stale_after))
        .collect()
}

fn view(
    repo: &Repo,
    lane: &Lane,
    target: ObjectId,
    worktrees: &[WorktreeInfo],
    stale_after: Duration,
) -> Result<LaneView> {
    let tip = repo.branch_tip(&lane.branch)?;
    let worktree = worktrees
        .iter()
        .find(|w| w.branch.as_deref() == Some(lane.branch.as_str()))
        .map(|w| w.path.clone());
    let mut v = LaneView {
        branch: lane.branch.clone(),
        state: lane.state,
        recorded_state: None,
        tip: tip.map(|t| t.to_string()),
        ahead: None,
        behind: None,
        conflicts: Vec::new(),
        stale: false,
        missing: tip.is_none(),
        worktree: worktree.clone(),
        worker: lane.worker.clone(),
        gate: lane.gate.clone(),
        detail: lane.detail.clone(),
    };
    let Some(tip) = tip else { return Ok(v) };
    let (ahead, behind) = repo.ahead_behind(tip, target)?;
    v.ahead = Some(ahead);
    v.behind = Some(behind);
    if lane.state != LaneState::Landed && has_landed(repo, lane, tip, target, ahead)? {
        v.recorded_state = Some(lane.state);
        v.state = LaneState::Landed;
    }
    if v.state != LaneState::Landed
        && ahead > 0
        && behind > 0
        && let Merged::Conflicts(paths) = repo.merge_commits(target, tip, false)?
    {
        v.conflicts = paths;
    }
    if v.state == LaneState::Running {
        v.stale = is_stale(repo, tip, worktree.as_deref(), stale_after);
    }
    Ok(v)
}

/// Landed, whatever the registry says: its changes are in the target (squash and
/// rebase landings included), or its tip moved since tracking and is now merged.
pub fn has_landed(
    repo: &Repo,
    lane: &Lane,
    tip: ObjectId,
    target: ObjectId,
    ahead: usize,
) -> Result<bool> {
    if ahead == 0 {
        return Ok(tip.to_hex() != lane.tracked_tip);
    }
    repo.changes_already_in(tip, target)
}

/// No commit and no file change for `stale_after`.
fn is_stale(
    repo: &Repo,
    tip: ObjectId,
    worktree: Option<&std::path::Path>,
    stale_after: Duration,
) -> bool {
    let mut last = repo.commit_time(tip).unwrap_or(0);
    if let Some(path) = worktree
        && let Ok(wt) = Repo::open(path)
    {
        let mut touched = vec![wt.git_dir().join("index")];
        touched.extend(
            wt.dirty_paths(50)
                .unwrap_or_default()
                .into_iter()
                .map(|p| path.join(p)),
        );
        for file in touched {
            if let Some(mtime) = std::fs::metadata(&file)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            {
                last = last.max(mtime.as_secs() as i64);
            }
        }
    }
    lanes::now() - last > stale_after.as_secs() as i64
}
