//! `fleet status`: every lane with the facts that matter for landing, derived from the
//! refs on each read (the registry only says what was decided, not what is true now).

use std::path::PathBuf;
use std::time::Duration;

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::Result;
use crate::git::{ChangedPath, Merged, ObjectId, Repo, WorktreeInfo};
use crate::lanes::landed::{self, landed_by, undone_by};
use crate::lanes::overlap;
use crate::lanes::{GateRecord, Lane, LaneState, WorkerTest};
use crate::queue::Queue;
use crate::tasks::TaskState;

#[derive(Debug, Serialize)]
pub struct LaneView {
    pub branch: String,
    /// The effective state: `landed` whenever the lane's changes are in the target.
    pub state: LaneState,
    /// What the registry says, when it differs from `state`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_state: Option<LaneState>,
    pub tip: Option<String>,
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    /// Files that would conflict if the lane landed now; empty when it applies cleanly.
    pub conflicts: Vec<String>,
    /// Ready lanes ahead of this ready one that it would conflict with once they landed
    /// ([`overlap`]); empty when it conflicts with the target already.
    #[serde(serialize_with = "lane_conflicts")]
    pub conflicts_after: Vec<overlap::LaneConflict>,
    /// Running, but no commit and no file change for `[lanes] stale_after`.
    pub stale: bool,
    /// The branch is gone.
    pub missing: bool,
    pub worktree: Option<PathBuf>,
    pub worker: Option<WorkerTest>,
    pub gate: Option<GateRecord>,
    pub detail: Vec<String>,
    /// The lane's branch in each nested repository that has one, against that
    /// repository's target (the branch its shared checkout is on).
    pub nested: Vec<NestedView>,
}

/// Each lane conflicted with as `{branch, lane, files}`: `branch`, the key every command
/// uses for a lane, and `lane`, kept for scripts written before.
fn lane_conflicts<S: serde::Serializer>(
    list: &[overlap::LaneConflict],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Doc<'a> {
        branch: &'a str,
        lane: &'a str,
        files: &'a [String],
    }
    s.collect_seq(list.iter().map(|c| Doc {
        branch: &c.lane,
        lane: &c.lane,
        files: &c.files,
    }))
}

/// A lane's part in one nested repository.
#[derive(Debug, Serialize)]
pub struct NestedView {
    /// The repository, relative to the outer shared checkout (`cockpit`).
    pub rel: String,
    pub ahead: usize,
    pub behind: usize,
    /// `landed` when the part's changes are in that repository's target; absent
    /// otherwise (the lane's own state tells the rest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<LaneState>,
}

/// A nested repository with a target, opened once per `status`.
struct NestedRepo {
    rel: String,
    repo: Repo,
    target: ObjectId,
}

/// The nested repositories whose shared checkout is on a branch with a commit (the
/// others have no target to measure against, as `fleet land` says).
fn nested_repos(ctx: &Context) -> Vec<NestedRepo> {
    ctx.nested_repos()
        .iter()
        .filter_map(|n| {
            let repo = Repo::open(&ctx.shared.join(&n.rel)).ok()?;
            let target = repo.branch_tip(&repo.head_branch().ok()??).ok()??;
            Some(NestedRepo {
                rel: n.rel.to_string_lossy().into_owned(),
                repo,
                target,
            })
        })
        .collect()
}

/// The lane's part in each nested repository where its branch exists: a ref lookup
/// each, and the (remembered) facts only for those.
fn nested_parts(nested: &[NestedRepo], branch: &str, memo: &mut Memo) -> Result<Vec<NestedView>> {
    let mut out = Vec::new();
    for n in nested {
        let Some(tip) = n.repo.branch_tip(branch)? else {
            continue;
        };
        let facts = memo.get(&n.repo, tip, n.target)?;
        out.push(NestedView {
            rel: n.rel.clone(),
            ahead: facts.ahead,
            behind: facts.behind,
            state: facts.changes_in.then_some(LaneState::Landed),
        });
    }
    Ok(out)
}

