//! `fleet task cancel`: take a task out of the queue for good (until a retry).

use fleet::error::Result;
use fleet::tasks::TaskName;

use super::{REMOTE_HELP, with_store};
use crate::cli::args::{Output, QueueArgs};
use crate::commands::CommandEnv;
use crate::render;

/// Cancel a task no drainer holds
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Cancel a queued or parked task, or one whose last attempt failed. A claimed or \
                  running task is refused: the drainer holding it owns it.",
    after_long_help = "Examples:\n  fleet task cancel docs\n  fleet task cancel docs --remote origin",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    /// The task to cancel
    #[arg(value_name = "NAME", value_parser = TaskName::parse)]
    name: TaskName,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    with_store(env, &args.queue, |store| {
        let task = store.cancel(&args.name, fleet::time::now())?;
        if args.out.json {
            render::json(&task);
        } else {
            render::ok(&format!("cancelled task {}", task.name));
        }
        Ok(0)
    })
}
