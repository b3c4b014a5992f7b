//! A child as the leader of its own process group, and how the group is stopped.
//!
//! PID reuse: the group is only signalled while its leader is known to be unreaped
//! (alive or a zombie we have not collected), so the group id is still ours. Exit is
//! observed with `waitid(WNOWAIT)`, which leaves the zombie in place until the group has
//! been cleaned up; only then is the leader reaped.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::guardian::{self, Guardian};
use super::{registry, signals};
use crate::sys::procfs;

/// A running child that leads its own process group.
pub struct Group {
    pub(super) child: Child,
    pgid: i32,
    reaped: Option<ExitStatus>,
    /// Stops the group should fleet die ([`Group::spawn_guarded`] and
    /// [`Group::spawn_guarded_by`] only).
    guardian: Option<Guard>,
    /// The group's record for doctor, removed when the group ends.
    record: Option<PathBuf>,
}

/// A group's guardian: its own, or one it shares with the other groups of its fleet.
enum Guard {
    Own(Guardian),
    Shared(Arc<guardian::Shared>),
}

impl Group {
    /// Start `cmd` as the leader of a new process group.
    pub fn spawn(cmd: &mut Command) -> io::Result<Group> {
        Group::start(cmd, None)
    }

    /// Start `cmd` as [`Group::spawn`] does, for a command that may run long and leave
    /// helpers (`fleet run`, a gate command): with a guardian that stops the whole
    /// group, giving it `grace` between SIGTERM and SIGKILL, if fleet dies without
    /// cleaning up, and with a record for doctor's orphan check when `cmd` runs in a
    /// repository. The guardian starts first and learns the group from the child
    /// itself, before the command runs: no moment of the command is unguarded.
    pub fn spawn_guarded(cmd: &mut Command, grace: Duration) -> io::Result<Group> {
        let folder = registry::folder_for(cmd);
        let tag = super::escaped::tag_of(cmd);
        let guardian = Guardian::start(grace, folder.as_deref(), tag.as_deref());
        let mut group = Group::start(cmd, guardian.as_ref())?;
        let guardian_pid = guardian.as_ref().map(Guardian::id);
        group.guardian = guardian.map(Guard::Own);
        let record = folder.map(|f| registry::path_in(&f, group.pgid));
        group.record = record.filter(|path| registry::write(path, cmd, group.pgid, guardian_pid));
        Ok(group)
    }

    /// [`Group::spawn_guarded`] with the guardian `shared` (its grace, its records
    /// folder) instead of one of the group's own; without a live one, as
    /// [`Group::spawn_guarded`]. The group is announced to the guardian before the
    /// command runs, and released once it was cleaned up.
    pub fn spawn_guarded_by(
        cmd: &mut Command,
        shared: Option<&Arc<guardian::Shared>>,
    ) -> io::Result<Group> {
        let Some(shared) = shared.filter(|s| s.alive()) else {
            return Group::spawn_guarded(cmd, super::DEFAULT_GRACE);
        };
        let tag = super::escaped::tag_of(cmd);
        let mut group =
            shared.spawning(cmd, tag.as_deref(), |cmd, g| Group::start(cmd, Some(g)))?;
        group.guardian = Some(Guard::Shared(shared.clone()));
        let record = registry::path_in(&shared.records, group.pgid);
        group.record =
            Some(record).filter(|path| registry::write(path, cmd, group.pgid, Some(shared.id())));
        Ok(group)
    }

