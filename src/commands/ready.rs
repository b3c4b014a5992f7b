//! `fleet ready`: mark lanes ready to land, optionally with the worker's own test run.

use std::path::PathBuf;

use fleet::error::{Error, Result};
use fleet::git::Repo;
use fleet::lanes::WorkerTest;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Mark lanes ready to land (default: the lane of this worktree)
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Mark lanes ready to land; with no LANE, the lane of the current worktree. \
                  A worker may attach its own test run: the exit code decides (non-zero leaves \
                  the lane running and exits 1), the log is kept for `fleet status`.",
    after_long_help = "Examples:\n  fleet ready\n  cargo test > test.log 2>&1; fleet ready --exit-code $? --log test.log\n  fleet ready fleet/task-a fleet/task-b"
)]
pub struct Args {
    /// Lanes to mark ready (default: the lane of the current agent worktree)
    #[arg(value_name = "LANE")]
    lanes: Vec<String>,
    /// Exit code of the worker's own test run
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    exit_code: Option<i32>,
    /// Log of the worker's own test run
    #[arg(long, value_name = "FILE", requires = "exit_code")]
    log: Option<PathBuf>,
    /// Mark it ready although its worktree has uncommitted or untracked files (they do
    /// not land: only commits do)
    #[arg(long)]
    allow_dirty: bool,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.queue(&args.queue)?;
    let lanes: Vec<String> = if args.lanes.is_empty() {
        let branch = Repo::branch_at(env.cwd())?.ok_or_else(|| {
            Error::refused("HEAD is detached here, so there is no lane to mark")
                .with_help("name the lane: `fleet ready LANE`")
        })?;
        if branch == ctx.target() {
            return Err(Error::usage(format!(
                "this checkout is on `{branch}`, the target branch, not on a lane"
            ))
            .with_help(
                "run `fleet ready` in the lane's worktree, or name the lane: `fleet ready LANE`",
            ));
        }
        vec![branch]
    } else {
        args.lanes
    };
    left_behind(&ctx, &lanes, args.allow_dirty)?;
    let log = args.log.map(|l| env.cwd().join(l));
    let worker = args
        .exit_code
        .map(|code| WorkerTest::record(&ctx.repo, code, log.as_deref()))
        .transpose()?;
    queue.publish_lanes(&ctx, &lanes, &crate::render::term::TermUi::plain())?;
    let marked = queue.ready(&ctx, &lanes, worker)?;
    if args.out.json {
        render::json(&marked);
    } else {
        for lane in &marked {
            render::ok(&format!("{lane} is ready to land"));
        }
    }
    Ok(0)
}

/// Uncommitted work in a lane's worktree would not land: refused unless `--allow-dirty`,
/// which turns it into a warning.
fn left_behind(ctx: &fleet::context::Context, lanes: &[String], allow_dirty: bool) -> Result<()> {
    let prefix = ctx.config.lanes.prefix.as_str();
    let mut dirty = Vec::new();
    for lane in lanes {
        let branch =
            fleet::lanes::resolve_branch(&ctx.repo, prefix, lane)?.unwrap_or_else(|| lane.clone());
        dirty.extend(fleet::worktree::uncommitted(ctx, &branch)?);
    }
    if dirty.is_empty() {
        return Ok(());
    }
    let what = format!(
        "uncommitted changes or untracked files would not land (only commits do):\n  {}",
        dirty.join("\n  ")
    );
    if allow_dirty {
        render::warn(&what);
        return Ok(());
    }
    Err(Error::refused(what).with_help(
        "commit them (`git add -A && git commit`) or remove them, or pass --allow-dirty to mark the lane ready without them",
    ))
}
