//! A shared git remote as the coordination point between machines.
//!
//! No server: the remote's target branch, lane registry (`refs/fleet/lanes`) and receipts
//! (`refs/notes/fleet`) are the shared queue. fleet fetches them into its own namespace
//! (`refs/fleet/remotes/<name>/`, branches into the usual `refs/remotes/<name>/`). The
//! fetched registry is the queue (this repository's own `refs/fleet/lanes` is a separate,
//! local queue); the remote's receipts are merged into the local ones as a union. fleet
//! works locally and publishes with one atomic push in which every ref moves only if
//! the remote still holds what was fetched (`--force-with-lease` per ref): the remote's
//! compare-and-swap. A push that loses finds out why by fetching again: the target moved
//! (another lander won: rebuild and gate again), or only the registry or receipts moved
//! (build them again on what was fetched and push again), or nothing moved (a real
//! error, reported).
//!
//! This module is the transport only: fetching, pushing and the receipts' union. Which
//! queue a command works on, and the registry's own compare-and-swap over the remote,
//! live in the `queue` module, the one caller.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, ObjectId, OwnRefStep, Repo, cli::PushUpdate};
use crate::refs;
use crate::report::Ui;

/// How often fleet's own refs are merged and pushed again when another machine pushed
/// them first.
pub const PUSH_ATTEMPTS: usize = 20;

/// What the remote held at the last fetch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetched {
    pub target: Option<ObjectId>,
    pub lanes: Option<ObjectId>,
    pub notes: Option<ObjectId>,
}

/// A remote name this repository knows, or a usage error naming the fix.
pub fn check_exists(repo: &Repo, remote: &str) -> Result<()> {
    if repo.has_remote(remote) {
        return Ok(());
    }
    Err(
        Error::usage(format!("there is no remote `{remote}` in this repository"))
            .with_help("`git remote -v` lists the remotes; add one with `git remote add NAME URL`"),
    )
}

/// Fetch the remote's branches, registry and receipts, and merge its receipts into
/// this repository's.
pub fn fetch(ctx: &Context, remote: &str) -> Result<Fetched> {
    let repo = &ctx.repo;
    let mut refspecs = refs::fetch_refspecs(remote).to_vec();
    refspecs.push(refs::tasks_fetch_refspec(remote));
    refspecs.push(refs::plans_fetch_refspec(remote));
    // git refuses to fetch while a packed-refs.lock exists, or while a lock a killed
    // fetch left sits on one of the refs it updates.
    repo.wait_out_packed_refs_lock();
    for prefix in [
        refs::tracking(remote, ""),
        format!("{}{remote}/", refs::FLEET_REMOTES),
    ] {
        repo.clear_stale_ref_locks_under(&prefix);
    }
    git::cli::fetch(
        &ctx.shared,
        remote,
        &refspecs,
        &crate::state::no_hooks_dir(repo)?,
    )?;
    let fetched = Fetched {
        target: repo.ref_target(&refs::tracking(remote, ctx.target()))?,
        lanes: repo.ref_target(&refs::remote_lanes(remote))?,
        notes: repo.ref_target(&refs::remote_notes(remote))?,
    };
    absorb_receipts(repo, fetched.notes)?;
    Ok(fetched)
}

/// Bring the remote's receipts into the local ones: take them when the local ones
/// have nothing of their own, keep the local ones when they already contain the
/// remote's, else a union (receipts are facts about commits, whoever wrote them).
/// Compare-and-swap under fleet's refs lock.
fn absorb_receipts(repo: &Repo, theirs: Option<ObjectId>) -> Result<()> {
    let Some(theirs) = theirs else {
        return Ok(());
    };
    repo.update_own_ref(refs::NOTES, "fleet: receipts from the remote", |ours| {
        let Some(ours) = ours else {
            return Ok(OwnRefStep::Set(theirs, ()));
        };
        if ours == theirs {
            return Ok(OwnRefStep::Keep(()));
        }
        let base = repo.merge_base(ours, theirs)?;
        Ok(if base == Some(theirs) {
            OwnRefStep::Keep(())
        } else if base == Some(ours) {
            OwnRefStep::Set(theirs, ())
        } else {
            let union = repo.union_commit(theirs, ours, "fleet: receipts from two machines")?;
            OwnRefStep::Set(union, ())
        })
    })
}

/// The push that publishes the local receipts, when they hold some the remote lacks.
fn receipts_update(repo: &Repo, fetched: &Fetched) -> Result<Option<PushUpdate>> {
    let Some(ours) = repo.ref_target(refs::NOTES)? else {
        return Ok(None);
    };
    Ok((Some(ours) != fetched.notes).then(|| PushUpdate {
        dst: refs::NOTES.to_string(),
        new: ours.to_string(),
        expect: fetched.notes.map(|id| id.to_string()),
    }))
}

