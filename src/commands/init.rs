//! `fleet init`: write fleet.toml if absent (with the gate `fleet::adopt` finds), record
//! the shared checkout, install the guard hooks, and with `--commit` commit fleet.toml on
//! the target.

use std::path::{Path, PathBuf};

use serde::Serialize;

use fleet::adopt::{self, Committed, GateDetection, OnTarget};
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
    after_long_help = "The gate is the project's own test command, looked for in this order (the first \
                       found wins): a Makefile `test` target (make test), Cargo.toml (cargo test \
                       --locked), go.mod (go test ./...), a package.json test script (npm test), \
                       pyproject.toml or setup.cfg (pytest).\n\n\
                       Examples:\n  fleet init --commit   # adopt: write fleet.toml and commit it on the target\n  \
                       fleet init\n  fleet init --print    # show the file it would write, change nothing"
)]
pub struct Args {
    /// Print the fleet.toml template instead of writing anything
    #[arg(long, conflicts_with = "commit")]
    print: bool,
    /// Commit fleet.toml (and nothing else) on the target branch in the shared checkout,
    /// as a human would with FLEET_ALLOW_SHARED=1 (logged); only while the target has no
    /// gate yet
    #[arg(long)]
    commit: bool,
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
    /// What the project's files suggest as the gate (what a new fleet.toml gets).
    detected: GateDetection,
    /// The `[gate] commands` in force in the shared checkout's fleet.toml.
    gate: Vec<String>,
    /// How that file compares with the target's.
    on_target: OnTarget,
    /// What `--commit` committed.
    committed: Option<Committed>,
    /// The command that commits the file, while it is not on the target and can be.
    commit_command: Option<String>,
    /// The same by hand, with git, past the guard (logged).
    commit_by_hand: Option<String>,
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
        let checkout = match env.context() {
            Ok(ctx) => ctx.shared,
            Err(_) => env.cwd().to_path_buf(),
        };
        let detected = adopt::detect_gate(&checkout);
        print!("{}", template(&target, &detected));
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
    let detected = adopt::detect_gate(&ctx.shared);
    let written = match &target {
        Some(target) => write_new_file(&config_path, &template(target, &detected))?,
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
    // After the hooks: the commit meets the guard like a human's, and is logged.
    let committed = if args.commit {
        Some(adopt::commit_config(&ctx)?)
    } else {
        None
    };
    let on_target = adopt::config_on_target(&ctx)?;
    let can_commit = on_target == OnTarget::NoGateYet && ctx.config_path.is_some();
    if args.out.json {
        render::json(&InitReport {
            shared_checkout: ctx.shared.clone(),
            config: config_path,
            config_written: written,
            target: ctx.target().to_string(),
            detected,
            gate: ctx.config.gate.commands.clone(),
            on_target,
            committed,
            commit_command: can_commit.then(|| "fleet init --commit".to_string()),
            commit_by_hand: can_commit.then(adopt::commit_by_hand),
            recorded,
            hooks,
        });
        return Ok(0);
    }
    if written {
        render::ok(&format!(
            "wrote {} with target `{}`, the shared checkout's branch",
            config_path.display(),
            ctx.target()
        ));
        tell_gate(&detected);
    } else {
        render::note(&format!("kept the existing {}", config_path.display()));
    }
    render::ok(&format!(
        "recorded {} as the shared checkout",
        ctx.shared.display()
    ));
    super::hooks::render(&hooks, Action::Install);
    let target = ctx.target();
    match (&committed, on_target) {
        (Some(c), _) if c.new => render::ok(&format!(
            "committed {} on {target} as {} (the guard logged it as an allowed human commit)",
            config::FILE_NAME,
            short(&c.commit)
        )),
        (Some(_), _) | (None, OnTarget::Committed) => render::note(&format!(
            "{} is committed on {target} as it is",
            config::FILE_NAME
        )),
        (None, OnTarget::NoGateYet) if can_commit => render::note(&format!(
            "next: commit it on {target} (landing reads it from there): `fleet init --commit`\n  \
             (by hand, past the guard, logged: {})",
            adopt::commit_by_hand()
        )),
        (None, OnTarget::NoGateYet) => {}
        (None, OnTarget::Gated) => render::note(&format!(
            "{file} differs from {target}'s, which has a gate: change it in a lane and land it \
             with `fleet land LANE --allow-protected` ({file} is a protected path)",
            file = config::FILE_NAME
        )),
    }
    if ctx.config.gate.commands.is_empty() {
        render::warn(&format!(
            "no gate: `[gate] commands` is empty in {}, so `fleet land` refuses to land; set the \
             command that tests this project, then `fleet init --commit`",
            config::FILE_NAME
        ));
    }
    render::note("next: `cd \"$(fleet worktree new NAME)\"` gives an agent its own worktree");
    Ok(0)
}

/// The file a new fleet.toml gets: the template with `target` and the gate found.
fn template(target: &str, detected: &GateDetection) -> String {
    config::template_for(target, &detected.commands(), &detected.comment())
}

/// Which gate the new file got, and why (or that there is none).
fn tell_gate(detected: &GateDetection) {
    let Some(chosen) = &detected.chosen else {
        render::note(&format!(
            "found no test command to gate on (looked for {})",
            adopt::ORDER
        ));
        return;
    };
    render::ok(&format!("gate `{}`: {}", chosen.command, chosen.why));
    if !detected.also.is_empty() {
        let also: Vec<String> = detected
            .also
            .iter()
            .map(|s| format!("{} (`{}`)", s.file, s.command))
            .collect();
        render::note(&format!(
            "also found {}: the first in this order wins: {}; edit `[gate] commands` to change it",
            also.join(", "),
            adopt::ORDER
        ));
    }
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
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
