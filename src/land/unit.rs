//! Lanes that span nested repositories land as one unit.
//!
//! `fleet worktree new` gives an agent the same branch in the outer repository and in
//! every nested one, so a lane can change both. Its parts are built in each repository
//! on that repository's target (the branch its shared checkout has checked out), put
//! together in the gate worktree (each nested candidate at its nested path, nested
//! repositories without a part at their target), and gated once over the whole. Only
//! then do the targets move, each by compare-and-swap, nested ones first and the outer
//! one last. A journal of the moves is written before the first one; a landing killed
//! between moves is finished by the next `fleet land` (every move of the unit was gated
//! together, and each target is still where the unit found it), or, when a target moved
//! on meanwhile, reported plainly.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::candidate::{Candidate, build_candidate, rebase_loses, unwritable};
use super::publish::{checked_out, in_the_way, move_ref};
use super::record::{Mark, TestingGuard, gate_record, put_back, record_red};
use super::session::{Base, Lander, Verdict};
use super::summary::summary;
use super::{Outcome, Ui};
use crate::config::{Config, Strategy};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::gate::policy::{block_reasons, commands_for};
use crate::gate::{self, Receipt, UnitMove};
use crate::git::{ChangedPath, Merged, ObjectId, Repo};
use crate::lanes::LaneState;
use crate::queue::Queue;

/// A nested repository as a landing sees it: its target, and the lane's part in it.
pub(crate) struct NestedState {
    /// Relative to the outer shared checkout.
    pub rel: PathBuf,
    pub repo: Repo,
    pub target_ref: String,
    pub base: ObjectId,
    /// The lane's change built on `base`, when the lane has one here.
    pub part: Option<Candidate>,
}

impl NestedState {
    /// The commit the gate sees for this repository.
    pub fn gated_commit(&self) -> ObjectId {
        self.part.as_ref().map_or(self.base, |p| p.commit)
    }
}

/// Every nested repository with a target (parents first), and the parts of `lane` in
/// them (`lane: None`: targets only). A conflict or a blocked change in a part decides
/// the lane (recorded) and comes back as `Err`.
pub(crate) fn states(
    lander: &Lander,
    lane: Option<&str>,
    config: &Config,
) -> Result<std::result::Result<Vec<NestedState>, Outcome>> {
    let ctx = lander.ctx;
    let mut out = Vec::new();
    for n in ctx.nested_repos() {
        let rel_text = n.rel.to_string_lossy().into_owned();
        let Ok(repo) = Repo::open(&ctx.shared.join(&n.rel)) else {
            lander.ui.warn(&format!(
                "nested repository {rel_text} cannot be opened; the gate will not see it"
            ));
            continue;
        };
        // A nested checkout on a detached HEAD or an unborn branch has no target: a
        // lane with work there cannot land (its part would be dropped), others can.
        let target = repo.head_branch()?;
        let base = match &target {
            Some(target) => repo.branch_tip(target)?,
            None => None,
        };
        let (Some(target), Some(base)) = (target, base) else {
            if let Some(lane) = lane
                && repo.branch_tip(lane)?.is_some()
            {
                return Ok(Err(Outcome::Refused {
                    reason: format!(
                        "it has work in nested repository {rel_text}, whose shared checkout is not on a branch (detached HEAD or no commits), so there is no target to land it on; check out its branch there"
                    ),
                }));
            }
            continue;
        };
        let part = match lane {
            Some(lane) => match part(&repo, lane, &target, base, config)? {
                Ok(part) => part,
                Err(NoPart::Conflicts(files)) => {
                    let files: Vec<String> =
                        files.iter().map(|f| format!("{rel_text}/{f}")).collect();
                    Mark::lane(lane, LaneState::Conflicted)
                        .detail(files.clone())
                        .record(ctx, lander.queue)?;
                    return Ok(Err(Outcome::Conflicted { files }));
                }
                Err(NoPart::Refused(reason)) => {
                    let reason = format!("in nested repository {rel_text}: {reason}");
                    Mark::lane(lane, LaneState::Refused)
                        .detail(vec![reason.clone()])
                        .record(ctx, lander.queue)?;
                    return Ok(Err(Outcome::Refused { reason }));
                }
            },
            None => None,
        };
        if let (Some(lane), Some(p)) = (lane, &part) {
            let prefixed: Vec<ChangedPath> = p
                .changed
                .iter()
                .map(|c| ChangedPath {
                    path: format!("{rel_text}/{}", c.path),
                    ..c.clone()
                })
                .collect();
            let reasons = block_reasons(&repo, config, &prefixed, lander.opts.allow_protected)?;
            if !reasons.is_empty() {
                Mark::lane(lane, LaneState::Blocked)
                    .detail(reasons.clone())
                    .record(ctx, lander.queue)?;
                return Ok(Err(Outcome::Blocked { reasons }));
            }
        }
        out.push(NestedState {
            rel: n.rel.clone(),
            repo,
            target_ref: crate::refs::branch(&target),
            base,
            part,
        });
    }
    Ok(Ok(out))
}

