//! The program kept in a lazy static (`once_cell`'s `Lazy`, std's `LazyLock`, a
//! `OnceLock` filled by `get_or_init`) whose closure gives one constant value: the spawn
//! runs that value. A closure with statements is not read.
use once_cell::sync::Lazy;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::{LazyLock, OnceLock};

static CLAUDE: Lazy<String> = Lazy::new(|| "claude".to_string());
static CODEX: LazyLock<&'static str> = LazyLock::new(|| "codex");
static GEMINI: OnceLock<String> = OnceLock::new();
static GZIP: Lazy<String> = Lazy::new(|| "gzip".to_string());

pub fn lazy_no_group(q: &str) {
    let _ = Command::new(&*CLAUDE).arg("-p").arg(q).spawn(); // expect: agent-spawn-without-group
}

pub fn lazy_lock_no_group(q: &str) -> std::io::Result<()> {
    Command::new(*CODEX).arg("exec").arg(q).spawn()?.wait()?; // expect: agent-spawn-without-group
    Ok(())
}

pub fn once_lock_no_group(q: &str) -> std::io::Result<()> {
    let bin = GEMINI.get_or_init(|| "gemini".into());
    Command::new(bin).arg("-p").arg(q).spawn()?.wait()?; // expect: agent-spawn-without-group
    Ok(())
}

pub fn lazy_group_killed(q: &str) -> std::io::Result<()> {
    let mut child = Command::new(CLAUDE.as_str()).arg("-p").arg(q).process_group(0).spawn()?;
    let status = child.wait();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    status.map(|_| ())
}

pub fn lazy_tool(path: &str) {
    let _ = Command::new(&*GZIP).arg(path).spawn();
}

// A lazy static holding the program keeps no child: a function naming it that kills
// another child's group does not kill this one's.
pub fn lazy_grouped_never_killed(q: &str) {
    let _ = Command::new(&*CLAUDE).arg(q).process_group(0).spawn(); // expect: agent-spawn-without-group
}

pub fn names_the_static_kills_another() -> std::io::Result<()> {
    println!("{}", &*CLAUDE);
    let c = Command::new("ls").process_group(0).spawn()?;
    unsafe { libc::killpg(c.id() as i32, libc::SIGKILL) };
    Ok(())
}

lazy_static::lazy_static! {
    static ref AIDER: String = "aider".to_string();
    pub static ref TAR: &'static str = "tar";
}

pub fn lazy_static_macro_no_group(q: &str) {
    let _ = Command::new(&*AIDER).arg("--message").arg(q).spawn(); // expect: agent-spawn-without-group
}

pub fn lazy_static_macro_tool(path: &str) {
    let _ = Command::new(*TAR).arg("xf").arg(path).spawn();
}
