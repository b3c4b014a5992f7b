//! Is a running agent doing anything? Its last activity, read from what is on disk and
//! in git, so `fleet status` in another process reads the same answer as the drainer:
//! nothing is kept up to date for it.
//!
//! A run's activity is the newest of: its start; its `stdout` and `stderr` in the run's
//! folder ([`crate::state::run_dir`]) growing (their modification times); a commit on
//! its branch (its ref's file written: when the branch moved, by this machine's clock,
//! whatever date the commit carries); and a file or folder of its worktree changing
//! (their modification times; `.git` and `.fleet/` left out; a nested repository's
//! files are in the walk, its commits are not read). The worktree walk is what sees an
//! agent that prints nothing until it ends (`claude -p --output-format json`) while it
//! edits; it runs only when the output and the branch say nothing recent, and stops at
//! the first change recent enough, so a busy agent costs two `stat`s and a ref read, and
//! a silent one a `stat` of each of its files (measured: 12,000 entries in about 40 ms,
//! warm, on a loaded two-core machine).
//!
//! Silent for `stall_after` (`[drain] stall_after`, or its profile's own), a run is
//! *stalled*: `fleet status` shows it. Silent for `abandon_after` (unset: never), the
//! drainer kills its group and records the attempt as timed out ([`super::watch`]).
//!
//! A time to come is no sign of activity: a file dated ahead (a clock skew, an archive
//! from a machine whose clock is ahead, `touch -d`) or a packed branch whose tip carries
//! a date to come would otherwise read as "active now" until that date, and the run
//! would never be stalled nor abandoned. Times up to [`SKEW`] ahead (a network file
//! system's clock) count as now; later ones are left out.
//!
//! A run's folder and worktree are on its drainer's machine: another machine cannot
//! read them, and shows no liveness for it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::agents::profile::{Drain, Profile};
use crate::config::Config;
use crate::git::Repo;
use crate::tasks::{Run, Task};

/// At most this many entries of a worktree are looked at: a runaway build folder is not
/// walked whole every few seconds. The walk goes breadth first, so an agent's own files,
/// near the top, are seen before the depths of an install (`node_modules/`); a walk that
/// stops here without a recent change says nothing for sure ([`Activity::complete`]),
/// and no run is abandoned on its say.
const WALK_AT_MOST: usize = 200_000;

/// How far ahead of this machine's clock a time may be and still count (as now).
const SKEW: i64 = 60;

/// `at` as a sign of activity by `now`: none when it is more than [`SKEW`] ahead, else
/// at most `now`.
fn believable(at: i64, now: i64) -> Option<i64> {
    (at <= now + SKEW).then_some(at.min(now))
}

/// When a run counts as stalled, and when as abandoned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub stall_after: Duration,
    pub abandon_after: Option<Duration>,
}

impl Limits {
    /// A profile's own settings, else `[drain]`'s.
    pub fn of(profile: Option<&Profile>, drain: &Drain) -> Limits {
        Limits {
            stall_after: profile
                .and_then(|p| p.stall_after)
                .unwrap_or(drain.stall_after)
                .0,
            abandon_after: profile
                .and_then(|p| p.abandon_after)
                .or(drain.abandon_after)
                .map(|d| d.0),
        }
    }

    /// The limits of `run` of `task`: those of the profile it runs with (its plan's, else
    /// the task's own or `[drain] agent`), or `[drain]`'s when that profile is gone.
    pub fn for_run(config: &Config, task: &Task, run: &Run) -> Limits {
        let name = match run.plan.as_deref() {
            Some(plan) => crate::plans::named(config, plan)
                .ok()
                .map(|p| p.agent.as_str().to_string()),
            None => None,
        };
        let profile = crate::agents::profile::choose(
            &config.agents,
            &config.drain,
            name.as_deref().or(task.agent.as_deref()),
        )
        .ok()
        .map(|(_, p)| p);
        Limits::of(profile, &config.drain)
    }
}

/// Where a run's activity is read.
#[derive(Clone, Debug)]
pub struct Probe {
    pub run_dir: PathBuf,
    pub worktree: Option<PathBuf>,
    pub branch: Option<String>,
    /// When its agent started.
    pub started: i64,
}

