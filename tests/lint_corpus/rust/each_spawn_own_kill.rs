//! Each spawn needs its own group kill: where a function (or a type) starts several, a
//! kill naming another spawn's child is that child's; a kill naming neither counts for each.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub fn kills_a_only(q: &str) {
    let mut a = Command::new("claude").arg(q).process_group(0).spawn().unwrap();
    let mut b = Command::new("codex").arg(q).process_group(0).spawn().unwrap(); // expect: agent-spawn-without-group
    let _ = a.wait();
    let _ = b.wait();
    unsafe { libc::killpg(a.id() as i32, libc::SIGKILL) };
}

pub fn kills_a_by_its_pgid(q: &str) {
    let mut a = Command::new("claude").arg(q).process_group(0).spawn().unwrap();
    let pa = a.id() as i32;
    let mut b = Command::new("codex").arg(q).process_group(0).spawn().unwrap(); // expect: agent-spawn-without-group
    let _ = a.wait();
    let _ = b.wait();
    unsafe { libc::killpg(pa, libc::SIGKILL) };
}

pub fn kills_each(q: &str) {
    let mut a = Command::new("claude").arg(q).process_group(0).spawn().unwrap();
    let mut b = Command::new("codex").arg(q).process_group(0).spawn().unwrap();
    let _ = a.wait();
    let _ = b.wait();
    unsafe { libc::killpg(a.id() as i32, libc::SIGKILL) };
    unsafe { libc::killpg(b.id() as i32, libc::SIGKILL) };
}

pub fn kills_in_a_loop(q: &str) {
    let a = Command::new("claude").arg(q).process_group(0).spawn().unwrap();
    let b = Command::new("codex").arg(q).process_group(0).spawn().unwrap();
    for child in [a, b] {
        unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    }
}

fn stop(child: &Child) {
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
}

pub fn kills_through_a_helper(q: &str) {
    let a = Command::new("claude").arg(q).process_group(0).spawn().unwrap();
    let b = Command::new("codex").arg(q).process_group(0).spawn().unwrap();
    stop(&a);
    stop(&b);
}

pub struct Pair {
    a: Child,
    b: Child,
}

impl Pair {
    pub fn start(q: &str) -> Pair {
        let a = Command::new("claude").arg(q).process_group(0).spawn().unwrap();
        let b = Command::new("codex").arg(q).process_group(0).spawn().unwrap(); // expect: agent-spawn-without-group
        Pair { a, b }
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.a.id() as i32, libc::SIGKILL) };
    }
}

pub struct Both {
    first: Child,
    second: Child,
}

impl Both {
    pub fn start(q: &str) -> Both {
        let first = Command::new("claude").arg(q).process_group(0).spawn().unwrap();
        let second = Command::new("codex").arg(q).process_group(0).spawn().unwrap();
        Both { first, second }
    }
}

impl Drop for Both {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.first.id() as i32, libc::SIGKILL) };
        unsafe { libc::killpg(self.second.id() as i32, libc::SIGKILL) };
    }
}
