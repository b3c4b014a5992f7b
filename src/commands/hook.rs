//! `fleet hook NAME ARGS...`: what the installed hook scripts call when they cannot
//! decide alone; the guard's entry point does the rest.

use fleet::error::Result;

use super::CommandEnv;

/// Entry point the installed hook scripts call
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Entry point the installed hook scripts call when they cannot decide alone: \
                  pre-commit, prepare-commit-msg, reference-transaction, post-checkout. \
                  Refusals and FLEET_ALLOW_SHARED uses are logged to <git common dir>/fleet/guard.log; \
                  checkouts of a shared checkout to <git common dir>/fleet/drift.log.",
    after_long_help = "Examples:\n  echo \"$old $new refs/heads/main\" | fleet hook reference-transaction prepared"
)]
pub struct Args {
    /// The hook's name
    #[arg(value_name = "NAME")]
    name: String,
    /// The arguments git gave the hook
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    args: Vec<String>,
}

/// git runs the hook in the repository it is working on, so the hook finds it itself
/// (from the current folder and git's environment), not from `env`.
pub fn run(_env: &CommandEnv, args: Args) -> Result<u8> {
    fleet::guard::entry::run(
        &args.name,
        &args.args,
        &crate::render::term::TermUi::plain(),
    )
}
