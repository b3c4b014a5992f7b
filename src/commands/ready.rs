//! `fleet ready`: mark lanes ready to land, optionally with the worker's own test run.

use std::path::{Path, PathBuf};

use fleet::context::Context;
use fleet::error::{Error, Result};
use fleet::lanes;

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
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let ctx = env.queue(&args.queue)?;
    let lanes: Vec<String> = if args.lanes.is_empty() {
        let branch = current_branch(env.cwd())?;
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
    let log = args.log.map(|l| env.cwd().join(l));
    let worker = match args.exit_code {
        None => None,
        Some(code) => Some(lanes::WorkerTest {
            exit_code: code,
            log: log
                .as_deref()
                .map(|l| keep_worker_log(&ctx, l))
                .transpose()?,
            at: lanes::now(),
        }),
    };
    if let Some(remote) = &ctx.remote {
        super::refresh(&ctx)?;
        publish_lanes(&ctx, remote, &lanes)?;
    }
    let marked = lanes::ready(&ctx, &lanes, worker)?;
    if args.out.json {
        render::json(&marked);
    } else {
        for lane in &marked {
            render::ok(&format!("{lane} is ready to land"));
        }
    }
    Ok(0)
}

/// Push each tracked lane's branch to the queue's `remote`, so every machine lands what
/// this one marked. Belongs with the queue (queue.rs); kept here until it moves.
fn publish_lanes(ctx: &Context, remote: &str, given: &[String]) -> Result<()> {
    let (registry, _) = lanes::load(ctx)?;
    let prefix = ctx.config.lanes.prefix.as_str();
    for name in given {
        if let Some(branch) = lanes::lane_name(&registry, prefix, name) {
            fleet::remote::publish_branch(ctx, remote, &branch, &render::term::TermUi::plain())?;
        }
    }
    Ok(())
}

/// The branch checked out where the user stands. Belongs in the git layer; kept here
/// until it moves.
fn current_branch(cwd: &Path) -> Result<String> {
    let repo = fleet::git::Repo::discover(cwd)?;
    repo.head_branch()?.ok_or_else(|| {
        Error::refused("HEAD is detached here, so there is no lane to mark")
            .with_help("name the lane: `fleet ready LANE`")
    })
}

/// Copy a worker's log into the common git dir, where every worktree can read it.
/// Belongs with the other files fleet keeps there (state.rs); kept here until it moves.
fn keep_worker_log(ctx: &Context, log: &Path) -> Result<String> {
    let dir = ctx.repo.common_dir().join("fleet/logs");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let name = format!(
        "worker-{}-{}.log",
        log.file_stem().unwrap_or_default().to_string_lossy(),
        lanes::now()
    );
    let dest = dir.join(name);
    std::fs::copy(log, &dest).map_err(|e| {
        Error::usage(format!("cannot read the log {}: {e}", log.display()))
            .with_help("pass an existing file to --log")
    })?;
    Ok(dest.display().to_string())
}
