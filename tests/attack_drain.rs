//! An adversarial review of `fleet drain`, its task queue, plans and report: a user's
//! day and an attacker's agents (daemons that leave their group, agents that switch
//! branch or delete their worktree, hostile plans and dependencies), each test named
//! after the promise it holds fleet to and checking the state afterwards.

use std::path::{Path, PathBuf};

use crate::common::Env;

/// The records of live groups fleet keeps for doctor, in `repo`.
fn group_records(repo: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(repo.join(".git/fleet/groups")) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_fleet_killed_while_it_reaps_a_group_leaves_no_record_of_that_group() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    // fleet dies (as `kill -9` would) in the middle of reaping the group it ran.
    let run = env
        .fleet_cmd(&repo, &["run", "--", "sh", "-c", "exit 0"])
        .env("FLEET_FAILPOINT", "group-reap-between:abort")
        .run();
    assert_ne!(run.code, 0, "the failpoint never fired: {}", run.stderr);
    // Its guardian, not dismissed, finds the group gone and has nothing left to do;
    // nothing may claim that a group of this fleet is still recorded.
    assert_eq!(group_records(&repo), Vec::<PathBuf>::new());
}
