//! `kill -9` the lander at many moments, and race two landers: the target is always at
//! its old commit or at a gated one, no lane loses a commit, and landing again converges
//! with every lane landed exactly once.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Env;

const LANES: usize = 3;

fn spawn_land(env: &Env, repo: &Path, failpoint: Option<&str>) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fleet"));
    cmd.current_dir(repo)
        .args(["land", "--all", "--yes"])
        .env("HOME", env.path().join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(fp) = failpoint {
        cmd.env("FLEET_FAILPOINT", fp);
    }
    cmd.spawn().unwrap()
}

/// Every first-parent step from `old` to the target has a receipt for its exact tree,
/// built on the step before; lanes' tips are untouched.
fn assert_invariant(env: &Env, repo: &Path, old: &str, tips: &[String]) {
    let target = env.git(repo, &["rev-parse", "main"]);
    let steps = env.git(
        repo,
        &[
            "rev-list",
            "--first-parent",
            "--reverse",
            &format!("{old}..main"),
        ],
    );
    let mut previous = old.to_string();
    for step in steps.lines() {
        let note = env
            .git_cmd(repo, &["notes", "--ref", "fleet", "show", step])
            .run();
        assert_eq!(note.code, 0, "target step {step} has no receipt");
        let receipt: toml::Value = toml::from_str(&note.stdout).unwrap();
        assert_eq!(
            receipt["tested_tree"].as_str().unwrap(),
            env.git(repo, &["rev-parse", &format!("{step}^{{tree}}")])
        );
        assert_eq!(receipt["base"].as_str().unwrap(), previous);
        previous = step.to_string();
    }
    assert_eq!(previous, target);
    for (i, tip) in tips.iter().enumerate() {
        assert_eq!(
            &env.git(repo, &["rev-parse", &format!("fleet/l{i}")]),
            tip,
            "lane l{i} was rewritten"
        );
    }
}

fn assert_converged(env: &Env, repo: &Path, old: &str, tips: &[String]) {
    env.fleet(repo, &["land", "--all", "--yes"]).ok();
    assert_invariant(env, repo, old, tips);
    assert_eq!(
        env.git(repo, &["rev-list", "--count", &format!("{old}..main")]),
        LANES.to_string(),
        "each lane exactly once"
    );
    for i in 0..LANES {
        assert!(
            repo.join(format!("l{i}.txt")).exists(),
            "lane {i} not in the shared checkout"
        );
    }
    assert_eq!(env.git(repo, &["symbolic-ref", "--short", "HEAD"]), "main");
    assert_eq!(
        env.git(repo, &["status", "--porcelain"]),
        "",
        "shared checkout not clean and current"
    );
}

#[test]
fn killed_around_the_ref_update_the_target_is_old_or_gated_and_a_rerun_converges() {
    for failpoint in ["land-before-cas:abort", "land-after-cas:abort"] {
        let env = Env::new();
        let (repo, old, tips) = env.lanes_with_slow_gate(LANES);
        let out = spawn_land(&env, &repo, Some(failpoint))
            .wait_with_output()
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGABRT),
            "{failpoint} did not fire: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_invariant(&env, &repo, &old, &tips);
        assert_converged(&env, &repo, &old, &tips);
    }
}

#[test]
fn killed_at_many_moments_the_invariant_holds_and_a_rerun_converges() {
    let env = Env::new();
    let (repo, _, _) = env.lanes_with_slow_gate(LANES);
    // One undisturbed run, to know how long a landing of all lanes takes.
    let probe_env = Env::new();
    let (probe, _, _) = probe_env.lanes_with_slow_gate(LANES);
    let started = Instant::now();
    probe_env.fleet(&probe, &["land", "--all", "--yes"]).ok();
    let full = started.elapsed();
    drop(repo);

    let mut interrupted = 0;
    for step in 1..=8u32 {
        // Kill at step/9 of a run; a run that finished before the kill is retried with
        // an earlier kill, so the kills land while the lander works.
        let mut delay = full * step / 9;
        for _ in 0..4 {
            let env = Env::new();
            let (repo, old, tips) = env.lanes_with_slow_gate(LANES);
            let mut child = spawn_land(&env, &repo, None);
            std::thread::sleep(delay);
            let hit = child.try_wait().unwrap().is_none();
            let _ = child.kill();
            let _ = child.wait();
            assert_invariant(&env, &repo, &old, &tips);
            assert_converged(&env, &repo, &old, &tips);
            if hit {
                interrupted += 1;
                break;
            }
            delay = delay * 2 / 3;
        }
    }
    assert!(
        interrupted >= 6,
        "only {interrupted} kills hit a running lander"
    );
}

#[test]
fn two_landers_at_once_land_every_lane_exactly_once() {
    let env = Env::new();
    let (repo, old, tips) = env.lanes_with_slow_gate(LANES);
    let a = spawn_land(&env, &repo, None);
    let b = spawn_land(&env, &repo, None);
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    assert_invariant(&env, &repo, &old, &tips);
    assert_eq!(
        env.git(&repo, &["rev-list", "--count", &format!("{old}..main")]),
        LANES.to_string()
    );
    assert_eq!(
        env.git(&repo, &["rev-list", "--merges", "--count", "main"]),
        "0"
    );
    let _ = Duration::ZERO;
}
