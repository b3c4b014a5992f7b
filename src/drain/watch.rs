//! Keeping the queue honest while draining: this drainer's leases renewed, and what
//! other holders left taken back by compare-and-swap.
//!
//! A task claimed or running under another holder is taken back (its run recorded as
//! crashed, the task queued again at once: the fault was its drainer's, though the
//! attempt is used) when, in this order:
//! - its holder ran on this host and boot and its pid with that start time is gone
//!   ([`crate::tasks::Holder::alive_here`]): reaped at once, whatever its lease says;
//! - its holder is on another host and its lease expired;
//! - it was claimed more than `[drain] claim_grace` ago and never started (a claim
//!   cannot hide without a spawn), whatever its lease says.
//!
//! A task this very drainer holds but no longer runs is taken back by it at once: the
//! end of its run was not recorded (the remote unreachable just then, say), and
//! neither the checks above nor another drainer would ever take it back while this
//! one lives, so it would show running for good.
//!
//! A running task whose lane is ready is recorded as succeeded instead (reaped): its
//! drainer died after the check passed and the lane was made ready, before it recorded
//! the end, and a second run would make a second ready lane of the same work.
//!
//! A running task whose drainer left it with its check passed and its lane not yet
//! published or ready ([`crate::tasks::Run::unpublished`]) is finished instead, in the
//! clone that has the run's branch: the lane is published and made ready, and the run
//! succeeds, its agent not run again (elsewhere it is taken back as any other).
//!
//! A run taken back before its agent started may have left its worktree half made (its
//! drainer killed inside `worktree new`, or between making it and starting the agent):
//! no agent ran there, so it is removed with its branch and lane (`worktree rm`, which
//! never deletes a commit the target lacks), not left for a person to find.
//!
//! Records of agent groups that are gone (their drainer killed between dismissing the
//! guardian and removing the record) are dropped.
//!
//! A run that ended badly but was never queued again (its drainer died in between) is
//! queued again once it ended more than `claim_grace` ago. Two drainers taking back one
//! task race on one swap: the loser's is refused, and it leaves the task alone.
//!
//! A run of this drainer silent for its `abandon_after` (no output, no commit, no change
//! in its worktree: [`super::liveness`]) is abandoned: its thread stops the agent's
//! whole group as on a timeout (SIGTERM, the grace, SIGKILL, and its guardian
//! dismissed), and the run is recorded as timed out with why; the attempt is used, and
//! the task goes back through the back-off (or is parked at its cap) like any timeout.
//! A worktree too big to walk whole (its walk gave up before it found a recent change)
//! never gets a run abandoned: a change may lie beyond where the walk stopped. Nor does a
//! jump of the wall clock (an NTP step, a machine resumed): the drainer also has to have
//! watched the run's last activity stay the same for `abandon_after` on the monotonic
//! clock, which no jump moves.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use super::agent::Event;
use super::liveness::{Limits, Probe, last_activity, show_secs, whole_secs};
use super::{retry, spawn};
use crate::tasks::{Outcome, Run, Task, TaskName, TaskState};

/// What the drainer keeps to abandon silent runs: when each agent started, the last
/// activity it saw of each and since when (monotonic) it has seen that same one, the
/// runs being abandoned (why, until their group is gone), and when it last looked.
#[derive(Default)]
pub(super) struct Silences {
    started: BTreeMap<usize, i64>,
    seen: BTreeMap<usize, (i64, Instant)>,
    abandoned: BTreeMap<usize, String>,
    looked: Option<Instant>,
}

/// Whether a run is silent enough to abandon: silent for `abandon` seconds by the wall
/// clock (`quiet`), with its last activity complete (the walk did not give up), and that
/// same last activity watched for as long on the monotonic clock (`watched`), so a jump
/// of the wall clock alone abandons nothing.
fn abandons(quiet: i64, complete: bool, watched: Duration, abandon: i64) -> bool {
    quiet >= abandon && complete && watched.as_secs() as i64 >= abandon
}

