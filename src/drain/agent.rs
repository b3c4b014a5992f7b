//! An agent (and then its check) run on a thread of its own, so one drainer watches
//! several at once while its main thread keeps the queue (claims, leases, reaps).
//!
//! The thread only runs processes and reports [`Event`]s; every git and queue step stays
//! on the main thread. The agent is the leader of a guarded process group
//! ([`crate::proc::Group::spawn_guarded`], as `fleet run` and the gate's commands are):
//! it dies with the drainer even on `kill -9` (its guardian stops the group), and its
//! record lets `fleet doctor` see an orphan. One guardian guards every group of the
//! drainer ([`Guarding`]), started once rather than twice per task. The thread stops
//! the group itself on the profile's timeout, when the drainer stops (its stop clock, [`StopClock`]) or when
//! the main thread sets `abort`: the run was lost to another drainer, or abandoned as
//! silent for its `abandon_after` ([`super::watch`], which records that end itself). A signal to the drainer reaches no
//! group directly: the drainer asked for that ([`crate::proc::stop_on_signal`]).

use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::proc::guardian::Shared;
use crate::proc::{DEFAULT_GRACE, Group};

/// What a run's thread reports to the main thread.
#[derive(Debug)]
pub enum Event {
    /// The agent's group is running.
    Started { key: usize, pgid: i32, at: i64 },
    /// The agent could not be started.
    NotStarted { key: usize, error: String },
    /// The agent's group is gone (`code` as a shell reports it).
    Exited {
        key: usize,
        code: i32,
        timed_out: bool,
        stopped: bool,
        /// Stopped because its output passed the job's `max_output` (bytes).
        flooded: bool,
    },
    /// The check ended with `code` (its log at `log`); `stopped`: by the drainer.
    Checked {
        key: usize,
        code: i32,
        stopped: bool,
        log: PathBuf,
        error: Option<String>,
    },
}

/// When the drainer's running agents must be gone: set once the drainer is stopping.
#[derive(Default)]
pub struct StopClock(Mutex<Option<Instant>>);

impl StopClock {
    /// Stop by `at` (an earlier time than one already set wins).
    pub fn stop_by(&self, at: Instant) {
        let mut at_most = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *at_most = Some(at_most.map_or(at, |t| t.min(at)));
    }

    fn deadline(&self) -> Option<Instant> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One agent to run.
pub struct Job {
    pub key: usize,
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    pub timeout: Duration,
    /// The most the agent may write to `stdout` and `stderr` together, in bytes.
    pub max_output: u64,
}

/// Start `job` on a thread of its own; it reports on `events`.
pub fn start(
    job: Job,
    clock: Arc<StopClock>,
    abort: Arc<AtomicBool>,
    events: Sender<Event>,
) -> std::io::Result<()> {
    thread::Builder::new()
        .name(format!("agent-{}", job.key))
        .spawn(move || {
            let key = job.key;
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run(&job, &clock, &abort, &events)
            }));
            let event = match ran {
                Ok(Ok(event)) => event,
                Ok(Err(e)) => Event::NotStarted {
                    key,
                    error: format!("cannot start `{}`: {e}", job.argv[0]),
                },
                // The group died with the unwinding (`Group`'s drop kills it); the
                // drainer must still hear of the run, or it waits for it for ever.
                Err(panic) => Event::NotStarted {
                    key,
                    error: thread_failed("agent", panic.as_ref()),
                },
            };
            let _ = events.send(event);
        })
        .map(|_| ())
}

