//! A group kill in the arm of a `match child.try_wait()` that matches a leader still
//! running (`Ok(None)`, `None`, the catch-all after a `Some` arm), or after a `match` whose
//! `Some` arm returns, runs only while the leader is alive: when it exits first, its
//! helpers survive. A `match` that only looks at the status, or one on anything else, gates
//! nothing.
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

pub fn kill_in_ok_none_arm(p: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude").arg(p).process_group(0).spawn()?; // expect: agent-spawn-without-group
    std::thread::sleep(Duration::from_secs(9));
    match child.try_wait() {
        Ok(None) => unsafe {
            libc::killpg(child.id() as i32, libc::SIGKILL);
        },
        _ => {}
    }
    Ok(())
}

pub fn kill_in_none_arm(p: &str) -> std::io::Result<()> {
    let mut child = Command::new("codex").arg(p).process_group(0).spawn()?; // expect: agent-spawn-without-group
    match child.try_wait()? {
        Some(status) => println!("exited: {status}"),
        None => unsafe {
            libc::kill(-(child.id() as i32), libc::SIGTERM);
        },
    }
    Ok(())
}

pub fn kill_in_catch_all_after_some(p: &str) -> std::io::Result<()> {
    let mut child = Command::new("gemini").arg(p).process_group(0).spawn()?; // expect: agent-spawn-without-group
    match child.try_wait() {
        Ok(Some(_)) => {}
        _ => unsafe {
            libc::killpg(child.id() as i32, libc::SIGKILL);
        },
    }
    Ok(())
}

pub fn kill_after_returning_match(p: &str) -> std::io::Result<()> {
    let mut child = Command::new("aider").arg(p).process_group(0).spawn()?; // expect: agent-spawn-without-group
    match child.try_wait() {
        Ok(Some(_)) => return Ok(()),
        _ => {}
    }
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

pub fn status_logged_then_killed(p: &str) -> std::io::Result<()> {
    let mut child = Command::new("goose").arg(p).process_group(0).spawn()?;
    match child.try_wait() {
        Ok(Some(status)) => println!("exited: {status}"),
        Ok(None) => println!("still running"),
        Err(e) => println!("unknown: {e}"),
    }
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

pub enum Reason {
    Timeout,
    Done,
}

pub fn kill_on_reason(p: &str, reason: Reason) -> std::io::Result<()> {
    let mut child = Command::new("opencode").arg(p).process_group(0).spawn()?;
    match reason {
        Reason::Timeout => unsafe {
            libc::killpg(child.id() as i32, libc::SIGKILL);
        },
        Reason::Done => {}
    }
    child.wait()?;
    Ok(())
}
