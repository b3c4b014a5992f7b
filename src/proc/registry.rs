//! The record of each guarded process group fleet started (`fleet run`, the gate's
//! commands), so `fleet doctor` can name a group that outlived the fleet that started
//! it: one small JSON file per group under [`crate::state::process_groups`], written
//! when the group starts and removed when it ends (by fleet, or by its guardian after
//! fleet died). A record still there with its group alive and its fleet gone is an
//! orphan: the guardian was killed too, or could not stop the group.
//!
//! PID reuse: a group is named by its id and its leader's start time, a fleet by its
//! pid and start time (`/proc/PID/stat`), so a recycled pid is never taken for ours.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::guardian;
use crate::sys::procfs;

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    pgid: i32,
    /// The leader's start time in clock ticks since boot.
    leader_start: u64,
    /// The command line, shortened.
    command: String,
    /// Seconds since the Unix epoch.
    started: i64,
    fleet_pid: u32,
    fleet_start: u64,
    guardian_pid: Option<u32>,
    guardian_start: Option<u64>,
}

/// Where records of groups started with `cmd` go: the fleet folder of the repository
/// the command runs in, if it runs in one.
pub(super) fn folder_for(cmd: &Command) -> Option<PathBuf> {
    let cwd = match cmd.get_current_dir() {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().ok()?,
    };
    let repo = crate::git::Repo::discover(&cwd).ok()?;
    Some(crate::state::process_groups(&repo.common_dir()))
}

/// The record file of group `pgid` in `folder`. By group id alone: a new group can
/// only take the id once the old one is entirely gone, and its record with it.
pub(super) fn path_in(folder: &Path, pgid: i32) -> PathBuf {
    folder.join(format!("{pgid}.json"))
}

/// The guardian's cleanup after its fleet died: remove the record of group `pgid` in
/// `folder` if it is the one of the leader that started at `leader_start` (unknown:
/// the leader was gone before the guardian looked).
pub(super) fn remove_of(folder: &Path, pgid: i32, leader_start: Option<u64>) {
    let path = path_in(folder, pgid);
    let record = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str::<Record>(&text).ok());
    if record.is_some_and(|r| leader_start.is_none_or(|t| t == r.leader_start)) {
        remove(&path);
    }
}

/// Write the record of group `pgid` (our unreaped child's) started with `cmd`, at
/// `path`. Best effort: a group without a record still dies with fleet.
pub(super) fn write(path: &Path, cmd: &Command, pgid: i32, guardian_pid: Option<u32>) -> bool {
    let me = std::process::id();
    let (Some(leader_start), Some(fleet_start)) =
        (procfs::start_ticks(pgid as u32), procfs::start_ticks(me))
    else {
        return false;
    };
    let record = Record {
        pgid,
        leader_start,
        command: describe(cmd),
        started: crate::time::now(),
        fleet_pid: me,
        fleet_start,
        guardian_pid,
        // Our unreaped child: the pid is still the guardian's.
        guardian_start: guardian_pid.and_then(procfs::start_ticks),
    };
    let Ok(text) = serde_json::to_string(&record) else {
        return false;
    };
    let Some(folder) = path.parent() else {
        return false;
    };
    // Whole or not at all: written aside, then renamed into place. Twice: another
    // fleet may remove the folder, empty, between our steps. The aside file is named
    // for this record too: two threads of one fleet (a drainer's agents) write at once.
    let aside = folder.join(format!(".{me}-{pgid}.tmp"));
    let written = (0..2).any(|_| {
        std::fs::create_dir_all(folder).is_ok()
            && std::fs::write(&aside, &text).is_ok()
            && std::fs::rename(&aside, path).is_ok()
    });
    if !written {
        let _ = std::fs::remove_file(&aside);
    }
    written
}

/// Remove the record at `path`, and its folder once empty (an ended `fleet run`
/// leaves nothing in a repository fleet does not otherwise use).
pub(super) fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
    if let Some(folder) = path.parent() {
        let _ = std::fs::remove_dir(folder);
    }
}

