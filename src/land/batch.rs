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

use super::{
    Candidate, LandOptions, Landing, LaneReport, MAX_ATTEMPTS, Outcome, Prepared, Published,
    TestingGuard, Ui, Verdict, config_at, gate_tree, land_one, mark, prepare, publish, record_red,
    refresh, require_commands, summary,
};
use crate::context::Context;
use crate::error::Result;
use crate::git::ObjectId;
use crate::lanes::LaneState;

pub(super) fn land(
    ctx: &Context,
    lanes: Vec<String>,
    opts: &LandOptions,
    ui: &dyn Ui,
    run: &mut Landing,
) -> Result<()> {
    let order = lanes.clone();
    let max = opts.max.unwrap_or(usize::MAX).max(1);
    let mut pending: VecDeque<String> = lanes.into();
    let mut reports = Vec::new();
    let mut races = 0;
    let mut confirmed = opts.yes;
    while !pending.is_empty() {
        let result = round(ctx, &mut pending, max, opts, ui, &mut confirmed, run);
        match result {
            Ok(Round::Decided(mut decided)) => reports.append(&mut decided),
            Ok(Round::Raced(mut decided)) => {
                reports.append(&mut decided);
                races += 1;
                if races >= MAX_ATTEMPTS {
                    let target = ctx.target();
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
    run.lanes = reports;
    Ok(())
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
    ctx: &Context,
    pending: &mut VecDeque<String>,
    max: usize,
    opts: &LandOptions,
    ui: &dyn Ui,
    confirmed: &mut bool,
    run: &mut Landing,
) -> Result<Round> {
    let repo = &ctx.repo;
    let mut fetched = refresh(ctx)?;
    let base = ctx.queue_target_tip()?;
    let config = config_at(repo, base, ctx.target())?;
    // The gate sees every nested repository at its target; a lane with a part in one
    // lands as a unit, alone.
    let nested = super::unit::states(ctx, None, &config, opts)?.unwrap_or_default();
    let mut reports = Vec::new();
    let mut stack: Vec<Candidate> = Vec::new();
    let mut deferred = Vec::new();
    while stack.len() < max {
        let Some(lane) = pending.pop_front() else {
            break;
        };
        let top = stack.last().map_or(base, |c| c.commit);
        // A lane with parts in nested repositories lands as a unit, alone: it ends
        // the stack, and starts the next round by itself.
        if super::unit::spans(&nested, &lane)? {
            if !stack.is_empty() {
                pending.push_front(lane);
                break;
            }
            let outcome = land_one(ctx, &lane, opts, ui, &mut run.gate_runs)?;
            reports.push(LaneReport { lane, outcome });
            return Ok(Round::Decided(reports));
        }
        match prepare(ctx, &lane, base, top, &config, opts, false)? {
            Prepared::Ready(c) => stack.push(c),
            Prepared::Empty if top == base => {
                mark(ctx, &[&lane], LaneState::Landed, Vec::new(), None, &[])?;
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
    let Some(top) = stack.last() else {
        return Ok(Round::Decided(reports));
    };
    let commands = require_commands(ctx, top.commands.clone())?;
    if opts.dry_run {
        for c in &stack {
            reports.push(LaneReport {
                lane: c.lane.clone(),
                outcome: Outcome::WouldLand {
                    base: c.on.to_string(),
                    candidate_tree: c.tree.to_string(),
                    files: c.changed.len(),
                    commands: commands.clone(),
                },
            });
        }
        return Ok(Round::Decided(reports));
    }
    if !*confirmed {
        let label = format!("a batch of {} lanes", stack.len());
        let changed = repo.changed_paths(repo.tree_of(base)?, top.tree)?;
        if !ui.confirm(&label, &summary(repo, &changed)?) {
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
    let mut testing = TestingGuard::mark(ctx, names)?;
    let bisected = bisect(
        ctx,
        &nested,
        &mut fetched,
        base,
        &stack,
        &config,
        opts,
        ui,
        run,
        &mut testing,
    )?;
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
#[allow(clippy::too_many_arguments)]
fn bisect(
    ctx: &Context,
    nested: &[super::unit::NestedState],
    fetched: &mut Option<crate::remote::Fetched>,
    base: ObjectId,
    stack: &[Candidate],
    config: &crate::config::Config,
    opts: &LandOptions,
    ui: &dyn Ui,
    run: &mut Landing,
    testing: &mut TestingGuard,
) -> Result<Bisected> {
    let mut reports = Vec::new();
    // The target is at the top of prefix `lo` (landed); prefix `hi` is known red.
    let (mut lo, mut hi) = (0, stack.len());
    let mut try_len = stack.len();
    let mut red: Option<Verdict> = None;
    loop {
        let from = if lo == 0 { base } else { stack[lo - 1].commit };
        let top = &stack[try_len - 1];
        let label = batch_label(&stack[lo..try_len]);
        let commands = require_commands(ctx, top.commands.clone())?;
        let verdict = gate_tree(
            ctx,
            &label,
            from,
            top.commit,
            &commands,
            config,
            opts,
            ui,
            &mut run.gate_runs,
            nested,
        )?;
        if verdict.outcome.green {
            match publish(ctx, fetched, from, &stack[lo..try_len], &verdict, config)? {
                Published::Moved => {}
                Published::Raced => {
                    ui.note(&format!(
                        "{} moved while {label} was gated; stacking again on the new {}",
                        ctx.target(),
                        ctx.target()
                    ));
                    return Ok(Bisected {
                        reports,
                        undecided_from: lo,
                        end: End::Raced,
                    });
                }
                Published::Refused(reason) => {
                    testing.disarm();
                    for c in &stack[lo..] {
                        reports.push(LaneReport {
                            lane: c.lane.clone(),
                            outcome: Outcome::Refused {
                                reason: reason.clone(),
                            },
                        });
                    }
                    return Ok(Bisected {
                        reports,
                        undecided_from: stack.len(),
                        end: End::Stop,
                    });
                }
            }
            for c in &stack[lo..try_len] {
                testing.disarm_lane(&c.lane);
                reports.push(LaneReport {
                    lane: c.lane.clone(),
                    outcome: Outcome::Landed {
                        candidate: c.commit.to_string(),
                        base: c.on.to_string(),
                        gate_ms: verdict.outcome.duration_ms,
                        log: verdict.outcome.log.clone(),
                        cached: verdict.cached,
                        landed_with: (c.commit != top.commit).then(|| top.commit.to_string()),
                    },
                });
            }
            lo = try_len;
        } else {
            hi = try_len;
            red = Some(verdict);
        }
        if lo == stack.len() {
            return Ok(Bisected {
                reports,
                undecided_from: lo,
                end: End::Done,
            });
        }
        if hi - lo == 1 {
            break;
        }
        try_len = lo + (hi - lo) / 2;
    }
    // Prefix `lo` is green and prefix `hi = lo + 1` is red: lane `hi` breaks the gate.
    let culprit = &stack[lo];
    let Some(verdict) = red else {
        // Unreachable: the range narrows only after a red gate.
        return Ok(Bisected {
            reports,
            undecided_from: lo,
            end: End::Done,
        });
    };
    let from = if lo == 0 { base } else { stack[lo - 1].commit };
    let outcome = record_red(ctx, testing, &culprit.lane, &verdict, from, culprit.commit)?;
    reports.push(LaneReport {
        lane: culprit.lane.clone(),
        outcome,
    });
    Ok(Bisected {
        reports,
        undecided_from: lo + 1,
        end: End::Done,
    })
}

fn batch_label(lanes: &[Candidate]) -> String {
    match lanes {
        [one] => one.lane.clone(),
        [first, .., last] => format!("{} lanes ({} .. {})", lanes.len(), first.lane, last.lane),
        [] => String::new(),
    }
}
