//! `fleet doctor`'s checks of the task queue and of the drainers that work it: a claim
//! that never started its agent (`stale-claims`), a claimed or running task whose holder
//! is gone (`dead-holders`), a running agent silent for its `stall_after`
//! (`stalled-runs`, a warning: busy agents can be quiet), a task waiting on one that
//! cannot succeed as things stand (`blocked-waits`), a task ref that cannot be read
//! (`unreadable-tasks`: every listing leaves it out, so no drainer runs it), and a
//! drainer still running older code than the binary now installed (`old-drainers`).
//!
//! They read the queue through [`Store::list`] (the memo: the task refs, not every task
//! commit) and the drainer records ([`crate::drain::record`]); they report and never
//! move a task. The one thing removed is the record of a drainer that is gone, which is
//! a leftover and not state: the same way the process-group check drops the record of a
//! group that ended.
//!
//! With the queue on a remote (`fleet doctor --remote NAME`, or `[lanes] remote`) the
//! tasks are the remote's as last fetched: what every machine draining it sees. A
//! holder on another machine is judged by its lease alone (its pid means nothing
//! here); an unreadable ref is named as the remote has it, with the push that deletes
//! it there; every fix names the remote.
//!
//! Orphaned agent groups: a drainer starts its agents through the process-group runner
//! (`crate::proc`), which records every group in the repository the command runs in; an
//! agent worktree shares the repository's common dir, so the existing `orphan-groups`
//! check already names an agent group that outlived its drainer. `dead-holders` adds
//! the task's view: the group a dead holder's run left behind, with the `kill` to end it.

use std::path::Path;
use std::time::Duration;

use super::{Store, Task, TaskState};
use crate::context::Context;
use crate::drain::record::{self, DrainerRecord};
use crate::error::Result;
use crate::guard::doctor::{Check, Verdict, check};
use crate::queue::Queue;
use crate::sys::procfs;

/// The task checks, in the order doctor prints them.
pub fn checks(ctx: &Context, queue: &Queue) -> Result<Vec<Check>> {
    let tasks = Store::new(ctx, queue).list()?;
    let now = crate::time::now();
    Ok(vec![
        stale_claims(&tasks, now, ctx.config.drain.claim_grace.0, queue),
        dead_holders(&tasks, now, queue),
        stalled_runs(ctx, &tasks, now),
        blocked_waits(&tasks, queue),
        unreadable_tasks(ctx, queue, &tasks),
        old_drainers(&ctx.repo.common_dir()),
    ])
}

/// ` --remote NAME` when `queue` is a remote's, for the commands a fix names.
fn remote_flag(queue: &Queue) -> String {
    queue
        .remote()
        .map(|r| format!(" --remote {r}"))
        .unwrap_or_default()
}

/// Claimed for longer than `grace` and not running: the drainer claimed and never
/// spawned (it died between the two, or hangs).
pub fn stale_claims(tasks: &[Task], now: i64, grace: Duration, queue: &Queue) -> Check {
    let grace_secs = grace.as_secs() as i64;
    let problems = tasks
        .iter()
        .filter(|t| t.state == TaskState::Claimed)
        .filter_map(|t| {
            let run = t.last_run()?;
            let waited = now - run.claimed;
            (waited > grace_secs).then(|| {
                format!(
                    "task {} (run {}) was claimed {waited}s ago by pid {} on {} and its agent never started",
                    t.name, run.id, run.holder.pid, run.holder.host
                )
            })
        })
        .collect();
    check(
        "stale-claims",
        problems,
        &format!("no task claimed without its agent starting for over {grace_secs}s"),
        &format!(
            "`fleet drain --once{}` takes a stale claim back (if its drainer still runs, it is stuck: restart it)",
            remote_flag(queue)
        ),
    )
}

