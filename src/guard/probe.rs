//! `fleet doctor`'s guard probe: each way the guard can be reached (a commit, a
//! `--no-verify` commit, a switch, an `update-ref` of the target from an agent
//! worktree), tried for real with git, in throwaway state that leaves nothing behind.
//!
//! Each attempt runs with a hooks folder of the probe's own, holding copies of the
//! installed hooks it tests (same bytes, same mode: a hook without its run bit is
//! skipped by the probe as git would skip it) and a `reference-transaction` that,
//! after the copy had its say, always refuses at `prepared`. So no attempt can
//! complete: no ref moves and no reflog grows whether the guard fires or not. New
//! objects go to a scratch object folder, the index is a scratch copy of HEAD's
//! tree, and the agent worktree is a temporary one, removed with its record. The
//! copies have no chained hook beside them, so a hook chained to fleet's does not run.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, cli::Probe};

/// Said by the probe's own `reference-transaction` when an attempt got that far.
const WENT_THROUGH: &str = "fleet-doctor-probe: went through";

/// A hook of the probe's folder: runs the copy of the installed hook when it is
/// executable; `reference-transaction` then refuses at `prepared` in any case.
const WRAPPER: &str = r#"#!/bin/sh
fleet_probe_real='@REAL@'
if [ '@HOOK@' = reference-transaction ]; then
    fleet_probe_in=$(cat)
    if [ -x "$fleet_probe_real" ]; then
        printf '%s\n' "$fleet_probe_in" | "$fleet_probe_real" "$@" || exit $?
    fi
    [ "$1" = prepared ] || exit 0
    echo '@WENT@' >&2
    exit 1
fi
[ -x "$fleet_probe_real" ] || exit 0
exec "$fleet_probe_real" "$@"
"#;

/// One way past the guard, and the installed hooks that must stop it.
struct Attempt {
    what: String,
    hooks: &'static [&'static str],
    /// Run from the temporary agent worktree rather than the shared checkout.
    from_agent: bool,
    args: Vec<String>,
}

/// What the probe found: the attempts the guard refused, and those it did not.
pub struct Outcome {
    pub refused: Vec<String>,
    pub problems: Vec<String>,
}

/// Probe the outer repository's guard from `scratch` (created here, removed here).
pub fn run(ctx: &Context) -> Result<Outcome> {
    let repo = &ctx.repo;
    let Some(head) = repo.head_id()? else {
        return Err(Error::refused(
            "the shared checkout has no commits yet: the probe cannot run",
        ));
    };
    let common = repo.common_dir();
    let state_dir = crate::state::dir(&common);
    let made_state_dir = !state_dir.exists();
    let scratch = state_dir.join(format!("doctor-probe-{}", std::process::id()));
    let result = run_in(ctx, head, &scratch);
    let agent = scratch.join("fleet-doctor-probe");
    if agent.exists() {
        let _ = git::cli::remove_probe_worktree(&ctx.shared, &agent);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if made_state_dir {
        let _ = std::fs::remove_dir(&state_dir);
    }
    result
}

fn mkdir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))
}

