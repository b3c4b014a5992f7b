//! Death with fleet, however fleet dies, in two layers.
//!
//! The parent-death signal (Linux): the child leader gets SIGKILL if fleet itself dies
//! without a chance to clean up (`kill -9`). It reaches the leader only: the helpers it
//! left in its group (an agent's MCP servers) would live on under init.
//!
//! The guardian covers them: for a command that may run long and leave helpers (`fleet
//! run`, the gate's commands), fleet re-executes its own binary with the hidden first
//! argument [`SUBCOMMAND`], as a process in a group of its own (outside fleet's group
//! and the child's, so neither a terminal's Ctrl-C nor a group kill aimed at fleet
//! reaches it). Its stdin is a pipe whose write end only fleet holds (close-on-exec, so
//! no child inherits it). When the run ends as planned fleet writes one byte and the
//! guardian leaves at once; when the pipe closes without that byte, fleet died, and the
//! guardian stops the whole group (SIGTERM, the grace, SIGKILL), removes the group's
//! record ([`super::registry`]) and exits.
//!
//! A process that starts many guarded groups one after another (`fleet drain`: an agent
//! and its check per task) keeps one guardian for all of them ([`Shared`], started with
//! `--many`): each group announces itself on the same pipe as it starts, fleet tells the
//! guardian each group it cleaned up, and when the pipe closes without a dismissal the
//! guardian stops every group still announced, at once. One guardian per drainer rather
//! than two per task: each one was a start of the fleet binary, measured at a third of
//! what a drained task costs beyond its agent (BENCHMARKS.md, "Drain").

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::group::signal_group;
use crate::sys::procfs;

/// The hidden first argument that makes the fleet binary a guardian. Not a subcommand
/// of the command line parser, so no help text shows it.
pub const SUBCOMMAND: &str = "__fleet-guardian";

/// Set once the running binary can act as a guardian (the fleet binary, through
/// [`enter_if_asked`]); a library user or a unit test binary cannot, and runs without.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Called first thing in fleet's `main`: when fleet was started as a guardian, be one
/// and exit; otherwise remember that this binary can start guardians.
pub fn enter_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(SUBCOMMAND)) {
        ENABLED.store(true, Ordering::SeqCst);
        return;
    }
    let args: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    std::process::exit(guard(&args));
}

