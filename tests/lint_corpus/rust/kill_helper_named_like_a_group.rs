// A kill helper's name is no group: `kill_process_group(&child)` ends a group the
// command never got (`.process_group(0)` was not called on it).
use std::process::{Child, Command};

pub fn kill_process_group(child: &Child) {
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
}

pub fn run() -> std::io::Result<()> {
    let mut child = Command::new("claude").arg("-p").spawn()?; // expect: agent-spawn-without-group
    let _ = child.wait();
    kill_process_group(&child);
    Ok(())
}

// Compliant: the group made on the command, killed by the helper.
pub fn run_grouped() -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("codex").arg("exec").process_group(0).spawn()?;
    let _ = child.wait();
    kill_process_group(&child);
    Ok(())
}
