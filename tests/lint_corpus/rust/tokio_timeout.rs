use std::time::Duration;

use tokio::process::Command;
use tokio::time::timeout;

pub async fn run_codex(prompt: &str) -> anyhow::Result<String> {
    let child = Command::new("codex") // expect: agent-spawn-without-group
        .args(["exec", "--json", prompt])
        .kill_on_drop(true)
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let out = timeout(Duration::from_secs(600), child.wait_with_output()).await??;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub async fn run_claude(prompt: &str) -> anyhow::Result<String> {
    let child = Command::new("claude") // expect: agent-spawn-without-group
        .args(["-p", prompt])
        .process_group(0)
        .kill_on_drop(true)
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let out = timeout(Duration::from_secs(600), child.wait_with_output()).await??;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub async fn git_fetch() -> anyhow::Result<()> {
    Command::new("git").args(["fetch", "--prune"]).status().await?;
    Ok(())
}
