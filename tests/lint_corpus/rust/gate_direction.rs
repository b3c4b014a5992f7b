//! A group kill is gated on the leader only where it runs while the leader is alive: in
//! `if let Ok(None) = child.try_wait()`, in the `else` of `if let Ok(Some(_)) = ...`, after
//! `if ...is_some() { return }`. In `if let Ok(Some(_)) = ...` (the leader has exited),
//! in the `else` of `if let Ok(None) = ...`, or after `if ...is_none() { return }` the
//! kill runs once the leader is gone, and reaches its helpers.
use std::os::unix::process::CommandExt;
use std::process::Command;

pub fn kill_once_reaped(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude").args(["-p", q]).process_group(0).spawn()?;
    child.wait()?;
    if let Ok(Some(_)) = child.try_wait() {
        unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    }
    Ok(())
}

pub fn kill_in_else_of_alive(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("codex").args(["exec", q]).process_group(0).spawn()?;
    child.wait()?;
    if let Ok(None) = child.try_wait() {
        eprintln!("still running");
    } else {
        unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    }
    Ok(())
}

pub fn kill_after_returning_while_alive(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("gemini").args(["-p", q]).process_group(0).spawn()?;
    if child.try_wait()?.is_none() {
        return Ok(());
    }
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

pub fn kill_unless_alive(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("aider").args(["--message", q]).process_group(0).spawn()?;
    child.wait()?;
    if !child.try_wait()?.is_none() {
        unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    }
    Ok(())
}

pub fn kill_in_else_of_reaped(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("goose").args(["run", q]).process_group(0).spawn()?; // expect: agent-spawn-without-group
    if let Ok(Some(_)) = child.try_wait() {
        eprintln!("done");
    } else {
        unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    }
    Ok(())
}

pub fn kill_while_alive(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("opencode").args(["run", q]).process_group(0).spawn()?; // expect: agent-spawn-without-group
    if child.try_wait()?.is_none() && q.is_empty() {
        unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    }
    Ok(())
}

pub fn kill_after_returning_once_reaped(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude").args(["-p", q]).process_group(0).spawn()?; // expect: agent-spawn-without-group
    if child.try_wait()?.is_some() {
        return Ok(());
    }
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}
