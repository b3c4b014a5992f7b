//! `[drain] cleanup = true`: a task whose lane has landed gets its worktree removed and
//! its lane untracked, by the drainer, in its loop.
//!
//! The removal is `fleet worktree rm`'s own ([`crate::worktree::rm_in`] on the
//! drainer's queue, without `--force`),
//! so it never deletes a commit the target lacks, nor uncommitted changes, nor a
//! repository made inside the worktree: whatever it refuses is kept, with a warning
//! (once per lane and tip in a drainer's life). Only a worktree the drainer made for
//! one of the task's own runs goes (its path and branch are the run's, as
//! [`super::spawn::worktree_name`] names them), never one a person made, and never
//! while a task on that lane is still to run (a follow-up continues in that worktree).
//! The task keeps its state and runs; the landing keeps its receipt, and a lane is
//! untracked only when a receipt in the target names it ([`crate::queue::Queue::landing_of`]),
//! so where it landed can still be told.
//!
//! A worktree some process works in (its working folder there: a person's shell, an
//! editor, a server left running) is kept too, naming it: the drainer removes folders
//! on its own, in a loop, and must not pull one from under someone looking at what
//! landed. The next pass after that process left removes it.
//!
//! A drainer killed inside `worktree rm`, after the branch was deleted and before the
//! lane was untracked, leaves a landed lane with neither worktree nor branch: the next
//! pass untracks it (a branch gone has no commits since its landing).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::error::Result;
use crate::lanes::{Lane, LaneState};
use crate::tasks::{Task, TaskState};
use crate::worktree::AgentName;

/// The lanes (branch and tip) this process already warned it keeps, so a kept
/// worktree is said once, not at every pass of the loop.
static WARNED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// A landed lane's worktree the drainer made, as found from a task's run.
struct Landed {
    task: String,
    branch: String,
    agent: AgentName,
    path: PathBuf,
    /// Still there, registered as an agent worktree (else removed by hand, or by an
    /// earlier pass whose untrack failed: only the lane is left to untrack).
    present: bool,
}

