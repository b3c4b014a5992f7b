//! The array given to `.args(...)` through a const or a `let` is read like one written
//! in place: past a wrapper, and after `-c` as a shell script.

use std::os::unix::process::CommandExt;
use std::process::Command;

const ENV_ARGS: [&str; 3] = ["NO_COLOR=1", "claude", "-p"];
const SCRIPT: &[&str] = &["-c", "cd /work && codex exec fix"];
const BUILD: [&str; 2] = ["-n", "cargo"];

pub fn env_by_const() -> std::io::Result<()> {
    let mut c = Command::new("env").args(ENV_ARGS).spawn()?; // expect: agent-spawn-without-group
    c.wait()?;
    Ok(())
}

pub fn shell_by_const() -> std::io::Result<std::process::ExitStatus> {
    Command::new("sh").args(SCRIPT).status() // expect: agent-spawn-without-group
}

pub fn nice_by_let(q: &str) -> std::io::Result<std::process::Output> {
    let argv = ["-n", "10", "gemini", "-p", q];
    Command::new("nice").args(&argv).output() // expect: agent-spawn-without-group
}

pub fn env_by_const_in_group() -> std::io::Result<()> {
    let mut c = Command::new("env").args(ENV_ARGS).process_group(0).spawn()?;
    let pid = c.id() as i32;
    let waited = c.wait();
    unsafe { libc::killpg(pid, libc::SIGKILL) };
    waited.map(|_| ())
}

pub fn tools() -> std::io::Result<std::process::ExitStatus> {
    Command::new("nice").args(BUILD).status()
}

const CLAUDE: [&str; 3] = ["nohup", "claude", "-p"];

pub fn program_and_rest_of_one_const() -> std::io::Result<std::process::ExitStatus> {
    Command::new(CLAUDE[0]).args(&CLAUDE[1..]).status() // expect: agent-spawn-without-group
}

pub fn a_range_without_the_agent() -> std::io::Result<std::process::ExitStatus> {
    Command::new(CLAUDE[0]).args(&CLAUDE[2..]).status()
}
