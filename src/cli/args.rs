//! Flags several commands share, flattened into their `Args`, and the value parsers
//! they use. A flag defined here reads the same in every command's help.

use clap::Args;

/// `--json`: the answer as one JSON document on stdout instead of text.
#[derive(Debug, Args, Clone, Copy)]
pub struct Output {
    /// Print one JSON document on stdout
    #[arg(long)]
    pub json: bool,
}

/// `--remote`: where the queue is.
#[derive(Debug, Args, Clone)]
pub struct QueueArgs {
    /// Use the lanes, target and receipts of this git remote, shared by every machine
    /// that pushes to it (default: [lanes] remote in fleet.toml, else this repository)
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
}

/// The landing flags `land` and `revert` share. The help here is `land`'s; `revert`
/// rewords it for its one lane (`mut_arg` on its `Args`).
#[derive(Debug, Args, Clone, Copy)]
pub struct LandFlags {
    /// Do not ask before landing
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Build and check candidates; run no gate, move nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Let lanes touch [gate] protected paths
    #[arg(long)]
    pub allow_protected: bool,
}

/// Parse `30s`, `5m`, `1h 30m` (for clap: a bad value is a usage error, exit 2).
pub fn duration(text: &str) -> Result<std::time::Duration, String> {
    fleet::config::parse_duration(text)
}