/// Does `lane` have a part to land in any of these nested repositories?
pub(crate) fn spans(nested: &[NestedState], lane: &str) -> Result<bool> {
    for n in nested {
        if let Some(tip) = n.repo.branch_tip(lane)?
            && n.repo.count_exclusive(tip, n.base)? > 0
            && !n.repo.changes_already_in(tip, n.base)?
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Why a lane's work in a nested repository cannot be built there.
enum NoPart {
    /// Paths that conflict with that repository's target.
    Conflicts(Vec<String>),
    /// A reason of the lane's own (see [`unwritable`]).
    Refused(String),
}

/// The lane's part in one nested repository: `Ok(None)` when its branch is not there
/// or adds nothing the target lacks.
fn part(
    repo: &Repo,
    lane: &str,
    target: &str,
    base: ObjectId,
    config: &Config,
) -> Result<std::result::Result<Option<Candidate>, NoPart>> {
    let Some(tip) = repo.branch_tip(lane)? else {
        return Ok(Ok(None));
    };
    if repo.count_exclusive(tip, base)? == 0 || repo.changes_already_in(tip, base)? {
        return Ok(Ok(None));
    }
    if let Some(reason) = unwritable(repo, base, tip)? {
        return Ok(Err(NoPart::Refused(reason)));
    }
    let commit = match build_candidate(repo, config.lanes.strategy, base, tip, lane, target)? {
        Merged::Clean(commit) => commit,
        Merged::Conflicts(files) => return Ok(Err(NoPart::Conflicts(files))),
    };
    if let Some(reason) = rebase_loses(repo, config.lanes.strategy, base, tip, commit)? {
        return Ok(Err(NoPart::Refused(reason)));
    }
    let (base_tree, tree) = (repo.tree_of(base)?, repo.tree_of(commit)?);
    if tree == base_tree {
        return Ok(Ok(None));
    }
    Ok(Ok(Some(Candidate {
        lane: lane.to_string(),
        tip,
        on: base,
        commit,
        tree,
        changed: repo.changed_paths(base_tree, tree)?,
        // The unit's gate is the outer repository's.
        commands: Vec::new(),
    })))
}

/// Check out every nested repository inside the gate worktree at the commit the gate
/// must see, parents first. Nested checkouts an earlier gate run made for repositories
/// not in this run (gone, renamed, no target) are removed, so the gate never sees stale
/// files (the outer repository ignores them, so its clean keeps them).
pub(crate) fn materialise(gate_worktree: &Path, nested: &[NestedState]) -> Result<()> {
    let record = gate_worktree.with_file_name("gate-nested");
    let now: Vec<String> = nested
        .iter()
        .map(|n| n.rel.to_string_lossy().into_owned())
        .collect();
    if let Ok(before) = std::fs::read_to_string(&record) {
        for rel in before
            .lines()
            .filter(|r| !r.is_empty() && !now.iter().any(|n| n == r))
        {
            let _ = std::fs::remove_dir_all(gate_worktree.join(rel));
        }
    }
    crate::files::write_atomically(&record, now.join("\n").as_bytes(), None)?;
    for n in nested {
        gate::prepare_worktree_at(&n.repo, &gate_worktree.join(&n.rel), n.gated_commit())?;
    }
    Ok(())
}

/// What the gate's result depends on besides the outer tree: each nested repository's
/// path and tree.
pub(crate) fn cache_parts(nested: &[NestedState]) -> Result<Vec<(String, ObjectId)>> {
    nested
        .iter()
        .map(|n| {
            Ok((
                n.rel.to_string_lossy().into_owned(),
                n.repo.tree_of(n.gated_commit())?,
            ))
        })
        .collect()
}

/// One target move, with what it needs to happen.
struct Move<'a> {
    record: UnitMove,
    repo: &'a Repo,
    shared: PathBuf,
    base: ObjectId,
    candidate: ObjectId,
    changed: &'a [ChangedPath],
}

/// Land `lane` as a unit: `outer` is its outer part (`None` when it changes only
/// nested repositories). `Ok(None)`: a target moved under the gate; build again.
pub(crate) fn land(
    lander: &Lander,
    base: &Base,
    lane: &str,
    outer: Option<Candidate>,
) -> Result<Option<Outcome>> {
    let ctx = lander.ctx;
    if let Some(remote) = lander.queue.remote() {
        return Ok(Some(Outcome::Refused {
            reason: format!(
                "it spans nested repositories, which cannot land through a remote ({remote}) yet; land it without --remote"
            ),
        }));
    }
    let outer_commit = outer.as_ref().map_or(base.commit, |c| c.commit);
    let commands = commands_for(ctx, &base.config, outer_commit)?;
    let moves = moves(ctx, base, outer.as_ref());
    if lander.opts.dry_run {
        return would_land(ctx, base, outer_commit, &moves, commands).map(Some);
    }
    if !lander.opts.yes && !confirm(lander.ui, lane, &moves)? {
        return Ok(Some(Outcome::Refused {
            reason: "declined".into(),
        }));
    }
    let mut testing = TestingGuard::mark(lander, vec![lane.to_string()])?;
    let verdict = lander.gate_tree(base, lane, base.commit, outer_commit, &commands)?;
    if !verdict.outcome.green {
        return record_red(
            lander,
            &mut testing,
            lane,
            &verdict,
            base.commit,
            outer_commit,
        )
        .map(Some);
    }
    let record = gate_record(&verdict.outcome, base.commit, outer_commit);
    let unit: Vec<UnitMove> = moves.iter().map(|m| m.record.clone()).collect();
    write_receipts(lane, base.config.lanes.strategy, &moves, &unit, &verdict)?;
    // Nothing moves unless every target is still where the unit was built and no
    // shared checkout has something of the user's in the way.
    for m in &moves {
        if m.repo.ref_target(&m.record.target)? != Some(m.base) {
            lander.ui.note(&format!(
                "the target in {} moved while {lane} was gated; building again",
                m.record.path
            ));
            return Ok(None);
        }
        if let Some(reason) = in_the_way(m.repo, &m.shared, &m.record.target, m.changed)? {
            let reason = format!("{reason} (in {})", m.record.path);
            return put_back(lander, &mut testing, lane, record, reason).map(Some);
        }
    }
    write_journal(ctx, lane, &unit)?;
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            crate::failpoint::hit("unit-between-moves")?;
        }
        if let Applied::Gone(why) = apply(ctx, lander.ui, &m.record)? {
            // Only a move that raced another writer after the check above gets here.
            remove_journal(ctx);
            let reason = format!("{why}; the rest of the unit did not move, land it again");
            return put_back(lander, &mut testing, lane, record, reason).map(Some);
        }
    }
    testing.disarm();
    let landed_as = outer
        .as_ref()
        .map(|c| vec![(c.commit, c.tip)])
        .unwrap_or_default();
    Mark::lane(lane, LaneState::Landed)
        .gate(record)
        .landed(&landed_as)
        .record(ctx, lander.queue)?;
    remove_journal(ctx);
    let landed = moves.last().map_or(outer_commit, |m| m.candidate);
    Ok(Some(Outcome::Landed {
        candidate: landed,
        base: base.commit,
        gate_ms: verdict.outcome.duration_ms,
        log: verdict.outcome.log,
        cached: verdict.cached,
        landed_with: None,
    }))
}

