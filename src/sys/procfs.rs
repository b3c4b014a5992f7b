//! Linux's `/proc`: the one place fleet reads it. Process groups (are helpers of a
//! child still alive?), working folders and open files of other processes, the guard's
//! view of who ran git (the parent chain and command lines) and doctor's start times.
//!
//! Without `/proc` (not Linux, or not mounted) every reader returns `None` or nothing,
//! and the caller decides what "unknown" means for it.

use std::path::{Path, PathBuf};

/// The ids of every process now visible, in no particular order; `None` without `/proc`.
pub fn pids() -> Option<impl Iterator<Item = u32>> {
    let entries = std::fs::read_dir("/proc").ok()?;
    Some(entries.flatten().filter_map(|entry| {
        entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
    }))
}

/// One read of `/proc/PID/stat`.
pub struct Stat(String);

impl Stat {
    pub fn read(pid: u32) -> Option<Stat> {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .map(Stat)
    }

    /// The fields after the command name, which is in parentheses and may itself hold
    /// spaces and parentheses: 0 is the state, 1 the parent, 2 the process group, 19
    /// the start time in clock ticks since boot.
    fn fields(&self) -> Option<Vec<&str>> {
        let line = &self.0;
        Some(line[line.rfind(')')? + 1..].split_whitespace().collect())
    }

    /// R, S, D, Z, T...
    pub fn state(&self) -> Option<char> {
        self.fields()?.first()?.chars().next()
    }

    pub fn parent(&self) -> Option<u32> {
        self.fields()?.get(1)?.parse().ok()
    }

    pub fn group(&self) -> Option<i32> {
        self.fields()?.get(2)?.parse().ok()
    }

    fn start_ticks(&self) -> Option<u64> {
        self.fields()?.get(19)?.parse().ok()
    }
}

/// The raw command line: arguments separated (and ended) by NUL bytes. Empty for a
/// kernel thread.
pub fn cmdline(pid: u32) -> Option<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/cmdline")).ok()
}

/// The environment the process started with: `NAME=value` entries, each ended by a NUL
/// byte. Readable only for processes of our own user.
pub fn environ(pid: u32) -> Option<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/environ")).ok()
}

/// The command line split into arguments.
pub fn args(pid: u32) -> Option<Vec<String>> {
    let cmdline = cmdline(pid)?;
    let cmdline = cmdline.strip_suffix(&[0]).unwrap_or(&cmdline);
    if cmdline.is_empty() {
        return Some(Vec::new());
    }
    Some(
        cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

/// The process's name (at most 15 bytes, set by the program), with its newline.
pub fn comm(pid: u32) -> Option<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/comm")).ok()
}

/// The binary the process runs; its name ends in " (deleted)" once the file was
/// replaced or removed.
pub fn exe(pid: u32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok()
}

/// The process's working folder.
pub fn cwd(pid: u32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// When the process started, in seconds since the Unix epoch.
pub fn started_at(pid: u32) -> Option<u64> {
    let ticks = Stat::read(pid)?.start_ticks()?;
    Some(boot_time()? + ticks / rustix::param::clock_ticks_per_second().max(1))
}

/// When the machine booted, in seconds since the Unix epoch.
fn boot_time() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|t| t.trim().parse().ok())
}

/// Is a process other than `other_than` still alive in group `pgid`? `kill(-pgid, 0)`
/// cannot tell, because it also succeeds for a zombie leader. Zombies do not count:
/// they are dead already (and may never be reaped if init does not reap).
pub fn group_has_live_member(pgid: i32, other_than: u32) -> Option<bool> {
    Some(pids()?.filter(|pid| *pid != other_than).any(|pid| {
        Stat::read(pid).is_some_and(|stat| stat.group() == Some(pgid) && stat.state() != Some('Z'))
    }))
}

