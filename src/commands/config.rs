//! `fleet config`: the effective configuration and where it came from.

use std::path::Path;

use serde::Serialize;

use fleet::config::Config;
use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::Output;
use crate::render;

/// Show the effective configuration
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Show the effective configuration: fleet.toml from the shared checkout merged \
                  over the defaults, and which file it came from.",
    after_long_help = "Examples:\n  fleet config\n  fleet config --json | jq .lanes.target\n  fleet config --default"
)]
pub struct Args {
    /// Show the built-in defaults, ignoring fleet.toml
    #[arg(long)]
    default: bool,
    #[command(flatten)]
    out: Output,
}

#[derive(Serialize)]
struct ConfigReport<'a> {
    source: Option<&'a Path>,
    config: &'a Config,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (config, source) = if args.default {
        (Config::default(), None)
    } else {
        let ctx = env.context()?;
        (ctx.config, ctx.config_path)
    };
    if args.out.json {
        render::json(&ConfigReport {
            source: source.as_deref(),
            config: &config,
        });
    } else {
        let from = source.map_or_else(
            || "built-in defaults".to_string(),
            |p| p.display().to_string(),
        );
        println!("# effective configuration (from {from})");
        print!("{}", config.to_toml());
    }
    Ok(0)
}
