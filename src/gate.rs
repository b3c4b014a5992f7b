//! The gate: run the configured commands on the exact tree that would land, in a
//! private worktree, and keep the evidence.
//!
//! Promises: the commands see exactly the candidate commit (the gate worktree is forced
//! to it and cleaned of untracked files, ignored build caches kept); every command runs
//! through [`crate::proc`] in its own process group, killed as a whole on timeout and
//! after it exits; the full output goes to a log in the common git dir; a receipt for
//! every landing is written as a git note on `refs/notes/fleet` before the target moves.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::git::{self, ObjectId, OwnRefStep, Repo};

pub const NOTES_REF: &str = "refs/notes/fleet";

/// One gate command's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandResult {
    pub command: String,
    pub exit_code: i32,
    pub timed_out: bool,
    pub duration_ms: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateOutcome {
    pub green: bool,
    pub results: Vec<CommandResult>,
    pub duration_ms: u64,
    pub log: PathBuf,
    /// Hash of the log's bytes (git's blob id), so a receipt pins the exact output.
    pub log_digest: String,
}

/// The evidence that a commit the target moved to passed the gate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Receipt {
    pub lane: String,
    pub lane_tip: String,
    /// The target commit the candidate was built on.
    pub base: String,
    pub candidate: String,
    pub tested_tree: String,
    pub strategy: String,
    pub commands: Vec<CommandResult>,
    pub duration_ms: u64,
    pub log_digest: String,
    pub at: i64,
    /// Where the target was before it moved, when that is not `base`: a lane landed in
    /// a batch was built on the lane before it, but the target moved from the batch's
    /// base straight to the batch's top. `fleet verify` follows this link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_before: Option<String>,
    /// The commit the target moved to, when that is not `candidate` (a batch's top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landed_with: Option<String>,
    /// The gate did not run again: an identical tree passed before (the gate cache).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// A lane that spans nested repositories landed as one unit: every target move of
    /// the unit (the gate ran once over all of them together). The same list is in each
    /// repository's receipt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unit: Vec<UnitMove>,
}

/// One target move of a landing that spans the outer repository and nested ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitMove {
    /// The repository, relative to the outer shared checkout (`.` for the outer one).
    pub path: String,
    /// The target's full ref name in that repository.
    pub target: String,
    pub base: String,
    pub candidate: String,
}

impl Receipt {
    /// Every gate command exited 0.
    pub fn green(&self) -> bool {
        !self.commands.is_empty() && self.commands.iter().all(|c| c.exit_code == 0)
    }

    /// The target's position before it moved to this receipt's commit.
    pub fn moved_from(&self) -> &str {
        self.target_before.as_deref().unwrap_or(&self.base)
    }
}

/// fleet's private folders in the common git dir.
pub fn fleet_dir(repo: &Repo) -> PathBuf {
    repo.common_dir().join("fleet")
}

pub fn worktree_path(repo: &Repo) -> PathBuf {
    fleet_dir(repo).join("gate")
}

/// A gate run whose fleet was killed with -9 may have left processes working in the
/// gate worktree: kill them. Called once per landing run, holding the land lock.
pub fn kill_leftovers(repo: &Repo) {
    let killed = crate::proc::kill_processes_under(&worktree_path(repo));
    if killed > 0 {
        crate::ui::warn(&format!(
            "killed {killed} process(es) left in the gate worktree by an earlier, interrupted run"
        ));
    }
}