/// Push `updates` to `remote` atomically, each with its lease, running no hooks here.
/// `Some(why)` when the remote refused (a lease lost, or a hook there said no).
pub fn push(ctx: &Context, remote: &str, updates: &[PushUpdate]) -> Result<Option<String>> {
    git::cli::push_atomic(
        &ctx.shared,
        remote,
        updates,
        &crate::state::no_hooks_dir(&ctx.repo)?,
    )
}

/// Record here what the remote now holds after our push went in. Best effort: the
/// tracking refs are only a cache of the remote, refreshed by every fetch.
pub fn set_tracking(repo: &Repo, tracking: &str, new: ObjectId) -> Result<()> {
    let old = repo.ref_target(tracking)?;
    if old != Some(new) {
        let _ = repo.cas_update(tracking, old, new, "fleet: pushed");
    }
    Ok(())
}

/// How the push that moves the remote target went.
pub enum Landed {
    /// What the remote holds now.
    Moved(Fetched),
    /// The remote target is no longer the commit the candidate was built on.
    Raced,
}

/// Move the remote's target from `base` to `candidate` in one atomic push, together
/// with the landing's registry (`registry` builds it on the fetched one, on no ref yet)
/// and the local receipts. Retries while only the registry or receipts moved; `Raced`
/// once the target moved. On success what the remote now holds is fetched again (when
/// that fails, `ui` is warned: the landing is in all the same).
pub fn push_landing(
    ctx: &Context,
    remote: &str,
    mut fetched: Fetched,
    base: ObjectId,
    candidate: ObjectId,
    registry: &dyn Fn(&Context) -> Result<ObjectId>,
    ui: &dyn Ui,
) -> Result<Landed> {
    let repo = &ctx.repo;
    let target_ref = ctx.config.lanes.target.full_ref();
    for _ in 0..PUSH_ATTEMPTS {
        if fetched.target != Some(base) {
            return Ok(Landed::Raced);
        }
        let mut updates = vec![
            PushUpdate {
                dst: target_ref.clone(),
                new: candidate.to_string(),
                expect: Some(base.to_string()),
            },
            PushUpdate {
                dst: refs::LANES.to_string(),
                new: registry(ctx)?.to_string(),
                expect: fetched.lanes.map(|id| id.to_string()),
            },
        ];
        updates.extend(receipts_update(repo, &fetched)?);
        crate::failpoint::hit("remote-before-push")?;
        let Some(why) = push(ctx, remote, &updates)? else {
            crate::failpoint::hit("remote-after-push")?;
            // The landing is in; failing to look at the remote again must not say otherwise.
            let now = fetch(ctx, remote).unwrap_or_else(|e| {
                ui.warn(&format!(
                    "landed, but could not fetch from {remote} again: {}",
                    e.message
                ));
                Fetched {
                    target: Some(candidate),
                    ..fetched
                }
            });
            return Ok(Landed::Moved(now));
        };
        let again = fetch(ctx, remote)?;
        if again == fetched {
            return Err(push_refused(remote, &why));
        }
        fetched = again;
    }
    Err(Error::env(format!(
        "{remote}'s lanes and receipts kept changing ({PUSH_ATTEMPTS} attempts)"
    ))
    .with_help("retry in a moment"))
}

/// Publish the local branch `branch` to the remote when the remote lacks it or has an
/// older commit of it (a fast-forward, by compare-and-swap). A remote branch that went
/// its own way is refused: landing it would leave this machine's commits out. A push
/// is told to `ui`.
pub fn publish_branch(ctx: &Context, remote: &str, branch: &str, ui: &dyn Ui) -> Result<()> {
    publish(ctx, remote, branch, None, ui)
}

/// A branch a follow-up task rewrote (rebased onto the target) and the remote tip it
/// may replace: the tip the follow-up continued, and the local tip its run started
/// from ([`publish_rewritten_branch`]).
#[derive(Clone, Copy, Debug)]
pub struct Rewritten {
    /// The lane's tip on the remote when the follow-up was made.
    pub continued: ObjectId,
    /// The local branch's tip when the follow-up's run began, if it had one.
    pub started_from: Option<ObjectId>,
    /// The run is a retry of the follow-up, in the worktree an earlier attempt of it
    /// began in: it starts from that attempt's rewrite, which no longer contains the tip.
    pub retried: bool,
}

/// Publish `branch` as [`publish_branch`] does, except that a follow-up's rewrite of it
/// may replace the remote's branch, by a push leased on that exact old value, when the
/// remote still holds exactly the tip the follow-up continued and the run started from
/// a tip containing it, or is a retry of a follow-up whose first run did (so every
/// commit replaced was in the worktree the agent rewrote). Anything else, someone's push to the branch meanwhile above all, is
/// refused and nothing is changed.
pub fn publish_rewritten_branch(
    ctx: &Context,
    remote: &str,
    branch: &str,
    rewritten: Rewritten,
    ui: &dyn Ui,
) -> Result<()> {
    publish(ctx, remote, branch, Some(rewritten), ui)
}