impl Probe {
    /// The probe of a running `run` as its record says, when this machine can read it (its
    /// holder runs here); `None` before its agent started, or on another machine.
    pub fn of_run(common: &Path, run: &Run) -> Option<Probe> {
        let started = run.started?;
        run.holder.alive_here()?;
        Some(Probe {
            run_dir: crate::state::run_dir(common, &run.id),
            worktree: run.worktree.as_ref().map(PathBuf::from),
            branch: run.branch.clone(),
            started,
        })
    }
}

/// What showed a run's last activity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Nothing since the agent started.
    Start,
    /// Its stdout or stderr grew.
    Output,
    /// A commit on its branch.
    Commit,
    /// A file in its worktree changed.
    Files,
}

/// A run's last activity (seconds since the epoch) and what showed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activity {
    pub at: i64,
    pub by: Source,
    /// Everything was looked at: false when the worktree walk stopped at
    /// [`WALK_AT_MOST`] entries before it found a recent change, so a change further on
    /// may have been missed.
    pub complete: bool,
}

/// `probe`'s last activity. `recent`: any activity after it is enough to know, so the
/// worktree walk stops at the first change that new (the time returned is then that
/// change's, which may not be the newest).
pub fn last_activity(repo: &Repo, probe: &Probe, recent: i64) -> Activity {
    let now = crate::time::now();
    let mut last = Activity {
        at: probe.started,
        by: Source::Start,
        complete: true,
    };
    let saw = |last: &mut Activity, at: Option<i64>, by: Source| {
        if let Some(at) = at.and_then(|at| believable(at, now))
            && at > last.at
        {
            *last = Activity { at, by, ..*last };
        }
    };
    for name in ["stdout", "stderr"] {
        let grew = crate::tasks::health::mtime(&probe.run_dir.join(name));
        saw(&mut last, grew, Source::Output);
    }
    if let Some(branch) = probe.branch.as_deref()
        && crate::config::is_valid_branch_name(branch)
    {
        // When the branch moved: its loose ref written (this machine's clock, whatever
        // date the agent's commits carry), else (packed) its tip's commit time, left
        // out when it is still to come.
        let moved = repo
            .loose_ref_written(&crate::refs::branch(branch))
            .or_else(|| {
                let tip = repo.branch_tip(branch).ok().flatten()?;
                repo.commit_time(tip).ok()
            });
        saw(&mut last, moved, Source::Commit);
    }
    if last.at <= recent
        && let Some(worktree) = &probe.worktree
    {
        let (newest, complete) = newest_change(worktree, recent, now);
        saw(&mut last, newest, Source::Files);
        last.complete = complete;
    }
    last
}

/// The newest modification time under `root` (`.git` and `.fleet` left out, links not
/// followed, times still to come by `now` as [`believable`] says), or the first after
/// `recent` found, breadth first; and whether the walk saw it all (it stops at
/// [`WALK_AT_MOST`] entries).
fn newest_change(root: &Path, recent: i64, now: i64) -> (Option<i64>, bool) {
    let mut newest = None;
    let mut seen = 0usize;
    let mut folders = std::collections::VecDeque::from([root.to_path_buf()]);
    while let Some(folder) = folders.pop_front() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > WALK_AT_MOST {
                return (newest, false);
            }
            let name = entry.file_name();
            if name == ".git" || (folder == root && name == ".fleet") {
                continue;
            }
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            let at = modified(&meta).and_then(|at| believable(at, now));
            if at.is_some_and(|at| at > recent) {
                return (at, true);
            }
            newest = newest.max(at);
            if meta.is_dir() {
                folders.push_back(entry.path());
            }
        }
    }
    (newest, true)
}

fn modified(meta: &std::fs::Metadata) -> Option<i64> {
    let at = meta.modified().ok()?;
    Some(at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64)
}

