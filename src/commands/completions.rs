//! `fleet completions`: shell completions and the man page, generated from the same
//! clap definition as `--help`.

use clap::CommandFactory;
use clap_complete::Shell;
use serde::Serialize;

use fleet::error::{Error, Result};

use super::CommandEnv;
use crate::cli::Cli;
use crate::cli::args::Output;
use crate::render;

/// Print shell completions (or the man page) for fleet
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Print a completion script for SHELL on stdout, generated from the same \
                  definition as --help, so it always matches this binary's commands and \
                  flags. `man` prints fleet's man page (roff) instead.",
    after_long_help = "Examples:\n  fleet completions bash > ~/.local/share/bash-completion/completions/fleet\n  fleet completions zsh > \"${fpath[1]}/_fleet\"\n  fleet completions fish > ~/.config/fish/completions/fleet.fish\n  fleet completions man | man -l -"
)]
pub struct Args {
    /// bash, zsh, fish, elvish, powershell, or man
    #[arg(value_name = "SHELL", value_parser = ["bash", "zsh", "fish", "elvish", "powershell", "man"])]
    shell: String,
    #[command(flatten)]
    out: Output,
}

#[derive(Serialize)]
struct Script<'a> {
    shell: &'a str,
    script: String,
}

pub fn run(_env: &CommandEnv, args: Args) -> Result<u8> {
    let script = if args.shell == "man" {
        man_page()?
    } else {
        let shell: Shell = args
            .shell
            .parse()
            .map_err(|e| Error::usage(format!("unknown shell {:?}: {e}", args.shell)))?;
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "fleet", &mut out);
        String::from_utf8_lossy(&out).into_owned()
    };
    if args.out.json {
        render::json(&Script {
            shell: &args.shell,
            script,
        });
    } else {
        render::answer(script.trim_end());
    }
    Ok(0)
}

/// fleet's man page, in roff. It names the version without the commit, so the copy kept
/// in doc/ changes only when the commands do.
pub fn man_page() -> Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command().version(env!("CARGO_PKG_VERSION")))
        .render(&mut out)
        .map_err(|e| Error::env(format!("cannot render the man page: {e}")))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}
