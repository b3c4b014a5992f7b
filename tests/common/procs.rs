//! Reading processes from /proc in tests: whether one is alive, who is in a group, and
//! the pid a test script wrote to a file.

use std::path::Path;
use std::time::{Duration, Instant};

/// The fields of `/proc/<pid>/stat` after the command name (state first), `None` once
/// the process is gone.
pub fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// The state letter of `pid`, `None` once it is gone.
pub fn state(pid: i32) -> Option<char> {
    stat_fields(pid)?.first()?.chars().next()
}

/// Alive and not a zombie.
pub fn live(pid: i32) -> bool {
    !matches!(state(pid), None | Some('Z'))
}

/// Every process id in /proc.
pub fn all_pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// Every live (not zombie) process of group `pgid`.
pub fn members(pgid: i32) -> Vec<i32> {
    let pgid = pgid.to_string();
    all_pids()
        .into_iter()
        .filter(|&pid| {
            stat_fields(pid)
                .is_some_and(|f| f.first().is_some_and(|s| s != "Z") && f.get(2) == Some(&pgid))
        })
        .collect()
}

/// The pid a test script writes to `path`, waited for (generously: the machine may be
/// loaded).
pub fn read_pid(path: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The live processes (zombies left out) whose environment holds the entry `entry`
/// (`NAME=value`): how a test finds every process an agent started, whether or not it
/// lived long enough to say its pid.
pub fn with_environment(entry: &str) -> Vec<i32> {
    all_pids()
        .into_iter()
        .filter(|pid| {
            live(*pid)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|b| *b == 0).any(|e| e == entry.as_bytes()))
        })
        .collect()
}