/// Every lane of `queue`, as the refs say it is now.
pub fn lanes(ctx: &Context, queue: &Queue) -> Result<Vec<LaneView>> {
    let (registry, _) = queue.load(ctx)?;
    let target = queue.target_tip(ctx)?;
    let worktrees = ctx.repo.worktrees()?;
    let stale_after = ctx.config.lanes.stale_after.0;
    let mut memo = Memo::load(&ctx.repo);
    let nested = nested_repos(ctx);
    let mut views = registry
        .lanes
        .iter()
        .map(|lane| {
            let tip = queue.lane_tip(ctx, &lane.branch)?;
            let mut v = view(
                &ctx.repo,
                lane,
                tip,
                target,
                &worktrees,
                stale_after,
                &mut memo,
            )?;
            v.nested = nested_parts(&nested, &lane.branch, &mut memo)?;
            // A landed lane's part with nothing ahead is in its target too (fast-
            // forwarded, or never had work there).
            if v.state == LaneState::Landed {
                for n in v.nested.iter_mut().filter(|n| n.ahead == 0) {
                    n.state = Some(LaneState::Landed);
                }
            }
            Ok(v)
        })
        .collect::<Result<Vec<_>>>()?;
    memo.save(&ctx.repo);
    let mut after = overlap::predict(&ctx.repo, target, &ready_to_apply(&views))?;
    for v in &mut views {
        v.conflicts_after = after.remove(&v.branch).unwrap_or_default();
    }
    Ok(views)
}

/// The ready lanes that apply cleanly to the target, in landing order: those the
/// conflicts between lanes are predicted for.
fn ready_to_apply(views: &[LaneView]) -> Vec<(String, ObjectId)> {
    views
        .iter()
        .filter(|v| v.state == LaneState::Ready && v.conflicts.is_empty())
        .filter_map(|v| {
            Some((
                v.branch.clone(),
                ObjectId::from_hex(v.tip.as_ref()?.as_bytes()).ok()?,
            ))
        })
        .collect()
}

/// What status derives from a (lane tip, target tip) pair: a pure function of two
/// commit ids, so it is remembered between runs (keyed by both ids, never by name) to
/// keep `status` fast with a thousand lanes. Landing never reads it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Facts {
    ahead: usize,
    behind: usize,
    /// Every path the lane changed holds its version in the target.
    changes_in: bool,
    conflicts: Vec<String>,
}

#[derive(Default)]
struct Memo {
    facts: HashMap<String, Facts>,
    dirty: bool,
    /// What the target changed since a merge base, for this run only: lanes mostly
    /// share a few bases, so each is diffed once. Keyed by (base, target): the lanes'
    /// parts in nested repositories are measured against targets of their own.
    target_changes: HashMap<(ObjectId, ObjectId), Side>,
}

impl Memo {
    fn path(repo: &Repo) -> PathBuf {
        crate::state::status_cache(&repo.common_dir())
    }

    fn load(repo: &Repo) -> Memo {
        let facts = std::fs::read(Self::path(repo))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Memo {
            facts,
            ..Memo::default()
        }
    }

    /// Best effort: a cache that cannot be written only costs time next run.
    fn save(&self, repo: &Repo) {
        if !self.dirty {
            return;
        }
        // A cache: a write that fails only costs a recomputation next time.
        if let Ok(bytes) = serde_json::to_vec(&self.facts) {
            let _ = crate::files::write_atomically(&Self::path(repo), &bytes, None);
        }
    }

    fn get(&mut self, repo: &Repo, tip: ObjectId, target: ObjectId) -> Result<Facts> {
        let key = format!("{tip}:{target}");
        if let Some(facts) = self.facts.get(&key) {
            return Ok(facts.clone());
        }
        let (ahead, behind) = repo.ahead_behind(tip, target)?;
        let changes_in = ahead > 0 && landed::changes_in(repo, tip, target)?;
        let conflicts = if ahead > 0 && behind > 0 && !changes_in {
            self.predicted_conflicts(repo, tip, target)?
        } else {
            Vec::new()
        };
        let facts = Facts {
            ahead,
            behind,
            changes_in,
            conflicts,
        };
        // Bounded: forget everything rather than grow without end.
        if self.facts.len() > 20_000 {
            self.facts.clear();
        }
        self.facts.insert(key, facts.clone());
        self.dirty = true;
        Ok(facts)
    }

