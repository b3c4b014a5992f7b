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
use crate::git::{Merged, ObjectId, Repo};
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
    let (lane, landed_as) = landed_lane(ctx, queue, given)?;
    let receipt = gate::read_receipt(&ctx.repo, landed_as)?.ok_or_else(|| {
        Error::refused(format!(
            "no receipt for {landed_as}: cannot tell what {lane} landed"
        ))
    })?;
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
    Ok(LaneReport {
        lane: revert_branch,
        outcome,
    })
}

/// The lane `given` names, and the commit fleet landed it as; refused for a lane that
/// spans nested repositories or that fleet did not land.
fn landed_lane(ctx: &Context, queue: &Queue, given: &str) -> Result<(String, ObjectId)> {
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
    for n in ctx.nested_repos() {
        if Repo::open(&ctx.shared.join(&n.rel))?
            .branch_tip(&lane)?
            .is_some()
        {
            return Err(Error::refused(format!(
                "lane `{lane}` spans nested repositories ({} has its branch); fleet cannot revert a unit yet",
                n.rel.display()
            ))
            .with_help("revert each part on a branch of the same name in each repository and land that lane"));
        }
    }
    let landed_as = record.landed_as.ok_or_else(|| {
        Error::refused(format!(
            "lane `{lane}` was not landed by fleet, so there is nothing recorded to revert"
        ))
        .with_help("revert its commits by hand on a branch and land that branch")
    })?;
    Ok((lane, landed_as))
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
