//! Both halves of the cleanup: a group of its own, and a kill of the whole group.
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::Duration;

use nix::sys::signal::{self as sig, Signal};
use nix::unistd::Pid;
use process_wrap::tokio::*;

pub fn killpg_after_wait(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude").args(["-p", prompt]).process_group(0).spawn()?;
    let pgid = child.id() as i32;
    let status = child.wait();
    unsafe { libc::killpg(pgid, libc::SIGKILL) };
    status.map(drop)
}

pub fn negative_pid(prompt: &str) -> std::io::Result<()> {
    let mut agent = Command::new("codex");
    agent.args(["exec", prompt]).process_group(0);
    let mut running = agent.spawn()?;
    let result = running.wait();
    unsafe { libc::kill(-(running.id() as i32), libc::SIGTERM) };
    result.map(drop)
}

pub fn nix_killpg(prompt: &str) -> anyhow::Result<()> {
    let c = Command::new("gemini").arg(prompt).process_group(0).spawn()?;
    let pid = Pid::from_raw(c.id() as i32);
    std::thread::sleep(Duration::from_secs(600));
    sig::killpg(pid, Signal::SIGKILL)?;
    Ok(())
}

pub fn rustix_group(prompt: &str) -> anyhow::Result<()> {
    let c = Command::new("qwen").arg(prompt).process_group(0).spawn()?;
    let pid = rustix::process::Pid::from_child(&c);
    rustix::process::kill_process_group(pid, rustix::process::Signal::KILL)?;
    Ok(())
}

struct Agent {
    child: Child,
}

impl Agent {
    fn start(prompt: &str) -> std::io::Result<Agent> {
        let child = Command::new("opencode").args(["run", prompt]).process_group(0).spawn()?;
        Ok(Agent { child })
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
    }
}

async fn wrapped(prompt: &str) -> std::io::Result<()> {
    let mut child = TokioCommandWrap::with_new("aider", |cmd| {
        cmd.arg("--message").arg(prompt);
    })
    .wrap(ProcessGroup::leader())
    .spawn()?;
    if tokio::time::timeout(Duration::from_secs(60), Box::into_pin(child.wait())).await.is_err() {
        Box::into_pin(child.kill()).await?;
    }
    Ok(())
}

fn through_helper(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("goose").args(["run", "-t", prompt]).process_group(0).spawn()?;
    let _ = child.wait();
    end_group(&child);
    Ok(())
}

fn end_group(child: &Child) {
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
}

pub fn leader_only(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude").args(["-p", prompt]).process_group(0).spawn()?; // expect: agent-spawn-without-group
    std::thread::sleep(Duration::from_secs(600));
    child.kill()
}

pub async fn kill_on_drop_only(prompt: &str) -> std::io::Result<()> {
    let child = tokio::process::Command::new("codex") // expect: agent-spawn-without-group
        .args(["exec", prompt])
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let _ = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output()).await;
    Ok(())
}

pub fn gated(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("gemini").args(["-p", prompt]).process_group(0).spawn()?; // expect: agent-spawn-without-group
    std::thread::sleep(Duration::from_secs(600));
    if let Ok(None) = child.try_wait() {
        unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    }
    Ok(())
}

pub fn output_in_a_group(prompt: &str) -> std::io::Result<std::process::Output> {
    Command::new("amp").args(["-x", prompt]).process_group(0).output() // expect: agent-spawn-without-group
}

pub fn positive_pid(prompt: &str) -> std::io::Result<()> {
    let child = Command::new("crush").args(["run", prompt]).process_group(0).spawn()?; // expect: agent-spawn-without-group
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

pub async fn select_kill(prompt: &str) -> std::io::Result<()> {
    let mut child = tokio::process::Command::new("claude").arg(prompt).process_group(0).spawn()?;
    let pid = child.id().unwrap_or(0) as i32;
    tokio::select! {
        _ = child.wait() => {}
        _ = tokio::time::sleep(Duration::from_secs(600)) => {}
    }
    unsafe { libc::killpg(pid, libc::SIGKILL) };
    Ok(())
}

pub async fn kill_inside_select(prompt: &str) -> std::io::Result<()> {
    let mut child = tokio::process::Command::new("codex").arg(prompt).process_group(0).spawn()?;
    let pid = child.id().unwrap_or(0) as i32;
    tokio::select! {
        _ = child.wait() => {}
        _ = tokio::time::sleep(Duration::from_secs(600)) => unsafe { libc::killpg(pid, libc::SIGKILL); },
    }
    Ok(())
}

struct Pool;

impl Pool {
    fn kill(&self) {
        unsafe { libc::killpg(0, libc::SIGKILL) };
    }
}

pub fn same_name_other_object(prompt: &str) -> std::io::Result<()> {
    // `child.kill()` is the leader's kill, not Pool::kill.
    let mut child = Command::new("droid").arg(prompt).process_group(0).spawn()?; // expect: agent-spawn-without-group
    child.kill()
}
