//! The loop back from landing: with `[drain] on_conflict = "task"` (or `on_red =
//! "task"`), a lane `fleet land` found conflicted (or red at the gate) becomes a
//! follow-up task on the same branch. The follow-up runs in that lane's worktree (it
//! continues the branch: no fresh worktree), its plan names the conflicting files (or
//! holds the gate log's tail), and when it succeeds and its check passes the lane is
//! ready again, as after any run.
//!
//! Exactly once: the follow-up's name carries the lane's tip
//! (`<task>-conflict-<tip>`), and adding a task whose name exists is refused by the
//! store's compare-and-swap, so however many drainers see one conflicted lane, one
//! follow-up is made; a new conflict after new commits is a new tip, a new follow-up.
//! A task whose name is too long for that (a task name has at most 100 bytes) gives
//! the follow-up the start of its name, which the tip keeps apart.

use crate::agents::profile::OnLane;
use crate::lanes::LaneState;
use crate::tasks::{Continues, Task, TaskName, TaskState};

/// How much of the gate log a red lane's follow-up plan carries.
const LOG_LINES: usize = 40;
const LOG_BYTES: usize = 4000;

impl super::Drainer<'_> {
    /// Make a follow-up task for each conflicted or red lane a task of the queue made,
    /// as `[drain] on_conflict` / `on_red` ask. Failures are warnings: the lane waits.
    pub(super) fn follow_up_lanes(&mut self) {
        let settings = &self.ctx.config.drain;
        if settings.on_conflict == OnLane::Wait && settings.on_red == OnLane::Wait {
            return;
        }
        if let Err(e) = self.try_follow_up() {
            self.ui.warn(&format!(
                "cannot turn lanes into follow-up tasks: {}",
                e.message
            ));
        }
    }

    fn try_follow_up(&mut self) -> crate::error::Result<()> {
        let settings = &self.ctx.config.drain;
        let (registry, _) = self.queue.load(self.ctx)?;
        let wanted: Vec<_> = registry
            .lanes
            .iter()
            .filter(|l| match l.state {
                LaneState::Conflicted => settings.on_conflict == OnLane::Task,
                LaneState::Failed => settings.on_red == OnLane::Task,
                _ => false,
            })
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        let tasks = self.store.list()?;
        for lane in wanted {
            let on_branch = |t: &&Task| {
                t.last_run().and_then(|r| r.branch.as_deref()) == Some(lane.branch.as_str())
                    || t.continues
                        .as_ref()
                        .is_some_and(|c| c.branch == lane.branch)
            };
            // A follow-up of this lane still on its way: leave it be.
            if tasks.iter().filter(on_branch).any(|t| {
                t.continues.is_some()
                    && !matches!(
                        t.state,
                        TaskState::Succeeded | TaskState::Parked | TaskState::Cancelled
                    )
            }) {
                continue;
            }
            // The task whose run made (or last continued) the lane.
            let Some(owner) = tasks
                .iter()
                .filter(on_branch)
                .filter(|t| t.state == TaskState::Succeeded)
                .max_by_key(|t| t.last_run().and_then(|r| r.ended).unwrap_or(0))
            else {
                continue;
            };
            let Some(worktree) = owner.last_run().and_then(|r| r.worktree.clone()) else {
                continue;
            };
            let Some(tip) = self.queue.lane_tip(self.ctx, &lane.branch)? else {
                continue;
            };
            let tip = tip.to_string();
            let root = owner
                .continues
                .as_ref()
                .map(|c| c.of.clone())
                .unwrap_or_else(|| owner.name.clone());
            let (word, prompt) = if lane.state == LaneState::Conflicted {
                ("conflict", self.conflict_plan(lane))
            } else {
                ("red", self.red_plan(lane))
            };
            let name = match follow_up_name(&root, word, &tip) {
                Ok(name) => name,
                Err(e) => {
                    self.ui.warn(&format!(
                        "lane {} is {} but gets no follow-up task: {}",
                        lane.branch,
                        lane.state.as_str(),
                        e.message
                    ));
                    continue;
                }
            };
            let mut task = Task::new(&name, crate::time::now());
            task.prompt = Some(prompt);
            task.agent = owner.agent.clone();
            task.class = owner.class.clone();
            task.priority = owner.priority;
            task.max_tokens = owner.max_tokens;
            task.max_cost_usd = owner.max_cost_usd;
            task.continues = Some(Continues {
                branch: lane.branch.clone(),
                worktree,
                of: root,
                lane_state: lane.state.as_str().to_string(),
                tip,
            });
            match self.store.add(&task, None) {
                Ok(()) => self.ui.note(&format!(
                    "{name}: added: lane {} is {}; the follow-up continues it in its worktree",
                    lane.branch,
                    lane.state.as_str()
                )),
                // Another drainer made it first.
                Err(e) if e.kind == crate::error::Kind::Refused => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn conflict_plan(&self, lane: &crate::lanes::Lane) -> String {
        // With the queue on a remote, the target is the remote's (as the drainer last
        // fetched it): this clone's own branch of that name may be behind.
        let target = match self.queue.remote() {
            Some(remote) => format!("{remote}/{}", self.ctx.target()),
            None => self.ctx.target().to_string(),
        };
        let files = if lane.detail.is_empty() {
            "(fleet land named no file)".to_string()
        } else {
            lane.detail
                .iter()
                .map(|f| format!("- {f}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!(
            "The lane {branch} conflicts with {target}: `fleet land` could not put it on \
             {target}. In this worktree (branch {branch}), rebase it onto {target} \
             (`git rebase {target}`), resolve each conflicting file keeping both sides' \
             intent, `git add` it and `git rebase --continue`, so the branch ends on top of \
             {target} with the same work. fleet runs the check and makes the lane ready again.\n\n\
             The conflicting files:\n{files}\n",
            branch = lane.branch
        )
    }

    fn red_plan(&self, lane: &crate::lanes::Lane) -> String {
        let target = self.ctx.target();
        let (log, text) = match &lane.gate {
            Some(gate) => (
                gate.log.clone(),
                std::fs::read_to_string(&gate.log).unwrap_or_default(),
            ),
            None => ("(none)".to_string(), String::new()),
        };
        format!(
            "The gate ran red on the lane {branch}: landed on {target}, its tests failed. In \
             this worktree (branch {branch}), fix the failure and commit. fleet runs the check \
             and makes the lane ready again.\n\nThe gate log ({log}), its last lines:\n\n{}\n",
            super::retry::tail(&text, LOG_LINES, LOG_BYTES),
            branch = lane.branch
        )
    }
}

/// The follow-up's name, `<root>-<word>-<tip's first 8>`, with `root` cut short to fit
/// a task name's 100 bytes (task names are ASCII, so any cut is whole characters).
fn follow_up_name(root: &str, word: &str, tip: &str) -> crate::error::Result<TaskName> {
    let suffix = format!("-{word}-{}", &tip[..8.min(tip.len())]);
    let room = 100usize.saturating_sub(suffix.len()).min(root.len());
    let mut head = root.get(..room).unwrap_or(root);
    // A cut may leave a `.` or `-` at the end, which reads as a typo (`x.-red-…`).
    while head.ends_with(['.', '-', '_']) {
        head = &head[..head.len() - 1];
    }
    TaskName::parse(&format!("{head}{suffix}"))
}

/// Publish the lane of a run that ended well, before it is marked ready (a remote queue
/// only; nothing to do for a local one). A follow-up's run may have rebased its lane:
/// its branch may then replace the remote's, but only while the remote still holds the
/// tip the follow-up continued and the run started from it (`started_from`, the branch's
/// tip when the run began) or is a retry of the follow-up in that same worktree (whose
/// first run did, and whose rewrite this one starts from); else the push is refused, nobody's commits are lost, and the
/// run fails with why. Any other run's lane is published as a fast-forward.
pub(super) fn publish_lane(
    ctx: &crate::context::Context,
    queue: &crate::queue::Queue,
    store: &crate::tasks::Store,
    name: &TaskName,
    started_from: Option<crate::git::ObjectId>,
    branch: &str,
    ui: &dyn crate::report::Ui,
) -> crate::error::Result<()> {
    let continued = match queue.remote() {
        None => None,
        Some(_) => store.load(name)?.and_then(|(task, _)| {
            let tip = task.continues.as_ref().filter(|c| c.branch == branch)?;
            let tip = crate::git::ObjectId::from_hex(tip.tip.as_bytes()).ok()?;
            // This run is not its first: an earlier one began in this same worktree.
            Some((tip, task.runs.len() > 1))
        }),
    };
    match continued {
        Some((continued, retried)) => queue.publish_rewritten_lane(
            ctx,
            branch,
            crate::remote::Rewritten {
                continued,
                started_from,
                retried,
            },
            ui,
        ),
        None => queue.publish_lanes(ctx, std::slice::from_ref(&branch.to_string()), ui),
    }
}

/// Can this drainer run `task`? With the queue on a remote, a follow-up runs only in
/// the clone that has its lane's worktree (a linked worktree of this repository at the
/// path the task names): a drainer of another clone, or another machine, leaves it to
/// that one rather than fail its attempts on a worktree it cannot reach. With a local
/// queue every drainer shares the worktrees, and a worktree gone fails the attempt
/// with why ([`super::spawn::continue_in`]).
pub(super) fn runs_here(
    ctx: &crate::context::Context,
    queue: &crate::queue::Queue,
    task: &Task,
) -> bool {
    let Some(continues) = &task.continues else {
        return true;
    };
    if queue.remote().is_none() {
        return true;
    }
    let want = std::path::Path::new(&continues.worktree)
        .canonicalize()
        .ok();
    want.is_some()
        && ctx.repo.worktrees().is_ok_and(|all| {
            all.iter()
                .any(|w| !w.is_main && w.path.canonicalize().ok() == want)
        })
}

/// Has a retry of follow-up `name` found its lane moved off the tip it continued, by an
/// earlier attempt in the same worktree? Then the follow-up's work is done whether or
/// not this attempt committed: its drainer was killed after that attempt's agent
/// rebased the lane and before the lane was made ready, and the retry's agent finds
/// nothing left to do. Counted as a change, so the check runs and the lane is made
/// ready, instead of "no changes" at every attempt until the follow-up parks.
pub(super) fn moved_on(
    store: &crate::tasks::Store,
    name: &TaskName,
    placed: &super::spawn::Placed,
) -> bool {
    let Ok(Some((task, _))) = store.load(name) else {
        return false;
    };
    let Some(continues) = task
        .continues
        .as_ref()
        .filter(|c| c.branch == placed.branch)
    else {
        return false;
    };
    let Ok(continued) = crate::git::ObjectId::from_hex(continues.tip.as_bytes()) else {
        return false;
    };
    let Some((shared, branch, _)) = placed.bases.first() else {
        return false;
    };
    task.runs.len() > 1
        && crate::git::Repo::open(shared)
            .and_then(|repo| repo.branch_tip(branch))
            .is_ok_and(|tip| tip.is_some_and(|tip| tip != continued))
}
