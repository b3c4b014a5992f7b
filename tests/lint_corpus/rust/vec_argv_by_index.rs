//! A whole argv kept in a `vec![...]`: the program is its first element, read through
//! `argv[0]` and the rest through `&argv[1..]`, as for an array.

use std::os::unix::process::CommandExt;
use std::process::Command;

pub fn ask(q: &str) {
    let argv = vec!["claude", "-p", q];
    let _ = Command::new(argv[0]).args(&argv[1..]).spawn(); // expect: agent-spawn-without-group
}

pub fn ask_behind_nohup(q: &str) {
    let argv = vec!["nohup", "codex", "exec", q];
    let _ = Command::new(argv[0]).args(&argv[1..]).spawn(); // expect: agent-spawn-without-group
}

pub fn ask_in_a_group(q: &str) {
    let argv = vec!["claude", "-p", q];
    let mut child = Command::new(argv[0])
        .args(&argv[1..])
        .process_group(0)
        .spawn()
        .unwrap();
    unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
}

pub fn not_an_agent(q: &str) {
    let argv = vec!["grep", "-r", q];
    let _ = Command::new(argv[0]).args(&argv[1..]).spawn();
}
