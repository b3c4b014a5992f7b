// The group is owned by wrappers of this crate in another module: what they kill is out of
// reach of the lint (one module at a time), so each spawn here is a new group nothing
// kills, as far as this file shows.
use std::process::Command;
use std::time::Duration;

use crate::proc::{ProcessGroup, ProcessSession};

pub fn run_claude(prompt: &str, limit: Duration) -> anyhow::Result<String> {
    let mut cmd = Command::new("claude"); // expect: agent-spawn-without-group
    cmd.args(["-p", prompt]);
    let group = ProcessGroup::spawn(&mut cmd)?;
    let out = group.wait_with_timeout(limit)?;
    Ok(out.stdout)
}

pub fn run_codex(prompt: &str, limit: Duration) -> anyhow::Result<String> {
    let session = ProcessSession::start(Command::new("codex").args(["exec", prompt]))?; // expect: agent-spawn-without-group
    Ok(session.wait_with_timeout(limit)?.stdout)
}

pub fn run_gemini(prompt: &str, limit: Duration) -> anyhow::Result<String> {
    let mut cmd = Command::new("gemini"); // expect: agent-spawn-without-group
    cmd.args(["-p", prompt]);
    let child = cmd.spawn()?;
    let out = crate::proc::wait_with_timeout(child, limit)?;
    Ok(out.stdout)
}