impl super::Drainer<'_> {
    /// Remove the worktrees of landed tasks and untrack their lanes, as `[drain]
    /// cleanup` asks. Failures are warnings: the worktree stays.
    pub(super) fn clean_up_landed(&mut self) {
        if !self.ctx.config.drain.cleanup {
            return;
        }
        if let Err(e) = self.try_clean_up() {
            self.ui.warn(&format!(
                "cannot clean up landed tasks' worktrees: {}",
                e.message
            ));
        }
    }

    fn try_clean_up(&mut self) -> Result<()> {
        let (registry, _) = self.queue.load(self.ctx)?;
        let landed: Vec<&Lane> = registry
            .lanes
            .iter()
            .filter(|l| l.state == LaneState::Landed && l.landed_tip.is_some())
            .collect();
        if landed.is_empty() {
            return Ok(());
        }
        let tasks = self.store.list()?;
        for lane in landed {
            // Commits on the lane's branch since it landed are new work: not landed. A
            // branch gone (a removal cut short after deleting it) has none.
            let tip = self.queue.lane_tip(self.ctx, &lane.branch)?;
            if tip.is_some() && tip != lane.landed_tip {
                continue;
            }
            let Some(found) = self.landed_worktree(lane, &tasks) else {
                continue;
            };
            self.clean_up(lane, &found)?;
        }
        Ok(())
    }

    /// The worktree one of the tasks on `lane` made for a run of its own, when every
    /// task on the lane is done with it (none still to run or running, so no follow-up
    /// continues in it).
    fn landed_worktree(&self, lane: &Lane, tasks: &[Task]) -> Option<Landed> {
        let on_lane = |t: &&Task| {
            t.runs
                .iter()
                .any(|r| r.branch.as_deref() == Some(lane.branch.as_str()))
                || t.continues
                    .as_ref()
                    .is_some_and(|c| c.branch == lane.branch)
        };
        let mut found = None;
        for task in tasks.iter().filter(on_lane) {
            if !matches!(
                task.state,
                TaskState::Succeeded | TaskState::Parked | TaskState::Cancelled
            ) {
                return None;
            }
            // A follow-up works in another task's worktree: that task's run names it.
            if task.continues.is_some() || found.is_some() {
                continue;
            }
            found = task.runs.iter().rev().find_map(|run| {
                let name = super::spawn::worktree_name(task, run);
                let path = self.ctx.worktree_root().join(&name);
                let own = run.branch.as_deref() == Some(lane.branch.as_str())
                    && self.ctx.branch_for(&name) == lane.branch
                    && run
                        .worktree
                        .as_deref()
                        .is_some_and(|w| same_path(std::path::Path::new(w), &path));
                let agent = AgentName::parse(&name).ok()?;
                let present = matches!(crate::worktree::path_of(self.ctx, &agent), Ok(Ok(_)));
                own.then(|| Landed {
                    task: task.name.clone(),
                    branch: lane.branch.clone(),
                    agent,
                    path,
                    present,
                })
            });
        }
        found
    }

    /// Remove `found`'s worktree as `fleet worktree rm` does, and untrack `lane`.
    fn clean_up(&self, lane: &Lane, found: &Landed) -> Result<()> {
        let tip = lane.landed_tip.map(|t| t.to_string()).unwrap_or_default();
        let key = format!("{}@{tip}", lane.branch);
        let dirty = if found.present {
            crate::worktree::uncommitted(self.ctx, &found.branch)?
        } else {
            Vec::new()
        };
        if !dirty.is_empty() {
            self.warn_once(
                &key,
                &format!(
                    "{}: kept the worktree {} of landed lane {}: it has uncommitted changes ({})",
                    found.task,
                    found.path.display(),
                    found.branch,
                    dirty.join("; ")
                ),
            );
            return Ok(());
        }
        // Untracked, the lane's fate is read from its receipt: one must name it (read
        // last: it reads every receipt).
        if lane.landed_as.is_none()
            || self.queue.landing_of(self.ctx, &lane.branch)? != lane.landed_as
        {
            self.warn_once(
                &key,
                &format!(
                    "{}: kept the worktree {} of landed lane {}: no receipt in the target names its landing",
                    found.task,
                    found.path.display(),
                    found.branch
                ),
            );
            return Ok(());
        }
        if !found.present {
            self.queue
                .untrack(self.ctx, std::slice::from_ref(&found.branch))?;
            self.ui.note(&format!(
                "{}: lane {} landed and its worktree {} is gone already: untracked the lane",
                found.task,
                found.branch,
                found.path.display()
            ));
            return Ok(());
        }
        let users = working_in(&found.path);
        if !users.is_empty() {
            self.warn_once(
                &key,
                &format!(
                    "{}: kept the worktree {} of landed lane {}: a process works in it ({}); it goes at a pass after that ends",
                    found.task,
                    found.path.display(),
                    found.branch,
                    users.join(", ")
                ),
            );
            return Ok(());
        }
        let removed = match crate::worktree::rm_in(self.ctx, self.queue, &found.agent, false) {
            Ok(removed) => removed,
            Err(e) => {
                self.warn_once(
                    &key,
                    &format!(
                        "{}: kept the worktree {} of landed lane {}: {}",
                        found.task,
                        found.path.display(),
                        found.branch,
                        e.message
                    ),
                );
                return Ok(());
            }
        };
        // `worktree rm` untracks the lane in this repository's own registry when it
        // deleted the branch; the queue's copy (a remote's, say) goes here.
        if self.queue.load(self.ctx)?.0.get(&found.branch).is_some() {
            self.queue
                .untrack(self.ctx, std::slice::from_ref(&found.branch))?;
        }
        let branch = if removed
            .branches_deleted
            .iter()
            .any(|b| b.branch == found.branch)
        {
            "its branch deleted (its changes are in the target)"
        } else {
            "its branch kept"
        };
        self.ui.note(&format!(
            "{}: lane {} landed: removed its worktree {}, {branch}, and untracked the lane",
            found.task,
            found.branch,
            found.path.display()
        ));
        Ok(())
    }

    /// Say `message` unless this process said it for `key` already.
    fn warn_once(&self, key: &str, message: &str) {
        let first = WARNED
            .lock()
            .map(|mut warned| warned.insert(key.to_string()))
            .unwrap_or(true);
        if first {
            self.ui.warn(message);
        }
    }
}

/// The processes (other than this one) whose working folder is `path` or inside it,
/// each as `pid N (COMMAND)`.
fn working_in(path: &std::path::Path) -> Vec<String> {
    let me = std::process::id();
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    crate::sys::procfs::working_under(&path)
        .into_iter()
        .filter(|pid| *pid != me)
        .map(|pid| {
            let command = crate::sys::procfs::comm(pid)
                .map(|c| String::from_utf8_lossy(&c).trim().to_string())
                .unwrap_or_default();
            format!("pid {pid} ({command})")
        })
        .collect()
}

/// One folder, however named: resolved when it exists, else normalized (a worktree
/// removed already).
fn same_path(a: &std::path::Path, b: &std::path::Path) -> bool {
    let resolve = |p: &std::path::Path| {
        p.canonicalize()
            .unwrap_or_else(|_| crate::context::normalize(p))
    };
    resolve(a) == resolve(b)
}
