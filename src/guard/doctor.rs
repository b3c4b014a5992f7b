//! `fleet doctor`: report-only health checks, each with a name, a verdict and the fix.
//! Nothing is repaired here; the fix says which command does it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::context::Context;
use crate::error::Result;
use crate::git::{self, Repo};
use crate::guard::hooks::{self, HookState};
use crate::queue::Queue;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Ok,
    /// Worth knowing, not broken.
    Warn,
    Fail,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub verdict: Verdict,
    pub detail: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fix: String,
}

/// A check from its problems: ok when there are none, else failing with `fix`.
pub(crate) fn check(name: &'static str, problems: Vec<String>, ok: &str, fix: &str) -> Check {
    if problems.is_empty() {
        Check {
            name,
            verdict: Verdict::Ok,
            detail: ok.into(),
            fix: String::new(),
        }
    } else {
        Check {
            name,
            verdict: Verdict::Fail,
            detail: problems.join("; "),
            fix: fix.into(),
        }
    }
}

pub fn run(ctx: &Context, queue: &Queue) -> Result<Vec<Check>> {
    let status = hooks::status(ctx)?;
    let mut checks = vec![
        hooks_installed(&status),
        hooks_binary(&status),
        hooks_path_traps(ctx, &status),
        nested_left_out(ctx),
        guard_fires(ctx),
        stale_locks(ctx)?,
        prunable_worktrees(ctx)?,
    ];
    checks.extend(lane_checks(ctx, queue)?);
    checks.extend(crate::tasks::health::checks(ctx, queue)?);
    checks.push(stale_watchdogs());
    let (orphans, fix) = crate::proc::registry::report(ctx);
    // Agent groups too: a drainer starts them through the same runner, which records
    // them here (see `crate::tasks::health`).
    let ok = "no process group fleet started outlived its fleet";
    checks.push(check("orphan-groups", orphans, ok, &fix));
    Ok(checks)
}

fn hooks_installed(status: &[hooks::RepoReport]) -> Check {
    let mut problems = Vec::new();
    for repo in status {
        for dir in &repo.dirs {
            for hook in &dir.hooks {
                let what = match hook.state {
                    HookState::Missing => "missing",
                    HookState::Disabled => "not executable (git skips it)",
                    _ => continue,
                };
                problems.push(format!(
                    "{} {what} in {} (repo {})",
                    hook.name,
                    dir.dir.display(),
                    repo.repo.display()
                ));
            }
        }
    }
    check(
        "hooks-installed",
        problems,
        "every guard hook is installed and executable in every repository",
        "fleet hooks install",
    )
}

fn hooks_binary(status: &[hooks::RepoReport]) -> Check {
    let mut problems = Vec::new();
    for repo in status {
        for dir in &repo.dirs {
            for hook in dir.hooks.iter().filter(|h| h.state == HookState::Stale) {
                problems.push(format!(
                    "{}/{}: {}",
                    dir.dir.display(),
                    hook.name,
                    hook.detail
                ));
            }
        }
    }
    check(
        "hooks-binary",
        problems,
        "the hook scripts name an existing fleet binary of this version",
        "fleet hooks install",
    )
}

fn hooks_path_traps(ctx: &Context, status: &[hooks::RepoReport]) -> Check {
    let mut problems: Vec<String> = status.iter().flat_map(|r| r.warnings.clone()).collect();
    // Worktrees that resolve different hooks folders: one added with plain `git worktree
    // add` resolves yet another, where no guard is.
    for repo in status.iter().filter(|r| r.dirs.len() > 1) {
        let dirs: Vec<String> = repo
            .dirs
            .iter()
            .map(|d| d.dir.display().to_string())
            .collect();
        problems.push(format!(
            "the worktrees of repo {} use different hooks folders ({})",
            repo.repo.display(),
            dirs.join(", ")
        ));
    }
    // The shared checkout recorded by `fleet init` should be the real path: one reached
    // through a symlink would be a second name for the same checkout.
    let recorded = crate::state::shared_checkout(&ctx.repo.common_dir());
    if let Ok(text) = std::fs::read_to_string(&recorded) {
        let path = PathBuf::from(text.trim());
        if path.canonicalize().ok().as_deref() != Some(ctx.shared.as_path()) {
            problems.push(format!(
                "{} records {} as the shared checkout, but it is {}",
                recorded.display(),
                path.display(),
                ctx.shared.display()
            ));
        }
    }
    check(
        "hooks-path",
        problems,
        "every worktree resolves the same hooks folder; no symlinked-path traps",
        "set an absolute core.hooksPath (the repository's .git/hooks: `git config \
         core.hooksPath \"$(git rev-parse --path-format=absolute --git-common-dir)/hooks\"`), \
         run `fleet init` from the real path, then `fleet hooks install`",
    )
}

