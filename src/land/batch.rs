//! `fleet land --all --batch`: stack the ready lanes into one candidate and gate it once.
//!
//! Each lane is built on the one before it (so each keeps its own commits and gets its
//! own receipt); the gate runs on the stack's top. Green moves the target from its old
//! commit straight to the top, by the same compare-and-swap as a single landing. Red
//! bisects by prefixes: a green prefix lands at once (the target moves to a commit whose
//! exact tree passed), a red one narrows the search, and no prefix is gated twice — the
//! culprit is the lane whose prefix is red while the one before it is green. It is
//! marked `failed`, and the lanes after it are stacked again on the new target. With one
//! bad lane in n, that is at most 1 + 2·log2(n) gate runs.

use std::collections::VecDeque;

use super::candidate::{self, Candidate, Prepared};
use super::publish::{self, Published};
use super::record::{Mark, TestingGuard, record_red};
use super::session::{Base, Lander, Verdict};
use super::summary::summary;
use super::{LaneReport, MAX_ATTEMPTS, Outcome, single, unit};
use crate::error::Result;
use crate::gate::policy::require_commands;
use crate::git::ObjectId;
use crate::lanes::LaneState;

/// Land `lanes` in batches of at most `--max`, reported in the order given.
pub(super) fn land(lander: &Lander, lanes: Vec<String>) -> Result<Vec<LaneReport>> {
    let order = lanes.clone();
    let max = lander.opts.max.unwrap_or(usize::MAX).max(1);
    let mut pending: VecDeque<String> = lanes.into();
    let mut reports = Vec::new();
    let mut races = 0;
    let mut confirmed = lander.opts.yes;
    while !pending.is_empty() {
        let result = round(lander, &mut pending, max, &mut confirmed);
        match result {
            Ok(Round::Decided(mut decided)) => reports.append(&mut decided),
            Ok(Round::Raced(mut decided)) => {
                reports.append(&mut decided);
                races += 1;
                if races >= MAX_ATTEMPTS {
                    let target = lander.ctx.target();
                    for lane in pending.drain(..) {
                        reports.push(LaneReport {
                            lane,
                            outcome: Outcome::Refused {
                                reason: format!(
                                    "{target} kept moving during the gate ({MAX_ATTEMPTS} attempts); try again"
                                ),
                            },
                        });
                    }
                }
            }
            Ok(Round::Stop(mut decided)) => {
                reports.append(&mut decided);
                break;
            }
            // Say what already landed before giving up on the rest.
            Err(e) if !reports.is_empty() => {
                let lane = pending.pop_front().unwrap_or_default();
                reports.push(LaneReport::error(lane, &e));
                break;
            }
            Err(e) => return Err(e),
        }
    }
    // Report in the order the lanes were given, whatever order they were decided in.
    reports.sort_by_key(|r| order.iter().position(|l| *l == r.lane));
    Ok(reports)
}

enum Round {
    /// These lanes reached a verdict; the rest wait in `pending`.
    Decided(Vec<LaneReport>),
    /// The target moved under the batch; the undecided lanes are back in `pending`.
    Raced(Vec<LaneReport>),
    /// Stop landing (declined, or the shared checkout is in the way).
    Stop(Vec<LaneReport>),
}

