//! `fleet report`: the day in one document. Per task, its runs (plan, outcome,
//! duration, the tokens and cost its agent reported) and its lane's fate (landed as
//! which commit, with that commit's receipt; or red, conflicted, parked), then totals.
//!
//! It keeps no log of its own: it joins what is already in git, the task refs (each
//! [`Task`]'s runs, through [`Store::list`]), the lane registry with each lane's state
//! derived afresh ([`crate::status::lanes`], so a lane merged by hand is landed too),
//! and the receipts on `refs/notes/fleet` ([`crate::gate::read_receipt`]). The same
//! answer on every clone that fetched those refs.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::config::Strategy;
use crate::context::Context;
use crate::error::Result;
use crate::git::ObjectId;
use crate::lanes::LaneState;
use crate::queue::Queue;
use crate::tasks::{Outcome, Run, Store, Task, TaskState};

/// The report: the tasks in queue order, and their totals.
#[derive(Debug, Serialize)]
pub struct DayReport {
    /// The lower end asked for (Unix seconds); `null`: every task in the queue.
    pub since: Option<i64>,
    pub tasks: Vec<TaskReport>,
    pub totals: Totals,
}

/// One task: what its runs did and what became of its lane.
#[derive(Debug, Serialize)]
pub struct TaskReport {
    pub name: String,
    pub state: TaskState,
    /// One word for where its work ended up: `landed`, `red` (the gate failed on its
    /// lane), `conflicted`, `reverted`, `blocked`, `refused`, `ready`, `testing`, or,
    /// when its lane has none of those to say, the task's own state (`parked`,
    /// `failed`, `queued`, `running`...).
    pub fate: String,
    /// Why it was parked, when not for its attempts (over its budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parked_why: Option<String>,
    pub runs: Vec<RunReport>,
    /// Its lane (the branch of its latest run, or of the lane it continues); `null`
    /// when no run made one or the lane is no longer tracked.
    pub lane: Option<LaneFate>,
    /// Summed over the runs shown; `null` when none of them reported any.
    pub tokens: Option<u64>,
    pub cost_usd: Option<f64>,
}

/// One attempt.
#[derive(Debug, Serialize)]
pub struct RunReport {
    pub id: String,
    pub attempt: u32,
    pub plan: Option<String>,
    /// `null` while it runs.
    pub outcome: Option<Outcome>,
    pub claimed: i64,
    pub started: Option<i64>,
    pub ended: Option<i64>,
    /// From its start (else its claim) to its end; `null` while it runs.
    pub duration_s: Option<i64>,
    pub branch: Option<String>,
    /// It did not use up an attempt (a usage limit, a stopped drainer).
    pub free: bool,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
    pub error: Option<String>,
}

/// What became of a task's lane.
#[derive(Debug, Serialize)]
pub struct LaneFate {
    pub branch: String,
    /// The state `fleet status` gives it now.
    pub state: LaneState,
    /// The target commit it landed as (`fleet land` records it).
    pub landed_as: Option<String>,
    /// That commit's receipt, when it has one `fleet verify` can read.
    pub receipt: Option<ReceiptSummary>,
    /// Files that conflict with the target now (as `fleet status` says).
    pub conflicts: Vec<String>,
    /// Blocked paths, the gate's failure: why the state is what it is.
    pub detail: Vec<String>,
}

/// The parts of a receipt a reader of the day wants; `git notes --ref fleet show ID`
/// has the rest.
#[derive(Debug, Serialize)]
pub struct ReceiptSummary {
    pub commit: String,
    pub green: bool,
    pub strategy: Strategy,
    pub tested_tree: String,
    pub moved_from: String,
    pub at: i64,
    pub gate_ms: u64,
    /// The gate did not run again: an identical tree passed before.
    pub cached: bool,
}

#[derive(Debug, Default, Serialize)]
pub struct Totals {
    pub tasks: usize,
    pub runs: usize,
    /// Tasks per fate word.
    pub fates: BTreeMap<String, usize>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub tokens: u64,
    pub cost_usd: f64,
    /// Agent time: the runs' durations summed.
    pub run_seconds: i64,
}

