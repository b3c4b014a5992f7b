//! Parses the stream-json output of `claude -p --output-format stream-json`.
//!
//! ```text
//! Command::new("claude").arg("-p").spawn()
//! ```

use std::process::Command;

/// The agents whose transcripts we understand: claude, codex, gemini.
pub const KNOWN: [&str; 3] = ["claude", "codex", "gemini"];

#[derive(Debug, serde::Deserialize)]
pub struct Event {
    pub kind: String,
    pub text: Option<String>,
}

pub fn parse(line: &str) -> Option<Event> {
    // Older claude versions printed a banner first; skip it.
    if line.starts_with("claude ") {
        return None;
    }
    serde_json::from_str(line).ok()
}

pub fn hint() -> String {
    format!("run `{} -p PROMPT` yourself", KNOWN[0])
}

pub fn commit(message: &str) -> std::io::Result<std::process::ExitStatus> {
    Command::new("git")
        .args(["commit", "-m", message, "--trailer", "Co-authored-by: claude"])
        .status()
}

pub fn cost_tool() -> std::io::Result<std::process::Output> {
    Command::new("python3").args(["-m", "claude_cost", "--json"]).output()
}
