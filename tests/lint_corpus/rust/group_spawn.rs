use std::process::Command;

use command_group::{CommandGroup, GroupChild};

pub fn start(prompt: &str) -> std::io::Result<GroupChild> {
    Command::new("opencode").args(["run", prompt]).group_spawn() // expect: agent-spawn-without-group
}

pub fn start_async(prompt: &str) -> std::io::Result<command_group::AsyncGroupChild> {
    use command_group::AsyncCommandGroup;
    let mut cmd = tokio::process::Command::new("goose"); // expect: agent-spawn-without-group
    cmd.args(["run", "-t", prompt]);
    cmd.group_spawn()
}

pub fn start_plain(prompt: &str) -> std::io::Result<std::process::Child> {
    Command::new("opencode").args(["run", prompt]).spawn() // expect: agent-spawn-without-group
}
