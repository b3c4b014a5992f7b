//! Factories returning a child in its own process group to callers in this file: each
//! caller must kill the group. A group kill elsewhere, for another child, does not count.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::Duration;

fn start_claude(prompt: &str) -> std::io::Result<Child> {
    Command::new("claude").args(["-p", prompt]).process_group(0).spawn()
}

pub fn run_claude(prompt: &str) -> std::io::Result<()> {
    let mut child = start_claude(prompt)?;
    let _ = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

fn start_codex(prompt: &str) -> std::io::Result<Child> {
    Command::new("codex") // expect: agent-spawn-without-group
        .args(["exec", prompt])
        .process_group(0)
        .spawn()
}

pub fn run_codex(prompt: &str) -> std::io::Result<()> {
    let mut child = start_codex(prompt)?;
    std::thread::sleep(Duration::from_secs(600));
    child.kill()
}

fn start_gemini(prompt: &str) -> std::io::Result<Child> {
    Command::new("gemini").args(["-p", prompt]).process_group(0).spawn() // expect: agent-spawn-without-group
}

pub fn ask_gemini(prompt: &str) -> std::io::Result<std::process::ExitStatus> {
    start_gemini(prompt)?.wait()
}

struct Agent {
    child: Child,
}

impl Agent {
    fn start(prompt: &str) -> std::io::Result<Child> {
        Command::new("aider").args(["--message", prompt]).process_group(0).spawn()
    }

    pub fn open(prompt: &str) -> std::io::Result<Agent> {
        Ok(Agent {
            child: Agent::start(prompt)?,
        })
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGTERM) };
    }
}

fn stop_group(child: &Child) {
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
}

fn start_goose(task: &str) -> std::io::Result<Child> {
    Command::new("goose").args(["run", "-t", task]).process_group(0).spawn()
}

pub fn run_goose(task: &str) -> std::io::Result<()> {
    let mut child = start_goose(task)?;
    let _ = child.wait();
    stop_group(&child);
    Ok(())
}
