//! A wrapper given the agent as an argument (`env`, `nice -n 10`, `nohup`) runs it in
//! the command's own process group: the agent is spawned as if directly. `timeout`
//! signals a group of its own; a group offered keeps it fine.

use std::os::unix::process::CommandExt;
use std::process::Command;

pub fn through_env(p: &str) -> std::io::Result<()> {
    let mut c = Command::new("/usr/bin/env").arg("claude").arg("-p").arg(p).spawn()?; // expect: agent-spawn-without-group
    c.wait()?;
    Ok(())
}

pub fn through_nice(p: &str) -> bool {
    Command::new("nice").args(["-n", "10", "codex", "exec", p]).status().map(|s| s.success()).unwrap_or(false) // expect: agent-spawn-without-group
}

pub fn through_nohup(p: &str) -> std::io::Result<u32> {
    let child = Command::new("nohup").arg("amp").arg("-x").arg(p).spawn()?; // expect: agent-spawn-without-group
    Ok(child.id())
}

pub fn env_with_assignments(p: &str) -> std::io::Result<std::process::Output> {
    Command::new("env").arg("A=1").arg("--").arg("gemini").arg(p).output() // expect: agent-spawn-without-group
}

pub fn not_an_agent(p: &str) -> std::io::Result<std::process::Output> {
    Command::new("nohup").arg("make").arg(p).arg("claude").output()
}

pub fn through_nice_in_group(p: &str) -> std::io::Result<()> {
    let mut child = Command::new("nice").args(["-n", "10", "claude", "-p", p]).process_group(0).spawn()?;
    let pid = child.id() as i32;
    let waited = child.wait();
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    waited.map(|_| ())
}
