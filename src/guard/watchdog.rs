//! `fleet watchdog`: find shared checkouts that drifted off their branch and put them
//! back without losing anything, and snapshot dirty shared checkouts into refs.
//!
//! The guard refuses drift as it happens; the watchdog catches what got past it (hooks
//! bypassed with `core.hooksPath=`, FLEET_ALLOW_SHARED, a guard not installed yet) and
//! covers the one loss no hook can prevent: `reset --hard` discards unstaged edits before
//! any hook runs. Every check writes the dirty state of each shared checkout as a commit
//! under `refs/fleet/snapshots/`, so such a reset loses at most one interval of work.
//!
//! Never `git stash` (the stash is shared by every worktree) and never a reset that
//! discards anything: a dirty drifted checkout is first saved on a rescue branch.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{self, ObjectId, Repo};

pub const SNAPSHOTS: &str = "refs/fleet/snapshots/";

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub restore: bool,
    pub grace: std::time::Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// On its branch.
    Ok,
    /// Off its branch, inside the grace period or without --restore.
    Drifted,
    /// Off its branch, but a rebase, merge, cherry-pick, bisect or index lock is in
    /// progress: left alone.
    Busy,
    /// Put back on its branch.
    Restored,
    /// Could not be put back; the detail says why and what to do.
    Stuck,
}

#[derive(Debug, Serialize)]
pub struct Finding {
    /// The shared checkout.
    pub checkout: PathBuf,
    /// The branch it belongs on.
    pub branch: String,
    pub verdict: Verdict,
    /// Where HEAD is: a branch name or a commit id.
    pub head: String,
    /// A snapshot written at this check (`refs/fleet/snapshots/...`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The rescue branch holding the uncommitted changes of a restored checkout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rescue_branch: Option<String>,
    /// Seconds since the drift was first seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drifted_for: Option<i64>,
    pub detail: String,
}

/// One shared checkout to watch.
struct Watched {
    repo: Repo,
    checkout: PathBuf,
    branch: String,
}

fn watched(ctx: &Context) -> Result<Vec<Watched>> {
    let mut list = vec![Watched {
        repo: Repo::open(&ctx.shared)?,
        checkout: ctx.shared.clone(),
        branch: ctx.target().to_string(),
    }];
    let (nested, _) = crate::worktree::discover_nested(ctx, &ctx.worktree_root());
    for n in nested {
        let checkout = ctx.shared.join(&n.rel);
        let repo = Repo::open(&checkout)?;
        // The nested repository's own branch, as recorded when the guard was installed,
        // else the one it has checked out now.
        let recorded = crate::guard::hooks::read_guard_refs(&repo.common_dir())
            .into_iter()
            .find_map(|r| r.strip_prefix("refs/heads/").map(String::from));
        let Some(branch) = recorded.or(repo.head_branch()?) else {
            continue;
        };
        list.push(Watched {
            repo,
            checkout,
            branch,
        });
    }
    Ok(list)
}

/// When each drift was first seen, kept in the common dir between runs.
#[derive(Default, Deserialize, Serialize)]
struct FirstSeen {
    #[serde(default)]
    drift: std::collections::BTreeMap<String, i64>,
}

fn first_seen_path(repo: &Repo) -> PathBuf {
    repo.common_dir().join("fleet").join("watchdog.toml")
}

fn load_first_seen(repo: &Repo) -> FirstSeen {
    std::fs::read_to_string(first_seen_path(repo))
        .ok()
        .and_then(|t| toml::from_str(&t).ok())
        .unwrap_or_default()
}

fn save_first_seen(repo: &Repo, seen: &FirstSeen) -> Result<()> {
    let path = first_seen_path(repo);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    }
    let text = toml::to_string(seen).unwrap_or_default();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| Error::env(format!("cannot write {}: {e}", path.display())))
}

/// One pass over every shared checkout.
pub fn check(ctx: &Context, opts: Options) -> Result<Vec<Finding>> {
    let keep = ctx.config.guard.snapshot_keep.0;
    let prefix = ctx.config.lanes.prefix.as_str().to_string();
    watched(ctx)?
        .iter()
        .map(|w| check_one(w, opts, keep, &prefix))
        .collect()
}

