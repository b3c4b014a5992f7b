//! What a run's end means: the verdict ([`crate::agents::result::classify`] by the
//! profile's result kind), "no changes" for a success that committed nothing, the check
//! on success, the lane made ready with the check's exit code and log (as `fleet ready
//! --exit-code N --log FILE` does: [`crate::lanes::WorkerTest::record`] and
//! [`crate::queue::Queue::ready`]), and the task's next state.
//!
//! A run whose check passed is not failed when only its publish or its ready hits an
//! error of the environment (the remote out of reach, a hook there saying no with
//! nothing moved, a lock held): the agent's work is good, and a retry would run it
//! again. The task stays running, the run keeps what it needs ([`Unpublished`], stored
//! on the task when the queue can be written), and the drainer tries the publish and
//! the ready again after a pause ([`publish_pause`]) for [`PUBLISH_FOR`], then fails the
//! attempt. A drainer that stops or dies meanwhile leaves it to the next drainer of
//! the clone that has the run's branch (`watch`). A refusal (the lane moved, a landed
//! lane) fails the attempt at once, as before.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::agent::{self, Event};
use super::retry;
use super::spawn;
use crate::agents::result::{Ended, Verdict, classify};
use crate::tasks::{Outcome, Run, TaskName, TaskState, Unpublished};

/// How long a drainer tries again, itself, to publish and ready the lane of a run whose
/// check passed before it fails the attempt; a drainer of the same clone that finds the
/// run left by a gone one tries for [`PUBLISH_LEFT_FOR`] from the check.
const PUBLISH_FOR: Duration = Duration::from_secs(600);
pub(super) const PUBLISH_LEFT_FOR: Duration = Duration::from_secs(3600);

/// A run whose check passed, waiting for its lane to be published and made ready: what
/// is kept of it ([`Run::unpublished`]), since when, and when it is tried next.
pub(super) struct Pending {
    record: Unpublished,
    /// The record is on the task (the queue could be written at the last try).
    stored: bool,
    first: Instant,
    next: Instant,
}

/// The pause after the `tries`th failed try at a lane's publish: a second, doubled at
/// each try, at most half a minute.
pub(super) fn publish_pause(tries: u32) -> Duration {
    Duration::from_secs((1u64 << tries.saturating_sub(1).min(5)).min(30))
}

/// An error a later try can get past: of the environment (the remote unreachable, the
/// fetch of one drainer racing another's) or a lock held.
pub(super) fn retryable(e: &crate::error::Error) -> bool {
    matches!(
        e.kind,
        crate::error::Kind::Environment | crate::error::Kind::Locked
    )
}

/// Publish the lane `branch` of task `name`'s run (a remote queue only) and mark it
/// ready with the check's exit `code` and `log`, as `fleet ready --exit-code --log`
/// does. Safe to repeat: a branch the remote has already is not pushed again, and a
/// ready lane is made ready again.
#[allow(clippy::too_many_arguments)]
pub(super) fn make_ready(
    ctx: &crate::context::Context,
    queue: &crate::queue::Queue,
    store: &crate::tasks::Store,
    name: &TaskName,
    started_from: Option<crate::git::ObjectId>,
    branch: &str,
    code: i32,
    log: &Path,
    ui: &dyn crate::report::Ui,
) -> crate::error::Result<()> {
    let worker = crate::lanes::WorkerTest::record(&ctx.repo, code, Some(log))?;
    let lanes = std::slice::from_ref(&branch.to_string()).to_vec();
    // Through a remote this fetches, racing the other drainers of this clone.
    crate::tasks::store::fetch_retried(|| {
        super::follow::publish_lane(ctx, queue, store, name, started_from, branch, ui)?;
        queue.ready(ctx, &lanes, Some(worker.clone()))
    })?;
    crate::failpoint::hit("drain-after-ready")
}

/// What of an agent's output is read to classify it (a result document is small; a
/// runaway agent's output is not read whole).
const READ_AT_MOST: u64 = 32 << 20;

