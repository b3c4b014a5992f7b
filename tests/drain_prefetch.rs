//! `fleet drain`'s per-task overhead (issue 15's goal of at most half the shell glue),
//! and what being quicker must not cost: each run's worktree is made without git
//! processes of the drainer's own.

use std::path::{Path, PathBuf};

use crate::common::assert::lane_states;
use crate::common::drain::{add, project, show};
use crate::common::{Env, write};

/// A `git` on PATH that logs its arguments, one line a call, then runs the real one.
fn counting_git(env: &Env) -> (PathBuf, PathBuf) {
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .stdin(std::process::Stdio::piped())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bin = env.path().join("counting-bin");
    let log = env.path().join("git-calls.log");
    std::fs::create_dir_all(&bin).unwrap();
    let shim = bin.join("git");
    write(
        &shim,
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.trim()
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin, log)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn drain_runs_no_git_process_of_its_own_for_a_run_only_the_agents() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "one", &[]);
    add(&env, &dir, "two", &[]);
    let (bin, log) = counting_git(&env);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = env
        .fleet_cmd(&dir, &["drain", "--once", "--max", "2", "--json"])
        .env("PATH", path)
        .run()
        .ok();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    for run in report["runs"].as_array().unwrap() {
        assert_eq!(run["outcome"], "succeeded", "{report:#}");
    }
    // The two agents' own `git add -A` and `git commit`, and nothing of the drainer's
    // (it asked git for the hooks folders of each new worktree, for a note it dropped).
    let mut calls = lines(&log);
    calls.sort();
    assert_eq!(
        calls,
        [
            "add -A",
            "add -A",
            "commit -qm agent: one",
            "commit -qm agent: two"
        ],
        "{}",
        run.stderr
    );
    for name in ["one", "two"] {
        assert_eq!(show(&env, &dir, name)["state"], "succeeded");
    }
    let states: Vec<String> = lane_states(&env, &dir).into_iter().map(|l| l.1).collect();
    assert_eq!(states, ["ready", "ready"]);
}
