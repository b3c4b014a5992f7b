//! A guard type whose `Drop` kills the group, and two types with a `stop` method each:
//! one type's group kill does not count for the other's spawn.

use std::os::unix::process::CommandExt;
use std::process::Command;

struct PgidGuard(i32);

impl Drop for PgidGuard {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.0, libc::SIGKILL) };
    }
}

pub fn guarded(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude").arg(prompt).process_group(0).spawn()?;
    let _guard = PgidGuard(child.id() as i32);
    child.wait()?;
    Ok(())
}

pub struct Grouped {
    child: Option<std::process::Child>,
}

impl Grouped {
    pub fn run(&mut self, prompt: &str) -> std::io::Result<()> {
        self.child = Some(Command::new("claude").arg(prompt).process_group(0).spawn()?);
        self.stop();
        Ok(())
    }

    pub fn stop(&mut self) {
        if let Some(c) = &self.child {
            unsafe { libc::killpg(c.id() as i32, libc::SIGKILL) };
        }
    }
}

pub struct Leaky {
    child: Option<std::process::Child>,
}

impl Leaky {
    pub fn run(&mut self, prompt: &str) -> std::io::Result<()> {
        self.child = Some(Command::new("codex").arg(prompt).process_group(0).spawn()?); // expect: agent-spawn-without-group
        self.stop();
        Ok(())
    }

    pub fn stop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
        }
    }
}
