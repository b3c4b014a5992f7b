//! A wrapper bound by `let` and given its argv by later statements (`let mut cmd =
//! Command::new("env"); cmd.arg("claude");`) runs the agent in the same group, like the
//! chained form: it is found at the constructor, and passes with `.process_group(0)` on
//! the variable and a group kill. A wrapper running something else is no spawn of an agent.
use std::os::unix::process::CommandExt;
use std::process::Command;

pub fn env_then_agent(p: &str) -> std::io::Result<()> {
    let mut cmd = Command::new("env"); // expect: agent-spawn-without-group
    cmd.arg("claude");
    cmd.arg("-p").arg(p);
    cmd.status()?;
    Ok(())
}

pub fn nice_args(p: &str) -> std::io::Result<()> {
    let mut c = Command::new("nice"); // expect: agent-spawn-without-group
    c.args(["-n", "10", "codex"]).arg(p);
    let mut child = c.spawn()?;
    child.wait()?;
    Ok(())
}

pub fn env_assignments_across_statements(p: &str) -> std::io::Result<()> {
    let mut cmd = Command::new("/usr/bin/env"); // expect: agent-spawn-without-group
    cmd.arg("NO_COLOR=1");
    cmd.arg("gemini").arg("-p").arg(p);
    cmd.process_group(0);
    let mut child = cmd.spawn()?;
    child.kill()?;
    Ok(())
}

pub fn nohup_in_a_group_killed(p: &str) -> std::io::Result<()> {
    let mut cmd = Command::new("nohup");
    cmd.arg("claude").arg("-p").arg(p);
    cmd.process_group(0);
    let child = cmd.spawn()?;
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

pub fn nice_in_a_group_killed(p: &str) -> std::io::Result<()> {
    let mut c = Command::new("nice");
    c.args(["-n", "10", "codex"]).arg(p).process_group(0);
    let child = c.spawn()?;
    unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
    Ok(())
}

pub fn env_running_a_tool(p: &str) -> std::io::Result<()> {
    let mut cmd = Command::new("env");
    cmd.arg("RUST_LOG=debug");
    cmd.arg("cargo").arg("run").arg(p);
    cmd.status()?;
    Ok(())
}
