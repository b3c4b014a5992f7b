use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

/// Starts claude in a process group of its own so that a timeout can kill its helpers too.
pub fn start(prompt: &str) -> std::io::Result<Child> {
    Command::new("claude")
        .arg("-p")
        .arg(prompt)
        .stdout(Stdio::piped())
        .process_group(0)
        .spawn()
}

pub fn kill_group(child: &Child) {
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
    }
}
