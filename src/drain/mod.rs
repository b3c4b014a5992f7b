//! `fleet drain`, the supervisor: claims tasks, runs their agents into lanes, never lands.
//!
//! One main thread keeps the queue: it claims ([`crate::tasks::Store::claim_next_where`],
//! within `--max` and each profile's `max_concurrency`), makes each run's worktree and
//! starts its agent ([`spawn`], [`agent`]: one thread per agent, which only runs
//! processes), renews the leases and takes back what dead or stale holders left
//! ([`watch`]), and reaps what ends ([`reap`]: the verdict, the check, the lane made
//! ready) or queues it again ([`retry`]). A stop (SIGTERM, Ctrl-C) ends claiming; the
//! running agents get the stop timeout, then their groups are stopped and each run is
//! recorded (timed out, "stopped by the drainer", free: it does not use up an attempt)
//! and queued again. A drainer killed outright takes its agents with it (their
//! guardians), and the next drainer reaps their tasks as crashed.
//!
//! Prepared ahead (`[drain] prepare_ahead`, on by default): while every slot is busy,
//! the next tasks (up to [`AHEAD`], two) are claimed and their runs prepared (each
//! worktree made on a thread of its own, side by side, while the main thread goes on
//! reaping; then its plan and launch) so an agent starts the moment a slot frees;
//! `--max` still caps the agents running. Each claim is an ordinary one, recorded once.
//! It is held at most half of the claim grace (and of the lease), and only when this
//! drainer's last runs were short (the second only when shorter still); past that, and
//! when the drainer stops, every run prepared ahead is handed back
//! ([`crate::tasks::Store::release`]: queued again by compare-and-swap, no attempt
//! used) and its worktree removed. A drainer killed while it holds one leaves a claim
//! the next drainer takes back, as any other.
//!
//! With `[plans]`, each claim routes its task to a plan ([`crate::plans::route`]) and
//! records it on the run; a usage limit closes that plan for every drainer
//! ([`crate::plans::PlanStore`]) and the task goes back to the queue at once, to the
//! next open plan.
//!
//! Failpoints for the crash tests (`FLEET_FAILPOINT=<name>:abort`, see
//! [`crate::failpoint`]), at each step of a run: `drain-after-claim`,
//! `drain-after-worktree` (made, not yet recorded in the run; `drain-ahead-after-worktree`
//! the same for a run prepared ahead only), `drain-after-place`,
//! `drain-before-running` (the agent started, the task still claimed),
//! `drain-before-reap`, `drain-before-ready`, `drain-after-ready` (the lane ready, the
//! end not recorded) and `drain-after-end` (a failure recorded, not yet queued again).

mod agent;
mod cleanup;
pub mod follow;
pub mod liveness;
pub mod pack;
mod reap;
pub mod record;
pub mod retry;
pub mod spawn;
mod watch;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::agents::profile::Profile;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::queue::Queue;
use crate::report::Ui;
use crate::tasks::{Claimed, Holder, Outcome, Store, Task, TaskName, TaskState};

/// How many runs a drainer prepares ahead at most (`[drain] prepare_ahead`): two, so
/// with short runs two worktrees are made side by side, each on a thread of its own,
/// while the agents run (a worktree takes longer than a trivial agent; see
/// BENCHMARKS.md).
const AHEAD: usize = 2;

/// How a drainer runs.
pub struct Options {
    /// One pass: claim what the caps allow, run those to their end, exit.
    pub once: bool,
    /// Agents at once, for this drainer.
    pub max: usize,
    /// Overrides `[drain] stop_timeout`.
    pub stop_timeout: Option<Duration>,
    /// The commit the binary was built from (the holder's, and the record's).
    pub commit: String,
}

/// What a drainer did, for `--json`.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub pid: u32,
    pub runs: Vec<RunReport>,
    /// Runs of other holders this drainer took back (dead, stale or expired).
    pub taken_back: Vec<TakenBack>,
    /// A signal stopped it.
    pub stopped: bool,
}

/// One run this drainer started (or tried to).
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub task: String,
    pub run: String,
    pub attempt: u32,
    pub agent: Option<String>,
    pub worktree: Option<PathBuf>,
    pub branch: Option<String>,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    pub outcome: Option<Outcome>,
    pub error: Option<String>,
    /// The task's state once this drainer was done with the run.
    pub state: Option<TaskState>,
    /// The check, when it ran.
    pub check: Option<CheckReport>,
    /// The plan it ran on (`[plans.NAME]`), when fleet.toml has plans.
    pub plan: Option<String>,
}

/// The check's exit code and log.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub exit_code: i32,
    pub log: PathBuf,
}

#[derive(Debug, Clone, Serialize)]
pub struct TakenBack {
    pub task: String,
    pub run: String,
    pub why: String,
    pub state: TaskState,
}

