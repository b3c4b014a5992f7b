use std::process::{Command, Output};

pub fn run_agent(prompt: &str) -> std::io::Result<Output> {
    let program = std::env::var("AGENT_BIN").unwrap_or_else(|_| "claude".to_string());
    let mut cmd = Command::new(program); // expect: agent-spawn-without-group
    cmd.args(["-p", prompt]);
    cmd.output()
}

pub fn page(text: &str) -> std::io::Result<Output> {
    let program = std::env::var("PAGER").unwrap_or_else(|_| "less".to_string());
    Command::new(program).arg(text).output()
}