/// Claimed or running, and its holder is gone: dead on this machine (its pid and start
/// time no longer match), or on another machine with its lease expired.
pub fn dead_holders(tasks: &[Task], now: i64, queue: &Queue) -> Check {
    let mut problems = Vec::new();
    let mut kills = Vec::new();
    for t in tasks
        .iter()
        .filter(|t| matches!(t.state, TaskState::Claimed | TaskState::Running))
    {
        let Some(run) = t.last_run() else { continue };
        let holder = &run.holder;
        let alive = holder.alive_here();
        let why = match alive {
            Some(true) => continue,
            Some(false) => format!("its holder, pid {} on this machine, is gone", holder.pid),
            None if run.lease_expires < now => format!(
                "its holder, pid {} on {}, let its lease expire {}s ago (judged by its lease: \
                 that machine's pid cannot be checked from here)",
                holder.pid,
                holder.host,
                now - run.lease_expires
            ),
            None => continue,
        };
        let mut line = format!(
            "task {} (run {}) is {}: {why}",
            t.name,
            run.id,
            t.state.as_str()
        );
        if let Some(left) = &run.unpublished {
            line.push_str(&format!(
                "; its check passed but its lane {} is not ready yet ({} tries, the last: {}): \
                 a drainer of the clone that ran it publishes it and makes it ready, without \
                 running the agent again",
                run.branch.as_deref().unwrap_or("?"),
                left.tries,
                left.error.lines().next().unwrap_or("")
            ));
        }
        // Only here can the group be seen; elsewhere it belongs to another machine.
        if alive == Some(false)
            && let Some(pgid) = run.pgid
        {
            let left = procfs::group_members(pgid).len();
            if left > 0 {
                line.push_str(&format!(
                    "; its agent group {pgid} still has {left} process(es)"
                ));
                kills.push(format!("kill -- -{pgid}"));
            }
        }
        problems.push(line);
    }
    let mut fix = format!(
        "`fleet drain --once{}` reaps a dead holder's task as crashed, or takes over an expired lease",
        remote_flag(queue)
    );
    if !kills.is_empty() {
        fix = format!("{}; then {fix}", kills.join("; "));
    }
    check(
        "dead-holders",
        problems,
        "every claimed or running task has a live holder",
        &fix,
    )
}

/// The task refs no listing shows (each listing leaves an unreadable task out rather
/// than fail): each with why it cannot be read. On a remote's queue each is named as
/// the remote has it (`refs/fleet/tasks/NAME on origin`, not the ref it was fetched
/// into here), with the push that deletes it there: `fleet task cancel` cannot move a
/// task it cannot read.
pub fn unreadable_tasks(ctx: &Context, queue: &Queue, tasks: &[Task]) -> Check {
    let prefix = match queue.remote() {
        None => crate::refs::TASKS.to_string(),
        Some(remote) => crate::refs::remote_tasks(remote),
    };
    let listed: std::collections::HashSet<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
    let store = Store::new(ctx, queue);
    let problems = ctx
        .repo
        .ref_ids_under(&prefix)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(full, _)| {
            let name = full.strip_prefix(&prefix)?;
            if listed.contains(name) {
                return None;
            }
            let why = match super::TaskName::parse(name) {
                Err(e) => format!("{full}: {}", e.message),
                Ok(name) => match store.load(&name) {
                    Err(e) => e.message,
                    Ok(_) => return None,
                },
            };
            Some(match queue.remote() {
                None => format!("{why}; no drainer runs it"),
                Some(remote) => {
                    let theirs = format!("{}{name}", crate::refs::TASKS);
                    // The reason names the ref it was fetched into; say the remote's.
                    let why = why.replace(&full, &theirs);
                    format!(
                        "{theirs} on {remote}: {why}; no drainer of {remote}'s queue runs it; \
                         `git push {remote} :{theirs}` deletes it there"
                    )
                }
            })
        })
        .collect();
    let fix = match queue.remote() {
        None => "look at it with `git show REF:task.toml` (a newer fleet may have written it: \
                 upgrade this one); `git update-ref -d REF` removes it"
            .to_string(),
        Some(remote) => format!(
            "look at the copy fetched here with `git show {}NAME` (a newer fleet may have \
             written it: upgrade this one); `git push {remote} :REF` deletes it from {remote} \
             (each named above); doctor changes nothing on the remote",
            crate::refs::remote_tasks(remote)
        ),
    };
    check(
        "unreadable-tasks",
        problems,
        "every task ref can be read",
        &fix,
    )
}

/// Running with no output, no commit and no change in its worktree for its
/// `stall_after` ([`crate::drain::liveness`]), as far as this machine can read: a
/// warning, since a busy agent can be quiet (`claude -p --output-format json` prints
/// nothing until it ends); its drainer abandons it after `abandon_after`, when set.
pub fn stalled_runs(ctx: &Context, tasks: &[Task], now: i64) -> Check {
    let mut problems = Vec::new();
    let mut abandons = false;
    for t in tasks.iter().filter(|t| t.state == TaskState::Running) {
        let Some(run) = t.last_run() else { continue };
        let Some(l) = crate::drain::liveness::of_run(&ctx.repo, &ctx.config, t, run, now)
            .filter(|l| l.stalled)
        else {
            continue;
        };
        let show = crate::drain::liveness::show_secs;
        let mut line = format!(
            "task {} (run {}) has been silent for {} (stall_after {})",
            t.name,
            run.id,
            show(l.silent_secs),
            show(l.stall_after_secs as i64)
        );
        match l.abandon_after_secs {
            Some(a) => {
                line.push_str(&format!("; abandoned once silent for {}", show(a as i64)));
                abandons = true;
            }
            None => line.push_str("; no abandon_after, so only its timeout ends it"),
        }
        if let Some(pgid) = run.pgid {
            line.push_str(&format!("; its agent group is {pgid}"));
        }
        problems.push(line);
    }
    let mut fix = "look at its output (`fleet task show NAME`) and worktree; if it is stuck, `kill -- -PGID` ends its group and the drainer retries the task"
        .to_string();
    if !abandons {
        fix.push_str(", or set [drain] abandon_after (or the profile's) to have drainers do it");
    }
    let mut c = check(
        "stalled-runs",
        problems,
        "no running agent is silent for its stall_after",
        &fix,
    );
    if c.verdict == Verdict::Fail {
        c.verdict = Verdict::Warn;
    }
    c
}

