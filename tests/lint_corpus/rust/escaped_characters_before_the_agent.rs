// A character written by its code in a string (`\x20`, `\u{20}`) is that character: the
// shell string runs the agent after it. A raw string keeps its backslashes, and the
// shell reads `\x20claude` as no agent.
use std::process::Command;

fn hex() {
    Command::new("sh") // expect: agent-spawn-without-group
        .args(["-c", "cd /r;\x20claude -p hi"])
        .status()
        .unwrap();
}

fn unicode() {
    Command::new("sh") // expect: agent-spawn-without-group
        .args(["-c", "cd /r;\u{20}codex exec hi"])
        .status()
        .unwrap();
}

fn raw() {
    Command::new("sh")
        .args(["-c", r"cd /r;\x20claude -p hi"])
        .status()
        .unwrap();
}

fn supervised() {
    Command::new("fleet")
        .args(["run", "--timeout", "10m", "--", "claude", "-p", "hi"])
        .status()
        .unwrap();
}