/// A run in progress on this drainer.
struct Live {
    name: TaskName,
    run: crate::tasks::Run,
    profile: Profile,
    placed: Option<spawn::Placed>,
    abort: Arc<AtomicBool>,
    /// The agent's group is running and the task moved to running.
    started: bool,
    /// Another drainer holds the task now: its end is not ours to record.
    lost: bool,
    /// What the agent reported it used, once it ended.
    usage: Option<crate::agents::result::Usage>,
    report: RunReport,
    /// When its agent was launched: how long runs take decides whether the next one is
    /// prepared ahead ([`Drainer::may_prepare_ahead`]).
    launched: Instant,
}

/// Drain the queue until stopped (or, with `once`, for one pass).
pub fn drain(ctx: &Context, queue: &Queue, opts: &Options, ui: &dyn Ui) -> Result<Report> {
    if opts.max == 0 {
        return Err(Error::usage("--max 0 would run nothing").with_help("give --max 1 or more"));
    }
    if ctx.config.agents.is_empty() {
        return Err(Error::usage(
            "fleet.toml has no agent profile, so there is nothing to run tasks with",
        )
        .with_help(
            "add one, e.g. [agents.claude] with command = [\"claude\", \"-p\", \"Carry out the plan in {plan}\"], and [drain] agent = \"claude\"",
        ));
    }
    if let Some(name) = &ctx.config.drain.agent
        && !ctx.config.agents.contains_key(name.as_str())
    {
        return Err(Error::usage(format!(
            "[drain] agent = \"{}\" names no [agents.{}] profile in fleet.toml",
            name.as_str(),
            name.as_str()
        ))
        .with_help("add that profile, or set [drain] agent to one of fleet.toml's profiles"));
    }
    crate::plans::check(&ctx.config)?;
    crate::proc::stop_on_signal();
    let _record = Registered::write(ctx, &opts.commit);
    let _guarding = agent::Guarding::start(ctx);
    let store = Store::new(ctx, queue);
    let plans = crate::plans::PlanStore::new(ctx, queue);
    let (tx, rx) = channel();
    let mut d = Drainer {
        ctx,
        queue,
        store: &store,
        plans: &plans,
        ui,
        holder: Holder::this_process(&opts.commit),
        opts,
        tx,
        clock: Arc::new(agent::StopClock::default()),
        live: BTreeMap::new(),
        ahead: std::collections::VecDeque::new(),
        recent: std::collections::VecDeque::new(),
        next_key: 0,
        silences: watch::Silences::default(),
        pending: BTreeMap::new(),
        report: Report {
            pid: std::process::id(),
            ..Report::default()
        },
    };
    d.run(&rx)?;
    Ok(d.report)
}

struct Drainer<'a> {
    ctx: &'a Context,
    queue: &'a Queue,
    store: &'a Store<'a>,
    plans: &'a crate::plans::PlanStore<'a>,
    ui: &'a dyn Ui,
    holder: Holder,
    opts: &'a Options,
    tx: Sender<agent::Event>,
    clock: Arc<agent::StopClock>,
    live: BTreeMap<usize, Live>,
    /// The next runs, oldest claim first, claimed and prepared while every slot was busy
    /// (`[drain] prepare_ahead`, see the module's doc): at most [`AHEAD`].
    ahead: std::collections::VecDeque<spawn::Ahead>,
    /// How long this drainer's last few runs took, launch to end.
    recent: std::collections::VecDeque<Duration>,
    next_key: usize,
    report: Report,
    /// The runs' starts, and the runs abandoned as silent ([`liveness`]).
    silences: watch::Silences,
    /// Runs whose check passed and whose lane is not ready yet ([`reap`]).
    pending: BTreeMap<usize, reap::Pending>,
}

