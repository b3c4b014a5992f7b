//! Signal 0 only asks whether the group is there: `libc::kill(-pgid, 0)` kills nothing.
use std::os::unix::process::CommandExt;
use std::process::Command;

pub fn probed_then_leader_only(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude") // expect: agent-spawn-without-group
        .arg("-p")
        .arg(prompt)
        .process_group(0)
        .spawn()?;
    let pgid = child.id() as i32;
    unsafe {
        libc::kill(-pgid, 0);
    }
    child.kill()?;
    child.wait()?;
    Ok(())
}

pub fn probed_then_killed(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("claude")
        .arg("-p")
        .arg(prompt)
        .process_group(0)
        .spawn()?;
    let pgid = child.id() as i32;
    unsafe {
        if libc::kill(-pgid, 0) == 0 {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    child.wait()?;
    Ok(())
}
