//! `fleet untrack`: forget lanes; their branches stay.

use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Forget lanes (their branches stay)
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:\n  fleet untrack fleet/task-a")]
pub struct Args {
    /// Lanes to stop tracking (their branches are kept)
    #[arg(required = true, value_name = "LANE")]
    lanes: Vec<String>,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.queue(&args.queue)?;
    let gone = queue.untrack(&ctx, &args.lanes)?;
    if args.out.json {
        render::json(&gone);
    } else {
        for lane in &gone {
            render::ok(&format!(
                "no longer tracking {lane} (the branch is untouched)"
            ));
        }
    }
    Ok(0)
}
