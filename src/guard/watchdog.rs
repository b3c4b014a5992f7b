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
use crate::report::Ui;

pub use crate::refs::SNAPSHOTS;

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
    /// Commits the drifted HEAD held that no branch or tag has (newest first): kept on
    /// [`Finding::commits_branch`] before the checkout moves.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rescued_commits: Vec<String>,
    /// The branch keeping [`Finding::rescued_commits`] (the rescue branch itself when
    /// there were uncommitted changes too: their commit sits on them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commits_branch: Option<String>,
    /// Seconds since the drift was first seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drifted_for: Option<i64>,
    pub detail: String,
}

/// One shared checkout to watch.
struct Watched {
    repo: Repo,
    checkout: PathBuf,
    /// The branch it belongs on; `None` for a nested repository found detached with no
    /// branch on record.
    branch: Option<String>,
    /// Nested repositories inside it (relative paths), snapshotted on their own.
    nested: Vec<String>,
}

fn watched(ctx: &Context) -> Result<Vec<Watched>> {
    let checkouts: Vec<PathBuf> = ctx
        .shared_checkouts()
        .into_iter()
        .map(|rel| {
            if rel == Path::new(".") {
                ctx.shared.clone()
            } else {
                ctx.shared.join(rel)
            }
        })
        .collect();
    // The nested repositories inside a checkout, relative to it.
    let inside = |base: &Path| -> Vec<String> {
        checkouts
            .iter()
            .filter_map(|abs| {
                let rel = abs.strip_prefix(base).ok()?;
                (!rel.as_os_str().is_empty()).then(|| rel.to_string_lossy().replace('\\', "/"))
            })
            .collect()
    };
    let mut list = Vec::new();
    for checkout in &checkouts {
        let repo = Repo::open(checkout)?;
        let branch = if *checkout == ctx.shared {
            Some(ctx.target().to_string())
        } else {
            // The nested repository's own branch, as recorded when the guard was
            // installed, else the one it has checked out now.
            let recorded = crate::guard::hooks::read_guard_refs(&repo.common_dir())
                .into_iter()
                .find_map(|r| crate::refs::branch_name(&r).map(String::from));
            recorded.or(repo.head_branch()?)
        };
        list.push(Watched {
            repo,
            nested: inside(checkout),
            checkout: checkout.clone(),
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
    crate::state::dir(&repo.common_dir()).join("watchdog.toml")
}

fn load_first_seen(repo: &Repo) -> FirstSeen {
    std::fs::read_to_string(first_seen_path(repo))
        .ok()
        .and_then(|t| toml::from_str(&t).ok())
        .unwrap_or_default()
}

fn save_first_seen(repo: &Repo, seen: &FirstSeen) -> Result<()> {
    write_atomically(
        &first_seen_path(repo),
        &toml::to_string(seen).unwrap_or_default(),
    )
}

fn write_atomically(path: &Path, text: &str) -> Result<()> {
    crate::files::write_atomically(path, text.as_bytes(), None)
}

/// One pass over every shared checkout. A checkout that cannot be checked is reported
/// as stuck; the others are still checked (and snapshotted). What goes wrong without
/// making a checkout stuck is a warning to `ui`.
pub fn check(ctx: &Context, opts: Options, ui: &dyn Ui) -> Result<Vec<Finding>> {
    let keep = ctx.config.guard.snapshot_keep.0;
    let prefix = ctx.config.lanes.prefix.as_str().to_string();
    Ok(watched(ctx)?
        .iter()
        .map(|w| {
            check_one(w, opts, keep, &prefix, ui).unwrap_or_else(|e| Finding {
                checkout: w.checkout.clone(),
                branch: w.branch.clone().unwrap_or_default(),
                verdict: Verdict::Stuck,
                head: String::new(),
                snapshot: None,
                rescue_branch: None,
                rescued_commits: Vec::new(),
                commits_branch: None,
                drifted_for: None,
                detail: format!("could not be checked: {}", e.message),
            })
        })
        .collect())
}

/// What the checkout holds right now, as trees on top of HEAD.
struct Working {
    /// `None` on an unborn branch.
    head: Option<ObjectId>,
    head_tree: ObjectId,
    state: git::cli::WorkingState,
}

impl Working {
    fn dirty(&self) -> bool {
        self.state.working != self.head_tree || self.state.staged != self.head_tree
    }
}

fn check_one(
    w: &Watched,
    opts: Options,
    keep: std::time::Duration,
    prefix: &str,
    ui: &dyn Ui,
) -> Result<Finding> {
    let now = crate::time::now();
    clear_leftovers(&w.repo);
    let head_branch = w.repo.head_branch()?;
    let head_id = w.repo.head_id()?;
    let head = head_branch
        .clone()
        .or(head_id.map(|id| id.to_string()))
        .unwrap_or_else(|| "(unborn)".into());
    let mut finding = Finding {
        checkout: w.checkout.clone(),
        branch: w.branch.clone().unwrap_or_default(),
        verdict: Verdict::Ok,
        head,
        snapshot: None,
        rescue_branch: None,
        rescued_commits: Vec::new(),
        commits_branch: None,
        drifted_for: None,
        detail: String::new(),
    };
    let busy = operation_in_progress(&w.repo);
    // Held through the snapshot and the restore: the guard putting a refused command's
    // files back holds it too, and a snapshot of that moment would show its half.
    let files = crate::checkout::lock_files(&w.repo, std::time::Duration::from_secs(30));
    if files.is_err() {
        finding.detail += "another fleet process (the guard putting files back, or a \
                           watchdog) holds the files: snapshot and restore next time; ";
    } else if w.repo.main_head_locked() {
        finding.detail += "HEAD is locked (.git/HEAD.lock): git is moving it, or one killed \
                           mid-way left the lock (cleared once no git of this checkout runs \
                           and it is 5s old): snapshot and restore next time; ";
    }
    // A snapshot reads the files through a temporary index: safe even mid-operation,
    // but an index lock means git is writing right now, and a HEAD lock that git is
    // moving HEAD (a switch's files may be rewritten already): try again next time.
    let working = if files.is_err()
        || busy.as_deref() == Some(git::INDEX_LOCK)
        || w.repo.main_head_locked()
    {
        None
    } else {
        let head_tree = match head_id {
            Some(h) => w.repo.tree_of(h)?,
            None => w.repo.empty_tree(),
        };
        Some(Working {
            head: head_id,
            head_tree,
            state: working_tree(&w.repo, &w.checkout, &w.nested)?,
        })
    };
    if let Some(working) = &working {
        if working.dirty() {
            finding.snapshot = snapshot(&w.repo, working, now)?;
        }
        if !working.state.skipped.is_empty() {
            finding.detail = format!(
                "left out of the snapshot for their size: {}; ",
                working.state.skipped.join(", ")
            );
        }
    }
    prune_snapshots(&w.repo, now, keep)?;

    let Some(branch) = w.branch.clone() else {
        finding.verdict = Verdict::Drifted;
        finding.detail += "detached, and no branch is on record for it: put it on its branch \
                           and run `fleet hooks install`";
        return Ok(finding);
    };
    let key = w.checkout.display().to_string();
    let mut seen = load_first_seen(&w.repo);
    if head_branch.as_deref() == Some(branch.as_str()) && !restore_interrupted(&w.repo) {
        if seen.drift.remove(&key).is_some() {
            save_first_seen(&w.repo, &seen)?;
        }
        finding.detail += "on its branch";
        return Ok(finding);
    }
    // A first-seen time in the future (clock skew) or absurdly far back (a damaged file)
    // counts from now.
    let oldest = now.saturating_sub(crate::config::MAX_DURATION.as_secs() as i64);
    let since = *seen
        .drift
        .entry(key)
        .and_modify(|t| {
            if *t > now || *t < oldest {
                *t = now;
            }
        })
        .or_insert(now);
    save_first_seen(&w.repo, &seen)?;
    let age = now.saturating_sub(since).max(0);
    finding.drifted_for = Some(age);
    finding.verdict = Verdict::Drifted;
    if let Some(what) = busy {
        finding.verdict = Verdict::Busy;
        finding.detail += &format!("{what} in progress: left alone");
        return Ok(finding);
    }
    if !opts.restore {
        finding.detail += "off its branch; `fleet watchdog --restore` puts it back";
        return Ok(finding);
    }
    if age < opts.grace.as_secs() as i64 {
        finding.detail += &format!(
            "off its branch for {age}s; restored after {}s",
            opts.grace.as_secs()
        );
        return Ok(finding);
    }
    let Some(working) = working else {
        return Ok(finding);
    };
    restore(w, &branch, &working, prefix, now, &mut finding, ui)?;
    Ok(finding)
}

/// Leftovers of a watchdog or git killed mid-way: temporary snapshot indexes, and an
/// `index.lock` or a `HEAD.lock` no live process holds (no git of this checkout is
/// alive, see [`git::lock_holder`]; and only after a few seconds, so a git between
/// creating and renaming its lock is never raced). A `HEAD.lock` left by a watchdog
/// killed while it put HEAD back would otherwise stop every later restore, and every
/// git command that moves HEAD.
fn clear_leftovers(repo: &Repo) {
    let dir = crate::state::dir(&repo.common_dir());
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("snapshot-index-")
            {
                git::clear_stale_file(&entry.path(), std::time::Duration::from_secs(60));
            }
        }
    }
    git::clear_stale_file(&repo.index_lock(), std::time::Duration::from_secs(5));
    git::clear_stale_file(&repo.main_head_lock(), std::time::Duration::from_secs(5));
}

/// The restore journal (see [`crate::state::watchdog_restore_journal`]).
fn journal_path(repo: &Repo) -> PathBuf {
    crate::state::watchdog_restore_journal(&repo.git_dir())
}

fn restore_interrupted(repo: &Repo) -> bool {
    journal_path(repo).exists()
}

/// Put a drifted checkout back on its branch: save uncommitted changes on a rescue
/// branch first, then move the files with a two-tree merge that carries local changes
/// and refuses rather than overwrite one, then point HEAD at the branch.
fn restore(
    w: &Watched,
    branch: &str,
    working: &Working,
    prefix: &str,
    now: i64,
    finding: &mut Finding,
    ui: &dyn Ui,
) -> Result<()> {
    let stuck = |finding: &mut Finding, why: String| {
        finding.verdict = Verdict::Stuck;
        let saved = finding
            .rescue_branch
            .as_deref()
            .map(|b| format!("; its changes are saved on {b}"))
            .unwrap_or_default();
        let kept = kept_commits(finding);
        finding.detail += &format!("{why}{saved}{kept}");
    };
    let Some(target) = w.repo.branch_tip(branch)? else {
        stuck(finding, format!("its branch {branch} does not exist"));
        return Ok(());
    };
    if working.dirty() {
        finding.rescue_branch = Some(rescue(w, working, branch, prefix, now, &finding.head)?);
    }
    if let Some(head) = working.head {
        let lost = commits_on_no_branch(&w.repo, head)?;
        if !lost.is_empty() {
            finding.commits_branch = Some(match &finding.rescue_branch {
                Some(b) => b.clone(),
                None => keep_on_rescue_branch(w, head, prefix, now)?,
            });
            finding.rescued_commits = lost.iter().map(|c| c.to_string()).collect();
        }
    }
    let Some(head) = working.head else {
        stuck(
            finding,
            "it is on an unborn branch: switch it back by hand (`git switch` with FLEET_ALLOW_SHARED=1)"
                .into(),
        );
        return Ok(());
    };
    if let Some(other) = w
        .repo
        .worktrees()?
        .into_iter()
        .find(|wt| !wt.is_main && wt.branch.as_deref() == Some(branch))
    {
        stuck(
            finding,
            format!(
                "{branch} is checked out in {} as well",
                other.path.display()
            ),
        );
        return Ok(());
    }
    if head != target {
        let journal = journal_path(&w.repo);
        let interrupted = std::fs::read_to_string(&journal)
            .ok()
            .is_some_and(|t| t.trim() == format!("{head} {target}"));
        if interrupted {
            // A restore killed half way: finish it path by path, never overwriting.
            let no_hooks = crate::state::no_hooks_dir(&w.repo)?;
            crate::checkout::repair(&w.repo, &w.checkout, head, target, &no_hooks, ui)?;
        } else {
            let changed = w
                .repo
                .changed_paths(w.repo.tree_of(head)?, w.repo.tree_of(target)?)?;
            let collisions = crate::checkout::collisions(&w.checkout, &changed)?;
            if !collisions.is_empty() {
                stuck(
                    finding,
                    format!(
                        "moving it to {branch} would overwrite files of its own (some may be \
                         ignored, which snapshots leave out): {}",
                        collisions.join(", ")
                    ),
                );
                return Ok(());
            }
            write_atomically(&journal, &format!("{head} {target}\n"))?;
            let no_hooks = crate::state::no_hooks_dir(&w.repo)?;
            if let Err(e) = git::cli::move_checkout(
                &w.checkout,
                &head.to_string(),
                &target.to_string(),
                &no_hooks,
            ) {
                let _ = std::fs::remove_file(&journal);
                stuck(
                    finding,
                    format!("its files cannot move to {branch}: {}", e.message),
                );
                return Ok(());
            }
        }
    }
    w.repo.attach_head(branch)?;
    let _ = std::fs::remove_file(journal_path(&w.repo));
    let mut seen = load_first_seen(&w.repo);
    seen.drift.remove(&w.checkout.display().to_string());
    save_first_seen(&w.repo, &seen)?;
    finding.verdict = Verdict::Restored;
    finding.detail += &match &finding.rescue_branch {
        Some(b) => format!("back on {branch}; its uncommitted changes are saved on {b}"),
        None => format!("back on {branch}"),
    };
    finding.detail += &kept_commits(finding);
    Ok(())
}

/// The report's words for [`Finding::rescued_commits`], empty when there are none.
fn kept_commits(finding: &Finding) -> String {
    let Some(branch) = &finding.commits_branch else {
        return String::new();
    };
    let ids: Vec<&str> = finding
        .rescued_commits
        .iter()
        .map(|c| &c[..c.len().min(8)])
        .collect();
    format!(
        "; {} commit(s) it held on no branch ({}) are kept on {branch}",
        ids.len(),
        ids.join(", ")
    )
}

/// The commits reachable from `head` and from no branch, tag or remote-tracking ref
/// (newest first along the first parents): what moving HEAD away would leave to the
/// reflog alone. The stash does not count: it is shared, and dropped by anyone.
fn commits_on_no_branch(repo: &Repo, head: ObjectId) -> Result<Vec<ObjectId>> {
    let mut tips: Vec<ObjectId> = repo
        .local_work_tips()?
        .into_iter()
        .filter(|(name, _)| name != "refs/stash")
        .map(|(_, id)| id)
        .collect();
    tips.extend(
        repo.refs_under("refs/remotes/")?
            .into_iter()
            .map(|(_, id)| id),
    );
    let mut lost = if tips.is_empty() {
        // No branch at all (the restore needs one, so only in theory): the first parents.
        let mut chain = std::collections::HashSet::new();
        let mut next = Some(head);
        while let Some(id) = next.filter(|id| chain.insert(*id)) {
            next = repo.first_parent(id)?;
        }
        chain
    } else {
        repo.reachable_only_from(head, &tips)?
    };
    let mut ordered = Vec::new();
    let mut next = Some(head);
    while let Some(id) = next.filter(|id| lost.remove(id)) {
        ordered.push(id);
        next = repo.first_parent(id)?;
    }
    let mut rest: Vec<ObjectId> = lost.into_iter().collect();
    rest.sort();
    ordered.extend(rest);
    Ok(ordered)
}

/// A rescue branch at `commit` (the drifted HEAD's commits), reusing one that already
/// points there.
fn keep_on_rescue_branch(w: &Watched, commit: ObjectId, prefix: &str, now: i64) -> Result<String> {
    for (name, id) in w
        .repo
        .refs_under(&crate::refs::branch(&format!("{prefix}rescue")))?
    {
        if id == commit {
            return Ok(crate::refs::branch_name(&name).unwrap_or(&name).to_string());
        }
    }
    new_rescue_branch(w, commit, prefix, now)
}

/// Save the uncommitted changes as a commit on a rescue branch (reusing one that holds
/// exactly this state, so a checkout stuck for a day does not grow a branch a minute).
fn rescue(
    w: &Watched,
    working: &Working,
    branch: &str,
    prefix: &str,
    now: i64,
    head_label: &str,
) -> Result<String> {
    let commit = state_commit(
        &w.repo,
        working,
        &format!(
            "fleet watchdog: uncommitted changes of {} (off {branch} at {head_label})",
            w.checkout.display()
        ),
    )?;
    let info = w.repo.commit_info(commit)?;
    for (name, id) in w
        .repo
        .refs_under(&crate::refs::branch(&format!("{prefix}rescue")))?
    {
        // The same files on the same commits: a branch with this tree on other
        // parents would not keep the commits under this one.
        let theirs = w.repo.commit_info(id)?;
        if theirs.tree == info.tree && theirs.parents == info.parents {
            return Ok(crate::refs::branch_name(&name).unwrap_or(&name).to_string());
        }
    }
    new_rescue_branch(w, commit, prefix, now)
}

/// A new branch `<prefix>rescue/<time>` at `commit`.
fn new_rescue_branch(w: &Watched, commit: ObjectId, prefix: &str, now: i64) -> Result<String> {
    let stamp = humantime::format_rfc3339_seconds(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(now.max(0) as u64),
    )
    .to_string()
    .replace([':', '-'], "");
    let stamp = stamp.trim_end_matches('Z');
    // `<prefix>rescue/<time>`, unless an agent named `rescue` owns `<prefix>rescue`.
    for base in [
        format!("{prefix}rescue/{stamp}"),
        format!("{prefix}rescue-{stamp}"),
    ] {
        for n in 1..100 {
            let name = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            if w.repo.branch_tip(&name)?.is_some() {
                continue;
            }
            if w.repo
                .create_branch(&name, commit, "fleet watchdog: rescue")
                .is_ok()
            {
                return Ok(name);
            }
            break;
        }
    }
    Err(Error::env("no rescue branch name could be created")
        .with_help("look for branches named <prefix>rescue in the way"))
}

/// A commit of the working state on top of HEAD; the staged state, when it is neither
/// HEAD's nor the working one, is kept as a second parent.
fn state_commit(repo: &Repo, working: &Working, message: &str) -> Result<ObjectId> {
    let mut parents: Vec<ObjectId> = working.head.into_iter().collect();
    let state = &working.state;
    if state.staged != working.head_tree && state.staged != state.working {
        let staged = repo.commit_tree(
            &format!("{message}: the staged changes"),
            state.staged,
            &parents,
        )?;
        parents.push(staged);
    }
    repo.commit_tree(message, state.working, &parents)
}

/// What git is in the middle of in this checkout, if anything.
fn operation_in_progress(repo: &Repo) -> Option<String> {
    use git::Operation as Op;
    let what = match repo.operation_in_progress() {
        Some(Op::Rebase { apply: false }) => "a rebase",
        Some(Op::Rebase { apply: true } | Op::Am) => "a rebase or am",
        Some(Op::Merge) => "a merge",
        Some(Op::CherryPick) => "a cherry-pick",
        Some(Op::Revert) => "a revert",
        Some(Op::Bisect) => "a bisect",
        None if repo.index_locked() => git::INDEX_LOCK,
        None => return None,
    };
    Some(what.to_string())
}

fn working_tree(repo: &Repo, checkout: &Path, nested: &[String]) -> Result<git::cli::WorkingState> {
    let dir = crate::state::dir(&repo.common_dir());
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let tmp = dir.join(format!("snapshot-index-{}-{unique}", std::process::id()));
    git::cli::working_tree_snapshot(checkout, &repo.index_path(), &tmp, nested)
}

/// Write a snapshot commit of the working state, unless the newest snapshot already
/// holds exactly this state. Returns the new ref.
fn snapshot(repo: &Repo, working: &Working, now: i64) -> Result<Option<String>> {
    let existing = repo.refs_under(SNAPSHOTS)?;
    if let Some((_, newest)) = existing.iter().max_by_key(|(name, _)| snapshot_time(name)) {
        let info = repo.commit_info(*newest)?;
        let staged_then = match info.parents.get(1) {
            Some(p) => repo.tree_of(*p)?,
            None => info.tree,
        };
        let staged_now = if working.state.staged == working.head_tree {
            working.state.working
        } else {
            working.state.staged
        };
        if info.tree == working.state.working
            && (staged_then == staged_now || staged_now == info.tree)
        {
            return Ok(None);
        }
    }
    let commit = state_commit(
        repo,
        working,
        "fleet watchdog: snapshot of the shared checkout",
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

/// Snapshots older than `keep` go, except the newest: it may be the only copy of a
/// state that has not changed since.
fn prune_snapshots(repo: &Repo, now: i64, keep: std::time::Duration) -> Result<()> {
    let snapshots = repo.refs_under(SNAPSHOTS)?;
    let newest = snapshots.iter().map(|(n, _)| snapshot_time(n)).max();
    for (name, id) in snapshots {
        let time = snapshot_time(&name);
        if Some(time) != newest && now.saturating_sub(time) > keep.as_secs() as i64 {
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
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(Error::usage(format!("`{id}` is not a snapshot id"))
            .with_help("`fleet recover --list` shows the snapshots and their ids"));
    }
    if !crate::config::is_valid_branch_name(branch) {
        return Err(
            Error::usage(format!("`{branch}` is not a valid branch name"))
                .with_help("pick a name git accepts, e.g. recovered/my-edits"),
        );
    }
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