/// A task waiting (`--after`) on one that will not succeed as things stand: cancelled
/// or gone from the queue (the wait never ends: a failure), or parked (it ends only when
/// a person retries it: a warning). `fleet task add` refuses such a wait; this finds the
/// ones that became so later.
pub fn blocked_waits(tasks: &[Task], queue: &Queue) -> Check {
    let by_name: std::collections::HashMap<&str, &Task> =
        tasks.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut problems = Vec::new();
    let mut never = false;
    let waiting = tasks
        .iter()
        .filter(|t| matches!(t.state, TaskState::Queued | TaskState::Limited));
    for t in waiting {
        for dep in &t.after {
            let why = match by_name.get(dep.as_str()).map(|d| d.state) {
                None => "is not in the queue",
                Some(TaskState::Cancelled) => "was cancelled",
                Some(TaskState::Parked) => "is parked",
                Some(_) => continue,
            };
            never |= why != "is parked";
            problems.push(format!("task {} waits for {dep}, which {why}", t.name));
        }
    }
    let mut c = check(
        "blocked-waits",
        problems,
        "every task waiting --after another waits on one that can still succeed",
        &format!(
            "`fleet task retry{flag} DEP` puts a parked or cancelled dependency back; `fleet task cancel{flag} NAME` drops the waiting task",
            flag = remote_flag(queue)
        ),
    );
    if c.verdict == Verdict::Fail && !never {
        c.verdict = Verdict::Warn;
    }
    c
}

/// A live drainer whose binary was replaced since it started, or was built from another
/// commit than the binary now at that path. Records of drainers that are gone (killed
/// before they could remove them) are removed, and said.
pub fn old_drainers(common: &Path) -> Check {
    let here = procfs::hostname().unwrap_or_else(|| "unknown".into());
    let boot = procfs::boot_id();
    let mut problems = Vec::new();
    let mut removed = Vec::new();
    for r in record::list(common) {
        if r.host != here {
            // Another machine's drainer (a shared folder): only that machine can tell.
            continue;
        }
        if r.boot_id != boot || !r.alive() {
            let path = record::folder(common).join(format!("{}.json", r.pid));
            if std::fs::remove_file(&path).is_ok() {
                removed.push(format!(
                    "removed the record of drainer pid {}, which is gone",
                    r.pid
                ));
            }
            continue;
        }
        if let Some(why) = older_than_its_binary(&r) {
            problems.push(format!("drainer pid {} {why}", r.pid));
        }
    }
    let fix = "restart the drainer (e.g. `systemctl --user restart fleet-drain`): it stops \
               claiming, lets its agents finish, and the new one runs the installed binary";
    let mut c = check(
        "old-drainers",
        problems,
        "every running drainer runs the binary now installed",
        fix,
    );
    if !removed.is_empty() {
        c.detail = format!("{}; {}", c.detail, removed.join("; "));
        if c.verdict == Verdict::Ok {
            c.verdict = Verdict::Warn;
        }
    }
    c
}

/// Why the live drainer `r` runs older code than its binary now, if it does.
fn older_than_its_binary(r: &DrainerRecord) -> Option<String> {
    let shown = r.binary.display();
    if procfs::exe(r.pid).is_some_and(|exe| exe.to_string_lossy().ends_with(" (deleted)")) {
        return Some(format!(
            "runs a binary that was replaced or removed ({shown})"
        ));
    }
    let now = mtime(&r.binary);
    if let (Some(then), Some(now)) = (r.binary_mtime, now)
        && now > then
    {
        return Some(format!(
            "started before {shown} was last changed ({}s newer)",
            now - then
        ));
    }
    // The commit of the binary at that path is known without running it when it is the
    // binary running this check.
    let this = std::env::current_exe().ok()?.canonicalize().ok()?;
    if r.binary.canonicalize().ok()? == this && r.commit != env!("FLEET_COMMIT") {
        return Some(format!(
            "was built from commit {}, but {shown} is now commit {}",
            r.commit,
            env!("FLEET_COMMIT")
        ));
    }
    None
}

/// A file's modification time, in seconds since the epoch.
pub fn mtime(path: &Path) -> Option<i64> {
    let m = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(m.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64)
}