/// An agent's output, whole when it is at most [`READ_AT_MOST`], else its first and its
/// last half of that, a line break between. The end is what tells a run's end: claude's
/// and codex's result event is the stream's last line, and the tail of stderr is what a
/// retry's plan quotes. A long transcript read from the start only would lose them.
fn read_capped(path: &Path) -> Vec<u8> {
    use std::io::{Read, Seek, SeekFrom};
    let mut buf = Vec::new();
    let Ok(mut f) = std::fs::File::open(path) else {
        return buf;
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len <= READ_AT_MOST {
        let _ = f.read_to_end(&mut buf);
        return buf;
    }
    let half = READ_AT_MOST / 2;
    let _ = (&mut f).take(half).read_to_end(&mut buf);
    buf.push(b'\n');
    if f.seek(SeekFrom::Start(len - half)).is_ok() {
        let _ = f.take(half).read_to_end(&mut buf);
    }
    buf
}

/// How an agent that says it succeeded left its worktree, when that is not as a lane
/// needs it: the worktree gone, HEAD off the run's branch (detached, or another branch:
/// only the run's branch becomes the lane), or changes not committed (only commits land,
/// and the check would test them too). Said to the next attempt, which then knows.
fn left_behind(placed: &spawn::Placed) -> Option<String> {
    let path = placed.path.display();
    let Ok(repo) = crate::git::Repo::open(&placed.path) else {
        return Some(format!(
            "the agent deleted its worktree {path} (or made it no repository): nothing of it \
             can be checked"
        ));
    };
    let short = placed
        .branch
        .strip_prefix("refs/heads/")
        .unwrap_or(&placed.branch);
    match repo.head_branch() {
        Ok(Some(head)) if head == short => {}
        Ok(Some(other)) => {
            return Some(format!(
                "the agent left its worktree on branch `{other}`, not on the run's branch {short}: \
                 only {short} becomes the lane, so commit there and stay on it"
            ));
        }
        Ok(None) => {
            let at = repo
                .head_id()
                .ok()
                .flatten()
                .map(|id| format!(" at {}", &id.to_string()[..12]))
                .unwrap_or_default();
            return Some(format!(
                "the agent left its worktree's HEAD detached{at}, not on the run's branch {short}: \
                 only {short} becomes the lane, so commit there and stay on it"
            ));
        }
        Err(e) => return Some(format!("cannot read the worktree's HEAD: {}", e.message)),
    }
    match repo.dirty_paths(6) {
        Ok(paths) if paths.is_empty() => None,
        Ok(mut paths) => {
            let more = if paths.len() > 5 { ", ..." } else { "" };
            paths.truncate(5);
            Some(format!(
                "the agent left changes it did not commit in {path} ({}{more}): only commits \
                 land, so commit them (or remove them, or ignore them in .gitignore)",
                paths.join(", ")
            ))
        }
        Err(e) => Some(format!("cannot read the worktree's status: {}", e.message)),
    }
}

/// What the guard refused the agent during its run: the refusals in guard.log, since the
/// run was claimed, of git commands run in its worktree (or a nested repository's inside
/// it). An agent that tried to move a target branch or push past `fleet land` has not
/// done what a run does, whatever it says after; its run fails, naming what it tried.
fn guard_refused(common: &Path, placed: &spawn::Placed, since: i64) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    /// The end of the log that is read: the refusals of one run are among its last.
    const TAIL: u64 = 1 << 20;
    let mut file = std::fs::File::open(crate::state::dir(common).join("guard.log")).ok()?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let mut refused: Vec<String> = Vec::new();
    for line in tail.split(|b| *b == b'\n') {
        let Ok(entry) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let here = entry["worktree"]
            .as_str()
            .is_some_and(|w| Path::new(w).starts_with(&placed.path));
        let what = entry["what"].as_str().or(entry["detail"].as_str());
        if entry["event"] == "refused"
            && here
            && entry["time"].as_i64().is_some_and(|t| t >= since)
            && let Some(what) = what
            && !refused.iter().any(|r| r == what)
        {
            refused.push(what.to_string());
        }
    }
    if refused.is_empty() {
        return None;
    }
    let more = if refused.len() > 3 { "; ..." } else { "" };
    refused.truncate(3);
    Some(format!(
        "the guard refused what the agent tried: {}{more}. A run commits on its own branch \
         only; `fleet land` moves the target",
        refused.join("; ")
    ))
}

