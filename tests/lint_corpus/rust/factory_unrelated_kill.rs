//! A factory nobody in this file calls (API for other modules) in a file whose one group
//! kill ends another spawn's own child: that kill is not the factory's.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub fn start_qwen(prompt: &str) -> std::io::Result<Child> {
    Command::new("qwen").args(["-p", prompt]).process_group(0).spawn() // expect: agent-spawn-without-group
}

pub fn review(diff: &str) -> std::io::Result<()> {
    let mut child = Command::new("codex")
        .args(["review", diff])
        .process_group(0)
        .spawn()?;
    let _ = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}
