//! Installing the guard's hook scripts: into the hooks folder git actually uses, for the
//! outer repository and every nested one, chaining whatever hook was there before.
//!
//! A hook that was already there is renamed to `<hook>.fleet-chained` (bytes, mode and
//! symlinks kept) and run first by our script, with the same arguments and stdin; its
//! failure fails the operation. `uninstall` renames it back, so what was there before
//! is restored exactly. A chained POSIX shell script is sourced in a subshell rather
//! than executed, so `$0` stays the hook's real path: hook managers such as husky find
//! their own files through `$0`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, Repo};
use crate::state;

/// The hooks the guard installs.
pub const HOOKS: [&str; 4] = [
    "pre-commit",
    "prepare-commit-msg",
    "reference-transaction",
    "post-checkout",
];

const TEMPLATE: &str = include_str!("../../hooks/guard.sh");
/// The line that marks a hook script as fleet's; the number is the template version.
const MARK: &str = "# fleet-guard-hook ";
const CHAINED: &str = ".fleet-chained";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HookState {
    /// Ours, nothing chained.
    Installed,
    /// Ours, running the hook that was there before.
    Chained,
    /// Ours, but written by another fleet version or naming a binary that is gone.
    Stale,
    /// Ours, but without its run bit: git skips a hook it cannot execute.
    Disabled,
    /// Not there, or another hook stands where ours should be.
    Missing,
}

#[derive(Debug, Serialize)]
pub struct HookReport {
    pub name: String,
    pub state: HookState,
    /// What was changed (install/uninstall) or what is wrong (status).
    pub detail: String,
}

#[derive(Debug, Serialize)]
pub struct DirReport {
    pub dir: PathBuf,
    pub hooks: Vec<HookReport>,
}

#[derive(Debug, Serialize)]
pub struct RepoReport {
    /// Relative to the shared checkout; `.` for the outer repository. `rel` in JSON, as
    /// everywhere a path is relative to the shared checkout (`repo` is an absolute one).
    #[serde(rename = "rel")]
    pub repo: PathBuf,
    pub guarded_refs: Vec<String>,
    pub dirs: Vec<DirReport>,
    /// Traps found on the way (relative `core.hooksPath` and the like).
    pub warnings: Vec<String>,
}

/// One repository fleet guards: the outer one or a nested one.
struct Guarded {
    rel: PathBuf,
    repo: Repo,
    /// The main worktree: the repository's shared checkout.
    shared: PathBuf,
    /// The `[lanes] target`, for the outer repository.
    target: Option<String>,
}

fn guarded_repos(ctx: &Context) -> Result<Vec<Guarded>> {
    ctx.shared_checkouts()
        .into_iter()
        .map(|rel| {
            let outer = rel == Path::new(".");
            let shared = if outer {
                ctx.shared.clone()
            } else {
                ctx.shared.join(&rel)
            };
            Ok(Guarded {
                repo: Repo::open(&shared)?,
                target: outer.then(|| ctx.target().to_string()),
                rel,
                shared,
            })
        })
        .collect()
}

/// Every hooks folder git uses for some worktree of `repo` (one, unless a relative
/// `core.hooksPath` makes each worktree resolve its own).
fn hooks_dirs(g: &Guarded) -> Result<Vec<PathBuf>> {
    let mut dirs = BTreeSet::new();
    dirs.insert(git::cli::hooks_dir(&g.shared)?);
    // Every worktree, not only with a relative path: worktree-scoped config
    // (`extensions.worktreeConfig`) can give one its own `core.hooksPath`.
    // One where none resolves (a relative path through `.git`, a file there) has no
    // hooks at all: [`warnings_for`] says so.
    for wt in g.repo.worktrees()? {
        if !wt.missing
            && wt.path.is_dir()
            && let Ok(dir) = git::cli::hooks_dir(&wt.path)
        {
            dirs.insert(dir);
        }
    }
    Ok(dirs.into_iter().collect())
}

/// `core.hooksPath` when it is set and relative.
fn relative_hooks_path(repo: &Repo) -> Option<String> {
    let value = repo.config_string("core.hooksPath")?;
    (!value.is_empty() && !Path::new(&value).is_absolute() && !value.starts_with('~'))
        .then_some(value)
}

/// The name the hook scripts use when fleet is on PATH.
const ON_PATH: &str = "fleet";

