use std::process::Command;

pub fn version() -> std::io::Result<std::process::Output> {
    // fleet: allow(agent-spawn-without-group) --version exits at once and starts no helpers
    Command::new("claude").arg("--version").output()
}

pub fn interactive() -> std::io::Result<std::process::ExitStatus> {
    Command::new("codex").status() // fleet: allow(agent-spawn-without-group) interactive, the user owns the terminal
}

pub fn lazy(prompt: &str) -> std::io::Result<std::process::ExitStatus> {
    // expect: suppression-without-reason -- fleet: allow(agent-spawn-without-group)
    Command::new("gemini").args(["-p", prompt]).status() // expect: agent-spawn-without-group
}

pub fn too_far(prompt: &str) -> std::io::Result<std::process::ExitStatus> {
    // fleet: allow(agent-spawn-without-group) this marker is two lines above the call

    Command::new("amp").args(["-x", prompt]).status() // expect: agent-spawn-without-group
}
