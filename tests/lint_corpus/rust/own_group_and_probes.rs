//! Pid 0 (and -0) is the caller's own group, never the child's: `libc::kill(-0, sig)`,
//! `libc::killpg(0, sig)` and nix's `killpg(Pid::from_raw(0), sig)` kill no child group.
//! nix's `None` signal is signal 0, the probe: `killpg(pid, None)` kills nothing.
use nix::sys::signal::{self, killpg, Signal};
use nix::unistd::Pid;
use std::os::unix::process::CommandExt;
use std::process::Command;

pub fn minus_zero(q: &str) -> std::io::Result<()> {
    let child = Command::new("claude").arg("-p").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    drop(child);
    unsafe { libc::kill(-0, libc::SIGKILL) };
    Ok(())
}

pub fn killpg_zero(q: &str) -> std::io::Result<()> {
    let child = Command::new("codex").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    drop(child);
    unsafe { libc::killpg(0, libc::SIGTERM) };
    Ok(())
}

pub fn nix_killpg_zero(q: &str) -> std::io::Result<()> {
    let child = Command::new("gemini").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    drop(child);
    let _ = killpg(Pid::from_raw(0), Signal::SIGKILL);
    Ok(())
}

pub fn nix_probe_only(q: &str) -> std::io::Result<()> {
    let child = Command::new("claude").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    let _ = killpg(Pid::from_raw(child.id() as i32), None);
    Ok(())
}

pub fn nix_kill_negative_probe_only(q: &str) -> std::io::Result<()> {
    let child = Command::new("claude").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    let _ = signal::kill(Pid::from_raw(-(child.id() as i32)), None);
    Ok(())
}

pub fn minus_pid_killed(q: &str) -> std::io::Result<()> {
    let child = Command::new("claude").arg("-p").arg(q).process_group(0).spawn()?;
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    Ok(())
}

pub fn nix_probe_then_killed(q: &str) -> std::io::Result<()> {
    let child = Command::new("codex").arg(q).process_group(0).spawn()?;
    let pgid = Pid::from_raw(child.id() as i32);
    if killpg(pgid, None).is_ok() {
        let _ = killpg(pgid, Signal::SIGKILL);
    }
    Ok(())
}
