//! `fleet doctor`: report-only health checks, each with a verdict and its fix.

use anstyle::{AnsiColor, Style};

use fleet::error::Result;
use fleet::guard::doctor::{self, Verdict};

use super::CommandEnv;
use crate::cli::args::Output;
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
                  running tasks whose holder is dead or whose lease expired; a running drainer \
                  older than its binary (dead drainer records are removed); process groups that \
                  outlived the fleet that started them. Exits 1 when any check fails.",
    after_long_help = "Examples:\n  fleet doctor\n  fleet doctor --json | jq '.[] | select(.verdict == \"fail\")'"
)]
pub struct Args {
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.configured_queue()?;
    let checks = doctor::run(&ctx, &queue)?;
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
