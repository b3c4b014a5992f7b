//! `fleet task list`: the tasks as a table, or JSON.

use fleet::error::Result;

use super::{REMOTE_HELP, with_store};
use crate::cli::args::{Output, QueueArgs};
use crate::commands::CommandEnv;
use crate::render::{self, DIM, age, answer, paint};

/// List the tasks: state, priority, attempts, age
#[derive(Debug, clap::Args)]
#[command(
    long_about = "List the tasks in queue order: by state (queued, claimed, running, limited, succeeded, \
                  failed, timed_out, crashed, parked, cancelled), higher priority first, older first.",
    after_long_help = "Examples:\n  fleet task list\n  fleet task list --json | jq '.[] | select(.state == \"parked\") | .name'\n  fleet task list --remote origin",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    with_store(env, &args.queue, |store| {
        let tasks = store.list()?;
        if args.out.json {
            render::json(&tasks);
            return Ok(0);
        }
        if tasks.is_empty() {
            render::note("no tasks; add one with `fleet task add NAME --prompt TEXT`");
            return Ok(0);
        }
        // A header row for a person at a terminal only (as the other tables).
        use std::io::IsTerminal;
        if std::io::stdout().is_terminal() {
            answer(&paint(
                DIM,
                &format!(
                    "{:<24} {:<10} {:>8} {:>8}  {}",
                    "TASK", "STATE", "PRIORITY", "ATTEMPTS", "AGE"
                ),
            ));
        }
        for t in &tasks {
            answer(&format!(
                "{:<24} {:<10} {:>8} {:>8}  {}",
                t.name,
                t.state.as_str(),
                t.priority,
                format!("{}/{}", t.attempts(), t.max_attempts),
                age(t.created)
            ));
        }
        Ok(0)
    })
}
