use std::process::Stdio;

pub fn ask(prompt: &str) -> anyhow::Result<String> {
    let output =
        std::process::Command::new("claude") // expect: agent-spawn-without-group
            .args(["-p", prompt, "--output-format", "text"])
            .stdin(Stdio::null())
            .output()?;
    anyhow::ensure!(output.status.success(), "claude failed");
    Ok(String::from_utf8(output.stdout)?)
}

pub fn spawn_many(prompts: &[String]) -> Vec<std::process::Child> {
    prompts
        .iter()
        .filter_map(|p| {
            std::process::Command::new("codex") // expect: agent-spawn-without-group
                .args(["exec", p])
                .spawn()
                .ok()
        })
        .collect()
}

pub fn ls() -> std::io::Result<std::process::Output> {
    std::process::Command::new("ls").arg("-la").output()
}
