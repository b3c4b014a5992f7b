//! A type that owns the agent and kills its group in `Drop`, through a negative pid
//! bound to a local first.

use std::os::unix::process::CommandExt as _;
use std::process::Command;

pub struct Agent {
    child: std::process::Child,
}

impl Agent {
    pub fn start(prompt: &str) -> std::io::Result<Self> {
        let child = Command::new("aider").arg("--message").arg(prompt).process_group(0).spawn()?;
        Ok(Agent { child })
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let pgid = nix::unistd::Pid::from_raw(-(self.child.id() as i32));
        let _ = nix::sys::signal::kill(pgid, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

pub struct Worker {
    child: std::process::Child,
}

impl Worker {
    pub fn start(prompt: &str) -> std::io::Result<Self> {
        let child = Command::new("codex").arg(prompt).process_group(0).spawn()?;
        Ok(Worker { child })
    }

    pub fn stop(&mut self) {
        let pgid = -(self.child.id() as i32);
        unsafe { libc::kill(pgid, libc::SIGTERM) };
    }
}

pub struct Leaky {
    child: std::process::Child,
}

impl Leaky {
    pub fn start(prompt: &str) -> std::io::Result<Self> {
        let child = Command::new("claude").arg(prompt).process_group(0).spawn()?; // expect: agent-spawn-without-group
        Ok(Leaky { child })
    }
}

impl Drop for Leaky {
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}
