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

use super::{
    Candidate, LandOptions, Outcome, TestingGuard, Ui, block_reasons, build_candidate,
    commands_for, failed, gate_record, gate_tree, mark, summary,
};
use crate::config::Config;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::gate::{self, Receipt, UnitMove};
use crate::git::{ChangedPath, Merged, ObjectId, Repo};
use crate::lanes::{self, LaneState};

const JOURNAL: &str = "unit-journal";

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
    ctx: &Context,
    lane: Option<&str>,
    config: &Config,
    opts: &LandOptions,
) -> Result<std::result::Result<Vec<NestedState>, Outcome>> {
    let mut out = Vec::new();
    for n in ctx.nested_repos() {
        let Ok(repo) = Repo::open(&ctx.shared.join(&n.rel)) else {
            continue;
        };
        // A nested checkout on a detached HEAD or an unborn branch has no target.
        let Some(target) = repo.head_branch()? else {
            continue;
        };
        let Some(base) = repo.branch_tip(&target)? else {
            continue;
        };
        let rel_text = n.rel.to_string_lossy().into_owned();
        let part = match lane {
            Some(lane) => match part(&repo, lane, &target, base, config)? {
                Ok(part) => part,
                Err(files) => {
                    let files: Vec<String> =
                        files.iter().map(|f| format!("{rel_text}/{f}")).collect();
                    mark(
                        ctx,
                        &[lane],
                        LaneState::Conflicted,
                        files.clone(),
                        None,
                        &[],
                    )?;
                    return Ok(Err(Outcome::Conflicted { files }));
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
            let reasons = block_reasons(&repo, config, &prefixed, opts.allow_protected)?;
            if !reasons.is_empty() {
                mark(ctx, &[lane], LaneState::Blocked, reasons.clone(), None, &[])?;
                return Ok(Err(Outcome::Blocked { reasons }));
            }
        }
        out.push(NestedState {
            rel: n.rel.clone(),
            repo,
            target_ref: format!("refs/heads/{target}"),
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

/// The lane's part in one nested repository: `Ok(None)` when its branch is not there
/// or adds nothing the target lacks, `Err(files)` on a conflict.
fn part(
    repo: &Repo,
    lane: &str,
    target: &str,
    base: ObjectId,
    config: &Config,
) -> Result<std::result::Result<Option<Candidate>, Vec<String>>> {
    let Some(tip) = repo.branch_tip(lane)? else {
        return Ok(Ok(None));
    };
    if repo.count_exclusive(tip, base)? == 0 || repo.changes_already_in(tip, base)? {
        return Ok(Ok(None));
    }
    let commit = match build_candidate(repo, config.lanes.strategy, base, tip, lane, target)? {
        Merged::Clean(commit) => commit,
        Merged::Conflicts(files) => return Ok(Err(files)),
    };
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
    })))
}

/// Check out every nested repository inside the gate worktree at the commit the gate
/// must see, parents first.
pub(crate) fn materialise(gate_worktree: &Path, nested: &[NestedState]) -> Result<()> {
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
#[allow(clippy::too_many_arguments)]
pub(crate) fn land(
    ctx: &Context,
    lane: &str,
    base: ObjectId,
    config: &Config,
    outer: Option<Candidate>,
    nested: &[NestedState],
    opts: &LandOptions,
    ui: &dyn Ui,
    runs: &mut usize,
) -> Result<Option<Outcome>> {
    let repo = &ctx.repo;
    if let Some(remote) = &ctx.remote {
        return Ok(Some(Outcome::Refused {
            reason: format!(
                "it spans nested repositories, which cannot land through a remote ({remote}) yet; land it without --remote"
            ),
        }));
    }
    let outer_commit = outer.as_ref().map_or(base, |c| c.commit);
    let commands = commands_for(ctx, config, outer_commit)?;
    let mut moves: Vec<Move> = Vec::new();
    // Deepest first, the outer repository last.
    for n in nested.iter().rev() {
        if let Some(part) = &n.part {
            moves.push(Move {
                record: UnitMove {
                    path: n.rel.to_string_lossy().into_owned(),
                    target: n.target_ref.clone(),
                    base: n.base.to_string(),
                    candidate: part.commit.to_string(),
                },
                repo: &n.repo,
                shared: ctx.shared.join(&n.rel),
                base: n.base,
                candidate: part.commit,
                changed: &part.changed,
            });
        }
    }
    if let Some(c) = &outer {
        moves.push(Move {
            record: UnitMove {
                path: ".".into(),
                target: ctx.config.lanes.target.full_ref(),
                base: base.to_string(),
                candidate: c.commit.to_string(),
            },
            repo,
            shared: ctx.shared.clone(),
            base,
            candidate: c.commit,
            changed: &c.changed,
        });
    }
    let files: usize = moves.iter().map(|m| m.changed.len()).sum();
    if opts.dry_run {
        return Ok(Some(Outcome::WouldLand {
            base: base.to_string(),
            candidate_tree: repo.tree_of(outer_commit)?.to_string(),
            files,
            commands,
        }));
    }
    if !opts.yes {
        let mut text = String::new();
        for m in &moves {
            text.push_str(&format!(
                "in {}:\n{}",
                m.record.path,
                summary(m.repo, m.changed)?
            ));
        }
        if !ui.confirm(lane, &text) {
            return Ok(Some(Outcome::Refused {
                reason: "declined".into(),
            }));
        }
    }
    let mut testing = TestingGuard::mark(ctx, vec![lane.to_string()])?;
    let verdict = gate_tree(
        ctx,
        lane,
        base,
        outer_commit,
        &commands,
        config,
        opts,
        ui,
        runs,
        nested,
    )?;
    let record = gate_record(&verdict.outcome, base, outer_commit);
    if !verdict.outcome.green {
        testing.disarm();
        mark(
            ctx,
            &[lane],
            LaneState::Failed,
            Vec::new(),
            Some(record),
            &[],
        )?;
        return Ok(Some(failed(&verdict)));
    }
    let unit: Vec<UnitMove> = moves.iter().map(|m| m.record.clone()).collect();
    for m in &moves {
        gate::write_receipt(
            m.repo,
            &Receipt {
                lane: lane.to_string(),
                lane_tip: m
                    .repo
                    .branch_tip(lane)?
                    .map(|t| t.to_string())
                    .unwrap_or_default(),
                base: m.base.to_string(),
                candidate: m.candidate.to_string(),
                tested_tree: m.repo.tree_of(m.candidate)?.to_string(),
                strategy: format!("{:?}", config.lanes.strategy).to_lowercase(),
                commands: verdict.outcome.results.clone(),
                duration_ms: verdict.outcome.duration_ms,
                log_digest: verdict.outcome.log_digest.clone(),
                at: lanes::now(),
                target_before: None,
                landed_with: None,
                cached: verdict.cached,
                unit: unit.clone(),
            },
        )?;
    }
    // Nothing moves unless every target is still where the unit was built and no
    // shared checkout has something of the user's in the way.
    for m in &moves {
        if m.repo.ref_target(&m.record.target)? != Some(m.base) {
            ui.note(&format!(
                "the target in {} moved while {lane} was gated; building again",
                m.record.path
            ));
            return Ok(None);
        }
        let hits = if m
            .repo
            .head_branch()?
            .map(|b| format!("refs/heads/{b}"))
            .as_deref()
            == Some(m.record.target.as_str())
        {
            crate::checkout::collisions(&m.shared, m.changed)?
        } else {
            Vec::new()
        };
        if !hits.is_empty() {
            testing.disarm();
            mark(
                ctx,
                &[lane],
                LaneState::Ready,
                Vec::new(),
                Some(record),
                &[],
            )?;
            return Ok(Some(Outcome::Refused {
                reason: format!(
                    "the shared checkout {} has uncommitted, untracked or ignored files where this lane changes: {}; commit, move or delete them first",
                    m.record.path,
                    hits.join(", ")
                ),
            }));
        }
    }
    write_journal(ctx, &unit)?;
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            crate::failpoint::hit("unit-between-moves")?;
        }
        apply(ctx, &m.record)?;
    }
    testing.disarm();
    let landed_as = outer
        .as_ref()
        .map(|c| vec![(c.commit, c.tip)])
        .unwrap_or_default();
    mark(
        ctx,
        &[lane],
        LaneState::Landed,
        Vec::new(),
        Some(record),
        &landed_as,
    )?;
    remove_journal(ctx);
    Ok(Some(Outcome::Landed {
        candidate: outer_commit.to_string(),
        base: base.to_string(),
        gate_ms: verdict.outcome.duration_ms,
        log: verdict.outcome.log,
        cached: verdict.cached,
        landed_with: None,
    }))
}

/// Carry out one move of a gated unit: compare-and-swap its target from `base` to
/// `candidate`, then bring that repository's shared checkout along. Already done is
/// fine; a target that moved elsewhere is an error that says what did not land.
fn apply(ctx: &Context, m: &UnitMove) -> Result<()> {
    let shared = ctx.shared.join(&m.path);
    let repo = Repo::open(&shared)?;
    let parse = |id: &str| {
        ObjectId::from_hex(id.as_bytes())
            .map_err(|e| Error::env(format!("bad unit journal entry {id}: {e}")))
    };
    let (base, candidate) = (parse(&m.base)?, parse(&m.candidate)?);
    let now = repo.ref_target(&m.target)?;
    if now == Some(candidate) {
        return Ok(());
    }
    if now != Some(base) {
        return Err(Error::refused(format!(
            "{} in {} moved on before this unit's move to {} could happen, so that part did not land while the others did",
            m.target, m.path, m.candidate
        ))
        .with_help("run `fleet land LANE` again: the part still missing is built on the new target and gated with the rest"));
    }
    repo.cas_update(
        &m.target,
        Some(base),
        candidate,
        "fleet: land a nested unit",
    )?;
    let checked_out = repo.head_branch()?.map(|b| format!("refs/heads/{b}"));
    if checked_out.as_deref() == Some(m.target.as_str()) {
        crate::checkout::follow(&shared, base, candidate, &gate::no_hooks_dir(&ctx.repo)?)?;
    }
    Ok(())
}

#[derive(Serialize, Deserialize)]
struct Journal {
    #[serde(rename = "move")]
    moves: Vec<UnitMove>,
}

fn journal_path(ctx: &Context) -> PathBuf {
    gate::fleet_dir(&ctx.repo).join(JOURNAL)
}

fn write_journal(ctx: &Context, moves: &[UnitMove]) -> Result<()> {
    let text = toml::to_string(&Journal {
        moves: moves.to_vec(),
    })
    .map_err(|e| Error::env(format!("cannot write the unit journal: {e}")))?;
    crate::files::write_atomically(&journal_path(ctx), text.as_bytes(), None)
}

fn remove_journal(ctx: &Context) {
    let _ = std::fs::remove_file(journal_path(ctx));
}

/// A unit landing killed between its moves: finish the moves still pending (every one
/// was gated together), or say plainly which part could not land.
pub(crate) fn finish_interrupted(ctx: &Context) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(journal_path(ctx)) else {
        return Ok(());
    };
    let journal: Journal = toml::from_str(&text)
        .map_err(|e| Error::env(format!("the unit journal is unreadable: {e}")))?;
    let mut finished = true;
    for m in &journal.moves {
        if let Err(e) = apply(ctx, m) {
            crate::ui::warn(&format!(
                "{}
  help: {}",
                e.message,
                e.help.unwrap_or_default()
            ));
            finished = false;
        }
    }
    remove_journal(ctx);
    if finished {
        crate::ui::note("finished a nested unit landing that was interrupted");
    }
    Ok(())
}