    fn start(cmd: &mut Command, guardian: Option<&Guardian>) -> io::Result<Group> {
        signals::install_handlers();
        if signals::spawning_refused() {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "interrupted by a signal: no new commands are started",
            ));
        }
        cmd.process_group(0);
        guardian::die_with_parent(cmd);
        if let Some(guardian) = guardian {
            guardian.announce_from(cmd);
        }
        let child = cmd.spawn()?;
        let pgid = child.id() as i32;
        signals::register(pgid);
        Ok(Group {
            child,
            pgid,
            reaped: None,
            guardian: None,
            record: None,
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
    pub fn signal(&self, signal: Signal) {
        if self.reaped.is_none() {
            signal_group(self.pgid, signal);
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
        self.signal(Signal::KILL);
        self.reap()
    }

    fn terminate(&mut self, grace: Duration) {
        if self.reaped.is_some() {
            return;
        }
        if !group_alive(self.pgid) {
            return;
        }
        self.signal(Signal::TERM);
        let deadline = Instant::now() + grace;
        let mut pause = Duration::from_millis(1);
        while Instant::now() < deadline {
            if !group_alive(self.pgid) {
                return;
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
        self.signal(Signal::KILL);
    }

    fn reap(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.reaped {
            return Ok(status);
        }
        // Before the leader is reaped: the group was cleaned up, and from here on its
        // id may be another's. The record goes first: a fleet killed after it still has
        // its guardian, which finds the group gone and leaves, where a guardian dismissed
        // first would leave a record of a gone group for nobody to remove but doctor.
        if let Some(record) = self.record.take() {
            registry::remove(&record);
        }
        // `group-reap-between:abort` (see [`crate::failpoint`]): a kill between the two.
        let _ = crate::failpoint::hit("group-reap-between");
        match self.guardian.take() {
            Some(Guard::Own(guardian)) => guardian.dismiss(),
            Some(Guard::Shared(shared)) => shared.released(self.pgid),
            None => {}
        }
        let _guard = signals::reap_lock();
        signals::unregister(self.pgid);
        let status = self.child.wait()?;
        self.reaped = Some(status);
        Ok(status)
    }
}

impl Drop for Group {
    /// On an early return or a panic the group must still die: kill and reap.
    fn drop(&mut self) {
        if self.reaped.is_none() {
            self.signal(Signal::KILL);
            let _ = self.reap();
        }
    }
}

/// Signal group `pgid`. The caller makes sure its leader is unreaped.
pub(super) fn signal_group(pgid: i32, signal: Signal) {
    if pgid > 1
        && let Some(pgid) = Pid::from_raw(pgid)
    {
        let _ = rustix::process::kill_process_group(pgid, signal);
    }
}

/// Is anything of group `pgid` (led by process `pgid`) still running: the leader, or a
/// helper it left behind? Without `/proc` assume so, and the caller signals the group.
pub(super) fn group_alive(pgid: i32) -> bool {
    !leader_exited(pgid).unwrap_or(true) || live_member_besides(pgid)
}

/// Is a live process other than the leader in group `pgid`? One `getpgid` per process
/// (where reading each one's `/proc/PID/stat` took three system calls and a parse, at
/// the end of every group fleet runs), and `stat` only for a member, to tell a zombie.
fn live_member_besides(pgid: i32) -> bool {
    let Some(pids) = procfs::pids() else {
        return true;
    };
    pids.filter(|pid| i64::from(*pid) != i64::from(pgid))
        .any(|pid| {
            // SAFETY: a system call on a number; a kernel thread's group is 0 (which
            // rustix's `getpgid` takes for a bug) and a gone process's -1.
            let member = unsafe { libc::getpgid(pid as libc::pid_t) } == pgid;
            member
                && procfs::Stat::read(pid)
                    .is_some_and(|stat| stat.group() == Some(pgid) && stat.state() != Some('Z'))
        })
}

/// Has the child `pid` exited? Does not reap it.
pub(super) fn leader_exited(pid: i32) -> io::Result<bool> {
    use rustix::process::{WaitId, WaitIdOptions, waitid};
    let Some(pid) = Pid::from_raw(pid) else {
        return Ok(true);
    };
    match waitid(
        WaitId::Pid(pid),
        WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
    ) {
        Ok(status) => Ok(status.is_some()),
        Err(rustix::io::Errno::CHILD) => Ok(true),
        Err(e) => Err(e.into()),
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
pub(super) struct PidFd(std::os::fd::OwnedFd);

impl PidFd {
    /// For our own unreaped child only, so the pid cannot have been reused.
    #[cfg(target_os = "linux")]
    pub(super) fn open(pid: i32) -> Option<PidFd> {
        let pid = Pid::from_raw(pid)?;
        rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty())
            .ok()
            .map(PidFd)
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn open(_pid: i32) -> Option<PidFd> {
        None
    }

    /// `true` once the process exited, `false` when `until` passed first.
    pub(super) fn wait(&self, until: Option<Instant>) -> io::Result<bool> {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        loop {
            let timeout = match until {
                None => None,
                Some(until) => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(false);
                    }
                    Some(Timespec::try_from(left).unwrap_or(Timespec {
                        tv_sec: i64::MAX,
                        tv_nsec: 0,
                    }))
                }
            };
            let mut fds = [PollFd::new(&self.0, PollFlags::IN)];
            match poll(&mut fds, timeout.as_ref()) {
                Ok(0) => continue,
                Ok(_) => return Ok(true),
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;

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
        let state = procfs::Stat::read(group.pgid as u32).unwrap().state();
        assert_eq!(state, Some('Z'));
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
}
