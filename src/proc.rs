//! Process groups: every child process fleet starts goes through this module.
//!
//! Promise: a child runs as the leader of a new process group, and the whole group is
//! signalled when the child times out, when fleet hits an error or is interrupted, and
//! also after the child exits cleanly, so helpers it left behind die with it.
//!
//! PID reuse: the group is only signalled while its leader is known to be unreaped
//! (alive or a zombie we have not collected), so the group id is still ours. Exit is
//! observed with `waitid(WNOWAIT)`, which leaves the zombie in place until the group has
//! been cleaned up; only then is the leader reaped.
//!
//! Ctrl-C: a child in its own group does not get the terminal's SIGINT, so fleet keeps a
//! fixed table of live group ids and its signal handler terminates them before fleet
//! itself dies.

use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, Once};
use std::thread;
use std::time::{Duration, Instant};

/// How long a group gets between SIGTERM and SIGKILL unless the caller says otherwise.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);

const SLOTS: usize = 128;
static LIVE_GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
static INSTALL_HANDLERS: Once = Once::new();

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

/// A running child that leads its own process group.
pub struct Group {
    child: Child,
    pgid: i32,
    reaped: Option<ExitStatus>,
}

/// The result of [`run`].
#[derive(Debug)]
pub struct Output {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
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

impl Output {
    /// The exit code, with a signal death mapped to 128+signal like a shell does.
    pub fn code(&self) -> i32 {
        shell_code(self.status, false)
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

impl Group {
    /// Start `cmd` as the leader of a new process group.
    pub fn spawn(cmd: &mut Command) -> io::Result<Group> {
        install_signal_handlers();
        if DEFERRING.load(Ordering::SeqCst) > 0 && PENDING_SIGNAL.load(Ordering::SeqCst) != 0 {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "interrupted by a signal: no new commands are started",
            ));
        }
        cmd.process_group(0);
        die_with_parent(cmd);
        let child = cmd.spawn()?;
        let pgid = child.id() as i32;
        register(pgid);
        Ok(Group {
            child,
            pgid,
            reaped: None,
        })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Wait until the leader exits or `deadline` passes; `true` when it exited.
    /// The leader is left as a zombie so the group id cannot be reused yet.
    pub fn wait_exit(&mut self, deadline: Option<Instant>) -> io::Result<bool> {
        if self.reaped.is_some() {
            return Ok(true);
        }
        wait_leader(self.pgid, deadline)
    }

    /// Send `signal` to the whole group, only while the leader is unreaped.
    pub fn signal(&self, signal: i32) {
        if self.reaped.is_none() && self.pgid > 1 {
            // SAFETY: killpg has no memory-safety preconditions; the pgid is our child's.
            unsafe {
                libc::killpg(self.pgid, signal);
            }
        }
    }

    /// Clean up the group after the leader exited (or to stop it): SIGTERM to every
    /// member, SIGKILL after `grace`, then reap the leader.
    pub fn finish(mut self, grace: Duration) -> io::Result<ExitStatus> {
        self.terminate(grace);
        self.reap()
    }

    /// After the leader exited: SIGKILL whatever is left in the group (the zombie leader
    /// keeps the group id ours), then reap.
    pub fn finish_now(mut self) -> io::Result<ExitStatus> {
        self.signal(libc::SIGKILL);
        self.reap()
    }

    fn terminate(&mut self, grace: Duration) {
        if self.reaped.is_some() {
            return;
        }
        let leader_gone = leader_exited(self.pgid).unwrap_or(true);
        if leader_gone && !group_has_other_members(self.pgid, self.pgid) {
            return;
        }
        self.signal(libc::SIGTERM);
        let deadline = Instant::now() + grace;
        let mut pause = Duration::from_millis(1);
        while Instant::now() < deadline {
            let leader_gone = leader_exited(self.pgid).unwrap_or(true);
            if leader_gone && !group_has_other_members(self.pgid, self.pgid) {
                return;
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
        self.signal(libc::SIGKILL);
    }

    fn reap(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.reaped {
            return Ok(status);
        }
        let _guard = REAP_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        unregister(self.pgid);
        let status = self.child.wait()?;
        self.reaped = Some(status);
        Ok(status)
    }
}

impl Drop for Group {
    /// On an early return or a panic the group must still die: kill and reap.
    fn drop(&mut self) {
        if self.reaped.is_none() {
            self.signal(libc::SIGKILL);
            let _ = self.reap();
        }
    }
}

/// Run `cmd` to completion in its own process group, capturing stdout and stderr.
/// On timeout the group gets SIGTERM, then SIGKILL after `grace`.
pub fn run(
    cmd: &mut Command,
    input: Input,
    timeout: Option<Duration>,
    grace: Duration,
) -> io::Result<Output> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    match input {
        Input::Inherit => cmd.stdin(Stdio::inherit()),
        _ => cmd.stdin(Stdio::piped()),
    };
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
    let deadline = timeout.map(|t| Instant::now() + t);
    let exited = group.wait_exit(deadline)?;
    // fleet's own short tool runs (git) get no grace after they exit: whatever they left
    // in their group is killed at once, without the cost of looking for it first.
    let status = if exited {
        group.finish_now()?
    } else {
        group.finish(grace)?
    };
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    Ok(Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        timed_out: !exited,
    })
}

/// How a logged command ended.
#[derive(Debug, Clone, Copy)]
pub struct Logged {
    pub status: ExitStatus,
    pub timed_out: bool,
    pub duration: Duration,
}

impl Logged {
    pub fn code(&self) -> i32 {
        shell_code(self.status, self.timed_out)
    }
}

/// Run `cmd` in its own group with stdout and stderr appended to `log`, calling `tick`
/// with the elapsed time now and then (for a progress line). Timeout and cleanup as in
/// [`run`].
pub fn run_logged(
    cmd: &mut Command,
    log: &std::fs::File,
    timeout: Option<Duration>,
    grace: Duration,
    mut tick: impl FnMut(Duration),
) -> io::Result<Logged> {
    cmd.stdin(Stdio::piped())
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?);
    let started = Instant::now();
    let mut group = Group::spawn(cmd)?;
    drop(group.child.stdin.take());
    let deadline = timeout.map(|t| started + t);
    let mut next_tick = started;
    let exited = loop {
        let step = (Instant::now() + Duration::from_millis(250))
            .min(deadline.unwrap_or(Instant::now() + Duration::from_secs(3600)));
        if group.wait_exit(Some(step))? {
            break true;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break false;
        }
        if Instant::now() >= next_tick {
            tick(started.elapsed());
            next_tick = Instant::now() + Duration::from_millis(500);
        }
    };
    let status = group.finish(grace)?;
    Ok(Logged {
        status,
        timed_out: !exited,
        duration: started.elapsed(),
    })
}

/// Kill every process whose working folder is inside `dir`: leftovers of a run that was
/// killed too hard to clean up (`kill -9` of fleet). Only for folders that are fleet's
/// own (the gate worktree), used while holding the lock that owns them. Returns how many.
pub fn kill_processes_under(dir: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let me = std::process::id() as i32;
    let mut killed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        if std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir)) {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            killed += 1;
        }
    }
    killed
}

