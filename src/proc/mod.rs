//! Process groups: every child process fleet starts goes through this module.
//!
//! Promise: a child runs as the leader of a new process group, and the whole group is
//! signalled when the child times out, when fleet hits an error or is interrupted, and
//! also after the child exits cleanly, so helpers it left behind die with it. The
//! commands that may run long ([`run_logged`], [`run_foreground`]) also die with fleet
//! when fleet itself is killed outright (`kill -9`): a guardian process stops them.
//!
//! One runner, three ways to wire the child's stdio: captured ([`run`], fleet's own
//! tools), appended to a log ([`run_logged`], gate commands) and fleet's own terminal
//! ([`run_foreground`], `fleet run`). All three wait in one loop (`supervise`) and end
//! in one [`Outcome`].
//!
//! Hand-written rather than process-wrap: its group child stops signalling the group
//! once the leader is reaped, so it cannot kill helpers after a clean exit without a
//! PID-reuse race. The parts: `group` (the group, its kill and reap), `signals` (what
//! Ctrl-C does, forwarding and deferral), `guardian` (death with fleet, even by
//! `kill -9`), `registry` (a record per guarded group, for doctor's orphan check).

pub mod escaped;
mod group;
pub mod guardian;
pub mod registry;
mod signals;

use std::io::{self, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::Signal;

pub use group::Group;
pub use signals::{Deferred, defer_signals, stop_on_signal, stop_requests};

/// The signal fleet received and holds off while [`defer_signals`] is in force (or
/// forwards), if one came: work that ends now ended because of it, not on its own.
pub fn interrupted() -> Option<i32> {
    signals::pending()
}

/// How long a group gets between SIGTERM and SIGKILL unless the caller says otherwise.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);

/// What to feed the child on stdin. Never `/dev/null`: on some machines it has been a
/// plain file that other programs write into.
pub enum Input {
    /// A pipe closed at once: the child sees end-of-file.
    Closed,
    /// These bytes, then end-of-file.
    Bytes(Vec<u8>),
    /// fleet's own stdin (interactive commands).
    Inherit,
}

/// How a command ended, whichever runner ran it.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub status: ExitStatus,
    /// The deadline passed and the group was stopped.
    pub timed_out: bool,
    /// A signal fleet received and forwarded to the group ([`run_foreground`] only).
    pub forwarded: Option<i32>,
    /// From the spawn to the leader reaped.
    pub duration: Duration,
    /// What the command wrote ([`run`] only; the other runners send it elsewhere).
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// The code a shell would report: the command's own, 124 on timeout (like `timeout`),
/// 128+N for a death by signal N.
pub fn shell_code(status: ExitStatus, timed_out: bool) -> i32 {
    if timed_out {
        return 124;
    }
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

impl Outcome {
    /// The exit code a shell would report; see [`shell_code`].
    pub fn code(&self) -> i32 {
        shell_code(self.status, self.timed_out)
    }
    pub fn success(&self) -> bool {
        self.status.success() && !self.timed_out
    }
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Run `cmd` to completion in its own process group, capturing stdout and stderr.
/// On timeout the group gets SIGTERM, then SIGKILL after `grace`.
pub fn run(
    cmd: &mut Command,
    input: Input,
    timeout: Option<Duration>,
    grace: Duration,
) -> io::Result<Outcome> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    match input {
        Input::Inherit => cmd.stdin(Stdio::inherit()),
        _ => cmd.stdin(Stdio::piped()),
    };
    let started = Instant::now();
    let mut group = Group::spawn(cmd)?;
    let stdin = group.child.stdin.take();
    let feeder = match (input, stdin) {
        (Input::Bytes(bytes), Some(mut pipe)) => Some(thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })),
        _ => None,
    };
    let stdout = drain(group.child.stdout.take());
    let stderr = drain(group.child.stderr.take());
    let timed_out = supervise(&mut group, Watch::new(started, timeout, grace))?;
    // fleet's own short tool runs (git) get no grace after they exit: whatever they left
    // in their group is killed at once, without the cost of looking for it first.
    let status = if timed_out {
        group.finish(grace)?
    } else {
        group.finish_now()?
    };
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    Ok(Outcome {
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        ..ended(status, timed_out, started)
    })
}

/// Run `cmd` in its own group with stdout and stderr appended to `log`, calling `tick`
/// with the elapsed time now and then (for a progress line). Timeout as in [`run`];
/// after the command exits, whatever it left in its group gets `grace` before SIGKILL.
pub fn run_logged(
    cmd: &mut Command,
    log: &std::fs::File,
    timeout: Option<Duration>,
    grace: Duration,
    mut tick: impl FnMut(Duration),
) -> io::Result<Outcome> {
    cmd.stdin(Stdio::piped())
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?);
    let started = Instant::now();
    let mut group = Group::spawn_guarded(cmd, grace)?;
    drop(group.child.stdin.take());
    let watch = Watch {
        tick: Some(&mut tick),
        ..Watch::new(started, timeout, grace)
    };
    let timed_out = supervise(&mut group, watch)?;
    let status = group.finish(grace)?;
    Ok(ended(status, timed_out, started))
}

/// Run `cmd` in the foreground with fleet's own stdio, in its own process group.
/// Ctrl-C, SIGTERM and SIGHUP are forwarded to the group; on timeout or a forwarded
/// signal the group gets `grace` before SIGKILL; after the command exits, whatever it
/// left behind in its group is terminated the same way.
pub fn run_foreground(
    cmd: &mut Command,
    timeout: Option<Duration>,
    grace: Duration,
) -> io::Result<Outcome> {
    let (result, forwarded) = signals::forwarding(|| {
        let started = Instant::now();
        let mut group = Group::spawn_guarded(cmd, grace)?;
        let watch = Watch {
            forwarding: true,
            ..Watch::new(started, timeout, grace)
        };
        let timed_out = supervise(&mut group, watch)?;
        let status = group.finish(grace)?;
        Ok(ended(status, timed_out, started))
    });
    result.map(|outcome| Outcome {
        forwarded,
        ..outcome
    })
}

