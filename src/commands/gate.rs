//! `fleet gate`: the CI merge-gate step on a candidate (lint of new code, protected
//! paths, the gate commands), with one summary.

use std::path::PathBuf;

use fleet::error::{Error, Result};
use fleet::gate::ci;

use super::CommandEnv;
use crate::cli::args::Output;
use crate::render;

/// The CI merge-gate step: lint new code, protected paths, gate commands
#[derive(Debug, clap::Args)]
#[command(
    long_about = "The one step a CI merge-gate job runs on a candidate (a merge-queue group, a \
                  merge request pipeline, a lane), in its checkout: the spawn lint over the lines \
                  added since the base; protected paths and forbidden markers (refused unless \
                  --allow-protected, e.g. when a reviewer approved); then the gate commands, each \
                  in its own process group with the gate's timeout. Every rule comes from the \
                  base's fleet.toml, never the candidate's. One summary; exit 1 when anything \
                  fails. The default base is where HEAD left the [lanes] target branch.",
    after_long_help = "Examples:\n  fleet gate --base origin/main\n  fleet gate --base \"$GITHUB_BASE_REF\" --junit gate.xml\n  fleet gate --base origin/main --allow-protected   # a reviewer approved the .ci change\n  fleet gate --json"
)]
pub struct Args {
    /// The commit the candidate is tested against (default: merge base with the target)
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// Approve changes to [gate] protected paths
    #[arg(long)]
    allow_protected: bool,
    /// Also write the result as JUnit XML
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let json = args.out.json;
    let opts = ci::Options {
        base: args.base,
        allow_protected: args.allow_protected,
        junit: args.junit,
    };
    let summary = ci::run(env.cwd(), &opts, &mut |step| {
        if !json {
            render::note(&format!("fleet gate: {step} ..."));
        }
    })?;
    if json {
        render::json(&summary);
        return Ok(u8::from(!summary.passed));
    }
    render::findings::findings(&summary.findings);
    for step in &summary.steps {
        let word = if step.passed { "ok  " } else { "FAIL" };
        render::answer(&format!("{word} {:<28} {}", step.name, step.detail));
        for problem in &step.problems {
            render::answer(&format!("       {problem}"));
        }
    }
    if let Some(log) = &summary.log {
        if !summary.passed {
            render::answer(&fleet::gate::log_tail(log, 40));
        }
        render::note(&format!("gate log: {}", render::short_path(log, env.cwd())));
    }
    if summary.passed {
        render::ok(&format!(
            "the candidate {} passed the gate",
            render::short_id(&summary.head)
        ));
    } else {
        render::error(&Error::refused(format!(
            "the candidate {} did not pass the gate",
            render::short_id(&summary.head)
        )));
    }
    Ok(u8::from(!summary.passed))
}