/// The binary the hook scripts call: `fleet` by name when that name on PATH is this very
/// binary (installed that way, so an upgrade of it upgrades the hooks), else this one by
/// its real path.
pub(super) fn fleet_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::env(format!("cannot find the fleet binary's own path: {e}")))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let on_path = on_path(ON_PATH).and_then(|p| p.canonicalize().ok());
    Ok(if on_path.as_deref() == Some(exe.as_path()) {
        PathBuf::from(ON_PATH)
    } else {
        exe
    })
}

/// What `command -v NAME` finds: the first executable file of that name on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

/// The binary a hook's recorded `fleet_bin` runs: itself when a path, found on PATH when
/// a bare name.
fn resolve_binary(recorded: &Path) -> Option<PathBuf> {
    if recorded.components().count() == 1 && !recorded.is_absolute() {
        on_path(&recorded.to_string_lossy())
    } else {
        Some(recorded.to_path_buf())
    }
}

fn render(hook: &str, fleet: &Path, chained_is_sh: bool) -> String {
    let run_chained = if chained_is_sh {
        "( . \"$fleet_chained\" )"
    } else {
        "\"$fleet_chained\" \"$@\""
    };
    TEMPLATE
        .replace("@HOOK@", hook)
        .replace(
            "@FLEET@",
            &fleet.display().to_string().replace('\'', "'\\''"),
        )
        .replace("@RUN_CHAINED@", run_chained)
}

fn is_ours(path: &Path) -> bool {
    // A symlink to another repository's fleet hook is the user's link, not ours.
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::read(path).is_ok_and(|bytes| {
            bytes
                .split(|b| *b == b'\n')
                .take(3)
                .any(|line| line.starts_with(MARK.as_bytes()))
        })
}

