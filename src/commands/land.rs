//! `fleet land`: land lanes one at a time (or stacked, `--batch`) through the gate; the
//! report is render::land.

use fleet::error::Result;
use fleet::land::LandOptions;

use super::CommandEnv;
use crate::cli::args::{LandFlags, Output, QueueArgs};
use crate::render::{self, term::TermUi};

/// Land lanes one at a time through the gate
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Land lanes one at a time, in the order given (--all: the ready lanes in tracking \
                  order), each on the target as it is after the ones before. For each: read the \
                  target commit and its fleet.toml, build the candidate in memory (rebase, merge or \
                  squash), refuse protected paths and forbidden markers, run the gate commands on \
                  the candidate's exact tree in a private worktree, then move the target to the \
                  candidate by compare-and-swap and write a receipt (git note on refs/notes/fleet). \
                  The shared checkout and the lanes' worktrees are never switched. Asks before \
                  landing unless --yes; with no terminal, --yes is required.\n\n\
                  A tree is never gated twice: results are cached by (tree, gate commands, the \
                  values of the variables [gate] env names) on refs/fleet/gate-cache, red ones too; \
                  --no-cache runs the gate regardless.\n\n\
                  --batch stacks the lanes (each on the one before, each keeping its own commits \
                  and receipt) and gates the top once. Green lands them all in one move of the \
                  target. Red bisects by prefixes: green prefixes land as they are found, the first \
                  lane whose prefix is red is marked failed, and the lanes after it are stacked \
                  again. With --json, --batch prints {\"lanes\": [...], \"gate_runs\": N}.\n\n\
                  --remote NAME (or [lanes] remote) lands onto the remote's target: fetch its \
                  target, lanes and receipts, build and gate here, then publish with one atomic \
                  push that applies only if the remote target is still the commit the candidate \
                  was built on (--force-with-lease per ref), together with the lane registry and \
                  the receipts. A lost race fetches again, rebuilds on the new target and gates \
                  again. The local target follows when that is a fast-forward.",
    after_long_help = "Examples:\n  fleet land fleet/task-a\n  fleet land --all --yes          # CI\n  fleet land --all --dry-run\n  fleet land --all --batch --max 8 --yes\n  fleet land --remote origin --all --yes   # many machines, one queue\n  fleet land feat/ci-change --allow-protected"
)]
pub struct Args {
    /// Lanes to land, in this order (or --all)
    #[arg(value_name = "LANE")]
    lanes: Vec<String>,
    /// Every ready lane, in tracking order
    #[arg(long)]
    all: bool,
    /// With --all: take running lanes too
    #[arg(long, requires = "all")]
    include_running: bool,
    #[command(flatten)]
    flags: LandFlags,
    /// Stack the lanes into one candidate and gate it once; on red, bisect by
    /// prefixes, land the green ones and mark the culprit failed
    #[arg(long)]
    batch: bool,
    /// With --batch: at most N lanes per batch
    #[arg(long, value_name = "N", requires = "batch", value_parser = clap::value_parser!(u32).range(1..))]
    max: Option<u32>,
    /// Run the gate even when an identical tree was gated before
    #[arg(long)]
    no_cache: bool,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let json = args.out.json;
    let opts = LandOptions {
        lanes: args.lanes,
        all: args.all,
        include_running: args.include_running,
        yes: args.flags.yes,
        dry_run: args.flags.dry_run,
        allow_protected: args.flags.allow_protected,
        batch: args.batch,
        max: args.max.map(|n| n as usize),
        no_cache: args.no_cache,
    };
    // The library fetches a remote queue itself, under its landing lock.
    let (ctx, queue) = env.queue(&args.queue)?;
    // Which lanes comes before how to confirm them.
    if !opts.all && opts.lanes.is_empty() {
        return Err(
            fleet::error::Error::usage("which lanes? name them, or pass --all")
                .with_help("`fleet status` lists the lanes"),
        );
    }
    let term = TermUi::for_landing(&opts, json)?;
    let landing = fleet::land::land(&ctx, &queue, &opts, &term)?;
    if landing.lanes.is_empty()
        && opts.all
        && let (Some(remote), Some((lanes, publish))) =
            (queue.remote(), queue.ready_only_here(&ctx, None)?)
    {
        return Err(fleet::error::Error::refused(format!(
            "nothing to land on {remote}: its queue has no ready lane; ready only in this \
             repository's own queue: {}",
            lanes.join(", ")
        ))
        .with_help(format!("publish them to {remote}'s queue: `{publish}`")));
    }
    if opts.batch && !opts.dry_run {
        if json {
            render::json(&landing);
            return Ok(render::land::exit_code(&landing.lanes));
        }
        render::note(&format!(
            "{} gate run{} for {} lane{}",
            landing.gate_runs,
            if landing.gate_runs == 1 { "" } else { "s" },
            landing.lanes.len(),
            if landing.lanes.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(render::land::lanes(&landing.lanes, &term, json))
}
