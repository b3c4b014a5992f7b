//! `worktree rm`: remove an agent worktree without losing work: uncommitted content
//! only with `--force`, commits that would become unreachable never.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{
    AgentName, TRASH, empty_trash, is_checkout, is_initializing, lock_reason, lock_to_remove,
    same_path,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, ObjectId, Repo};
use crate::lanes::Lane;
use crate::lanes::landed::{head_landed, kept_landed, kept_landed_part};
use crate::nested;

#[derive(Debug, Serialize)]
pub struct Removed {
    pub path: PathBuf,
    /// `path` again, under the key `status` and `preflight` give a lane's worktree.
    pub worktree: PathBuf,
    /// Worktrees removed, deepest first.
    pub worktrees: Vec<PathBuf>,
    /// Agent branches deleted because their changes are in their target.
    pub branches_deleted: Vec<RepoBranch>,
    /// Branches kept because they hold work the target does not have.
    pub branches_kept: Vec<RepoBranch>,
    /// The lane untracked because its branch landed and is deleted.
    pub untracked: Vec<String>,
}

/// A branch in one of the project's repositories: the outer one or a nested one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepoBranch {
    pub branch: String,
    /// The repository's shared checkout.
    pub repo: PathBuf,
}

impl RepoBranch {
    fn new(branch: &str, repo: &Path) -> RepoBranch {
        RepoBranch {
            branch: branch.to_string(),
            repo: repo.to_path_buf(),
        }
    }
}

