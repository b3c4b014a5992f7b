//! The parent-death guardian (Linux): the child gets SIGKILL if fleet itself dies
//! without a chance to clean up (`kill -9`), so a killed fleet leaves no leader running.
//! Helpers in the group are not covered; they are what the signal watcher handles on
//! every other death.

use std::process::Command;

#[cfg(target_os = "linux")]
pub(super) fn die_with_parent(cmd: &mut Command) {
    use rustix::process::{Signal, getpid, getppid, set_parent_process_death_signal};
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
