//! A wrapper and its agent in different pieces of the argv (duct's `cmd!` arguments, the
//! array given to `duct::cmd`, a const array indexed element by element) are one
//! command line: read past the wrapper and into a `sh -c` script.

use duct::cmd;
use std::os::unix::process::CommandExt;
use std::process::Command;

const W: [&str; 2] = ["nohup", "claude"];
const TOOL: [&str; 2] = ["nice", "cargo"];

pub fn duct_shell() -> std::io::Result<String> {
    cmd!("sh", "-c", "claude -p hi").read() // expect: agent-spawn-without-group
}

pub fn duct_shell_handle() -> std::io::Result<()> {
    let handle = cmd!("bash", "-lc", "cd /work && codex exec fix").start()?; // expect: agent-spawn-without-group
    handle.kill()?;
    Ok(())
}

pub fn duct_nohup(p: &str) -> std::io::Result<std::process::Output> {
    cmd!("nohup", "claude", "-p", p).run() // expect: agent-spawn-without-group
}

pub fn duct_function_shell() -> std::io::Result<std::process::Output> {
    duct::cmd("sh", &["-c", "env A=1 claude -p hi"]).run() // expect: agent-spawn-without-group
}

pub fn const_array_wrapper() -> std::io::Result<()> {
    let mut c = Command::new(W[0]).arg(W[1]).arg("-p").spawn()?; // expect: agent-spawn-without-group
    c.wait()?;
    Ok(())
}

pub fn const_array_wrapper_in_group() -> std::io::Result<()> {
    let mut c = Command::new(W[0]).arg(W[1]).arg("-p").process_group(0).spawn()?;
    let pid = c.id() as i32;
    let waited = c.wait();
    unsafe { libc::killpg(pid, libc::SIGKILL) };
    waited.map(|_| ())
}

pub fn tools() -> std::io::Result<()> {
    cmd!("sh", "-c", "cargo test").run()?;
    cmd!("nohup", "cargo", "build").run()?;
    duct::cmd("env", &["A=1", "make"]).run()?;
    Command::new(TOOL[0]).arg(TOOL[1]).arg("check").status()?;
    Ok(())
}