fn describe(cmd: &Command) -> String {
    let words: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|w: &OsStr| w.to_string_lossy().into_owned())
        .collect();
    let text = words.join(" ");
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A group fleet started that is still alive while the fleet that started it is gone.
#[derive(Debug)]
pub struct Orphan {
    pub pgid: i32,
    pub command: String,
    /// Seconds since the Unix epoch.
    pub started: i64,
    pub fleet_pid: u32,
    /// Live processes left in the group.
    pub alive: usize,
}

impl std::fmt::Display for Orphan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ago = (crate::time::now() - self.started).max(0);
        write!(
            f,
            "group {} (`{}`, started {ago}s ago) outlived fleet pid {}, which died; {} process(es) left",
            self.pgid, self.command, self.fleet_pid, self.alive
        )
    }
}

/// The orphan groups recorded under the common dirs `commons`. Records of groups that
/// are gone are dropped on the way (their fleet and guardian died before cleaning up);
/// records of running fleets, and of groups a live guardian is stopping, are left
/// alone.
pub fn orphans(commons: impl IntoIterator<Item = PathBuf>) -> Vec<Orphan> {
    let mut found = Vec::new();
    for common in commons {
        found_in(&crate::state::process_groups(&common), &mut found);
    }
    found.sort_by_key(|o| o.pgid);
    found.dedup_by_key(|o| o.pgid);
    found
}

fn found_in(folder: &Path, found: &mut Vec<Orphan>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(aside) = name.strip_prefix('.') {
            // A record half-written aside (`.<pid>-<pgid>.tmp`) by a fleet killed before
            // its rename: gone with its writer.
            let writer = aside
                .split(['-', '.'])
                .next()
                .and_then(|p| p.parse::<u32>().ok());
            if writer.is_some_and(|pid| procfs::started_at(pid).is_none()) {
                let _ = std::fs::remove_file(&path);
            }
            continue;
        }
        let Some(record) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Record>(&text).ok())
        else {
            continue;
        };
        let alive = live_members(&record);
        if alive == 0 {
            let _ = std::fs::remove_file(&path);
            continue;
        }
        if same_process(record.fleet_pid, record.fleet_start)
            || record
                .guardian_pid
                .zip(record.guardian_start)
                .is_some_and(|(pid, start)| guardian::is_guardian(pid, start))
        {
            continue;
        }
        found.push(Orphan {
            pgid: record.pgid,
            command: record.command,
            started: record.started,
            fleet_pid: record.fleet_pid,
            alive,
        });
    }
}

/// Doctor's orphan check over every shared checkout of the project: one line per
/// orphan group, and the commands that end them all.
pub fn report(ctx: &crate::context::Context) -> (Vec<String>, String) {
    let commons = ctx
        .shared_checkouts()
        .into_iter()
        .filter_map(|rel| crate::git::Repo::open(&ctx.shared.join(rel)).ok())
        .map(|repo| repo.common_dir());
    let orphans = orphans(commons);
    let fix = orphans
        .iter()
        .map(|o| format!("kill -- -{}", o.pgid))
        .collect::<Vec<_>>()
        .join("; ");
    (orphans.iter().map(ToString::to_string).collect(), fix)
}

/// How many live processes the recorded group has; 0 when its id now belongs to a
/// process that is not its leader (the group is gone and the id reused).
fn live_members(record: &Record) -> usize {
    let Ok(leader) = u32::try_from(record.pgid) else {
        return 0;
    };
    if procfs::start_ticks(leader).is_some_and(|t| t != record.leader_start) {
        return 0;
    }
    procfs::group_members(record.pgid).len()
}

/// Is `pid` alive (not a zombie) and the very process that started at `start`?
fn same_process(pid: u32, start: u64) -> bool {
    procfs::Stat::read(pid).is_some_and(|stat| stat.state() != Some('Z'))
        && procfs::start_ticks(pid) == Some(start)
}