#[cfg(target_os = "linux")]
pub(super) fn die_with_parent(cmd: &mut Command) {
    use rustix::process::{getpid, getppid, set_parent_process_death_signal};
    use std::os::unix::process::CommandExt;
    let parent = getpid();
    // SAFETY: between fork and exec the closure only makes raw system calls (prctl,
    // getppid through rustix, which neither allocates nor takes locks) and `_exit`.
    unsafe {
        cmd.pre_exec(move || {
            set_parent_process_death_signal(Some(Signal::KILL))?;
            // The parent may have died before prctl took effect.
            if getppid() != Some(parent) {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn die_with_parent(_cmd: &mut Command) {}

/// fleet's side of a running guardian.
pub(super) struct Guardian {
    child: Child,
    pipe: Option<ChildStdin>,
}

impl Guardian {
    /// Start a guardian for the group about to be spawned (see [`Guardian::announce_from`]),
    /// that gives the group `grace` between SIGTERM and SIGKILL and removes its record
    /// in `records` once the group is gone; with `tag` (`VAR=value`, see
    /// [`super::escaped`]) it also stops the processes that left the group carrying it. `None` when this binary cannot be a
    /// guardian or the start failed: the parent-death signal still covers the leader.
    pub(super) fn start(
        grace: Duration,
        records: Option<&Path>,
        tag: Option<&str>,
    ) -> Option<Guardian> {
        let grace = grace.as_millis().to_string();
        let mut args: Vec<&OsStr> = vec![SUBCOMMAND.as_ref(), grace.as_ref()];
        if let Some(tag) = tag {
            args.extend([OsStr::new("--tag"), tag.as_ref()]);
        }
        if let Some(records) = records {
            args.push(records.as_os_str());
        }
        Guardian::spawn(&args)
    }

    /// This binary started as a guardian with `args` (the first one [`SUBCOMMAND`]).
    fn spawn(args: &[&OsStr]) -> Option<Guardian> {
        use std::os::unix::process::CommandExt;
        if !ENABLED.load(Ordering::SeqCst) {
            return None;
        }
        let mut cmd = Command::new(program()?);
        // Named as the binary it is, in `ps` and doctor's eyes.
        if let Ok(exe) = std::env::current_exe() {
            cmd.arg0(exe);
        }
        cmd.args(args);
        // Piped output whose read ends are dropped: the guardian says nothing, and it
        // must not hold a pipe of fleet's caller open after fleet died.
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .current_dir("/")
            .process_group(0);
        let mut child = cmd.spawn().ok()?;
        drop(child.stdout.take());
        drop(child.stderr.take());
        let pipe = child.stdin.take();
        Some(Guardian { child, pipe })
    }

    /// Make the child spawned from `cmd` tell the guardian its pid (its group id),
    /// between fork and exec: once the command runs, the guardian knows its group.
    /// The child holds the pipe only until exec (close-on-exec).
    pub(super) fn announce_from(&self, cmd: &mut Command) {
        use std::os::fd::{AsRawFd, BorrowedFd};
        use std::os::unix::process::CommandExt;
        let Some(fd) = self.pipe.as_ref().map(AsRawFd::as_raw_fd) else {
            return;
        };
        // SAFETY: between fork and exec the closure makes only raw system calls
        // (getpid, write) on a stack buffer; `fd` is open in the child until its exec.
        unsafe {
            cmd.pre_exec(move || {
                let pid = rustix::process::getpid().as_raw_nonzero().get();
                let mut message = [ANNOUNCE; 5];
                message[1..].copy_from_slice(&pid.to_le_bytes());
                let pipe = BorrowedFd::borrow_raw(fd);
                // 5 bytes, below PIPE_BUF: written whole or not at all.
                rustix::io::write(pipe, &message)?;
                Ok(())
            });
        }
    }

    pub(super) fn id(&self) -> u32 {
        self.child.id()
    }

    /// One message to the guardian, in one write (below `PIPE_BUF`, so never mixed
    /// with a child's announcement or another thread's message).
    fn send(&self, message: &[u8]) -> std::io::Result<()> {
        match self.pipe.as_ref() {
            Some(mut pipe) => pipe.write_all(message),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    /// The run ended as planned (the group was cleaned up, its leader not yet reaped),
    /// or the command could not start: tell the guardian to leave, and reap it.
    pub(super) fn dismiss(self) {
        drop(self);
    }
}

impl Drop for Guardian {
    /// Dismissal. A guardian that does not leave within a few seconds (stopped, say)
    /// is killed: fleet never hangs on its own guardian.
    fn drop(&mut self) {
        if let Some(mut pipe) = self.pipe.take() {
            let _ = pipe.write_all(&[DISMISS]);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        // Woken at its exit: a poll of sleeps from 0.5 ms up overshot it by a millisecond
        // or two, twice per drained task (its agent's guardian, its check's).
        let exited = super::group::PidFd::open(self.child.id() as i32)
            .is_some_and(|fd| fd.wait(Some(deadline)).unwrap_or(false));
        if exited {
            let _ = self.child.wait();
            return;
        }
        let mut pause = Duration::from_micros(500);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
        // Our unreaped child: its pid cannot have been reused.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One guardian for every group a process starts through it (see the module's doc).
/// Dropping it dismisses the guardian: by then every group it guarded was cleaned up.
pub struct Shared {
    guardian: Guardian,
    /// Held from a group's tag message to its announcement: the tag is for that group.
    spawning: std::sync::Mutex<()>,
    /// Where the records of the groups go ([`super::registry`]).
    pub(super) records: PathBuf,
}

impl Shared {
    /// Start a guardian for the groups to come, each given `grace` between SIGTERM and
    /// SIGKILL, their records in `records`. `None` when this binary cannot be a
    /// guardian or the start failed: each group then gets a guardian of its own.
    pub fn start(grace: Duration, records: PathBuf) -> Option<Shared> {
        let guardian = Guardian::spawn(&[
            SUBCOMMAND.as_ref(),
            MANY.as_ref(),
            grace.as_millis().to_string().as_ref(),
            records.as_os_str(),
        ])?;
        Some(Shared {
            guardian,
            spawning: std::sync::Mutex::new(()),
            records,
        })
    }

    /// Is the guardian still there to take a group? (One killed on its own leaves the
    /// groups to come to guardians of their own.)
    pub(super) fn alive(&self) -> bool {
        !super::group::leader_exited(self.guardian.id() as i32).unwrap_or(true)
    }

    pub(super) fn id(&self) -> u32 {
        self.guardian.id()
    }

    /// Run `spawn` (which starts `cmd`) with the guardian told first that the group
    /// about to announce itself carries `tag`, and `cmd` made to announce it.
    pub(super) fn spawning<T>(
        &self,
        cmd: &mut Command,
        tag: Option<&str>,
        spawn: impl FnOnce(&mut Command, &Guardian) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        let _one = self.spawning.lock().unwrap_or_else(|p| p.into_inner());
        let tag = tag.unwrap_or("").as_bytes();
        let len = u16::try_from(tag.len())
            .ok()
            .filter(|n| usize::from(*n) <= MAX_TAG)
            .unwrap_or(0);
        let mut message = vec![TAG];
        message.extend_from_slice(&len.to_le_bytes());
        message.extend_from_slice(&tag[..usize::from(len)]);
        self.guardian.send(&message)?;
        let spawned = spawn(cmd, &self.guardian);
        if spawned.is_err() {
            // A child that announced itself and then failed its exec is gone, reaped:
            // its id must not stay the guardian's to stop.
            let _ = self.guardian.send(&[FORGET]);
        }
        spawned
    }

    /// Group `pgid` was cleaned up (its leader not yet reaped): no longer the guardian's.
    pub(super) fn released(&self, pgid: i32) {
        let mut message = [RELEASED; 5];
        message[1..].copy_from_slice(&pgid.to_le_bytes());
        let _ = self.guardian.send(&message);
    }
}

/// Is `pid` a live guardian, the very process that started at `start`?
pub(super) fn is_guardian(pid: u32, start: u64) -> bool {
    let alive = procfs::Stat::read(pid).is_some_and(|stat| stat.state() != Some('Z'));
    let args = procfs::args(pid).unwrap_or_default();
    alive
        && procfs::start_ticks(pid) == Some(start)
        && args.get(1).map(String::as_str) == Some(SUBCOMMAND)
}

/// The binary to re-execute: this very one, even if it was replaced on disk since.
fn program() -> Option<PathBuf> {
    if cfg!(target_os = "linux") {
        Some(PathBuf::from("/proc/self/exe"))
    } else {
        std::env::current_exe().ok()
    }
}

/// The child's message on the guardian's pipe: this byte, then its pid (4 bytes, little
/// endian).
const ANNOUNCE: u8 = b'P';
/// fleet's message: the run ended as planned, leave.
const DISMISS: u8 = b'.';
/// The argument that makes a guardian a [`Shared`] one.
const MANY: &str = "--many";
/// fleet's message to a shared guardian: this byte, the length (2 bytes, little endian)
/// and the tag (`VAR=value`, empty for none) of the group that announces itself next.
const TAG: u8 = b'T';
/// fleet's message to a shared guardian: this byte, then a group id (4 bytes, little
/// endian) that fleet cleaned up.
const RELEASED: u8 = b'D';
/// fleet's message to a shared guardian: the group announced since the last tag never
/// ran (its command could not start), forget it.
const FORGET: u8 = b'X';
/// The longest tag sent (a run's tag is a few dozen bytes); a message stays below
/// `PIPE_BUF`.
const MAX_TAG: usize = 1024;

/// The guardian itself: `GRACE_MS [--tag VAR=VALUE] [RECORDS_FOLDER]`. Returns its exit
/// code.
fn guard(args: &[String]) -> i32 {
    if args.first().map(String::as_str) == Some(MANY) {
        return guard_many(&args[1..]);
    }
    let Some(grace) = args.first().and_then(|a| a.parse::<u64>().ok()) else {
        return 2;
    };
    let (tag, rest) = match args.get(1).map(String::as_str) {
        Some("--tag") => (
            args.get(2).and_then(|t| t.split_once('=')),
            &args[3.min(args.len())..],
        ),
        _ => (None, &args[1.min(args.len())..]),
    };
    let records = rest.first().map(PathBuf::from);
    // A hang-up or Ctrl-C meant for fleet's terminal is not for the guardian: it ends
    // when fleet's pipe closes.
    // SAFETY: setting dispositions in a single-threaded process before anything runs.
    unsafe {
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    let mut stdin = std::io::stdin().lock();
    let mut group: Option<(i32, Option<u64>)> = None;
    loop {
        let mut tag = [0u8];
        if !read_whole(&mut stdin, &mut tag) {
            break;
        }
        match tag[0] {
            ANNOUNCE => {
                let mut pid = [0u8; 4];
                if !read_whole(&mut stdin, &mut pid) {
                    break;
                }
                let pgid = i32::from_le_bytes(pid);
                // Read at once, while the leader cannot have been reaped by anyone but
                // init after fleet's death: what tells its group from a later one.
                let start = u32::try_from(pgid).ok().and_then(procfs::start_ticks);
                group = Some((pgid, start));
            }
            _ => return 0,
        }
    }
    // The pipe closed without a dismissal: fleet died.
    let Some((pgid, leader_start)) = group else {
        return 0;
    };
    let gone = stop_group(pgid, leader_start, Duration::from_millis(grace));
    // And what left the group (a daemon's `setsid`): fleet died before it could stop it.
    if let Some((var, value)) = tag {
        super::escaped::stop_tagged(var, value, Duration::from_millis(grace));
    }
    if gone && let Some(records) = records {
        super::registry::remove_of(&records, pgid, leader_start);
    }
    0
}

/// A shared guardian: `GRACE_MS RECORDS_FOLDER`. Keeps the groups announced and not
/// yet released; when the pipe closes without a dismissal, stops them all at once
/// (each as a lone guardian would, on a thread of its own), then what escaped them,
/// and removes their records.
fn guard_many(args: &[String]) -> i32 {
    let Some(grace) = args.first().and_then(|a| a.parse::<u64>().ok()) else {
        return 2;
    };
    let grace = Duration::from_millis(grace);
    let records = args.get(1).map(PathBuf::from);
    // SAFETY: as in `guard`.
    unsafe {
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    let mut stdin = std::io::stdin().lock();
    let mut next_tag: Option<String> = None;
    // (group id, leader's start time, tag)
    let mut groups: Vec<(i32, Option<u64>, Option<String>)> = Vec::new();
    // The group announced since the last tag message, if one did.
    let mut last: Option<i32> = None;
    loop {
        let mut kind = [0u8];
        if !read_whole(&mut stdin, &mut kind) {
            break;
        }
        match kind[0] {
            TAG => {
                let mut len = [0u8; 2];
                if !read_whole(&mut stdin, &mut len) {
                    break;
                }
                let mut tag = vec![0u8; usize::from(u16::from_le_bytes(len))];
                if !read_whole(&mut stdin, &mut tag) {
                    break;
                }
                next_tag =
                    Some(String::from_utf8_lossy(&tag).into_owned()).filter(|t| !t.is_empty());
                last = None;
            }
            FORGET => {
                if let Some(pgid) = last.take() {
                    groups.retain(|(id, _, _)| *id != pgid);
                }
            }
            ANNOUNCE | RELEASED => {
                let mut pid = [0u8; 4];
                if !read_whole(&mut stdin, &mut pid) {
                    break;
                }
                let pgid = i32::from_le_bytes(pid);
                groups.retain(|(id, _, _)| *id != pgid);
                if kind[0] == ANNOUNCE {
                    // Read at once, as in `guard`.
                    let start = u32::try_from(pgid).ok().and_then(procfs::start_ticks);
                    groups.push((pgid, start, next_tag.take()));
                    last = Some(pgid);
                }
            }
            _ => return 0,
        }
    }
    // The pipe closed without a dismissal: fleet died.
    let stopped: Vec<_> = groups
        .into_iter()
        .map(|(pgid, start, tag)| {
            let stopping = thread::spawn(move || stop_group(pgid, start, grace));
            (pgid, start, tag, stopping)
        })
        .collect();
    for (pgid, start, tag, stopping) in stopped {
        let gone = stopping.join().unwrap_or(false);
        if let Some((var, value)) = tag.as_deref().and_then(|t| t.split_once('=')) {
            super::escaped::stop_tagged(var, value, grace);
        }
        if gone && let Some(records) = &records {
            super::registry::remove_of(records, pgid, start);
        }
    }
    0
}

/// Fill `buf` from `input`; `false` at end of file (or an error: the same to us).
fn read_whole(input: &mut impl Read, buf: &mut [u8]) -> bool {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => return false,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

/// Stop group `pgid` after its fleet died: SIGTERM, `grace`, SIGKILL. `true` once
/// nothing of it is left alive.
///
/// PID reuse: fleet died, so the leader was reaped by init and its id may in principle
/// be a new process's. A process with that id and another start time means the group
/// is not ours any more: leave it alone. Without a process of that id, any group of
/// that id is still the one fleet started (a new group takes its creator's id).
fn stop_group(pgid: i32, leader_start: Option<u64>, grace: Duration) -> bool {
    let ours = || {
        let now = u32::try_from(pgid).ok().and_then(procfs::start_ticks);
        match (now, leader_start) {
            (None, _) => true,
            (Some(now), Some(then)) => now == then,
            // The leader was gone when the guardian looked, and a process has its id
            // now: not ours.
            (Some(_), None) => false,
        }
    };
    let alive = || procfs::group_has_live_member(pgid, 0).unwrap_or(true);
    let ended_within = |wait: Duration| {
        let deadline = Instant::now() + wait;
        loop {
            if !alive() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(20));
        }
    };
    if !ours() {
        return true;
    }
    if !alive() {
        return true;
    }
    signal_group(pgid, Signal::TERM);
    if ended_within(grace) {
        return true;
    }
    if !ours() {
        return true;
    }
    signal_group(pgid, Signal::KILL);
    ended_within(Duration::from_secs(5))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proc::Group;

    #[test]
    fn stopping_a_group_escalates_to_sigkill_and_leaves_a_reused_id_alone() {
        // Leader and helper both ignore SIGTERM: only the SIGKILL after the grace works.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "trap '' TERM; sleep 1000 & wait"])
            .stdin(Stdio::piped());
        let group = Group::spawn(&mut cmd).unwrap();
        let pgid = group.id() as i32;
        let deadline = Instant::now() + Duration::from_secs(30);
        while procfs::group_members(pgid).len() < 2 {
            assert!(Instant::now() < deadline, "the helper never started");
            thread::sleep(Duration::from_millis(10));
        }
        let start = procfs::start_ticks(group.id()).unwrap();
        // Another start time under that id: another process's now, not ours to stop.
        assert!(stop_group(pgid, Some(start + 1), Duration::from_millis(50)));
        assert_eq!(procfs::group_members(pgid).len(), 2, "a stranger was hit");
        assert!(stop_group(pgid, Some(start), Duration::from_millis(100)));
        assert_eq!(procfs::group_members(pgid), Vec::<u32>::new());
        // And a group already gone is nothing to do.
        assert!(stop_group(pgid, Some(start), Duration::from_millis(100)));
        assert!(!group.finish_now().unwrap().success());
    }
}
