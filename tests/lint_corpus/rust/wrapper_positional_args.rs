//! A wrapper taking a positional argument before the command (taskset's CPU list, chrt's
//! priority) or an option with a separate value (`stdbuf -o L`) keeps the agent in the
//! command's group; a wrapper acting on a running process (`taskset -p`) runs nothing.

use std::process::Command;

pub fn line_buffered() {
    let _ = Command::new("stdbuf").args(["-o", "L", "claude", "-p", "hi"]).spawn(); // expect: agent-spawn-without-group
}

pub fn pinned() {
    let _ = Command::new("taskset").args(["-c", "0", "claude", "-p", "hi"]).status(); // expect: agent-spawn-without-group
}

pub fn realtime(p: &str) -> std::io::Result<std::process::Output> {
    Command::new("chrt").arg("-f").arg("10").arg("codex").arg(p).output() // expect: agent-spawn-without-group
}

pub fn repin(pid: u32) {
    let _ = Command::new("taskset").args(["-p", "0x3", &pid.to_string()]).status();
}
