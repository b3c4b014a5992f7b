use std::path::{Path, PathBuf};
use std::process::Command;

const BIN_DIR: &str = "/opt/agents/bin";

pub fn joined(prompt: &str) -> std::io::Result<std::process::Child> {
    Command::new(Path::new(BIN_DIR).join("claude")).args(["-p", prompt]).spawn() // expect: agent-spawn-without-group
}

pub fn joined_buf(prompt: &str) -> std::io::Result<std::process::Child> {
    Command::new(PathBuf::from(BIN_DIR).join("codex")).args(["exec", prompt]).spawn() // expect: agent-spawn-without-group
}

pub fn joined_not_an_agent() -> std::io::Result<std::process::Child> {
    Command::new(Path::new(BIN_DIR).join("rustfmt")).arg("--version").spawn()
}

pub fn joined_dynamic(tool: &str) -> std::io::Result<std::process::Child> {
    Command::new(Path::new(BIN_DIR).join(tool)).spawn()
}
