//! `fleet track`: register branches as lanes (all or none).

use fleet::context::Context;
use fleet::error::Result;
use fleet::lanes;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Register worker branches as lanes
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Register branches as lanes, in this order. Refuses unknown branches, the target \
                  itself and lanes already tracked; all or none are tracked. An agent name stands \
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
    let ctx = env.refreshed_queue(&args.queue)?;
    let resolved = resolve_and_publish(&ctx, &args.branches)?;
    let tracked = lanes::track(&ctx, &resolved, args.ready)?;
    if args.out.json {
        render::json(&tracked);
    } else {
        let state = if args.ready { "ready" } else { "running" };
        for lane in &tracked {
            render::ok(&format!("tracking {lane} ({state})"));
        }
    }
    Ok(0)
}

/// The branches the names stand for, each pushed to the queue's remote first when the
/// queue is on one (every machine must see a lane's branch). Belongs with the queue
/// (queue.rs); kept here until it moves.
fn resolve_and_publish(ctx: &Context, given: &[String]) -> Result<Vec<String>> {
    let prefix = ctx.config.lanes.prefix.as_str();
    let mut resolved = Vec::new();
    for name in given {
        let branch =
            lanes::resolve_branch(&ctx.repo, prefix, name)?.unwrap_or_else(|| name.clone());
        if let Some(remote) = &ctx.remote {
            fleet::remote::publish_branch(ctx, remote, &branch, &render::term::TermUi::plain())?;
        }
        resolved.push(branch);
    }
    Ok(resolved)
}
