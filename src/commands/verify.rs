//! `fleet verify`: check that every move of the target has a green receipt for its
//! exact tree.

use anstyle::{AnsiColor, Style};

use fleet::error::{Error, Result};
use fleet::verify::RevRange;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render::{self, short_id};

/// Check that every move of the target has a green receipt for its exact tree
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Walk the target branch's first-parent history and check that every commit the \
                  target moved to has a receipt (a note on refs/notes/fleet, written by `fleet \
                  land`) that is green, was tested on that commit's exact tree, and names a \
                  first-parent ancestor as where the target moved from. The walk jumps from \
                  each verified commit to that ancestor, so the commits of a rebased lane in \
                  between are not target positions and are not checked. Commits that fail are \
                  listed with the reason. The default range is the target since fleet was \
                  adopted (where the oldest receipt on the line starts); A..B checks B's line \
                  down to A, ..B and REV check that line since adoption, A.. the target down \
                  to A. Receipts travel with pushes: in a fresh clone, `fleet verify --remote \
                  origin` fetches them first and checks origin's target (the guard refuses \
                  a git fetch into refs/notes/fleet). Exits 1 when any commit is not verified or there are no receipts, 2 \
                  on a bad revision.",
    after_long_help = "Examples:\n  fleet verify\n  fleet verify v1.2.0..main\n  fleet verify origin/main --json | jq -r '.unverified[] | \"\\(.id) \\(.reason)\"'\n  fleet verify --remote origin   # in a fresh clone: fetches the receipts"
)]
pub struct Args {
    /// Commits to check: A..B, ..B, A.. or REV
    #[arg(value_name = "REV-RANGE", value_parser = RevRange::parse)]
    range: Option<RevRange>,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let range = args.range.unwrap_or_default();
    let (ctx, queue) = env.refreshed_queue(&args.queue)?;
    let report = fleet::verify::verify(&ctx, &queue, &range)?;
    let code = u8::from(!report.ok());
    if args.out.json {
        render::json(&report);
        return Ok(code);
    }
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    for u in &report.unverified {
        render::answer(&format!(
            "{} {}\n             {}",
            render::paint(red, short_id(&u.id)),
            u.subject,
            u.detail
        ));
    }
    let r = &report.range;
    let top = range.to.clone().unwrap_or_else(|| ctx.target().to_string());
    let span = match (&r.from, r.since_adoption) {
        (Some(from), true) => format!("{top} since fleet was adopted at {}", short_id(from)),
        (Some(from), false) => format!("{}..{top}", short_id(from)),
        (None, _) => format!("{top}, all of its history"),
    };
    let summary = format!(
        "{} commit(s) checked ({span}): {} verified, {} not",
        report.checked,
        report.verified.len(),
        report.unverified.len()
    );
    if report.ok() {
        render::ok(&summary);
    } else {
        render::error(&Error::refused(summary).with_help(
            "the listed commits did not pass the gate on their exact tree through `fleet land`; \
             `git notes --ref fleet show ID` shows what a receipt says",
        ));
    }
    Ok(code)
}
