//! `fleet task claim` (hidden): claim the next task once, as a drainer does, so tests
//! and scripts can race claimers without a drainer.

use fleet::error::Result;
use fleet::tasks::Holder;

use super::{REMOTE_HELP, with_store};
use crate::cli::args::{Output, QueueArgs, duration};
use crate::commands::CommandEnv;
use crate::render;

/// Claim the next claimable task
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  fleet task claim --holder box-1 --json",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    /// The holder's host name (default: this machine's)
    #[arg(long, value_name = "NAME")]
    holder: Option<String>,
    /// How long the claim holds without renewal
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration)]
    lease: std::time::Duration,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    with_store(env, &args.queue, |store| {
        let mut holder = Holder::this_process(env!("FLEET_COMMIT"));
        if let Some(host) = args.holder {
            holder.host = host;
        }
        let claimed = store.claim_next(&holder, fleet::time::now(), args.lease)?;
        if args.out.json {
            render::json(&claimed);
        } else {
            match &claimed {
                Some(c) => render::ok(&format!(
                    "claimed task {} (run {}, attempt {})",
                    c.task.name, c.run.id, c.run.attempt
                )),
                None => render::note("nothing to claim"),
            }
        }
        Ok(0)
    })
}