/// The unit's target moves, deepest first and the outer repository last.
fn moves<'a>(ctx: &'a Context, base: &'a Base, outer: Option<&'a Candidate>) -> Vec<Move<'a>> {
    let mut moves: Vec<Move> = Vec::new();
    for n in base.nested.iter().rev() {
        if let Some(part) = &n.part {
            moves.push(Move {
                record: UnitMove {
                    path: n.rel.to_string_lossy().into_owned(),
                    target: n.target_ref.clone(),
                    base: n.base,
                    candidate: part.commit,
                },
                repo: &n.repo,
                shared: ctx.shared.join(&n.rel),
                base: n.base,
                candidate: part.commit,
                changed: &part.changed,
            });
        }
    }
    if let Some(c) = outer {
        moves.push(Move {
            record: UnitMove {
                path: ".".into(),
                target: ctx.config.lanes.target.full_ref(),
                base: base.commit,
                candidate: c.commit,
            },
            repo: &ctx.repo,
            shared: ctx.shared.clone(),
            base: base.commit,
            candidate: c.commit,
            changed: &c.changed,
        });
    }
    moves
}

/// What a dry run reports: the unit would land, unless a shared checkout is in the way.
fn would_land(
    ctx: &Context,
    base: &Base,
    outer_commit: ObjectId,
    moves: &[Move],
    commands: Vec<String>,
) -> Result<Outcome> {
    for m in moves {
        if let Some(reason) = in_the_way(m.repo, &m.shared, &m.record.target, m.changed)? {
            return Ok(Outcome::Refused {
                reason: format!("{reason} (in {})", m.record.path),
            });
        }
    }
    Ok(Outcome::WouldLand {
        base: base.commit,
        candidate_tree: ctx.repo.tree_of(outer_commit)?,
        files: moves.iter().map(|m| m.changed.len()).sum(),
        commands,
    })
}

