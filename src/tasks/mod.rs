//! The task queue: work for agents, waiting to be claimed by a drainer, as git data.
//!
//! One ref per task, `refs/fleet/tasks/<name>` ([`crate::refs::task`]), pointing at a
//! commit whose tree holds `task.toml` (the task, its runs and every transition) and,
//! for a task made from a plan file, `plan.md` (the plan itself, so every machine that
//! fetches the queue has it). Each change is a new commit whose parent is the old one,
//! moved by compare-and-swap on that one ref: two drainers claiming two different
//! tasks never contend, and the history of a task is its ref's log. Through a remote
//! the remote's task refs are the queue (fetched into
//! `refs/fleet/remotes/<remote>/tasks/`) and every change is a push leased on the exact
//! old value of the ref. Why one ref per task rather than one registry blob like the
//! lanes': `benches/tasks.rs` measures both (see [`store`]).
//!
//! This module is the model; [`store`] reads and writes it.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub mod health;
mod memo;
pub mod report;
pub mod store;

pub use store::{Claimed, Store};

/// The file in a task's tree holding the task.
pub const TASK_FILE: &str = "task.toml";
/// The file in a task's tree holding its plan, when it was made from one.
pub const PLAN_FILE: &str = "plan.md";
/// Attempts a task gets unless `--max-attempts` says otherwise.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

/// A validated task name: an agent name (see [`crate::worktree::AgentName`]) made of
/// ASCII letters, digits, `-`, `_` and `.` only, because a drainer turns it into a
/// branch, a folder and an environment variable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TaskName(String);

impl TaskName {
    pub fn parse(name: &str) -> Result<TaskName> {
        let refusal = |why: &str| {
            Error::usage(format!("invalid task name {name:?}: {why}"))
                .with_help("use ASCII letters, digits, `-`, `_` and `.`, like `task-42`")
        };
        if let Err(e) = crate::worktree::AgentName::parse(name) {
            // The agent name's own reason, reworded for a task.
            let why = e.message.split_once(": ").map_or("", |(_, why)| why);
            return Err(refusal(why));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return Err(refusal(&format!("it contains {c:?}")));
        }
        Ok(TaskName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for TaskName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a task is in its life. The order is the one `fleet task list` sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Waiting for a drainer (and for its `after` tasks, and its back-off).
    Queued,
    /// Taken by a drainer, which has not started its agent yet.
    Claimed,
    /// Its agent is running.
    Running,
    /// Its agent hit a usage limit: not a failure (the attempt does not count), queued
    /// again once the limit resets.
    Limited,
    Succeeded,
    Failed,
    TimedOut,
    Crashed,
    /// Out of attempts; `fleet task retry` puts it back.
    Parked,
    Cancelled,
}

impl TaskState {
    /// The word stored and shown (the serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Queued => "queued",
            TaskState::Claimed => "claimed",
            TaskState::Running => "running",
            TaskState::Limited => "limited",
            TaskState::Succeeded => "succeeded",
            TaskState::Failed => "failed",
            TaskState::TimedOut => "timed_out",
            TaskState::Crashed => "crashed",
            TaskState::Parked => "parked",
            TaskState::Cancelled => "cancelled",
        }
    }

    /// An attempt that ended badly: queued again after a back-off, or parked at the cap.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            TaskState::Failed | TaskState::TimedOut | TaskState::Crashed
        )
    }
}

/// How an attempt ended, as the drainer classified it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Succeeded,
    Failed,
    TimedOut,
    Crashed,
    /// A usage limit: the attempt does not count.
    Limited,
}

impl Outcome {
    pub fn state(self) -> TaskState {
        match self {
            Outcome::Limited => TaskState::Limited,
            Outcome::Succeeded => TaskState::Succeeded,
            Outcome::Failed => TaskState::Failed,
            Outcome::TimedOut => TaskState::TimedOut,
            Outcome::Crashed => TaskState::Crashed,
        }
    }
}

/// Who claimed a run: enough to tell, from any machine, whether it can still be alive
/// (the same host and boot, a live pid with the same start time) and which fleet it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id: Option<String>,
    pub pid: u32,
    /// The holder's start time, seconds since the epoch (from /proc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_start: Option<u64>,
    pub version: String,
    /// The commit the holder's binary was built from (`env!("FLEET_COMMIT")` is the
    /// binary's, so the caller passes it).
    pub commit: String,
}

impl Holder {
    /// This process, on this machine.
    pub fn this_process(commit: &str) -> Holder {
        let pid = std::process::id();
        Holder {
            host: crate::sys::procfs::hostname().unwrap_or_else(|| "unknown".into()),
            boot_id: crate::sys::procfs::boot_id(),
            pid,
            process_start: crate::sys::procfs::started_at(pid),
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: commit.to_string(),
        }
    }