/// `--since`: an RFC 3339 time (`2026-12-01T08:00:00Z`) or a duration back from `now`
/// (`2h`, `1d`); the words are those of `fleet plans close --until`.
pub fn parse_since(text: &str, now: i64) -> std::result::Result<i64, String> {
    if let Ok(t) = text.parse::<jiff::Timestamp>() {
        // Nothing has happened since a time to come: an empty report would say "no task
        // ran" of a day that had runs (a date a year off, a zone mixed up).
        if t.as_second() > now {
            return Err(format!(
                "`{text}` is still to come (it is {} now): nothing can have happened since",
                crate::plans::show_time(now)
            ));
        }
        return Ok(t.as_second());
    }
    match crate::config::parse_duration(text) {
        Ok(d) => Ok(now - d.as_secs() as i64),
        Err(_) => Err(format!(
            "`{text}` is neither a time like 2026-12-01T08:00:00Z nor a duration like 2h"
        )),
    }
}

/// The report for `queue`: every task, or those with a run claimed or ended (or that
/// were made) at `since` or later, and of those only such runs.
pub fn report(ctx: &Context, queue: &Queue, since: Option<i64>) -> Result<DayReport> {
    let tasks = Store::new(ctx, queue).list()?;
    let (registry, _) = queue.load(ctx)?;
    let views: HashMap<String, crate::status::LaneView> = crate::status::lanes(ctx, queue)?
        .into_iter()
        .map(|v| (v.branch.clone(), v))
        .collect();
    let mut out = Vec::new();
    let mut totals = Totals::default();
    for task in &tasks {
        let recent =
            |r: &&Run| since.is_none_or(|s| r.claimed >= s || r.ended.is_some_and(|e| e >= s));
        let runs: Vec<RunReport> = task.runs.iter().filter(recent).map(run_report).collect();
        if runs.is_empty() && since.is_some_and(|s| task.created < s) {
            continue;
        }
        let lane = match lane_branch(task) {
            Some(branch) => match views.get(branch) {
                Some(view) => {
                    let landed_as = registry.get(branch).and_then(|l| l.landed_as);
                    Some(lane_fate(ctx, view, landed_as)?)
                }
                // Untracked after landing (`[drain] cleanup`): its receipt tells where.
                None => match queue.landing_of(ctx, branch)? {
                    Some(commit) => Some(untracked_fate(ctx, branch, commit)?),
                    None => None,
                },
            },
            None => None,
        };
        let tokens = sum(runs
            .iter()
            .map(|r| match (r.input_tokens, r.output_tokens) {
                (None, None) => None,
                (i, o) => Some(i.unwrap_or(0) + o.unwrap_or(0)),
            }));
        let cost_usd = sum(runs.iter().map(|r| r.cost_usd));
        let fate = fate(task.state, lane.as_ref().map(|l| l.state));
        totals.tasks += 1;
        totals.runs += runs.len();
        *totals.fates.entry(fate.clone()).or_default() += 1;
        for r in &runs {
            totals.input_tokens += r.input_tokens.unwrap_or(0);
            totals.output_tokens += r.output_tokens.unwrap_or(0);
            totals.cost_usd += r.cost_usd.unwrap_or(0.0);
            totals.run_seconds += r.duration_s.unwrap_or(0);
        }
        out.push(TaskReport {
            name: task.name.clone(),
            state: task.state,
            fate,
            parked_why: task.parked_why.clone(),
            runs,
            lane,
            tokens,
            cost_usd,
        });
    }
    totals.tokens = totals.input_tokens + totals.output_tokens;
    Ok(DayReport {
        since,
        tasks: out,
        totals,
    })
}

/// The sum of the values given, `None` when there were none.
fn sum<T: std::ops::Add<Output = T>>(values: impl Iterator<Item = Option<T>>) -> Option<T> {
    values.flatten().reduce(|a, b| a + b)
}

/// The lane a task's work is in: its latest run's branch, else the lane it continues.
fn lane_branch(task: &Task) -> Option<&str> {
    task.runs
        .iter()
        .rev()
        .find_map(|r| r.branch.as_deref())
        .or(task.continues.as_ref().map(|c| c.branch.as_str()))
}

