//! A shell bound by `let` and given `-c` and its script in statements of their own
//! (`cmd.arg("-c"); cmd.arg("claude -p ..")`) starts the agent like the chained form, and
//! is judged from its `let`: `.process_group(0)` on the variable and a group kill pass.
use std::os::unix::process::CommandExt;
use std::process::Command;

pub fn split_flag_and_script() -> std::io::Result<()> {
    let mut cmd = Command::new("sh"); // expect: agent-spawn-without-group
    cmd.arg("-c");
    cmd.arg("claude -p 'summarise the log'");
    cmd.status()?;
    Ok(())
}

pub fn split_in_a_group_killed() -> std::io::Result<()> {
    let mut cmd = Command::new("bash");
    cmd.arg("-lc");
    cmd.arg("codex exec 'fix the tests'");
    cmd.process_group(0);
    let child = cmd.spawn()?;
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

pub fn chained_in_a_group_killed() -> std::io::Result<()> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("gemini -p 'review'");
    cmd.process_group(0);
    let child = cmd.spawn()?;
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}

pub fn split_in_a_group_nothing_kills() -> std::io::Result<()> {
    let mut cmd = Command::new("sh"); // expect: agent-spawn-without-group
    cmd.arg("-c");
    cmd.arg("aider --yes");
    cmd.process_group(0);
    cmd.status()?;
    Ok(())
}

pub fn a_flag_then_a_tool() -> std::io::Result<()> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c");
    cmd.arg("make test");
    cmd.arg("claude");
    cmd.status()?;
    Ok(())
}
