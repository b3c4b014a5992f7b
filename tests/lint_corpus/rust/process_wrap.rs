// process-wrap: the command is built inside the wrapper; ProcessGroup/ProcessSession on
// the wrapper is the cleanup.
use process_wrap::std::*;
use process_wrap::tokio::*;

fn grouped(prompt: &str) -> std::io::Result<()> {
    let mut child = TokioCommandWrap::with_new("claude", |cmd| {
        cmd.arg("-p").arg(prompt);
    })
    .wrap(ProcessGroup::leader())
    .spawn()?;
    let _ = child.start_kill();
    Ok(())
}

fn session() -> std::io::Result<()> {
    let mut wrap = StdCommandWrap::with_new("codex", |cmd| { // expect: agent-spawn-without-group
        cmd.arg("exec");
    });
    wrap.wrap(ProcessSession);
    wrap.spawn()?;
    Ok(())
}

fn ungrouped() -> std::io::Result<()> {
    let mut wrap = StdCommandWrap::with_new("gemini", |cmd| { // expect: agent-spawn-without-group
        cmd.arg("-p");
    });
    wrap.spawn()?;
    Ok(())
}
