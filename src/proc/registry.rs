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

/// The record file of group `pgid` in `folder`. `None` without `/proc`.
pub(super) fn path_in(folder: &Path, pgid: i32) -> Option<PathBuf> {
    let start = procfs::start_ticks(u32::try_from(pgid).ok()?)?;
    Some(folder.join(format!("{pgid}-{start}.json")))
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
    };
    let Ok(text) = serde_json::to_string(&record) else {
        return false;
    };
    let Some(folder) = path.parent() else {
        return false;
    };
    std::fs::create_dir_all(folder).is_ok() && std::fs::write(path, text).is_ok()
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

/// The orphan groups recorded under the common dir `common`. Records of groups that
/// are gone are dropped on the way (their fleet and guardian died before cleaning up);
/// records of running fleets are left alone.
pub fn orphans(common: &Path) -> Vec<Orphan> {
    let folder = crate::state::process_groups(common);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
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
        if same_process(record.fleet_pid, record.fleet_start) {
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
    found.sort_by_key(|o| o.pgid);
    found
}

/// The commands that end `orphans`, for doctor's fix.
pub fn fix(orphans: &[Orphan]) -> String {
    orphans
        .iter()
        .map(|o| format!("kill -- -{}", o.pgid))
        .collect::<Vec<_>>()
        .join("; ")
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