/// A run killed while it created a gate worktree can leave its registration half
/// written (no `commondir`), and git then fails in every command that looks at all
/// worktrees, `fetch` included. Drop such registrations of fleet's own gate worktrees
/// (those whose `gitdir` points into fleet's folder, or unfinished ones named `gate*`
/// older than ten seconds), with their folders. Called holding the land lock.
pub fn drop_broken_gate_worktrees(repo: &Repo, fleet_folder: &Path) {
    let Ok(entries) = std::fs::read_dir(repo.common_dir().join("worktrees")) else {
        return;
    };
    for entry in entries.flatten() {
        let admin = entry.path();
        if admin.join("commondir").is_file() && admin.join("HEAD").is_file() {
            continue;
        }
        let gitdir = std::fs::read_to_string(admin.join("gitdir")).ok();
        let ours = match &gitdir {
            Some(text) => Path::new(text.trim()).starts_with(fleet_folder),
            None => {
                let old = std::fs::metadata(&admin)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > Duration::from_secs(10));
                entry.file_name().to_string_lossy().starts_with("gate") && old
            }
        };
        if !ours {
            continue;
        }
        if let Some(folder) = gitdir.as_deref().and_then(|t| Path::new(t.trim()).parent()) {
            let _ = std::fs::remove_dir_all(folder);
        }
        if std::fs::remove_dir_all(&admin).is_ok() {
            crate::ui::note(&format!(
                "removed the half-created gate worktree record {}",
                admin.display()
            ));
        }
    }
}

/// An empty hooks folder, so fleet's private git calls run nobody's hooks.
pub fn no_hooks_dir(repo: &Repo) -> Result<PathBuf> {
    let dir = fleet_dir(repo).join("no-hooks");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir)
}

/// The gate worktree, checked out at `candidate` and clean. Created on first use,
/// reused after (so build caches in ignored folders stay warm).
pub fn prepare_worktree(repo: &Repo, candidate: ObjectId) -> Result<PathBuf> {
    let path = worktree_path(repo);
    prepare_worktree_at(repo, &path, candidate)?;
    Ok(path)
}

/// A detached worktree of `repo` at `path`, checked out at `commit` and clean: the gate
/// worktree itself, or a nested repository's inside it.
pub fn prepare_worktree_at(repo: &Repo, path: &Path, candidate: ObjectId) -> Result<()> {
    let path = path.to_path_buf();
    let registered = repo.worktrees()?.into_iter().find(|w| w.path == path);
    if let Some(wt) = &registered
        && !wt.missing
    {
        // Only the holder of the land lock uses this worktree: an index lock here is
        // a leftover of a killed run, not someone's live operation.
        if let Some(id) = &wt.id {
            let _ = std::fs::remove_file(admin_dir(repo, id).join("index.lock"));
        }
        let reset = reset_gate(&path, candidate, &no_hooks_dir(repo)?);
        if reset.is_ok() {
            return Ok(());
        }
        // A run killed while it created the worktree leaves one git does not
        // recognise: start it over.
    }
    // Registered but gone or broken: drop the registration (fleet's own; a run killed
    // while creating it leaves it locked, which `git worktree prune` would keep).
    if let Some(id) = registered.as_ref().and_then(|wt| wt.id.as_ref()) {
        let admin = admin_dir(repo, id);
        std::fs::remove_dir_all(&admin)
            .map_err(|e| Error::env(format!("cannot clear {}: {e}", admin.display())))?;
    }
    if path.exists() {
        std::fs::remove_dir_all(&path)
            .map_err(|e| Error::env(format!("cannot clear {}: {e}", path.display())))?;
    }
    repo.add_detached_worktree(&path, candidate)
}

/// Check `candidate` out in the gate worktree at `path`, then clear what an earlier
/// gate run left there. Leftovers are looked for after the checkout, with the
/// candidate's own ignore rules, in process; `git clean` runs only when there are some.
fn reset_gate(path: &Path, candidate: ObjectId, no_hooks: &Path) -> Result<()> {
    git::cli::checkout_gate_worktree(path, &candidate.to_string(), no_hooks)?;
    let leftovers = Repo::open(path)
        .and_then(|gate| gate.has_untracked())
        .unwrap_or(true);
    if leftovers {
        git::cli::clean_gate_worktree(path)?;
    }
    Ok(())
}

/// A linked worktree's administrative folder in the common git dir.
fn admin_dir(repo: &Repo, id: &str) -> PathBuf {
    repo.common_dir().join("worktrees").join(id)
}

