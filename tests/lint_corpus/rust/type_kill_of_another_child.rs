//! A type's `Drop` (or another method) counts for a spawn in one of its methods only when
//! the value can hold that child: a child kept in a local is not the one `Drop` kills.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub struct Reviewer {
    server: Child,
    current: Option<Child>,
}

impl Reviewer {
    pub fn review(&self, diff: &str) -> std::io::Result<()> {
        let mut child = Command::new("claude").args(["-p", diff]).process_group(0).spawn()?; // expect: agent-spawn-without-group
        child.wait()?;
        Ok(())
    }

    pub fn start(&mut self, task: &str) -> std::io::Result<()> {
        let mut cmd = Command::new("codex");
        cmd.args(["exec", task]).process_group(0);
        let child = cmd.spawn()?;
        self.current = Some(child);
        Ok(())
    }
}

impl Drop for Reviewer {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.server.id() as i32, libc::SIGTERM) };
        if let Some(child) = &self.current {
            unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
        }
    }
}
