use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

fn claude_path() -> PathBuf {
    which::which("claude").unwrap_or_else(|_| PathBuf::from("/usr/local/bin/claude"))
}

pub fn review(diff: &str) -> std::io::Result<std::process::Output> {
    let bin = which::which("claude").expect("claude on PATH");
    let mut cmd = Command::new(&bin); // expect: agent-spawn-without-group
    cmd.arg("-p").arg(format!("review:\n{diff}"));
    cmd.process_group(0);
    cmd.output()
}

pub fn review_leaky(diff: &str) -> std::io::Result<std::process::Output> {
    let bin = which::which("claude").expect("claude on PATH");
    let mut cmd = Command::new(bin); // expect: agent-spawn-without-group
    cmd.arg("-p").arg(format!("review:\n{diff}"));
    cmd.env("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8000");
    cmd.output()
}

pub fn build() -> std::io::Result<std::process::ExitStatus> {
    let mut cmd = Command::new("cargo");
    cmd.args(["build", "--release"]);
    cmd.status()
}

pub fn path_for_logs() -> String {
    claude_path().display().to_string()
}