/// Run `commands` one after another in `worktree` (stopping at the first failure),
/// all output to one log. `progress` gets the command and its elapsed time.
pub fn run(
    repo: &Repo,
    worktree: &Path,
    commands: &[String],
    timeout: Duration,
    env: &[(&str, String)],
    lane: &str,
    mut progress: impl FnMut(&str, Duration),
) -> Result<GateOutcome> {
    let logs = fleet_dir(repo).join("logs");
    std::fs::create_dir_all(&logs)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", logs.display())))?;
    let log_path = logs.join(format!("gate-{}-{}.log", sanitize(lane), unique_suffix()));
    let mut log = std::fs::File::create(&log_path)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", log_path.display())))?;
    let mut results = Vec::new();
    let started = std::time::Instant::now();
    for command in commands {
        let _ = writeln!(log, "$ {command}");
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c").arg(command).current_dir(worktree);
        // The gate sees the candidate's worktree, not whatever repository fleet was
        // started from.
        for var in git::cli::REPO_OVERRIDES {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let remaining = timeout.saturating_sub(started.elapsed());
        let outcome = crate::proc::run_logged(
            &mut cmd,
            &log,
            Some(remaining),
            crate::proc::DEFAULT_GRACE,
            |t| progress(command, t),
        )
        .map_err(|e| Error::env(format!("cannot run the gate command `{command}`: {e}")))?;
        let result = CommandResult {
            command: command.clone(),
            exit_code: outcome.code(),
            timed_out: outcome.timed_out,
            duration_ms: outcome.duration.as_millis() as u64,
        };
        let _ = writeln!(
            log,
            "[fleet] `{command}` exited {}{} after {} ms",
            result.exit_code,
            if result.timed_out { " (timed out)" } else { "" },
            result.duration_ms
        );
        let failed = result.exit_code != 0;
        results.push(result);
        if failed {
            break;
        }
    }
    drop(log);
    let bytes = std::fs::read(&log_path).unwrap_or_default();
    Ok(GateOutcome {
        green: results.iter().all(|r| r.exit_code == 0),
        results,
        duration_ms: started.elapsed().as_millis() as u64,
        log: log_path,
        log_digest: blob_digest(&bytes),
    })
}

/// The last `lines` lines of a log, for the terminal.
pub fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Attach `receipt` to its candidate as a note on [`NOTES_REF`].
pub fn write_receipt(repo: &Repo, receipt: &Receipt) -> Result<()> {
    let text =
        toml::to_string(receipt).map_err(|e| Error::env(format!("cannot write a receipt: {e}")))?;
    put_file(
        repo,
        NOTES_REF,
        &receipt.candidate,
        text.as_bytes(),
        &format!(
            "fleet: receipt for {} ({})",
            receipt.lane, receipt.candidate
        ),
    )
}

/// Add a file to the tree of one of fleet's notes-like refs (a commit whose tree holds
/// one file per key) by compare-and-swap, retried when another process added a file at
/// the same time.
fn put_file(repo: &Repo, full_ref: &str, path: &str, bytes: &[u8], message: &str) -> Result<()> {
    repo.update_own_ref(full_ref, message, |old| {
        Ok(OwnRefStep::Set(
            repo.commit_with_file(old, path, bytes, message)?,
            (),
        ))
    })
}

/// The receipt for `commit`, if it has one.
pub fn read_receipt(repo: &Repo, commit: ObjectId) -> Result<Option<Receipt>> {
    let Some(notes) = repo.ref_target(NOTES_REF)? else {
        return Ok(None);
    };
    let Some(bytes) = repo.file_at(notes, &commit.to_string())? else {
        return Ok(None);
    };
    Ok(toml::from_str(&String::from_utf8_lossy(&bytes)).ok())
}

pub fn blob_digest(bytes: &[u8]) -> String {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        .map(|id| id.to_string())
        .unwrap_or_default()
}

/// A lane name safe as part of a file name.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos}-{}", std::process::id())
}
