//! `fleet status`: the lanes with their state, ahead/behind, predicted conflicts and
//! last gate result (the table is render::table).

use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Lanes with state, ahead/behind, predicted conflicts and last gate result
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  fleet status\n  fleet status --remote origin\n  fleet status --json | jq '.[] | select(.state == \"failed\") | .gate.log'"
)]
pub struct Args {
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.refreshed_queue(&args.queue)?;
    for warning in ctx.nested_warnings() {
        render::warn(warning);
    }
    let views = fleet::status::lanes(&ctx, &queue)?;
    if args.out.json {
        render::json(&views);
        return Ok(0);
    }
    if views.is_empty() {
        render::note("no lanes; track one with `fleet track BRANCH`");
        return Ok(0);
    }
    render::table::lanes(&views, env.cwd());
    Ok(0)
}