    /// Whether the holder still runs, as far as this machine can tell: `Some(true)` or
    /// `Some(false)` on the host and boot that holds it (a live pid, not a zombie, with
    /// the same start time), `None` elsewhere (only its lease can tell).
    pub fn alive_here(&self) -> Option<bool> {
        let here = crate::sys::procfs::hostname().unwrap_or_else(|| "unknown".into());
        if here != self.host || crate::sys::procfs::boot_id() != self.boot_id {
            return None;
        }
        let started = crate::sys::procfs::started_at(self.pid);
        // A holder killed and not yet waited for by its parent is a zombie: its pid
        // and start time stay, but it runs nothing and renews nothing.
        let zombie =
            crate::sys::procfs::Stat::read(self.pid).is_some_and(|stat| stat.state() == Some('Z'));
        Some(started.is_some() && started == self.process_start && !zombie)
    }
}

/// One attempt of a task, from its claim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: String,
    /// 1 for the first attempt; counted at claim, so a crash still uses one up.
    pub attempt: u32,
    pub holder: Holder,
    pub lease_expires: i64,
    pub claimed: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<i64>,
    /// The run's worktree and branch, once made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The agent's process group, once started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgid: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Why it failed, in the drainer's words (the tail of the agent's error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// This run does not use up an attempt: a usage limit, or a drainer that was stopped
    /// (neither is the task's fault).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub free: bool,
    /// The plan (`[plans.NAME]`) it ran on, chosen at its claim; none without plans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// What the agent reported it used, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::agents::result::Usage>,
    /// Its agent succeeded and its check passed, but its lane is not ready yet: the
    /// publish or the ready hit an error of the environment (the remote unreachable, a
    /// lock held). The task stays running; a drainer tries the publish and the ready
    /// again, never the agent ([`Unpublished`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpublished: Option<Unpublished>,
}

/// What a run whose check passed keeps while its lane waits to be published and made
/// ready ([`Run::unpublished`]): enough for any drainer of the same clone to finish it,
/// this run's own or, once it is gone, the next one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unpublished {
    /// When the check passed.
    pub checked: i64,
    /// The check's log.
    pub log: String,
    /// The lane's tip when the run began, for a follow-up's rewritten lane (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_from: Option<String>,
    /// What the last try of the publish or the ready ran into, and when.
    pub error: String,
    pub tried: i64,
    /// How many times it was tried.
    pub tries: u32,
}

impl Run {
    /// A short form of the run id (its random part's first 8 digits), for the names of
    /// the run's worktree and branch.
    pub fn short_id(&self) -> &str {
        let random = self.id.rsplit('-').next().unwrap_or(&self.id);
        &random[..random.len().min(8)]
    }
}

/// The lane a follow-up task continues ([`Task::continues`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Continues {
    pub branch: String,
    pub worktree: String,
    /// The task whose lane it is.
    pub of: String,
    /// What `fleet land` found: `conflicted` or `failed` (red at the gate).
    pub lane_state: String,
    /// The lane's tip when the follow-up was made (its name carries it too, so one
    /// conflict makes one follow-up, however many drainers see it).
    pub tip: String,
}

/// One change of state, as it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    pub at: i64,
    /// `None` for the task's creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<TaskState>,
    pub to: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// A task as `task.toml` stores it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub name: String,
    pub state: TaskState,
    /// Higher first.
    pub priority: i32,
    pub max_attempts: u32,
    pub created: i64,
    /// Not claimed before this time (the back-off after a failed attempt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<i64>,
    /// The agent profile (`[agents.NAME]`) to run it with; the drainer's default when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Tasks that must have succeeded before this one is claimed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
    /// The prompt, for a task made with `--prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The file the plan was read from, for a task made with `--plan` (its content is
    /// `plan.md` beside this file, read by [`Store::load`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_from: Option<String>,
    /// The task's class (`[classes] NAME`): the plans it may run on, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Its budget: parked before a retry once its runs reported this many tokens (input
    /// and output together) or this cost, all runs summed (`[drain]` gives defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// Why it was parked, when not for its attempts (over its budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked_why: Option<String>,
    /// A follow-up task: it continues an existing lane, in that lane's worktree, instead
    /// of starting afresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continues: Option<Continues>,
    /// The drainer that parked the task and owes `[drain] notify` for that park, until
    /// the command ran: a drainer that finds that one gone runs it instead
    /// ([`Store::take_notify`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify_owed: Option<Holder>,
    #[serde(default, rename = "run", skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Run>,
    #[serde(default, rename = "transition", skip_serializing_if = "Vec::is_empty")]
    pub transitions: Vec<Transition>,
}

