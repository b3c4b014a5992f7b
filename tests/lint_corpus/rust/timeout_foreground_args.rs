//! `timeout --foreground` leaves its command in the caller's group, given as one
//! `.args([...])` array as well as `.arg` by `.arg`; plain `timeout` signals a group of
//! its own.

use std::process::Command;

pub fn foreground_array(q: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("timeout").args(["--foreground", "60", "gemini", "-p", q]).status() // expect: agent-spawn-without-group
}

pub fn foreground_then_array(q: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("timeout").arg("--foreground").args(["60", "claude", "-p", q]).status() // expect: agent-spawn-without-group
}

pub fn own_group(q: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("timeout").args(["600", "claude", "-p", q]).status()
}