fn run_in(ctx: &Context, head: git::ObjectId, scratch: &Path) -> Result<Outcome> {
    let objects = scratch.join("objects");
    let no_hooks = scratch.join("no-hooks");
    mkdir(&objects)?;
    mkdir(&no_hooks)?;
    let common_objects = ctx.repo.common_dir().join("objects");
    let index = scratch.join("index");
    let setup = Probe {
        dir: &ctx.shared,
        hooks: &no_hooks,
        objects: &objects,
        common_objects: &common_objects,
        index: Some(&index),
    };
    let head = head.to_string();
    expect(git::cli::probe(&setup, &["read-tree", &head])?, "read-tree")?;
    // A commit other than HEAD with HEAD's tree: switching to it changes no file.
    let tree = format!("{head}^{{tree}}");
    let (ok, said) = git::cli::probe(
        &setup,
        &[
            "commit-tree",
            &tree,
            "-p",
            &head,
            "-m",
            "fleet doctor probe",
        ],
    )?;
    let other = expect((ok, said), "commit-tree")?
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    let target = ctx.target().to_string();
    let target_ref = crate::refs::branch(&target);
    let old = ctx
        .repo
        .ref_target(&target_ref)?
        .map_or_else(|| "0".repeat(40), |id| id.to_string());
    let commit = |extra: &[&str]| {
        let mut args: Vec<String> = ["commit", "--allow-empty", "-q"]
            .into_iter()
            .chain(extra.iter().copied())
            .map(String::from)
            .collect();
        args.extend([
            "-m".into(),
            "fleet doctor: guard probe (must be refused)".into(),
        ]);
        args
    };
    let attempts = [
        Attempt {
            what: "a commit in the shared checkout (pre-commit)".into(),
            hooks: &["pre-commit"],
            from_agent: false,
            args: commit(&[]),
        },
        Attempt {
            what: "a --no-verify commit in the shared checkout (prepare-commit-msg)".into(),
            hooks: &["prepare-commit-msg"],
            from_agent: false,
            args: commit(&["--no-verify"]),
        },
        Attempt {
            what: "a --no-verify commit in the shared checkout (reference-transaction)".into(),
            hooks: &["reference-transaction"],
            from_agent: false,
            args: commit(&["--no-verify"]),
        },
        Attempt {
            what: "a switch in the shared checkout (reference-transaction)".into(),
            hooks: &["reference-transaction"],
            from_agent: false,
            args: ["checkout", "-q", "--detach", &other]
                .map(String::from)
                .to_vec(),
        },
        Attempt {
            what: format!("`git update-ref {target_ref}` from an agent worktree"),
            hooks: &["reference-transaction"],
            from_agent: true,
            args: ["update-ref", &target_ref, &other, &old]
                .map(String::from)
                .to_vec(),
        },
    ];
    let agent = scratch.join("fleet-doctor-probe");
    git::cli::add_probe_worktree(&ctx.shared, &agent, &no_hooks)?;
    let mut outcome = Outcome {
        refused: Vec::new(),
        problems: Vec::new(),
    };
    for (n, attempt) in attempts.iter().enumerate() {
        let dir = if attempt.from_agent {
            &agent
        } else {
            &ctx.shared
        };
        let installed = match git::cli::hooks_dir(dir) {
            Ok(installed) => installed,
            Err(e) => {
                outcome.problems.push(format!(
                    "{} would go through: no hooks folder resolves there, so git runs no \
                     hook ({})",
                    attempt.what, e.message
                ));
                continue;
            }
        };
        let hooks = probe_hooks(&scratch.join(format!("attempt-{n}")), &installed, attempt)?;
        let probe = Probe {
            dir,
            hooks: &hooks,
            objects: &objects,
            common_objects: &common_objects,
            index: (!attempt.from_agent).then_some(index.as_path()),
        };
        let args: Vec<&str> = attempt.args.iter().map(String::as_str).collect();
        let (ok, said) = git::cli::probe(&probe, &args)?;
        if said.contains(WENT_THROUGH) || ok {
            outcome.problems.push(format!(
                "{} went through: {} in {} did not refuse it",
                attempt.what,
                attempt.hooks.join(", "),
                installed.display()
            ));
        } else if said.contains("fleet guard") {
            outcome.refused.push(attempt.what.clone());
        } else {
            outcome.problems.push(format!(
                "{} failed, but not because of the guard: {said}",
                attempt.what
            ));
        }
    }
    Ok(outcome)
}

fn expect((ok, said): (bool, String), what: &str) -> Result<String> {
    if ok {
        Ok(said)
    } else {
        Err(Error::env(format!(
            "the probe could not prepare (git {what}): {said}"
        )))
    }
}

/// The probe's hooks folder for `attempt`: a copy of each hook it tests from
/// `installed`, and the wrappers that run them.
fn probe_hooks(dir: &Path, installed: &Path, attempt: &Attempt) -> Result<PathBuf> {
    let hooks = dir.join("hooks");
    let real = dir.join("real");
    mkdir(&hooks)?;
    mkdir(&real)?;
    let mut wrapped: Vec<&str> = attempt.hooks.to_vec();
    if !wrapped.contains(&"reference-transaction") {
        wrapped.push("reference-transaction");
    }
    for hook in wrapped {
        let copy = real.join(hook);
        if attempt.hooks.contains(&hook) && installed.join(hook).is_file() {
            std::fs::copy(installed.join(hook), &copy)
                .map_err(|e| Error::env(format!("cannot copy the {hook} hook: {e}")))?;
        }
        let text = WRAPPER
            .replace("@HOOK@", hook)
            .replace("@WENT@", WENT_THROUGH)
            .replace("@REAL@", &copy.display().to_string().replace('\'', "'\\''"));
        crate::files::write_atomically(&hooks.join(hook), text.as_bytes(), Some(0o755))?;
    }
    Ok(hooks)
}
