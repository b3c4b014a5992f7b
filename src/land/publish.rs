//! Publishing a gated landing: receipts first, then the target's compare-and-swap
//! (here, or through the remote), then the registry and the shared checkout's files;
//! and the checks that nothing of the user's in the shared checkout is in the way.

use super::candidate::Candidate;
use super::journal;
use super::record::{Mark, gate_record};
use super::session::{Base, Lander, Verdict};
use crate::config::Strategy;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::gate::{self, Receipt};
use crate::git::{ChangedPath, ObjectId, Repo};
use crate::lanes::LaneState;
use crate::queue::Queue;
use crate::remote;

/// How publishing a gated candidate went.
pub(crate) enum Published {
    Moved,
    /// The target had moved on: rebuild on the new target.
    Raced,
    /// Something of the user's is in the way; nothing moved.
    Refused(String),
}

/// Move the target from `from` to the top of `landed` (each built on the one before,
/// the first on `from`), whose tree passed the gate: receipts first, then the
/// compare-and-swap, then the registry and the shared checkout's files.
pub(crate) fn publish(
    lander: &Lander,
    base: &mut Base,
    from: ObjectId,
    landed: &[Candidate],
    verdict: &Verdict,
) -> Result<Published> {
    let ctx = lander.ctx;
    let Some(top) = landed.last() else {
        return Ok(Published::Moved);
    };
    let record = gate_record(&verdict.outcome, from, top.commit);
    write_receipts(ctx, base.config.lanes.strategy, from, landed, verdict)?;
    crate::failpoint::hit("land-before-cas")?;
    let names: Vec<&str> = landed.iter().map(|c| c.lane.as_str()).collect();
    let as_landed: Vec<(ObjectId, ObjectId)> = landed.iter().map(|c| (c.commit, c.tip)).collect();
    let mark = Mark::lanes(names, LaneState::Landed)
        .gate(record)
        .landed(&as_landed);
    if let (Queue::Remote(remote), Some(seen)) = (lander.queue, base.fetched) {
        let registry = |ctx: &Context| {
            lander.queue.staged(
                ctx,
                &format!("{}: landed", mark_label(landed)),
                |registry| mark.apply(registry),
            )
        };
        return match remote::push_landing(
            ctx, remote, seen, from, top.commit, &registry, lander.ui,
        )? {
            remote::Landed::Moved(now) => {
                base.fetched = Some(now);
                follow_remote_landing(lander, top.commit)?;
                Ok(Published::Moved)
            }
            remote::Landed::Raced => Ok(Published::Raced),
        };
    }
    publish_here(ctx, lander.queue, from, landed, mark)
}

