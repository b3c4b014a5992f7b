//! `fleet doctor`: each check fails when its problem is planted, changes nothing, and
//! passes on a healthy repository.

use std::path::{Path, PathBuf};

use crate::common::Env;

fn checks(env: &Env, repo: &Path) -> (i32, serde_json::Value) {
    let run = env.fleet(repo, &["doctor", "--json"]);
    (run.code, serde_json::from_str(&run.stdout).unwrap())
}

fn verdict(all: &serde_json::Value, name: &str) -> String {
    all.as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}"))["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn an_unguarded_repository_fails_the_probe_and_keeps_its_branch() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    let before = env.snapshot(&repo);
    let (code, all) = checks(&env, &repo);
    assert_eq!(code, 1);
    assert_eq!(verdict(&all, "guard-fires"), "fail");
    assert_eq!(verdict(&all, "hooks-installed"), "fail");
    assert_eq!(
        env.snapshot(&repo),
        before,
        "the probe left something behind"
    );

    env.fleet(&repo, &["init"]).ok();
    let before = env.snapshot(&repo);
    let (code, all) = checks(&env, &repo);
    assert_eq!(code, 0, "{all:#}");
    assert_eq!(verdict(&all, "guard-fires"), "ok");
    assert_eq!(env.snapshot(&repo), before);
}

#[test]
fn planted_problems_are_each_reported_and_left_in_place() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    env.fleet(&repo, &["init"]).ok();
    let wt = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "gone"])
            .ok()
            .stdout
            .trim(),
    );
    env.fleet(&repo, &["track", "gone"]).ok();
    env.git(&repo, &["branch", "doomed"]);
    env.fleet(&repo, &["track", "doomed"]).ok();
    env.git(&repo, &["branch", "-D", "doomed"]);
    std::fs::remove_dir_all(&wt).unwrap();
    let lock = repo.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let ref_lock = repo.join(".git/refs/heads/main.lock");
    std::fs::write(&ref_lock, "").unwrap();
    let hook = repo.join(".git/hooks/pre-commit");
    let text = std::fs::read_to_string(&hook).unwrap();
    let bin = std::fs::canonicalize(env!("CARGO_BIN_EXE_fleet")).unwrap();
    std::fs::write(&hook, text.replace(bin.to_str().unwrap(), "/gone/fleet")).unwrap();

    let (code, all) = checks(&env, &repo);
    assert_eq!(code, 1);
    for name in [
        "stale-locks",
        "prunable-worktrees",
        "lanes-branches",
        "hooks-binary",
    ] {
        assert_eq!(verdict(&all, name), "fail", "{name}: {all:#}");
    }
    assert!(lock.exists() && ref_lock.exists(), "doctor only reports");
    let text = env.fleet(&repo, &["doctor"]).code(1).stdout;
    assert!(text.contains("fix: fleet worktree prune"), "{text}");
}

#[test]
fn the_probe_takes_nothing_staged_and_runs_no_other_hook() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    let marker = env.path().join("post-commit-ran");
    let hook = repo.join(".git/hooks/post-commit");
    crate::common::write(&hook, &format!("#!/bin/sh\ntouch {}\n", marker.display()));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    crate::common::write(&repo.join("secret.txt"), "s\n");
    env.git(&repo, &["add", "secret.txt"]);
    let before = env.snapshot(&repo);
    // No guard installed: the probe commit goes through, and is undone.
    let run = env
        .fleet_cmd(&repo, &["doctor", "--json"])
        .envs(&[("FLEET_ALLOW_SHARED", "1")])
        .run();
    assert_eq!(run.code, 1);
    assert_eq!(env.snapshot(&repo), before);
    assert!(!marker.exists(), "the probe ran post-commit");
    // Guarded, with the escape hatch set in the environment: still refused.
    env.fleet(&repo, &["init"]).ok();
    let run = env
        .fleet_cmd(&repo, &["doctor", "--json"])
        .envs(&[("FLEET_ALLOW_SHARED", "1")])
        .run();
    let all: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(verdict(&all, "guard-fires"), "ok", "{all:#}");
}