impl super::Drainer<'_> {
    /// An event of a run's thread: an abandoned run's end is recorded here (timed out,
    /// with why), every other goes on to [`Self::handle`].
    pub(super) fn on_event(&mut self, event: Event) {
        match &event {
            Event::Started { key, at, .. } => {
                self.silences.started.insert(*key, *at);
                self.silences.seen.insert(*key, (*at, Instant::now()));
            }
            Event::Exited { key, stopped, .. } => {
                let key = *key;
                self.silences.started.remove(&key);
                self.silences.seen.remove(&key);
                let why = self.silences.abandoned.remove(&key);
                // Not `stopped`: it ended by itself before the stop reached it.
                if let Some(why) = why
                    && *stopped
                    && let Some(live) = self.live.get(&key)
                    && !live.lost
                {
                    let wait = retry::backoff(&self.ctx.config.drain, live.run.attempt);
                    self.settle(key, Outcome::TimedOut, why, false, wait);
                    return;
                }
            }
            _ => {}
        }
        self.handle(event);
    }

    /// Abandon each running agent of this drainer silent for its `abandon_after` (see
    /// the module's doc). Looked at every quarter of the shortest `abandon_after` (from a
    /// quarter second to ten seconds).
    pub(super) fn abandon_silent(&mut self) {
        let drain = &self.ctx.config.drain;
        let Some(shortest) = self
            .live
            .values()
            .filter_map(|l| Limits::of(Some(&l.profile), drain).abandon_after)
            .min()
        else {
            return;
        };
        let every = (shortest / 4).clamp(Duration::from_millis(250), Duration::from_secs(10));
        if self.silences.looked.is_some_and(|t| t.elapsed() < every) {
            return;
        }
        self.silences.looked = Some(Instant::now());
        let mut silent = Vec::new();
        for (key, live) in &self.live {
            let Some(abandon) = Limits::of(Some(&live.profile), drain).abandon_after else {
                continue;
            };
            let Some(&started) = self.silences.started.get(key) else {
                continue;
            };
            if live.lost || self.silences.abandoned.contains_key(key) {
                continue;
            }
            let probe = Probe {
                run_dir: live
                    .report
                    .stdout
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
                worktree: live.report.worktree.clone(),
                branch: live.report.branch.clone(),
                started,
            };
            let abandon = whole_secs(abandon);
            let now = crate::time::now();
            let last = last_activity(&self.ctx.repo, &probe, now - abandon);
            let quiet = now - last.at;
            let seen = self
                .silences
                .seen
                .entry(*key)
                .or_insert((last.at, Instant::now()));
            if seen.0 != last.at {
                *seen = (last.at, Instant::now());
            }
            // A walk that gave up before a recent change may have missed one: no
            // agent is killed on that say (its timeout still ends it).
            if abandons(quiet, last.complete, seen.1.elapsed(), abandon) {
                silent.push((
                    *key,
                    format!(
                        "abandoned: no output and no commit for {} (nor a change in its worktree; abandon_after = {})",
                        show_secs(quiet),
                        show_secs(abandon)
                    ),
                ));
            }
        }
        for (key, why) in silent {
            let Some(live) = self.live.get(&key) else {
                continue;
            };
            self.ui
                .note(&format!("{}: {why}; stopping its agent's group", live.name));
            live.abort.store(true, std::sync::atomic::Ordering::SeqCst);
            self.silences.abandoned.insert(key, why);
        }
    }

    /// Renew the lease of every run this drainer holds; a run it lost is stopped.
    pub(super) fn renew(&mut self) {
        let expires = crate::time::now() + self.ctx.config.drain.lease.0.as_secs() as i64;
        for live in self.live.values_mut() {
            if live.lost {
                continue;
            }
            if let Err(e) = self.store.renew(&live.name, &live.run.id, expires) {
                if e.kind == crate::error::Kind::Refused {
                    self.ui.warn(&format!(
                        "{}: lost the task ({}); stopping its agent",
                        live.name, e.message
                    ));
                    live.lost = true;
                    live.abort.store(true, std::sync::atomic::Ordering::SeqCst);
                } else {
                    self.ui.warn(&format!(
                        "{}: the lease was not renewed: {}",
                        live.name, e.message
                    ));
                }
            }
        }
    }

    /// Take back what dead, stale or expired holders left (see the module's doc).
    pub(super) fn watch(&mut self) {
        // A drainer killed between dismissing an agent's guardian and removing its
        // group's record leaves the record of a group that is gone: drop those (as
        // doctor's orphan check does on its way), so the next drainer leaves none.
        let _ = crate::proc::registry::orphans([self.ctx.repo.common_dir()]);
        let tasks = match self.store.list() {
            Ok(tasks) => tasks,
            Err(e) => {
                self.ui
                    .warn(&format!("cannot list the task queue: {}", e.message));
                return;
            }
        };
        let ours: HashSet<String> = self.live.values().map(|l| l.run.id.clone()).collect();
        let now = crate::time::now();
        let grace = self.ctx.config.drain.claim_grace.0.as_secs() as i64;
        for task in tasks {
            let Some(run) = task.last_run() else {
                continue;
            };
            if ours.contains(&run.id) {
                continue;
            }
            let Ok(name) = TaskName::parse(&task.name) else {
                continue;
            };
            let holder = &run.holder;
            let why = match task.state {
                TaskState::Claimed | TaskState::Running => {
                    let alive = holder.alive_here();
                    if *holder == self.holder {
                        // Held by this very drainer, which no longer runs it.
                        Some(format!(
                            "its drainer (pid {} on {}, this one) no longer runs it: the run's end was not recorded",
                            holder.pid, holder.host
                        ))
                    } else if alive == Some(false) {
                        Some(format!(
                            "its drainer (pid {} on {}) is gone",
                            holder.pid, holder.host
                        ))
                    } else if alive.is_none() && now >= run.lease_expires {
                        Some(format!(
                            "the lease of pid {} on {} expired {}s ago",
                            holder.pid,
                            holder.host,
                            now - run.lease_expires
                        ))
                    } else if task.state == TaskState::Claimed && now >= run.claimed + grace {
                        Some(format!(
                            "claimed by pid {} on {} and not running after {grace}s (a stale claim)",
                            holder.pid, holder.host
                        ))
                    } else {
                        None
                    }
                }
                s if (s.is_failure() || s == TaskState::Limited)
                    && run.ended.is_some_and(|at| now >= at + grace) =>
                {
                    let _ = retry::requeue(
                        self.ctx,
                        self.store,
                        &name,
                        &run.id,
                        now,
                        Duration::ZERO,
                        &self.holder,
                        self.ui,
                    );
                    None
                }
                TaskState::Parked => {
                    let lease = self.ctx.config.drain.lease.0;
                    retry::notify_for_the_gone(
                        self.ctx,
                        self.store,
                        &task,
                        &self.holder,
                        now,
                        lease,
                        self.ui,
                    );
                    None
                }
                _ => None,
            };
            let Some(mut why) = why else {
                continue;
            };
            if task.state == TaskState::Running
                && let Some(left) = &run.unpublished
                && !self.lane_is_ready(run)
                && self.finish_unpublished(&name, run, left, &why, now)
            {
                continue;
            }
            // Killed after its check passed and its lane was made ready, before the end
            // was recorded: the run succeeded, and running it again would make a second
            // ready lane of the same work.
            let succeeded = task.state == TaskState::Running && self.lane_is_ready(run);
            let outcome = if succeeded {
                why = format!("{why}; its lane was ready, so the run succeeded");
                Outcome::Succeeded
            } else {
                Outcome::Crashed
            };
            let error = (!succeeded).then(|| why.clone());
            let ended = self.store.end(&name, &run.id, outcome, error, false, now);
            if let Err(e) = ended {
                // Another drainer took it back first, or its holder moved it: refused,
                // and nothing to say. Anything else (a lock in the way) leaves the run
                // held by the gone, so it is said.
                if e.kind != crate::error::Kind::Refused {
                    self.ui.warn(&format!(
                        "{name}: run {} could not be taken back ({why}): {}",
                        run.id, e.message
                    ));
                }
                continue;
            }
            self.ui
                .note(&format!("{name}: run {} taken back: {why}", run.id));
            // Its drainer and the agent's guardian both died here: what the agent started
            // outside its group (a daemon, `setsid`) still carries the run's tag.
            if run.holder.alive_here().is_some() {
                crate::proc::escaped::stop_tagged(
                    crate::proc::escaped::RUN_VAR,
                    &run.id,
                    crate::proc::DEFAULT_GRACE,
                );
            }
            if run.started.is_none() {
                self.remove_unstarted_worktree(&task, run);
            }
            if succeeded {
                self.report.taken_back.push(super::TakenBack {
                    task: task.name.clone(),
                    run: run.id.clone(),
                    why,
                    state: TaskState::Succeeded,
                });
                continue;
            }
            let state = retry::requeue(
                self.ctx,
                self.store,
                &name,
                &run.id,
                now,
                Duration::ZERO,
                &self.holder,
                self.ui,
            )
            .map(|t| t.state)
            .unwrap_or(TaskState::Crashed);
            self.report.taken_back.push(super::TakenBack {
                task: task.name.clone(),
                run: run.id.clone(),
                why,
                state,
            });
        }
    }

    /// Remove the worktree of `run`, taken back before its agent started (see the
    /// module's doc), when it is in this repository's worktree root. A worktree made
    /// elsewhere (another clone or machine) is not found here and is left alone.
    pub(super) fn remove_unstarted_worktree(&self, task: &Task, run: &Run) {
        let name = run
            .worktree
            .as_deref()
            .and_then(|p| Path::new(p).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| spawn::worktree_name(task, run));
        let Ok(agent) = crate::worktree::AgentName::parse(&name) else {
            return;
        };
        let folder = self.ctx.worktree_root().join(&name);
        let branch = self.ctx.branch_for(&name);
        let present = folder.exists() || self.ctx.repo.branch_tip(&branch).ok().flatten().is_some();
        if !present {
            return;
        }
        let removed = crate::worktree::rm(self.ctx, &agent, true)
            .map(|_| ())
            .or_else(|e| {
                // What `worktree rm` cannot read: a folder git never registered (killed
                // before that), or a record gix's add left half written (its HEAD still
                // the null id). The name is this run's own and no agent worked there: the
                // folder goes, then the records left pointing nowhere, then (rm again) the
                // branches, which have no commits of their own.
                if !folder.exists() {
                    return Err(e);
                }
                crate::files::remove_tree(&folder).map_err(|io| {
                    crate::error::Error::env(format!("cannot remove {}: {io}", folder.display()))
                })?;
                crate::worktree::prune(self.ctx)?;
                match crate::worktree::rm(self.ctx, &agent, true) {
                    Err(e) if e.kind == crate::error::Kind::Refused => Ok(()),
                    other => other.map(|_| ()),
                }
            });
        // The branches settled, a folder git never registered may still be there.
        let bare = || {
            folder.exists()
                && crate::worktree::list(self.ctx)
                    .is_ok_and(|all| all.iter().all(|w| w.path.file_name() != folder.file_name()))
        };
        let removed = removed.and_then(|()| {
            if bare() {
                crate::files::remove_tree(&folder).map_err(|io| {
                    crate::error::Error::env(format!("cannot remove {}: {io}", folder.display()))
                })?;
            }
            Ok(())
        });
        match removed {
            Ok(()) => self.ui.note(&format!(
                "{}: removed the worktree {name} of run {}, whose agent never started",
                task.name, run.id
            )),
            Err(e) => self.ui.warn(&format!(
                "{}: the worktree {name} of run {} (whose agent never started) was not removed: {}",
                task.name, run.id, e.message
            )),
        }
    }

    /// Finish run `run` of task `name`, left by its drainer (`why` says how) with its
    /// check passed and its lane not ready (`left`): publish the lane and make it ready,
    /// then record the run as succeeded; the agent does not run again. Only in the
    /// clone that has the run's branch (false elsewhere: the run is taken back as any
    /// other). An error of the environment leaves it for a later pass (the pause
    /// doubling, as its drainer's did), for at most [`super::reap::PUBLISH_LEFT_FOR`] from
    /// the check; a refusal, or that long, fails the attempt as after any run.
    fn finish_unpublished(
        &mut self,
        name: &TaskName,
        run: &Run,
        left: &crate::tasks::Unpublished,
        why: &str,
        now: i64,
    ) -> bool {
        use super::reap::{PUBLISH_LEFT_FOR, make_ready, publish_pause, retryable};
        let Some(branch) = run.branch.as_deref() else {
            return false;
        };
        if !self.ctx.repo.branch_tip(branch).is_ok_and(|t| t.is_some()) {
            return false;
        }
        // A run this drainer left already waits out its pause; one a gone drainer left
        // is tried at once (a drainer's first look may be its only one, `--once`).
        if run.holder == self.holder
            && now < left.tried + publish_pause(left.tries).as_secs() as i64
        {
            return true;
        }
        let started_from = left
            .started_from
            .as_deref()
            .and_then(|h| crate::git::ObjectId::from_hex(h.as_bytes()).ok());
        let log = std::path::PathBuf::from(&left.log);
        let ready = make_ready(
            self.ctx,
            self.queue,
            self.store,
            name,
            started_from,
            branch,
            0,
            &log,
            self.ui,
        );
        let (outcome, error) = match ready {
            Ok(()) => (Outcome::Succeeded, None),
            Err(e) if retryable(&e) && now < left.checked + PUBLISH_LEFT_FOR.as_secs() as i64 => {
                let mut again = left.clone();
                again.error = e.message.clone();
                again.tried = now;
                again.tries += 1;
                let _ = self.store.unpublished(name, &run.id, &again);
                self.ui.warn(&format!(
                    "{name}: run {} ({why}) passed its check, but its lane {branch} could not \
                     be made ready yet: {}; tried again later",
                    run.id, e.message
                ));
                return true;
            }
            Err(e) => (
                Outcome::Failed,
                Some(format!(
                    "its check passed, but the lane {branch} could not be made ready: {}",
                    e.message
                )),
            ),
        };
        if self
            .store
            .end(name, &run.id, outcome, error.clone(), false, now)
            .is_err()
        {
            // Another drainer finished it first, or its holder moved it.
            return true;
        }
        let state = match &error {
            None => {
                self.ui.note(&format!(
                    "{name}: run {} ({why}) had passed its check: its lane {branch} is ready now, \
                     and the run succeeded",
                    run.id
                ));
                TaskState::Succeeded
            }
            Some(error) => {
                self.ui
                    .note(&format!("{name}: run {} failed: {error}", run.id));
                let wait = retry::backoff(&self.ctx.config.drain, run.attempt);
                retry::requeue(
                    self.ctx,
                    self.store,
                    name,
                    &run.id,
                    now,
                    wait,
                    &self.holder,
                    self.ui,
                )
                .map(|t| t.state)
                .unwrap_or(TaskState::Failed)
            }
        };
        self.report.taken_back.push(super::TakenBack {
            task: name.to_string(),
            run: run.id.clone(),
            why: why.to_string(),
            state,
        });
        true
    }

    /// Is `run`'s branch a lane marked ready (its check passed: a failing one leaves
    /// the lane running)? An unreadable registry counts as not ready.
    fn lane_is_ready(&self, run: &Run) -> bool {
        let Some(branch) = run.branch.as_deref() else {
            return false;
        };
        self.queue.load(self.ctx).is_ok_and(|(registry, _)| {
            registry
                .get(branch)
                .is_some_and(|l| l.state == crate::lanes::LaneState::Ready)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_clock_jump_abandons_no_run_the_drainer_has_not_watched_that_long() {
        let ten_hours = 36_000;
        // The clock jumped: ten hours of silence by the wall clock, one second watched.
        assert!(!abandons(ten_hours, true, Duration::from_secs(1), 60));
        // Silent for real: both clocks agree.
        assert!(abandons(61, true, Duration::from_secs(61), 60));
        assert!(abandons(ten_hours, true, Duration::from_secs(60), 60));
        // Watched long enough but the wall clock says it was active lately.
        assert!(!abandons(30, true, Duration::from_secs(600), 60));
        // A walk that gave up abandons nothing.
        assert!(!abandons(
            ten_hours,
            false,
            Duration::from_secs(ten_hours as u64),
            60
        ));
    }
}
