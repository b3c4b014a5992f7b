//! `concat!` joins its pieces at compile time: `concat!("/opt/agents/", "claude")` is the
//! program `/opt/agents/claude`, in a const or in place; pieces that make another program
//! (`concat!("clau", "de-tools")`) do not name the agent.

use std::os::unix::process::CommandExt;
use std::process::Command;

const DIR: &str = "/opt/agents";
const BIN: &str = concat!("/opt/agents/", "claude");
const TOOL: &str = concat!("clau", "de-tools");

pub fn run(q: &str) -> std::io::Result<()> {
    Command::new(BIN).arg("-p").arg(q).status()?; // expect: agent-spawn-without-group
    Command::new(concat!("/usr/local/bin/", "co", "dex")).arg(q).status()?; // expect: agent-spawn-without-group
    Ok(())
}

pub fn grouped(q: &str) -> std::io::Result<()> {
    let mut child = Command::new(BIN).arg(q).process_group(0).spawn()?;
    let status = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    status.map(|_| ())
}

pub fn tools(q: &str) -> std::io::Result<()> {
    Command::new(TOOL).arg(q).status()?;
    Command::new(concat!("/opt/agents/", "gzip")).arg(q).status()?;
    Command::new(DIR).arg(q).status()?;
    Ok(())
}
