//! `fleet hooks install|uninstall|status`: the guard hooks in every repository, and
//! the per-repository report `fleet init` shows too.

use anstyle::{AnsiColor, Style};

use fleet::error::Result;
use fleet::guard::hooks::{self, HookState, RepoReport};

use super::CommandEnv;
use crate::cli::args::Output;
use crate::render;

/// Install, remove or inspect the guard hooks
#[derive(Debug, clap::Subcommand)]
#[command(
    long_about = "The guard hooks refuse commits, branch switches and resets in a shared \
                  checkout (outer or nested), and any move of a guarded branch from anywhere \
                  (`git update-ref`, `git branch -f`, `git push . HEAD:main`), --no-verify or \
                  not. They go into the hooks folder git actually uses (core.hooksPath \
                  honoured) of the outer repository and every nested one. A hook already \
                  there keeps running, first, with the same arguments and stdin.",
    after_long_help = "Examples:\n  fleet hooks install\n  fleet hooks status --json\n  fleet hooks uninstall   # puts back exactly what was there\n  FLEET_ALLOW_SHARED=1 git commit ...   # a human getting past the guard on purpose (logged)"
)]
pub enum HooksCommand {
    /// Install the guard hooks, chaining any hook already there
    #[command(after_long_help = "Examples:\n  fleet hooks install\n  fleet hooks install --json")]
    Install {
        #[command(flatten)]
        out: Output,
    },
    /// Remove the guard hooks, restoring exactly what was there before
    #[command(after_long_help = "Examples:\n  fleet hooks uninstall")]
    Uninstall {
        #[command(flatten)]
        out: Output,
    },
    /// Per repository: which hooks are installed, chained, stale or missing
    #[command(
        long_about = "Per repository and hooks folder: which guard hooks are installed, chained (a \
                      hook that was there before runs first), stale (written by another fleet \
                      version, or naming a fleet binary that is gone), disabled (no run bit: git \
                      skips it) or missing. Exits 1 unless \
                      every hook is installed or chained.",
        after_long_help = "Examples:\n  fleet hooks status\n  fleet hooks status --json | jq '.[].dirs[].hooks[] | select(.state != \"installed\")'"
    )]
    Status {
        #[command(flatten)]
        out: Output,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Install,
    Uninstall,
    Status,
}

pub fn run(env: &CommandEnv, cmd: HooksCommand) -> Result<u8> {
    let (action, out) = match cmd {
        HooksCommand::Install { out } => (Action::Install, out),
        HooksCommand::Uninstall { out } => (Action::Uninstall, out),
        HooksCommand::Status { out } => (Action::Status, out),
    };
    let ctx = env.context()?;
    let reports = match action {
        Action::Install => hooks::install(&ctx)?,
        Action::Uninstall => hooks::uninstall(&ctx)?,
        Action::Status => hooks::status(&ctx)?,
    };
    let healthy = reports.iter().all(|r| {
        r.dirs.iter().all(|d| {
            d.hooks
                .iter()
                .all(|h| matches!(h.state, HookState::Installed | HookState::Chained))
        })
    });
    if out.json {
        render::json(&reports);
    } else {
        render(&reports, action);
    }
    Ok(u8::from(action == Action::Status && !healthy))
}

/// Per repository and hooks folder, one line per hook with its state (no state word
/// after an uninstall: the detail says what was put back).
pub fn render(reports: &[RepoReport], action: Action) {
    for report in reports {
        let refs = if report.guarded_refs.is_empty() {
            String::new()
        } else {
            format!(" (guarding {})", report.guarded_refs.join(", "))
        };
        render::answer(&format!("repo {}{refs}", report.repo.display()));
        for dir in &report.dirs {
            render::answer(&format!("  {}", dir.dir.display()));
            for hook in &dir.hooks {
                let (word, colour) = match (action, hook.state) {
                    (Action::Uninstall, _) => ("", AnsiColor::Cyan),
                    (_, HookState::Installed) => ("installed", AnsiColor::Green),
                    (_, HookState::Chained) => ("chained", AnsiColor::Green),
                    (_, HookState::Stale) => ("stale", AnsiColor::Yellow),
                    (_, HookState::Missing) => ("missing", AnsiColor::Red),
                    (_, HookState::Disabled) => ("disabled", AnsiColor::Red),
                };
                // The detail only when it says more than the state word.
                let detail = if hook.detail == word {
                    ""
                } else {
                    &hook.detail
                };
                let word = render::paint(
                    Style::new().fg_color(Some(colour.into())),
                    &format!("{word:<9}"),
                );
                let line = format!("    {:<22} {word} {detail}", hook.name);
                render::answer(line.trim_end());
            }
        }
        for warning in &report.warnings {
            render::warn(warning);
        }
    }
}
