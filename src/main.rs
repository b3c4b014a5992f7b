//! Parse arguments, call the library, map errors to the documented exit codes.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`fleet ... | head`) like other Unix tools, instead
    // of panicking in println!.
    // SAFETY: resetting a signal disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = fleet::cli::Cli::parse();
    // fleet finds repositories from the current folder (or -C), never from GIT_DIR and
    // friends: gix would apply them to every repository it opens. `fleet hook` keeps
    // them (git runs hooks with them, and the hook reads GIT_DIR), and so does `fleet
    // run`, which opens no repository; preflight judges the values it was started with,
    // and says so itself.
    // `fleet run` is a wrapper: its command gets the environment fleet was given.
    if !matches!(
        cli.command,
        fleet::cli::Command::Hook { .. } | fleet::cli::Command::Run { .. }
    ) {
        // `lint --staged` in a pre-commit hook must read the index git hands the hook
        // (`git commit -a` commits a temporary one), and lint reads only that one repository.
        let keep: &[&str] = match cli.command {
            fleet::cli::Command::Lint { .. } => &["GIT_INDEX_FILE"],
            _ => &[],
        };
        // SAFETY: no other thread has started yet.
        let taken = unsafe { fleet::repo_env::take(keep) };
        let preflight = matches!(cli.command, fleet::cli::Command::Preflight { .. });
        if !taken.is_empty() && !preflight {
            let cwd = cli
                .dir
                .clone()
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_default();
            if let Some(warning) = fleet::repo_env::ignored_warning(taken, &cwd) {
                fleet::ui::warn(&warning);
            }
        }
    }
    match fleet::commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            fleet::ui::error(&err);
            ExitCode::from(err.kind.exit_code())
        }
    }
}