impl Drainer<'_> {
    fn run(&mut self, rx: &Receiver<agent::Event>) -> Result<()> {
        let settings = &self.ctx.config.drain;
        let stop_timeout = self.opts.stop_timeout.unwrap_or(settings.stop_timeout.0);
        let lease = settings.lease.0;
        let renew_every = (lease / 3).max(Duration::from_secs(1));
        let watch_every = (settings.claim_grace.0 / 4)
            .min(lease / 4)
            .clamp(Duration::from_millis(500), Duration::from_secs(10));
        // A run prepared ahead holds its claim at most this long: well inside the grace
        // after which other drainers take a claim that is not running back as stale,
        // and inside its lease, which is not renewed meanwhile.
        let hold = settings.claim_grace.0.min(lease) / 2;
        // Set when a run prepared ahead waited out `hold`: none more until a slot frees.
        let mut ahead_spent = false;
        let mut claiming = true;
        let mut claims = 0;
        let mut stopping = 0;
        let mut last_renew = Instant::now();
        let mut last_watch: Option<Instant> = None;
        loop {
            let requests = crate::proc::stop_requests();
            if requests > stopping {
                if stopping == 0 {
                    self.ui.note(&format!(
                        "stopping: no new claims; {} running agent(s) get {}s to finish",
                        self.live.len(),
                        stop_timeout.as_secs()
                    ));
                    self.clock.stop_by(Instant::now() + stop_timeout);
                } else {
                    self.ui.note("stopping now: the running agents are stopped");
                    self.clock.stop_by(Instant::now());
                }
                stopping = requests;
                claiming = false;
                self.report.stopped = true;
                self.hand_back_ahead("the drainer stopped");
            }
            while let Ok(event) = rx.try_recv() {
                self.on_event(event);
            }
            if last_watch.is_none_or(|t| t.elapsed() >= watch_every) && stopping == 0 {
                if let Err(e) = self.store.refresh() {
                    self.ui
                        .warn(&format!("cannot fetch the task queue: {}", e.message));
                }
                pack::pack_task_refs_if_loose(self.ctx, self.queue, self.ui);
                self.watch();
                self.follow_up_lanes();
                self.clean_up_landed();
                last_watch = Some(Instant::now());
            }
            self.abandon_silent();
            self.retry_unpublished(stopping > 0);
            if last_renew.elapsed() >= renew_every {
                self.renew();
                last_renew = Instant::now();
            }
            if self.ahead.iter().any(|a| a.at().elapsed() >= hold) {
                let why = format!(
                    "no slot freed within {}s of preparing it",
                    hold.as_secs_f64().round()
                );
                self.hand_back_ahead(&why);
                ahead_spent = true;
            }
            // Its worktree made, the rest of a run prepared ahead (recorded on the run,
            // its plan written) is done now, while the slot is still busy: when it frees,
            // only the agent is left to start.
            self.ahead = std::mem::take(&mut self.ahead)
                .into_iter()
                .filter_map(|ahead| match ahead.made() {
                    true => self
                        .finish_ahead(ahead)
                        .map(|p| spawn::Ahead::Ready(Box::new(p))),
                    false => Some(ahead),
                })
                .collect();
            if self.live.len() < self.opts.max {
                ahead_spent = false;
                if let Some(ahead) = self.ahead.pop_front() {
                    if let Some(prepared) = self.finish_ahead(ahead) {
                        self.launch(prepared);
                    }
                    continue;
                }
            } else if claiming && !ahead_spent && self.may_prepare_ahead(hold) {
                match self.claim(true) {
                    Ok(Some(claimed)) => {
                        if let Some(ahead) = self.prepare_ahead(claimed) {
                            self.ahead.push_back(ahead);
                        }
                        continue;
                    }
                    Ok(None) => {}
                    Err(e) => self.ui.warn(&format!("claiming failed: {}", e.message)),
                }
            }
            if claiming && self.live.len() < self.opts.max {
                match self.claim(false) {
                    Ok(Some(claimed)) => {
                        self.spawn(claimed);
                        claims += 1;
                        // One pass claims at most --max, however fast its runs end.
                        claiming = !(self.opts.once && claims >= self.opts.max);
                        continue;
                    }
                    Ok(None) => claiming = !self.opts.once,
                    Err(e) => {
                        self.ui.warn(&format!("claiming failed: {}", e.message));
                        claiming = !self.opts.once;
                    }
                }
            }
            if !claiming && self.live.is_empty() && (self.opts.once || stopping > 0) {
                self.hand_back_ahead("the drainer stopped");
                return Ok(());
            }
            if let Ok(event) = rx.recv_timeout(Duration::from_millis(250)) {
                self.on_event(event);
            }
        }
    }

    /// The profile run `run` of `task` runs with: its plan's, else (no plan) the task's
    /// own or `[drain] agent`. A task whose route is broken (a class or profile gone
    /// from fleet.toml) gets the error saying why.
    fn profile_of(
        &self,
        task: &Task,
        run: Option<&crate::tasks::Run>,
    ) -> Result<(String, Profile)> {
        let config = &self.ctx.config;
        let name = match run.and_then(|r| r.plan.as_deref()) {
            Some(plan) => crate::plans::named(config, plan)?
                .agent
                .as_str()
                .to_string(),
            None if config.plans.is_empty() => {
                return crate::agents::profile::choose(
                    &config.agents,
                    &config.drain,
                    task.agent.as_deref(),
                )
                .map(|(n, p)| (n, p.clone()));
            }
            None => {
                let route = crate::plans::route::route(
                    config,
                    task,
                    &BTreeMap::new(),
                    &crate::plans::route::Busy::default(),
                    crate::time::now(),
                );
                match route.decision {
                    crate::plans::route::Decision::Broken { why } => {
                        return Err(Error::usage(why).with_help(
                            "fix fleet.toml (on the target branch), or `fleet task retry` after; `fleet plans explain TASK` shows the route",
                        ));
                    }
                    crate::plans::route::Decision::Run { agent, .. } => agent,
                    crate::plans::route::Decision::Wait => {
                        return Err(Error::usage("the task was claimed with no plan to run on"));
                    }
                }
            }
        };
        crate::agents::profile::choose(&config.agents, &config.drain, Some(&name))
            .map(|(n, p)| (n, p.clone()))
    }

    /// Whether to claim and prepare one more run now, while every slot is busy, so its
    /// agent starts the moment one frees: `[drain] prepare_ahead` is on, the drainer runs
    /// until stopped (not `--once`), fleet.toml has no plans (a usage limit could close
    /// the plan of a run that waits), fewer than [`AHEAD`] are prepared, and this
    /// drainer's last runs were short enough that the new one is not likely to wait out
    /// its hold and be handed back (long runs gain little from it anyway): the k-th run
    /// prepared waits for about k runs, so each of the last took less than
    /// `hold / (2 k)`.
    fn may_prepare_ahead(&self, hold: Duration) -> bool {
        let k = self.ahead.len() as u32 + 1;
        self.ctx.config.drain.prepare_ahead
            && !self.opts.once
            && self.ctx.config.plans.is_empty()
            && self.ahead.len() < AHEAD
            && !self.recent.is_empty()
            && self.recent.iter().all(|took| *took < hold / (2 * k))
    }

    /// Hand back every run prepared ahead (see [`spawn::Drainer::hand_back`]), newest
    /// claim first, so the oldest goes back to the queue last.
    fn hand_back_ahead(&mut self, why: &str) {
        while let Some(ahead) = self.ahead.pop_back() {
            if let Some(prepared) = self.finish_ahead(ahead) {
                self.hand_back(prepared, why);
            }
        }
    }

    /// Claim the next task the caps allow and route it to a plan
    /// ([`crate::plans::route`], what `fleet plans explain` prints): a closed plan
    /// starts nothing, and a plan or profile at its `max_concurrency` (runs of it
    /// claimed or running in the whole queue, every drainer's) takes no more.
    ///
    /// `ahead`: the claim is prepared ahead; a follow-up task (one that continues a
    /// lane's worktree) is not taken then: it waits for a free slot.
    fn claim(&mut self, ahead: bool) -> Result<Option<Claimed>> {
        use crate::plans::route::{Busy, Decision, route};
        let config = &self.ctx.config;
        let now = crate::time::now();
        let routed = !config.plans.is_empty();
        let capped = routed || config.agents.values().any(|p| p.max_concurrency.is_some());
        let busy = if capped {
            Busy::of(config, &self.store.list()?)
        } else {
            Busy::default()
        };
        let states = if routed {
            self.plans.all()?
        } else {
            BTreeMap::new()
        };
        let route = |task: &Task| -> Option<Option<String>> {
            if !follow::runs_here(self.ctx, self.queue, task) || (ahead && task.continues.is_some())
            {
                return None;
            }
            match route(config, task, &states, &busy, now).decision {
                Decision::Run { plan, .. } => Some(plan),
                Decision::Wait => None,
                // Claimed, so the attempt fails with the error that says why.
                Decision::Broken { .. } => Some(None),
            }
        };
        let lease = config.drain.lease.0;
        let claimed = self
            .store
            .claim_next_routed(&self.holder, now, lease, &route)?;
        if let Some(c) = &claimed {
            self.ui.note(&format!(
                "{}: claimed (run {}, attempt {}{}){}",
                c.task.name,
                c.run.id,
                c.run.attempt,
                c.run
                    .plan
                    .as_deref()
                    .map(|p| format!(", plan {p}"))
                    .unwrap_or_default(),
                if ahead {
                    "; prepared ahead, to start when a slot frees"
                } else {
                    ""
                }
            ));
        }
        Ok(claimed)
    }
}

/// This drainer's record ([`record`]), removed when the drainer ends.
struct Registered(Option<PathBuf>);

impl Registered {
    fn write(ctx: &Context, commit: &str) -> Registered {
        let pid = std::process::id();
        let binary = std::env::current_exe().unwrap_or_default();
        let binary_mtime = std::fs::metadata(&binary)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64);
        let me = record::DrainerRecord {
            pid,
            process_start: crate::sys::procfs::started_at(pid),
            host: crate::sys::procfs::hostname().unwrap_or_else(|| "unknown".into()),
            boot_id: crate::sys::procfs::boot_id(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: commit.to_string(),
            binary,
            binary_mtime,
            started: crate::time::now(),
        };
        Registered(record::write(&ctx.repo.common_dir(), &me).ok())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(path) = &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}
