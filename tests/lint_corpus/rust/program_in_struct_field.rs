//! A program kept in a struct field, set by a struct literal of the type (`new()`), is
//! the program of a command built from `self.bin`.

use std::os::unix::process::CommandExt;
use std::process::Command;

const DEFAULT_BIN: &str = "claude";

pub struct Agent {
    bin: String,
}

impl Agent {
    pub fn new() -> Self {
        Agent { bin: DEFAULT_BIN.to_string() }
    }

    pub fn run(&self, q: &str) -> std::io::Result<()> {
        Command::new(&self.bin).arg("-p").arg(q).spawn()?.wait()?; // expect: agent-spawn-without-group
        Ok(())
    }
}

pub struct Grouped {
    bin: String,
}

impl Grouped {
    pub fn new() -> Self {
        Self { bin: "codex".into() }
    }

    pub fn run(&self) -> std::io::Result<()> {
        let mut child = Command::new(&self.bin).arg("exec").process_group(0).spawn()?;
        let pid = child.id() as i32;
        let waited = child.wait();
        unsafe { libc::killpg(pid, libc::SIGKILL) };
        waited.map(|_| ())
    }
}

pub struct Tool {
    bin: String,
}

impl Tool {
    pub fn new() -> Self {
        Tool { bin: String::from("cargo") }
    }

    pub fn check(&self) -> std::io::Result<std::process::ExitStatus> {
        Command::new(&self.bin).arg("check").status()
    }
}

/// Literals that copy the field from `self` are read once, not followed round.
pub struct Copied {
    bin: String,
}

impl Copied {
    pub fn new() -> Self {
        Copied { bin: "amp".into() }
    }

    pub fn again(&self) -> Self {
        Self { bin: self.bin.clone() }
    }

    pub fn run(&self) -> std::io::Result<std::process::ExitStatus> {
        Command::new(&self.bin).status() // expect: agent-spawn-without-group
    }
}
