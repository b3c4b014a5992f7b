//! `fleet untrack`: forget lanes; their branches stay.

use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Forget lanes (their branches stay)
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  fleet untrack fleet/task-a\n  fleet untrack --landed      # every lane `fleet status` shows landed or reverted"
)]
pub struct Args {
    /// Lanes to stop tracking (their branches are kept)
    #[arg(required_unless_present = "landed", value_name = "LANE")]
    lanes: Vec<String>,
    /// Also every lane that has landed or was reverted (as `fleet status` shows it)
    #[arg(long)]
    landed: bool,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.queue(&args.queue)?;
    let mut lanes = args.lanes;
    if args.landed {
        lanes.extend(
            fleet::status::lanes(&ctx, &queue)?
                .into_iter()
                .filter(|l| l.state.finished())
                .map(|l| l.branch),
        );
    }
    let gone = if lanes.is_empty() {
        Vec::new()
    } else {
        queue.untrack(&ctx, &lanes)?
    };
    if gone.is_empty() && !args.out.json {
        render::note("no landed lane to untrack");
    }
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