/// Stack up to `max` lanes from `pending` on the target, gate, bisect, land.
fn round(
    lander: &Lander,
    pending: &mut VecDeque<String>,
    max: usize,
    confirmed: &mut bool,
) -> Result<Round> {
    // The gate sees every nested repository at its target; a lane with a part in one
    // lands as a unit, alone. (Targets only: no lane's part decides anything here.)
    let Ok(mut base) = lander.base(None)? else {
        return Ok(Round::Decided(Vec::new()));
    };
    let mut reports = Vec::new();
    let stack = match stack(lander, &base, pending, max, &mut reports)? {
        Stacked::Stack(stack) => stack,
        Stacked::Unit => return Ok(Round::Decided(reports)),
    };
    let Some(top) = stack.last() else {
        return Ok(Round::Decided(reports));
    };
    let commands = require_commands(lander.ctx, top.commands.clone())?;
    if lander.opts.dry_run {
        for c in &stack {
            reports.push(LaneReport {
                lane: c.lane.clone(),
                outcome: Outcome::WouldLand {
                    base: c.on,
                    candidate_tree: c.tree,
                    files: c.changed.len(),
                    commands: commands.clone(),
                },
            });
        }
        return Ok(Round::Decided(reports));
    }
    if !*confirmed {
        if !confirm(lander, &base, &stack)? {
            for c in stack {
                reports.push(LaneReport {
                    lane: c.lane,
                    outcome: Outcome::Refused {
                        reason: "declined".into(),
                    },
                });
            }
            return Ok(Round::Stop(reports));
        }
        *confirmed = true;
    }
    let names = stack.iter().map(|c| c.lane.clone()).collect();
    let mut testing = TestingGuard::mark(lander, names)?;
    let bisected = bisect(lander, &mut base, &stack, &mut testing)?;
    reports.extend(bisected.reports);
    // Lanes after the culprit, or not yet landed when the target moved, go again.
    for c in stack[bisected.undecided_from..].iter().rev() {
        pending.push_front(c.lane.clone());
    }
    Ok(match bisected.end {
        End::Done => Round::Decided(reports),
        End::Raced => Round::Raced(reports),
        End::Stop => Round::Stop(reports),
    })
}

/// What stacking found.
enum Stacked {
    /// The lanes built one on the other (maybe none).
    Stack(Vec<Candidate>),
    /// The first lane spans nested repositories: it was landed alone, as a unit.
    Unit,
}

/// Build up to `max` lanes from `pending`, each on the one before; lanes decided on
/// the way (landed, conflicting, blocked) are reported in `reports`, and lanes that
/// must wait for the stack are put back in `pending`.
fn stack(
    lander: &Lander,
    base: &Base,
    pending: &mut VecDeque<String>,
    max: usize,
    reports: &mut Vec<LaneReport>,
) -> Result<Stacked> {
    let ctx = lander.ctx;
    let mut stack: Vec<Candidate> = Vec::new();
    let mut deferred = Vec::new();
    while stack.len() < max {
        let Some(lane) = pending.pop_front() else {
            break;
        };
        let top = stack.last().map_or(base.commit, |c| c.commit);
        // A lane with parts in nested repositories lands as a unit, alone: it ends
        // the stack, and starts the next round by itself.
        if unit::spans(&base.nested, &lane)? {
            if !stack.is_empty() {
                pending.push_front(lane);
                break;
            }
            let outcome = single::land_one(lander, &lane)?;
            reports.push(LaneReport { lane, outcome });
            return Ok(Stacked::Unit);
        }
        match candidate::prepare(lander, base, &lane, top, false)? {
            Prepared::Ready(c) => stack.push(c),
            Prepared::Empty if top == base.commit => {
                Mark::lane(&lane, LaneState::Landed).record(ctx, lander.queue)?;
                reports.push(LaneReport {
                    lane,
                    outcome: Outcome::AlreadyLanded,
                });
            }
            // Its changes are in a lane stacked before it: try it again once that landed.
            Prepared::Empty | Prepared::Deferred => deferred.push(lane),
            Prepared::Done(outcome) => reports.push(LaneReport { lane, outcome }),
        }
    }
    for lane in deferred.into_iter().rev() {
        pending.push_front(lane);
    }
    Ok(Stacked::Stack(stack))
}

/// Show what the whole stack would land, and ask.
fn confirm(lander: &Lander, base: &Base, stack: &[Candidate]) -> Result<bool> {
    let Some(top) = stack.last() else {
        return Ok(true);
    };
    let repo = &lander.ctx.repo;
    let label = format!("a batch of {} lanes", stack.len());
    let changed = repo.changed_paths(repo.tree_of(base.commit)?, top.tree)?;
    Ok(lander.ui.confirm(&label, &summary(repo, &changed)?))
}

struct Bisected {
    reports: Vec<LaneReport>,
    /// `stack[undecided_from..]` reached no verdict in this round.
    undecided_from: usize,
    end: End,
}

enum End {
    Done,
    Raced,
    Stop,
}