/// Linux: the child gets SIGKILL if fleet itself dies without a chance to clean up
/// (`kill -9`), so a killed fleet leaves no leader running. Helpers in the group are
/// not covered; they are what the signal watcher handles on every other death.
#[cfg(target_os = "linux")]
fn die_with_parent(cmd: &mut Command) {
    // SAFETY: getpid before fork; the closure only calls async-signal-safe prctl,
    // getppid and _exit between fork and exec.
    let parent = unsafe { libc::getpid() };
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died before prctl took effect.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_cmd: &mut Command) {}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut buf);
        }
        buf
    })
}

/// Has the child `pid` exited? Does not reap it.
fn leader_exited(pid: i32) -> io::Result<bool> {
    // SAFETY: waitid writes into the zeroed siginfo we own.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        if rc != 0 {
            let err = io::Error::last_os_error();
            return if err.raw_os_error() == Some(libc::ECHILD) {
                Ok(true)
            } else {
                Err(err)
            };
        }
        Ok(info.si_pid() != 0)
    }
}

/// Block until the child `pid` exits (leaving it unreaped) or `until` passes; `true`
/// when it exited. A pidfd wakes us the moment it exits: polling with a growing pause
/// would notice a 3 ms child up to 3 ms late, and fleet runs several per lane. Kernels
/// without pidfds (before 5.3) get the polling.
fn wait_leader(pid: i32, until: Option<Instant>) -> io::Result<bool> {
    if let Some(pidfd) = PidFd::open(pid) {
        return pidfd
            .wait(until)
            .map(|exited| exited || leader_exited(pid).unwrap_or(false));
    }
    let mut pause = Duration::from_micros(200);
    loop {
        if leader_exited(pid)? {
            return Ok(true);
        }
        if until.is_some_and(|u| Instant::now() >= u) {
            return Ok(false);
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// A file descriptor that becomes readable when a process exits.
struct PidFd(libc::c_int);

impl PidFd {
    /// For our own unreaped child only, so the pid cannot have been reused.
    #[cfg(target_os = "linux")]
    fn open(pid: i32) -> Option<PidFd> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        (fd >= 0).then_some(PidFd(fd as libc::c_int))
    }

    #[cfg(not(target_os = "linux"))]
    fn open(_pid: i32) -> Option<PidFd> {
        None
    }

    /// `true` once the process exited, `false` when `until` passed first.
    fn wait(&self, until: Option<Instant>) -> io::Result<bool> {
        loop {
            let timeout_ms = match until {
                None => -1,
                Some(until) => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(false);
                    }
                    // Rounded up, so a wait never ends just before `until`.
                    left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int
                }
            };
            let mut poll = libc::pollfd {
                fd: self.0,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one pollfd we own, for the duration of the call.
            match unsafe { libc::poll(&mut poll, 1, timeout_ms) } {
                0 => continue,
                n if n > 0 => return Ok(true),
                _ => {
                    let err = io::Error::last_os_error();
                    if err.kind() != io::ErrorKind::Interrupted {
                        return Err(err);
                    }
                }
            }
        }
    }
}

impl Drop for PidFd {
    fn drop(&mut self) {
        // SAFETY: the fd is ours and closed once.
        unsafe {
            libc::close(self.0);
        }
    }
}

/// Are there processes in group `pgid` other than `leader`? Read from /proc, because
/// `kill(-pgid, 0)` also succeeds for the zombie leader and cannot tell.
fn group_has_other_members(pgid: i32, leader: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        // No /proc: assume the worst, the caller will signal the group.
        return true;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == leader {
            continue;
        }
        // Zombies are dead already (and may never be reaped if init does not reap).
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            && stat_pgrp(&stat) == Some(pgid)
            && stat_state(&stat) != Some('Z')
        {
            return true;
        }
    }
    false
}

