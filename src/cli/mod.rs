//! The command line: `fleet [-C DIR] COMMAND`. Parsing only. Each command's flags and
//! help sit in its own file under `src/commands/`, next to the code that runs it; the
//! flags several commands share are in [`args`].

pub mod args;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands::{
    completions, config, demo, doctor, drain, gate, hook, hooks, init, land, lint, plans,
    preflight, ready, recover, report, revert, run, status, task, track, untrack, verify, watchdog,
    worktree,
};

#[derive(Debug, Parser)]
#[command(
    name = "fleet",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("FLEET_COMMIT"), ")"),
    about = "Git-native worktrees, landing and merge gate for teams of coding agents",
    long_about = "fleet gives each agent its own git worktree and branch (nested repositories \
                  included), keeps the shared checkout out of reach, and lands finished work \
                  through a test gate.",
    after_long_help = "Examples:\n  fleet init\n  cd \"$(fleet worktree new task-42)\"\n  fleet preflight\n  fleet worktree list\n\nExit codes: 0 ok, 1 refused or check failed, 2 usage or configuration error, 3 environment problem."
)]
pub struct Cli {
    /// Run as if started in DIR
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// Every command, in the order `fleet --help` lists them.
#[derive(Debug, Subcommand)]
pub enum Command {
    Init(init::Args),
    Config(config::Args),
    #[command(subcommand)]
    Worktree(worktree::WorktreeCommand),
    Preflight(preflight::Args),
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    Hook(hook::Args),
    Watchdog(watchdog::Args),
    Recover(recover::Args),
    Doctor(doctor::Args),
    Lint(lint::Args),
    Gate(gate::Args),
    Track(track::Args),
    Untrack(untrack::Args),
    Ready(ready::Args),
    Status(status::Args),
    Land(land::Args),
    Revert(revert::Args),
    Verify(verify::Args),
    Run(run::Args),
    #[command(subcommand)]
    Task(task::TaskCommand),
    Drain(drain::Args),
    Plans(plans::Args),
    Report(report::Args),
    Demo(demo::Args),
    Completions(completions::Args),
}

/// Whether the command line asks for `--json`, looked at before (and whether or not)
/// clap accepts it, so that a usage error is reported as JSON too. Arguments after `--`
/// belong to a wrapped command (`fleet run -- tool --json`), not to fleet.
pub fn wants_json(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    args.into_iter()
        .skip(1)
        .take_while(|arg| arg != "--")
        .any(|arg| arg == "--json")
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own consistency checks (ids, `requires`, `conflicts_with`, short flags),
    /// which it otherwise runs only when a command is parsed in a debug build.
    #[test]
    fn cli_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