fn run(
    job: &Job,
    clock: &StopClock,
    abort: &AtomicBool,
    events: &Sender<Event>,
) -> std::io::Result<Event> {
    let mut cmd = Command::new(&job.argv[0]);
    cmd.args(&job.argv[1..]).current_dir(&job.cwd);
    for var in crate::repo_env::FOR_CHILDREN {
        cmd.env_remove(var);
    }
    cmd.envs(job.env.iter().map(|(k, v)| (k, v)));
    cmd.stdout(File::create(&job.stdout)?)
        .stderr(File::create(&job.stderr)?);
    // A pipe whose write end closes at once: the agent reads end-of-file, never
    // /dev/null (see `proc::Input`). Close-on-exec, so the agent holds no write end.
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    cmd.stdin(Stdio::from(read));
    let group = spawn_guarded(&mut cmd)?;
    drop(write);
    drop(cmd);
    let _ = events.send(Event::Started {
        key: job.key,
        pgid: group.id() as i32,
        at: crate::time::now(),
    });
    crate::failpoint::hit("drain-agent-started").map_err(std::io::Error::other)?;
    let logs = Logs {
        paths: [&job.stdout, &job.stderr],
        max: job.max_output,
    };
    let (code, timed_out, stopped) = watch(group, job.timeout, clock, abort, Some(&logs))?;
    let flooded = stopped && logs.flooded();
    Ok(Event::Exited {
        key: job.key,
        code,
        timed_out,
        stopped: stopped && !flooded,
        flooded,
    })
}

/// The drainer's one guardian for all its agents' and checks' groups, while it drains.
static GUARDIAN: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

/// The drainer's shared guardian ([`crate::proc::guardian::Shared`]), for as long as
/// this value lives: every agent and check of the drainer is guarded by it, rather than
/// by a guardian started (a start of the fleet binary) for each.
pub struct Guarding;

impl Guarding {
    /// Start the guardian for the groups of runs in `ctx`'s repository (their records
    /// go to its fleet folder). Without one, each group gets a guardian of its own.
    pub fn start(ctx: &crate::context::Context) -> Guarding {
        let records = crate::state::process_groups(&ctx.repo.common_dir());
        let shared = Shared::start(DEFAULT_GRACE, records).map(Arc::new);
        *GUARDIAN.lock().unwrap_or_else(|p| p.into_inner()) = shared;
        Guarding
    }
}

impl Drop for Guarding {
    /// The guardian is dismissed once the last group it guards is reaped.
    fn drop(&mut self) {
        GUARDIAN.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// [`Group::spawn_guarded_by`] the drainer's guardian, one thread of this drainer at a
/// time: the group's record is written aside under a name per process (`.<pid>.tmp`,
/// src/proc/registry.rs) and renamed into place, so two threads writing at once put one
/// record's text under the other's name, torn, and no one ever removes it.
fn spawn_guarded(cmd: &mut Command) -> std::io::Result<Group> {
    static SPAWNING: Mutex<()> = Mutex::new(());
    let _one = SPAWNING.lock().unwrap_or_else(|p| p.into_inner());
    let shared = GUARDIAN.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Group::spawn_guarded_by(cmd, shared.as_ref())
}

/// How often [`watch`] looks at the stop flags and the logs' size. Each look is two
/// `stat`s; a short tick bounds how far past `[drain] max_output_mib` an agent printing
/// flat out gets before its group is stopped.
const TICK: Duration = Duration::from_millis(50);

/// Wait for `group` until it exits, `timeout` passes, the drainer's stop clock runs
/// out or `abort` is set; then stop what is left of it (SIGTERM, the grace, SIGKILL)
/// and reap it. Returns the shell's code, and whether it timed out or was stopped.
fn watch(
    mut group: Group,
    timeout: Duration,
    clock: &StopClock,
    abort: &AtomicBool,
    logs: Option<&Logs>,
) -> std::io::Result<(i32, bool, bool)> {
    let deadline = Instant::now() + timeout;
    let (mut timed_out, mut stopped) = (false, false);
    loop {
        let now = Instant::now();
        if abort.load(Ordering::SeqCst) || clock.deadline().is_some_and(|at| now >= at) {
            stopped = true;
            break;
        }
        if now >= deadline {
            timed_out = true;
            break;
        }
        if logs.is_some_and(Logs::flooded) {
            stopped = true;
            break;
        }
        // Woken at the exit itself; the pause only bounds how late a stop is seen.
        let wake = deadline.min(now + TICK);
        if group.wait_exit(Some(wake))? {
            break;
        }
    }
    let status = group.finish(DEFAULT_GRACE)?;
    Ok((
        crate::proc::shell_code(status, timed_out),
        timed_out,
        stopped,
    ))
}

/// An agent's two log files and the most they may hold together. Looked at on each
/// [`TICK`] of [`watch`], so an agent printing flat out writes at most a tick's worth
/// past the cap before its group is stopped.
struct Logs<'a> {
    paths: [&'a PathBuf; 2],
    max: u64,
}

impl Logs<'_> {
    fn flooded(&self) -> bool {
        let size = |p: &PathBuf| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        self.paths.iter().map(|p| size(p)).sum::<u64>() > self.max
    }
}

/// A check to run in a run's worktree after its agent succeeded: the profile's argv,
/// or each of the gate's commands through `sh -c` (as the gate runs them), in order
/// until one fails, all into one log.
pub struct Check {
    pub key: usize,
    pub commands: Vec<Vec<String>>,
    pub cwd: PathBuf,
    pub log: PathBuf,
    pub timeout: Duration,
}

/// Run `check` on a thread of its own, stopped as an agent is (the drainer's stop
/// clock); it reports [`Event::Checked`].
pub fn start_check(
    check: Check,
    clock: Arc<StopClock>,
    events: Sender<Event>,
) -> std::io::Result<()> {
    thread::Builder::new()
        .name(format!("check-{}", check.key))
        .spawn(move || {
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_check(&check, &clock)
            }));
            let (code, stopped, error) = match ran {
                Ok(Ok((code, stopped))) => (code, stopped, None),
                Ok(Err(e)) => (127, false, Some(e)),
                Err(panic) => (127, false, Some(thread_failed("check", panic.as_ref()))),
            };
            let _ = events.send(Event::Checked {
                key: check.key,
                code,
                stopped,
                log: check.log.clone(),
                error,
            });
        })
        .map(|_| ())
}

