//! `fleet init`: write fleet.toml if absent, record the shared checkout, install the
//! guard hooks.

use std::path::{Path, PathBuf};

use serde::Serialize;

use fleet::config;
use fleet::error::{Error, Result};
use fleet::guard::hooks::{self, RepoReport};

use super::CommandEnv;
use super::hooks::Action;
use crate::cli::args::Output;
use crate::render;

/// Write fleet.toml if absent and record this checkout as the shared one
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  fleet init\n  fleet init --print   # show the file it would write, change nothing"
)]
pub struct Args {
    /// Print the fleet.toml template instead of writing anything
    #[arg(long)]
    print: bool,
    #[command(flatten)]
    out: Output,
}

#[derive(Serialize)]
struct InitReport {
    shared_checkout: PathBuf,
    config: PathBuf,
    config_written: bool,
    /// The `[lanes] target` in force.
    target: String,
    recorded: PathBuf,
    hooks: Vec<RepoReport>,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    if args.print {
        // The branch this checkout has, where there is one to tell.
        let target = env
            .context()
            .ok()
            .and_then(|ctx| shared_branch(&ctx).ok())
            .unwrap_or_else(|| {
                fleet::config::Config::default()
                    .lanes
                    .target
                    .as_str()
                    .to_string()
            });
        print!("{}", config::template_for(&target));
        return Ok(0);
    }
    let ctx = env.context()?;
    // Refused hooks refuse the whole init: nothing written.
    hooks::check_install(&ctx)?;
    let config_path = ctx.shared.join(config::FILE_NAME);
    let target = if config_path.exists() {
        None
    } else {
        Some(shared_branch(&ctx)?)
    };
    let written = match &target {
        Some(target) => write_new_file(&config_path, &config::template_for(target))?,
        None => false,
    };
    // The hooks guard the target the file now names.
    let ctx = if written { env.context()? } else { ctx };
    let recorded = fleet::state::record_shared_checkout(&ctx.repo, &ctx.shared)?;
    let hooks = hooks::install(&ctx)?;
    // A nested repository fleet leaves out (SHA-256, unreadable) is not guarded: say so.
    for warning in ctx.nested_warnings() {
        render::warn(warning);
    }
    if args.out.json {
        render::json(&InitReport {
            shared_checkout: ctx.shared.clone(),
            config: config_path,
            config_written: written,
            target: ctx.target().to_string(),
            recorded,
            hooks,
        });
    } else {
        if written {
            render::ok(&format!(
                "wrote {} with target `{}`, the shared checkout's branch (commit it: it is read \
                 from the target branch when landing)",
                config_path.display(),
                ctx.target()
            ));
        } else {
            render::note(&format!("kept the existing {}", config_path.display()));
        }
        render::ok(&format!(
            "recorded {} as the shared checkout",
            ctx.shared.display()
        ));
        super::hooks::render(&hooks, Action::Install);
        render::note("next: `cd \"$(fleet worktree new NAME)\"` gives an agent its own worktree");
    }
    Ok(0)
}

/// The branch the shared checkout has (also when it has no commits yet: the branch its
/// HEAD names), which a new fleet.toml makes the target. A detached HEAD names none:
/// refused, since any guess could be a branch nobody lands on.
fn shared_branch(ctx: &fleet::context::Context) -> Result<String> {
    ctx.repo
        .main_head_ref()
        .as_deref()
        .and_then(fleet::refs::branch_name)
        .map(String::from)
        .ok_or_else(|| {
            Error::refused(format!(
                "the shared checkout {} is on a detached HEAD: fleet init cannot tell which \
                 branch lanes land on",
                ctx.shared.display()
            ))
            .with_help(
                "switch it to the branch lanes should land on (`git switch BRANCH`) and run \
                 `fleet init` again, or write fleet.toml yourself with `[lanes] target = \
                 \"BRANCH\"` (`fleet init --print` shows the file)",
            )
        })
}

/// Create `path` with `text` unless it exists; never overwrites (create_new is atomic).
fn write_new_file(path: &Path, text: &str) -> Result<bool> {
    use std::io::Write;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(mut file) => {
            file.write_all(text.as_bytes())
                .map_err(|e| Error::env(format!("cannot write {}: {e}", path.display())))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::env(format!("cannot create {}: {e}", path.display()))),
    }
}
