//! Agent worktrees: one linked worktree and branch per worker, with a linked worktree
//! of every nested repository at the same relative path inside it.
//!
//! Promises: the shared checkouts (outer and nested) are never touched; `new` is
//! all-or-nothing within a run (a failure undoes what the run created, in every
//! repository) and converges when run again after a crash; `rm` never deletes
//! uncommitted or unlanded work without `--force`, and never deletes an unlanded branch.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, ObjectId, Repo};
use crate::lanes::landed::head_landed;
use crate::nested::{self, Nested};

/// A validated agent name: one branch-name component that cannot leave the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentName(String);

impl AgentName {
    pub fn parse(name: &str) -> Result<AgentName> {
        let why = if name.is_empty() {
            Some("it is empty")
        } else if name == "." || name == ".." || name.contains("..") {
            Some("it contains `..`, which could leave the worktree root")
        } else if name.contains('/') || name.contains('\\') {
            Some("it contains a path separator")
        } else if name.chars().any(char::is_control) {
            Some("it contains a control character")
        } else if name.len() > 100 {
            Some("it is longer than 100 bytes")
        } else if name.starts_with('-') {
            Some("it starts with `-`")
        } else if !crate::config::is_valid_branch_name(name) {
            Some("it is not a valid branch name component")
        } else {
            None
        };
        match why {
            Some(why) => Err(Error::usage(format!("invalid agent name {name:?}: {why}"))
                .with_help("use letters, digits, `-`, `_` and `.`, like `task-42`")),
            None => Ok(AgentName(name.to_string())),
        }
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

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
}

/// Agent worktrees of one repository are created and removed one at a time.
const LOCK: &str = "worktree";
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

pub fn new(ctx: &Context, req: &NewRequest) -> Result<NewOutcome> {
    let _lock = ctx.repo.lock(LOCK, LOCK_WAIT)?;
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
    let mut todo = Vec::new();
    for member in &members {
        let mut state = member_state(member)?;
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
            Repo::open(&member.shared)?.drop_worktree_record(id)?;
            state = member_state(member)?;
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
        }
    }
    if !conflicts.is_empty() {
        return Err(Error::refused(format!(
            "agent worktree `{}` exists but is not consistent:\n  {}",
            req.name.as_str(),
            conflicts.join("\n  ")
        ))
        .with_help(format!(
            "inspect it, then `fleet worktree rm {}` (add --force to drop its changes) and retry",
            req.name.as_str()
        )));
    }
    let created = !todo.is_empty();
    if let (false, Some(rev)) = (created, &req.base) {
        notes.push(format!(
            "the worktree already exists: --base {rev} is ignored (its branch stays where it is)"
        ));
    }
    let mut undo = Vec::new();
    if let Err(e) = create_all(&todo, base, &root, &mut undo, &mut notes) {
        roll_back(undo);
        return Err(e);
    }
    drop(deferred);
    cover_with_guard(&members, &mut notes);
    Ok(NewOutcome {
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
fn cover_with_guard(members: &[Member], notes: &mut Vec<String>) {
    for m in members {
        let covered = Repo::open(&m.shared)
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

/// Is this member already there (and right), absent, or in the way?
fn member_state(member: &Member) -> Result<State> {
    let repo = Repo::open(&member.shared)?;
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
                && lock_reason(&repo, wt.id.as_deref()).is_some_and(|r| !is_initializing(&r)) =>
        {
            State::Conflict(format!(
                "{shown} is registered as a locked worktree whose folder is gone (unmounted?); `git worktree unlock` it if it is really gone"
            ))
        }
        Some(wt) if wt.missing => {
            // The folder is gone (a removal or creation cut short): drop the stale record
            // and start again; the branch and its commits stay.
            repo.drop_worktree_record(wt.id.as_deref().unwrap_or_default())?;
            return member_state(member);
        }
        // A creation cut short (still locked `initializing`, no index yet): its HEAD may
        // be git's placeholder and its `.git` link not written yet.
        Some(wt)
            if !has_index(&repo, wt.id.as_deref())
                && lock_reason(&repo, wt.id.as_deref()).is_some_and(|r| is_initializing(&r)) =>
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
        Some(_) if !has_index(&repo, registered.and_then(|w| w.id.as_deref())) => {
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
        None if member.path.exists() && !is_empty_dir(&member.path) => State::Conflict(format!(
            "{shown} already exists and is not an agent worktree"
        )),
        None => State::Absent(branch_tip),
    })
}

/// A worktree folder still holding its `.git` link.
fn is_checkout(path: &Path) -> bool {
    std::fs::symlink_metadata(path.join(".git")).is_ok()
}

fn has_index(repo: &Repo, id: Option<&str>) -> bool {
    id.is_some_and(|id| repo.worktree_record(id).has_index())
}

fn create_all(
    todo: &[Member],
    outer_base: ObjectId,
    root: &Path,
    undo: &mut Vec<Undo>,
    notes: &mut Vec<String>,
) -> Result<()> {
    if !root.exists() {
        std::fs::create_dir_all(root).map_err(|e| {
            Error::env(format!(
                "cannot create the worktree root {}: {e}",
                root.display()
            ))
        })?;
        undo.push(Undo::Dir(root.to_path_buf()));
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
                    scope.spawn(move || create_member(m, base))
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
fn create_member(member: &Member, base: Option<ObjectId>) -> Result<(Vec<Undo>, Vec<String>)> {
    let mut done = Vec::new();
    let result = create_member_steps(member, base, &mut done);
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
    member: &Member,
    base: Option<ObjectId>,
    done: &mut Vec<Undo>,
) -> Result<Vec<String>> {
    let repo = Repo::open(&member.shared)?;
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

/// Populate the submodules of a member's worktree that are not checked out yet, and
/// finish the ones a cut-short run left a marker for. Submodules without a marker are
/// never touched again: they may hold the agent's work.
fn complete_submodules(member: &Member) -> Result<Vec<String>> {
    let markers = crate::state::submodule_markers(&Repo::open(&member.path)?.git_dir());
    let notes = populate_submodules(&markers, &member.path, &member.path, &member.shared)?;
    let _ = std::fs::remove_dir(&markers);
    Ok(notes)
}

/// Check out the submodules of the checkout `path` (inside the worktree `top`) from the
/// objects of the shared checkout `shared`, recursively, without the network.
fn populate_submodules(
    markers: &Path,
    top: &Path,
    path: &Path,
    shared: &Path,
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    let repo = Repo::open(path)?;
    for sub in repo.submodules() {
        let (name, rel) = (sub.name, sub.path);
        let checkout = path.join(&rel);
        let source = shared.join(&rel);
        let Ok(source_repo) = Repo::open(&source) else {
            notes.push(format!(
                "submodule {} is not populated: the shared checkout has no copy of it (run `git submodule update --init` there)",
                rel.display()
            ));
            continue;
        };
        let url = sub.url;
        if let Some(recorded) = sub.index_id
            && !source_repo.has_object(recorded)
        {
            notes.push(format!(
                "submodule {} is not populated: the shared checkout's copy lacks its commit {} (run `git submodule update` there)",
                rel.display(),
                recorded.to_hex_with_len(12)
            ));
            continue;
        }
        let marker = markers.join(marker_name(checkout.strip_prefix(top).unwrap_or(&rel)));
        let cut_short = marker.exists();
        if cut_short {
            notes.push(format!(
                "submodule {} was being checked out when an earlier run stopped; checking it out again",
                checkout.display()
            ));
            restart_submodule(&checkout)?;
        }
        let checked_out = checkout.join(".git").exists();
        if !checked_out || cut_short {
            std::fs::create_dir_all(markers)
                .and_then(|()| std::fs::write(&marker, b""))
                .map_err(|e| Error::env(format!("cannot write {}: {e}", marker.display())))?;
            let rel_str = rel.to_string_lossy().replace('\\', "/");
            let source_dir = source_repo.git_dir();
            git::cli::submodule_update_from_local(path, &name, &rel_str, &source_dir, checked_out)?;
            if let Some(url) = url {
                git::cli::set_origin_url(&checkout, &url)?;
            }
            let _ = std::fs::remove_file(&marker);
        }
        notes.extend(populate_submodules(markers, top, &checkout, &source)?);
    }
    Ok(notes)
}

/// A marker's file name: the submodule's path inside the worktree, hex-encoded.
fn marker_name(rel: &Path) -> String {
    rel.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Get a submodule checkout fleet started and did not finish ready to be checked out
/// again: one whose clone never got a readable HEAD is cleared (its module git dir too)
/// so it is cloned anew; otherwise the cut-short checkout's index lock is waited out and
/// the forced update that follows rewrites its files.
fn restart_submodule(checkout: &Path) -> Result<()> {
    let opened = Repo::open(checkout).ok();
    if let Some(repo) = &opened
        && matches!(repo.head_id(), Ok(Some(_)))
    {
        git::wait_out_lock(&repo.index_lock());
        return Ok(());
    }
    let module_dir = opened
        .map(|r| r.git_dir())
        .or_else(|| git::gitdir_link(checkout));
    for dir in module_dir.iter().chain([&checkout.to_path_buf()]) {
        crate::files::remove_tree(dir)
            .map_err(|e| Error::env(format!("cannot clear {}: {e}", dir.display())))?;
    }
    Ok(())
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

fn same_path(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| {
        p.canonicalize()
            .unwrap_or_else(|_| crate::context::normalize(p))
    };
    canon(a) == canon(b)
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

// ---------------------------------------------------------------------------------
// path_of

/// Where agent `name`'s worktree is: `Ok(path)` when that folder is a linked worktree
/// registered with the repository and there (a symlink to one does not count),
/// `Err(path)` with the folder it would be at when it is not.
pub fn path_of(ctx: &Context, name: &AgentName) -> Result<std::result::Result<PathBuf, PathBuf>> {
    let path = ctx.worktree_root().join(name.as_str());
    let registered = ctx.repo.worktrees()?.into_iter().any(|w| {
        !w.is_main && !w.missing && w.path.canonicalize().ok() == path.canonicalize().ok()
    });
    if !registered || std::fs::read_link(&path).is_ok() {
        return Ok(Err(path));
    }
    Ok(Ok(path))
}

// ---------------------------------------------------------------------------------
// list

#[derive(Debug, Serialize)]
pub struct Listed {
    pub name: String,
    pub path: PathBuf,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// Commits on the branch that the target does not have, and the reverse.
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    pub dirty: Option<bool>,
    /// Unix time of the last commit.
    pub last_commit: Option<i64>,
    pub missing: bool,
    pub nested: Vec<ListedNested>,
}

#[derive(Debug, Serialize)]
pub struct ListedNested {
    pub rel: PathBuf,
    pub path: PathBuf,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    pub dirty: Option<bool>,
    pub last_commit: Option<i64>,
    /// The folder is gone: `fleet worktree prune` would drop the record.
    pub missing: bool,
}

pub fn list(ctx: &Context) -> Result<Vec<Listed>> {
    let root = ctx.worktree_root();
    let root_canon = root.canonicalize().unwrap_or(root.clone());
    let target_tip = ctx.repo.branch_tip(ctx.target())?;
    let (nested, _) = ctx.discover_nested(&root);
    let mut out = Vec::new();
    for wt in ctx.repo.worktrees()? {
        if wt.is_main {
            continue;
        }
        let parent = wt
            .path
            .parent()
            .map(|p| p.canonicalize().unwrap_or(p.to_path_buf()));
        if parent.as_deref() != Some(root_canon.as_path()) {
            continue;
        }
        let name = wt
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let outer = facts(&ctx.repo, &wt, target_tip);
        let mut nested_list = Vec::new();
        for n in &nested {
            let shared = ctx.shared.join(&n.rel);
            let Ok(nrepo) = Repo::open(&shared) else {
                continue;
            };
            let path = wt.path.join(&n.rel);
            let Some(nwt) = nrepo
                .worktrees()?
                .into_iter()
                .find(|w| !w.is_main && same_path(&w.path, &path))
            else {
                continue;
            };
            let ntarget = nrepo.head_id().ok().flatten();
            let f = facts(&nrepo, &nwt, ntarget);
            nested_list.push(ListedNested {
                rel: n.rel.clone(),
                path,
                branch: nwt.branch.clone(),
                head: nwt.head.map(|h| h.to_string()),
                ahead: f.ahead,
                behind: f.behind,
                dirty: f.dirty,
                last_commit: f.last_commit,
                missing: nwt.missing,
            });
        }
        out.push(Listed {
            name,
            path: wt.path.clone(),
            branch: wt.branch.clone(),
            head: wt.head.map(|h| h.to_string()),
            ahead: outer.ahead,
            behind: outer.behind,
            dirty: outer.dirty,
            last_commit: outer.last_commit,
            missing: wt.missing,
            nested: nested_list,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

struct Facts {
    ahead: Option<usize>,
    behind: Option<usize>,
    dirty: Option<bool>,
    last_commit: Option<i64>,
}

fn facts(repo: &Repo, wt: &git::WorktreeInfo, target: Option<ObjectId>) -> Facts {
    let (ahead, behind) = match (wt.head, target) {
        (Some(h), Some(t)) => match repo.ahead_behind(h, t) {
            Ok((a, b)) => (Some(a), Some(b)),
            Err(_) => (None, None),
        },
        _ => (None, None),
    };
    let dirty = if wt.missing {
        None
    } else {
        Repo::open(&wt.path).and_then(|r| r.is_dirty()).ok()
    };
    let last_commit = wt.head.and_then(|h| repo.commit_time(h).ok());
    Facts {
        ahead,
        behind,
        dirty,
        last_commit,
    }
}

// ---------------------------------------------------------------------------------
// rm and prune

#[derive(Debug, Serialize)]
pub struct Removed {
    pub path: PathBuf,
    /// Worktrees removed, deepest first.
    pub worktrees: Vec<PathBuf>,
    /// Agent branches deleted because their changes are in their target.
    pub branches_deleted: Vec<String>,
    /// Branches kept because they hold work the target does not have.
    pub branches_kept: Vec<String>,
}

impl Removed {
    /// Nothing removed yet from the agent worktree at `path`.
    fn at(path: &Path) -> Removed {
        Removed {
            path: path.to_path_buf(),
            worktrees: Vec::new(),
            branches_deleted: Vec::new(),
            branches_kept: Vec::new(),
        }
    }
}

struct RmItem {
    shared: PathBuf,
    path: PathBuf,
    /// The id git registered the worktree under.
    id: String,
    branch: Option<String>,
    head: Option<ObjectId>,
    lock: Option<String>,
    depth: usize,
    /// The commit "landed" is measured against.
    target: Option<ObjectId>,
}

/// What removing an agent worktree would lose. `forceable` problems are uncommitted
/// or untracked content that `--force` discards; `fatal` ones are commits that would
/// become unreachable, which no flag deletes.
#[derive(Default)]
struct Losses {
    forceable: Vec<String>,
    fatal: Vec<String>,
}

pub fn rm(ctx: &Context, name: &AgentName, force: bool) -> Result<Removed> {
    let _lock = ctx.repo.lock(LOCK, LOCK_WAIT)?;
    let root = ctx.worktree_root();
    let dest = root.join(name.as_str());
    let agent_branch = ctx.branch_for(name.as_str());
    if let Ok(target) = std::fs::read_link(&dest) {
        return Err(Error::refused(format!(
            "{} is a symbolic link (to {}), not an agent worktree",
            dest.display(),
            target.display()
        ))
        .with_help("remove the link by hand; `fleet worktree list` shows the agent worktrees"));
    }
    empty_trash(&root);
    let items = collect_rm_items(ctx, &dest, &root)?;
    if items.is_empty() {
        // A removal cut short after the worktrees went leaves the agent's branches.
        let leftovers = settle_leftover_branches(ctx, &dest, &agent_branch)?;
        if !leftovers.branches_deleted.is_empty() || !leftovers.branches_kept.is_empty() {
            return Ok(leftovers);
        }
        return Err(Error::refused(format!(
            "there is no agent worktree `{}` (looked for {})",
            name.as_str(),
            dest.display()
        ))
        .with_help("`fleet worktree list` shows the agent worktrees"));
    }
    let locked: Vec<String> = items
        .iter()
        .filter(|i| i.lock.as_deref().is_some_and(|r| !is_initializing(r)))
        .map(|i| format!("{} is locked", i.path.display()))
        .collect();
    if !locked.is_empty() {
        return Err(Error::refused(locked.join("\n  ")).with_help(
            "someone locked it on purpose: `git worktree unlock PATH` first, then retry",
        ));
    }
    let mut losses = Losses::default();
    let mut landed = Vec::new();
    for item in &items {
        landed.push(inspect_for_rm(item, &mut losses)?);
    }
    let members: Vec<PathBuf> = items.iter().map(|i| i.path.clone()).collect();
    for repo in unmanaged_repositories(&dest, &members) {
        match commits_only_in(&repo, &dest) {
            Some(what) => losses.fatal.push(format!(
                "{} is a git repository fleet does not manage, with commits that exist only there ({what})",
                repo.display()
            )),
            None => losses.forceable.push(format!(
                "{} is a git repository fleet does not manage",
                repo.display()
            )),
        }
    }
    if !losses.fatal.is_empty() || (!losses.forceable.is_empty() && !force) {
        let mut all = losses.fatal.clone();
        all.extend(losses.forceable.iter().cloned());
        let help = if losses.fatal.is_empty() {
            "commit and land it first, or pass --force to delete uncommitted changes and untracked files (unlanded branches are kept)"
        } else {
            "this would be lost even with --force: put commits on a branch (`git switch -c NAME`) or push them, move other repositories out, then retry"
        };
        return Err(Error::refused(format!(
            "agent worktree `{}` holds work that would be lost:\n  {}",
            name.as_str(),
            all.join("\n  ")
        ))
        .with_help(help));
    }
    let mut removed = Removed::at(&dest);
    // A Ctrl-C waits for the removals to finish (no child process runs here).
    let _uninterrupted = crate::proc::defer_signals();
    // Deepest first, so a nested worktree is gone before its parent folder goes.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(items[i].depth));
    for i in order {
        let item = &items[i];
        let repo = Repo::open(&item.shared)?;
        retire(&repo, item, &root)?;
        removed.worktrees.push(item.path.clone());
        let where_ = item.shared.display();
        match (&item.branch, item.head) {
            // Only the agent's own branch is ever deleted, and only once it has landed.
            (Some(branch), Some(head))
                if *branch == agent_branch
                    && landed[i]
                    && !is_target_branch(ctx, item, branch)? =>
            {
                repo.cas_delete(&crate::refs::branch(branch), head)?;
                removed
                    .branches_deleted
                    .push(format!("{branch} ({where_})"));
            }
            (Some(branch), _) if !landed[i] => {
                removed.branches_kept.push(format!("{branch} ({where_})"))
            }
            _ => {}
        }
    }
    let _ = std::fs::remove_dir(&dest);
    Ok(removed)
}

/// Where `rm` moves a worktree before deleting it; agent names cannot start with a dot.
const TRASH: &str = ".fleet-trash";

/// Remove one worktree so that a crash at any moment leaves either all of it or a
/// record whose folder is gone (which `new` and `prune` clear): the folder is first
/// moved aside into the root's trash (one rename), then its record goes, then its files.
fn retire(repo: &Repo, item: &RmItem, root: &Path) -> Result<()> {
    if item.path.exists() {
        let trash = root.join(TRASH);
        std::fs::create_dir_all(&trash)
            .map_err(|e| Error::env(format!("cannot create {}: {e}", trash.display())))?;
        let aside = trash.join(format!("{}-{}", item.id, std::process::id()));
        std::fs::rename(&item.path, &aside)
            .map_err(|e| Error::env(format!("cannot move {} aside: {e}", item.path.display())))?;
        repo.drop_worktree_record(&item.id)?;
        empty_trash(root);
    } else {
        repo.drop_worktree_record(&item.id)?;
    }
    Ok(())
}

/// Delete what earlier removals moved aside (a crash can leave it there).
fn empty_trash(root: &Path) {
    let trash = root.join(TRASH);
    if trash.exists() {
        let _ = std::fs::remove_dir_all(&trash);
    }
}

/// The agent's branches that no worktree has checked out, in the outer repository and
/// every nested one: deleted when landed (what `rm` does after removing a worktree),
/// reported as kept otherwise.
fn settle_leftover_branches(ctx: &Context, dest: &Path, branch: &str) -> Result<Removed> {
    let mut settled = Removed::at(dest);
    for (depth, rel) in ctx.shared_checkouts().iter().enumerate() {
        let shared = crate::context::normalize(&ctx.shared.join(rel));
        let Ok(repo) = Repo::open(&shared) else {
            continue;
        };
        let Some(tip) = repo.branch_tip(branch)? else {
            continue;
        };
        let checked_out = repo
            .worktrees()?
            .iter()
            .any(|w| w.branch.as_deref() == Some(branch));
        if checked_out {
            continue;
        }
        let landed = head_landed(&repo, Some(tip), target_of(ctx, &repo, depth)?)?;
        let shown = format!("{branch} ({})", shared.display());
        if landed && (depth > 0 || branch != ctx.target()) {
            repo.cas_delete(&crate::refs::branch(branch), tip)?;
            settled.branches_deleted.push(shown);
        } else {
            settled.branches_kept.push(shown);
        }
    }
    Ok(settled)
}

/// The commit "landed" is measured against in `repo` (the outer one at depth 0, a
/// nested one deeper): the outer target, or what a nested repository's shared checkout
/// has out.
fn target_of(ctx: &Context, repo: &Repo, depth: usize) -> Result<Option<ObjectId>> {
    if depth == 0 {
        return ctx.target_tip().map(Some);
    }
    repo.head_id()
}

/// The outer target, or the branch a nested repository's shared checkout has out.
fn is_target_branch(ctx: &Context, item: &RmItem, branch: &str) -> Result<bool> {
    if item.depth == 0 {
        return Ok(branch == ctx.target());
    }
    Ok(Repo::open(&item.shared)?.head_branch()?.as_deref() == Some(branch))
}

/// gix and git lock a worktree with this reason while its first checkout runs; left
/// behind only by a crash, so it is not a user's lock.
fn is_initializing(reason: &str) -> bool {
    reason.trim() == "initializing"
}

/// The outer worktree at `dest` and every nested worktree inside it.
fn collect_rm_items(ctx: &Context, dest: &Path, root: &Path) -> Result<Vec<RmItem>> {
    let mut items = Vec::new();
    let Some(wt) = ctx
        .repo
        .worktrees()?
        .into_iter()
        .find(|w| !w.is_main && same_path(&w.path, dest))
    else {
        return Ok(items);
    };
    let outer_lock = lock_reason(&ctx.repo, wt.id.as_deref());
    items.push(RmItem {
        shared: ctx.shared.clone(),
        path: wt.path,
        id: wt.id.unwrap_or_default(),
        branch: wt.branch,
        head: wt.head,
        lock: outer_lock,
        depth: 0,
        target: target_of(ctx, &ctx.repo, 0)?,
    });
    let (nested, _) = ctx.discover_nested(root);
    for n in nested {
        let shared = ctx.shared.join(&n.rel);
        let Ok(repo) = Repo::open(&shared) else {
            continue;
        };
        let target = target_of(ctx, &repo, n.depth)?;
        for wt in repo.worktrees()? {
            if !wt.is_main && same_path(&wt.path, &dest.join(&n.rel)) {
                let lock = lock_reason(&repo, wt.id.as_deref());
                items.push(RmItem {
                    shared: shared.clone(),
                    path: wt.path,
                    id: wt.id.unwrap_or_default(),
                    branch: wt.branch,
                    head: wt.head,
                    lock,
                    depth: n.depth,
                    target,
                });
            }
        }
    }
    Ok(items)
}

fn lock_reason(repo: &Repo, id: Option<&str>) -> Option<String> {
    repo.worktree_record(id?).lock_reason()
}

/// Record what removing this worktree would lose; returns whether its HEAD has landed.
fn inspect_for_rm(item: &RmItem, losses: &mut Losses) -> Result<bool> {
    let shown = item.path.display();
    if item.path.exists() && !is_checkout(&item.path) {
        losses.forceable.push(format!(
            "{shown} has lost its `.git` (a removal cut short?): its files cannot be checked against git"
        ));
    } else if item.path.exists() {
        let dirty = Repo::open(&item.path)?.dirty_paths(5)?;
        if !dirty.is_empty() {
            losses.forceable.push(format!(
                "{shown} has uncommitted changes: {}",
                dirty.join(", ")
            ));
        }
        submodule_losses(&item.path, &item.shared, losses)?;
    }
    let repo = Repo::open(&item.shared)?;
    let landed = head_landed(&repo, item.head, item.target)?;
    if !landed {
        match &item.branch {
            Some(branch) => losses.forceable.push(format!(
                "{shown}: branch {branch} has commits that are not in its target yet (the branch is kept)"
            )),
            None => losses
                .fatal
                .push(format!("{shown}: the detached HEAD has commits that are not in its target")),
        }
    }
    Ok(landed)
}

/// A submodule's clone lives in the worktree's private git dir and goes with it:
/// commits that exist only there (not in the shared checkout's copy) would be lost.
fn submodule_losses(checkout: &Path, shared: &Path, losses: &mut Losses) -> Result<()> {
    let Ok(repo) = Repo::open(checkout) else {
        return Ok(());
    };
    for rel in repo.submodule_paths() {
        let Ok(clone) = Repo::open(&checkout.join(&rel)) else {
            continue;
        };
        let source = Repo::open(&shared.join(&rel)).ok();
        let mut tips = clone.local_work_tips()?;
        if let Some(head) = clone.head_id()? {
            tips.push(("HEAD".into(), head));
        }
        for (name, tip) in tips {
            if !source.as_ref().is_some_and(|s| s.has_object(tip)) {
                losses.fatal.push(format!(
                    "submodule {} has commits only in this worktree ({name} at {})",
                    checkout.join(&rel).display(),
                    tip.to_hex_with_len(12)
                ));
                break;
            }
        }
        submodule_losses(&checkout.join(&rel), &shared.join(&rel), losses)?;
    }
    Ok(())
}

/// Commits that deleting `doomed` (an agent worktree) would lose from the repository
/// at `path` inside it (one fleet does not manage): a local branch, tag, stash or HEAD
/// that none of its remote-tracking branches contains. A repository whose git dir lives
/// outside `doomed` (a worktree of another one) loses none; one that cannot be read is
/// assumed to.
fn commits_only_in(path: &Path, doomed: &Path) -> Option<String> {
    let Ok(repo) = Repo::open(path) else {
        return Some("its git dir cannot be read".into());
    };
    let stored_here = repo
        .common_dir()
        .canonicalize()
        .is_ok_and(|dir| doomed.canonicalize().is_ok_and(|d| dir.starts_with(d)));
    if !stored_here {
        return None;
    }
    let mut tips = repo.local_work_tips().unwrap_or_default();
    if let Ok(Some(head)) = repo.head_id() {
        tips.push(("HEAD".into(), head));
    }
    let elsewhere: Vec<ObjectId> = repo
        .refs_under(crate::refs::REMOTE_TRACKING)
        .unwrap_or_default()
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    let contained = |tip: ObjectId| {
        elsewhere
            .iter()
            .any(|&r| repo.count_exclusive(tip, r).is_ok_and(|n| n == 0))
    };
    tips.into_iter()
        .find(|&(_, tip)| !contained(tip))
        .map(|(name, tip)| format!("{name} at {}", tip.to_hex_with_len(12)))
}

/// Git repositories inside the agent worktree that are neither its members nor
/// submodules: removing the folder would delete them.
fn unmanaged_repositories(dest: &Path, members: &[PathBuf]) -> Vec<PathBuf> {
    nested::repositories_under(dest)
        .into_iter()
        .filter(|repo| !members.iter().any(|m| same_path(m, repo)))
        .filter(|repo| !committed_in_a_member(repo, members))
        .collect()
}

/// A git dir that a member commits as files (a test fixture, say): its branch keeps it.
fn committed_in_a_member(git_dir: &Path, members: &[PathBuf]) -> bool {
    let Some(member) = members
        .iter()
        .filter(|m| git_dir.starts_with(m))
        .max_by_key(|m| m.components().count())
    else {
        return false;
    };
    let Ok(rel) = git::head_file(git_dir)
        .strip_prefix(member)
        .map(Path::to_path_buf)
    else {
        return false;
    };
    Repo::open(member).is_ok_and(|repo| repo.tracks(&rel))
}

#[derive(Debug, Serialize)]
pub struct Pruned {
    pub repo: PathBuf,
    pub output: String,
}

/// Drop the records of worktrees whose folders are gone, in the outer repository and
/// every nested one.
pub fn prune(ctx: &Context) -> Result<Vec<Pruned>> {
    let root = ctx.worktree_root();
    let (nested, _) = ctx.discover_nested(&root);
    let mut repos = vec![ctx.shared.clone()];
    repos.extend(nested.iter().map(|n| ctx.shared.join(&n.rel)));
    let mut out = Vec::new();
    for repo in repos {
        let output = git::cli::worktree_prune(&repo)?;
        out.push(Pruned { repo, output });
    }
    Ok(out)
}
