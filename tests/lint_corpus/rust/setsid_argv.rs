//! `setsid` as the program, the agent its argument: setsid execs in place in the spawned
//! child, so the child's pid is the new session's id. That is the group half of the
//! cleanup; the group must still be killed. With `--fork` the session is a grandchild's,
//! and no kill by the child's pid reaches it.

use std::process::Command;

pub fn no_kill(q: &str) -> std::io::Result<()> {
    Command::new("setsid").arg("claude").arg("-p").arg(q).spawn()?.wait()?; // expect: agent-spawn-without-group
    Ok(())
}

pub fn leader_only(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("setsid").args(["-w", "codex", "exec", q]).spawn()?; // expect: agent-spawn-without-group
    child.wait()?;
    child.kill()
}

pub fn group_killed(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("/usr/bin/setsid").args(["claude", "-p", q]).spawn()?;
    let status = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    status.map(|_| ())
}

pub fn forked(q: &str) -> std::io::Result<()> {
    let mut child = Command::new("setsid").args(["--fork", "gemini", "-p", q]).spawn()?; // expect: agent-spawn-without-group
    let status = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    status.map(|_| ())
}

pub fn tool(path: &str) -> std::io::Result<()> {
    Command::new("setsid").arg("gzip").arg(path).spawn()?.wait()?;
    Ok(())
}

// A child that leads a group of its own makes setsid fork: the session is a grandchild's.
pub fn setsid_in_a_group_leader(q: &str) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("setsid").arg("claude").arg(q).process_group(0).spawn()?; // expect: agent-spawn-without-group
    let status = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    status.map(|_| ())
}
