use std::process::Command as Cmd;
use tokio::process::Command as AsyncCommand;

pub fn run_aider(msg: &str) -> std::io::Result<std::process::ExitStatus> {
    Cmd::new("aider").args(["--message", msg]).status() // expect: agent-spawn-without-group
}

pub async fn run_grok(prompt: &str) -> std::io::Result<std::process::Output> {
    AsyncCommand::new("grok").args(["-p", prompt]).output().await // expect: agent-spawn-without-group
}

pub async fn run_grok_grouped(prompt: &str) -> std::io::Result<std::process::Output> {
    AsyncCommand::new("grok") // expect: agent-spawn-without-group
        .args(["-p", prompt])
        .process_group(0)
        .output()
        .await
}

pub fn run_make() -> std::io::Result<std::process::ExitStatus> {
    Cmd::new("make").arg("all").status()
}