/// The processes whose working folder is `dir` or inside it (empty without `/proc`).
pub fn working_under(dir: &Path) -> Vec<u32> {
    let Some(pids) = pids() else {
        return Vec::new();
    };
    pids.filter(|pid| cwd(*pid).is_some_and(|cwd| cwd.starts_with(dir)))
        .collect()
}

/// A process that holds `path` open, if any (`None` without `/proc`).
pub fn opened_by(path: &Path) -> Option<u32> {
    pids()?.find(|pid| {
        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == path))
        })
    })
}

/// A live git process (a zombie is dead already) and what says which repository it
/// works on: its working folder, the variables that point it elsewhere, its arguments.
#[derive(Debug)]
pub struct GitProcess {
    pub pid: u32,
    pub cwd: Option<PathBuf>,
    /// `GIT_DIR`, `GIT_COMMON_DIR` and `GIT_INDEX_FILE` from its environment, as given
    /// (relative ones are relative to `cwd`).
    pub env: Vec<(String, PathBuf)>,
    pub args: Vec<String>,
}

/// Every live git process this user can see (empty without `/proc`): the program
/// `git` or one of its `git-*` helpers, by name or by binary.
pub fn git_processes() -> Vec<GitProcess> {
    let Some(pids) = pids() else {
        return Vec::new();
    };
    pids.filter(|pid| is_git(*pid))
        .filter(|pid| Stat::read(*pid).is_some_and(|s| s.state() != Some('Z')))
        .map(|pid| GitProcess {
            pid,
            cwd: cwd(pid),
            env: git_environment(pid),
            args: args(pid).unwrap_or_default(),
        })
        .collect()
}

fn is_git(pid: u32) -> bool {
    let named_git = |name: &str| name == "git" || name.starts_with("git-");
    comm(pid).is_some_and(|c| named_git(String::from_utf8_lossy(&c).trim_end()))
        || exe(pid).is_some_and(|e| {
            e.file_name()
                .is_some_and(|n| named_git(n.to_string_lossy().trim_end_matches(" (deleted)")))
        })
}

/// The variables of the process's initial environment that choose git's repository
/// and index files.
fn git_environment(pid: u32) -> Vec<(String, PathBuf)> {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return Vec::new();
    };
    environ
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (key, value) = entry.split_once('=')?;
            ["GIT_DIR", "GIT_COMMON_DIR", "GIT_INDEX_FILE"]
                .contains(&key)
                .then(|| (key.to_string(), PathBuf::from(value)))
        })
        .collect()
}

/// When process `pid` started, in clock ticks since boot: with its pid, what tells one
/// process from a later one that got the same id.
pub fn start_ticks(pid: u32) -> Option<u64> {
    Stat::read(pid)?.start_ticks()
}

/// The live (not zombie) processes of group `pgid` (empty without `/proc`).
pub fn group_members(pgid: i32) -> Vec<u32> {
    let Some(pids) = pids() else {
        return Vec::new();
    };
    pids.filter(|pid| {
        Stat::read(*pid).is_some_and(|stat| stat.group() == Some(pgid) && stat.state() != Some('Z'))
    })
    .collect()
}

/// This boot of the machine (`/proc/sys/kernel/random/boot_id`): a pid and start time
/// name a process only within one boot.
pub fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_string()).filter(|id| !id.is_empty())
}

/// The machine's host name (`/proc/sys/kernel/hostname`).
pub fn hostname() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_survive_spaces_and_parens_in_the_command_name() {
        let stat = Stat("1234 (a (b) c) S 1 777 777 0 -1".into());
        assert_eq!(stat.group(), Some(777));
        assert_eq!(stat.parent(), Some(1));
        assert_eq!(stat.state(), Some('S'));
    }

    #[test]
    fn this_process_is_seen() {
        let me = std::process::id();
        assert!(pids().unwrap().any(|pid| pid == me));
        assert_eq!(
            Stat::read(me).and_then(|s| s.parent()),
            Some(std::os::unix::process::parent_id())
        );
        assert!(started_at(me).is_some());
        assert_eq!(cwd(me), std::env::current_dir().ok());
    }
}