    /// The paths merging `tip` into `target` would conflict on, predicted in memory.
    /// With a single merge base, and two sides that cannot meet, the merge is clean
    /// without running it: the common case, and what keeps a first run over a thousand
    /// lanes fast. Anything else gets the full in-memory merge.
    fn predicted_conflicts(
        &mut self,
        repo: &Repo,
        tip: ObjectId,
        target: ObjectId,
    ) -> Result<Vec<String>> {
        let bases = repo.merge_bases(target, tip)?;
        let [base] = bases[..] else {
            if bases.is_empty() {
                return Ok(vec!["(no common history with the target)".into()]);
            }
            return full_merge(repo, tip, target);
        };
        let base_tree = repo.tree_of(base)?;
        let target_side = match self.target_changes.entry((base, target)) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(slot) => slot.insert(Side::new(
                repo.changed_paths(base_tree, repo.tree_of(target)?)?,
            )),
        };
        let lane_side = Side::new(repo.changed_paths(base_tree, repo.tree_of(tip)?)?);
        if lane_side.cannot_meet(target_side) {
            return Ok(Vec::new());
        }
        full_merge(repo, tip, target)
    }
}

fn full_merge(repo: &Repo, tip: ObjectId, target: ObjectId) -> Result<Vec<String>> {
    match repo.merge_commits(target, tip, false) {
        Ok(Merged::Conflicts(paths)) => Ok(paths),
        Ok(Merged::Clean(_)) => Ok(Vec::new()),
        // A merged tree gix will not write (a lane's entry named `.git`): those names
        // are what stops the lane, as `fleet land` says.
        Err(e) => match crate::land::unwritable(repo, target, tip)? {
            Some(_) => Ok(vec!["(a name git refuses to check out)".into()]),
            None => Err(e),
        },
    }
}

/// One side of a merge: the paths it changed since the merge base, and the folders it
/// removed a file from (any of which it may have renamed).
#[derive(Default)]
struct Side {
    paths: BTreeSet<String>,
    emptied: BTreeSet<String>,
}

impl Side {
    fn new(changed: Vec<ChangedPath>) -> Side {
        let mut side = Side::default();
        for change in changed {
            if change.new.is_none() {
                side.emptied
                    .extend(folders_of(&change.path).map(str::to_string));
            }
            side.paths.insert(change.path);
        }
        side
    }

    /// Neither side changes a path of the other's, or a file or folder around one,
    /// or anything inside a folder the other removed files from (a folder rename
    /// carries the other side's files along, and may collide there). Touching is
    /// symmetric, so only this side's paths are walked: call it on the smaller side.
    fn cannot_meet(&self, other: &Side) -> bool {
        self.paths.iter().all(|path| {
            !touches_any(path, &other.paths) && !folders_of(path).any(|d| other.emptied.contains(d))
        }) && self.emptied.iter().all(|dir| !holds_any(dir, &other.paths))
    }
}

/// The folders holding `path`, innermost last (`a/b/c` gives `a`, `a/b`).
fn folders_of(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(i, _)| &path[..i])
}

/// `path` is in `paths`, or one of them is a file standing where `path` needs a
/// folder, or `path` is a file standing where one of them needs a folder.
fn touches_any(path: &str, paths: &BTreeSet<String>) -> bool {
    paths.contains(path)
        || folders_of(path).any(|dir| paths.contains(dir))
        || holds_any(path, paths)
}

/// One of `paths` is inside the folder `dir`.
fn holds_any(dir: &str, paths: &BTreeSet<String>) -> bool {
    let inside = format!("{dir}/");
    paths
        .range(inside.clone()..)
        .next()
        .is_some_and(|p| p.starts_with(&inside))
}