impl Removed {
    /// Nothing removed yet from the agent worktree at `path`.
    fn at(path: &Path) -> Removed {
        Removed {
            path: path.to_path_buf(),
            worktree: path.to_path_buf(),
            worktrees: Vec::new(),
            branches_deleted: Vec::new(),
            branches_kept: Vec::new(),
            untracked: Vec::new(),
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
    rm_in(ctx, &crate::queue::Queue::configured(ctx), name, force)
}

/// [`rm`] with landing measured against `queue`'s target and registry (a remote's, as
/// last fetched, for a drainer whose queue is on a remote).
pub fn rm_in(
    ctx: &Context,
    queue: &crate::queue::Queue,
    name: &AgentName,
    force: bool,
) -> Result<Removed> {
    let _lock = lock_to_remove(&ctx.repo)?;
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
    let items = collect_rm_items(ctx, queue, &dest, &root)?;
    if items.is_empty() {
        // A removal cut short after the worktrees went leaves the agent's branches.
        let mut leftovers = settle_leftover_branches(ctx, queue, &dest, &agent_branch)?;
        if !leftovers.branches_deleted.is_empty() || !leftovers.branches_kept.is_empty() {
            untrack_finished(ctx, queue, &agent_branch, &mut leftovers)?;
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
    let (registry, _) = queue.load(ctx)?;
    for item in &items {
        let recorded = item.branch.as_deref() == Some(agent_branch.as_str())
            && recorded_landed(ctx, registry.get(&agent_branch), &items[0], item)?;
        landed.push(inspect_for_rm(item, recorded, &mut losses)?);
    }
    let members: Vec<PathBuf> = items.iter().map(|i| i.path.clone()).collect();
    let unmanaged = unmanaged_repositories(&dest, &members);
    for repo in &unmanaged {
        match commits_only_in(repo, &dest) {
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
            "land it first (`fleet ready`, then `fleet land`), or pass --force: it deletes uncommitted changes and untracked files and keeps every unlanded branch, so no commit is lost"
        } else {
            "this would be lost even with --force: put commits on a branch (`git switch -c NAME`) or push them, move other repositories out, then retry"
        };
        return Err(Error::refused(format!(
            "agent worktree `{}` is not finished:\n  {}",
            name.as_str(),
            all.join("\n  ")
        ))
        .with_help(help));
    }
    let inner_records = inner_worktree_records(&unmanaged, &dest);
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
                    .push(RepoBranch::new(branch, &item.shared));
            }
            (Some(branch), _) if !landed[i] => removed
                .branches_kept
                .push(RepoBranch::new(branch, &item.shared)),
            _ => {}
        }
    }
    // Hand-made worktrees that were inside: their folders went with it, so their
    // records go too (what `git worktree prune` would do), leaving none that points
    // nowhere.
    for (owner, id) in inner_records {
        owner.drop_worktree_record(&id)?;
    }
    let _ = std::fs::remove_dir(&dest);
    untrack_finished(ctx, queue, &agent_branch, &mut removed)?;
    Ok(removed)
}

/// The registry's landed record for the agent's lane stands ([`kept_landed`]): landed,
/// even when a later landing rewrote its lines, so `rm` agrees with `fleet status`.
/// `outer` is the agent's outer worktree; `item` it or one of its nested parts.
fn recorded_landed(
    ctx: &Context,
    lane: Option<&Lane>,
    outer: &RmItem,
    item: &RmItem,
) -> Result<bool> {
    let (Some(lane), Some(outer_tip), Some(outer_target)) = (lane, outer.head, outer.target) else {
        return Ok(false);
    };
    if item.depth == 0 {
        return kept_landed(&ctx.repo, lane, outer_tip, outer_target);
    }
    let (Some(head), Some(target)) = (item.head, item.target) else {
        return Ok(false);
    };
    let Ok(rel) = item.shared.strip_prefix(&ctx.shared) else {
        return Ok(false);
    };
    kept_landed_part(
        &ctx.repo,
        lane,
        outer_tip,
        outer_target,
        &Repo::open(&item.shared)?,
        &rel.to_string_lossy(),
        head,
        target,
    )
}

/// The agent's branch is gone because it landed: its lane is finished, and goes from
/// this repository's own registry, so `fleet status` and `fleet doctor` do not keep a
/// lane with no branch. A queue on a remote keeps its lane (its branch is the remote's).
fn untrack_finished(
    ctx: &Context,
    queue: &crate::queue::Queue,
    branch: &str,
    removed: &mut Removed,
) -> Result<()> {
    let outer = RepoBranch::new(branch, &ctx.shared);
    if queue.remote().is_some()
        || !removed.branches_deleted.contains(&outer)
        || ctx.repo.branch_tip(branch)?.is_some()
        || queue.load(ctx)?.0.get(branch).is_none()
    {
        return Ok(());
    }
    queue.untrack(ctx, &[branch.to_string()])?;
    removed.untracked.push(branch.to_string());
    Ok(())
}

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

/// The agent's branches that no worktree has checked out, in the outer repository and
/// every nested one: deleted when landed (what `rm` does after removing a worktree),
/// reported as kept otherwise.
fn settle_leftover_branches(
    ctx: &Context,
    queue: &crate::queue::Queue,
    dest: &Path,
    branch: &str,
) -> Result<Removed> {
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
        let landed = head_landed(&repo, Some(tip), target_of(ctx, queue, &repo, depth)?)?;
        let shown = RepoBranch::new(branch, &shared);
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
fn target_of(
    ctx: &Context,
    queue: &crate::queue::Queue,
    repo: &Repo,
    depth: usize,
) -> Result<Option<ObjectId>> {
    if depth == 0 {
        return queue.target_tip(ctx).map(Some);
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

/// The outer worktree at `dest` and every nested worktree inside it.
fn collect_rm_items(
    ctx: &Context,
    queue: &crate::queue::Queue,
    dest: &Path,
    root: &Path,
) -> Result<Vec<RmItem>> {
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
        target: target_of(ctx, queue, &ctx.repo, 0)?,
    });
    let (nested, _) = ctx.discover_nested(root);
    for n in nested {
        let shared = ctx.shared.join(&n.rel);
        let Ok(repo) = Repo::open(&shared) else {
            continue;
        };
        let target = target_of(ctx, queue, &repo, n.depth)?;
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

/// Record what removing this worktree would lose; returns whether its HEAD has landed
/// (`recorded`: the lane registry's landing of it stands).
fn inspect_for_rm(item: &RmItem, recorded: bool, losses: &mut Losses) -> Result<bool> {
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
    let landed = recorded || head_landed(&repo, item.head, item.target)?;
    if !landed {
        match &item.branch {
            Some(branch) => losses.forceable.push(format!(
                "{shown}: branch {branch} has commits that are not in its target yet"
            )),
            None => losses.fatal.push(format!(
                "{shown}: the detached HEAD has commits that are not in its target"
            )),
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
        return detached_head_only_here(&repo, doomed);
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
        repo.reachable_only_from(tip, &elsewhere)
            .is_ok_and(|only| only.is_empty())
    };
    tips.into_iter()
        .find(|&(_, tip)| !contained(tip))
        .map(|(name, tip)| format!("{name} at {}", tip.to_hex_with_len(12)))
}

/// A linked worktree inside `doomed` whose git dir lives elsewhere: its branches and
/// objects survive the folder, but a detached HEAD is the only name of the commits made
/// on it, and that HEAD goes with the worktree's record. Lost unless a ref, or the HEAD
/// of a worktree outside `doomed`, contains them.
fn detached_head_only_here(repo: &Repo, doomed: &Path) -> Option<String> {
    if repo.head_branch().ok()?.is_some() {
        return None;
    }
    let head = repo.head_id().ok()??;
    let outside = |path: &Path| {
        let doomed = doomed
            .canonicalize()
            .unwrap_or_else(|_| doomed.to_path_buf());
        !path
            .canonicalize()
            .unwrap_or_else(|_| path.to_path_buf())
            .starts_with(doomed)
    };
    let mut names: Vec<ObjectId> = repo
        .refs_under("refs/")
        .unwrap_or_default()
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    names.extend(
        repo.worktrees()
            .unwrap_or_default()
            .into_iter()
            .filter(|w| outside(&w.path))
            .filter_map(|w| w.head),
    );
    let kept = repo
        .reachable_only_from(head, &names)
        .is_ok_and(|only| only.is_empty());
    (!kept).then(|| format!("detached HEAD at {}", head.to_hex_with_len(12)))
}

/// The records of the linked worktrees among `repos` whose git dirs live outside
/// `doomed` (an agent made them by hand): the repository that keeps each record, and
/// the record's id.
fn inner_worktree_records(repos: &[PathBuf], doomed: &Path) -> Vec<(Repo, String)> {
    let doomed = doomed
        .canonicalize()
        .unwrap_or_else(|_| doomed.to_path_buf());
    repos
        .iter()
        .filter_map(|path| Repo::open(path).ok())
        .filter(|repo| repo.is_linked_worktree())
        .filter(|repo| {
            !repo
                .git_dir()
                .canonicalize()
                .is_ok_and(|dir| dir.starts_with(&doomed))
        })
        .filter_map(|repo| {
            let id = repo.git_dir().file_name()?.to_str()?.to_string();
            Some((repo.main_repo().ok()?, id))
        })
        .collect()
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
