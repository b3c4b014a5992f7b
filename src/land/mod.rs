//! The landing engine: one lane at a time, each on the target as it is after the lanes
//! before it, through the gate.
//!
//! Invariant (DESIGN.md, 1): the target ref moves only by compare-and-swap, only from the
//! commit the candidate was built on to the candidate, and only after the gate (read from
//! that old target commit, never from the lane or a working directory) passed on the
//! candidate's exact tree. The receipt is written before the move, so every move has one.
//! Killed at any instant, the target is at its old commit or at a gated one; lanes' own
//! branches are never rewritten; running `fleet land` again converges.

use std::path::PathBuf;

use serde::Serialize;

use crate::config::{Config, Strategy};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::gate::policy::{
    block_reasons, commands_for, config_at, gate_commands, require_commands,
};
use crate::gate::{self, GateOutcome, Receipt};

mod batch;
mod unit;
use crate::git::{self, ChangedPath, Merged, ObjectId, Repo};
use crate::lanes::{self, GateRecord, LaneState};
use crate::remote;

/// How often a lane is rebuilt on a target that moved during its gate run.
/// Each lost race means another lander moved the target (progress for the queue): the
/// bound only stops a lander that keeps losing to faster ones.
const MAX_ATTEMPTS: usize = 20;
const JOURNAL: &str = "land-journal";

#[derive(Clone, Debug, Default)]
pub struct LandOptions {
    pub lanes: Vec<String>,
    pub all: bool,
    pub include_running: bool,
    pub yes: bool,
    pub dry_run: bool,
    pub allow_protected: bool,
    /// Stack the lanes into one candidate, gate it once, bisect on red.
    pub batch: bool,
    /// At most this many lanes per batch.
    pub max: Option<usize>,
    /// Run the gate even when the cache knows the tree's result.
    pub no_cache: bool,
}

#[derive(Debug, Serialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Outcome {
    Landed {
        candidate: String,
        base: String,
        gate_ms: u64,
        log: PathBuf,
        /// The gate result came from the cache (an identical tree passed before).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        cached: bool,
        /// Landed in a batch whose top (the commit the target moved to) is this.
        #[serde(skip_serializing_if = "Option::is_none")]
        landed_with: Option<String>,
    },
    AlreadyLanded,
    Failed {
        log: PathBuf,
        exit_code: i32,
        command: String,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        cached: bool,
    },
    Conflicted {
        files: Vec<String>,
    },
    Blocked {
        reasons: Vec<String>,
    },
    Refused {
        reason: String,
    },
    /// Landing stopped here; the lanes before it are reported as they went.
    Error {
        message: String,
        help: Option<String>,
        exit_code: u8,
    },
    WouldLand {
        base: String,
        candidate_tree: String,
        files: usize,
        commands: Vec<String>,
    },
}

#[derive(Debug, Serialize)]
pub struct LaneReport {
    pub lane: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

impl LaneReport {
    pub fn ok(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Landed { .. } | Outcome::AlreadyLanded | Outcome::WouldLand { .. }
        )
    }

    fn error(lane: String, e: &Error) -> LaneReport {
        LaneReport {
            lane,
            outcome: Outcome::Error {
                message: e.message.clone(),
                help: e.help.clone(),
                exit_code: e.kind.exit_code(),
            },
        }
    }
}

/// What one `fleet land` did.
#[derive(Debug, Default, Serialize)]
pub struct Landing {
    pub lanes: Vec<LaneReport>,
    /// Gate runs started (results taken from the cache are not runs).
    pub gate_runs: usize,
}

/// What the engine tells the person watching, and asks them.
pub trait Ui {
    fn note(&self, message: &str);
    fn progress(&self, lane: &str, command: &str, elapsed: std::time::Duration);
    /// Show what would land and ask; `false` declines.
    fn confirm(&self, lane: &str, summary: &str) -> bool;
}

pub fn land(ctx: &Context, opts: &LandOptions, ui: &dyn Ui) -> Result<Landing> {
    let _lock = ctx
        .repo
        .lock("land", std::time::Duration::from_secs(24 * 3600))?;
    recover(ctx)?;
    refresh(ctx)?;
    let lanes = select_lanes(ctx, opts)?;
    let mut run = Landing::default();
    if opts.batch {
        batch::land(ctx, lanes, opts, ui, &mut run)?;
    } else {
        land_each(ctx, lanes, opts, ui, &mut run)?;
    }
    Ok(run)
}

/// Finish or clean up what an interrupted landing left, holding the land lock: broken
/// gate worktree records, a half-done move of the shared checkout's files, a unit
/// landing stopped between its moves, processes left in the gate worktree.
fn recover(ctx: &Context) -> Result<()> {
    drop_broken_gate_worktrees(ctx);
    finish_interrupted_checkout_move(ctx)?;
    unit::finish_interrupted(ctx)?;
    let killed = gate::kill_leftovers(&ctx.repo);
    if killed > 0 {
        crate::ui::warn(&format!(
            "killed {killed} process(es) left in the gate worktree by an earlier, interrupted run"
        ));
    }
    Ok(())
}