fn check_one(
    w: &Watched,
    opts: Options,
    keep: std::time::Duration,
    prefix: &str,
) -> Result<Finding> {
    let now = crate::lanes::now();
    let head_branch = w.repo.head_branch()?;
    let head_id = w.repo.head_id()?;
    let head = head_branch
        .clone()
        .or(head_id.map(|id| id.to_string()))
        .unwrap_or_else(|| "(unborn)".into());
    let mut finding = Finding {
        checkout: w.checkout.clone(),
        branch: w.branch.clone(),
        verdict: Verdict::Ok,
        head,
        snapshot: None,
        rescue_branch: None,
        drifted_for: None,
        detail: String::new(),
    };
    let busy = operation_in_progress(&w.repo);
    // A snapshot reads the files through a temporary index: safe even mid-operation,
    // but an index lock means git is writing right now; try again next time.
    let working = match (head_id, busy.as_deref()) {
        (Some(head_id), b) if b != Some("index.lock") => {
            Some((head_id, working_tree(&w.repo, &w.checkout)?))
        }
        _ => None,
    };
    if let Some((head_id, tree)) = working
        && tree != w.repo.tree_of(head_id)?
    {
        finding.snapshot = snapshot(&w.repo, head_id, tree, now)?;
    }
    prune_snapshots(&w.repo, now, keep)?;

    let key = w.checkout.display().to_string();
    let mut seen = load_first_seen(&w.repo);
    if head_branch.as_deref() == Some(w.branch.as_str()) {
        if seen.drift.remove(&key).is_some() {
            save_first_seen(&w.repo, &seen)?;
        }
        finding.detail = "on its branch".into();
        return Ok(finding);
    }
    let since = *seen.drift.entry(key).or_insert(now);
    save_first_seen(&w.repo, &seen)?;
    let age = now - since;
    finding.drifted_for = Some(age);
    finding.verdict = Verdict::Drifted;
    if let Some(what) = busy {
        finding.verdict = Verdict::Busy;
        finding.detail = format!("{what} in progress: left alone");
        return Ok(finding);
    }
    if !opts.restore {
        finding.detail = "off its branch; `fleet watchdog --restore` puts it back".into();
        return Ok(finding);
    }
    if age < opts.grace.as_secs() as i64 {
        finding.detail = format!(
            "off its branch for {age}s; restored after {}s",
            opts.grace.as_secs()
        );
        return Ok(finding);
    }
    restore(w, working, prefix, now, &mut finding)?;
    Ok(finding)
}

/// Put a drifted checkout back on its branch: save uncommitted changes on a rescue
/// branch first, then move the files with a two-tree merge that carries local changes
/// and refuses rather than overwrite one, then point HEAD at the branch.
fn restore(
    w: &Watched,
    working: Option<(ObjectId, ObjectId)>,
    prefix: &str,
    now: i64,
    finding: &mut Finding,
) -> Result<()> {
    let Some(target) = w.repo.branch_tip(&w.branch)? else {
        finding.verdict = Verdict::Stuck;
        finding.detail = format!("its branch {} does not exist", w.branch);
        return Ok(());
    };
    if let Some((head_id, tree)) = working
        && tree != w.repo.tree_of(head_id)?
    {
        let name = rescue_branch_name(&w.repo, prefix, now)?;
        let commit = w.repo.commit_tree(
            &format!(
                "fleet watchdog: uncommitted changes of {} (off {} at {})",
                w.checkout.display(),
                w.branch,
                finding.head
            ),
            tree,
            &[head_id],
        )?;
        w.repo
            .create_branch(&name, commit, "fleet watchdog: rescue")?;
        finding.rescue_branch = Some(name);
    }
    if let Some((head_id, _)) = working
        && head_id != target
    {
        let no_hooks = crate::gate::no_hooks_dir(&w.repo)?;
        if let Err(e) = git::cli::move_checkout(
            &w.checkout,
            &head_id.to_string(),
            &target.to_string(),
            &no_hooks,
        ) {
            finding.verdict = Verdict::Stuck;
            finding.detail = format!(
                "its files cannot move to {} without overwriting local changes ({}); they are \
                 saved{}; move them by hand",
                w.branch,
                e.message,
                finding
                    .rescue_branch
                    .as_deref()
                    .map(|b| format!(" on {b}"))
                    .unwrap_or_default()
            );
            return Ok(());
        }
    }
    w.repo.attach_head(&w.branch)?;
    let mut seen = load_first_seen(&w.repo);
    seen.drift.remove(&w.checkout.display().to_string());
    save_first_seen(&w.repo, &seen)?;
    finding.verdict = Verdict::Restored;
    finding.detail = match &finding.rescue_branch {
        Some(b) => format!(
            "back on {}; its uncommitted changes are saved on {b}",
            w.branch
        ),
        None => format!("back on {}", w.branch),
    };
    Ok(())
}

fn rescue_branch_name(repo: &Repo, prefix: &str, now: i64) -> Result<String> {
    let stamp = humantime::format_rfc3339_seconds(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(now.max(0) as u64),
    )
    .to_string()
    .replace([':', '-'], "");
    let base = format!("{prefix}rescue/{}", stamp.trim_end_matches('Z'));
    let mut name = base.clone();
    let mut n = 1;
    while repo.branch_tip(&name)?.is_some() {
        n += 1;
        name = format!("{base}-{n}");
    }
    Ok(name)
}

