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
//! A run that ended badly but was never queued again (its drainer died in between) is
//! queued again once it ended more than `claim_grace` ago. Two drainers taking back one
//! task race on one swap: the loser's is refused, and it leaves the task alone.

use std::collections::HashSet;
use std::time::Duration;

use super::retry;
use crate::tasks::{Outcome, TaskName, TaskState};

impl super::Drainer<'_> {
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
                    if alive == Some(false) {
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
                        self.ui,
                    );
                    None
                }
                _ => None,
            };
            let Some(why) = why else {
                continue;
            };
            let ended = self.store.end(
                &name,
                &run.id,
                Outcome::Crashed,
                Some(why.clone()),
                false,
                now,
            );
            if ended.is_err() {
                // Another drainer took it back first, or its holder moved it.
                continue;
            }
            self.ui
                .note(&format!("{name}: run {} taken back: {why}", run.id));
            let state = retry::requeue(
                self.ctx,
                self.store,
                &name,
                &run.id,
                now,
                Duration::ZERO,
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
}
