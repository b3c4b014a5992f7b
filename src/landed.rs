//! When a lane is landed (DESIGN.md): when its changes are in the target, whatever the
//! registry says. Decided from the refs on every read, so squash and rebase landings
//! count, and a target rewound past a landing makes the lane ready again. The one rule
//! that `fleet status` shows and `fleet land` acts on.

use crate::error::Result;
use crate::git::{ObjectId, Repo};
use crate::lanes::{Lane, LaneState};

/// Landed, whatever the registry says: its changes are in the target (squash and
/// rebase landings included), or its tip moved since tracking and is now merged.
pub fn has_landed(
    repo: &Repo,
    lane: &Lane,
    tip: ObjectId,
    target: ObjectId,
    ahead: usize,
) -> Result<bool> {
    let changes_in = ahead > 0 && repo.changes_already_in(tip, target)?;
    Ok(landed_by(lane, tip, ahead, changes_in))
}

/// [`has_landed`] from facts already computed (`changes_in` only matters when ahead).
pub(crate) fn landed_by(lane: &Lane, tip: ObjectId, ahead: usize, changes_in: bool) -> bool {
    if ahead == 0 {
        return tip.to_hex() != lane.tracked_tip;
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
    if let Some(landed_as) = lane
        .landed_as
        .as_deref()
        .and_then(|id| ObjectId::from_hex(id.as_bytes()).ok())
        && repo.has_object(landed_as)
        && repo.merge_base(landed_as, target)? == Some(landed_as)
    {
        return Ok(false);
    }
    let ahead = repo.count_exclusive(tip, target)?;
    let changes_in = ahead > 0 && repo.changes_already_in(tip, target)?;
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
    lane.state == LaneState::Landed && lane.landed_tip.as_deref() == Some(tip.to_string().as_str())
}
