//! A group kill after `if <the leader has exited> { return }` never runs when the leader
//! exits first. A guard on something else is fine.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub struct Agent {
    child: Child,
}

impl Agent {
    pub fn start(task: &str) -> std::io::Result<Agent> {
        let child = Command::new("codex").args(["exec", task]).process_group(0).spawn()?; // expect: agent-spawn-without-group
        Ok(Agent { child })
    }

    pub fn stop(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
    }
}

pub struct Reviewer {
    child: Child,
    stopped: bool,
}

impl Reviewer {
    pub fn start(diff: &str) -> std::io::Result<Reviewer> {
        let child = Command::new("claude").args(["-p", diff]).process_group(0).spawn()?;
        Ok(Reviewer { child, stopped: false })
    }

    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
    }
}