/// `tip`: the lane branch's tip where the queue is (here or on the remote).
fn view(
    repo: &Repo,
    lane: &Lane,
    tip: Option<ObjectId>,
    target: ObjectId,
    worktrees: &[WorktreeInfo],
    stale_after: Duration,
    memo: &mut Memo,
) -> Result<LaneView> {
    let worktree = worktrees
        .iter()
        .find(|w| w.branch.as_deref() == Some(lane.branch.as_str()))
        .map(|w| w.path.clone());
    let mut v = LaneView {
        branch: lane.branch.clone(),
        state: lane.state,
        recorded_state: None,
        tip: tip.map(|t| t.to_string()),
        ahead: None,
        behind: None,
        conflicts: Vec::new(),
        conflicts_after: Vec::new(),
        stale: false,
        missing: tip.is_none(),
        worktree: worktree.clone(),
        worker: lane.worker.clone(),
        gate: lane.gate.clone(),
        detail: lane.detail.clone(),
        nested: Vec::new(),
    };
    let Some(tip) = tip else { return Ok(v) };
    let facts = memo.get(repo, tip, target)?;
    v.ahead = Some(facts.ahead);
    v.behind = Some(facts.behind);
    v.state = state_from(repo, lane, tip, target, facts.ahead, facts.changes_in)?;
    if v.state != lane.state {
        v.recorded_state = Some(lane.state);
    }
    if !v.state.finished() {
        v.conflicts = facts.conflicts;
    }
    // A conflicted lane's detail is its conflicting files: each path is said once.
    if !v.conflicts.is_empty() {
        v.detail.retain(|d| !v.conflicts.contains(d));
    }
    if v.state == LaneState::Running {
        v.stale = is_stale(repo, tip, worktree.as_deref(), stale_after);
    }
    Ok(v)
}

/// The state `fleet status` gives `lane` at `tip`, computed afresh: for `fleet worktree
/// list`, which tells landed worktrees the same way.
pub fn effective_state(
    repo: &Repo,
    lane: &Lane,
    tip: ObjectId,
    target: ObjectId,
) -> Result<LaneState> {
    let ahead = repo.count_exclusive(tip, target)?;
    let changes_in = ahead > 0 && landed::changes_in(repo, tip, target)?;
    state_from(repo, lane, tip, target, ahead, changes_in)
}

/// The effective state from the registry's and the facts: `landed` whenever the
/// lane's changes are in the target, `ready` again when its landing was undone,
/// `running` again when it has commits since its landing.
fn state_from(
    repo: &Repo,
    lane: &Lane,
    tip: ObjectId,
    target: ObjectId,
    ahead: usize,
    changes_in: bool,
) -> Result<LaneState> {
    if !lane.state.finished() && landed_by(lane, tip, ahead, changes_in) {
        return Ok(LaneState::Landed);
    }
    if undone_by(repo, lane, tip, target, ahead, changes_in)? {
        return Ok(LaneState::Ready);
    }
    // Commits made since its landing: work the target does not have (`worktree rm`
    // keeps the branch for it, `worktree new` tracks it again); `fleet ready` marks it.
    if lane.state == LaneState::Landed
        && lane.landed_tip.is_some_and(|landed| landed != tip)
        && ahead > 0
        && !changes_in
    {
        return Ok(LaneState::Running);
    }
    Ok(lane.state)
}

/// No commit and no file change for `stale_after`. Cheapest evidence first: a recent
/// commit or index write settles it without scanning the worktree.
fn is_stale(
    repo: &Repo,
    tip: ObjectId,
    worktree: Option<&std::path::Path>,
    stale_after: Duration,
) -> bool {
    let limit = crate::time::now() - stale_after.as_secs() as i64;
    if repo.commit_time(tip).unwrap_or(0) > limit {
        return false;
    }
    let Some(path) = worktree else { return true };
    let Ok(wt) = Repo::open(path) else {
        return true;
    };
    let recent = |file: &std::path::Path| {
        std::fs::metadata(file)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .is_some_and(|t| t.as_secs() as i64 > limit)
    };
    if recent(&wt.index_path()) {
        return false;
    }
    !wt.dirty_paths(200)
        .unwrap_or_default()
        .into_iter()
        .any(|p| recent(&path.join(p)))
}