/// The fields of a /proc/PID/stat line after the command name, which is in parentheses
/// and may itself hold spaces and parentheses: 0 is the state, 1 the parent, 2 the
/// process group, 19 the start time in clock ticks since boot.
pub fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    Some(stat[stat.rfind(')')? + 1..].split_whitespace().collect())
}

/// The state of /proc/PID/stat: R, S, D, Z, T...
fn stat_state(stat: &str) -> Option<char> {
    stat_fields(stat)?.first()?.chars().next()
}

fn stat_pgrp(stat: &str) -> Option<i32> {
    stat_fields(stat)?.get(2)?.parse().ok()
}

fn register(pgid: i32) {
    for slot in &LIVE_GROUPS {
        if slot
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

fn unregister(pgid: i32) {
    for slot in &LIVE_GROUPS {
        if slot
            .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// The write end of the self-pipe the signal handler reports to.
static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);
/// While set (`fleet run` waiting for its command), a signal is forwarded to the child
/// groups and recorded in [`PENDING_SIGNAL`] instead of ending fleet.
static FORWARD: AtomicBool = AtomicBool::new(false);
static PENDING_SIGNAL: AtomicI32 = AtomicI32::new(0);
/// How many [`Deferred`] guards are alive: while any is, a signal stops the children
/// but fleet ends only when the last guard is dropped.
static DEFERRING: AtomicI32 = AtomicI32::new(0);

/// Held around work whose undo must not be cut short (`worktree new` creating and, on
/// failure, rolling back; `worktree rm` moving worktrees aside). A Ctrl-C, SIGTERM or
/// SIGHUP meanwhile terminates every child group, as always, and makes any further
/// spawn fail, so the work fails and undoes itself; fleet then ends with that signal
/// when the guard is dropped.
pub struct Deferred(());

pub fn defer_signals() -> Deferred {
    install_signal_handlers();
    if DEFERRING.fetch_add(1, Ordering::SeqCst) == 0 {
        PENDING_SIGNAL.store(0, Ordering::SeqCst);
    }
    Deferred(())
}

impl Drop for Deferred {
    fn drop(&mut self) {
        if DEFERRING.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        let signal = PENDING_SIGNAL.swap(0, Ordering::SeqCst);
        if signal != 0 {
            end_with(signal);
        }
    }
}

/// End fleet the conventional way for `signal`.
fn end_with(signal: i32) {
    // SAFETY: restoring the default action and re-raising makes fleet exit with the
    // conventional status for this signal.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}
/// Held while a group is signalled or its leader reaped, so a signal never reaches a
/// group whose leader was just reaped (and whose id could be reused).
static REAP_LOCK: Mutex<()> = Mutex::new(());

/// Async-signal-safe: hand the signal number to the watcher thread.
extern "C" fn on_signal(signal: libc::c_int) {
    let fd = SIGNAL_PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) is async-signal-safe; the buffer is a local byte.
        unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
        }
    }
}

fn signal_live_groups(signal: i32) {
    let _guard = REAP_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    for slot in &LIVE_GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 1 {
            // SAFETY: killpg has no memory-safety preconditions; the leader is unreaped.
            unsafe {
                libc::killpg(pgid, signal);
            }
        }
    }
}

