//! Landing lanes one at a time: each is built on the target as it is now, confirmed,
//! gated and published; a target that moved under the gate means building again.

use super::candidate::{self, Candidate, Prepared};
use super::publish::{self, Published};
use super::record::{Mark, TestingGuard, gate_record, put_back, record_red};
use super::session::{Base, Lander};
use super::summary::summary;
use super::{LaneReport, MAX_ATTEMPTS, Outcome, unit};
use crate::error::Result;
use crate::gate::policy::require_commands;
use crate::lanes::LaneState;

/// Land `lanes` in order, each on the target the one before left. An error stops the
/// run; once a lane was reported, it is reported as that lane's outcome instead.
pub(crate) fn land_each(lander: &Lander, lanes: Vec<String>) -> Result<Vec<LaneReport>> {
    let mut reports = Vec::new();
    for lane in lanes {
        match land_one(lander, &lane) {
            Ok(outcome) => reports.push(LaneReport { lane, outcome }),
            // Say what already landed before giving up on the rest.
            Err(e) if !reports.is_empty() => {
                reports.push(LaneReport::error(lane, &e));
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(reports)
}

/// Land one lane (as a unit when it has parts in nested repositories), trying again
/// on the new target while the target moves under its gate.
pub(crate) fn land_one(lander: &Lander, lane: &str) -> Result<Outcome> {
    let target = lander.ctx.target();
    let mut confirmed = lander.opts.yes;
    for _ in 0..MAX_ATTEMPTS {
        if let Some(outcome) = attempt(lander, lane, &mut confirmed)? {
            return Ok(outcome);
        }
    }
    Ok(Outcome::Refused {
        reason: format!(
            "{target} kept moving during the gate ({MAX_ATTEMPTS} attempts); try again"
        ),
    })
}

/// One try on the target as it is now. `None`: the target moved under the gate.
fn attempt(lander: &Lander, lane: &str, confirmed: &mut bool) -> Result<Option<Outcome>> {
    let ctx = lander.ctx;
    let mut base = match lander.base(Some(lane))? {
        Ok(base) => base,
        Err(outcome) => return Ok(Some(outcome)),
    };
    let spans = base.nested.iter().any(|n| n.part.is_some());
    let prepared = candidate::prepare(lander, &base, lane, base.commit, spans)?;
    if spans {
        let outer = match prepared {
            Prepared::Ready(c) => Some(c),
            // (Deferred only happens on a batch's stack, never on the target.)
            Prepared::Empty | Prepared::Deferred => None,
            Prepared::Done(outcome) => return Ok(Some(outcome)),
        };
        return unit::land(lander, &base, lane, outer);
    }
    let c = match prepared {
        Prepared::Ready(c) => c,
        Prepared::Empty | Prepared::Deferred => {
            Mark::lane(lane, LaneState::Landed).record(ctx, lander.queue)?;
            return Ok(Some(Outcome::AlreadyLanded));
        }
        Prepared::Done(outcome) => return Ok(Some(outcome)),
    };
    let commands = require_commands(ctx, c.commands.clone())?;
    if lander.opts.dry_run {
        if let Some(reason) = publish::shared_checkout_conflict(ctx, &c.changed)? {
            return Ok(Some(Outcome::Refused { reason }));
        }
        return Ok(Some(Outcome::WouldLand {
            base: base.commit,
            candidate_tree: c.tree,
            files: c.changed.len(),
            commands,
        }));
    }
    if !*confirmed {
        if !lander.ui.confirm(lane, &summary(&ctx.repo, &c.changed)?) {
            return Ok(Some(Outcome::Refused {
                reason: "declined".into(),
            }));
        }
        *confirmed = true;
    }
    gate_and_publish(lander, &mut base, &c, &commands)
}

/// Gate the candidate and, when green, publish it. `None`: the target moved under the
/// gate.
fn gate_and_publish(
    lander: &Lander,
    base: &mut Base,
    c: &Candidate,
    commands: &[String],
) -> Result<Option<Outcome>> {
    let ctx = lander.ctx;
    let (lane, from) = (c.lane.as_str(), base.commit);
    // An error from here on (a locked ref, a git failure) must not leave the lane
    // looking like it is being tested: it goes back to ready.
    let mut testing = TestingGuard::mark(lander, vec![lane.to_string()])?;
    let verdict = lander.gate_tree(base, lane, from, c.commit, commands)?;
    if !verdict.outcome.green {
        return record_red(lander, &mut testing, lane, &verdict, from, c.commit).map(Some);
    }
    let record = gate_record(&verdict.outcome, from, c.commit);
    match publish::publish(lander, base, from, std::slice::from_ref(c), &verdict)? {
        Published::Moved => {
            testing.disarm();
            Ok(Some(Outcome::Landed {
                candidate: c.commit,
                base: from,
                gate_ms: verdict.outcome.duration_ms,
                log: verdict.outcome.log,
                cached: verdict.cached,
                landed_with: None,
            }))
        }
        Published::Raced => {
            let target = ctx.target();
            lander.ui.note(&format!(
                "{target} moved while {lane} was gated; rebuilding on the new {target}"
            ));
            Ok(None)
        }
        Published::Refused(reason) => {
            put_back(lander, &mut testing, lane, record, reason).map(Some)
        }
    }
}