impl super::Drainer<'_> {
    pub(super) fn handle(&mut self, event: Event) {
        match event {
            Event::Started { key, pgid, at } => self.started(key, pgid, at),
            Event::NotStarted { key, error } => {
                if let Some(live) = self.live.remove(&key) {
                    self.settle_unstarted(&live.name, &live.run, live.report, error);
                }
            }
            Event::Exited {
                key,
                code,
                timed_out,
                stopped,
                flooded,
            } => self.exited(key, code, timed_out, stopped, flooded),
            Event::Checked {
                key,
                code,
                stopped,
                log,
                error,
            } => self.checked(key, code, stopped, log, error),
        }
    }

    /// The agent runs: claimed -> running, with its group and start time in one update.
    /// A claim this drainer lost meanwhile (taken back as stale) stops the agent.
    fn started(&mut self, key: usize, pgid: i32, at: i64) {
        let Some(live) = self.live.get_mut(&key) else {
            return;
        };
        live.started = true;
        // A refusal means the task is no longer ours; any other error (a fetch of the
        // remote that failed just then) is tried again twice before the agent is given up.
        let mut running = Err(crate::error::Error::env("not tried"));
        for pause in [0, 250, 1000] {
            std::thread::sleep(Duration::from_millis(pause));
            running = crate::failpoint::hit("drain-before-running")
                .and_then(|()| self.store.start(&live.name, &live.run.id, pgid, at));
            if !matches!(&running, Err(e) if e.kind != crate::error::Kind::Refused) {
                break;
            }
        }
        match running {
            Ok(_) => self.ui.note(&format!(
                "{}: running in {} (process group {pgid})",
                live.name,
                live.report
                    .worktree
                    .as_deref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )),
            Err(e) => {
                self.ui.warn(&format!(
                    "{}: lost the task, stopping its agent: {}",
                    live.name, e.message
                ));
                live.lost = true;
                live.abort.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }

    fn exited(&mut self, key: usize, code: i32, timed_out: bool, stopped: bool, flooded: bool) {
        let Some(live) = self.live.get(&key) else {
            return;
        };
        // The group is stopped; what the agent started outside it (`setsid`, a daemon's
        // double fork) still carries the run's tag in its environment.
        let escaped = crate::proc::escaped::stop_tagged(
            crate::proc::escaped::RUN_VAR,
            &live.run.id,
            crate::proc::DEFAULT_GRACE,
        );
        if !escaped.is_empty() {
            let pids: Vec<String> = escaped.iter().map(u32::to_string).collect();
            self.ui.warn(&format!(
                "{}: stopped {} process(es) the agent left running outside its process group \
                 (setsid or a double fork): {}",
                live.name,
                escaped.len(),
                pids.join(", ")
            ));
        }
        if live.lost {
            let live = self.live.remove(&key).expect("present");
            self.report.runs.push(live.report);
            return;
        }
        if let Err(e) = crate::failpoint::hit("drain-before-reap") {
            self.settle(key, Outcome::Crashed, e.message, false, Duration::ZERO);
            return;
        }
        if flooded {
            let max = self.ctx.config.drain.max_output_mib;
            let why = format!(
                "its output passed [drain] max_output_mib ({max} MiB): its group was stopped \
                 (an agent stuck printing; the logs keep what it wrote)"
            );
            let wait = retry::backoff(&self.ctx.config.drain, live.run.attempt);
            self.settle(key, Outcome::Failed, why, false, wait);
            return;
        }
        let stdout = read_capped(&live.report.stdout);
        let stderr = read_capped(&live.report.stderr);
        let now = crate::time::now();
        let ended = Ended {
            code,
            timed_out,
            stopped,
            stdout: &stdout,
            stderr: &stderr,
        };
        let verdict = classify(live.profile.result, &ended, now);
        let usage = match &verdict {
            Verdict::Succeeded { usage }
            | Verdict::Failed { usage, .. }
            | Verdict::Limited { usage, .. } => {
                (usage != &crate::agents::result::Usage::default()).then(|| usage.clone())
            }
            Verdict::TimedOut { .. } | Verdict::Crashed { .. } => None,
        };
        let plan = live.run.plan.clone();
        let task_name = live.name.to_string();
        let run_id = live.run.id.clone();
        let stderr_tail = retry::tail(&String::from_utf8_lossy(&stderr), 20, 2000);
        let with_tail = |reason: &str| {
            if stderr_tail.trim().is_empty() {
                reason.to_string()
            } else {
                format!("{reason}\nstderr:\n{stderr_tail}")
            }
        };
        let settings = &self.ctx.config.drain;
        let attempt = live.run.attempt;
        let (outcome, error, free, wait) = match verdict {
            Verdict::Succeeded { .. } => {
                // How it left its worktree first: a run off its branch or with work
                // uncommitted fails with that, whatever it committed.
                let common = self.ctx.repo.common_dir();
                let refused = live
                    .placed
                    .as_ref()
                    .and_then(|p| guard_refused(&common, p, live.run.claimed));
                let committed = match refused.or_else(|| live.placed.as_ref().and_then(left_behind))
                {
                    Some(why) => Err(why),
                    None => Ok(live.placed.as_ref().map(|p| {
                        spawn::committed(p)
                            .map(|c| c || super::follow::moved_on(self.store, &live.name, p))
                    })),
                };
                match committed {
                    Err(why) => (
                        Outcome::Failed,
                        why,
                        false,
                        retry::backoff(settings, attempt),
                    ),
                    Ok(Some(Ok(true))) => {
                        if let Some(live) = self.live.get_mut(&key) {
                            live.usage = usage;
                        }
                        self.check(key);
                        return;
                    }
                    Ok(Some(Ok(false)) | None) => (
                        Outcome::Failed,
                        format!(
                            "no changes: the agent exited 0 but committed nothing on {} (nor in nested repositories)",
                            live.report.branch.as_deref().unwrap_or("its branch")
                        ),
                        false,
                        retry::backoff(settings, attempt),
                    ),
                    Ok(Some(Err(e))) => (
                        Outcome::Failed,
                        format!("cannot read the run's branches: {}", e.message),
                        false,
                        retry::backoff(settings, attempt),
                    ),
                }
            }
            Verdict::Failed { reason, .. } => (
                Outcome::Failed,
                with_tail(&reason),
                false,
                retry::backoff(settings, attempt),
            ),
            Verdict::TimedOut { reason } => (
                Outcome::TimedOut,
                with_tail(&reason),
                stopped,
                if stopped {
                    Duration::ZERO
                } else {
                    retry::backoff(settings, attempt)
                },
            ),
            Verdict::Crashed { reason } => (
                Outcome::Crashed,
                with_tail(&reason),
                false,
                retry::backoff(settings, attempt),
            ),
            Verdict::Limited { limit, .. } if limit.overload => (
                // An overload is the provider's, not the plan's: back off, the plan
                // stays open, the attempt is not used.
                Outcome::Limited,
                format!("overloaded, backing off: {}", limit.text),
                true,
                retry::backoff(settings, attempt),
            ),
            Verdict::Limited { limit, .. } => {
                // A reset already past, or none given, is no reset time; it is never
                // guessed. The task alone waits [drain] limit_cooldown; a plan is closed
                // for its `cooldown`, else until a person reopens it.
                let reset = limit.resets_at.filter(|at| *at > now);
                let error = format!("usage limit: {}", limit.text);
                let cooldown = Duration::from_secs(
                    (reset.unwrap_or(now + settings.limit_cooldown.0.as_secs() as i64) - now).max(0)
                        as u64,
                );
                let wait = match &plan {
                    Some(plan) => {
                        let for_long = crate::plans::named(&self.ctx.config, plan)
                            .ok()
                            .and_then(|p| p.cooldown.as_ref())
                            .map(|d| d.0.as_secs() as i64);
                        let until = reset.or(for_long.map(|d| now + d));
                        let why = match (reset, for_long) {
                            (Some(_), _) => error.clone(),
                            (None, Some(d)) => format!(
                                "{error} (no reset time given: closed for the plan's cooldown, {d}s)"
                            ),
                            (None, None) => format!(
                                "{error} (no reset time given: closed until `fleet plans open {plan}`)"
                            ),
                        };
                        if self.close_plan(plan, until, &why, &task_name, &run_id, now) {
                            // Routed again at once: to the next open plan, or it waits.
                            Duration::ZERO
                        } else {
                            // The plan could not be closed: the task itself waits out
                            // the limit, rather than run into it again at once.
                            cooldown
                        }
                    }
                    None => cooldown,
                };
                (Outcome::Limited, error, true, wait)
            }
        };
        if let Some(live) = self.live.get_mut(&key) {
            live.usage = usage;
        }
        self.settle(key, outcome, error, free, wait);
    }

    /// Close `plan` for every drainer after a usage limit on it (kept closed longer when
    /// another drainer closed it for longer already); false when it could not be.
    fn close_plan(
        &self,
        plan: &str,
        until: Option<i64>,
        why: &str,
        task: &str,
        run: &str,
        now: i64,
    ) -> bool {
        match self.plans.close_for_limit(plan, until, why, task, run, now) {
            Ok((_, true)) => {
                self.ui.note(&format!(
                    "plan {plan}: closed until {} ({why})",
                    until
                        .map(crate::plans::show_time)
                        .unwrap_or_else(|| "reopened".into())
                ));
                true
            }
            Ok((state, false)) => {
                self.ui.note(&format!(
                    "plan {plan}: closed already{}",
                    state
                        .until
                        .map(|t| format!(" until {}", crate::plans::show_time(t)))
                        .unwrap_or_else(|| " until reopened".into())
                ));
                true
            }
            Err(e) => {
                self.ui
                    .warn(&format!("plan {plan}: could not be closed: {}", e.message));
                false
            }
        }
    }

    /// The agent succeeded and committed: run the check in its worktree.
    fn check(&mut self, key: usize) {
        let Some(live) = self.live.get(&key) else {
            return;
        };
        let commands: Vec<Vec<String>> = match &live.profile.check {
            Some(argv) => vec![argv.parts().to_vec()],
            None => self
                .ctx
                .config
                .gate
                .commands
                .iter()
                .map(|c| vec!["sh".to_string(), "-c".to_string(), c.clone()])
                .collect(),
        };
        let run_dir = live
            .report
            .stdout
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let log = run_dir.join("check.log");
        let cwd = live
            .placed
            .as_ref()
            .map(|p| p.path.clone())
            .unwrap_or_default();
        self.ui
            .note(&format!("{}: the agent succeeded; checking", live.name));
        let check = agent::Check {
            key,
            commands,
            cwd,
            log,
            timeout: self.ctx.config.gate.timeout.0,
        };
        if let Err(e) = agent::start_check(check, self.clock.clone(), self.tx.clone()) {
            let wait = retry::backoff(&self.ctx.config.drain, live.run.attempt);
            self.settle(
                key,
                Outcome::Failed,
                format!("cannot start the check: {e}"),
                false,
                wait,
            );
        }
    }

    /// The check ended: the lane is made ready with its exit code and log; a failing
    /// check fails the attempt (the lane stays running, as `fleet ready` leaves it).
    fn checked(
        &mut self,
        key: usize,
        code: i32,
        stopped: bool,
        log: PathBuf,
        error: Option<String>,
    ) {
        let Some(live) = self.live.get_mut(&key) else {
            return;
        };
        live.report.check = Some(super::CheckReport {
            exit_code: code,
            log: log.clone(),
        });
        let branch = live.report.branch.clone().unwrap_or_default();
        let attempt = live.run.attempt;
        let started_from = live
            .placed
            .as_ref()
            .and_then(|p| p.bases.first())
            .and_then(|b| b.2);
        let name = live.name.clone();
        let ready = crate::failpoint::hit("drain-before-ready").and_then(|()| {
            make_ready(
                self.ctx,
                self.queue,
                self.store,
                &name,
                started_from,
                &branch,
                code,
                &log,
                self.ui,
            )
        });
        let wait = retry::backoff(&self.ctx.config.drain, attempt);
        if stopped {
            // Not the task's fault: queued again at once, the attempt not used.
            let why = format!(
                "stopped by the drainer during the check (log {})",
                log.display()
            );
            self.settle(key, Outcome::TimedOut, why, true, Duration::ZERO);
        } else if let Some(error) = error {
            self.settle(key, Outcome::Failed, error, false, wait);
        } else if code != 0 {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let why = format!(
                "the check exited {code} (log {}):\n{}",
                log.display(),
                retry::tail(&text, 20, 2000)
            );
            self.settle(key, Outcome::Failed, why, false, wait);
        } else {
            let record = Unpublished {
                checked: crate::time::now(),
                log: log.display().to_string(),
                started_from: started_from.map(|id| id.to_string()),
                error: String::new(),
                tried: crate::time::now(),
                tries: 1,
            };
            self.after_ready(key, ready, record);
        }
    }

    /// What follows a try at publishing and readying the lane of run `key`, whose check
    /// passed: succeeded; or, after an error of the environment (the remote unreachable,
    /// a lock held), the run kept as checked and tried again after a back-off
    /// ([`Pending`]); or, after a refusal (the lane moved, a landed lane), failed.
    fn after_ready(
        &mut self,
        key: usize,
        ready: crate::error::Result<()>,
        mut record: Unpublished,
    ) {
        let Some(live) = self.live.get(&key) else {
            self.pending.remove(&key);
            return;
        };
        let branch = live.report.branch.clone().unwrap_or_default();
        let wait = retry::backoff(&self.ctx.config.drain, live.run.attempt);
        let first = self
            .pending
            .get(&key)
            .map_or_else(Instant::now, |p| p.first);
        match ready {
            Ok(()) => {
                self.pending.remove(&key);
                self.ui.note(&format!(
                    "{}: succeeded; lane {branch} is ready to land",
                    live.name
                ));
                self.settle(
                    key,
                    Outcome::Succeeded,
                    String::new(),
                    false,
                    Duration::ZERO,
                );
            }
            Err(e) if retryable(&e) && first.elapsed() < PUBLISH_FOR => {
                record.error = e.message.clone();
                record.tried = crate::time::now();
                let pause = publish_pause(record.tries);
                // Kept on the task, so the next drainer finishes it if this one dies;
                // through an unreachable remote this fails too, and is tried again.
                let stored = self
                    .store
                    .unpublished(&live.name, &live.run.id, &record)
                    .is_ok();
                self.ui.warn(&format!(
                    "{}: its check passed, but the lane {branch} could not be made ready yet: {}; \
                     tried again in {}s (the agent does not run again){}",
                    live.name,
                    e.message,
                    pause.as_secs(),
                    if stored {
                        ""
                    } else {
                        "; not recorded on the task either"
                    }
                ));
                record.tries += 1;
                self.pending.insert(
                    key,
                    Pending {
                        record,
                        stored,
                        first,
                        next: Instant::now() + pause,
                    },
                );
            }
            Err(e) => {
                self.pending.remove(&key);
                let why = format!("the lane {branch} could not be made ready: {}", e.message);
                self.settle(key, Outcome::Failed, why, false, wait);
            }
        }
    }

    /// Try again the publish and ready of each run whose check passed and whose lane
    /// is not ready yet, once its pause is over. A drainer that stops leaves them: each
    /// stays running, its check recorded, for the next drainer of this clone to finish.
    pub(super) fn retry_unpublished(&mut self, stopping: bool) {
        let now = Instant::now();
        let due: Vec<usize> = self
            .pending
            .iter()
            .filter(|(_, p)| stopping || p.next <= now)
            .map(|(k, _)| *k)
            .collect();
        for key in due {
            let Some(pending) = self.pending.remove(&key) else {
                continue;
            };
            let Some(live) = self.live.get(&key) else {
                continue;
            };
            if live.lost || stopping {
                let live = self.live.remove(&key).expect("present");
                if !live.lost {
                    let next = if pending.stored {
                        "the next drainer of this clone makes it ready"
                    } else {
                        "that could not be recorded on the task, so the next drainer takes \
                         the run back and the task runs again"
                    };
                    self.ui.warn(&format!(
                        "{}: left running with its check passed and its lane {} not ready: {next}",
                        live.name,
                        live.report.branch.as_deref().unwrap_or("")
                    ));
                }
                self.report.runs.push(live.report);
                continue;
            }
            let name = live.name.clone();
            let branch = live.report.branch.clone().unwrap_or_default();
            let started_from = pending
                .record
                .started_from
                .as_deref()
                .and_then(|h| crate::git::ObjectId::from_hex(h.as_bytes()).ok());
            let log = PathBuf::from(&pending.record.log);
            let ready = make_ready(
                self.ctx,
                self.queue,
                self.store,
                &name,
                started_from,
                &branch,
                0,
                &log,
                self.ui,
            );
            let record = pending.record.clone();
            self.pending.insert(key, pending);
            self.after_ready(key, ready, record);
        }
    }

    /// Record how live run `key` ended and, unless it succeeded, queue it again after
    /// `wait` (or park it).
    pub(super) fn settle(
        &mut self,
        key: usize,
        outcome: Outcome,
        error: String,
        free: bool,
        wait: Duration,
    ) {
        let Some(mut live) = self.live.remove(&key) else {
            return;
        };
        self.recent.push_back(live.launched.elapsed());
        if self.recent.len() > 3 {
            self.recent.pop_front();
        }
        let error = (!error.is_empty()).then_some(error);
        live.report.outcome = Some(outcome);
        live.report.error = error.clone();
        live.report.state = self.record_end(
            &live.name,
            &live.run,
            outcome,
            error,
            free,
            live.usage.clone(),
            wait,
        );
        self.report.runs.push(live.report);
    }

    /// A run that never got its agent started: failed, with why.
    pub(super) fn settle_unstarted(
        &mut self,
        name: &TaskName,
        run: &Run,
        mut report: super::RunReport,
        why: String,
    ) {
        let wait = retry::backoff(&self.ctx.config.drain, run.attempt);
        report.outcome = Some(Outcome::Failed);
        report.error = Some(why.clone());
        report.state = self.record_end(name, run, Outcome::Failed, Some(why), false, None, wait);
        self.report.runs.push(report);
    }

    /// A run whose agent can never be started as it stands (its argv too long for the
    /// kernel): failed with why, and the task parked at once rather than retried.
    pub(super) fn park_unstarted(
        &mut self,
        name: &TaskName,
        run: &Run,
        mut report: super::RunReport,
        why: String,
    ) {
        report.outcome = Some(Outcome::Failed);
        report.error = Some(why.clone());
        let now = crate::time::now();
        let ended = self.store.end_with_usage(
            name,
            &run.id,
            Outcome::Failed,
            Some(why.clone()),
            false,
            None,
            now,
        );
        report.state = match ended
            .and_then(|_| retry::park_now(self.ctx, self.store, name, &run.id, &why, self.ui))
        {
            Ok(task) => Some(task.state),
            Err(e) => {
                self.ui.warn(&format!(
                    "{name}: run {} not settled: {}",
                    run.id, e.message
                ));
                None
            }
        };
        self.report.runs.push(report);
    }

    /// Store the run's end (with what it used) and what follows; the task's state
    /// after, when stored.
    #[allow(clippy::too_many_arguments)]
    fn record_end(
        &mut self,
        name: &TaskName,
        run: &Run,
        outcome: Outcome,
        error: Option<String>,
        free: bool,
        usage: Option<crate::agents::result::Usage>,
        wait: Duration,
    ) -> Option<TaskState> {
        let now = crate::time::now();
        if outcome != Outcome::Succeeded {
            self.ui.note(&format!(
                "{name}: {} (run {}){}",
                outcome.state().as_str(),
                run.id,
                error
                    .as_deref()
                    .and_then(|e| e.lines().next())
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ));
        }
        let ended = self
            .store
            .end_with_usage(name, &run.id, outcome, error, free, usage, now);
        let task = match ended {
            Ok(task) => task,
            Err(e) => {
                self.ui.warn(&format!(
                    "{name}: the end of run {} was not recorded: {}",
                    run.id, e.message
                ));
                return None;
            }
        };
        if outcome == Outcome::Succeeded {
            return Some(task.state);
        }
        if let Err(e) = crate::failpoint::hit("drain-after-end") {
            self.ui
                .warn(&format!("{name}: not queued again: {}", e.message));
            return Some(task.state);
        }
        let requeued = retry::requeue(
            self.ctx,
            self.store,
            name,
            &run.id,
            now,
            wait,
            &self.holder,
            self.ui,
        );
        match requeued {
            Ok(task) => Some(task.state),
            Err(e) => {
                self.ui
                    .warn(&format!("{name}: not queued again: {}", e.message));
                Some(task.state)
            }
        }
    }
}