/// Every way the guard can be reached, tried for real in throwaway state
/// ([`super::probe`]): nothing is left behind whether the guard fires or not.
fn guard_fires(ctx: &Context) -> Check {
    let name = "guard-fires";
    let fail = |detail: String, fix: &str| Check {
        name,
        verdict: Verdict::Fail,
        detail,
        fix: fix.into(),
    };
    if !matches!(ctx.repo.head_branch(), Ok(Some(_))) {
        return fail(
            "the shared checkout is not on a branch: the probe cannot run".into(),
            "fleet watchdog --once --restore",
        );
    }
    match super::probe::run(ctx) {
        Err(e) => fail(format!("the probe could not run: {}", e.message), ""),
        Ok(outcome) if !outcome.problems.is_empty() => fail(
            outcome.problems.join("; "),
            "fleet hooks install (and see the hooks-installed and hooks-path checks)",
        ),
        Ok(outcome) => Check {
            name,
            verdict: Verdict::Ok,
            detail: format!("refused: {}", outcome.refused.join("; ")),
            fix: String::new(),
        },
    }
}

/// Lock files no live process holds: leftovers of a killed git or fleet.
/// Nested repositories fleet had to leave out (SHA-256, unreadable): unguarded, and
/// their lanes do not land.
fn nested_left_out(ctx: &Context) -> Check {
    check(
        "nested-repos",
        ctx.nested_warnings().to_vec(),
        "every nested repository is one fleet can guard",
        "convert or move the listed repositories out of the project; fleet supports SHA-1 repositories only",
    )
}

fn stale_locks(ctx: &Context) -> Result<Check> {
    let problems: Vec<String> = ctx
        .repo
        .lock_files()?
        .into_iter()
        .filter(|path| git::lock_holder(path).is_none())
        .map(|path| path.display().to_string())
        .collect();
    Ok(check(
        "stale-locks",
        problems,
        "no leftover lock files",
        "make sure no git is running, then remove the listed files",
    ))
}

fn prunable_worktrees(ctx: &Context) -> Result<Check> {
    let mut problems = Vec::new();
    for rel in ctx.shared_checkouts() {
        let repo = Repo::open(&ctx.shared.join(rel))?;
        for wt in repo.worktrees()? {
            if wt.missing {
                problems.push(format!("{} is gone", wt.path.display()));
            }
        }
    }
    Ok(check(
        "prunable-worktrees",
        problems,
        "every registered worktree exists",
        "fleet worktree prune",
    ))
}

fn lane_checks(ctx: &Context, queue: &Queue) -> Result<Vec<Check>> {
    let lanes = crate::status::lanes(ctx, queue)?;
    let gone: Vec<String> = lanes
        .iter()
        .filter(|l| l.missing)
        .map(|l| format!("{} has no branch", l.branch))
        .collect();
    let stale: Vec<String> = lanes
        .iter()
        .filter(|l| l.stale)
        .map(|l| format!("{} is claimed but idle", l.branch))
        .collect();
    let mut stale_check = check(
        "stale-lanes",
        stale,
        "no idle running lane",
        "finish the work and `fleet ready`, or `fleet untrack` the lane",
    );
    if stale_check.verdict == Verdict::Fail {
        stale_check.verdict = Verdict::Warn;
    }
    Ok(vec![
        check(
            "lanes-branches",
            gone,
            "every lane's branch exists",
            "fleet untrack LANE",
        ),
        stale_check,
    ])
}

/// A `fleet watchdog` that loops on code older than the fleet binary now on disk.
fn stale_watchdogs() -> Check {
    use crate::sys::procfs;
    let mut problems = Vec::new();
    for pid in procfs::pids().into_iter().flatten() {
        let Some(args) = procfs::args(pid) else {
            continue;
        };
        let is_fleet = args
            .first()
            .is_some_and(|a| Path::new(a).file_name().is_some_and(|n| n == "fleet"));
        if !is_fleet || !args.iter().any(|a| a == "watchdog") || args.iter().any(|a| a == "--once")
        {
            continue;
        }
        let exe = procfs::exe(pid).unwrap_or_default();
        let exe_text = exe.display().to_string();
        if exe_text.ends_with(" (deleted)") {
            problems.push(format!("pid {pid} runs a fleet binary that was replaced"));
            continue;
        }
        let started = procfs::started_at(pid);
        let built = std::fs::metadata(&exe)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs());
        if let (Some(started), Some(built)) = (started, built)
            && built > started
        {
            problems.push(format!(
                "pid {pid} started before {} was last built",
                exe.display()
            ));
        }
    }
    check(
        "stale-watchdog",
        problems,
        "no running watchdog older than its binary",
        "restart the watchdog (e.g. systemctl --user restart fleet-watchdog.timer)",
    )
}
