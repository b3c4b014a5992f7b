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
    match fleet::commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            fleet::ui::error(&err);
            ExitCode::from(err.kind.exit_code())
        }
    }
}
