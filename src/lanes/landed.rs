//! When a lane is landed (DESIGN.md): when its changes are in the target, whatever the
//! registry says. Decided from the refs on every read, so squash and rebase landings
//! count, and a target rewound past a landing makes the lane ready again. The one rule
//! that `fleet status` shows and `fleet land` acts on, and `fleet worktree rm` (for a
//! head no lane records) and `fleet doctor` (through status) read.

use super::{Lane, LaneState};
use crate::error::Result;
use crate::git::{ObjectId, Repo};

/// The fact every rule here stands on: `tip`'s changes are in `target`, squash and
/// rebase landings included (true as well when `tip` is merged).
pub fn changes_in(repo: &Repo, tip: ObjectId, target: ObjectId) -> Result<bool> {
    repo.changes_already_in(tip, target)
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
    let changes_in = ahead > 0 && changes_in(repo, tip, target)?;
    Ok(landed_by(lane, tip, ahead, changes_in))
}

/// A head no lane records (an agent worktree's, as `fleet worktree rm` sees it): landed
/// when its changes are in `target`, merged or not. No head has nothing to land; no
/// target holds nothing. Unlike a lane, a head with no commits of its own counts as
/// landed: there is no tracked tip to have moved from.
pub fn head_landed(repo: &Repo, head: Option<ObjectId>, target: Option<ObjectId>) -> Result<bool> {
    match (head, target) {
        (Some(head), Some(target)) => changes_in(repo, head, target),
        (None, _) => Ok(true),
        (Some(_), None) => Ok(false),
    }
}

/// [`has_landed`] from facts already computed (`changes_in` only matters when ahead).
pub(crate) fn landed_by(lane: &Lane, tip: ObjectId, ahead: usize, changes_in: bool) -> bool {
    if ahead == 0 {
        return tip != lane.tracked_tip;
    }
    changes_in
}

/// A lane recorded as landed, with no commit since, whose landing is no longer in the
/// target (someone rewound it): it lands again. Cheap when the landed commit is still
/// in the target's history, which is the usual case.
pub fn landing_undone(repo: &Repo, lane: &Lane, tip: ObjectId, target: ObjectId) -> Result<bool> {
    if !recorded_landed_at(lane, tip) {
        return Ok(false);
    }
    if let Some(landed_as) = lane.landed_as
        && repo.has_object(landed_as)
        && repo.merge_base(landed_as, target)? == Some(landed_as)
    {
        return Ok(false);
    }
    let ahead = repo.count_exclusive(tip, target)?;
    let changes_in = ahead > 0 && changes_in(repo, tip, target)?;
    Ok(undone_by(lane, tip, ahead, changes_in))
}

/// [`landing_undone`] from facts already computed: recorded as landed with this very
/// tip, yet its changes are not in the target (the target was rewound past its landing),
/// so it is ready to land again.
pub(crate) fn undone_by(lane: &Lane, tip: ObjectId, ahead: usize, changes_in: bool) -> bool {
    recorded_landed_at(lane, tip) && ahead > 0 && !changes_in
}

/// The registry says the lane landed, and its branch has not moved since.
fn recorded_landed_at(lane: &Lane, tip: ObjectId) -> bool {
    lane.state == LaneState::Landed && lane.landed_tip == Some(tip)
}
