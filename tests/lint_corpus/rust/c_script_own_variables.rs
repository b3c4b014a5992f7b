// A `bash -c` script's own variables and arrays, and an expansion's default, are
// followed as a shell script file's are.
use std::process::Command;

fn variable() {
    let _ = Command::new("bash").args(["-c", "A=gemini; $A -p hi"]).status(); // expect: agent-spawn-without-group
}

fn array() {
    let _ = Command::new("bash") // expect: agent-spawn-without-group
        .arg("-c")
        .arg(r#"CMD=(codex exec); "${CMD[@]}" x"#)
        .status();
}

fn default() {
    let _ = Command::new("sh").args(["-c", r#""${AGENT:-claude}" -p hi"#]).status(); // expect: agent-spawn-without-group
}

fn unquoted_default() {
    let _ = Command::new("sh").args(["-c", "${AGENT:-aider} --yes"]).status(); // expect: agent-spawn-without-group
}

fn not_an_agent() {
    let _ = Command::new("sh").args(["-c", "A=echo; $A claude"]).status();
}
