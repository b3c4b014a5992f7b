// The group made by a helper of the file the command is passed to: a function taking
// `Command`/`&mut Command` that calls `.process_group(0)` on it, or `setpgid`/`setsid` in
// its `pre_exec`, is the group half; the kill half is still needed.
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub fn spawn_with_pgid(mut cmd: Command) -> io::Result<Child> {
    unsafe {
        cmd.pre_exec(|| {
            if libc::setpgid(0, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
}

fn own_group(cmd: &mut Command) -> &mut Command {
    cmd.process_group(0)
}

// Takes a command but gives it no group: only a signal disposition.
fn quiet_pipes(cmd: &mut Command) {
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            Ok(())
        });
    }
}

pub fn kill_process_group(child: &Child) {
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
}

// Compliant: the group from the helper it is handed to, the group killed after.
pub fn run(prompt: &str) -> io::Result<()> {
    let mut cmd = Command::new("claude");
    cmd.args(["--print", prompt]);
    let mut child = spawn_with_pgid(cmd)?;
    let _ = child.wait();
    kill_process_group(&child);
    Ok(())
}

// Compliant: a helper given `&mut cmd` makes the group.
pub fn run_codex(prompt: &str) -> io::Result<()> {
    let mut cmd = Command::new("codex");
    cmd.arg("exec").arg(prompt);
    own_group(&mut cmd);
    let mut child = cmd.spawn()?;
    let _ = child.wait();
    kill_process_group(&child);
    Ok(())
}

// The group from the helper, but only the leader is killed.
pub fn run_gemini(prompt: &str) -> io::Result<()> {
    let mut cmd = Command::new("gemini"); // expect: agent-spawn-without-group
    cmd.args(["-p", prompt]);
    let mut child = spawn_with_pgid(cmd)?;
    let _ = child.kill();
    Ok(())
}

// The helper it is given makes no group.
pub fn run_qwen(prompt: &str) -> io::Result<()> {
    let mut cmd = Command::new("qwen"); // expect: agent-spawn-without-group
    cmd.args(["-p", prompt]);
    quiet_pipes(&mut cmd);
    let mut child = cmd.spawn()?;
    kill_process_group(&child);
    Ok(())
}

// The group helper is given another command, not this one.
pub fn run_aider(prompt: &str) -> io::Result<()> {
    let mut other = Command::new("true");
    own_group(&mut other);
    let mut cmd = Command::new("aider"); // expect: agent-spawn-without-group
    cmd.arg(prompt);
    let mut child = cmd.spawn()?;
    kill_process_group(&child);
    Ok(())
}

// Compliant: the spawn itself handed to the helper, the group killed after.
pub fn run_inline() -> io::Result<()> {
    let mut child = spawn_with_pgid(Command::new("opencode"))?;
    let _ = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}
