//! After an attempt that ended badly: back to the queue after a back-off, or parked at
//! the cap with `[drain] notify` run exactly once for that park.
//!
//! Exactly once: the park is one compare-and-swap ([`crate::tasks::Store::requeue_owing`]),
//! and only the drainer whose swap moved the task to parked runs the command. That swap
//! also records that this drainer owes the notification, cleared once the command ran:
//! a drainer killed in between leaves it owed, and the next drainer that finds it gone
//! takes the debt over by compare-and-swap and runs it ([`notify_for_the_gone`]). A
//! drainer killed while the command ran is the one case where it runs twice.
//!
//! Before every retry the task's budget is checked: the tokens and cost its runs
//! reported, summed, against its `max_tokens` / `max_cost_usd` (else `[drain]`'s). A
//! task at or over either is parked with that reason instead
//! ([`crate::tasks::Store::park_now`]), and notify runs at once; that park
//! records no debt, so a drainer killed between it and the command skips the command.

use std::time::Duration;

use serde::Serialize;

use crate::agents::profile::{Argv, Drain};
use crate::context::Context;
use crate::tasks::{Holder, Store, Task, TaskName, TaskState};

/// The back-off before attempt `attempt + 1`: `[drain] backoff` doubled for each attempt
/// since the first, at most `[drain] backoff_max`, then "equal jitter" (half of it fixed,
/// half random), so drainers retrying together spread out.
pub fn backoff(settings: &Drain, attempt: u32) -> Duration {
    let base = settings.backoff.0;
    let doubled = base.saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
    let capped = doubled.min(settings.backoff_max.0);
    let half = capped / 2;
    half + half.mul_f64(random_fraction())
}

/// A number in [0, 1) from the standard library's randomly keyed hasher.
fn random_fraction() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Queue the task again after its run `run` ended badly, not before `now + wait`; parked
/// when it has used its attempts, and then `[drain] notify` runs (owed by `holder`, this
/// drainer, until it ran). Returns the task as stored.
#[allow(clippy::too_many_arguments)]
pub fn requeue(
    ctx: &Context,
    store: &Store,
    name: &TaskName,
    run: &str,
    now: i64,
    wait: Duration,
    holder: &Holder,
    ui: &dyn crate::report::Ui,
) -> crate::error::Result<Task> {
    if let Some((task, _)) = store.load(name)?
        && let Some(why) = over_budget(&ctx.config.drain, &task)
    {
        let task = store.park_now(name, run, now, &why)?;
        ui.note(&format!(
            "{name}: parked: {why} (`fleet task retry {name}` queues it again)"
        ));
        if let Some(argv) = &ctx.config.drain.notify {
            notify(ctx, argv, &task, ui);
        }
        return Ok(task);
    }
    let notifier = ctx.config.drain.notify.as_ref().map(|_| holder);
    let task = store.requeue_owing(name, run, now, wait, notifier)?;
    if task.state == TaskState::Parked {
        ui.note(&format!(
            "{name}: parked after {} attempts (`fleet task retry {name}` queues it again)",
            task.attempts()
        ));
        if let Some(argv) = &ctx.config.drain.notify {
            notify(ctx, argv, &task, ui);
            settle_notify(store, name, holder, ui);
        }
    } else {
        ui.note(&format!(
            "{name}: queued again, not before {}s from now",
            wait.as_secs()
        ));
    }
    Ok(task)
}

/// Park `task` after its run `run` ended with `why`, a failure no retry can mend; then
/// `[drain] notify` runs, as for any park.
pub fn park_now(
    ctx: &Context,
    store: &Store,
    name: &TaskName,
    run: &str,
    why: &str,
    ui: &dyn crate::report::Ui,
) -> crate::error::Result<Task> {
    let task = store.park_now(name, run, crate::time::now(), why)?;
    ui.note(&format!(
        "{name}: parked: {why} (`fleet task retry {name}` queues it again)"
    ));
    if let Some(argv) = &ctx.config.drain.notify {
        notify(ctx, argv, &task, ui);
    }
    Ok(task)
}

