//! `fleet preflight`: a worker's first action, "where am I?".
//!
//! Promise: exit 0 only inside an agent worktree (outer or nested) whose branch is its
//! own lane branch. Anything else, including anything fleet cannot determine for sure,
//! is a failure with the reason: blind is never a pass.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::context::Context;
use crate::error::Result;
use crate::git::Repo;
use crate::repo_env;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    /// An agent worktree of the outer repository.
    Agent,
    /// A nested repository's worktree inside an agent worktree.
    NestedAgent,
    /// The shared checkout (the main worktree) of the outer repository.
    Shared,
    /// The shared checkout of a nested repository.
    NestedShared,
    /// Somewhere fleet cannot vouch for: outside a repository, bare, detached,
    /// overridden by `GIT_DIR`, a worktree that is not an agent's, a wrong branch.
    Blind,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub ok: bool,
    pub place: Place,
    /// The outer repository's shared checkout, when known.
    pub repo: Option<PathBuf>,
    /// The worktree this folder belongs to.
    pub worktree: Option<PathBuf>,
    pub agent: Option<String>,
    /// Path of the nested repository relative to the outer checkout.
    pub nested: Option<PathBuf>,
    pub branch: Option<String>,
    /// The lane this worktree's branch lands as.
    pub lane: Option<String>,
    /// Why this is not a pass.
    pub problem: Option<String>,
    /// The target branch, to refuse a lane branch that is the target itself.
    #[serde(skip)]
    target: Option<String>,
}

impl Report {
    fn blind(problem: impl Into<String>) -> Report {
        Report {
            ok: false,
            place: Place::Blind,
            repo: None,
            worktree: None,
            agent: None,
            nested: None,
            branch: None,
            lane: None,
            problem: Some(problem.into()),
            target: None,
        }
    }
}

pub fn inspect(cwd: &Path) -> Report {
    match try_inspect(cwd) {
        Ok(report) => report,
        Err(e) => Report::blind(e.message),
    }
}

fn try_inspect(cwd: &Path) -> Result<Report> {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    if let Some(problem) = env_override_problem(&cwd).or_else(redirect_problem) {
        return Ok(Report::blind(problem));
    }
    let Ok(repo) = Repo::discover(&cwd) else {
        return Ok(Report::blind(format!(
            "{} is not inside a git repository",
            cwd.display()
        )));
    };
    if repo.is_bare() {
        return Ok(Report::blind(repo.bare_description()));
    }
    let Some(workdir) = repo.workdir().map(|w| canon(&w)) else {
        return Ok(Report::blind("this repository has no worktree"));
    };
    if !cwd.starts_with(&workdir) {
        return Ok(Report::blind(format!(
            "{} is inside a git directory, not a worktree",
            cwd.display()
        )));
    }
    let branch = repo.head_branch()?;
    if repo.is_submodule() {
        return Ok(Report::blind(format!(
            "{} is a submodule checkout; agents work in their agent worktree (or its nested worktrees), not inside a submodule",
            workdir.display()
        )));
    }
    if !repo.is_linked_worktree() {
        return Ok(shared_report(&workdir, branch));
    }
    let main = canon(&repo.main_workdir()?.unwrap_or_default());
    // A linked worktree of a repository inside another one is either a nested agent
    // worktree of the outer repository or, when the whole project merely sits inside an
    // unrelated repository (dotfiles in $HOME), an agent worktree of its own: take the
    // reading whose structure checks out.
    let nested = match outer_of(&main) {
        Some((outer, rel)) => Some(nested_report(&workdir, &outer, &rel)?),
        None => None,
    };
    let mut report = match nested {
        Some(report) if report.place == Place::NestedAgent => report,
        Some(report) => {
            let own = agent_report(&workdir, &main)?;
            if own.place == Place::Agent {
                own
            } else {
                report
            }
        }
        None => agent_report(&workdir, &main)?,
    };
    report.branch = branch.clone();
    let Some(expected) = report.lane.clone() else {
        return Ok(report);
    };
    let target = report.target.clone();
    report.problem = match branch {
        _ if target.as_deref() == Some(expected.as_str()) => Some(format!(
            "the lane branch {expected} is the target branch itself; agents never work on it"
        )),
        None => Some(format!(
            "HEAD is detached; an agent works on its lane branch {expected}"
        )),
        Some(b) if b != expected => Some(format!(
            "this worktree is on {b}, but agent {}'s lane branch is {expected}",
            report.agent.as_deref().unwrap_or("?")
        )),
        // A commit on an unborn branch would start a history unrelated to the target.
        Some(_) if !matches!(repo.head_id(), Ok(Some(_))) => Some(format!(
            "the lane branch {expected} has no commits (it was deleted or never created); `fleet worktree rm` this worktree and make it again"
        )),
        Some(_) => None,
    };
    report.ok = report.problem.is_none();
    if !report.ok {
        report.place = Place::Blind;
    }
    Ok(report)
}

/// `GIT_DIR`/`GIT_WORK_TREE` as fleet was started with them (the binary takes them out
/// of its own environment, see [`crate::repo_env`]) that make git see another repository
/// or another worktree top than this folder's: refuse to guess.
fn env_override_problem(cwd: &Path) -> Option<String> {
    let git_dir = repo_env::started_with("GIT_DIR");
    let work_tree = repo_env::started_with("GIT_WORK_TREE");
    repo_env::location_problem(cwd, git_dir.as_deref(), work_tree.as_deref())
}

