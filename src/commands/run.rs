//! `fleet run`: run a command as the leader of its own process group, which dies with
//! it; exit with the command's code.

use std::os::fd::AsFd;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use serde::Serialize;

use fleet::error::{Error, Result};

use super::CommandEnv;
use crate::cli::args::{Output, duration};
use crate::render;

/// Run a command in its own process group; the whole group dies with it
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Run a command as the leader of a new process group. Ctrl-C, SIGTERM and SIGHUP are \
                  forwarded to the group. On timeout, and also after the command exits (cleanly or \
                  not), every process left in the group gets SIGTERM, then SIGKILL after the grace \
                  period, so helpers it started die with it. Exits with the command's code, 124 on \
                  timeout, 128+N when killed by signal N, 127 when the command is not found.",
    after_long_help = "Examples:\n  fleet run --timeout 30m -- claude -p \"fix the tests\"\n  fleet run --timeout 10s --grace 1s -- ./flaky-server.sh\n  fleet run --json -- make test"
)]
pub struct Args {
    /// Kill the group after this long (e.g. 90s, 30m)
    #[arg(long, value_name = "DUR", value_parser = duration)]
    timeout: Option<Duration>,
    /// Time between SIGTERM and SIGKILL
    #[arg(long, value_name = "DUR", value_parser = duration, default_value = "2s")]
    grace: Duration,
    #[command(flatten)]
    out: Output,
    /// The command and its arguments
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CMD"
    )]
    command: Vec<String>,
}

#[derive(Serialize)]
struct RunReport {
    command: Vec<String>,
    code: i32,
    timed_out: bool,
    /// The signal that killed the command, if one did.
    signal: Option<i32>,
    /// A signal fleet received and forwarded to the command's group.
    forwarded_signal: Option<i32>,
    duration_ms: u128,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let json = args.out.json;
    let command = &args.command;
    let (program, rest) = command
        .split_first()
        .ok_or_else(|| Error::usage("no command given"))?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest).current_dir(env.cwd());
    // With --json, stdout carries only the JSON document: the command's own output goes
    // to stderr.
    if json {
        match std::io::stderr().as_fd().try_clone_to_owned() {
            Ok(fd) => {
                cmd.stdout(std::process::Stdio::from(fd));
            }
            Err(e) => {
                return Err(Error::env(format!(
                    "cannot redirect the command's output: {e}"
                )));
            }
        }
    }
    let started = std::time::Instant::now();
    let outcome = match fleet::proc::run_foreground(&mut cmd, args.timeout, args.grace) {
        Ok(outcome) => outcome,
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            if json {
                render::json(&serde_json::json!({
                    "command": command,
                    "code": code,
                    "error": format!("cannot run `{program}`: {e}"),
                }));
            }
            render::error(
                &Error::refused(format!("cannot run `{program}`: {e}"))
                    .with_help("check the command name and PATH"),
            );
            return Ok(code);
        }
    };
    if json {
        render::json(&RunReport {
            command: command.to_vec(),
            code: outcome.code(),
            timed_out: outcome.timed_out,
            signal: outcome.status.signal(),
            forwarded_signal: outcome.forwarded,
            duration_ms: started.elapsed().as_millis(),
        });
    } else if outcome.timed_out {
        render::warn(&format!(
            "`{program}` timed out; its process group was terminated"
        ));
    }
    Ok(u8::try_from(outcome.code()).unwrap_or(255))
}
