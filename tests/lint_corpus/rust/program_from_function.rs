//! A program a function of the file returns, when its body is that one value and nothing
//! else (a literal, a const, `return X;`), is the program of the spawn calling it: free
//! functions, `Self::` functions and `self` methods. A body that computes (a `let`, an
//! `if`, several returns) or a function taking arguments stays out of reach.

use std::process::Command;

const AGENT: &str = "codex";

fn agent_bin() -> &'static str {
    "claude"
}

fn agent_const() -> &'static str {
    AGENT
}

fn agent_returned() -> String {
    return "gemini".to_string();
}

fn computed() -> String {
    let dir = std::env::var("AGENT_DIR").unwrap_or_default();
    format!("{dir}/claude")
}

fn chosen(fast: bool) -> &'static str {
    if fast { "claude" } else { "aider" }
}

fn tool() -> &'static str {
    "gzip"
}

pub fn run(q: &str) -> std::io::Result<()> {
    Command::new(agent_bin()).args(["-p", q]).spawn()?.wait()?; // expect: agent-spawn-without-group
    Command::new(agent_const()).arg("exec").arg(q).status()?; // expect: agent-spawn-without-group
    Command::new(agent_returned()).arg(q).output()?; // expect: agent-spawn-without-group
    Ok(())
}

pub fn grouped(q: &str) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(agent_bin()).arg(q).process_group(0).spawn()?;
    let status = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    status.map(|_| ())
}

pub fn dynamic(q: &str) -> std::io::Result<()> {
    Command::new(computed()).arg(q).status()?;
    Command::new(chosen(true)).arg(q).status()?;
    Command::new(tool()).arg(q).status()?;
    Ok(())
}

pub struct Runner;

impl Runner {
    fn bin(&self) -> &'static str {
        "opencode"
    }

    fn default_bin() -> &'static str {
        "goose"
    }

    fn looping(&self) -> &'static str {
        self.looping()
    }

    fn path(&self, dir: &str) -> String {
        format!("{dir}/claude")
    }

    pub fn run(&self, q: &str) -> std::io::Result<()> {
        Command::new(self.bin()).arg("run").arg(q).status()?; // expect: agent-spawn-without-group
        Command::new(Self::default_bin()).arg(q).status()?; // expect: agent-spawn-without-group
        Command::new(self.path("/opt")).arg(q).status()?;
        Command::new(self.looping()).arg(q).status()?;
        Ok(())
    }
}