/// The check's exit code, and whether the drainer's stop ended it.
fn run_check(check: &Check, clock: &StopClock) -> Result<(i32, bool), String> {
    use std::io::Write;
    let mut log = File::create(&check.log)
        .map_err(|e| format!("cannot create {}: {e}", check.log.display()))?;
    let started = Instant::now();
    let never = AtomicBool::new(false);
    for argv in &check.commands {
        let shown = argv.join(" ");
        let _ = writeln!(log, "$ {shown}");
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).current_dir(&check.cwd);
        for var in crate::repo_env::FOR_CHILDREN {
            cmd.env_remove(var);
        }
        let cannot = |e: std::io::Error| format!("cannot run the check `{shown}`: {e}");
        let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
            .map_err(|e| cannot(e.into()))?;
        cmd.stdin(Stdio::from(read))
            .stdout(log.try_clone().map_err(cannot)?)
            .stderr(log.try_clone().map_err(cannot)?);
        let group = spawn_guarded(&mut cmd).map_err(cannot)?;
        drop(write);
        drop(cmd);
        let left = check.timeout.saturating_sub(started.elapsed());
        let (code, timed_out, stopped) = watch(group, left, clock, &never, None).map_err(cannot)?;
        let _ = writeln!(
            log,
            "[fleet] exited {code}{}",
            if timed_out {
                " (timed out)"
            } else if stopped {
                " (stopped by the drainer)"
            } else {
                ""
            }
        );
        if stopped {
            return Ok((code, true));
        }
        if code != 0 {
            return Ok((code, false));
        }
    }
    Ok((0, false))
}

/// Why a run's thread ended without its event: the panic's text, named as fleet's own
/// failure, so the attempt fails with it instead of the drainer waiting for ever.
fn thread_failed(what: &str, panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    format!(
        "fleet's {what} thread failed ({text}); its process group was killed. This is a bug \
         in fleet: please report it with the drainer's log"
    )
}