/// Variables that send git's reads or writes to another place than this folder's
/// repository (objects, refs, index, namespace): any of them set makes the answer blind.
fn redirect_problem() -> Option<String> {
    repo_env::OVERRIDES
        .iter()
        .filter(|var| !matches!(**var, "GIT_DIR" | "GIT_WORK_TREE"))
        .find_map(|var| {
            let value = repo_env::started_with(var).filter(|v| !v.is_empty())?;
            Some(format!(
                "{var}={} redirects git away from this folder's repository; unset it",
                Path::new(&value).display()
            ))
        })
}

fn shared_report(workdir: &Path, branch: Option<String>) -> Report {
    // The project is what every other command takes it to be (see `Context::find`).
    let project = Context::find(workdir).map(|ctx| canon(&ctx.shared));
    let (place, repo, nested) = match project {
        Ok(outer) if outer != workdir => match workdir.strip_prefix(&outer) {
            Ok(rel) => (Place::NestedShared, outer.clone(), Some(rel.to_path_buf())),
            Err(_) => (Place::Shared, workdir.to_path_buf(), None),
        },
        _ => (Place::Shared, workdir.to_path_buf(), None),
    };
    let what = match &nested {
        Some(rel) => format!("the shared checkout of nested repository {}", rel.display()),
        None => "the shared checkout".to_string(),
    };
    Report {
        ok: false,
        place,
        repo: Some(repo),
        worktree: Some(workdir.to_path_buf()),
        agent: None,
        nested,
        branch,
        lane: None,
        problem: Some(format!(
            "this is {what}: agents never work here; use `fleet worktree new NAME` (or `fleet preflight --agent NAME --create`)"
        )),
        target: None,
    }
}

/// The outer repository whose checkout holds the repository checked out at `checkout`
/// as a nested repository: its shared checkout and the relative path.
fn outer_of(checkout: &Path) -> Option<(PathBuf, PathBuf)> {
    let parent = checkout.parent()?;
    let outer = Repo::discover(parent).ok()?;
    let outer_shared = canon(&outer.main_workdir().ok()??);
    let outer_workdir = canon(&outer.workdir()?);
    let rel = checkout.strip_prefix(&outer_workdir).ok()?.to_path_buf();
    // Climb further: the outer may itself be nested.
    match outer_of(&outer_shared) {
        Some((outermost, outer_rel)) if outer_workdir == outer_shared => {
            Some((outermost, outer_rel.join(rel)))
        }
        _ => Some((outer_shared, rel)),
    }
}

fn agent_report(workdir: &Path, shared: &Path) -> Result<Report> {
    let (config, _) = Config::load(shared)?;
    let root = canon(&crate::context::normalize(
        &config.worktrees.root_in(shared),
    ));
    let mut report = Report::blind("");
    report.repo = Some(shared.to_path_buf());
    report.worktree = Some(workdir.to_path_buf());
    report.target = Some(config.lanes.target.as_str().to_string());
    if workdir.parent() != Some(root.as_path()) {
        report.problem = Some(format!(
            "{} is a linked worktree, but not an agent worktree (those live in {})",
            workdir.display(),
            root.display()
        ));
        return Ok(report);
    }
    let name = workdir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    report.place = Place::Agent;
    report.lane = Some(format!("{}{name}", config.lanes.prefix.as_str()));
    report.agent = Some(name);
    Ok(report)
}

/// A nested repository's linked worktree: it must sit at `rel` inside an agent
/// worktree of the outer repository, on that agent's branch.
fn nested_report(workdir: &Path, outer: &Path, rel: &Path) -> Result<Report> {
    let ctx = Context::find(outer)?;
    let target = Some(ctx.target().to_string());
    let root = canon(&ctx.worktree_root());
    let agent_dir = strip_suffix(workdir, rel);
    let mut report = Report::blind("");
    report.repo = Some(outer.to_path_buf());
    report.worktree = Some(workdir.to_path_buf());
    report.nested = Some(rel.to_path_buf());
    report.target = target;
    let Some(agent_dir) = agent_dir.filter(|a| a.parent() == Some(root.as_path())) else {
        report.problem = Some(format!(
            "{} is a worktree of nested repository {}, but not inside an agent worktree under {}",
            workdir.display(),
            rel.display(),
            root.display()
        ));
        return Ok(report);
    };
    let registered = ctx
        .repo
        .worktrees()?
        .into_iter()
        .any(|w| !w.is_main && canon(&w.path) == agent_dir);
    if !registered {
        report.problem = Some(format!(
            "{} is not a worktree of {}",
            agent_dir.display(),
            outer.display()
        ));
        return Ok(report);
    }
    let name = agent_dir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    report.place = Place::NestedAgent;
    report.lane = Some(ctx.branch_for(&name));
    report.agent = Some(name);
    Ok(report)
}

fn strip_suffix(path: &Path, suffix: &Path) -> Option<PathBuf> {
    if !path.ends_with(suffix) {
        return None;
    }
    let mut path = path.to_path_buf();
    for _ in suffix.components() {
        path.pop();
    }
    Some(path)
}

fn canon(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
