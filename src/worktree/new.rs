//! `worktree new`: mint an agent worktree and branch, nested repositories included,
//! all or nothing within a run, converging when run again after a crash.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::submodules::complete_submodules;
use super::{
    AgentName, empty_trash, is_checkout, is_empty_dir, is_initializing, lock_reason, lock_to_make,
    same_path,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{ObjectId, Repo};
use crate::nested::{self, Nested};

/// What `worktree new` was asked to do.
pub struct NewRequest {
    pub name: AgentName,
    pub base: Option<String>,
    pub force_base: bool,
    /// Where the command runs: `base` means there what git means there (`HEAD` in an
    /// agent worktree is that worktree's HEAD, not the shared checkout's).
    pub cwd: Option<PathBuf>,
}

/// One repository's part of an agent worktree.
#[derive(Clone, Debug, Serialize)]
pub struct Member {
    /// Relative to the outer checkout; empty for the outer repository itself.
    pub rel: PathBuf,
    /// The repository's shared checkout.
    pub shared: PathBuf,
    /// Where the member worktree lives.
    pub path: PathBuf,
    pub branch: String,
    #[serde(skip)]
    pub depth: usize,
    /// Attach the worktree to the existing agent branch instead of creating it.
    #[serde(skip)]
    pub reuse_branch: bool,
}

#[derive(Debug, Serialize)]
pub struct NewOutcome {
    pub path: PathBuf,
    /// `path` again, under the key `status` and `preflight` give a lane's worktree.
    pub worktree: PathBuf,
    pub branch: String,
    /// False when everything already existed.
    pub created: bool,
    pub members: Vec<Member>,
    pub notes: Vec<String>,
}

/// Undo log for one `new` run.
enum Undo {
    Branch {
        repo: PathBuf,
        name: String,
        at: ObjectId,
    },
    Worktree {
        repo: PathBuf,
        path: PathBuf,
    },
    Dir(PathBuf),
}

enum State {
    Present,
    /// Nothing there yet; `Some(tip)` when the agent branch exists without a worktree
    /// (kept by `rm`, or left by a crash) and gets one attached.
    Absent(Option<ObjectId>),
    /// A worktree whose first checkout never finished (a crash): fleet's own leftover,
    /// with the id of its record.
    Unfinished(String),
    Conflict(String),
    /// The folder is another repository's agent worktree (the root is shared).
    Foreign(String),
}

pub fn new(ctx: &Context, req: &NewRequest) -> Result<NewOutcome> {
    make(ctx, req, true)
}

/// [`new`] without the note that no guard hooks are installed ([`note_unguarded`]), for
/// a caller that shows no notes: `fleet drain`, which makes a worktree per run. Asking
/// git for the hooks folders is two git processes, a third of the time of making the
/// worktree (9 ms of 26 per drained task, measured), for a note nobody reads.
pub fn new_without_hooks_note(ctx: &Context, req: &NewRequest) -> Result<NewOutcome> {
    make(ctx, req, false)
}

fn make(ctx: &Context, req: &NewRequest, hooks_note: bool) -> Result<NewOutcome> {
    let _lock = lock_to_make(&ctx.repo, &req.name)?;
    let root = ctx.worktree_root();
    empty_trash(&root);
    let dest = root.join(req.name.as_str());
    let branch = ctx.branch_for(req.name.as_str());
    if branch == ctx.target() {
        return Err(Error::usage(format!(
            "agent `{}` would work on `{branch}`, the target branch itself",
            req.name.as_str()
        ))
        .with_help("pick another name, or set a [lanes] prefix such as \"fleet/\""));
    }
    let target_tip = ctx.target_tip()?;
    let base = match &req.base {
        Some(rev) => {
            let here = req
                .cwd
                .as_deref()
                .and_then(|cwd| same_repository_at(ctx, cwd));
            here.as_ref().unwrap_or(&ctx.repo).resolve_commit(rev)?
        }
        None => target_tip,
    };
    check_behind(ctx, base, target_tip, req)?;

    let (nested, mut notes) = ctx.discover_nested(&root);
    if let Some(outer) = &ctx.inside_unmanaged {
        notes.push(format!(
            "{} sits inside the checkout of {}: it is taken as a project of its own \
             (if it is a nested repository of that one, run `fleet init` in {} and start again)",
            ctx.shared.display(),
            outer.display(),
            outer.display()
        ));
    }
    let nested = skip_unborn(ctx, nested, &mut notes);
    let members = plan_members(ctx, &dest, &branch, &nested);

    // A Ctrl-C stops the git children, and what was started is undone (or, for a
    // submodule, marked) before fleet ends with the signal.
    let deferred = crate::proc::defer_signals();
    let mut conflicts = Vec::new();
    let mut foreign = false;
    let mut todo = Vec::new();
    for member in &members {
        let repo = ctx.repo_at(&member.shared)?;
        let mut state = member_state(&repo, member)?;
        // Redo a checkout a crash interrupted, unless something else has since been
        // put inside it: that is not fleet's to delete.
        if let State::Unfinished(id) = &state
            && nested::repositories_under(&member.path).is_empty()
        {
            notes.push(format!(
                "{} was left half-created by an earlier run; redoing it",
                member.path.display()
            ));
            // Its files first, then its record: its `.git` link may never have been
            // written, so this cannot go through a worktree removal.
            crate::files::remove_tree(&member.path)
                .map_err(|e| Error::env(format!("cannot clear {}: {e}", member.path.display())))?;
            repo.drop_worktree_record(id)?;
            state = member_state(&repo, member)?;
        }
        match state {
            // A crash can hit between the checkout and the submodules: fill them in.
            State::Present => notes.extend(complete_submodules(member)?),
            State::Absent(existing) => {
                if let Some(tip) = existing {
                    notes.push(format!(
                        "branch {} already exists in {} (at {}); attaching the worktree to it",
                        member.branch,
                        member.shared.display(),
                        tip.to_hex_with_len(12)
                    ));
                }
                todo.push(Member {
                    reuse_branch: existing.is_some(),
                    ..member.clone()
                });
            }
            State::Unfinished(_) => conflicts.push(format!(
                "{} was never fully checked out, and other repositories have been put inside it since",
                member.path.display()
            )),
            State::Conflict(why) => conflicts.push(why),
            State::Foreign(why) => {
                foreign = true;
                conflicts.push(why);
            }
        }
    }
    if !conflicts.is_empty() {
        let help = if foreign {
            format!(
                "the worktree root {} is shared with another repository: give this one its own \
                 with [worktrees] root = \"{}\" in fleet.toml, or pick another agent name",
                root.display(),
                crate::config::DEFAULT_ROOT
            )
        } else {
            format!(
                "inspect it, then `fleet worktree rm {}` (add --force to drop its changes) and retry",
                req.name.as_str()
            )
        };
        return Err(Error::refused(format!(
            "agent worktree `{}` exists but is not consistent:\n  {}",
            req.name.as_str(),
            conflicts.join("\n  ")
        ))
        .with_help(help));
    }
    let created = !todo.is_empty();
    if let (false, Some(rev)) = (created, &req.base) {
        notes.push(format!(
            "the worktree already exists: --base {rev} is ignored (its branch stays where it is)"
        ));
    }
    let mut undo = Vec::new();
    if let Err(e) = create_all(ctx, &todo, base, &root, &mut undo, &mut notes) {
        roll_back(undo);
        return Err(e);
    }
    drop(deferred);
    cover_with_guard(ctx, &members, &mut notes);
    if hooks_note {
        note_unguarded(ctx, &dest, &mut notes);
    }
    track_lane(ctx, &branch, &mut notes)?;
    Ok(NewOutcome {
        worktree: dest.clone(),
        path: dest,
        branch,
        created,
        members,
        notes,
    })
}

/// The worktree of the project's own repository that `cwd` is in, if any: from inside
/// a nested repository's or a submodule's checkout, the one around it.
fn same_repository_at(ctx: &Context, cwd: &Path) -> Option<Repo> {
    let common = ctx.repo.common_dir();
    let mut dir = cwd.to_path_buf();
    loop {
        let repo = Repo::discover(&dir).ok()?;
        if same_path(&repo.common_dir(), &common) {
            return Some(repo);
        }
        dir = repo.workdir()?.parent()?.to_path_buf();
    }
}

fn check_behind(
    ctx: &Context,
    base: ObjectId,
    target_tip: ObjectId,
    req: &NewRequest,
) -> Result<()> {
    let behind = ctx.repo.count_exclusive(target_tip, base)?;
    let max = ctx.config.worktrees.max_behind as usize;
    if behind > max && !req.force_base {
        return Err(Error::refused(format!(
            "base {} is {behind} commits behind `{}` (max_behind is {max})",
            req.base.as_deref().unwrap_or("?"),
            ctx.target()
        ))
        .with_help("start from a newer base, raise [worktrees] max_behind, or pass --force-base"));
    }
    Ok(())
}

/// With a relative `core.hooksPath` each worktree has a hooks folder of its own: give the
/// new ones the guard's hooks. Not fatal: the worktree is usable, the note says what to do.
fn cover_with_guard(ctx: &Context, members: &[Member], notes: &mut Vec<String>) {
    for m in members {
        let covered = ctx
            .repo_at(&m.shared)
            .and_then(|repo| crate::guard::hooks::cover_new_worktree(&repo, &m.path));
        if let Err(e) = covered {
            notes.push(format!(
                "the guard hooks could not be installed for {}: {} (run `fleet hooks install`)",
                m.path.display(),
                e.message
            ));
        }
    }
}

/// An agent worktree made where no guard hooks are installed (`fleet init` skipped, or
/// the hooks lost their run bit) leaves the shared checkout open to the agent: say so,
/// so nobody believes they are protected.
///
/// What is looked at is what guards this worktree: the hooks folders git uses in each
/// repository's shared checkout and in its new worktree, and its submodules'. Not every
/// other worktree's, as `fleet hooks status` does: that is two git processes per agent
/// worktree there is, for each new one (half the time of `worktree new` at 20 agents).
fn note_unguarded(ctx: &Context, dest: &Path, notes: &mut Vec<String>) {
    use crate::guard::hooks::{HOOKS, HookState, hook_status};
    let unguarded_in = |dir: &Path| {
        HOOKS.iter().any(|hook| {
            matches!(
                hook_status(dir, hook).state,
                HookState::Missing | HookState::Disabled
            )
        })
    };
    let mut unguarded = Vec::new();
    for rel in ctx.shared_checkouts() {
        let outer = rel == Path::new(".");
        let shared = if outer {
            ctx.shared.clone()
        } else {
            ctx.shared.join(&rel)
        };
        let worktree = if outer {
            dest.to_path_buf()
        } else {
            dest.join(&rel)
        };
        let mut dirs = Vec::new();
        for checkout in [&shared, &worktree] {
            if checkout.is_dir()
                && let Ok(dir) = crate::git::cli::hooks_dir(checkout)
                && !dirs.contains(&dir)
            {
                dirs.push(dir);
            }
        }
        if dirs.iter().any(|dir| unguarded_in(dir)) {
            unguarded.push(rel.display().to_string());
        }
        let Ok(submodules) = crate::guard::submodules::status(&shared, &rel) else {
            continue;
        };
        for report in submodules {
            if report.dirs.iter().any(|d| unguarded_in(&d.dir)) {
                unguarded.push(report.repo.display().to_string());
            }
        }
    }
    if !unguarded.is_empty() {
        notes.push(format!(
            "no guard hooks are installed in {} (`fleet hooks status`): nothing stops a commit, \
             switch or reset in the shared checkout; run `fleet init` (or `fleet hooks install`)",
            unguarded.join(", ")
        ));
    }
}

/// The agent's branch is a lane from the start (running), so the worker's own
/// `fleet ready --exit-code $? --log FILE` works and `fleet preflight`'s "lane:" is
/// true. With the queue on a remote, tracking would publish the branch there: that is
/// left to `fleet track`, and said.
fn track_lane(ctx: &Context, branch: &str, notes: &mut Vec<String>) -> Result<()> {
    let queue = crate::queue::Queue::configured(ctx);
    if let Some(remote) = queue.remote() {
        notes.push(format!(
            "the lane queue is on the remote `{remote}`: {branch} is not tracked yet; `fleet track {branch}` publishes and tracks it (before `fleet ready`)"
        ));
        return Ok(());
    }
    if let Some(tip) = ctx.repo.branch_tip(branch)? {
        queue.track_new_worktree(ctx, branch, tip)?;
    }
    Ok(())
}

/// A nested repository without commits cannot have a worktree; say so and go on.
fn skip_unborn(ctx: &Context, nested: Vec<Nested>, notes: &mut Vec<String>) -> Vec<Nested> {
    nested
        .into_iter()
        .filter(|n| {
            let born = Repo::open(&ctx.shared.join(&n.rel))
                .and_then(|r| r.head_id())
                .is_ok_and(|h| h.is_some());
            if !born {
                notes.push(format!(
                    "nested repository {} has no commits yet; it gets no worktree",
                    n.rel.display()
                ));
            }
            born
        })
        .collect()
}

fn plan_members(ctx: &Context, dest: &Path, branch: &str, nested: &[Nested]) -> Vec<Member> {
    let mut members = vec![Member {
        rel: PathBuf::new(),
        shared: ctx.shared.clone(),
        path: dest.to_path_buf(),
        branch: branch.to_string(),
        depth: 0,
        reuse_branch: false,
    }];
    for n in nested {
        members.push(Member {
            rel: n.rel.clone(),
            shared: ctx.shared.join(&n.rel),
            path: dest.join(&n.rel),
            branch: branch.to_string(),
            depth: n.depth,
            reuse_branch: false,
        });
    }
    members
}

/// Is this member already there (and right), absent, or in the way? `repo` is the
/// member's shared checkout's repository.
fn member_state(repo: &Repo, member: &Member) -> Result<State> {
    let worktrees = repo.worktrees()?;
    let registered = worktrees.iter().find(|w| same_path(&w.path, &member.path));
    let elsewhere = worktrees.iter().find(|w| {
        w.branch.as_deref() == Some(member.branch.as_str()) && !same_path(&w.path, &member.path)
    });
    let branch_tip = repo.branch_tip(&member.branch)?;
    let shown = member.path.display();
    if repo.head_branch()?.as_deref() == Some(member.branch.as_str()) {
        return Ok(State::Conflict(format!(
            "{} has {} checked out in its shared checkout: an agent cannot work on it",
            member.shared.display(),
            member.branch
        )));
    }
    Ok(match registered {
        Some(wt)
            if wt.missing
                && lock_reason(repo, wt.id.as_deref()).is_some_and(|r| !is_initializing(&r)) =>
        {
            State::Conflict(format!(
                "{shown} is registered as a locked worktree whose folder is gone (unmounted?); `git worktree unlock` it if it is really gone"
            ))
        }
        Some(wt) if wt.missing => {
            // The folder is gone (a removal or creation cut short): drop the stale record
            // and start again; the branch and its commits stay.
            repo.drop_worktree_record(wt.id.as_deref().unwrap_or_default())?;
            return member_state(repo, member);
        }
        // A creation cut short (still locked `initializing`, no index yet): its HEAD may
        // be git's placeholder and its `.git` link not written yet.
        Some(wt)
            if !has_index(repo, wt.id.as_deref())
                && lock_reason(repo, wt.id.as_deref()).is_some_and(|r| is_initializing(&r)) =>
        {
            State::Unfinished(wt.id.clone().unwrap_or_default())
        }
        Some(_) if !is_checkout(&member.path) => State::Conflict(format!(
            "{shown} is registered as a worktree but has no `.git` any more (a removal cut short?)"
        )),
        Some(wt) if wt.branch.as_deref() != Some(member.branch.as_str()) => {
            State::Conflict(format!(
                "{shown} is a worktree on {} instead of {}",
                wt.branch.as_deref().unwrap_or("a detached HEAD"),
                member.branch
            ))
        }
        Some(_) if !has_index(repo, registered.and_then(|w| w.id.as_deref())) => {
            State::Conflict(format!(
                "{shown} is a worktree without a checkout (made with --no-checkout?); fleet leaves it alone"
            ))
        }
        Some(_) => State::Present,
        None if elsewhere.is_some() => State::Conflict(format!(
            "branch {} is checked out at {}, not at {shown}",
            member.branch,
            elsewhere
                .map(|w| w.path.display().to_string())
                .unwrap_or_default()
        )),
        None if member.path.exists() && !is_empty_dir(&member.path) => {
            match owner_elsewhere(&member.path, &member.shared) {
                Some(owner) => State::Foreign(format!(
                    "{shown} already exists: it is a worktree of another repository, {}",
                    owner.display(),
                )),
                None => State::Conflict(format!(
                    "{shown} already exists and is not an agent worktree"
                )),
            }
        }
        None => State::Absent(branch_tip),
    })
}

/// The shared checkout of the repository `path` is a worktree of, when that is not
/// `shared`'s: another project's agent folder in a root both use.
fn owner_elsewhere(path: &Path, shared: &Path) -> Option<PathBuf> {
    let owner = Repo::open(path).ok()?.main_repo().ok()?.workdir()?;
    let mine = Repo::open(shared).ok()?.common_dir();
    let theirs = Repo::open(&owner).ok()?.common_dir();
    (!same_path(&mine, &theirs)).then_some(owner)
}

fn has_index(repo: &Repo, id: Option<&str>) -> bool {
    id.is_some_and(|id| repo.worktree_record(id).has_index())
}

fn create_all(
    ctx: &Context,
    todo: &[Member],
    outer_base: ObjectId,
    root: &Path,
    undo: &mut Vec<Undo>,
    notes: &mut Vec<String>,
) -> Result<()> {
    if !root.exists() {
        // Every folder this creates (`.fleet-work` too, for the default
        // `../.fleet-work/<repo>`) goes on a roll-back, innermost first.
        let mut created = vec![root.to_path_buf()];
        while let Some(parent) = created.last().and_then(|d| d.parent())
            && !parent.exists()
        {
            created.push(parent.to_path_buf());
        }
        std::fs::create_dir_all(root).map_err(|e| {
            Error::env(format!(
                "cannot create the worktree root {}: {e}",
                root.display()
            ))
        })?;
        undo.extend(created.into_iter().rev().map(Undo::Dir));
    }
    let max_depth = todo.iter().map(|m| m.depth).max().unwrap_or(0);
    for depth in 0..=max_depth {
        let level: Vec<&Member> = todo.iter().filter(|m| m.depth == depth).collect();
        if depth == 1 {
            crate::failpoint::hit("worktree-new-after-outer")?;
        }
        // Members at one depth are independent: create them side by side, so nested
        // repositories do not add their times up.
        let results: Vec<Result<(Vec<Undo>, Vec<String>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = level
                .iter()
                .map(|m| {
                    let base = if m.depth == 0 { Some(outer_base) } else { None };
                    // The outer repository is open already; a nested one is opened on
                    // its own thread, beside the others.
                    let repo = ctx.own_repo_at(&m.shared);
                    scope.spawn(move || create_member(m, base, repo))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::env("a worker thread panicked")))
                })
                .collect()
        });
        let mut first_error = None;
        for result in results {
            match result {
                Ok((done, more_notes)) => {
                    undo.extend(done);
                    notes.extend(more_notes);
                }
                Err(e) => first_error = first_error.or(Some(e)),
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
    }
    Ok(())
}