impl Task {
    /// A new queued task.
    pub fn new(name: &TaskName, now: i64) -> Task {
        Task {
            name: name.as_str().to_string(),
            state: TaskState::Queued,
            priority: 0,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            created: now,
            not_before: None,
            agent: None,
            after: Vec::new(),
            prompt: None,
            plan_from: None,
            class: None,
            max_tokens: None,
            max_cost_usd: None,
            parked_why: None,
            continues: None,
            notify_owed: None,
            runs: Vec::new(),
            transitions: vec![Transition {
                at: now,
                from: None,
                to: TaskState::Queued,
                run: None,
            }],
        }
    }

    /// Attempts used so far: each claim is one, except runs that ended free (a usage
    /// limit, a stopped drainer).
    pub fn attempts(&self) -> u32 {
        self.runs.iter().filter(|r| !r.free).count() as u32
    }

    /// Tokens (input and output) and cost its runs reported, summed.
    pub fn spent(&self) -> (u64, f64) {
        let mut tokens = 0;
        let mut cost = 0.0;
        for u in self.runs.iter().filter_map(|r| r.usage.as_ref()) {
            tokens += u.input_tokens.unwrap_or(0) + u.output_tokens.unwrap_or(0);
            cost += u.cost_usd.unwrap_or(0.0);
        }
        (tokens, cost)
    }

    /// The latest run, if any.
    pub fn last_run(&self) -> Option<&Run> {
        self.runs.last()
    }

    /// Move to `to`, recording the transition.
    pub fn move_to(&mut self, to: TaskState, at: i64, run: Option<&str>) {
        self.transitions.push(Transition {
            at,
            from: Some(self.state),
            to,
            run: run.map(str::to_string),
        });
        self.state = to;
    }

    /// Claim the task for `holder` at `now`: a new run (a fresh id, the next attempt,
    /// a lease of `lease` seconds) and the move to claimed. Returns the run.
    pub fn claim(&mut self, holder: &Holder, now: i64, lease: i64) -> Run {
        let run = Run {
            id: mint_run_id(now),
            attempt: self.attempts() + 1,
            holder: holder.clone(),
            lease_expires: now + lease,
            claimed: now,
            started: None,
            worktree: None,
            branch: None,
            pgid: None,
            ended: None,
            outcome: None,
            error: None,
            free: false,
            plan: None,
            usage: None,
            unpublished: None,
        };
        self.runs.push(run.clone());
        self.move_to(TaskState::Claimed, now, Some(&run.id));
        run
    }

    /// The order `fleet task list` shows and a drainer claims in: by state, higher
    /// priority first, older first, then by name.
    pub fn queue_order(a: &Task, b: &Task) -> std::cmp::Ordering {
        a.state
            .cmp(&b.state)
            .then(b.priority.cmp(&a.priority))
            .then(a.created.cmp(&b.created))
            .then(a.name.cmp(&b.name))
    }

    /// The TOML stored in `task.toml`.
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self)
            .map_err(|e| Error::env(format!("cannot write task {}: {e}", self.name)))
    }

    /// A task read back from `task.toml`; `full_ref` names where it came from in the
    /// error (an unknown state, a missing field).
    pub fn from_toml(text: &str, full_ref: &str) -> Result<Task> {
        toml::from_str(text).map_err(|e| {
            Error::env(format!(
                "the task at {full_ref} is unreadable: {}",
                e.message()
            ))
            .with_help(format!(
                "inspect it with `git show {full_ref}:{TASK_FILE}`; a newer fleet may have written it"
            ))
        })
    }
}

/// A fresh run id: the claim time and randomness, unique across machines.
pub fn mint_run_id(now: i64) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{now:x}-{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_task_names_are_refused_as_usage_errors() {
        for bad in [
            "",
            "-rf",
            "a b",
            "$(touch pwned)",
            "a;b",
            "a\nb",
            "tâche",
            "../x",
            "a/b",
            "`x`",
        ] {
            let e = TaskName::parse(bad).unwrap_err();
            assert_eq!(e.kind, crate::error::Kind::Usage, "{bad:?}");
            assert!(e.message.starts_with("invalid task name"), "{}", e.message);
        }
        assert!(TaskName::parse("task-42_v1.2").is_ok());
    }

    #[test]
    fn an_unknown_state_is_an_error_naming_the_task() {
        let text =
            "name = \"a\"\nstate = \"sleeping\"\npriority = 0\nmax_attempts = 3\ncreated = 1\n";
        let e = Task::from_toml(text, "refs/fleet/tasks/a").unwrap_err();
        assert!(e.message.contains("refs/fleet/tasks/a"), "{}", e.message);
        assert!(e.message.contains("sleeping"), "{}", e.message);
    }

    #[test]
    fn a_task_round_trips_through_toml() {
        let mut task = Task::new(&TaskName::parse("a").unwrap(), 5);
        task.after = vec!["b".into()];
        task.move_to(TaskState::Claimed, 6, Some("r1"));
        let back = Task::from_toml(&task.to_toml().unwrap(), "x").unwrap();
        assert_eq!(back, task);
    }
}