fn ended(status: ExitStatus, timed_out: bool, started: Instant) -> Outcome {
    Outcome {
        status,
        timed_out,
        forwarded: None,
        duration: started.elapsed(),
        stdout: Vec::new(),
        stderr: Vec::new(),
    }
}

/// What `supervise` watches for besides the leader's exit.
struct Watch<'a> {
    started: Instant,
    deadline: Option<Instant>,
    grace: Duration,
    /// Called with the elapsed time every half second or so (a progress line).
    tick: Option<&'a mut dyn FnMut(Duration)>,
    /// `fleet run`: a forwarded signal or the deadline starts the grace here, and the
    /// wait goes on until the leader exits, SIGKILLed once the grace is over.
    forwarding: bool,
}

impl Watch<'_> {
    fn new(started: Instant, timeout: Option<Duration>, grace: Duration) -> Self {
        Watch {
            started,
            deadline: timeout.map(|t| started + t),
            grace,
            tick: None,
            forwarding: false,
        }
    }
}

/// The one wait loop: until the leader exits (left unreaped, so the group can still be
/// cleaned up) or, unless forwarding, the deadline passes. `true` when it timed out.
fn supervise(group: &mut Group, mut watch: Watch) -> io::Result<bool> {
    let mut timed_out = false;
    let mut kill_at: Option<Instant> = None;
    let mut next_tick = watch.started + Duration::from_millis(250);
    // Forwarding polls: a signal or the grace's end is noticed at most this late.
    let mut pause = Duration::from_micros(200);
    loop {
        let now = Instant::now();
        if watch.forwarding && kill_at.is_none() && signals::pending().is_some() {
            kill_at = Some(now + watch.grace);
        }
        if kill_at.is_none() && watch.deadline.is_some_and(|d| now >= d) {
            timed_out = true;
            if !watch.forwarding {
                return Ok(true);
            }
            group.signal(Signal::TERM);
            kill_at = Some(now + watch.grace);
        }
        if kill_at.is_some_and(|k| now >= k) {
            group.signal(Signal::KILL);
        }
        if let Some(tick) = watch.tick.as_mut()
            && now >= next_tick
        {
            tick(watch.started.elapsed());
            next_tick = now + Duration::from_millis(500);
        }
        let wake = [
            watch.forwarding.then(|| now + pause),
            watch.deadline.filter(|_| !timed_out),
            watch.tick.is_some().then_some(next_tick),
        ]
        .into_iter()
        .flatten()
        .min();
        // Wakes at the exit itself, whatever the wake-up time.
        if group.wait_exit(wake)? {
            return Ok(timed_out);
        }
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Kill every process whose working folder is inside `dir`: leftovers of a run that was
/// killed too hard to clean up (`kill -9` of fleet). Only for folders that are fleet's
/// own (the gate worktree), used while holding the lock that owns them. Returns how many.
pub fn kill_processes_under(dir: &std::path::Path) -> usize {
    let me = std::process::id();
    let mut killed = 0;
    for pid in crate::sys::procfs::working_under(dir) {
        if pid == me {
            continue;
        }
        if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
        killed += 1;
    }
    killed
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut buf);
        }
        buf
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_captures_output_and_exit_code() {
        let out = run(
            Command::new("sh").args(["-c", "echo hi; echo err >&2; exit 3"]),
            Input::Closed,
            None,
            DEFAULT_GRACE,
        )
        .unwrap();
        assert_eq!(out.stdout_str(), "hi\n");
        assert_eq!(out.stderr_str(), "err\n");
        assert_eq!(out.code(), 3);
        assert!(!out.timed_out);
    }

    #[test]
    fn stdin_is_a_closed_pipe_not_dev_null() {
        let out = run(
            Command::new("sh").args(["-c", "cat; readlink /proc/self/fd/0"]),
            Input::Closed,
            None,
            DEFAULT_GRACE,
        )
        .unwrap();
        assert!(
            out.stdout_str().starts_with("pipe:"),
            "{}",
            out.stdout_str()
        );
    }

    #[test]
    fn helpers_left_behind_after_a_clean_exit_are_killed() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!(
            "sleep 300 >/dev/null 2>&1 & echo $! > {}; exit 0",
            pidfile.display()
        );
        let out = run(
            Command::new("sh").args(["-c", &script]),
            Input::Closed,
            None,
            Duration::from_millis(500),
        )
        .unwrap();
        assert!(out.success());
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!process_alive(pid), "helper {pid} outlived its group");
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!(
            "trap '' TERM; sleep 300 >/dev/null 2>&1 & echo $! > {}; wait",
            pidfile.display()
        );
        let out = run(
            Command::new("sh").args(["-c", &script]),
            Input::Closed,
            Some(Duration::from_millis(300)),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(out.timed_out);
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(!process_alive(pid), "helper {pid} survived the timeout");
    }

    /// Alive and not a zombie waiting for init to reap it.
    fn process_alive(pid: i32) -> bool {
        for _ in 0..100 {
            match crate::sys::procfs::Stat::read(pid as u32) {
                None => return false,
                Some(stat) if stat.state() == Some('Z') => return false,
                Some(_) => {}
            }
            thread::sleep(Duration::from_millis(20));
        }
        true
    }
}
