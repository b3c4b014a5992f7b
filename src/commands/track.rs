//! `fleet track`: register branches as lanes (all or none).

use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Register worker branches as lanes
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Register branches as lanes, in this order. Refuses unknown branches, the target \
                  itself and lanes already tracked, except a running one (as `fleet worktree \
                  new` tracks it), which is left as it is or, with --ready, marked ready; all \
                  or none are tracked. An agent name stands \
                  for its branch (`task-a` for `fleet/task-a`).",
    after_long_help = "Examples:\n  fleet track fleet/task-a fleet/task-b\n  fleet track --ready feat/login\n  fleet track --remote origin --ready fleet/task-a   # pushes the branch if origin lacks it"
)]
pub struct Args {
    /// Mark them ready to land at once
    #[arg(long)]
    ready: bool,
    /// Branches to track (an agent name stands for its branch `<prefix>NAME`)
    #[arg(required = true, value_name = "BRANCH")]
    branches: Vec<String>,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.refreshed_queue(&args.queue)?;
    let resolved =
        queue.publish_to_track(&ctx, &args.branches, &crate::render::term::TermUi::plain())?;
    let tracked = queue.track(&ctx, &resolved, args.ready)?;
    if args.out.json {
        render::json(&tracked.branches);
    } else {
        let state = if args.ready { "ready" } else { "running" };
        for lane in &tracked.branches {
            if !tracked.already.contains(lane) {
                render::ok(&format!("tracking {lane} ({state})"));
            } else if args.ready {
                render::ok(&format!("{lane} was already a lane (running); now ready"));
            } else {
                render::note(&format!(
                    "{lane} is already a lane (running; `fleet worktree new` tracks its lane): nothing to do"
                ));
            }
        }
    }
    Ok(0)
}
