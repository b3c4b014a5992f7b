//! A child kept in a static of the module (`Mutex<Option<Child>>`, a `OnceLock`, an atomic
//! pid) is in reach of every function of the file that uses the static: `stop()` killing
//! its group counts, `stop()` killing only the leader does not. A `static` holding the
//! program's name keeps no child: another function naming it is not in reach, nor is a
//! static the spawn only reads (`.arg(PGID.load(..))`).
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

static AGENT: Mutex<Option<Child>> = Mutex::new(None);

pub fn start(p: &str) -> std::io::Result<()> {
    let c = Command::new("claude").arg("-p").arg(p).process_group(0).spawn()?;
    *AGENT.lock().unwrap() = Some(c);
    Ok(())
}

pub fn stop() {
    if let Some(c) = AGENT.lock().unwrap().take() {
        unsafe { libc::killpg(c.id() as i32, libc::SIGKILL) };
    }
}

static CODEX: OnceLock<Mutex<Option<Child>>> = OnceLock::new();

pub fn start_codex(p: &str) -> std::io::Result<()> {
    let slot = CODEX.get_or_init(|| Mutex::new(None));
    *slot.lock().unwrap() = Some(Command::new("codex").arg(p).process_group(0).spawn()?);
    Ok(())
}

pub fn stop_codex() {
    if let Some(slot) = CODEX.get()
        && let Some(c) = slot.lock().unwrap().take()
    {
        unsafe { libc::kill(-(c.id() as i32), libc::SIGTERM) };
    }
}

static GEMINI_PGID: AtomicI32 = AtomicI32::new(0);

pub fn start_gemini(p: &str) -> std::io::Result<()> {
    let child = Command::new("gemini").arg(p).process_group(0).spawn()?;
    GEMINI_PGID.store(child.id() as i32, Ordering::SeqCst);
    Ok(())
}

pub fn stop_gemini() {
    let pgid = GEMINI_PGID.swap(0, Ordering::SeqCst);
    if pgid > 0 {
        unsafe { libc::killpg(pgid, libc::SIGKILL) };
    }
}

pub fn run_numbered(p: &str) -> std::io::Result<()> {
    let mut child = Command::new("opencode") // expect: agent-spawn-without-group
        .arg(GEMINI_PGID.load(Ordering::SeqCst).to_string())
        .arg(p)
        .process_group(0)
        .spawn()?;
    println!("{} after {}", child.id(), GEMINI_PGID.load(Ordering::SeqCst));
    child.wait()?;
    Ok(())
}

static mut AMP: Option<Child> = None;

pub fn start_amp(p: &str) -> std::io::Result<()> {
    let child = Command::new("amp").arg(p).process_group(0).spawn()?;
    unsafe { AMP = Some(child) };
    Ok(())
}

pub fn stop_amp() {
    if let Some(c) = unsafe { (*std::ptr::addr_of_mut!(AMP)).take() } {
        unsafe { libc::killpg(c.id() as i32, libc::SIGKILL) };
    }
}

static AIDER: Mutex<Option<Child>> = Mutex::new(None);

pub fn start_aider(p: &str) -> std::io::Result<()> {
    let c = Command::new("aider").arg(p).process_group(0).spawn()?; // expect: agent-spawn-without-group
    *AIDER.lock().unwrap() = Some(c);
    Ok(())
}

pub fn stop_aider() {
    if let Some(mut c) = AIDER.lock().unwrap().take() {
        let _ = c.kill();
    }
}

static GOOSE: &str = "goose";

pub fn run_goose(p: &str) -> std::io::Result<()> {
    let mut child = Command::new(GOOSE).arg(p).process_group(0).spawn()?; // expect: agent-spawn-without-group
    child.wait()?;
    Ok(())
}

pub fn run_goose_killed(p: &str) -> std::io::Result<()> {
    let child = Command::new(GOOSE).arg(p).process_group(0).spawn()?;
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    Ok(())
}
