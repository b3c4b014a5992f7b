//! Processes that left their run's process group. A group kill reaches every process an
//! agent started, except one that made a group of its own: `setsid`, a daemon's double
//! fork. Such a process keeps the environment it was started with, so it still carries
//! the run's tag (`FLEET_RUN=<run id>`, which only that run's processes have): after the
//! group is stopped, the processes with the tag are the ones that escaped it.
//!
//! PID reuse: each candidate is opened as a pidfd before its environment is read, and
//! signalled through that pidfd, so a process that died and whose id was reused in
//! between is never the one hit.

use std::os::fd::OwnedFd;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, PidfdFlags, Signal, pidfd_open, pidfd_send_signal};

use crate::sys::procfs;

/// The variable that tags a run's processes: `fleet drain` sets it for each agent.
pub const RUN_VAR: &str = "FLEET_RUN";

/// The tag (`FLEET_RUN=<run id>`) `cmd` sets for what it starts, if it sets one: its
/// guardian then stops the processes that escaped the group too, should fleet die.
pub(super) fn tag_of(cmd: &Command) -> Option<String> {
    cmd.get_envs()
        .find(|(key, _)| *key == RUN_VAR)
        .and_then(|(_, value)| value)
        .map(|value| format!("{RUN_VAR}={}", value.to_string_lossy()))
}

/// Stop every process (of this user) whose environment holds `var=value`: SIGTERM,
/// `grace`, then SIGKILL. Returns the ids of those it found. Without `/proc` or pidfds
/// it finds nothing.
pub fn stop_tagged(var: &str, value: &str, grace: Duration) -> Vec<u32> {
    let tag = format!("{var}={value}").into_bytes();
    let me = std::process::id();
    let Some(pids) = procfs::pids() else {
        return Vec::new();
    };
    let found: Vec<(u32, OwnedFd)> = pids
        .filter(|pid| *pid != me)
        .filter_map(|pid| {
            let fd = pidfd_open(Pid::from_raw(pid as i32)?, PidfdFlags::empty()).ok()?;
            let environ = procfs::environ(pid)?;
            environ
                .split(|b| *b == 0)
                .any(|entry| entry == tag.as_slice())
                .then_some((pid, fd))
        })
        .collect();
    for (_, fd) in &found {
        let _ = pidfd_send_signal(fd, Signal::TERM);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && found.iter().any(|(_, fd)| !exited(fd)) {
        thread::sleep(Duration::from_millis(20));
    }
    for (_, fd) in &found {
        let _ = pidfd_send_signal(fd, Signal::KILL);
    }
    found.into_iter().map(|(pid, _)| pid).collect()
}

/// Has the process behind `pidfd` exited? (A pidfd is readable from then on.)
fn exited(pidfd: &OwnedFd) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).map_or(true, |ready| ready > 0)
}
