//! `fleet land --all --batch` and the gate result cache on real repositories: a batch
//! is gated once, a red batch is bisected to its culprit within 1 + 2·log2(n) gate runs
//! while the others land, every position the target ever held has a receipt for its
//! exact tree, and an identical tree is never gated twice.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::common::assert::{receipt, receipt_if_any};
use crate::common::{Env, write};

fn gate_runs(env: &Env) -> usize {
    std::fs::read_to_string(env.path().join("runs"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn land_json(env: &Env, repo: &Path, args: &[&str]) -> serde_json::Value {
    let run = env.fleet_cmd(repo, args).anonymous().run();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr))
}

fn results(v: &serde_json::Value) -> Vec<(String, String)> {
    v["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["lane"].as_str().unwrap().to_string(),
                l["result"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every position main ever held since `old` (its reflog, so also positions a later
/// landing moved past) has a green receipt for its exact tree; following the receipts
/// from main leads back to `old`; and main's history is linear.
fn assert_every_move_gated(env: &Env, repo: &Path, old: &str) {
    let reflog = env.git(repo, &["log", "-g", "--format=%H", "main"]);
    for position in reflog.lines() {
        if position == old {
            break;
        }
        let r = receipt_if_any(env, repo, position)
            .unwrap_or_else(|| panic!("main was at {position}, which has no receipt"));
        assert_eq!(
            r["tested_tree"].as_str().unwrap(),
            env.git(repo, &["rev-parse", &format!("{position}^{{tree}}")]),
            "main was at {position}, whose tree was not the one tested"
        );
        for c in r["commands"].as_array().unwrap() {
            assert_eq!(c["exit_code"].as_integer(), Some(0));
        }
    }
    let mut at = env.git(repo, &["rev-parse", "main"]);
    while at != old {
        let r = receipt(env, repo, &at);
        at = r
            .get("target_before")
            .unwrap_or(&r["base"])
            .as_str()
            .unwrap()
            .to_string();
    }
    assert_eq!(
        env.git(repo, &["rev-list", "--merges", "--count", "main"]),
        "0"
    );
}

#[test]
fn a_green_batch_is_gated_once_and_each_lane_keeps_its_commit_and_receipt() {
    let env = Env::new();
    let (repo, old) = env.lanes_with_logged_gate(3, &[]);
    let v = land_json(
        &env,
        &repo,
        &["land", "--all", "--batch", "--yes", "--json"],
    );
    assert_eq!(v["gate_runs"], 1, "{v}");
    assert_eq!(gate_runs(&env), 1);
    assert!(results(&v).iter().all(|(_, r)| r == "landed"), "{v}");
    // One move of the target: old -> the batch's top, with three lane commits.
    assert_eq!(
        env.git(&repo, &["rev-list", "--count", &format!("{old}..main")]),
        "3"
    );
    let moves = env.git(&repo, &["log", "-g", "--format=%H", "main"]);
    assert_eq!(moves.lines().count(), 2, "{moves}");
    let top = env.git(&repo, &["rev-parse", "main"]);
    for (i, step) in env
        .git(&repo, &["rev-list", "--reverse", &format!("{old}..main")])
        .lines()
        .enumerate()
    {
        let r = receipt(&env, &repo, step);
        assert_eq!(
            r["lane"].as_str(),
            Some(format!("fleet/l{}", i + 1).as_str())
        );
        assert_eq!(
            r["tested_tree"].as_str().unwrap(),
            env.git(&repo, &["rev-parse", "main^{tree}"])
        );
        if step != top {
            assert_eq!(r["landed_with"].as_str(), Some(top.as_str()));
            if i > 0 {
                assert_eq!(r["target_before"].as_str(), Some(old.as_str()));
            }
        }
    }
    assert_every_move_gated(&env, &repo, &old);
    for i in 1..=3 {
        assert!(
            repo.join(format!("l{i}.txt")).exists(),
            "shared checkout did not follow"
        );
    }
    // Revert of a lane in the middle of a batch undoes that lane alone.
    env.fleet(&repo, &["revert", "l2", "--yes"]).ok();
    assert!(!repo.join("l2.txt").exists());
    assert!(repo.join("l1.txt").exists() && repo.join("l3.txt").exists());
}

#[test]
fn eight_lanes_with_the_fifth_bad_bisect_to_it_and_the_other_seven_land() {
    let env = Env::new();
    let (repo, old) = env.lanes_with_logged_gate(8, &[5]);
    let v = land_json(
        &env,
        &repo,
        &["land", "--all", "--batch", "--yes", "--json"],
    );
    let runs = v["gate_runs"].as_u64().unwrap() as usize;
    assert_eq!(
        runs,
        gate_runs(&env),
        "the report counts the runs that happened"
    );
    assert!(runs <= 1 + 2 * 3, "{runs} gate runs for 8 lanes");
    // All 8 (red), 1-4 (green, land), 5-6 (red), 5 (red): culprit; then 6-8 (green).
    assert_eq!(runs, 5);
    let results = results(&v);
    assert_eq!(results.len(), 8);
    for (i, (lane, result)) in results.iter().enumerate() {
        assert_eq!(lane, &format!("fleet/l{}", i + 1), "reported in order");
        let expected = if i + 1 == 5 { "failed" } else { "landed" };
        assert_eq!(result, expected, "{lane}: {v}");
    }
    let tree = env.git(&repo, &["ls-tree", "--name-only", "main"]);
    assert!(!tree.lines().any(|f| f == "bad"), "{tree}");
    for i in [1, 2, 3, 4, 6, 7, 8] {
        assert!(tree.lines().any(|f| f == format!("l{i}.txt")), "{tree}");
    }
    assert_every_move_gated(&env, &repo, &old);
    // Each combination was gated at most once.
    let tested = std::fs::read_to_string(env.path().join("runs")).unwrap();
    let trees: Vec<String> = tested
        .lines()
        .map(|c| env.git(&repo, &["rev-parse", &format!("{c}^{{tree}}")]))
        .collect();
    let mut unique = trees.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), trees.len(), "a tree was gated twice");
    let status = env.fleet(&repo, &["status", "--json"]).ok().stdout;
    let lanes: serde_json::Value = serde_json::from_str(&status).unwrap();
    let l5 = lanes
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["branch"] == "fleet/l5")
        .unwrap();
    assert_eq!(l5["state"], "failed", "{l5}");
}

#[test]
fn max_caps_the_batch_size() {
    let env = Env::new();
    let (repo, old) = env.lanes_with_logged_gate(5, &[]);
    let v = land_json(
        &env,
        &repo,
        &["land", "--all", "--batch", "--max", "2", "--yes", "--json"],
    );
    assert_eq!(v["gate_runs"], 3, "{v}");
    assert!(results(&v).iter().all(|(_, r)| r == "landed"), "{v}");
    assert_every_move_gated(&env, &repo, &old);
    let bad = env
        .fleet_cmd(&repo, &["land", "--all", "--batch", "--max", "0"])
        .anonymous()
        .run();
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    let bad = env
        .fleet_cmd(&repo, &["land", "--all", "--max", "2"])
        .anonymous()
        .run();
    assert_eq!(bad.code, 2, "--max without --batch: {}", bad.stderr);
}

#[test]
fn a_tree_is_never_gated_twice_unless_asked_or_the_named_environment_differs() {
    let env = Env::new();
    let (repo, _) = env.lanes_with_logged_gate(1, &[]);
    // The gate also fails while a file outside the repository exists: the tree alone
    // does not decide, which is what --no-cache is for.
    let outside = env.path().join("broken");
    write(&outside, "x\n");
    let toml = format!(
        "[gate]\ncommands = [\"echo $FLEET_CANDIDATE >> {}; test ! -e {}\"]\nenv = [\"FLAVOUR\"]\n",
        env.path().join("runs").display(),
        outside.display()
    );
    write(&repo.join("fleet.toml"), &toml);
    env.git(&repo, &["commit", "-qam", "gate reads outside"]);
    let first = env
        .fleet_cmd(&repo, &["land", "l1", "--yes"])
        .anonymous()
        .run();
    assert_eq!(first.code, 1, "{}", first.stderr);
    assert_eq!(gate_runs(&env), 1);
    std::fs::remove_file(&outside).unwrap();
    env.fleet(&repo, &["ready", "l1"]).ok();
    let again = env
        .fleet_cmd(&repo, &["land", "l1", "--yes"])
        .anonymous()
        .run();
    assert_eq!(again.code, 1, "{}", again.stderr);
    assert!(
        again.stderr.contains("was gated before"),
        "{}",
        again.stderr
    );
    assert!(again.stderr.contains("--no-cache"), "{}", again.stderr);
    assert_eq!(gate_runs(&env), 1, "the cached red result was used");
    // A variable the config names is part of the key.
    env.fleet(&repo, &["ready", "l1"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    let fresh = env
        .fleet_cmd(&repo, &["land", "l1", "--yes"])
        .envs(&[("FLAVOUR", "2")])
        .run();
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    assert_eq!(gate_runs(&env), 2);
    assert_every_move_gated(&env, &repo, &old);
    // --no-cache runs the gate even for a known tree; a cached green lands with a
    // receipt that says so.
    let wt = env.agent(&repo, "l2");
    env.commit_file(&wt, "l2.txt", "x\n", "lane 2");
    env.fleet(&repo, &["track", "--ready", "l2"]).ok();
    env.fleet(&repo, &["land", "l2", "--yes", "--no-cache"])
        .ok();
    assert_eq!(gate_runs(&env), 3);
    let r = receipt(&env, &repo, "main");
    assert!(r.get("cached").is_none(), "{r}");
}

#[test]
fn a_rebuilt_candidate_with_the_same_tree_is_not_gated_again() {
    let env = Env::new();
    let (repo, old) = env.lanes_with_logged_gate(1, &[]);
    // Gate the candidate, then refuse to move (the failpoint), as if killed after the
    // gate: the re-run builds a new candidate commit with the same tree.
    let stopped = env
        .fleet_cmd(&repo, &["land", "l1", "--yes"])
        .envs(&[("FLEET_FAILPOINT", "land-before-cas")])
        .run();
    assert_ne!(stopped.code, 0);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
    assert_eq!(gate_runs(&env), 1);
    let run = env.fleet(&repo, &["land", "l1", "--yes"]).ok();
    assert!(run.stderr.contains("cached"), "{}", run.stderr);
    assert_eq!(gate_runs(&env), 1);
    let r = receipt(&env, &repo, "main");
    assert_eq!(r["cached"].as_bool(), Some(true), "{r}");
    assert_every_move_gated(&env, &repo, &old);
}

fn spawn_batch(env: &Env, repo: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_fleet"))
        .current_dir(repo)
        .args(["land", "--all", "--batch", "--yes"])
        .env("HOME", env.path().join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_batch_killed_at_many_moments_keeps_the_invariant_and_a_rerun_converges() {
    let probe = Env::new();
    let (probe_repo, _) = probe.lanes_with_logged_gate(6, &[4]);
    let started = Instant::now();
    probe
        .fleet_cmd(&probe_repo, &["land", "--all", "--batch", "--yes"])
        .anonymous()
        .run();
    let full = started.elapsed();
    let mut interrupted = 0;
    for step in 1..=5u32 {
        let mut delay = full * step / 6;
        for _ in 0..4 {
            let env = Env::new();
            let (repo, old) = env.lanes_with_logged_gate(6, &[4]);
            let tips: Vec<String> = (1..=6)
                .map(|i| env.git(&repo, &["rev-parse", &format!("fleet/l{i}")]))
                .collect();
            let mut child = spawn_batch(&env, &repo);
            std::thread::sleep(delay);
            let hit = child.try_wait().unwrap().is_none();
            let _ = child.kill();
            let _ = child.wait();
            assert_every_move_gated(&env, &repo, &old);
            // Re-run until nothing is left to do: every good lane lands once.
            let rerun = env
                .fleet_cmd(&repo, &["land", "--all", "--batch", "--yes"])
                .anonymous()
                .run();
            assert!(rerun.code <= 1, "{}", rerun.stderr);
            assert_every_move_gated(&env, &repo, &old);
            let tree = env.git(&repo, &["ls-tree", "--name-only", "main"]);
            for i in [1, 2, 3, 5, 6] {
                assert!(tree.lines().any(|f| f == format!("l{i}.txt")), "{tree}");
            }
            assert!(!tree.lines().any(|f| f == "bad"), "{tree}");
            assert_eq!(
                env.git(&repo, &["rev-list", "--count", &format!("{old}..main")]),
                "5",
                "each good lane exactly once"
            );
            for (i, tip) in tips.iter().enumerate() {
                assert_eq!(
                    &env.git(&repo, &["rev-parse", &format!("fleet/l{}", i + 1)]),
                    tip
                );
            }
            assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
            if hit {
                interrupted += 1;
                break;
            }
            delay = delay * 2 / 3;
        }
    }
    assert!(
        interrupted >= 4,
        "only {interrupted} kills hit a running lander"
    );
}

#[test]
fn a_lane_that_conflicts_only_with_a_failing_lane_before_it_is_not_marked_conflicted() {
    let env = Env::new();
    let (repo, old) = env.lanes_with_logged_gate(0, &[]);
    for (name, text, bad) in [("a", "A\n", true), ("b", "B\n", false)] {
        let wt = env.agent(&repo, name);
        env.commit_file(&wt, "f", text, &format!("lane {name}"));
        if bad {
            env.commit_file(&wt, "bad", "x\n", "breaks the gate");
        }
        env.fleet(&repo, &["track", "--ready", name]).ok();
    }
    let v = land_json(
        &env,
        &repo,
        &["land", "--all", "--batch", "--yes", "--json"],
    );
    assert_eq!(
        results(&v),
        vec![
            ("fleet/a".to_string(), "failed".to_string()),
            ("fleet/b".to_string(), "landed".to_string())
        ],
        "{v}"
    );
    assert_eq!(env.git(&repo, &["show", "main:f"]), "B");
    assert_every_move_gated(&env, &repo, &old);
}

#[test]
fn a_gate_worktree_record_killed_before_its_gitdir_was_written_is_dropped() {
    let env = Env::new();
    let (repo, old) = env.lanes_with_logged_gate(2, &[]);
    // What a kill -9 between creating the record's `gitdir` file and writing it leaves:
    // the record locked "initializing" with an empty `gitdir` and nothing else, and the
    // gate folder made but empty (here at the place older versions used, which goes
    // too). gix cannot add any worktree next to such a record.
    let common = repo.join(".git");
    let record = common.join("worktrees/gate");
    std::fs::create_dir_all(&record).unwrap();
    std::fs::write(record.join("locked"), "initializing\n").unwrap();
    std::fs::write(record.join("gitdir"), "").unwrap();
    std::fs::create_dir_all(common.join("fleet/gate")).unwrap();
    let run = env
        .fleet_cmd(&repo, &["land", "--all", "--batch", "--yes"])
        .anonymous()
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("removed the half-created gate worktree record"),
        "{}",
        run.stderr
    );
    assert_eq!(
        env.git(&repo, &["rev-list", "--count", &format!("{old}..main")]),
        "2"
    );
    assert_every_move_gated(&env, &repo, &old);
}

#[test]
fn a_nested_gate_worktree_record_killed_before_its_gitdir_was_written_is_dropped() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    let wt = env.agent(&outer, "bump");
    env.commit_file(&wt, "expected", "2\n", "bump: expect");
    env.commit_file(&wt.join("cockpit"), "version", "2\n", "bump: version");
    env.fleet(&outer, &["track", "--ready", "bump"]).ok();
    // The nested repository's gate worktree is named after its folder, not `gate*`
    // (`cockpit` itself is the agent's).
    let record = outer.join("cockpit/.git/worktrees/cockpit1");
    std::fs::create_dir_all(&record).unwrap();
    std::fs::write(record.join("locked"), "initializing\n").unwrap();
    std::fs::write(record.join("gitdir"), "").unwrap();
    let run = env.fleet(&outer, &["land", "bump", "--yes"]).ok();
    assert!(
        run.stderr
            .contains("removed the half-created gate worktree record"),
        "{}",
        run.stderr
    );
    // Made again, whole, for the gate.
    let gitdir = std::fs::read_to_string(record.join("gitdir")).unwrap();
    assert!(gitdir.ends_with("/gate/cockpit/.git\n"), "{gitdir}");
    assert!(
        gitdir.contains("/.fleet-work/outer/.fleet-gate/"),
        "{gitdir}"
    );
    assert_eq!(
        env.git(&outer.join("cockpit"), &["show", "main:version"]),
        "2"
    );
    assert_eq!(env.git(&outer, &["show", "main:expected"]), "2");
}

#[test]
fn a_gate_worktree_killed_before_its_head_was_set_is_dropped_and_git_fetch_works_again() {
    let env = Env::new();
    let (repo, old) = env.lanes_with_logged_gate(2, &[]);
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    let common = repo.join(".git");
    let record = common.join("worktrees/gate");
    // What a kill -9 inside gix's worktree add leaves after it wrote HEAD as the null
    // id and before the real one (and before the checkout took the lock away): a
    // record still locked "initializing" whose HEAD names no object.
    std::fs::write(record.join("locked"), "initializing\n").unwrap();
    std::fs::write(record.join("HEAD"), format!("{}\n", "0".repeat(40))).unwrap();
    let source = env.path().join("source");
    env.git(
        env.path().as_path(),
        &["clone", "-q", repo.to_str().unwrap(), "source"],
    );
    let fetch = env
        .git_cmd(&repo, &["fetch", "-q", source.to_str().unwrap()])
        .run();
    assert_ne!(
        fetch.code, 0,
        "git fetch took the null HEAD: the state is not the broken one"
    );
    assert!(
        fetch.stderr.contains("worktrees/gate/HEAD"),
        "{}",
        fetch.stderr
    );

    let wt = env.agent(&repo, "later");
    env.commit_file(&wt, "later.txt", "later\n", "later work");
    env.fleet(&repo, &["track", "--ready", "later"]).ok();
    let run = env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert!(
        run.stderr
            .contains("removed the half-created gate worktree record"),
        "{}",
        run.stderr
    );
    assert!(
        !record.join("locked").exists(),
        "the gate is still half made"
    );
    env.git_cmd(&repo, &["fetch", "-q", source.to_str().unwrap()])
        .run()
        .ok();
    assert_eq!(env.git(&repo, &["show", "main:later.txt"]), "later");
    assert_every_move_gated(&env, &repo, &old);
}