/// The lanes' names as the registry's update message lists them.
fn mark_label(landed: &[Candidate]) -> String {
    landed
        .iter()
        .map(|c| c.lane.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One receipt per landed lane, each on its own candidate; all name the tree the gate
/// tested (the top's).
fn write_receipts(
    ctx: &Context,
    strategy: Strategy,
    from: ObjectId,
    landed: &[Candidate],
    verdict: &Verdict,
) -> Result<()> {
    let Some(top) = landed.last() else {
        return Ok(());
    };
    let batched = landed.len() > 1;
    for c in landed {
        gate::write_receipt(
            &ctx.repo,
            &Receipt {
                lane: c.lane.clone(),
                lane_tip: c.tip.to_string(),
                base: c.on,
                candidate: c.commit,
                tested_tree: top.tree,
                strategy,
                commands: verdict.outcome.results.clone(),
                duration_ms: verdict.outcome.duration_ms,
                log_digest: verdict.outcome.log_digest.clone(),
                at: crate::time::now(),
                target_before: (c.on != from).then_some(from),
                landed_with: (batched && c.commit != top.commit).then_some(top.commit),
                cached: verdict.cached,
                unit: Vec::new(),
            },
        )?;
    }
    Ok(())
}

/// The queue is here: compare-and-swap the target, record the lanes as landed, and
/// bring the shared checkout's files along, a journal covering the steps after the move.
fn publish_here(
    ctx: &Context,
    queue: &Queue,
    from: ObjectId,
    landed: &[Candidate],
    mark: Mark,
) -> Result<Published> {
    let repo = &ctx.repo;
    let Some(top) = landed.last() else {
        return Ok(Published::Moved);
    };
    // The user may have edited the shared checkout while the gate ran: look again.
    let changed = repo.changed_paths(repo.tree_of(from)?, top.tree)?;
    if let Some(reason) = shared_checkout_conflict(ctx, &changed)? {
        return Ok(Published::Refused(reason));
    }
    let moves_checkout = shared_has_target(ctx)?;
    journal::write(ctx, from, top.commit)?;
    let label = landed
        .iter()
        .map(|c| c.lane.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if !move_target(ctx, from, top.commit, &label)? {
        journal::remove(ctx);
        return Ok(Published::Raced);
    }
    crate::failpoint::hit("land-after-cas")?;
    mark.record(ctx, queue)?;
    if moves_checkout {
        crate::checkout::follow(
            &ctx.shared,
            from,
            top.commit,
            &crate::state::no_hooks_dir(repo)?,
        )?;
    }
    journal::remove(ctx);
    Ok(Published::Moved)
}

/// After a remote landing: bring this repository's target (and the shared checkout's
/// files) along to `candidate` when that is a fast-forward and nothing of the user's is
/// in the way; otherwise say why it stays.
fn follow_remote_landing(lander: &Lander, candidate: ObjectId) -> Result<()> {
    let ctx = lander.ctx;
    let repo = &ctx.repo;
    let target = ctx.target();
    let Some(local) = repo.branch_tip(target)? else {
        return Ok(());
    };
    if local == candidate {
        return Ok(());
    }
    if repo.merge_base(local, candidate)? != Some(local) {
        lander.ui.warn(&format!(
            "the local {target} has commits that are not on the remote; it stays where it is"
        ));
        return Ok(());
    }
    let changed = repo.changed_paths(repo.tree_of(local)?, repo.tree_of(candidate)?)?;
    if let Some(reason) = shared_checkout_conflict(ctx, &changed)? {
        lander.ui.warn(&format!(
            "the local {target} stays behind the remote: {reason}"
        ));
        return Ok(());
    }
    let moves_checkout = shared_has_target(ctx)?;
    journal::write(ctx, local, candidate)?;
    if move_target(ctx, local, candidate, "follow the remote")? && moves_checkout {
        crate::checkout::follow(
            &ctx.shared,
            local,
            candidate,
            &crate::state::no_hooks_dir(repo)?,
        )?;
    }
    journal::remove(ctx);
    Ok(())
}

/// Is the target checked out in the shared checkout (so its files must follow)?
pub(crate) fn shared_has_target(ctx: &Context) -> Result<bool> {
    checked_out(&ctx.repo, &ctx.config.lanes.target.full_ref())
}

/// Does `repo`'s shared checkout have the branch `target` (a full ref) checked out?
pub(crate) fn checked_out(repo: &Repo, target: &str) -> Result<bool> {
    Ok(repo
        .head_branch()?
        .map(|b| crate::refs::branch(&b))
        .as_deref()
        == Some(target))
}

/// Something of the user's in the shared checkout at a path the lane changes would be
/// overwritten when its files follow the target: refuse before anything moves.
pub(crate) fn shared_checkout_conflict(
    ctx: &Context,
    changed: &[ChangedPath],
) -> Result<Option<String>> {
    let target = ctx.config.lanes.target.full_ref();
    in_the_way(&ctx.repo, &ctx.shared, &target, changed)
}

/// Something of the user's in `shared` (when it has `target` checked out) where a move
/// of `target` changes files: the reason to refuse, before anything moves.
pub(crate) fn in_the_way(
    repo: &Repo,
    shared: &std::path::Path,
    target: &str,
    changed: &[ChangedPath],
) -> Result<Option<String>> {
    if !checked_out(repo, target)? {
        return Ok(None);
    }
    let hits = crate::checkout::collisions(shared, changed)?;
    if !hits.is_empty() {
        return Ok(Some(format!(
            "the shared checkout has uncommitted, untracked or ignored files where this lane changes: {}; commit, move or delete them first",
            hits.join(", ")
        )));
    }
    crate::checkout::cannot_follow(shared, changed)
}

/// Compare-and-swap the target from `base` to `candidate` (see [`move_ref`]). Only the
/// recovery of a killed landing clears a ref lock (see `finish_interrupted_checkout_move`).
fn move_target(ctx: &Context, base: ObjectId, candidate: ObjectId, lane: &str) -> Result<bool> {
    let target_ref = ctx.config.lanes.target.full_ref();
    move_ref(
        &ctx.repo,
        &target_ref,
        base,
        candidate,
        &format!("land {lane}"),
    )
}

/// Compare-and-swap `full_ref` in `repo` from `base` to `candidate`; `false` when it
/// had moved. A failure while it still reads `base` means a lock file is in the way:
/// wait for a live holder to finish, then give up with a clear error (exit 3).
pub(crate) fn move_ref(
    repo: &Repo,
    full_ref: &str,
    base: ObjectId,
    candidate: ObjectId,
    reason: &str,
) -> Result<bool> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while repo
        .cas_update(full_ref, Some(base), candidate, reason)
        .is_err()
    {
        if repo.ref_target(full_ref)? != Some(base) {
            return Ok(false);
        }
        repo.clear_stale_packed_refs_lock();
        if std::time::Instant::now() >= deadline {
            let lock = repo.common_dir().join(format!("{full_ref}.lock"));
            return Err(Error::env(format!(
                "{full_ref} is locked (a {full_ref}.lock file is in the way: {})",
                lock.display()
            ))
            .with_help("if no git process is running in that repository, delete the .lock file and run `fleet land` again"));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Ok(true)
}
