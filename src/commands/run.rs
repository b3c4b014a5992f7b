//! `fleet run`: run a command as the leader of its own process group, which dies with
//! it; exit with the command's code.

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use serde::Serialize;

use fleet::error::{Error, Result};

use super::CommandEnv;
use crate::cli::args::duration;
use crate::render;

/// Run a command in its own process group; the whole group dies with it
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Run a command as the leader of a new process group. Ctrl-C, SIGTERM and SIGHUP are \
                  forwarded to the group. On timeout, and also after the command exits (cleanly or \
                  not), every process left in the group gets SIGTERM, then SIGKILL after the grace \
                  period, so helpers it started die with it. Exits with the command's code, 124 on \
                  timeout, 128+N when killed by signal N, 127 when the command is not found. \
                  The command's stdout and stderr are its own, untouched (so `claude \
                  --output-format json` still prints its document on stdout); fleet's report \
                  (--json, or --report FILE) goes to stderr as one JSON line after the \
                  command's own output, or to FILE.",
    after_long_help = "Examples:\n  fleet run --timeout 30m -- claude -p \"fix the tests\"\n  fleet run --timeout 10s --grace 1s -- ./flaky-server.sh\n  fleet run --report run.json -- claude -p \"fix it\" --output-format json > result.json\n  fleet run --json -- make test 2> >(tail -n 1 > report.json)"
)]
pub struct Args {
    /// Kill the group after this long (e.g. 90s, 30m)
    #[arg(long, value_name = "DUR", value_parser = duration)]
    timeout: Option<Duration>,
    /// Time between SIGTERM and SIGKILL
    #[arg(long, value_name = "DUR", value_parser = duration, default_value = "2s")]
    grace: Duration,
    /// Report as one JSON line on stderr, after the command's own output
    #[arg(long)]
    json: bool,
    /// Write the report (JSON) to FILE instead
    #[arg(long, value_name = "FILE")]
    report: Option<std::path::PathBuf>,
    /// The command and its arguments
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CMD"
    )]
    command: Vec<String>,
}

/// The report of a command that ran. `exit_code` is the key every fleet document uses
/// for an exit code (a failed gate command's, a worker's test, an error's).
#[derive(Serialize)]
struct RunReport {
    command: Vec<String>,
    exit_code: i32,
    timed_out: bool,
    /// The signal that killed the command, if one did.
    signal: Option<i32>,
    /// A signal fleet received and forwarded to the command's group.
    forwarded_signal: Option<i32>,
    duration_ms: u128,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let command = &args.command;
    let (program, rest) = command
        .split_first()
        .ok_or_else(|| Error::usage("no command given"))?;
    let report_to = Report::to(&args, env);
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest).current_dir(env.cwd());
    let started = std::time::Instant::now();
    let outcome = match fleet::proc::run_foreground(&mut cmd, args.timeout, args.grace) {
        Ok(outcome) => outcome,
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            let error = Error::env(format!("cannot run `{program}`: {e}"))
                .with_help("check the command name and PATH");
            render::error(&error);
            // The one shape of every fleet error document, with the exit code run gives.
            report_to.write(&render::error_document(&error, code))?;
            return Ok(code);
        }
    };
    report_to.write(&RunReport {
        command: command.to_vec(),
        exit_code: outcome.code(),
        timed_out: outcome.timed_out,
        signal: outcome.status.signal(),
        forwarded_signal: outcome.forwarded,
        duration_ms: started.elapsed().as_millis(),
    })?;
    if outcome.timed_out {
        render::warn(&format!(
            "`{program}` timed out; its process group was terminated"
        ));
    }
    Ok(u8::try_from(outcome.code()).unwrap_or(255))
}

/// Where fleet's own report goes: never stdout, which is the command's.
enum Report {
    None,
    /// One JSON line on stderr, after the command's own output.
    Stderr,
    File(std::path::PathBuf),
}

impl Report {
    fn to(args: &Args, env: &CommandEnv) -> Report {
        match (&args.report, args.json) {
            (Some(file), _) => Report::File(env.cwd().join(file)),
            (None, true) => Report::Stderr,
            (None, false) => Report::None,
        }
    }

    fn write(&self, report: &impl Serialize) -> Result<()> {
        match self {
            Report::None => Ok(()),
            Report::Stderr => {
                render::note(&serde_json::to_string(report).unwrap_or_default());
                Ok(())
            }
            Report::File(path) => {
                let text = serde_json::to_string_pretty(report).unwrap_or_default() + "\n";
                std::fs::write(path, text).map_err(|e| {
                    Error::env(format!("cannot write the report {}: {e}", path.display()))
                        .with_help("pass --report a file in a folder that exists and is writable")
                })
            }
        }
    }
}
