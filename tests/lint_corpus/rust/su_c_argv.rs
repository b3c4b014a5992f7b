//! An argv whose program is `su` runs its `-c` value as a shell script, the way an argv
//! `sh -c` does: in one `.args` array or in separate `.arg`s, the user before or after
//! it; a command that runs no agent is none.

use std::process::Command;

pub fn in_an_array() -> std::io::Result<std::process::Child> {
    Command::new("su").args(["agent", "-c", "claude -p hi"]).spawn() // expect: agent-spawn-without-group
}

pub fn separate_args() -> std::io::Result<std::process::Child> {
    Command::new("su").arg("-c").arg("gemini -p hi").arg("agent").spawn() // expect: agent-spawn-without-group
}

pub fn login_shell() -> std::io::Result<std::process::ExitStatus> {
    Command::new("/bin/su").args(["-", "agent", "-c", "cd /repo && codex exec hi"]).status() // expect: agent-spawn-without-group
}

pub fn a_tool() -> std::io::Result<std::process::ExitStatus> {
    Command::new("su").args(["agent", "-c", "cargo build"]).status()
}
