//! An agent's npm package run by a package runner (`npx`, `bunx`) is that agent, in the
//! argv of the command or in a command of its `sh -c` script; a runner given another
//! package runs no agent.

use std::process::Command;

pub fn npx_args(q: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("npx").args(["-y", "@anthropic-ai/claude-code", "-p", q]).status() // expect: agent-spawn-without-group
}

pub fn bunx_chain(q: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("bunx").arg("@openai/codex").arg("exec").arg(q).status() // expect: agent-spawn-without-group
}

pub fn npx_in_script() -> std::io::Result<std::process::ExitStatus> {
    Command::new("sh").args(["-c", "npx -y @anthropic-ai/claude-code -p hi"]).status() // expect: agent-spawn-without-group
}

pub fn npx_versioned_in_cmd() {
    let _ = duct::cmd!("npx", "@google/gemini-cli@latest", "-p", "hi").run(); // expect: agent-spawn-without-group
}

pub fn other_package() -> std::io::Result<std::process::ExitStatus> {
    Command::new("npx").args(["-y", "prettier", "--check", "."]).status()
}