/// A run's liveness as `fleet status` and `fleet doctor` show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Liveness {
    /// Its last activity (seconds since the epoch) and what showed it.
    pub last_activity: i64,
    pub by: Source,
    /// Seconds since then.
    pub silent_secs: i64,
    /// Silent for `stall_after` or longer.
    pub stalled: bool,
    pub stall_after_secs: u64,
    /// Silent this long, the drainer abandons it; none: never.
    pub abandon_after_secs: Option<u64>,
}

/// The liveness of running `run` of `task`, when this machine can tell (see
/// [`Probe::of_run`]).
pub fn of_run(repo: &Repo, config: &Config, task: &Task, run: &Run, now: i64) -> Option<Liveness> {
    let probe = Probe::of_run(&repo.common_dir(), run)?;
    let limits = Limits::for_run(config, task, run);
    let stall = whole_secs(limits.stall_after);
    let last = last_activity(repo, &probe, now - stall);
    let silent = (now - last.at).max(0);
    Some(Liveness {
        last_activity: last.at,
        by: last.by,
        silent_secs: silent,
        stalled: silent >= stall,
        stall_after_secs: stall as u64,
        abandon_after_secs: limits.abandon_after.map(|d| whole_secs(d) as u64),
    })
}

/// `d` in whole seconds, a part of one counted as one: `abandon_after = "500ms"` is not
/// zero (silent for zero seconds, every run would be abandoned at once).
pub fn whole_secs(d: Duration) -> i64 {
    (d.as_secs() + u64::from(d.subsec_nanos() > 0)) as i64
}

/// `secs` as fleet.toml writes a duration: `90s` is `1m 30s`.
pub fn show_secs(secs: i64) -> String {
    humantime::format_duration(Duration::from_secs(secs.max(0) as u64)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_s_own_limits_beat_drain_s() {
        let drain = Drain {
            abandon_after: Some(crate::config::DurationSetting(Duration::from_secs(600))),
            ..Drain::default()
        };
        let mut profile: Profile =
            toml::from_str("command = [\"a\"]\nstall_after = \"5s\"\n").unwrap();
        let limits = Limits::of(Some(&profile), &drain);
        assert_eq!(limits.stall_after, Duration::from_secs(5));
        assert_eq!(limits.abandon_after, Some(Duration::from_secs(600)));
        profile.abandon_after = Some(crate::config::DurationSetting(Duration::from_secs(9)));
        let limits = Limits::of(Some(&profile), &drain);
        assert_eq!(limits.abandon_after, Some(Duration::from_secs(9)));
        let limits = Limits::of(None, &Drain::default());
        assert_eq!(limits.stall_after, Duration::from_secs(600));
        assert_eq!(limits.abandon_after, None);
    }

    #[test]
    fn a_part_of_a_second_counts_as_one() {
        assert_eq!(whole_secs(Duration::from_millis(500)), 1);
        assert_eq!(whole_secs(Duration::from_secs(2)), 2);
        assert_eq!(whole_secs(Duration::from_millis(2100)), 3);
    }

    #[test]
    fn the_walk_leaves_out_git_and_the_plan_and_stops_at_a_recent_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in [".git", ".fleet", "src"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for file in [".git/HEAD", ".fleet/plan.md", "src/a.rs"] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        let now = crate::time::now();
        let at = |path: &str, t: i64| {
            let when = std::time::UNIX_EPOCH + Duration::from_secs(t as u64);
            std::fs::File::open(root.join(path))
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        for path in ["src/a.rs", "src", ".git", ".fleet", ""] {
            at(path, now - 1000);
        }
        // What git and the drainer write is no sign of the agent.
        at(".git/HEAD", now);
        at(".fleet/plan.md", now);
        assert_eq!(newest_change(root, now - 10, now), (Some(now - 1000), true));
        // A file dated a day ahead is no change now; a few seconds ahead counts as now.
        at("src/a.rs", now + 86_400);
        assert_eq!(newest_change(root, now - 10, now), (Some(now - 1000), true));
        at("src/a.rs", now + 5);
        assert_eq!(newest_change(root, now - 10, now), (Some(now), true));
        at("src/a.rs", now - 3);
        assert_eq!(newest_change(root, now - 10, now), (Some(now - 3), true));
    }
}
