//! When a lane is landed (DESIGN.md): when its changes are in the target, whatever the
//! registry says. Decided from the refs on every read, so squash and rebase landings
//! count, and a target rewound past a landing makes the lane ready again. The one rule
//! that `fleet status` shows and `fleet land` acts on, and `fleet worktree rm` (for a
//! head no lane records, and [`kept_landed`] for one that does) and `fleet doctor`
//! (through status) read. A reverted lane ([`LaneState::Reverted`], recorded by `fleet
//! revert`) is never called landed by status, but is finished here: its landing is in
//! the target's history, so removing its branch loses nothing.

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
    Ok(landed_by(lane, tip, ahead, changes_in) || kept_landed(repo, lane, tip, target)?)
}

/// A landing the target has built on since: the registry recorded the lane landed at
/// `tip`, the commit it landed as is still in the target's history, and that commit's
/// receipt names this lane and this tip. Landed whatever later landings did to the same
/// lines (their changes are no longer "in" the target path by path, but the landing
/// stands); only a rewind past the landing undoes it ([`landing_undone`]), and a
/// revert is a landing of its own.
///
/// A reverted lane is kept landed here too: its work is in the target's history (as its
/// landing), so removing its branch loses nothing.
pub fn kept_landed(repo: &Repo, lane: &Lane, tip: ObjectId, target: ObjectId) -> Result<bool> {
    let finished_at = lane.state.finished() && lane.landed_tip == Some(tip);
    if !finished_at || !landed_commit_in(repo, lane, target)? {
        return Ok(false);
    }
    let Some(landed_as) = lane.landed_as else {
        return Ok(false);
    };
    Ok(crate::gate::read_receipt(repo, landed_as)?
        .is_some_and(|r| r.lane == lane.branch && r.lane_tip == tip))
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
    if !recorded_landed_at(lane, tip) || landed_commit_in(repo, lane, target)? {
        return Ok(false);
    }
    let ahead = repo.count_exclusive(tip, target)?;
    let changes_in = ahead > 0 && changes_in(repo, tip, target)?;
    Ok(ahead > 0 && !changes_in)
}

/// [`landing_undone`] from facts already computed (`ahead`, `changes_in`), for
/// `fleet status`: the same rule, so status never calls ready a lane `land --all` will
/// not take. A landed lane whose files the target changed again since is not undone
/// (its landing commit is still in the target's history).
pub(crate) fn undone_by(
    repo: &Repo,
    lane: &Lane,
    tip: ObjectId,
    target: ObjectId,
    ahead: usize,
    changes_in: bool,
) -> Result<bool> {
    if !(recorded_landed_at(lane, tip) && ahead > 0 && !changes_in) {
        return Ok(false);
    }
    Ok(!landed_commit_in(repo, lane, target)?)
}

/// [`kept_landed`] for a lane's part in the nested repository `part` (at `rel` from the
/// outer checkout): the outer landing stands, its receipt lists this repository's move,
/// that move's receipt there names `head`, and its commit is in `part_target`'s history.
/// A lane that landed nothing in the outer repository has no outer landing to start
/// from: `landed_in_part_alone` finds its landing in the nested repository itself.
#[allow(clippy::too_many_arguments)]
pub fn kept_landed_part(
    outer: &Repo,
    lane: &Lane,
    outer_tip: ObjectId,
    outer_target: ObjectId,
    part: &Repo,
    rel: &str,
    head: ObjectId,
    part_target: ObjectId,
) -> Result<bool> {
    let Some(landed_as) = lane.landed_as else {
        return landed_in_part_alone(part, lane, head, part_target);
    };
    if !kept_landed(outer, lane, outer_tip, outer_target)? {
        return Ok(false);
    }
    let Some(receipt) = crate::gate::read_receipt(outer, landed_as)? else {
        return Ok(false);
    };
    let Some(moved) = receipt.unit.iter().find(|m| m.path == rel) else {
        return Ok(false);
    };
    if !part.has_object(moved.candidate)
        || part.merge_base(moved.candidate, part_target)? != Some(moved.candidate)
    {
        return Ok(false);
    }
    Ok(crate::gate::read_receipt(part, moved.candidate)?
        .is_some_and(|r| r.lane == lane.branch && r.lane_tip == head))
}

/// A lane that landed only in nested repositories (its outer branch had nothing to
/// land, so the registry records no landing commit): the registry says it finished, and
/// `part_target`'s first-parent line since `head` branched off holds a landing whose
/// receipt names this lane and this head. The walk is bounded by the target's moves
/// since the lane began.
fn landed_in_part_alone(
    part: &Repo,
    lane: &Lane,
    head: ObjectId,
    part_target: ObjectId,
) -> Result<bool> {
    if !lane.state.finished() {
        return Ok(false);
    }
    let since = part.reachable_only_from(part_target, &[head])?;
    let mut at = part_target;
    while since.contains(&at) {
        if crate::gate::read_receipt(part, at)?
            .is_some_and(|r| r.lane == lane.branch && r.lane_tip == head)
        {
            return Ok(true);
        }
        let Some(parent) = part.commit_info(at)?.parents.first().copied() else {
            break;
        };
        at = parent;
    }
    Ok(false)
}

/// The commit the lane landed as is still in the target's history.
fn landed_commit_in(repo: &Repo, lane: &Lane, target: ObjectId) -> Result<bool> {
    Ok(match lane.landed_as {
        Some(landed_as) if repo.has_object(landed_as) => {
            repo.merge_base(landed_as, target)? == Some(landed_as)
        }
        _ => false,
    })
}

/// The registry says the lane landed, and its branch has not moved since.
fn recorded_landed_at(lane: &Lane, tip: ObjectId) -> bool {
    lane.state == LaneState::Landed && lane.landed_tip == Some(tip)
}
