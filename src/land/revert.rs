//! `fleet revert`: undo a landed lane by landing its reversal. The reversing commit is
//! built on the current target, tracked as the lane `revert/<lane>` and landed like any
//! lane (same gate, same compare-and-swap, its own receipt).

use super::session::Lander;
use super::summary::summary;
use super::{LandOptions, LaneReport, Outcome, Ui, journal, single};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::gate::policy::config_at;
use crate::gate::{self, Receipt};
use crate::git::{Merged, ObjectId};
use crate::lanes::{self, LaneState};
use crate::queue::Queue;

/// Undo a landed lane: a commit reversing what it landed, built on the current target,
/// tracked as the lane `revert/<lane>` and landed like any lane (same gate, same
/// compare-and-swap, its own receipt), through `queue`.
pub fn revert(
    ctx: &Context,
    queue: &Queue,
    given: &str,
    opts: &LandOptions,
    ui: &dyn Ui,
) -> Result<LaneReport> {
    let _lock = ctx
        .repo
        .lock("land", std::time::Duration::from_secs(24 * 3600))?;
    journal::recover(ctx, ui)?;
    let (lane, landed_as, receipt) = landed_lane(ctx, queue, given)?;
    let base = receipt.base;
    let revert_branch = format!("revert/{lane}");
    let mut confirmed = false;
    queue.refresh(ctx)?;
    if ctx.repo.branch_tip(&revert_branch)?.is_none() {
        let reversal = Reversal {
            lane: &lane,
            branch: &revert_branch,
            landed_as,
            base,
            receipt: &receipt,
        };
        if let Some(outcome) = reversal.create(ctx, queue, opts, ui)? {
            return Ok(LaneReport {
                lane: revert_branch,
                outcome,
            });
        }
        confirmed = true;
    }
    track(ctx, queue, &revert_branch, ui)?;
    let opts = LandOptions {
        lanes: Vec::new(),
        all: false,
        yes: opts.yes || confirmed,
        ..opts.clone()
    };
    let lander = Lander::new(ctx, queue, opts, ui);
    let outcome = single::land_one(&lander, &revert_branch)?;
    if matches!(outcome, Outcome::Landed { .. }) {
        mark_reverted(ctx, queue, &lane)?;
    }
    Ok(LaneReport {
        lane: revert_branch,
        outcome,
    })
}

/// The lane `given` names, the commit fleet landed it as, and that landing's receipt;
/// refused for a lane fleet did not land, or whose landing moved nested repositories
/// too. A nested branch with nothing beyond its target (the one `fleet worktree new`
/// makes in every nested repository) is no part of the lane: its landing's receipt,
/// which lists every repository the landing moved, is what says.
fn landed_lane(ctx: &Context, queue: &Queue, given: &str) -> Result<(String, ObjectId, Receipt)> {
    let (registry, _) = queue.load(ctx)?;
    let lane =
        lanes::lane_name(&registry, ctx.config.lanes.prefix.as_str(), given).ok_or_else(|| {
            Error::usage(format!("`{given}` is not a lane"))
                .with_help("`fleet status` lists the lanes")
        })?;
    let record = registry
        .get(&lane)
        .cloned()
        .ok_or_else(|| Error::usage(format!("`{given}` is not a lane")))?;
    if record.state == LaneState::Reverted {
        return Err(lanes::reverted(&lane));
    }
    // Its revert lane is spent: reverted itself, which landed this lane's work again.
    if registry
        .get(&format!("revert/{lane}"))
        .is_some_and(|r| r.state == LaneState::Reverted)
    {
        return Err(Error::refused(format!(
            "lane `{lane}` was reverted, and landed again when revert/{lane} was reverted"
        ))
        .with_help(format!(
            "revert what landed it again: `fleet revert revert/revert/{lane}`"
        )));
    }
    let landed_as = record.landed_as.ok_or_else(|| {
        Error::refused(format!(
            "lane `{lane}` was not landed by fleet, so there is nothing recorded to revert"
        ))
        .with_help("revert its commits by hand on a branch and land that branch")
    })?;
    let receipt = gate::read_receipt(&ctx.repo, landed_as)?.ok_or_else(|| {
        Error::refused(format!(
            "no receipt for {landed_as}: cannot tell what {lane} landed"
        ))
    })?;
    if receipt.unit.iter().any(|m| m.path != ".") {
        let parts: Vec<&str> = receipt.unit.iter().map(|m| m.path.as_str()).collect();
        let steps: Vec<String> = receipt
            .unit
            .iter()
            .map(|m| {
                format!(
                    "in {}: `git diff {} {} | git apply --index && git commit -m \"Revert {lane} here\"`",
                    m.path,
                    m.candidate.to_hex_with_len(12),
                    m.base.to_hex_with_len(12)
                )
            })
            .collect();
        return Err(Error::refused(format!(
            "lane `{lane}` landed parts in nested repositories ({}) as one unit; fleet cannot revert a unit yet",
            parts.iter().filter(|p| **p != ".").copied().collect::<Vec<_>>().join(", ")
        ))
        .with_help(format!(
            "revert it as a new lane: `cd \"$(fleet worktree new revert-{name})\"`, then {}, then `fleet ready` and `fleet land revert-{name}` (the parts land together)",
            steps.join(", "),
            name = lane.strip_prefix(ctx.config.lanes.prefix.as_str()).unwrap_or(&lane),
        )));
    }
    Ok((lane, landed_as, receipt))
}