fn live_groups_remain() -> bool {
    LIVE_GROUPS.iter().any(|slot| {
        let pgid = slot.load(Ordering::SeqCst);
        pgid > 1 && (!leader_exited(pgid).unwrap_or(true) || group_has_other_members(pgid, pgid))
    })
}

/// The watcher thread: on Ctrl-C, SIGTERM or SIGHUP either forward the signal (during
/// `fleet run`) or end fleet, after terminating every child group (SIGTERM, then SIGKILL
/// after the default grace) so nothing outlives it.
fn watch_signals(read_fd: i32) {
    loop {
        let mut byte = 0u8;
        // SAFETY: reading one byte into a local buffer from our own pipe.
        let n = unsafe { libc::read(read_fd, (&mut byte as *mut u8).cast(), 1) };
        if n != 1 {
            if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        let signal = i32::from(byte);
        if FORWARD.load(Ordering::SeqCst) {
            signal_live_groups(signal);
            PENDING_SIGNAL.store(signal, Ordering::SeqCst);
            continue;
        }
        let deferring = DEFERRING.load(Ordering::SeqCst) > 0;
        if deferring {
            // Recorded before the children die, so the failure they cause is seen as
            // an interruption and nothing new is started.
            PENDING_SIGNAL.store(signal, Ordering::SeqCst);
        }
        signal_live_groups(libc::SIGTERM);
        let deadline = Instant::now() + DEFAULT_GRACE;
        while live_groups_remain() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        signal_live_groups(libc::SIGKILL);
        if deferring && DEFERRING.load(Ordering::SeqCst) > 0 {
            // The guard's drop ends fleet once the work has undone itself. (A guard
            // dropped during the grace above has already seen the pending signal.)
            continue;
        }
        end_with(signal);
    }
}

fn install_signal_handlers() {
    INSTALL_HANDLERS.call_once(|| {
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 fills the two descriptors we pass.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return;
        }
        SIGNAL_PIPE.store(fds[1], Ordering::SeqCst);
        let read_fd = fds[0];
        if thread::Builder::new()
            .name("fleet-signals".into())
            .spawn(move || watch_signals(read_fd))
            .is_err()
        {
            return;
        }
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only calls write(2), which is async-signal-safe.
            unsafe {
                libc::signal(
                    signal,
                    on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
                );
            }
        }
    });
}

/// How `fleet run`'s command ended.
#[derive(Debug, Clone, Copy)]
pub struct RunOutcome {
    pub status: ExitStatus,
    pub timed_out: bool,
    /// A signal fleet received and forwarded to the group.
    pub forwarded: Option<i32>,
}