fn publish(
    ctx: &Context,
    remote: &str,
    branch: &str,
    rewritten: Option<Rewritten>,
    ui: &dyn Ui,
) -> Result<()> {
    let repo = &ctx.repo;
    let Some(local) = repo.branch_tip(branch)? else {
        return Ok(());
    };
    let tracking = refs::tracking(remote, branch);
    let theirs = repo.ref_target(&tracking)?;
    // The remote tip a follow-up's rewrite replaces, when it does.
    let mut replaced = None;
    match theirs {
        Some(theirs) if theirs == local => return Ok(()),
        Some(theirs) if repo.merge_base(theirs, local)? != Some(theirs) => {
            let Some(rw) = rewritten else {
                return Err(Error::refused(format!(
                    "{branch} on {remote} and here went apart (each has commits the other lacks); nothing was changed"
                ))
                .with_help(format!(
                    "bring them together first, e.g. `git pull --rebase {remote} {branch}` in the lane's worktree, then `git push {remote} {branch}`"
                )));
            };
            let contained = match rw.started_from {
                Some(start) => repo.merge_base(rw.continued, start)? == Some(rw.continued),
                None => false,
            };
            if theirs != rw.continued || !(contained || rw.retried) {
                return Err(moved_under_follow_up(remote, branch, theirs, rw.continued));
            }
            replaced = Some(theirs);
        }
        _ => {}
    }
    // The lease is the exact old value: the push goes in only while the remote still
    // holds what was looked at here (never a bare --force-with-lease).
    let update = PushUpdate {
        dst: refs::branch(branch),
        new: local.to_string(),
        expect: theirs.map(|id| id.to_string()),
    };
    if let Some(why) = push(ctx, remote, &[update])? {
        // A lease lost (the branch moved there) is a refusal. A push that failed with
        // nothing moved there (a hook or a permission of the remote's said no, or it
        // went out of reach between the fetch and the push) is of the environment: the
        // same push may go in later, and a drainer tries it again.
        fetch(ctx, remote)?;
        if repo.ref_target(&tracking)? == theirs {
            return Err(push_refused(remote, &why).with_help(format!(
                "check that you may push to it (`git push --dry-run {remote} {branch}`) and that no hook there refuses it; then run this again"
            )));
        }
        return Err(Error::refused(format!(
            "{branch} moved on {remote} while it was being pushed; nothing was changed: {why}"
        ))
        .with_help(format!(
            "fetch and look: `git fetch {remote} && git log {tracking}`"
        )));
    }
    // For the crash tests: killed with the branch on the remote, before anything after.
    crate::failpoint::hit("publish-after-push")?;
    match replaced {
        Some(old) => ui.note(&format!(
            "pushed {branch} to {remote}, replacing {} (the tip its follow-up rewrote)",
            short(old)
        )),
        None => ui.note(&format!("pushed {branch} to {remote}")),
    }
    // git may have updated the tracking ref itself (the remote's fetch refspec).
    set_tracking(repo, &tracking, local)
}

/// The refusal for a follow-up's rewritten branch the remote cannot take without
/// losing someone's commits.
fn moved_under_follow_up(
    remote: &str,
    branch: &str,
    theirs: ObjectId,
    continued: ObjectId,
) -> Error {
    let why = if theirs != continued {
        format!(
            "{branch} on {remote} moved since the follow-up began (it is at {}, the follow-up continued {}): someone pushed to it",
            short(theirs),
            short(continued)
        )
    } else {
        format!(
            "the follow-up's run did not start from {}, the tip of {branch} on {remote} it continues, so its rewrite may leave commits of it out",
            short(continued)
        )
    };
    Error::refused(format!(
        "{why}; the rewritten branch was not published and nothing was changed"
    ))
    .with_help(format!(
        "their commits stay on {remote}: bring them into the lane's worktree (`git fetch {remote} && git rebase {remote}/{branch}` there), then `fleet ready --remote {remote} {branch}`; or cancel the follow-up task"
    ))
}

fn short(id: ObjectId) -> String {
    id.to_hex_with_len(8).to_string()
}

/// The error for a push the remote refused although nothing had moved there.
///
/// An error of the environment, not a refusal: nothing moved on the remote (each
/// caller fetched again and found the ref it leased as it was), so no one else won a
/// race. It is a hook or a permission of the remote's saying no, or a push it could
/// not take just then; the same push may go in later, and a drainer tries it again
/// rather than give up the run it holds.
pub fn push_refused(remote: &str, why: &str) -> Error {
    Error::env(format!("{remote} refused the push: {why}")).with_help(
        "check that you may push to it (`git push --dry-run`), and that no server-side hook refuses fleet's refs",
    )
}