/// Gate the whole stack; on red, find the first lane whose prefix is red by halving
/// the range between the longest prefix known green (landed right away) and the
/// shortest known red.
fn bisect(
    lander: &Lander,
    base: &mut Base,
    stack: &[Candidate],
    testing: &mut TestingGuard,
) -> Result<Bisected> {
    let mut search = Search {
        stack,
        lo: 0,
        hi: stack.len(),
        reports: Vec::new(),
    };
    let mut try_len = stack.len();
    let mut red: Option<Verdict> = None;
    loop {
        let from = search.from(base);
        let prefix = &stack[search.lo..try_len];
        let label = batch_label(prefix);
        let top = &stack[try_len - 1];
        let commands = require_commands(lander.ctx, top.commands.clone())?;
        let verdict = lander.gate_tree(base, &label, from, top.commit, &commands)?;
        if verdict.outcome.green {
            match publish::publish(lander, base, from, prefix, &verdict)? {
                Published::Moved => search.landed(try_len, &verdict, testing),
                Published::Raced => {
                    lander.ui.note(&format!(
                        "{} moved while {label} was gated; stacking again on the new {}",
                        lander.ctx.target(),
                        lander.ctx.target()
                    ));
                    let lo = search.lo;
                    return Ok(search.end(lo, End::Raced));
                }
                Published::Refused(reason) => {
                    testing.disarm();
                    search.refuse_rest(&reason);
                    return Ok(search.end(stack.len(), End::Stop));
                }
            }
        } else {
            search.hi = try_len;
            red = Some(verdict);
        }
        if search.lo == stack.len() {
            return Ok(search.end(stack.len(), End::Done));
        }
        if search.hi - search.lo == 1 {
            break;
        }
        try_len = search.lo + (search.hi - search.lo) / 2;
    }
    // Prefix `lo` is green and prefix `hi = lo + 1` is red: lane `hi` breaks the gate.
    let lo = search.lo;
    let Some(verdict) = red else {
        // Unreachable: the range narrows only after a red gate.
        return Ok(search.end(lo, End::Done));
    };
    let culprit = &stack[lo];
    let from = search.from(base);
    let outcome = record_red(
        lander,
        testing,
        &culprit.lane,
        &verdict,
        from,
        culprit.commit,
    )?;
    search.reports.push(LaneReport {
        lane: culprit.lane.clone(),
        outcome,
    });
    Ok(search.end(lo + 1, End::Done))
}

/// Where a bisection of the stack stands.
struct Search<'s> {
    stack: &'s [Candidate],
    /// The target is at the top of prefix `lo` (landed).
    lo: usize,
    /// Prefix `hi` is known red (or is the whole stack, not gated yet).
    hi: usize,
    reports: Vec<LaneReport>,
}

impl Search<'_> {
    /// What the prefixes after `lo` are built on: the target as this round found it,
    /// or the top of the landed prefix.
    fn from(&self, base: &Base) -> ObjectId {
        if self.lo == 0 {
            base.commit
        } else {
            self.stack[self.lo - 1].commit
        }
    }

    /// Prefix `len` was green and the target moved to its top: its lanes landed.
    fn landed(&mut self, len: usize, verdict: &Verdict, testing: &mut TestingGuard) {
        let top = &self.stack[len - 1];
        for c in &self.stack[self.lo..len] {
            testing.disarm_lane(&c.lane);
            self.reports.push(LaneReport {
                lane: c.lane.clone(),
                outcome: Outcome::Landed {
                    candidate: c.commit,
                    base: c.on,
                    gate_ms: verdict.outcome.duration_ms,
                    log: verdict.outcome.log.clone(),
                    cached: verdict.cached,
                    landed_with: (c.commit != top.commit).then_some(top.commit),
                },
            });
        }
        self.lo = len;
    }

    /// Nothing more moves: every lane not landed is refused for `reason`.
    fn refuse_rest(&mut self, reason: &str) {
        for c in &self.stack[self.lo..] {
            self.reports.push(LaneReport {
                lane: c.lane.clone(),
                outcome: Outcome::Refused {
                    reason: reason.to_string(),
                },
            });
        }
    }

    fn end(self, undecided_from: usize, end: End) -> Bisected {
        Bisected {
            reports: self.reports,
            undecided_from,
            end,
        }
    }
}

fn batch_label(lanes: &[Candidate]) -> String {
    match lanes {
        [one] => one.lane.clone(),
        [first, .., last] => format!("{} lanes ({} .. {})", lanes.len(), first.lane, last.lane),
        [] => String::new(),
    }
}
