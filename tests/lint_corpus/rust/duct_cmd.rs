use duct::cmd;

pub fn summarise(path: &str) -> std::io::Result<String> {
    cmd!("claude", "-p", format!("summarise {path}")).read() // expect: agent-spawn-without-group
}

pub fn fix(prompt: &str) -> std::io::Result<std::process::Output> {
    duct::cmd("aider", ["--yes", "--message", prompt]).run() // expect: agent-spawn-without-group
}

pub fn lint() -> std::io::Result<std::process::Output> {
    cmd!("cargo", "clippy", "--all-targets").run()
}