/// A POSIX shell script (sourced, so `$0` keeps pointing at the hook).
fn is_sh_script(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let first = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    let words: Vec<&str> = first.trim_start_matches("#!").split_whitespace().collect();
    first.starts_with("#!")
        && match words.as_slice() {
            [interp] => matches!(*interp, "/bin/sh" | "/usr/bin/sh" | "/bin/dash"),
            [env, "sh"] => env.ends_with("/env"),
            _ => false,
        }
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn chained_path(hook: &Path) -> PathBuf {
    let mut name = hook.as_os_str().to_os_string();
    name.push(CHAINED);
    PathBuf::from(name)
}

/// Write `text` to `path` as an executable script, atomically.
fn write_script(path: &Path, text: &str) -> Result<()> {
    crate::files::write_atomically(path, text.as_bytes(), Some(0o755))
}

/// Install (or refresh) one hook in `dir`. Returns what was done.
pub(super) fn install_hook(dir: &Path, hook: &str, fleet: &Path) -> Result<HookReport> {
    let path = dir.join(hook);
    let chained = chained_path(&path);
    let exists = std::fs::symlink_metadata(&path).is_ok();
    let (state, detail) = if exists && is_ours(&path) {
        let has_chained = std::fs::symlink_metadata(&chained).is_ok();
        let text = render(hook, fleet, has_chained && is_sh_script(&chained));
        let state = if has_chained {
            HookState::Chained
        } else {
            HookState::Installed
        };
        if std::fs::read_to_string(&path).is_ok_and(|t| t == text) && is_executable(&path) {
            return Ok(HookReport {
                name: hook.into(),
                state,
                detail: "unchanged".into(),
            });
        }
        write_script(&path, &text)?;
        (state, "refreshed".to_string())
    } else if exists && same_bytes(&path, &chained) {
        // A hook manager re-wrote its shim over ours (lefthook's re-sync, husky on every
        // `npm install`): the very hook already chained. Take the slot back.
        let text = render(hook, fleet, is_sh_script(&chained));
        write_script(&path, &text)?;
        (
            HookState::Chained,
            format!("reinstalled over a second copy of {hook}{CHAINED}"),
        )
    } else if exists {
        if std::fs::symlink_metadata(&chained).is_ok() {
            return Err(Error::refused(format!(
                "{} is not fleet's, and {} is already taken",
                path.display(),
                chained.display()
            ))
            .with_help(
                "another installer replaced fleet's hook after fleet chained the one before; \
                 decide which to keep, move the other away, and run `fleet hooks install` again",
            ));
        }
        std::fs::rename(&path, &chained).map_err(|e| {
            Error::env(format!(
                "cannot move {} aside to {}: {e}",
                path.display(),
                chained.display()
            ))
        })?;
        let text = render(hook, fleet, is_sh_script(&chained));
        if let Err(e) = write_script(&path, &text) {
            let _ = std::fs::rename(&chained, &path);
            return Err(e);
        }
        (
            HookState::Chained,
            format!("installed; the hook that was there runs first (kept as {hook}{CHAINED})"),
        )
    } else {
        if std::fs::symlink_metadata(&chained).is_ok() {
            return Err(Error::refused(format!(
                "{} is left over with no hook beside it",
                chained.display()
            ))
            .with_help(
                "it is not running now; installing would start running it. Delete it, or rename \
                 it to the hook's name if it should run, then run `fleet hooks install` again",
            ));
        }
        write_script(&path, &render(hook, fleet, false))?;
        (HookState::Installed, "installed".to_string())
    };
    Ok(HookReport {
        name: hook.into(),
        state,
        detail,
    })
}

/// Take one hook out of `dir`, putting back what was there before.
pub(super) fn uninstall_hook(dir: &Path, hook: &str) -> Result<HookReport> {
    let path = dir.join(hook);
    let chained = chained_path(&path);
    let has_chained = std::fs::symlink_metadata(&chained).is_ok();
    let report = |detail: &str| HookReport {
        name: hook.into(),
        state: HookState::Missing,
        detail: detail.into(),
    };
    if !is_ours(&path) {
        return Ok(report(if has_chained {
            "not fleet's any more; left alone, and so is the chained hook next to it"
        } else {
            "not installed"
        }));
    }
    if has_chained {
        // A folder cannot be renamed over a file: ours goes first (a moment with no hook
        // in the slot). Anything else (a file, a link, a dangling link) replaces ours in
        // one rename, kind, mode and target kept.
        if std::fs::symlink_metadata(&chained).is_ok_and(|m| m.is_dir()) {
            std::fs::remove_file(&path)
                .map_err(|e| Error::env(format!("cannot remove {}: {e}", path.display())))?;
        }
        std::fs::rename(&chained, &path)
            .map_err(|e| Error::env(format!("cannot restore {}: {e}", path.display())))?;
        Ok(report("restored the hook that was there before"))
    } else {
        std::fs::remove_file(&path)
            .map_err(|e| Error::env(format!("cannot remove {}: {e}", path.display())))?;
        Ok(report("removed"))
    }
}

pub(crate) fn hook_status(dir: &Path, hook: &str) -> HookReport {
    let path = dir.join(hook);
    let chained = chained_path(&path);
    let has_chained = std::fs::symlink_metadata(&chained).is_ok();
    let (state, detail) = if std::fs::symlink_metadata(&path).is_err() {
        (HookState::Missing, "not installed".to_string())
    } else if !is_ours(&path) && has_chained && !same_bytes(&path, &chained) {
        (
            HookState::Missing,
            format!(
                "another hook replaced fleet's, and {hook}{CHAINED} holds a different one;                  keep one of them, then `fleet hooks install`"
            ),
        )
    } else if !is_ours(&path) {
        (
            HookState::Missing,
            "another hook stands there; `fleet hooks install` chains it".to_string(),
        )
    } else if !is_executable(&path) {
        (
            HookState::Disabled,
            "not executable, so git skips it; `fleet hooks install` sets its run bit".into(),
        )
    } else {
        let runs = |bin: &Path| match resolve_binary(bin) {
            Some(found) if found != bin => {
                format!("{} (on PATH: {})", bin.display(), found.display())
            }
            _ => bin.display().to_string(),
        };
        match recorded_binary(&path) {
            Some(bin) if !resolve_binary(&bin).is_some_and(|b| is_executable(&b)) => (
                HookState::Stale,
                format!(
                    "names {}, which is gone; `fleet hooks install` rewrites it",
                    bin.display()
                ),
            ),
            Some(bin)
                if std::fs::read_to_string(&path).ok().as_deref()
                    != Some(&render(hook, &bin, has_chained && is_sh_script(&chained))) =>
            {
                (
                    HookState::Stale,
                    "written by another fleet version; `fleet hooks install` refreshes it".into(),
                )
            }
            None => (HookState::Stale, "unreadable fleet hook".into()),
            Some(bin) if has_chained => (
                HookState::Chained,
                format!("runs {hook}{CHAINED} first, then {}", runs(&bin)),
            ),
            Some(bin) => (HookState::Installed, format!("runs {}", runs(&bin))),
        }
    };
    HookReport {
        name: hook.into(),
        state,
        detail,
    }
}

/// The `fleet_bin='...'` a fleet hook script names.
pub fn recorded_binary(script: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(script).ok()?;
    let line = text.lines().find(|l| l.starts_with("fleet_bin='"))?;
    let quoted = line.strip_prefix("fleet_bin=")?;
    let inner = quoted.strip_prefix('\'')?.strip_suffix('\'')?;
    Some(PathBuf::from(inner.replace("'\\''", "'")))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The branches the guard protects in `g`: the one its shared checkout has checked out,
/// the `[lanes] target` for the outer repository, and whatever was recorded before (so a
/// shared checkout found drifted at install time keeps its real branch protected).
fn guard_refs(g: &Guarded) -> Result<Vec<String>> {
    let mut refs: BTreeSet<String> = read_guard_refs(&g.repo.common_dir()).into_iter().collect();
    let main = g.repo.worktrees()?.into_iter().find(|w| w.is_main);
    if let Some(branch) = main.and_then(|w| w.branch) {
        refs.insert(crate::refs::branch(&branch));
    }
    if let Some(target) = &g.target {
        refs.insert(crate::refs::branch(target));
    }
    Ok(refs.into_iter().collect())
}

/// Keep the guard's branch list current: a guarded repository whose `[lanes] target`
/// changed since the hooks were installed gets the new target guarded too. Writes
/// `<common>/fleet/guard-refs` only when the target is missing from it.
///
/// Every fleet command must run this step before its work, not only `fleet hooks
/// install`: the hook script reads the guard-refs file itself, without fleet (it lets a
/// git command through before starting fleet when the ref it moves is not listed), so a
/// target changed in `fleet.toml` is unguarded until some fleet command writes it there.
/// A failure to write is the caller's to report: the command it runs still goes on.
pub fn sync_target(ctx: &Context) -> Result<()> {
    let target = ctx.target();
    let common = ctx.repo.common_dir();
    if !state::guard_refs(&common).is_file() {
        return Ok(());
    }
    let mut refs = read_guard_refs(&common);
    let full = crate::refs::branch(target);
    if refs.contains(&full) {
        return Ok(());
    }
    refs.push(full);
    write_guard_refs(&common, &refs)
}

pub fn read_guard_refs(common: &Path) -> Vec<String> {
    std::fs::read_to_string(state::guard_refs(common))
        .map(|t| {
            t.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn write_guard_refs(common: &Path, refs: &[String]) -> Result<()> {
    let text: String = refs.iter().map(|r| format!("{r}\n")).collect();
    crate::files::write_atomically(&state::guard_refs(common), text.as_bytes(), None)
}

fn warnings_for(g: &Guarded) -> Vec<String> {
    let mut warnings = Vec::new();
    for wt in g.repo.worktrees().unwrap_or_default() {
        if wt.missing || !wt.path.is_dir() {
            continue;
        }
        if let Err(e) = git::cli::hooks_dir(&wt.path) {
            warnings.push(format!(
                "no hooks folder resolves in the worktree {}, so no hook runs there: {}",
                wt.path.display(),
                e.message
            ));
        }
    }
    if let Some(rel) = relative_hooks_path(&g.repo) {
        warnings.push(format!(
            "core.hooksPath is relative (`{rel}`): each worktree resolves it inside itself, so \
             the hooks are installed into every worktree's copy; a worktree added later with \
             plain `git worktree add` has none, and is unguarded, until `fleet hooks install` \
             runs again (`fleet worktree new` installs them itself); an absolute path closes \
             that: `{}`",
            set_hooks_path_fix(g)
        ));
    }
    warnings
}

/// The absolute hooks folder to advise: the repository's own, which every worktree
/// shares.
fn own_hooks_dir(g: &Guarded) -> PathBuf {
    g.repo.common_dir().join("hooks")
}

/// `path` quoted for a POSIX shell.
fn sh_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

/// The command that gives `g` an absolute hooks path of its own.
fn set_hooks_path_fix(g: &Guarded) -> String {
    format!(
        "git -C {} config core.hooksPath {}",
        sh_quote(&g.shared),
        sh_quote(&own_hooks_dir(g))
    )
}

/// Settings under which installing would do harm rather than guard, found before any
/// hooks folder is looked up.
fn refuse_unsafe_config(g: &Guarded) -> Result<()> {
    let storage = g.repo.config_string("extensions.refStorage");
    if storage.as_deref() == Some("reftable") {
        return Err(Error::refused(format!(
            "{} uses the reftable ref storage, which the guard does not support yet",
            g.shared.display()
        ))
        .with_help("the guard needs the files ref backend (`git init --ref-format=files`)"));
    }
    if let Some(scope @ ("global" | "system")) =
        git::cli::config_scope(&g.shared, "core.hooksPath")?.as_deref()
    {
        return Err(Error::refused(format!(
            "core.hooksPath is set in your {scope} git config: installing there would run \
             fleet's hooks in every repository on this machine"
        ))
        .with_help(format!(
            "give this repository its own, by an absolute path (a relative one is resolved \
             in each worktree, and in an agent worktree `.git` is a file): `{}` (or unset \
             the {scope} one), then run fleet again",
            set_hooks_path_fix(g)
        )));
    }
    if let Some(rel) = relative_hooks_path(&g.repo) {
        let first = Path::new(&rel).components().next();
        if first.is_some_and(|c| c.as_os_str() == ".git") {
            return Err(Error::refused(format!(
                "core.hooksPath is relative (`{rel}`): git resolves it in each worktree, and \
                 in an agent worktree `.git` is a file, so no hook would run there and a \
                 `git update-ref` of a guarded branch from there would pass"
            ))
            .with_help(format!(
                "use an absolute path: `{}`, then run fleet again",
                set_hooks_path_fix(g)
            )));
        }
    }
    Ok(())
}

/// Hooks folders installing into would do harm: one holding tracked files, or one
/// inside a work tree that `git add -A` there would commit fleet's scripts from.
fn refuse_unsafe_dirs(g: &Guarded, dirs: &[PathBuf]) -> Result<()> {
    let names: Vec<String> = HOOKS
        .iter()
        .flat_map(|h| [(*h).to_string(), format!("{h}{CHAINED}")])
        .collect();
    for dir in dirs {
        for wt in g.repo.worktrees()? {
            if wt.missing || !wt.path.is_dir() {
                continue;
            }
            let Ok(rel) = dir.strip_prefix(&wt.path) else {
                continue;
            };
            // git never adds anything under `.git`.
            if rel
                .components()
                .next()
                .is_some_and(|c| c.as_os_str() == ".git")
            {
                continue;
            }
            let rel = rel.to_string_lossy().to_string();
            let prefix = format!("{rel}/");
            if git::cli::tracked_under(&wt.path, &prefix)? {
                return Err(Error::refused(format!(
                    "the hooks folder {} holds files git tracks: installing would change them \
                     in every checkout, and a `git stash -u` would take the guard away",
                    dir.display()
                ))
                .with_help(format!(
                    "point core.hooksPath at a folder outside the work tree, by an absolute \
                     path (`{}`), and call your tracked hooks from there, then run fleet again",
                    set_hooks_path_fix(g)
                )));
            }
            let paths: Vec<String> = names.iter().map(|n| format!("{prefix}{n}")).collect();
            if !git::cli::all_ignored(&wt.path, &paths)? {
                return Err(Error::refused(format!(
                    "the hooks folder {} is inside the work tree {} and not ignored there: \
                     fleet's hook scripts would be committed by the next `git add -A`, and \
                     such a lane could never land",
                    dir.display(),
                    wt.path.display()
                ))
                .with_help(format!(
                    "hooks go where no worktree commits them: use an absolute path outside \
                     the work tree, such as the repository's own .git/hooks (`{}`), then run \
                     fleet again",
                    set_hooks_path_fix(g)
                )));
            }
        }
    }
    Ok(())
}

/// Every guarded repository with the hooks folders to install into, once each has been
/// checked: nothing is written when any of them would do harm.
fn plan(ctx: &Context) -> Result<Vec<(Guarded, Vec<PathBuf>)>> {
    let mut planned = Vec::new();
    for g in guarded_repos(ctx)? {
        refuse_unsafe_config(&g)?;
        let dirs = hooks_dirs(&g)?;
        refuse_unsafe_dirs(&g, &dirs)?;
        planned.push((g, dirs));
    }
    Ok(planned)
}

/// The refusals [`install`] would make, without installing: for a caller (`fleet
/// init`) that must write nothing when the hooks cannot go in.
pub fn check_install(ctx: &Context) -> Result<()> {
    plan(ctx).map(|_| ())
}

pub fn install(ctx: &Context) -> Result<Vec<RepoReport>> {
    let fleet = fleet_binary()?;
    let mut reports = Vec::new();
    for (g, planned_dirs) in plan(ctx)? {
        let refs = guard_refs(&g)?;
        let mut dirs = Vec::new();
        for dir in planned_dirs {
            std::fs::create_dir_all(&dir)
                .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
            let hooks = HOOKS
                .iter()
                .map(|hook| install_hook(&dir, hook, &fleet))
                .collect::<Result<Vec<_>>>()?;
            dirs.push(DirReport { dir, hooks });
        }
        write_guard_refs(&g.repo.common_dir(), &refs)?;
        reports.push(RepoReport {
            repo: g.rel.clone(),
            guarded_refs: refs,
            dirs,
            warnings: warnings_for(&g),
        });
        reports.extend(super::submodules::install(&g.shared, &g.rel, &fleet)?);
    }
    Ok(reports)
}

pub fn uninstall(ctx: &Context) -> Result<Vec<RepoReport>> {
    let mut reports = Vec::new();
    for g in guarded_repos(ctx)? {
        let mut dirs = Vec::new();
        for dir in hooks_dirs(&g)? {
            let hooks = HOOKS
                .iter()
                .map(|hook| uninstall_hook(&dir, hook))
                .collect::<Result<Vec<_>>>()?;
            dirs.push(DirReport { dir, hooks });
        }
        let refs_file = state::guard_refs(&g.repo.common_dir());
        if refs_file.exists() {
            std::fs::remove_file(&refs_file)
                .map_err(|e| Error::env(format!("cannot remove {}: {e}", refs_file.display())))?;
        }
        reports.push(RepoReport {
            repo: g.rel.clone(),
            guarded_refs: Vec::new(),
            dirs,
            warnings: Vec::new(),
        });
        reports.extend(super::submodules::uninstall(&g.shared, &g.rel)?);
    }
    Ok(reports)
}

pub fn status(ctx: &Context) -> Result<Vec<RepoReport>> {
    let mut reports = Vec::new();
    for g in guarded_repos(ctx)? {
        let dirs = hooks_dirs(&g)?
            .into_iter()
            .map(|dir| DirReport {
                hooks: HOOKS.iter().map(|hook| hook_status(&dir, hook)).collect(),
                dir,
            })
            .collect();
        reports.push(RepoReport {
            repo: g.rel.clone(),
            guarded_refs: read_guard_refs(&g.repo.common_dir()),
            dirs,
            warnings: warnings_for(&g),
        });
        reports.extend(super::submodules::status(&g.shared, &g.rel)?);
    }
    Ok(reports)
}

/// Give a new worktree of a guarded repository the hooks, when a relative
/// `core.hooksPath` means it resolves a hooks folder of its own.
pub fn cover_new_worktree(repo: &Repo, worktree: &Path) -> Result<()> {
    if relative_hooks_path(repo).is_none() || !state::guard_refs(&repo.common_dir()).is_file() {
        return Ok(());
    }
    let fleet = fleet_binary()?;
    let dir = git::cli::hooks_dir(worktree)?;
    if let Ok(rel) = dir.strip_prefix(worktree)
        && rel
            .components()
            .next()
            .is_none_or(|c| c.as_os_str() != ".git")
    {
        let paths: Vec<String> = HOOKS
            .iter()
            .map(|h| format!("{}/{h}", rel.display()))
            .collect();
        if !git::cli::all_ignored(worktree, &paths)? {
            return Err(Error::refused(format!(
                "the hooks folder {} is not ignored in the new worktree: `git add -A` would \
                 commit fleet's hook scripts",
                dir.display()
            ))
            .with_help("use an absolute core.hooksPath outside the work tree (the repository's .git/hooks)"));
        }
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    for hook in HOOKS {
        install_hook(&dir, hook, &fleet)?;
    }
    Ok(())
}
