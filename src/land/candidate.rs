//! Building a lane's candidate: the lane's work on a base, in memory, by the
//! configured strategy (rebase, merge or squash), and checked against the base's
//! policy before any gate runs.

use super::Outcome;
use super::record::Mark;
use super::session::{Base, Lander};
use crate::config::{Config, Strategy};
use crate::context::Context;
use crate::error::Result;
use crate::gate::policy::{block_reasons, gate_commands};
use crate::git::{ChangedPath, Merged, ObjectId, Repo};
use crate::lanes::LaneState;
use crate::queue::Queue;

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

/// Build `lane` on `on` (the target `base`, or the lanes before it in a batch) and
/// check it, recording in the registry a lane that landed, conflicts or is blocked.
/// `more`: the lane has parts in nested repositories still to land, so an outer part
/// already landed is `Empty` rather than the whole lane landed.
pub(crate) fn prepare(
    lander: &Lander,
    base: &Base,
    lane: &str,
    on: ObjectId,
    more: bool,
) -> Result<Prepared> {
    let (ctx, queue) = (lander.ctx, lander.queue);
    let repo = &ctx.repo;
    let (target, config) = (base.commit, &base.config);
    let tip = match lane_tip(ctx, queue, lane)? {
        Ok(tip) => tip,
        Err(outcome) => return Ok(Prepared::Done(outcome)),
    };
    let (registry, _) = queue.load(ctx)?;
    let Some(record) = registry.get(lane).cloned() else {
        return Ok(Prepared::Done(Outcome::Refused {
            reason: "not a lane any more".into(),
        }));
    };
    let ahead = repo.count_exclusive(tip, target)?;
    // Decided from the refs, never from the registry: a landed lane with new commits
    // has something to land again.
    if crate::lanes::landed::has_landed(repo, &record, tip, target, ahead)? {
        if more {
            return Ok(Prepared::Empty);
        }
        Mark::lane(lane, LaneState::Landed).record(ctx, queue)?;
        return Ok(Prepared::Done(Outcome::AlreadyLanded));
    }
    if let Some(reason) = unwritable(repo, target, tip)? {
        Mark::lane(lane, LaneState::Refused)
            .detail(vec![reason.clone()])
            .record(ctx, queue)?;
        return Ok(Prepared::Done(Outcome::Refused { reason }));
    }
    let commit = match build_candidate(repo, config.lanes.strategy, on, tip, lane, ctx.target())? {
        Merged::Clean(commit) => commit,
        Merged::Conflicts(_) if on != target => return Ok(Prepared::Deferred),
        Merged::Conflicts(files) => {
            Mark::lane(lane, LaneState::Conflicted)
                .detail(files.clone())
                .record(ctx, queue)?;
            return Ok(Prepared::Done(Outcome::Conflicted { files }));
        }
    };
    if let Some(reason) = rebase_loses(repo, config.lanes.strategy, on, tip, commit)? {
        Mark::lane(lane, LaneState::Refused)
            .detail(vec![reason.clone()])
            .record(ctx, queue)?;
        return Ok(Prepared::Done(Outcome::Refused { reason }));
    }
    let on_tree = repo.tree_of(on)?;
    let tree = repo.tree_of(commit)?;
    if tree == on_tree {
        return Ok(Prepared::Empty);
    }
    let changed = repo.changed_paths(on_tree, tree)?;
    let commands = match check(repo, config, &changed, commit, lander.opts.allow_protected)? {
        Ok(commands) => commands,
        Err(reasons) => {
            Mark::lane(lane, LaneState::Blocked)
                .detail(reasons.clone())
                .record(ctx, queue)?;
            return Ok(Prepared::Done(Outcome::Blocked { reasons }));
        }
    };
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

/// Why the lane's commits cannot be built into a candidate, when one of them holds a
/// name gix refuses to write or check out (an entry named `.git`, say): every commit
/// the lane adds over `target` is looked at, since a rebase writes each one's tree.
/// `None` when every name is fine.
pub fn unwritable(repo: &Repo, target: ObjectId, tip: ObjectId) -> Result<Option<String>> {
    for id in repo.commits_between(target, tip)? {
        let commit = repo.commit_info(id)?;
        let parent_tree = match commit.parents.first() {
            Some(parent) => repo.tree_of(*parent)?,
            None => repo.empty_tree(),
        };
        let refused = repo.refused_names(parent_tree, commit.tree)?;
        if refused.is_empty() {
            continue;
        }
        let names: Vec<String> = refused
            .iter()
            .map(|(path, why)| format!("`{path}` ({why})"))
            .collect();
        return Ok(Some(format!(
            "commit {} holds a name git refuses to check out: {}; remove it from the lane's history (rewrite the branch) and mark it ready again",
            id.to_hex_with_len(12),
            names.join(", ")
        )));
    }
    Ok(None)
}

/// The lane's tip where the queue is, or why there is none to land.
fn lane_tip(
    ctx: &Context,
    queue: &Queue,
    lane: &str,
) -> Result<std::result::Result<ObjectId, Outcome>> {
    if let Some(tip) = queue.lane_tip(ctx, lane)? {
        return Ok(Ok(tip));
    }
    let reason = match queue {
        Queue::Remote(remote) if ctx.repo.branch_tip(lane)?.is_some() => format!(
            "branch {lane} is not on {remote}: publish it with `git push {remote} {lane}` or `fleet ready --remote {remote} {lane}`"
        ),
        Queue::Remote(remote) => format!("branch {lane} is not on {remote} (any more)"),
        Queue::Local => format!("branch {lane} does not exist any more"),
    };
    Ok(Err(Outcome::Refused { reason }))
}

/// The gate commands for candidate `commit`, or the reasons it is blocked: the
/// policy's (protected paths, markers) first, else a fleet.toml of its own that does
/// not parse.
fn check(
    repo: &Repo,
    config: &Config,
    changed: &[ChangedPath],
    commit: ObjectId,
    allow_protected: bool,
) -> Result<std::result::Result<Vec<String>, Vec<String>>> {
    let mut reasons = block_reasons(repo, config, changed, allow_protected)?;
    let commands = match gate_commands(repo, config, commit)? {
        Ok(commands) => commands,
        Err(reason) => {
            if reasons.is_empty() {
                reasons.push(reason);
            }
            Vec::new()
        }
    };
    Ok(if reasons.is_empty() {
        Ok(commands)
    } else {
        Err(reasons)
    })
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

/// Why `candidate`, the lane's commits replayed onto `on`, cannot stand for the lane:
/// a rebase skips merge commits, so what a lane did in one (an evil merge, a conflict
/// it resolved) would be lost while the lane is reported landed. When the lane has a
/// merge among its commits, the replayed tree must equal what merging the lane gives;
/// otherwise the paths that differ are named. `None` for other strategies (they keep
/// the lane's whole tree) and for lanes without merges (every commit is replayed).
pub(crate) fn rebase_loses(
    repo: &Repo,
    strategy: Strategy,
    on: ObjectId,
    tip: ObjectId,
    candidate: ObjectId,
) -> Result<Option<String>> {
    if strategy != Strategy::Rebase {
        return Ok(None);
    }
    let mut merges = Vec::new();
    for id in repo.commits_between(on, tip)? {
        if repo.commit_info(id)?.parents.len() > 1 {
            merges.push(id.to_hex_with_len(12).to_string());
        }
    }
    if merges.is_empty() {
        return Ok(None);
    }
    let fix = "land it with `strategy = \"merge\"` (or \"squash\") in fleet.toml's [lanes], or rebase the branch yourself so those changes are in ordinary commits, then `fleet ready` it";
    let lost = match merge_or_unrelated(repo, on, tip)? {
        Merged::Clean(tree) => {
            let replayed = repo.tree_of(candidate)?;
            if tree == replayed {
                return Ok(None);
            }
            let paths: Vec<String> = repo
                .changed_paths(replayed, tree)?
                .into_iter()
                .map(|c| c.path)
                .collect();
            format!("would lose changes in {}", paths.join(", "))
        }
        Merged::Conflicts(files) => format!(
            "cannot be checked: merging the lane conflicts in {}",
            files.join(", ")
        ),
    };
    Ok(Some(format!(
        "a rebase replays only the lane's own commits and skips its merge commit(s) {}, so landing it by rebase {lost}; {fix}",
        merges.join(", ")
    )))
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
