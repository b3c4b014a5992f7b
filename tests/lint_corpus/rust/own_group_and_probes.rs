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

// The same inside a macro's body (`tokio::select!`), read from its tokens.
pub async fn select_kills_own_group(q: &str) -> std::io::Result<()> {
    let mut child = tokio::process::Command::new("claude").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    tokio::select! {
        _ = child.wait() => {}
        _ = tokio::time::sleep(std::time::Duration::from_secs(600)) => unsafe { libc::kill(-0, libc::SIGKILL); },
    }
    Ok(())
}

pub async fn select_probes_only(q: &str) -> std::io::Result<()> {
    let mut child = tokio::process::Command::new("codex").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    let pid = child.id().unwrap_or(0) as i32;
    tokio::select! {
        _ = child.wait() => {}
        _ = tokio::time::sleep(std::time::Duration::from_secs(600)) => { let _ = killpg(Pid::from_raw(pid), None); },
    }
    Ok(())
}

pub async fn select_kills_group(q: &str) -> std::io::Result<()> {
    let mut child = tokio::process::Command::new("gemini").arg(q).process_group(0).spawn()?;
    let pid = child.id().unwrap_or(0) as i32;
    tokio::select! {
        _ = child.wait() => {}
        _ = tokio::time::sleep(std::time::Duration::from_secs(600)) => unsafe { libc::kill(-pid, libc::SIGKILL); },
    }
    Ok(())
}
