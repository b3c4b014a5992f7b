//! One module per command: its flags (`Args`), its call into the library and its text
//! and JSON output, side by side. [`run`] dispatches a parsed command line; every
//! command starts from one [`CommandEnv`].

pub mod completions;
pub mod config;
pub mod demo;
pub mod doctor;
pub mod drain;
pub mod gate;
pub mod hook;
pub mod hooks;
pub mod init;
pub mod land;
pub mod lint;
pub mod plans;
pub mod preflight;
pub mod ready;
pub mod recover;
pub mod report;
pub mod revert;
pub mod run;
pub mod status;
pub mod task;
pub mod track;
pub mod untrack;
pub mod verify;
pub mod watchdog;
pub mod worktree;

use std::path::{Path, PathBuf};

use fleet::context::Context;
use fleet::error::{Error, Result};
use fleet::queue::Queue;

use crate::cli::args::QueueArgs;
use crate::cli::{Cli, Command};
use crate::render;

/// Run a parsed command line; the returned code is the process exit code.
pub fn run(cli: Cli) -> Result<u8> {
    let env = CommandEnv::new(cli.dir)?;
    match cli.command {
        Command::Init(args) => init::run(&env, args),
        Command::Config(args) => config::run(&env, args),
        Command::Worktree(cmd) => worktree::run(&env, cmd),
        Command::Preflight(args) => preflight::run(&env, args),
        Command::Hooks(cmd) => hooks::run(&env, cmd),
        Command::Hook(args) => hook::run(&env, args),
        Command::Watchdog(args) => watchdog::run(&env, args),
        Command::Recover(args) => recover::run(&env, args),
        Command::Doctor(args) => doctor::run(&env, args),
        Command::Lint(args) => lint::run(&env, args),
        Command::Gate(args) => gate::run(&env, args),
        Command::Track(args) => track::run(&env, args),
        Command::Untrack(args) => untrack::run(&env, args),
        Command::Ready(args) => ready::run(&env, args),
        Command::Status(args) => status::run(&env, args),
        Command::Land(args) => land::run(&env, args),
        Command::Revert(args) => revert::run(&env, args),
        Command::Verify(args) => verify::run(&env, args),
        Command::Run(args) => run::run(&env, args),
        Command::Task(cmd) => task::run(&env, cmd),
        Command::Drain(args) => drain::run(&env, args),
        Command::Plans(args) => plans::run(&env, args),
        Command::Report(args) => report::run(&env, args),
        Command::Demo(args) => demo::run(&env, args),
        Command::Completions(args) => completions::run(&env, args),
    }
}

/// What every command starts from (jj's `CommandHelper`): the folder it runs in (`-C`,
/// else the current one), and from there the [`Context`] and the queue.
pub struct CommandEnv {
    cwd: PathBuf,
}

impl CommandEnv {
    /// A `-C` folder must exist; checked before any command runs, `fleet hook` too.
    fn new(dir: Option<PathBuf>) -> Result<CommandEnv> {
        let cwd = match dir {
            Some(dir) if !dir.is_dir() => {
                return Err(
                    Error::usage(format!("-C {}: no such folder", dir.display()))
                        .with_help("give -C a folder that exists"),
                );
            }
            Some(dir) => dir,
            None => std::env::current_dir()
                .map_err(|e| Error::env(format!("cannot read the current folder: {e}")))?,
        };
        Ok(CommandEnv { cwd })
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The repository, shared checkout and configuration around the folder, the
    /// guard's branch list brought up to date first ([`sync_guard`]).
    pub fn context(&self) -> Result<Context> {
        let ctx = Context::find(&self.cwd)?;
        sync_guard(&ctx);
        Ok(ctx)
    }

    /// The guard step alone ([`sync_guard`]) for the project around `dir`, if there is
    /// one: for preflight, which answers (blind) outside any project too.
    pub fn sync_guard_at(&self, dir: &Path) {
        if let Ok(ctx) = Context::find(dir) {
            sync_guard(&ctx);
        }
    }

    /// The context and the queue `--remote` names (else the configured one), which
    /// must exist.
    pub fn queue(&self, args: &QueueArgs) -> Result<(Context, Queue)> {
        let ctx = self.context()?;
        let queue = Queue::choose(&ctx, args.remote.clone())?;
        Ok((ctx, queue))
    }

    /// The context and its queue, fetched first when it is on a remote, so the command
    /// sees what every machine pushed (a local queue is already current).
    pub fn refreshed_queue(&self, args: &QueueArgs) -> Result<(Context, Queue)> {
        let (ctx, queue) = self.queue(args)?;
        queue.refresh(&ctx)?;
        Ok((ctx, queue))
    }

    /// For the commands that take no `--remote`: the context and the configured queue.
    pub fn configured_queue(&self) -> Result<(Context, Queue)> {
        let ctx = self.context()?;
        let queue = Queue::configured(&ctx);
        Ok((ctx, queue))
    }
}

/// The guard step: add a target changed in `fleet.toml` to the guard's branch list, and
/// give submodules checked out since install the hooks. Every command runs this before
/// its work, whatever it does: the hook script reads that list itself, without starting
/// fleet, so a new target (or submodule) stays unguarded until some fleet command
/// covers it. A failure is a warning; the command goes on.
fn sync_guard(ctx: &Context) {
    if let Err(e) = fleet::guard::sync_target(ctx) {
        render::warn(&format!(
            "the guard step failed, so part of the project may be unguarded: {}",
            e.message
        ));
    }
}