/// The task queue at a glance, for `fleet status`: how many tasks are in each state,
/// and each task a drainer holds (claimed or running). Read through [`Store::list`],
/// whose memo makes it a listing of the task refs, not a read of every task commit.
///
/// [`Store::list`]: crate::tasks::Store::list
#[derive(Debug, Serialize)]
pub struct TaskSummary {
    /// Every state with its count, zeros included, in queue order.
    #[serde(serialize_with = "counts_in_order")]
    pub counts: Vec<(TaskState, usize)>,
    /// The claimed and running tasks, in queue order.
    pub running: Vec<HeldTask>,
}

impl TaskSummary {
    pub fn total(&self) -> usize {
        self.counts.iter().map(|(_, n)| n).sum()
    }
}

/// A task a drainer holds, with where its run is.
#[derive(Debug, Serialize)]
pub struct HeldTask {
    pub name: String,
    pub state: TaskState,
    pub run: String,
    pub attempt: u32,
    pub claimed: i64,
    /// When its agent started (running only).
    pub started: Option<i64>,
    pub worktree: Option<String>,
    pub branch: Option<String>,
    /// The holder (the drainer), its host, and the agent's process group.
    pub pid: u32,
    pub pgid: Option<i32>,
    pub host: String,
    pub lease_expires: i64,
    /// Whether the holder still runs: known on its own machine only (`null` elsewhere).
    pub holder_alive: Option<bool>,
    /// Running and silent for its `stall_after` ([`crate::drain::liveness`]).
    pub stalled: bool,
    /// Its last activity, when running and this machine can read it (its holder's).
    pub liveness: Option<crate::drain::liveness::Liveness>,
}

fn counts_in_order<S: serde::Serializer>(
    counts: &[(TaskState, usize)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_map(counts.iter().map(|(state, n)| (state.as_str(), n)))
}

/// The states counted even at zero, so a script finds every key; a state added later
/// is counted too, once a task is in it.
const STATES: [TaskState; 9] = [
    TaskState::Queued,
    TaskState::Claimed,
    TaskState::Running,
    TaskState::Succeeded,
    TaskState::Failed,
    TaskState::TimedOut,
    TaskState::Crashed,
    TaskState::Parked,
    TaskState::Cancelled,
];

/// The task summary of `queue` (see [`TaskSummary`]).
pub fn tasks(ctx: &Context, queue: &Queue) -> Result<TaskSummary> {
    let tasks = crate::tasks::Store::new(ctx, queue).list()?;
    let mut counts: Vec<(TaskState, usize)> = STATES.iter().map(|s| (*s, 0)).collect();
    for t in &tasks {
        match counts.iter_mut().find(|(s, _)| *s == t.state) {
            Some((_, n)) => *n += 1,
            None => counts.push((t.state, 1)),
        }
    }
    counts.sort_by_key(|(s, _)| *s);
    let now = crate::time::now();
    let running = tasks
        .iter()
        .filter(|t| matches!(t.state, TaskState::Claimed | TaskState::Running))
        .filter_map(|t| {
            let run = t.last_run()?;
            let liveness = (t.state == TaskState::Running)
                .then(|| crate::drain::liveness::of_run(&ctx.repo, &ctx.config, t, run, now))
                .flatten();
            Some(HeldTask {
                name: t.name.clone(),
                state: t.state,
                run: run.id.clone(),
                attempt: run.attempt,
                claimed: run.claimed,
                started: run.started,
                worktree: run.worktree.clone(),
                branch: run.branch.clone(),
                pid: run.holder.pid,
                pgid: run.pgid,
                host: run.holder.host.clone(),
                lease_expires: run.lease_expires,
                holder_alive: run.holder.alive_here(),
                stalled: liveness.as_ref().is_some_and(|l| l.stalled),
                liveness,
            })
        })
        .collect();
    Ok(TaskSummary { counts, running })
}