/// What git is in the middle of in this checkout, if anything.
fn operation_in_progress(repo: &Repo) -> Option<String> {
    let git_dir = repo.git_dir();
    [
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase or am"),
        ("MERGE_HEAD", "a merge"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
        ("REVERT_HEAD", "a revert"),
        ("BISECT_LOG", "a bisect"),
        ("index.lock", "index.lock"),
    ]
    .iter()
    .find(|(file, _)| git_dir.join(file).exists())
    .map(|(_, what)| what.to_string())
}

fn working_tree(repo: &Repo, checkout: &Path) -> Result<ObjectId> {
    let dir = repo.common_dir().join("fleet");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let tmp = dir.join(format!("snapshot-index-{}", std::process::id()));
    git::cli::working_tree_snapshot(checkout, &repo.git_dir().join("index"), &tmp)
}

/// Write a snapshot commit of `tree` on top of `head`, unless the newest snapshot
/// already holds exactly this tree. Returns the new ref.
fn snapshot(repo: &Repo, head: ObjectId, tree: ObjectId, now: i64) -> Result<Option<String>> {
    let existing = repo.refs_under(SNAPSHOTS)?;
    if let Some((_, newest)) = existing.iter().max_by_key(|(name, _)| snapshot_time(name))
        && repo.tree_of(*newest)? == tree
    {
        return Ok(None);
    }
    let commit = repo.commit_tree(
        &format!("fleet watchdog: snapshot of the shared checkout on top of {head}"),
        tree,
        &[head],
    )?;
    let short = &commit.to_string()[..8];
    let name = format!("{SNAPSHOTS}{now}-{short}");
    repo.cas_update(&name, None, commit, "watchdog snapshot")?;
    Ok(Some(name))
}

fn snapshot_time(name: &str) -> i64 {
    name.trim_start_matches(SNAPSHOTS)
        .split('-')
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
}

fn prune_snapshots(repo: &Repo, now: i64, keep: std::time::Duration) -> Result<()> {
    for (name, id) in repo.refs_under(SNAPSHOTS)? {
        if now - snapshot_time(&name) > keep.as_secs() as i64 {
            repo.cas_delete(&name, id)?;
        }
    }
    Ok(())
}

#[derive(Debug, Serialize)]
pub struct Snapshot {
    /// What `fleet recover ID` takes.
    pub id: String,
    /// The repository, relative to the outer shared checkout (`.` for the outer one).
    pub repo: PathBuf,
    pub time: i64,
    pub base: Option<String>,
    pub commit: String,
    pub files: usize,
}

/// Every snapshot in the outer and nested repositories, oldest first.
pub fn list_snapshots(ctx: &Context) -> Result<Vec<Snapshot>> {
    let mut out = Vec::new();
    for w in watched(ctx)? {
        let rel = w
            .checkout
            .strip_prefix(&ctx.shared)
            .map(|p| {
                if p.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    p.to_path_buf()
                }
            })
            .unwrap_or_else(|_| w.checkout.clone());
        for (name, commit) in w.repo.refs_under(SNAPSHOTS)? {
            let info = w.repo.commit_info(commit)?;
            let base = info.parents.first().copied();
            let files = match base {
                Some(b) => w.repo.changed_paths(w.repo.tree_of(b)?, info.tree)?.len(),
                None => 0,
            };
            out.push(Snapshot {
                id: name.trim_start_matches(SNAPSHOTS).to_string(),
                repo: rel.clone(),
                time: snapshot_time(&name),
                base: base.map(|b| b.to_string()),
                commit: commit.to_string(),
                files,
            });
        }
    }
    out.sort_by_key(|s| s.time);
    Ok(out)
}

/// Turn snapshot `id` into branch `branch`, in the repository that holds it.
pub fn recover(ctx: &Context, id: &str, branch: &str) -> Result<(PathBuf, ObjectId)> {
    for w in watched(ctx)? {
        let name = format!("{SNAPSHOTS}{id}");
        if let Some(commit) = w.repo.ref_target(&name)? {
            if !crate::config::is_valid_branch_name(branch) {
                return Err(
                    Error::usage(format!("`{branch}` is not a valid branch name"))
                        .with_help("pick a name git accepts, e.g. recovered/my-edits"),
                );
            }
            if w.repo.branch_tip(branch)?.is_some() {
                return Err(Error::refused(format!("branch {branch} already exists"))
                    .with_help("pick another name; nothing was changed"));
            }
            w.repo
                .create_branch(branch, commit, &format!("fleet recover {id}"))?;
            return Ok((w.checkout, commit));
        }
    }
    Err(Error::usage(format!("no snapshot `{id}`"))
        .with_help("`fleet recover --list` shows the snapshots"))
}
