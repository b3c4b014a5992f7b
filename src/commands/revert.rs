//! `fleet revert`: undo a landed lane by landing its reverse through the same gate.

use fleet::error::Result;
use fleet::land::LandOptions;

use super::CommandEnv;
use crate::cli::args::{LandFlags, Output};
use crate::render::{self, term::TermUi};

/// Undo a landed lane through the gate, like any lane
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Undo a landed lane: build a commit that reverses exactly what it landed (from its \
                  receipt), on the current target, track it as the lane `revert/LANE`, and land it \
                  through the same gate and compare-and-swap as any lane.",
    after_long_help = "Examples:\n  fleet revert fleet/task-a\n  fleet revert task-a --yes",
    // The shared landing flags, worded for the one revert.
    mut_arg("yes", |a| a.help("Do not ask before landing the revert")),
    mut_arg("dry_run", |a| a.help("Build and check the revert; move nothing")),
    mut_arg("allow_protected", |a| a.help("Let the revert touch [gate] protected paths"))
)]
pub struct Args {
    /// The landed lane to undo
    #[arg(value_name = "LANE")]
    lane: String,
    #[command(flatten)]
    flags: LandFlags,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let json = args.out.json;
    let opts = LandOptions {
        yes: args.flags.yes,
        dry_run: args.flags.dry_run,
        allow_protected: args.flags.allow_protected,
        ..Default::default()
    };
    let (ctx, queue) = env.configured_queue()?;
    let term = TermUi::for_landing(&opts, json)?;
    let report = fleet::land::revert(&ctx, &queue, &args.lane, &opts, &term)?;
    Ok(render::land::lanes(&[report], &term, json))
}
