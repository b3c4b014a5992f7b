//! Programs one step away: consts and statics (module, inline module, impl, function),
//! format! of them, arrays of them, conversions.
use std::ffi::OsStr;
use std::process::Command as Cmd;

static CODEX: &str = "codex";
const AGENT_CMD: &[&str] = &["claude", "-p"];

mod names {
    pub const GEMINI: &str = "gemini";
}

struct Agent;

impl Agent {
    const BIN: &'static str = "opencode";

    fn run(&self, prompt: &str) -> std::io::Result<std::process::ExitStatus> {
        Cmd::new(Self::BIN).args(["run", prompt]).status() // expect: agent-spawn-without-group
    }
}

pub fn static_program(prompt: &str) -> std::io::Result<std::process::Output> {
    Cmd::new(CODEX).args(["exec", prompt]).output() // expect: agent-spawn-without-group
}

pub fn array_head(prompt: &str) -> std::io::Result<std::process::Output> {
    Cmd::new(AGENT_CMD[0]).args(&AGENT_CMD[1..]).arg(prompt).output() // expect: agent-spawn-without-group
}

pub fn inline_module(prompt: &str) -> std::io::Result<std::process::Output> {
    Cmd::new(names::GEMINI).arg(prompt).output() // expect: agent-spawn-without-group
}

pub fn formatted(dir: &str) -> std::io::Result<std::process::Output> {
    let bin = format!("{dir}/{}", CODEX);
    Cmd::new(&bin).output() // expect: agent-spawn-without-group
}

pub fn formatted_inline(prompt: &str) -> std::io::Result<std::process::Output> {
    Cmd::new(format!("{CODEX}")).arg(prompt).output() // expect: agent-spawn-without-group
}

pub fn formatted_positional(prompt: &str) -> std::io::Result<std::process::Output> {
    Cmd::new(format!("{}", names::GEMINI)).arg(prompt).output() // expect: agent-spawn-without-group
}

pub fn function_const(prompt: &str) -> std::io::Result<std::process::Output> {
    const TOOL: &str = "aider";
    Cmd::new(OsStr::new(TOOL)).arg(prompt).output() // expect: agent-spawn-without-group
}

pub fn converted(prompt: &str) -> std::io::Result<std::process::Output> {
    let program = String::from(CODEX);
    Cmd::new(program).arg(prompt).output() // expect: agent-spawn-without-group
}

pub fn dynamic(program: &str, prompt: &str) -> std::io::Result<std::process::Output> {
    // Dynamic values are out of reach: not findings.
    let from_args = std::env::args().nth(1).unwrap_or_default();
    Cmd::new(program).arg(prompt).output()?;
    Cmd::new(format!("{program}")).output()?;
    Cmd::new(from_args).output()
}
