//! What landing records in the lanes registry: each lane's new state, with its gate
//! result and what it landed as ([`Mark`]), and the guard that puts lanes marked
//! `testing` back to `ready` when a landing stops without a verdict.

use super::Outcome;
use super::session::{Lander, Verdict};
use crate::context::Context;
use crate::error::Result;
use crate::gate::GateOutcome;
use crate::git::ObjectId;
use crate::lanes::{GateRecord, LaneState, Registry};
use crate::queue::Queue;

/// Marks lanes `testing`, and puts them back to `ready` unless the landing reached a
/// verdict (disarmed) — an error must not leave a lane looking like it is being tested.
pub(crate) struct TestingGuard<'a> {
    ctx: &'a Context,
    queue: &'a Queue,
    lanes: Vec<String>,
    /// Ctrl-C or SIGTERM meanwhile stops the gate, which then fails with no result; fleet
    /// ends by the signal once the lanes are back to ready (this field drops last).
    _signals: crate::proc::Deferred,
}

impl<'a> TestingGuard<'a> {
    pub(crate) fn mark(lander: &'a Lander, lanes: Vec<String>) -> Result<TestingGuard<'a>> {
        let (ctx, queue) = (lander.ctx, lander.queue);
        let signals = crate::proc::defer_signals();
        let names: Vec<&str> = lanes.iter().map(String::as_str).collect();
        Mark::lanes(names, LaneState::Testing).record(ctx, queue)?;
        Ok(TestingGuard {
            ctx,
            queue,
            lanes,
            _signals: signals,
        })
    }

    /// The lanes reached a verdict; `lane` alone when given.
    pub(crate) fn disarm_lane(&mut self, lane: &str) {
        self.lanes.retain(|l| l != lane);
    }

    pub(crate) fn disarm(&mut self) {
        self.lanes.clear();
    }
}

impl Drop for TestingGuard<'_> {
    fn drop(&mut self) {
        if !self.lanes.is_empty() {
            let names: Vec<&str> = self.lanes.iter().map(String::as_str).collect();
            let _ = Mark::lanes(names, LaneState::Ready).record(self.ctx, self.queue);
        }
    }
}

/// A change of lanes' state (and gate result) in the registry, made in one update:
/// `Mark::lane(lane, state)`, with `.detail(..)`, `.gate(..)` and `.landed(..)` as the
/// change needs, then `.record(ctx, queue)`.
pub(crate) struct Mark<'l> {
    lanes: Vec<&'l str>,
    state: LaneState,
    detail: Vec<String>,
    gate: Option<GateRecord>,
    /// (candidate, lane tip), paired with `lanes` by position.
    landed: &'l [(ObjectId, ObjectId)],
}

impl<'l> Mark<'l> {
    pub(crate) fn lanes(lanes: Vec<&'l str>, state: LaneState) -> Mark<'l> {
        Mark {
            lanes,
            state,
            detail: Vec::new(),
            gate: None,
            landed: &[],
        }
    }

    pub(crate) fn lane(lane: &'l str, state: LaneState) -> Mark<'l> {
        Mark::lanes(vec![lane], state)
    }

    /// Why the state is what it is (conflicting files, block reasons).
    pub(crate) fn detail(mut self, detail: Vec<String>) -> Mark<'l> {
        self.detail = detail;
        self
    }

    pub(crate) fn gate(mut self, gate: GateRecord) -> Mark<'l> {
        self.gate = Some(gate);
        self
    }

    /// What each lane landed as: (candidate, lane tip) by position.
    pub(crate) fn landed(mut self, landed: &'l [(ObjectId, ObjectId)]) -> Mark<'l> {
        self.landed = landed;
        self
    }

    /// Make the change in the queue's registry.
    pub(crate) fn record(self, ctx: &Context, queue: &Queue) -> Result<()> {
        let what = format!("{}: {}", self.lanes.join(" "), self.state.as_str());
        queue.update(ctx, &what, |registry| {
            self.apply(registry);
            Ok(())
        })
    }

    /// Make the change in `registry` as loaded (for an update the caller stages).
    pub(crate) fn apply(&self, registry: &mut Registry) {
        for (i, lane) in self.lanes.iter().enumerate() {
            if let Some(record) = registry.get_mut(lane) {
                // Marked ready again while its gate ran (new commits): it landed as it
                // was then, and the new commits wait for their own landing.
                let readied = self.state == LaneState::Landed
                    && self.landed.get(i).is_some()
                    && record.state == LaneState::Ready;
                record.state = if readied {
                    LaneState::Ready
                } else {
                    self.state
                };
                record.detail = self.detail.clone();
                if let Some(gate) = &self.gate {
                    record.gate = Some(gate.clone());
                }
                if let Some((candidate, tip)) = self.landed.get(i) {
                    record.landed_as = Some(*candidate);
                    record.landed_tip = Some(*tip);
                }
            }
        }
    }
}

/// The registry's record of a gate run on `candidate`, built on `base`.
pub(crate) fn gate_record(
    outcome: &GateOutcome,
    base: ObjectId,
    candidate: ObjectId,
) -> GateRecord {
    GateRecord {
        green: outcome.green,
        duration_ms: outcome.duration_ms,
        log: outcome.log.display().to_string(),
        at: crate::time::now(),
        base,
        candidate,
    }
}

/// A red gate decides the lane: `failed` in the registry (with the gate's record) and in
/// the report.
pub(crate) fn record_red(
    lander: &Lander,
    testing: &mut TestingGuard,
    lane: &str,
    verdict: &Verdict,
    base: ObjectId,
    candidate: ObjectId,
) -> Result<Outcome> {
    testing.disarm_lane(lane);
    let record = gate_record(&verdict.outcome, base, candidate);
    Mark::lane(lane, LaneState::Failed)
        .gate(record)
        .record(lander.ctx, lander.queue)?;
    Ok(failed(verdict))
}

/// Green, but something stopped the move: the lane goes back to `ready` (its gate
/// result kept) with the reason.
pub(crate) fn put_back(
    lander: &Lander,
    testing: &mut TestingGuard,
    lane: &str,
    record: GateRecord,
    reason: String,
) -> Result<Outcome> {
    testing.disarm_lane(lane);
    Mark::lane(lane, LaneState::Ready)
        .gate(record)
        .record(lander.ctx, lander.queue)?;
    Ok(Outcome::Refused { reason })
}

/// The report of a red gate.
pub(crate) fn failed(verdict: &Verdict) -> Outcome {
    let last = verdict.outcome.results.last().cloned();
    Outcome::Failed {
        log: verdict.outcome.log.clone(),
        exit_code: last.as_ref().map_or(1, |f| f.exit_code),
        command: last.map(|f| f.command).unwrap_or_default(),
        cached: verdict.cached,
    }
}