/// Show what every move would change, repository by repository, and ask.
fn confirm(ui: &dyn Ui, lane: &str, moves: &[Move]) -> Result<bool> {
    let mut text = String::new();
    for m in moves {
        text.push_str(&format!(
            "in {}:\n{}",
            m.record.path,
            summary(m.repo, m.changed)?
        ));
    }
    Ok(ui.confirm(lane, &text))
}

/// One receipt in each repository the unit moves, each listing the whole unit.
fn write_receipts(
    lane: &str,
    strategy: Strategy,
    moves: &[Move],
    unit: &[UnitMove],
    verdict: &Verdict,
) -> Result<()> {
    for m in moves {
        gate::write_receipt(
            m.repo,
            &Receipt {
                lane: lane.to_string(),
                lane_tip: m
                    .repo
                    .branch_tip(lane)?
                    .map(|t| t.to_string())
                    .unwrap_or_default(),
                base: m.base,
                candidate: m.candidate,
                tested_tree: m.repo.tree_of(m.candidate)?,
                strategy,
                commands: verdict.outcome.results.clone(),
                duration_ms: verdict.outcome.duration_ms,
                log_digest: verdict.outcome.log_digest.clone(),
                at: crate::time::now(),
                target_before: None,
                landed_with: None,
                cached: verdict.cached,
                unit: unit.to_vec(),
            },
        )?;
    }
    Ok(())
}

/// How one move of a unit went.
enum Applied {
    Moved,
    /// The target already holds the move (an earlier, interrupted run made it).
    AlreadyThere,
    /// The target moved elsewhere: this move cannot happen any more.
    Gone(String),
}