/// The argument of `argv` too long for the kernel to pass to a program (Linux takes at
/// most 128 KiB per argument, `MAX_ARG_STRLEN`), as why the agent cannot be started: every
/// attempt would fail the same way, so the task is parked at once.
pub fn oversized_argument(argv: &[String]) -> Option<String> {
    const MAX_ARG: usize = 128 * 1024;
    let (i, long) = argv.iter().enumerate().find(|(_, a)| a.len() >= MAX_ARG)?;
    Some(format!(
        "argument {i} of the agent's command is {} KiB, more than one argument may hold \
         (128 KiB): pass the plan by its path, `{{plan}}` or `$FLEET_PLAN`, not its text, \
         `{{prompt}}`, in the profile's `command`",
        long.len() / 1024
    ))
}

/// Why `task` is over its budget (its own ceilings, else `settings`'), if it is.
pub fn over_budget(settings: &Drain, task: &Task) -> Option<String> {
    let (tokens, cost) = task.spent();
    if let Some(max) = task.max_tokens.or(settings.max_tokens)
        && tokens >= max
    {
        return Some(format!(
            "over its budget: its runs reported {tokens} tokens, the ceiling is {max}"
        ));
    }
    if let Some(max) = task.max_cost_usd.or(settings.max_cost_usd)
        && cost >= max
    {
        return Some(format!(
            "over its budget: its runs reported ${cost:.4}, the ceiling is ${max:.4}"
        ));
    }
    None
}

/// The notification parked `task` is owed by a drainer that is gone (this host's, dead;
/// another host's, silent for `lease` since the park): taken over by `holder` by
/// compare-and-swap, then run. Whether it ran here.
pub fn notify_for_the_gone(
    ctx: &Context,
    store: &Store,
    task: &Task,
    holder: &Holder,
    now: i64,
    lease: Duration,
    ui: &dyn crate::report::Ui,
) -> bool {
    let (Some(owed), Some(argv)) = (&task.notify_owed, &ctx.config.drain.notify) else {
        return false;
    };
    let parked_at = task.transitions.last().map_or(task.created, |t| t.at);
    let gone = match owed.alive_here() {
        Some(alive) => !alive,
        None => now >= parked_at + lease.as_secs() as i64,
    };
    let Ok(name) = TaskName::parse(&task.name) else {
        return false;
    };
    if !gone || owed == holder {
        return false;
    }
    let Ok(task) = store.take_notify(&name, owed, holder) else {
        // Another drainer took it over first, or the task moved on.
        return false;
    };
    ui.note(&format!(
        "{name}: running [drain] notify for its park, owed by pid {} on {}, which is gone",
        owed.pid, owed.host
    ));
    notify(ctx, argv, &task, ui);
    settle_notify(store, &name, holder, ui);
    true
}

/// The notification `holder` owed for task `name` ran.
fn settle_notify(store: &Store, name: &TaskName, holder: &Holder, ui: &dyn crate::report::Ui) {
    if let Err(e) = store.notified(name, holder) {
        ui.warn(&format!(
            "{name}: [drain] notify ran, but that was not recorded: {}",
            e.message
        ));
    }
}

/// What `[drain] notify` reads on stdin when a task is parked.
#[derive(Serialize)]
struct Parked<'a> {
    event: &'static str,
    task: &'a str,
    attempts: u32,
    max_attempts: u32,
    /// Why, when not for its attempts (over its budget).
    reason: Option<&'a str>,
    last_error: Option<&'a str>,
    runs: Vec<RunLogs<'a>>,
}

#[derive(Serialize)]
struct RunLogs<'a> {
    run: &'a str,
    attempt: u32,
    outcome: Option<crate::tasks::Outcome>,
    error: Option<&'a str>,
    worktree: Option<&'a str>,
    branch: Option<&'a str>,
    stdout: String,
    stderr: String,
}

