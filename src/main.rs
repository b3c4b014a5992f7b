//! Parse arguments, call the library, map errors to the documented exit codes.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = fleet::cli::Cli::parse();
    match fleet::commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            fleet::ui::error(&err);
            ExitCode::from(err.kind.exit_code())
        }
    }
}