/// Carry out one move of a gated unit: compare-and-swap its target from `base` to
/// `candidate`, then bring that repository's shared checkout along. A move an
/// interrupted run already made gets its shared checkout repaired (its files may have
/// stopped half way). Something of the user's in the way, or a held ref lock, is an
/// error and nothing moves.
fn apply(ctx: &Context, ui: &dyn Ui, m: &UnitMove) -> Result<Applied> {
    let shared = ctx.shared.join(&m.path);
    let repo = Repo::open(&shared)?;
    let (base, candidate) = (m.base, m.candidate);
    let no_hooks = crate::state::no_hooks_dir(&ctx.repo)?;
    let follows = checked_out(&repo, &m.target)?;
    let now = repo.ref_target(&m.target)?;
    if now == Some(candidate) {
        if follows {
            for path in crate::checkout::repair(&repo, &shared, base, candidate, &no_hooks, ui)? {
                ui.warn(&format!(
                    "{}/{path}: kept the shared checkout's own version (it was edited during an interrupted landing)",
                    m.path
                ));
            }
        }
        return Ok(Applied::AlreadyThere);
    }
    if now != Some(base) {
        if let Some(now) = now
            && repo.merge_base(candidate, now)? == Some(candidate)
        {
            return Ok(Applied::AlreadyThere);
        }
        return Ok(Applied::Gone(format!(
            "{} in {} moved on before this unit's move to {} could happen",
            m.target, m.path, m.candidate
        )));
    }
    let changed = repo.changed_paths(repo.tree_of(base)?, repo.tree_of(candidate)?)?;
    if let Some(reason) = in_the_way(&repo, &shared, &m.target, &changed)? {
        return Err(Error::refused(format!("{reason} (in {})", m.path))
            .with_help("then run `fleet land` again: it finishes the interrupted landing"));
    }
    if !move_ref(
        &repo,
        &m.target,
        base,
        candidate,
        "fleet: land a nested unit",
    )? {
        // Someone moved it between the look above and now: look again.
        return apply(ctx, ui, m);
    }
    crate::failpoint::hit("unit-after-cas")?;
    if follows {
        crate::checkout::follow(&shared, base, candidate, &no_hooks)?;
    }
    Ok(Applied::Moved)
}

#[derive(Serialize, Deserialize)]
struct Journal {
    #[serde(default)]
    lane: String,
    #[serde(rename = "move")]
    moves: Vec<UnitMove>,
}

fn journal_path(ctx: &Context) -> PathBuf {
    crate::state::unit_journal(&ctx.repo.common_dir())
}

fn write_journal(ctx: &Context, lane: &str, moves: &[UnitMove]) -> Result<()> {
    let text = toml::to_string(&Journal {
        lane: lane.to_string(),
        moves: moves.to_vec(),
    })
    .map_err(|e| Error::env(format!("cannot write the unit journal: {e}")))?;
    crate::files::write_atomically(&journal_path(ctx), text.as_bytes(), None)
}

fn remove_journal(ctx: &Context) {
    let _ = std::fs::remove_file(journal_path(ctx));
}

/// A unit landing interrupted between (or during) its moves: make the moves still
/// pending, in order (every one was gated together), and repair the shared checkouts
/// of those already made. A move that can no longer happen stops the rest (the outer
/// target never moves without its nested parts) and puts the lane back to ready. Something
/// in the way keeps the journal and is an error, so nothing is skipped.
/// A unit landing never goes through a remote ([`land`] refuses that), so the lane it
/// puts back is in this repository's own registry ([`Queue::Local`]).
pub(crate) fn finish_interrupted(ctx: &Context, ui: &dyn Ui) -> Result<()> {
    let path = journal_path(ctx);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let journal: Journal = toml::from_str(&text).map_err(|e| {
        Error::env(format!("the unit journal {} is unreadable: {e}", path.display()))
            .with_help(format!(
                "it records a nested landing that was interrupted; check the targets by hand, then delete it (`rm {}`)",
                path.display()
            ))
    })?;
    for (i, m) in journal.moves.iter().enumerate() {
        if let Applied::Gone(why) = apply(ctx, ui, m)? {
            let rest: Vec<&str> = journal.moves[i..].iter().map(|m| m.path.as_str()).collect();
            ui.warn(&format!(
                "{why}: lane {} did not finish landing (not moved: {}); it is ready to land again",
                journal.lane,
                rest.join(", ")
            ));
            if !journal.lane.is_empty() {
                Mark::lane(&journal.lane, LaneState::Ready).record(ctx, &Queue::Local)?;
            }
            remove_journal(ctx);
            return Ok(());
        }
    }
    remove_journal(ctx);
    ui.note("finished a nested unit landing that was interrupted");
    Ok(())
}
