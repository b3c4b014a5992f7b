//! `fleet drain`: the supervisor. Claims queued tasks, runs each one's agent in a fresh
//! worktree and lane, reaps it, makes the lane ready; never lands.

use std::time::Duration;

use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs, duration};
use crate::render;

/// Run queued tasks' agents into lanes (never lands)
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Claim queued tasks and run each one's agent (its [agents.NAME] profile in \
                  fleet.toml) in a fresh worktree on a branch named for the run, tracked as a \
                  running lane. The plan is at .fleet/plan.md in that worktree ($FLEET_PLAN). \
                  When the agent succeeded and committed, the profile's check (default: the gate \
                  commands) runs there and the lane becomes ready; a failed, timed-out or crashed \
                  attempt is queued again after a back-off, and parked at the attempt cap. \
                  Runs until SIGTERM or Ctrl-C (the running agents get --stop-timeout, then are \
                  stopped and their tasks queued again); --once makes one pass. It never lands: \
                  `fleet land` does.",
    after_long_help = "Examples:\n  fleet drain --max 3\n  fleet drain --once --json\n  fleet drain --remote origin --max 2 --stop-timeout 2m",
    mut_arg("remote", |a| a.help(super::task::REMOTE_HELP))
)]
pub struct Args {
    /// One pass: claim what the caps allow, run those to their end, exit
    #[arg(long)]
    once: bool,
    /// Agents at once for this drainer
    #[arg(long, value_name = "N", default_value_t = 1)]
    max: usize,
    /// How long running agents get to finish once stopped (default: [drain] stop_timeout)
    #[arg(long, value_name = "DUR", value_parser = duration)]
    stop_timeout: Option<Duration>,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.queue(&args.queue)?;
    let opts = fleet::drain::Options {
        once: args.once,
        max: args.max,
        stop_timeout: args.stop_timeout,
        commit: env!("FLEET_COMMIT").to_string(),
    };
    let report = fleet::drain::drain(&ctx, &queue, &opts, &render::term::TermUi::plain())?;
    if args.out.json {
        render::json(&report);
    } else {
        let failed = report
            .runs
            .iter()
            .filter(|r| r.outcome != Some(fleet::tasks::Outcome::Succeeded))
            .count();
        render::note(&format!(
            "drained: {} run(s), {} succeeded, {failed} not",
            report.runs.len(),
            report.runs.len() - failed
        ));
    }
    Ok(0)
}