impl RunOutcome {
    /// The exit code `fleet run` reports: the command's own, 124 on timeout (like
    /// `timeout`), 128+N for a death by signal N.
    pub fn code(&self) -> i32 {
        shell_code(self.status, self.timed_out)
    }
}

/// Run `cmd` in the foreground with fleet's own stdio, in its own process group.
/// Ctrl-C, SIGTERM and SIGHUP are forwarded to the group; on timeout or a forwarded
/// signal the group gets `grace` before SIGKILL; after the command exits, whatever it
/// left behind in its group is terminated the same way.
pub fn run_foreground(
    cmd: &mut Command,
    timeout: Option<Duration>,
    grace: Duration,
) -> io::Result<RunOutcome> {
    install_signal_handlers();
    PENDING_SIGNAL.store(0, Ordering::SeqCst);
    FORWARD.store(true, Ordering::SeqCst);
    let result = run_forwarding(cmd, timeout, grace);
    FORWARD.store(false, Ordering::SeqCst);
    result
}

fn run_forwarding(
    cmd: &mut Command,
    timeout: Option<Duration>,
    grace: Duration,
) -> io::Result<RunOutcome> {
    let group = Group::spawn(cmd)?;
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut timed_out = false;
    let mut kill_at: Option<Instant> = None;
    let mut pause = Duration::from_micros(200);
    loop {
        if group.reaped.is_some() || leader_exited(group.pgid)? {
            break;
        }
        let now = Instant::now();
        if kill_at.is_none() && PENDING_SIGNAL.load(Ordering::SeqCst) != 0 {
            kill_at = Some(now + grace);
        }
        if kill_at.is_none() && deadline.is_some_and(|d| now >= d) {
            timed_out = true;
            group.signal(libc::SIGTERM);
            kill_at = Some(now + grace);
        }
        if kill_at.is_some_and(|k| now >= k) {
            group.signal(libc::SIGKILL);
        }
        // Wakes at the exit itself; the pause only bounds how late a signal or the
        // deadline is noticed.
        wait_leader(group.pgid, Some(now + pause))?;
        pause = (pause * 2).min(Duration::from_millis(20));
    }
    let status = group.finish(grace)?;
    let forwarded = match PENDING_SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    };
    Ok(RunOutcome {
        status,
        timed_out,
        forwarded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_pgrp_survives_spaces_and_parens_in_the_command_name() {
        let stat = "1234 (a (b) c) S 1 777 777 0 -1";
        assert_eq!(stat_pgrp(stat), Some(777));
    }

    #[test]
    fn waiting_ends_at_the_deadline_or_the_exit_and_leaves_the_leader_unreaped() {
        let mut group = Group::spawn(
            Command::new("sh")
                .args(["-c", "read x; true"])
                .stdin(Stdio::piped()),
        )
        .unwrap();
        let stdin = group.child.stdin.take();
        let until = Instant::now() + Duration::from_millis(50);
        assert!(
            !group.wait_exit(Some(until)).unwrap(),
            "exited while blocked on stdin"
        );
        assert!(Instant::now() >= until, "gave up before the deadline");
        drop(stdin);
        assert!(group.wait_exit(None).unwrap());
        // Still a zombie we own: the group id cannot have been reused.
        assert!(leader_exited(group.pgid).unwrap());
        let state = std::fs::read_to_string(format!("/proc/{}/stat", group.pgid)).unwrap();
        assert_eq!(stat_state(&state), Some('Z'));
        assert!(group.finish_now().unwrap().success());
        // A leader that is gone before the wait starts.
        let mut quick = Group::spawn(&mut Command::new("true")).unwrap();
        while !leader_exited(quick.pgid).unwrap() {
            thread::sleep(Duration::from_millis(1));
        }
        assert!(
            quick
                .wait_exit(Some(Instant::now() + Duration::from_secs(60)))
                .unwrap()
        );
        assert!(quick.finish_now().unwrap().success());
    }

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
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return false,
                Ok(stat) => {
                    let state = stat[stat.rfind(')').unwrap() + 2..].chars().next();
                    if state == Some('Z') {
                        return false;
                    }
                }
            }
            thread::sleep(Duration::from_millis(20));
        }
        true
    }
}
