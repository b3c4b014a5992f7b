use std::process::Command;

/// All agent runs go through `fleet run`, which starts them in a process group and kills
/// the group on timeout.
pub fn run_claude(prompt: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("fleet")
        .args(["run", "--timeout", "20m", "--", "claude", "-p", prompt])
        .status()
}

pub fn run_codex(prompt: &str) -> std::io::Result<std::process::ExitStatus> {
    let mut cmd = Command::new("fleet");
    cmd.arg("run").arg("--").arg("codex").arg("exec").arg(prompt);
    cmd.status()
}