/// Registrations of gate worktrees a killed run left half written break git, in the
/// outer repository and in nested ones (whose gate worktrees live in the outer gate).
fn drop_broken_gate_worktrees(ctx: &Context) {
    let fleet_folder = gate::fleet_dir(&ctx.repo);
    let tell = |removed: Vec<PathBuf>| {
        for admin in removed {
            crate::ui::note(&format!(
                "removed the half-created gate worktree record {}",
                admin.display()
            ));
        }
    };
    tell(gate::drop_broken_gate_worktrees(&ctx.repo, &fleet_folder));
    for n in ctx.nested_repos() {
        if let Ok(repo) = Repo::open(&ctx.shared.join(&n.rel)) {
            tell(gate::drop_broken_gate_worktrees(&repo, &fleet_folder));
        }
    }
}

/// With the queue on a remote: fetch it (its target, lanes and receipts; its receipts
/// are merged into the local ones). What the remote held is returned.
pub(crate) fn refresh(ctx: &Context) -> Result<Option<remote::Fetched>> {
    match &ctx.remote {
        Some(name) => Ok(Some(remote::fetch(ctx, name)?)),
        None => Ok(None),
    }
}

fn land_each(
    ctx: &Context,
    lanes: Vec<String>,
    opts: &LandOptions,
    ui: &dyn Ui,
    run: &mut Landing,
) -> Result<()> {
    for lane in lanes {
        match land_one(ctx, &lane, opts, ui, &mut run.gate_runs) {
            Ok(outcome) => run.lanes.push(LaneReport { lane, outcome }),
            // Say what already landed before giving up on the rest.
            Err(e) if !run.lanes.is_empty() => {
                run.lanes.push(LaneReport::error(lane, &e));
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Undo a landed lane: a commit reversing what it landed, built on the current target,
/// tracked as the lane `revert/<lane>` and landed like any lane (same gate, same
/// compare-and-swap, its own receipt).
pub fn revert(ctx: &Context, given: &str, opts: &LandOptions, ui: &dyn Ui) -> Result<LaneReport> {
    let repo = &ctx.repo;
    let _lock = ctx
        .repo
        .lock("land", std::time::Duration::from_secs(24 * 3600))?;
    recover(ctx)?;
    let (registry, _) = lanes::load(ctx)?;
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
    let landed_as = record
        .landed_as
        .as_deref()
        .and_then(|id| ObjectId::from_hex(id.as_bytes()).ok())
        .ok_or_else(|| {
            Error::refused(format!(
                "lane `{lane}` was not landed by fleet, so there is nothing recorded to revert"
            ))
            .with_help("revert its commits by hand on a branch and land that branch")
        })?;
    let receipt = gate::read_receipt(repo, landed_as)?.ok_or_else(|| {
        Error::refused(format!(
            "no receipt for {landed_as}: cannot tell what {lane} landed"
        ))
    })?;
    let base = ObjectId::from_hex(receipt.base.as_bytes())
        .map_err(|e| Error::env(format!("bad receipt: {e}")))?;
    let revert_branch = format!("revert/{lane}");
    let mut confirmed = false;
    refresh(ctx)?;
    if repo.branch_tip(&revert_branch)?.is_none() {
        let target = ctx.queue_target_tip()?;
        let tree = match repo.merge_trees(
            repo.tree_of(landed_as)?,
            repo.tree_of(target)?,
            repo.tree_of(base)?,
            true,
        )? {
            Merged::Clean(tree) => tree,
            Merged::Conflicts(files) => {
                return Ok(LaneReport {
                    lane: revert_branch,
                    outcome: Outcome::Conflicted { files },
                });
            }
        };
        // Nothing is created before the person agreed (or for a dry run).
        let changed = repo.changed_paths(repo.tree_of(target)?, tree)?;
        if opts.dry_run {
            return Ok(LaneReport {
                lane: revert_branch,
                outcome: Outcome::WouldLand {
                    base: target.to_string(),
                    candidate_tree: tree.to_string(),
                    files: changed.len(),
                    commands: config_at(repo, target, ctx.target())?.gate.commands,
                },
            });
        }
        if !opts.yes && !ui.confirm(&revert_branch, &summary(repo, &changed)?) {
            return Ok(LaneReport {
                lane: revert_branch,
                outcome: Outcome::Refused {
                    reason: "declined".into(),
                },
            });
        }
        let message = format!(
            "Revert lane {lane}\n\nThis reverts what {lane} landed ({}..{}).\n",
            receipt.base, receipt.candidate
        );
        let commit = repo.commit_tree(&message, tree, &[target])?;
        repo.create_branch(&revert_branch, commit, &format!("revert {lane}"))?;
        confirmed = true;
    }
    if lanes::load(ctx)?
        .0
        .get(&revert_branch)
        .is_none_or(|l| l.state == LaneState::Landed)
    {
        if let Some(remote) = &ctx.remote {
            remote::publish_branch(ctx, remote, &revert_branch)?;
        }
        lanes::track(ctx, std::slice::from_ref(&revert_branch), true)?;
    }
    let opts = LandOptions {
        lanes: Vec::new(),
        all: false,
        yes: opts.yes || confirmed,
        ..opts.clone()
    };
    let outcome = land_one(ctx, &revert_branch, &opts, ui, &mut 0)?;
    Ok(LaneReport {
        lane: revert_branch,
        outcome,
    })
}

fn select_lanes(ctx: &Context, opts: &LandOptions) -> Result<Vec<String>> {
    let (registry, _) = lanes::load(ctx)?;
    let prefix = ctx.config.lanes.prefix.as_str();
    if opts.all {
        if !opts.lanes.is_empty() {
            return Err(Error::usage("give lanes or --all, not both"));
        }
        let target = ctx.queue_target_tip()?;
        let mut selected = Vec::new();
        for l in &registry.lanes {
            let take = match l.state {
                LaneState::Ready | LaneState::Testing => true,
                LaneState::Running => opts.include_running,
                LaneState::Landed => match ctx.lane_tip(&l.branch)? {
                    Some(tip) => crate::landed::landing_undone(&ctx.repo, l, tip, target)?,
                    None => false,
                },
                _ => false,
            };
            if take {
                selected.push(l.branch.clone());
            }
        }
        return Ok(selected);
    }
    if opts.lanes.is_empty() {
        return Err(Error::usage("which lanes? name them, or pass --all")
            .with_help("`fleet status` lists the lanes"));
    }
    let mut out = Vec::new();
    for given in &opts.lanes {
        let lane = lanes::lane_name(&registry, prefix, given).ok_or_else(|| {
            Error::usage(format!("`{given}` is not a lane"))
                .with_help(format!("track it first: `fleet track {given}`"))
        })?;
        if !out.contains(&lane) {
            out.push(lane);
        }
    }
    Ok(out)
}

/// A lane's change built in memory on a base, checked, waiting for the gate.
pub(crate) struct Candidate {
    pub lane: String,
    /// The lane branch's tip it was built from.
    pub tip: ObjectId,
    /// What it was built on: the target, or the lane before it in a batch.
    pub on: ObjectId,
    pub commit: ObjectId,
    pub tree: ObjectId,
    /// The paths it changes relative to `on`.
    pub changed: Vec<ChangedPath>,
    /// Its gate: the target's commands, plus those its own fleet.toml adds.
    pub commands: Vec<String>,
}

pub(crate) enum Prepared {
    Ready(Candidate),
    /// Adds nothing on top of what it would be built on.
    Empty,
    /// Conflicts with the lanes stacked before it in a batch (not with the target):
    /// nothing recorded; it is tried again once they are decided.
    Deferred,
    /// Decided without a gate (gone, landed, conflicted, blocked); already recorded.
    Done(Outcome),
}

/// Build `lane` on `on` (the target `target`, or the lanes before it in a batch) and
/// check it, recording in the registry a lane that landed, conflicts or is blocked.
/// `more`: the lane has parts in nested repositories still to land, so an outer part
/// already landed is `Empty` rather than the whole lane landed.
pub(crate) fn prepare(
    ctx: &Context,
    lane: &str,
    target: ObjectId,
    on: ObjectId,
    config: &Config,
    opts: &LandOptions,
    more: bool,
) -> Result<Prepared> {
    let repo = &ctx.repo;
    let Some(tip) = ctx.lane_tip(lane)? else {
        let reason = match &ctx.remote {
            Some(remote) if repo.branch_tip(lane)?.is_some() => format!(
                "branch {lane} is not on {remote}: publish it with `git push {remote} {lane}` or `fleet ready --remote {remote} {lane}`"
            ),
            Some(remote) => format!("branch {lane} is not on {remote} (any more)"),
            None => format!("branch {lane} does not exist any more"),
        };
        return Ok(Prepared::Done(Outcome::Refused { reason }));
    };
    let (registry, _) = lanes::load(ctx)?;
    let Some(record) = registry.get(lane).cloned() else {
        return Ok(Prepared::Done(Outcome::Refused {
            reason: "not a lane any more".into(),
        }));
    };
    let ahead = repo.count_exclusive(tip, target)?;
    // Decided from the refs, never from the registry: a landed lane with new commits
    // has something to land again.
    if crate::landed::has_landed(repo, &record, tip, target, ahead)? {
        if more {
            return Ok(Prepared::Empty);
        }
        mark(ctx, &[lane], LaneState::Landed, Vec::new(), None, &[])?;
        return Ok(Prepared::Done(Outcome::AlreadyLanded));
    }
    let commit = match build_candidate(repo, config.lanes.strategy, on, tip, lane, ctx.target())? {
        Merged::Clean(commit) => commit,
        Merged::Conflicts(_) if on != target => return Ok(Prepared::Deferred),
        Merged::Conflicts(files) => {
            mark(
                ctx,
                &[lane],
                LaneState::Conflicted,
                files.clone(),
                None,
                &[],
            )?;
            return Ok(Prepared::Done(Outcome::Conflicted { files }));
        }
    };
    let on_tree = repo.tree_of(on)?;
    let tree = repo.tree_of(commit)?;
    if tree == on_tree {
        return Ok(Prepared::Empty);
    }
    let changed = repo.changed_paths(on_tree, tree)?;
    let mut reasons = block_reasons(repo, config, &changed, opts.allow_protected)?;
    let commands = match gate_commands(repo, config, commit)? {
        Ok(commands) => commands,
        Err(reason) => {
            if reasons.is_empty() {
                reasons.push(reason);
            }
            Vec::new()
        }
    };
    if !reasons.is_empty() {
        mark(ctx, &[lane], LaneState::Blocked, reasons.clone(), None, &[])?;
        return Ok(Prepared::Done(Outcome::Blocked { reasons }));
    }
    Ok(Prepared::Ready(Candidate {
        lane: lane.to_string(),
        tip,
        on,
        commit,
        tree,
        changed,
        commands,
    }))
}

/// What the gate said about one tree, and whether it ran now or came from the cache.
pub(crate) struct Verdict {
    pub outcome: GateOutcome,
    pub cached: bool,
}

/// Gate `commit`'s exact tree, unless the cache already knows how that tree did under
/// these commands and environment. `runs` counts the gate runs actually started.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gate_tree(
    ctx: &Context,
    label: &str,
    base: ObjectId,
    commit: ObjectId,
    commands: &[String],
    config: &Config,
    opts: &LandOptions,
    ui: &dyn Ui,
    runs: &mut usize,
    nested: &[unit::NestedState],
) -> Result<Verdict> {
    let repo = &ctx.repo;
    let tree = repo.tree_of(commit)?;
    let env_names: Vec<String> = config.gate.env.iter().map(|n| n.as_str().into()).collect();
    let key = gate::cache::key(tree, &unit::cache_parts(nested)?, commands, &env_names);
    if !opts.no_cache
        && let Some(entry) = gate::cache::lookup(repo, &key)?
    {
        ui.note(&format!(
            "{label}: tree {} was gated before ({}); using that result (--no-cache runs it again)",
            tree.to_hex_with_len(12),
            if entry.green { "passed" } else { "failed" }
        ));
        return Ok(Verdict {
            outcome: entry.outcome(),
            cached: true,
        });
    }
    *runs += 1;
    let outcome = run_gate(ctx, label, base, commit, commands, config, ui, nested)?;
    if let Err(e) = gate::cache::store(repo, &key, tree, &outcome) {
        crate::ui::warn(&format!("the gate result was not cached: {}", e.message));
    }
    Ok(Verdict {
        outcome,
        cached: false,
    })
}

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
    ctx: &Context,
    fetched: &mut Option<remote::Fetched>,
    from: ObjectId,
    landed: &[Candidate],
    verdict: &Verdict,
    config: &Config,
) -> Result<Published> {
    let repo = &ctx.repo;
    let Some(top) = landed.last() else {
        return Ok(Published::Moved);
    };
    let record = gate_record(&verdict.outcome, from, top.commit);
    for c in landed {
        let batched = landed.len() > 1;
        gate::write_receipt(
            repo,
            &Receipt {
                lane: c.lane.clone(),
                lane_tip: c.tip.to_string(),
                base: c.on.to_string(),
                candidate: c.commit.to_string(),
                tested_tree: top.tree.to_string(),
                strategy: format!("{:?}", config.lanes.strategy).to_lowercase(),
                commands: verdict.outcome.results.clone(),
                duration_ms: verdict.outcome.duration_ms,
                log_digest: verdict.outcome.log_digest.clone(),
                at: lanes::now(),
                target_before: (c.on != from).then(|| from.to_string()),
                landed_with: (batched && c.commit != top.commit).then(|| top.commit.to_string()),
                cached: verdict.cached,
                unit: Vec::new(),
            },
        )?;
    }
    crate::failpoint::hit("land-before-cas")?;
    let names: Vec<&str> = landed.iter().map(|c| c.lane.as_str()).collect();
    let as_landed: Vec<(ObjectId, ObjectId)> = landed.iter().map(|c| (c.commit, c.tip)).collect();
    if let (Some(remote), Some(seen)) = (&ctx.remote, *fetched) {
        let registry = |ctx: &Context| {
            lanes::staged(ctx, &format!("{}: landed", names.join(" ")), |registry| {
                set_state(
                    registry,
                    &names,
                    LaneState::Landed,
                    &[],
                    Some(&record),
                    &as_landed,
                )
            })
        };
        return match remote::push_landing(ctx, remote, seen, from, top.commit, &registry)? {
            remote::Landed::Moved(now) => {
                *fetched = Some(now);
                follow_remote_landing(ctx, top.commit)?;
                Ok(Published::Moved)
            }
            remote::Landed::Raced => Ok(Published::Raced),
        };
    }
    // The user may have edited the shared checkout while the gate ran: look again.
    let changed = repo.changed_paths(repo.tree_of(from)?, top.tree)?;
    if let Some(reason) = shared_checkout_conflict(ctx, &changed)? {
        return Ok(Published::Refused(reason));
    }
    let moves_checkout = shared_has_target(ctx)?;
    write_journal(ctx, from, top.commit)?;
    let label = landed
        .iter()
        .map(|c| c.lane.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if !move_target(ctx, from, top.commit, &label)? {
        remove_journal(ctx);
        return Ok(Published::Raced);
    }
    crate::failpoint::hit("land-after-cas")?;
    mark(
        ctx,
        &names,
        LaneState::Landed,
        Vec::new(),
        Some(record),
        &as_landed,
    )?;
    if moves_checkout {
        crate::checkout::follow(&ctx.shared, from, top.commit, &gate::no_hooks_dir(repo)?)?;
    }
    remove_journal(ctx);
    Ok(Published::Moved)
}

pub(crate) fn land_one(
    ctx: &Context,
    lane: &str,
    opts: &LandOptions,
    ui: &dyn Ui,
    runs: &mut usize,
) -> Result<Outcome> {
    let repo = &ctx.repo;
    let target = ctx.target();
    let mut confirmed = opts.yes;
    for _ in 0..MAX_ATTEMPTS {
        let mut fetched = refresh(ctx)?;
        let base = ctx.queue_target_tip()?;
        let config = config_at(repo, base, target)?;
        let nested = match unit::states(ctx, Some(lane), &config, opts)? {
            Ok(nested) => nested,
            Err(outcome) => return Ok(outcome),
        };
        let spans = nested.iter().any(|n| n.part.is_some());
        let prepared = prepare(ctx, lane, base, base, &config, opts, spans)?;
        if spans {
            let outer = match prepared {
                Prepared::Ready(c) => Some(c),
                // (Deferred only happens on a batch's stack, never on the target.)
                Prepared::Empty | Prepared::Deferred => None,
                Prepared::Done(outcome) => return Ok(outcome),
            };
            match unit::land(ctx, lane, base, &config, outer, &nested, opts, ui, runs)? {
                Some(outcome) => return Ok(outcome),
                None => continue,
            }
        }
        let c = match prepared {
            Prepared::Ready(c) => c,
            Prepared::Empty | Prepared::Deferred => {
                mark(ctx, &[lane], LaneState::Landed, Vec::new(), None, &[])?;
                return Ok(Outcome::AlreadyLanded);
            }
            Prepared::Done(outcome) => return Ok(outcome),
        };
        let commands = require_commands(ctx, c.commands.clone())?;
        if opts.dry_run {
            if let Some(reason) = shared_checkout_conflict(ctx, &c.changed)? {
                return Ok(Outcome::Refused { reason });
            }
            return Ok(Outcome::WouldLand {
                base: base.to_string(),
                candidate_tree: c.tree.to_string(),
                files: c.changed.len(),
                commands,
            });
        }
        if !confirmed {
            if !ui.confirm(lane, &summary(repo, &c.changed)?) {
                return Ok(Outcome::Refused {
                    reason: "declined".into(),
                });
            }
            confirmed = true;
        }
        // An error from here on (a locked ref, a git failure) must not leave the lane
        // looking like it is being tested: it goes back to ready.
        let mut testing = TestingGuard::mark(ctx, vec![lane.to_string()])?;
        let verdict = gate_tree(
            ctx, lane, base, c.commit, &commands, &config, opts, ui, runs, &nested,
        )?;
        if !verdict.outcome.green {
            return record_red(ctx, &mut testing, lane, &verdict, base, c.commit);
        }
        let record = gate_record(&verdict.outcome, base, c.commit);
        match publish(
            ctx,
            &mut fetched,
            base,
            std::slice::from_ref(&c),
            &verdict,
            &config,
        )? {
            Published::Moved => {
                testing.disarm();
                return Ok(Outcome::Landed {
                    candidate: c.commit.to_string(),
                    base: base.to_string(),
                    gate_ms: verdict.outcome.duration_ms,
                    log: verdict.outcome.log,
                    cached: verdict.cached,
                    landed_with: None,
                });
            }
            Published::Raced => ui.note(&format!(
                "{target} moved while {lane} was gated; rebuilding on the new {target}"
            )),
            Published::Refused(reason) => {
                return put_back(ctx, &mut testing, lane, record, reason);
            }
        }
    }
    Ok(Outcome::Refused {
        reason: format!(
            "{target} kept moving during the gate ({MAX_ATTEMPTS} attempts); try again"
        ),
    })
}

/// A red gate decides the lane: `failed` in the registry (with the gate's record) and in
/// the report.
pub(crate) fn record_red(
    ctx: &Context,
    testing: &mut TestingGuard,
    lane: &str,
    verdict: &Verdict,
    base: ObjectId,
    candidate: ObjectId,
) -> Result<Outcome> {
    testing.disarm_lane(lane);
    let record = gate_record(&verdict.outcome, base, candidate);
    mark(
        ctx,
        &[lane],
        LaneState::Failed,
        Vec::new(),
        Some(record),
        &[],
    )?;
    Ok(failed(verdict))
}

/// Green, but something stopped the move: the lane goes back to `ready` (its gate
/// result kept) with the reason.
pub(crate) fn put_back(
    ctx: &Context,
    testing: &mut TestingGuard,
    lane: &str,
    record: GateRecord,
    reason: String,
) -> Result<Outcome> {
    testing.disarm_lane(lane);
    mark(
        ctx,
        &[lane],
        LaneState::Ready,
        Vec::new(),
        Some(record),
        &[],
    )?;
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

/// The commit that would land: the lane's work on top of `base`, built in memory.
pub(crate) fn build_candidate(
    repo: &Repo,
    strategy: Strategy,
    base: ObjectId,
    tip: ObjectId,
    lane: &str,
    target: &str,
) -> Result<Merged> {
    match strategy {
        Strategy::Rebase => rebase(repo, base, tip),
        Strategy::Merge => Ok(match merge_or_unrelated(repo, base, tip)? {
            Merged::Clean(tree) => Merged::Clean(repo.commit_tree(
                &format!("Merge lane {lane} into {target}\n"),
                tree,
                &[base, tip],
            )?),
            conflicts => conflicts,
        }),
        Strategy::Squash => Ok(match merge_or_unrelated(repo, base, tip)? {
            Merged::Clean(tree) => {
                let author = repo.commit_info(tip)?.author;
                let message = squash_message(repo, base, tip, lane)?;
                Merged::Clean(repo.commit_tree_as_author(&author, &message, tree, &[base])?)
            }
            conflicts => conflicts,
        }),
    }
}

/// Replay the lane's own commits (merges skipped, like `git rebase`) onto `base`.
/// Unrelated histories (no merge base) cannot be merged or squashed: a conflict.
fn rebase(repo: &Repo, base: ObjectId, tip: ObjectId) -> Result<Merged> {
    let mut head = base;
    for id in repo.commits_between(base, tip)? {
        let commit = repo.commit_info(id)?;
        // A root commit (an orphan lane) applies against the empty tree; merges are
        // skipped, as `git rebase` does.
        let parent_tree = match commit.parents[..] {
            [] => repo.empty_tree(),
            [parent] => repo.tree_of(parent)?,
            _ => continue,
        };
        let merged = repo.merge_trees(parent_tree, repo.tree_of(head)?, commit.tree, true)?;
        let tree = match merged {
            Merged::Clean(tree) => tree,
            conflicts => return Ok(conflicts),
        };
        if tree == repo.tree_of(head)? {
            continue;
        }
        head = repo.commit_tree_as_author(&commit.author, &commit.message, tree, &[head])?;
    }
    Ok(Merged::Clean(head))
}

/// Merge `tip` into `base`; histories with no common ancestor are reported as a
/// conflict rather than an error.
fn merge_or_unrelated(repo: &Repo, base: ObjectId, tip: ObjectId) -> Result<Merged> {
    if repo.merge_base(base, tip)?.is_none() {
        return Ok(Merged::Conflicts(vec![
            "(no common history with the target)".into(),
        ]));
    }
    repo.merge_commits(base, tip, true)
}

fn squash_message(repo: &Repo, base: ObjectId, tip: ObjectId, lane: &str) -> Result<String> {
    let mut message = format!("Land lane {lane}\n\n");
    let tip_author = repo.commit_info(tip)?.author;
    let mut co_authors: Vec<String> = Vec::new();
    for id in repo.commits_between(base, tip)? {
        let info = repo.commit_info(id)?;
        let subject = info.message.lines().next().unwrap_or("").to_string();
        message.push_str(&format!("* {subject}\n"));
        let who = format!("{} <{}>", info.author.name, info.author.email);
        if info.author.email != tip_author.email && !co_authors.contains(&who) {
            co_authors.push(who);
        }
    }
    if !co_authors.is_empty() {
        message.push('\n');
        for who in co_authors {
            message.push_str(&format!("Co-authored-by: {who}\n"));
        }
    }
    Ok(message)
}

#[allow(clippy::too_many_arguments)]
fn run_gate(
    ctx: &Context,
    lane: &str,
    base: ObjectId,
    candidate: ObjectId,
    commands: &[String],
    config: &Config,
    ui: &dyn Ui,
    nested: &[unit::NestedState],
) -> Result<GateOutcome> {
    let repo = &ctx.repo;
    let worktree = gate::prepare_worktree(repo, candidate)?;
    unit::materialise(&worktree, nested)?;
    let env = [
        ("FLEET_LANE", lane.to_string()),
        ("FLEET_BASE", base.to_string()),
        ("FLEET_CANDIDATE", candidate.to_string()),
    ];
    gate::run(
        repo,
        &worktree,
        commands,
        config.gate.timeout.0,
        &env,
        lane,
        |command, elapsed| ui.progress(lane, command, elapsed),
    )
}

pub(crate) fn gate_record(
    outcome: &GateOutcome,
    base: ObjectId,
    candidate: ObjectId,
) -> GateRecord {
    GateRecord {
        green: outcome.green,
        duration_ms: outcome.duration_ms,
        log: outcome.log.display().to_string(),
        at: lanes::now(),
        base: base.to_string(),
        candidate: candidate.to_string(),
    }
}

/// Marks lanes `testing`, and puts them back to `ready` unless the landing reached a
/// verdict (disarmed) — an error must not leave a lane looking like it is being tested.
pub(crate) struct TestingGuard<'a> {
    ctx: &'a Context,
    lanes: Vec<String>,
}

impl<'a> TestingGuard<'a> {
    pub(crate) fn mark(ctx: &'a Context, lanes: Vec<String>) -> Result<TestingGuard<'a>> {
        let names: Vec<&str> = lanes.iter().map(String::as_str).collect();
        mark(ctx, &names, LaneState::Testing, Vec::new(), None, &[])?;
        Ok(TestingGuard { ctx, lanes })
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
            let _ = mark(self.ctx, &names, LaneState::Ready, Vec::new(), None, &[]);
        }
    }
}

/// Record lanes' new state (and gate result) in the registry in one update; `landed`
/// pairs (candidate, lane tip) with `lanes` by position.
pub(crate) fn mark(
    ctx: &Context,
    lanes: &[&str],
    state: LaneState,
    detail: Vec<String>,
    gate: Option<GateRecord>,
    landed: &[(ObjectId, ObjectId)],
) -> Result<()> {
    let what = format!("{}: {}", lanes.join(" "), state.as_str());
    lanes::update(ctx, &what, |registry| {
        set_state(registry, lanes, state, &detail, gate.as_ref(), landed);
        Ok(())
    })
}

fn set_state(
    registry: &mut lanes::Registry,
    lanes: &[&str],
    state: LaneState,
    detail: &[String],
    gate: Option<&GateRecord>,
    landed: &[(ObjectId, ObjectId)],
) {
    for (i, lane) in lanes.iter().enumerate() {
        if let Some(record) = registry.get_mut(lane) {
            // Marked ready again while its gate ran (new commits): it landed as it was
            // then, and the new commits wait for their own landing.
            let readied = state == LaneState::Landed
                && landed.get(i).is_some()
                && record.state == LaneState::Ready;
            record.state = if readied { LaneState::Ready } else { state };
            record.detail = detail.to_vec();
            if let Some(gate) = gate {
                record.gate = Some(gate.clone());
            }
            if let Some((candidate, tip)) = landed.get(i) {
                record.landed_as = Some(candidate.to_string());
                record.landed_tip = Some(tip.to_string());
            }
        }
    }
}

/// After a remote landing: bring this repository's target (and the shared checkout's
/// files) along to `candidate` when that is a fast-forward and nothing of the user's is
/// in the way; otherwise say why it stays.
fn follow_remote_landing(ctx: &Context, candidate: ObjectId) -> Result<()> {
    let repo = &ctx.repo;
    let target = ctx.target();
    let Some(local) = repo.branch_tip(target)? else {
        return Ok(());
    };
    if local == candidate {
        return Ok(());
    }
    if repo.merge_base(local, candidate)? != Some(local) {
        crate::ui::warn(&format!(
            "the local {target} has commits that are not on the remote; it stays where it is"
        ));
        return Ok(());
    }
    let changed = repo.changed_paths(repo.tree_of(local)?, repo.tree_of(candidate)?)?;
    if let Some(reason) = shared_checkout_conflict(ctx, &changed)? {
        crate::ui::warn(&format!(
            "the local {target} stays behind the remote: {reason}"
        ));
        return Ok(());
    }
    let moves_checkout = shared_has_target(ctx)?;
    write_journal(ctx, local, candidate)?;
    if move_target(ctx, local, candidate, "follow the remote")? && moves_checkout {
        crate::checkout::follow(&ctx.shared, local, candidate, &gate::no_hooks_dir(repo)?)?;
    }
    remove_journal(ctx);
    Ok(())
}

/// Is the target checked out in the shared checkout (so its files must follow)?
fn shared_has_target(ctx: &Context) -> Result<bool> {
    checked_out(&ctx.repo, &ctx.config.lanes.target.full_ref())
}

/// Does `repo`'s shared checkout have the branch `target` (a full ref) checked out?
pub(crate) fn checked_out(repo: &Repo, target: &str) -> Result<bool> {
    Ok(repo
        .head_branch()?
        .map(|b| format!("refs/heads/{b}"))
        .as_deref()
        == Some(target))
}

/// Something of the user's in the shared checkout at a path the lane changes would be
/// overwritten when its files follow the target: refuse before anything moves.
fn shared_checkout_conflict(ctx: &Context, changed: &[ChangedPath]) -> Result<Option<String>> {
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
    Ok((!hits.is_empty()).then(|| {
        format!(
            "the shared checkout has uncommitted, untracked or ignored files where this lane changes: {}; commit, move or delete them first",
            hits.join(", ")
        )
    }))
}

/// A diff stat of what would land.
pub(crate) fn summary(repo: &Repo, changed: &[ChangedPath]) -> Result<String> {
    let mut out = String::new();
    for change in changed {
        let ChangedPath { path, old, new, .. } = change;
        if change.is_gitlink() {
            out.push_str(&format!(" S {path} (submodule)\n"));
            continue;
        }
        let text = |id: &Option<ObjectId>| -> Result<String> {
            Ok(match id {
                Some(id) => String::from_utf8_lossy(&repo.blob(*id)?).into_owned(),
                None => String::new(),
            })
        };
        let (a, b) = (text(old)?, text(new)?);
        let diff = similar::TextDiff::from_lines(&a, &b);
        let (mut plus, mut minus) = (0, 0);
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => plus += 1,
                similar::ChangeTag::Delete => minus += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        let kind = match (old, new) {
            (None, _) => "A",
            (_, None) => "D",
            _ => "M",
        };
        out.push_str(&format!(" {kind} {path} (+{plus} -{minus})\n"));
        if changed.len() <= 20 && a.len() + b.len() < 64 * 1024 {
            out.push_str(&format!(
                "{}",
                diff.unified_diff().context_radius(2).header(path, path)
            ));
        }
    }
    Ok(out)
}

fn journal_path(ctx: &Context) -> PathBuf {
    gate::fleet_dir(&ctx.repo).join(JOURNAL)
}

fn write_journal(ctx: &Context, base: ObjectId, candidate: ObjectId) -> Result<()> {
    let path = journal_path(ctx);
    std::fs::write(&path, format!("{base} {candidate}\n"))
        .map_err(|e| Error::env(format!("cannot write {}: {e}", path.display())))
}

fn remove_journal(ctx: &Context) {
    let _ = std::fs::remove_file(journal_path(ctx));
}

/// A landing killed around its final steps left a journal (`base candidate`): clear the
/// lock files the killed git left (only when old and held open by nobody), finish
/// bringing the shared checkout's files to the target when the target did move, and
/// drop the journal. Idempotent.
fn finish_interrupted_checkout_move(ctx: &Context) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(journal_path(ctx)) else {
        return Ok(());
    };
    let settle = std::time::Duration::from_secs(2);
    let target_ref = ctx.config.lanes.target.full_ref();
    // Our own killed compare-and-swap may have left the target's lock: once it is old
    // enough that no live update could still hold it, it goes.
    let lock = ctx.repo.common_dir().join(format!("{target_ref}.lock"));
    let waited = std::time::Instant::now();
    while lock.exists() && waited.elapsed() < settle + std::time::Duration::from_secs(1) {
        if ctx.repo.clear_stale_ref_lock(&target_ref, settle) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if !lock.exists() && waited.elapsed() > std::time::Duration::from_millis(50) {
        crate::ui::note(&format!(
            "removed a stale {target_ref}.lock left by a killed landing"
        ));
    }
    ctx.repo.wait_out_packed_refs_lock();
    // git keeps an index lock open while it holds it: one nobody has open is stale.
    let index_lock = ctx.repo.git_dir().join("index.lock");
    if git::clear_stale_file(&index_lock, std::time::Duration::ZERO) {
        crate::ui::note(&format!(
            "removed a stale {} left by a killed landing",
            index_lock.display()
        ));
    }
    let mut ids = text
        .split_whitespace()
        .map(|id| ObjectId::from_hex(id.as_bytes()));
    if let (Some(Ok(base)), Some(Ok(candidate))) = (ids.next(), ids.next())
        && ctx.target_tip()? == candidate
        && shared_has_target(ctx)?
    {
        let kept = crate::checkout::repair(
            &ctx.repo,
            &ctx.shared,
            base,
            candidate,
            &gate::no_hooks_dir(&ctx.repo)?,
        )?;
        for path in kept {
            crate::ui::warn(&format!(
                "{path}: kept the shared checkout's own version (it was edited during an interrupted landing)"
            ));
        }
    }
    remove_journal(ctx);
    Ok(())
}
