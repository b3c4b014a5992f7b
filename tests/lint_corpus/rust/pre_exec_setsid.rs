use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub fn spawn_gemini(prompt: &str) -> io::Result<Child> {
    let mut cmd = Command::new("gemini"); // expect: agent-spawn-without-group
    cmd.args(["-p", prompt]);
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
}

pub fn spawn_aider(files: &[&str]) -> io::Result<Child> {
    let mut cmd = Command::new("aider"); // expect: agent-spawn-without-group
    cmd.arg("--yes").args(files);
    unsafe {
        cmd.pre_exec(|| {
            nix::unistd::setpgid(nix::unistd::Pid::from_raw(0), nix::unistd::Pid::from_raw(0))
                .map_err(io::Error::from)
        });
    }
    cmd.spawn()
}

pub fn spawn_qwen(prompt: &str) -> io::Result<Child> {
    let mut cmd = Command::new("qwen"); // expect: agent-spawn-without-group
    cmd.args(["-p", prompt]);
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            Ok(())
        });
    }
    cmd.spawn()
}
