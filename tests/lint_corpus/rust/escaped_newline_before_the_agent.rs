//! An agent named right after a `\n` escape in an `sh -c` string is still that script's
//! command: the prefilter reads the escape as a word's end.

use std::process::Command;

fn after_newline() {
    Command::new("sh").arg("-c").arg("cd /r\nclaude -p hi").status().unwrap(); // expect: agent-spawn-without-group
}

fn a_tool() {
    Command::new("sh").arg("-c").arg("cd /r\ncargo test").status().unwrap();
}