/// Create one member's branch and worktree, and populate its submodules. On error the
/// returned undo entries are lost, so undo this member's own steps before returning.
/// `repo`: the member's shared repository when it is open already.
fn create_member(
    member: &Member,
    base: Option<ObjectId>,
    repo: Option<Repo>,
) -> Result<(Vec<Undo>, Vec<String>)> {
    let mut done = Vec::new();
    let result = repo
        .map_or_else(|| Repo::open(&member.shared), Ok)
        .and_then(|repo| create_member_steps(&repo, member, base, &mut done));
    match result {
        Ok(notes) => Ok((done, notes)),
        Err(mut e) => {
            roll_back(done);
            if member.depth > 0 {
                // Say which repository failed: the outer one is the obvious one.
                e.message = format!("nested repository {}: {}", member.rel.display(), e.message);
            }
            Err(e)
        }
    }
}

fn create_member_steps(
    repo: &Repo,
    member: &Member,
    base: Option<ObjectId>,
    done: &mut Vec<Undo>,
) -> Result<Vec<String>> {
    let base = match base {
        Some(base) => base,
        // A nested repository starts from its own shared checkout's current commit.
        None => repo.head_id()?.ok_or_else(|| {
            Error::refused(format!(
                "nested repository {} has no commits yet",
                member.shared.display()
            ))
            .with_help("commit something there first")
        })?,
    };
    if let Some(parent) = member.path.parent()
        && !parent.exists()
    {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::env(format!("cannot create {}: {e}", parent.display())))?;
        done.push(Undo::Dir(parent.to_path_buf()));
    }
    if !member.reuse_branch {
        repo.create_branch(
            &member.branch,
            base,
            &format!("worktree new: branch created from {base}"),
        )?;
        done.push(Undo::Branch {
            repo: member.shared.clone(),
            name: member.branch.clone(),
            at: base,
        });
    }
    repo.add_worktree(&member.path, &member.branch)?;
    done.push(Undo::Worktree {
        repo: member.shared.clone(),
        path: member.path.clone(),
    });
    complete_submodules(member)
}

fn roll_back(undo: Vec<Undo>) {
    for step in undo.into_iter().rev() {
        match step {
            Undo::Worktree { repo, path } => {
                if let Ok(repo) = Repo::open(&repo) {
                    let _ = repo.remove_worktree(&path);
                }
                let _ = std::fs::remove_dir_all(&path);
            }
            Undo::Branch { repo, name, at } => {
                if let Ok(repo) = Repo::open(&repo) {
                    let _ = repo.cas_delete(&crate::refs::branch(&name), at);
                }
            }
            Undo::Dir(dir) => {
                let _ = std::fs::remove_dir(&dir);
            }
        }
    }
}
