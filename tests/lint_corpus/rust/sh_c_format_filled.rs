//! A `sh -c` script built by `format!` is read as a whole script with its placeholders
//! filled from the file's constants: an agent placeholder after `cd ... &&`, after a
//! wrapper, in the second command of a list, captured inline; a placeholder holding a
//! tool, or one out of reach, runs no agent.

use std::process::Command;

const AGENT: &str = "claude";
const CODEX: &str = "codex";
const TOOL: &str = "cargo";

pub fn after_cd() -> std::io::Result<std::process::Child> {
    Command::new("sh").arg("-c").arg(format!("cd /repo && {} -p hi", AGENT)).spawn() // expect: agent-spawn-without-group
}

pub fn after_a_wrapper() -> std::io::Result<std::process::Child> {
    Command::new("sh").arg("-c").arg(format!("nohup {} -p hi", AGENT)).spawn() // expect: agent-spawn-without-group
}

pub fn second_of_a_list() -> std::io::Result<std::process::Child> {
    Command::new("sh").arg("-c").arg(format!("echo start; {} exec x", CODEX)).spawn() // expect: agent-spawn-without-group
}

pub fn inline_capture() -> std::io::Result<std::process::Child> {
    Command::new("bash").args(["-c", &format!("cd /repo && {CODEX} exec x")]).spawn() // expect: agent-spawn-without-group
}

pub fn indexed_and_named(dir: &str) -> std::io::Result<std::process::Child> {
    Command::new("sh").arg("-c").arg(format!("cd {0} && {{ {bin} -p hi; }}", dir, bin = AGENT)).spawn() // expect: agent-spawn-without-group
}

pub fn a_tool() -> std::io::Result<std::process::Child> {
    Command::new("sh").arg("-c").arg(format!("cd /repo && {} build", TOOL)).spawn()
}

pub fn out_of_reach(program: &str) -> std::io::Result<std::process::Child> {
    Command::new("sh").arg("-c").arg(format!("cd /repo && {} -p hi", program)).spawn()
}

pub fn agent_as_an_argument() -> std::io::Result<std::process::Child> {
    Command::new("sh").arg("-c").arg(format!("echo {}", AGENT)).spawn()
}
