//! `fleet doctor`: report-only health checks, each with a verdict and its fix.

use anstyle::{AnsiColor, Style};

use fleet::context::Context;
use fleet::error::{Error, Result};
use fleet::guard::doctor::{self, Check, Verdict};
use fleet::queue::Queue;
use fleet::tasks::Store;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Health checks: guard fires, hooks wired, stale locks, stale daemons, orphans
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Report-only health checks, each with a name, a verdict and the fix: guard hooks \
                  installed and executable in every repository; the guard actually fires (a commit, a \
                  --no-verify commit and a switch in the shared checkout, and an update-ref of \
                  the target from a temporary agent worktree must each be refused; they run in \
                  throwaway state and cannot complete, so nothing is left behind); the hook \
                  scripts name an existing fleet binary; relative core.hooksPath and symlinked-path \
                  traps; stale lock files no process holds; prunable worktrees; lanes whose branches \
                  are gone, and idle claimed lanes; a looping `fleet watchdog` older than its \
                  binary; tasks claimed but never started past the claim grace; claimed or \
                  running tasks whose holder is dead or whose lease expired; task refs no listing \
                  can read (so no drainer runs them); tasks waiting on one that cannot succeed; a \
                  running drainer older than its binary (dead drainer records are removed); \
                  process groups that outlived the fleet that started them. Exits 1 when any \
                  check fails.\n\n\
                  With --remote NAME the task checks read the queue on that remote, shared by \
                  every machine that drains it: fetched once (as `fleet task list --remote` \
                  fetches it), and nothing is pushed, so no ref on the remote moves. A holder on \
                  another machine is judged by its lease, since its pid cannot be checked from \
                  here. The other checks (hooks, locks, lanes, drainers, process groups) are of \
                  this repository, as without --remote. A remote that is not there exits 2, one that \
                  cannot be fetched exits 3. Without --remote, a [lanes] remote in fleet.toml is \
                  checked the same way, except that a failed fetch is the failing check \
                  remote-queue and the task checks read what was last fetched.",
    after_long_help = "Examples:\n  fleet doctor\n  fleet doctor --json | jq '.[] | select(.verdict == \"fail\")'\n  fleet doctor --remote origin\n  fleet doctor --remote origin --json | jq '.[] | select(.name == \"unreadable-tasks\")'",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

/// The help of doctor's `--remote`.
const REMOTE_HELP: &str = "Check the task queue on this git remote (fetched once; nothing is pushed), \
                           as every machine draining it sees it (default: [lanes] remote in \
                           fleet.toml, else this repository's)";

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue, fetched) = match &args.queue.remote {
        // Named on the command line: it must exist and be fetched, or nothing is checked.
        Some(_) => {
            let (ctx, queue) = env.queue(&args.queue)?;
            fetch_queue(&ctx, &queue)?;
            (ctx, queue, Ok(()))
        }
        // The configured one (`[lanes] remote`): fetched too, but one that cannot be is a
        // failing check of its own, and the rest read the queue as last fetched.
        None => {
            let (ctx, queue) = env.configured_queue()?;
            let fetched = match queue.remote() {
                Some(remote) => fleet::remote::check_exists(&ctx.repo, remote)
                    .and_then(|()| fetch_queue(&ctx, &queue)),
                None => Ok(()),
            };
            (ctx, queue, fetched)
        }
    };
    let mut checks = doctor::run(&ctx, &queue)?;
    if let Some(remote) = queue.remote() {
        checks.insert(0, remote_queue(remote, fetched));
    }
    let failed = checks.iter().any(|c| c.verdict == Verdict::Fail);
    if args.out.json {
        render::json(&checks);
        return Ok(u8::from(failed));
    }
    for c in &checks {
        let (word, colour) = match c.verdict {
            Verdict::Ok => ("ok", AnsiColor::Green),
            Verdict::Warn => ("warn", AnsiColor::Yellow),
            Verdict::Fail => ("FAIL", AnsiColor::Red),
        };
        let word = render::paint(
            Style::new().fg_color(Some(colour.into())),
            &format!("{word:<4}"),
        );
        render::answer(&format!("{word} {:<20} {}", c.name, c.detail));
        if !c.fix.is_empty() && c.verdict != Verdict::Ok {
            render::answer(&format!("     {:<20} fix: {}", "", c.fix));
        }
    }
    Ok(u8::from(failed))
}

/// Which queue the task checks read: the remote's, fetched just now, or, when the
/// configured remote could not be fetched, what was last fetched (failing).
fn remote_queue(remote: &str, fetched: Result<()>) -> Check {
    match fetched {
        Ok(()) => Check {
            name: "remote-queue",
            verdict: Verdict::Ok,
            detail: format!(
                "the task checks read the queue on {remote}, fetched just now (nothing pushed)"
            ),
            fix: String::new(),
        },
        Err(e) => Check {
            name: "remote-queue",
            verdict: Verdict::Fail,
            detail: format!(
                "{}; the task checks read the queue on {remote} as last fetched",
                e.message
            ),
            fix: e.help.unwrap_or_default(),
        },
    }
}

/// Fetch the remote's queue as `fleet task list --remote` does (tried again after a
/// blip), or the error naming the remote and what to do.
fn fetch_queue(ctx: &Context, queue: &Queue) -> Result<()> {
    let Some(remote) = queue.remote() else {
        return Ok(());
    };
    Store::new(ctx, queue).refresh().map_err(|e| {
        Error::new(
            e.kind,
            format!(
                "cannot check the task queue on remote `{remote}`: it could not be fetched: {}",
                e.message
            ),
        )
        .with_help(format!(
            "`git fetch {remote}` shows why and `git remote get-url {remote}` where it points; \
             fix the URL (`git remote set-url {remote} URL`) or the access, then run this again. \
             `fleet doctor` without --remote runs the checks of this repository alone"
        ))
    })
}
