//! `fleet task retry`: queue a parked, cancelled or failed task again.

use fleet::error::Result;
use fleet::tasks::TaskName;

use super::{REMOTE_HELP, with_store};
use crate::cli::args::{Output, QueueArgs};
use crate::commands::CommandEnv;
use crate::render;

/// Queue a parked, cancelled or failed task again
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Queue a parked, cancelled or failed task again, at once (no back-off). The \
                  attempts it used are kept; a task with none left gets one more (its cap is \
                  raised by one).",
    after_long_help = "Examples:\n  fleet task retry fix-login\n  fleet task retry fix-login --remote origin",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    /// The task to queue again
    #[arg(value_name = "NAME", value_parser = TaskName::parse)]
    name: TaskName,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    with_store(env, &args.queue, |store| {
        let task = store.retry(&args.name, fleet::time::now())?;
        if args.out.json {
            render::json(&task);
        } else {
            render::ok(&format!(
                "queued task {} again ({} of {} attempts used)",
                task.name,
                task.attempts(),
                task.max_attempts
            ));
        }
        Ok(0)
    })
}
