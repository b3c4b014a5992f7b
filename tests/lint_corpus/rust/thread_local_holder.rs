//! A child kept in a `thread_local!` static (`RefCell<Option<Child>>`) is in reach of the
//! file's functions using it, like a module static: `stop()` killing its group counts,
//! one killing only the leader does not.
use std::cell::RefCell;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

thread_local! {
    static AGENT: RefCell<Option<Child>> = const { RefCell::new(None) };
    static HELPER: RefCell<Option<Child>> = const { RefCell::new(None) };
}

pub fn start(p: &str) -> std::io::Result<()> {
    let child = Command::new("claude").arg("-p").arg(p).process_group(0).spawn()?;
    AGENT.with(|a| *a.borrow_mut() = Some(child));
    Ok(())
}

pub fn stop() {
    AGENT.with(|a| {
        if let Some(c) = a.borrow_mut().take() {
            unsafe { libc::killpg(c.id() as i32, libc::SIGKILL) };
        }
    });
}

pub fn start_helper(p: &str) -> std::io::Result<()> {
    let child = Command::new("codex").arg(p).process_group(0).spawn()?; // expect: agent-spawn-without-group
    HELPER.with(|h| h.replace(Some(child)));
    Ok(())
}

pub fn stop_helper() {
    HELPER.with(|h| {
        if let Some(mut c) = h.borrow_mut().take() {
            let _ = c.kill();
        }
    });
}
