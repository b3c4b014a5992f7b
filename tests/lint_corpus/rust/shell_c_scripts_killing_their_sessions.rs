// A `bash -c` script is checked as a shell script of its own: one that starts its
// agent in a session and kills that group itself needs no group from the Command that
// starts the shell. One that never kills the session it starts, or kills the leader
// alone, is a finding.
use std::process::Command;

fn owned() {
    let _ = Command::new("bash")
        .args(["-c", "setsid claude -p x & pid=$!; sleep 60; kill -- -$pid"])
        .status();
}

fn never_killed() {
    let _ = Command::new("bash") // expect: agent-spawn-without-group
        .args(["-c", "setsid claude -p x & sleep 60"])
        .status();
}

fn leader_only() {
    let _ = Command::new("sh") // expect: agent-spawn-without-group
        .arg("-ec")
        .arg("setsid codex exec hi & pid=$!; sleep 60; kill $pid")
        .status();
}
