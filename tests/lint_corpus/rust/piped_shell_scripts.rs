// A `sh -c` script that pipes text into a shell, or is written `$'...'`, is read as the
// shell reads it: the printed text is the inner shell's script, and `\n` ends a command.
use std::process::Command;

fn piped() {
    Command::new("bash") // expect: agent-spawn-without-group
        .args(["-c", "echo 'claude -p hi' | bash -s"])
        .status()
        .unwrap();
}

fn printf_pipe() {
    Command::new("sh") // expect: agent-spawn-without-group
        .arg("-c")
        .arg("printf 'cd /r\\nclaude -p hi\\n' | bash")
        .status()
        .unwrap();
}

fn ansi_c() {
    Command::new("bash") // expect: agent-spawn-without-group
        .args(["-c", r"bash -c $'cd /r\nclaude -p hi'"])
        .status()
        .unwrap();
}

fn teed() {
    Command::new("bash")
        .args(["-c", "echo 'claude -p hi' | tee prompt.txt"])
        .status()
        .unwrap();
}