/// Run the notify command with the parked task as JSON on stdin, through the process
/// group runner (a minute at most). Its failure is a warning: the park stands.
fn notify(ctx: &Context, argv: &Argv, task: &Task, ui: &dyn crate::report::Ui) {
    let common = ctx.repo.common_dir();
    let doc = Parked {
        event: "parked",
        task: &task.name,
        attempts: task.attempts(),
        max_attempts: task.max_attempts,
        reason: task.parked_why.as_deref(),
        last_error: task.last_run().and_then(|r| r.error.as_deref()),
        runs: task
            .runs
            .iter()
            .map(|r| {
                let dir = crate::state::run_dir(&common, &r.id);
                RunLogs {
                    run: &r.id,
                    attempt: r.attempt,
                    outcome: r.outcome,
                    error: r.error.as_deref(),
                    worktree: r.worktree.as_deref(),
                    branch: r.branch.as_deref(),
                    stdout: dir.join("stdout").display().to_string(),
                    stderr: dir.join("stderr").display().to_string(),
                }
            })
            .collect(),
    };
    let json = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    let parts = argv.parts();
    let mut cmd = std::process::Command::new(&parts[0]);
    cmd.args(&parts[1..]).current_dir(&ctx.shared);
    let ran = crate::proc::run(
        &mut cmd,
        crate::proc::Input::Bytes(json),
        Some(Duration::from_secs(60)),
        crate::proc::DEFAULT_GRACE,
    );
    match ran {
        Ok(out) if out.success() => {}
        Ok(out) => ui.warn(&format!(
            "[drain] notify exited {} for the park of {}: {}",
            out.code(),
            task.name,
            out.stderr_str().trim()
        )),
        Err(e) => ui.warn(&format!("[drain] notify `{}` could not run: {e}", parts[0])),
    }
}

/// The plan the next attempt reads: the task's own text, then what ended the previous
/// attempt (its error's tail), so the agent does not repeat it blind.
pub fn plan_text(task: &Task, own: &str) -> String {
    let previous = task
        .runs
        .iter()
        .rev()
        .skip(1)
        .find(|r| r.error.is_some() || r.outcome.is_some());
    match previous {
        Some(r) if r.error.is_some() => format!(
            "{own}\n\n---\nThe previous attempt (run {}, attempt {}) ended {}:\n\n{}\n",
            r.id,
            r.attempt,
            r.outcome
                .map(|o| o.state().as_str())
                .unwrap_or("without a result"),
            r.error.as_deref().unwrap_or_default()
        ),
        _ => own.to_string(),
    }
}

/// The last `lines` lines of `text`, at most `max` bytes (cut at a character).
pub fn tail(text: &str, lines: usize, max: usize) -> String {
    let kept: Vec<&str> = text.lines().rev().take(lines).collect();
    let joined = kept.into_iter().rev().collect::<Vec<_>>().join("\n");
    if joined.len() <= max {
        return joined;
    }
    let mut start = joined.len() - max;
    while !joined.is_char_boundary(start) {
        start += 1;
    }
    joined[start..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DurationSetting;

    #[test]
    fn backoff_doubles_to_the_cap_with_jitter_in_the_upper_half() {
        let settings = Drain {
            backoff: DurationSetting(Duration::from_secs(10)),
            backoff_max: DurationSetting(Duration::from_secs(35)),
            ..Drain::default()
        };
        for (attempt, full) in [(1, 10), (2, 20), (3, 35), (9, 35)] {
            let d = backoff(&settings, attempt);
            let full = Duration::from_secs(full);
            assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
        }
    }

    #[test]
    fn the_tail_keeps_the_last_lines_and_bytes() {
        assert_eq!(tail("a\nb\nc\n", 2, 100), "b\nc");
        assert_eq!(tail("ééé", 5, 3), "é");
    }
}