/// The reversing commit of one landing, still to be made.
struct Reversal<'r> {
    lane: &'r str,
    branch: &'r str,
    landed_as: ObjectId,
    /// Where the target was when the lane landed.
    base: ObjectId,
    receipt: &'r Receipt,
}

impl Reversal<'_> {
    /// Build the reversal on the target and create its branch, once the person agreed.
    /// Nothing is created for a conflict, a dry run or a "no": that outcome comes back.
    fn create(
        &self,
        ctx: &Context,
        queue: &Queue,
        opts: &LandOptions,
        ui: &dyn Ui,
    ) -> Result<Option<Outcome>> {
        let repo = &ctx.repo;
        let target = queue.target_tip(ctx)?;
        let tree = match repo.merge_trees(
            repo.tree_of(self.landed_as)?,
            repo.tree_of(target)?,
            repo.tree_of(self.base)?,
            true,
        )? {
            Merged::Clean(tree) => tree,
            Merged::Conflicts(files) => return Ok(Some(Outcome::Conflicted { files })),
        };
        let changed = repo.changed_paths(repo.tree_of(target)?, tree)?;
        if opts.dry_run {
            return Ok(Some(Outcome::WouldLand {
                base: target,
                candidate_tree: tree,
                files: changed.len(),
                commands: config_at(repo, target, ctx.target())?.gate.commands,
            }));
        }
        if !opts.yes && !ui.confirm(self.branch, &summary(repo, &changed)?) {
            return Ok(Some(Outcome::Refused {
                reason: "declined".into(),
            }));
        }
        let lane = self.lane;
        let message = format!(
            "Revert lane {lane}\n\nThis reverts what {lane} landed ({}..{}).\n",
            self.receipt.base, self.receipt.candidate
        );
        let commit = repo.commit_tree(&message, tree, &[target])?;
        repo.create_branch(self.branch, commit, &format!("revert {lane}"))?;
        Ok(None)
    }
}

/// The lane's landing is undone: [`LaneState::Reverted`], its landing record kept (the
/// landing commit is still in the target's history, which `fleet worktree rm` and
/// `fleet verify` read). Undoing a revert (`revert/X`) gives X's work back, so down the
/// chain of reverts each lane's state flips: X is landed again, and undoing that undo
/// makes `revert/X` landed and X reverted again.
fn mark_reverted(ctx: &Context, queue: &Queue, lane: &str) -> Result<()> {
    queue.update(ctx, &format!("reverted {lane}"), |registry| {
        if let Some(l) = registry.get_mut(lane) {
            l.state = LaneState::Reverted;
        }
        let (mut undoing, mut reverted) = (lane, true);
        while let Some(undone) = undoing.strip_prefix("revert/") {
            let Some(l) = registry.get_mut(undone).filter(|l| l.state.finished()) else {
                break;
            };
            l.state = if reverted {
                LaneState::Landed
            } else {
                LaneState::Reverted
            };
            (undoing, reverted) = (undone, !reverted);
        }
        Ok(())
    })
}

/// Track the revert branch as a ready lane (published first when the queue is on a
/// remote), unless it is tracked and not yet landed.
fn track(ctx: &Context, queue: &Queue, branch: &str, ui: &dyn Ui) -> Result<()> {
    if queue
        .load(ctx)?
        .0
        .get(branch)
        .is_none_or(|l| l.state == LaneState::Landed)
    {
        queue.publish_branch(ctx, branch, ui)?;
        queue.track(ctx, &[branch.to_string()], true)?;
    }
    Ok(())
}
