//! An agent started through `sh -c`: the script's commands are the programs.

use std::os::unix::process::CommandExt as _;
use std::process::Command;

const AGENT: &str = "claude";

pub fn format_script(prompt: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("sh").arg("-c").arg(format!("{AGENT} -p '{prompt}'")).status() // expect: agent-spawn-without-group
}

pub fn literal_script() -> std::io::Result<std::process::ExitStatus> {
    Command::new("bash").args(["-lc", "cd /work && codex exec hi"]).status() // expect: agent-spawn-without-group
}

pub fn bound_command(prompt: &str) -> std::io::Result<std::process::Output> {
    let mut cmd = Command::new("/bin/sh"); // expect: agent-spawn-without-group
    cmd.arg("-c").arg(format!("gemini -p {prompt}"));
    cmd.output()
}

pub fn grouped_and_killed(prompt: &str) -> std::io::Result<()> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{AGENT} -p '{prompt}'"))
        .process_group(0)
        .spawn()?;
    let pid = child.id() as i32;
    let status = child.wait();
    unsafe { libc::killpg(pid, libc::SIGKILL) };
    status.map(|_| ())
}

pub fn not_an_agent() -> std::io::Result<std::process::ExitStatus> {
    Command::new("sh").args(["-c", "cargo build && cargo test"]).status()
}
