//! Parse arguments, call the library, map errors to the documented exit codes.
//!
//! The command layer lives here, in the binary, not in the library: `cli` parses,
//! `commands` runs one command each, `render` is what a person reads. The library
//! cannot reach them, so it reports through returned values and the reporter
//! `fleet::report::Ui` (re-exported as `land::Ui`) that a command passes in.

mod cli;
mod commands;
mod render;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // A guardian of a process group is this binary re-executed: it never returns.
    fleet::proc::guardian::enter_if_asked();
    // Die quietly on a closed pipe (`fleet ... | head`) like other Unix tools, instead
    // of panicking in println!.
    // SAFETY: resetting a signal disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let json = cli::wants_json(std::env::args_os());
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(render::parse_error(err, json)),
    };
    ignore_repo_overrides(&cli);
    match commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            render::failure(&err, json);
            ExitCode::from(err.kind.exit_code())
        }
    }
}

/// fleet finds repositories from the current folder (or -C), never from GIT_DIR and
/// friends: gix would apply them to every repository it opens, so they are taken out of
/// the environment before anything runs, with a warning naming those that would have
/// mattered. `fleet run` keeps them all (a wrapper: its command gets the environment
/// fleet was given). `fleet hook` keeps those that say where git is working (git runs
/// hooks with them, and the hook reads GIT_DIR; a commit made with GIT_OBJECT_DIRECTORY
/// set is only readable there) but not `GIT_NAMESPACE`: git applies a namespace to the
/// refs it serves (upload-pack, receive-pack), while `git switch` and `git commit` move
/// the real HEAD and branches; gix would apply it to every read of the guard, which then
/// finds no HEAD and cannot put the files back. That one is dropped silently: the hook's
/// text reaches the user through git, and nothing is amiss.
/// `fleet lint` keeps `GIT_INDEX_FILE` (as a pre-commit hook of `git commit -a`,
/// `--staged` must read the temporary index git hands the hook, in that one repository);
/// preflight judges the values it was started with, and says so itself.
fn ignore_repo_overrides(cli: &cli::Cli) {
    use cli::Command;
    let for_hook: Vec<&str> = fleet::repo_env::OVERRIDES
        .into_iter()
        .filter(|var| *var != "GIT_NAMESPACE")
        .collect();
    let keep: &[&str] = match cli.command {
        Command::Run(_) => return,
        Command::Hook(_) => &for_hook,
        Command::Lint(_) => &["GIT_INDEX_FILE"],
        _ => &[],
    };
    // SAFETY: called first thing in main, before any other thread has started.
    let taken = unsafe { fleet::repo_env::take(keep) };
    if taken.is_empty() || matches!(cli.command, Command::Preflight(_) | Command::Hook(_)) {
        return;
    }
    let cwd = cli
        .dir
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    if let Some(warning) = fleet::repo_env::ignored_warning(taken, &cwd) {
        render::warn(&warning);
    }
}
