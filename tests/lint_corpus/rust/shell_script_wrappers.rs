//! `sh -c` scripts whose agent runs behind a wrapper that keeps its group (`nohup`,
//! `env`), in a literal or a `format!` template; `timeout` signals its own group.

use std::process::{Command, Stdio};

pub fn spawn_detached_claude(prompt_file: &str, output: &str) -> std::io::Result<u32> {
    let script = format!("nohup claude -p \"$(cat {prompt_file})\" > {output} 2>&1 & echo $!");
    let out = Command::new("sh").arg("-c").arg(&script).stdout(Stdio::piped()).output()?; // expect: agent-spawn-without-group
    Ok(String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(0))
}

pub fn with_env() -> std::io::Result<std::process::Output> {
    Command::new("bash").args(["-c", "env CLAUDE_CODE_USE_BEDROCK=1 claude -p hi"]).output() // expect: agent-spawn-without-group
}

pub fn under_timeout() -> std::io::Result<std::process::Output> {
    Command::new("sh").arg("-c").arg("timeout 600 claude -p hi").output()
}