/// The one word of [`TaskReport::fate`]: what the lane says when it has landed or been
/// stopped at the gate, else what the task says when it went wrong, else the lane's state.
fn fate(task: TaskState, lane: Option<LaneState>) -> String {
    match lane {
        Some(LaneState::Failed) => "red".into(),
        Some(
            s @ (LaneState::Landed
            | LaneState::Reverted
            | LaneState::Conflicted
            | LaneState::Blocked
            | LaneState::Refused),
        ) => s.as_str().into(),
        Some(s) if task == TaskState::Succeeded => s.as_str().into(),
        _ => task.as_str().into(),
    }
}

fn run_report(r: &Run) -> RunReport {
    let usage = r.usage.as_ref();
    RunReport {
        id: r.id.clone(),
        attempt: r.attempt,
        plan: r.plan.clone(),
        outcome: r.outcome,
        claimed: r.claimed,
        started: r.started,
        ended: r.ended,
        duration_s: r.ended.map(|e| (e - r.started.unwrap_or(r.claimed)).max(0)),
        branch: r.branch.clone(),
        free: r.free,
        input_tokens: usage.and_then(|u| u.input_tokens),
        output_tokens: usage.and_then(|u| u.output_tokens),
        cost_usd: usage.and_then(|u| u.cost_usd),
        error: r.error.clone(),
    }
}

fn lane_fate(
    ctx: &Context,
    view: &crate::status::LaneView,
    landed_as: Option<ObjectId>,
) -> Result<LaneFate> {
    // Only a lane landed now has a landing to show: a reverted one's receipt is still
    // there, named by `fleet verify`, but its work is out of the target.
    let landed_as = landed_as.filter(|_| view.state.finished());
    let receipt = match landed_as {
        Some(commit) => receipt_summary(ctx, commit)?,
        None => None,
    };
    Ok(LaneFate {
        branch: view.branch.clone(),
        state: view.state,
        landed_as: landed_as.map(|c| c.to_string()),
        receipt,
        conflicts: view.conflicts.clone(),
        detail: view.detail.clone(),
    })
}

/// A lane no longer tracked that landed as `commit` (its receipt names it).
fn untracked_fate(ctx: &Context, branch: &str, commit: ObjectId) -> Result<LaneFate> {
    Ok(LaneFate {
        branch: branch.to_string(),
        state: LaneState::Landed,
        landed_as: Some(commit.to_string()),
        receipt: receipt_summary(ctx, commit)?,
        conflicts: Vec::new(),
        detail: Vec::new(),
    })
}

fn receipt_summary(ctx: &Context, commit: ObjectId) -> Result<Option<ReceiptSummary>> {
    Ok(
        crate::gate::read_receipt(&ctx.repo, commit)?.map(|r| ReceiptSummary {
            commit: commit.to_string(),
            green: r.green(),
            strategy: r.strategy,
            tested_tree: r.tested_tree.to_string(),
            moved_from: r.moved_from().to_string(),
            at: r.at,
            gate_ms: r.duration_ms,
            cached: r.cached,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_a_time_or_a_duration_back_from_now() {
        assert_eq!(parse_since("2h", 10_000), Ok(10_000 - 7200));
        assert_eq!(parse_since("1d", 100_000), Ok(100_000 - 86_400));
        assert!(
            parse_since("2026-12-01T08:00:00Z", 0).is_err(),
            "a time to come"
        );
        assert_eq!(
            parse_since("2026-12-01T08:00:00Z", 4_102_444_800),
            Ok("2026-12-01T08:00:00Z"
                .parse::<jiff::Timestamp>()
                .unwrap()
                .as_second())
        );
        assert!(
            parse_since("yesterday-ish", 0)
                .unwrap_err()
                .contains("neither")
        );
    }

    #[test]
    fn the_fate_is_the_lane_s_once_it_landed_or_stopped_else_the_task_s() {
        assert_eq!(
            fate(TaskState::Succeeded, Some(LaneState::Landed)),
            "landed"
        );
        assert_eq!(fate(TaskState::Succeeded, Some(LaneState::Failed)), "red");
        assert_eq!(fate(TaskState::Succeeded, Some(LaneState::Ready)), "ready");
        assert_eq!(fate(TaskState::Parked, Some(LaneState::Running)), "parked");
        assert_eq!(fate(TaskState::Queued, None), "queued");
    }
}
