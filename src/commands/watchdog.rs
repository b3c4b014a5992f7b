//! `fleet watchdog`: check the shared checkouts for drift, snapshot dirty ones, and
//! with `--restore` put drifted ones back; once or in a loop.

use std::time::Duration;

use fleet::error::Result;
use fleet::guard::watchdog::{self, Verdict};

use super::CommandEnv;
use crate::cli::args::duration;
use crate::render;

/// Find drifted shared checkouts, snapshot dirty ones, put them back without losing work
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Check every shared checkout (outer and nested). A checkout is drifted when its \
                  HEAD is not its branch (another branch, or detached). A dirty checkout is \
                  snapshotted at every check (tracked, staged and untracked changes, not ignored \
                  files) as a commit under refs/fleet/snapshots/, only when it differs from the \
                  last snapshot; snapshots older than [guard] snapshot_keep are pruned, and \
                  `fleet recover` turns one into a branch. With --restore, a drift older than \
                  the grace period is put back: uncommitted changes are first saved on a rescue \
                  branch (<prefix>rescue/<time>), and so are commits a drifted HEAD holds on \
                  no branch, then the files move with a two-tree merge that \
                  carries local changes, then HEAD. A rebase, merge, cherry-pick, bisect or \
                  index.lock in progress is left alone. Never uses git stash, never resets. \
                  Exits 1 when a checkout is drifted, busy or stuck.",
    after_long_help = "Examples:\n  fleet watchdog --once                       # cron / systemd timer\n  fleet watchdog --once --restore --grace 5m\n  fleet watchdog --interval 1m --restore      # loop until Ctrl-C\n  fleet watchdog --once --json                # one JSON line per checkout"
)]
pub struct Args {
    /// Check once and exit (for cron and systemd timers)
    #[arg(long, conflicts_with = "interval")]
    once: bool,
    /// Time between checks when looping
    #[arg(long, value_name = "DUR", value_parser = duration, default_value = "1m")]
    interval: Duration,
    /// Put drifted checkouts back once the grace period has passed
    #[arg(long)]
    restore: bool,
    /// How long a drift may last before --restore acts
    #[arg(long, value_name = "DUR", value_parser = duration, default_value = "5m")]
    grace: Duration,
    /// One JSON line per checkout and check
    #[arg(long)]
    json: bool,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let opts = watchdog::Options {
        restore: args.restore,
        grace: args.grace,
    };
    loop {
        // Re-read each time: the configuration and the nested repositories may change.
        let ctx = env.context()?;
        let findings = watchdog::check(&ctx, opts, &render::term::TermUi::plain())?;
        let mut code = 0;
        for f in &findings {
            if !matches!(f.verdict, Verdict::Ok | Verdict::Restored) {
                code = 1;
            }
            if args.json {
                println!("{}", serde_json::to_string(f).unwrap_or_default());
                continue;
            }
            let mut line = format!(
                "{:<9} {} ({}; head {}): {}",
                render::json_word(&f.verdict),
                f.checkout.display(),
                f.branch,
                f.head,
                f.detail
            );
            if let Some(s) = &f.snapshot {
                line.push_str(&format!(
                    "; snapshot {}",
                    s.trim_start_matches(watchdog::SNAPSHOTS)
                ));
            }
            render::answer(&line);
        }
        if args.once {
            return Ok(code);
        }
        std::thread::sleep(args.interval);
    }
}
