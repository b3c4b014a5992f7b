//! Landing through a shared remote: a bare repository on local disk, several clones
//! ("machines") each with its own lanes, landers racing. The remote's target only moves
//! by an atomic push whose lease is the commit the candidate was built on, so every lane
//! lands exactly once, the target stays linear, every step has a green receipt that
//! travels with the push, and a lander that lost a race gates again on the new target.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{Env, Run, write};

struct Fleet {
    env: Env,
    remote: PathBuf,
    gate_log: PathBuf,
}

impl Fleet {
    /// A bare remote whose main holds a gate that logs `lane base` per run, sleeps
    /// `$GATE_SLEEP` seconds, and fails when the tree has a file named `bad`.
    fn new() -> Fleet {
        let env = Env::new();
        let remote = env.path().join("remote.git");
        let gate_log = env.path().join("gates");
        env.git(
            &env.path(),
            &["init", "-q", "--bare", "-b", "main", "remote.git"],
        );
        let seed = env.path().join("seed");
        let gate = format!(
            "echo \"$FLEET_LANE $FLEET_BASE\" >> {}; sleep ${{GATE_SLEEP:-0}}; test ! -e bad",
            gate_log.display()
        );
        env.repo(
            &seed,
            "main",
            &[
                ("README", "r\n"),
                ("fleet.toml", &format!("[gate]\ncommands = [{gate:?}]\n")),
            ],
        );
        env.git(
            &seed,
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
        env.git(&seed, &["push", "-q", "origin", "main"]);
        Fleet {
            env,
            remote,
            gate_log,
        }
    }

    /// A new clone of the remote: one machine.
    fn machine(&self, name: &str) -> PathBuf {
        let dir = self.env.path().join(name);
        self.env.git(
            &self.env.path(),
            &["clone", "-q", self.remote.to_str().unwrap(), name],
        );
        dir
    }

    /// A lane `name` on `machine` adding `name.txt` (and `bad` when asked), published
    /// and marked ready on the remote. Returns the lane's tip.
    fn lane(&self, machine: &Path, name: &str, bad: bool) -> String {
        let wt = self.env.agent(machine, name);
        let tip = self
            .env
            .commit_file(&wt, &format!("{name}.txt"), "x\n", &format!("lane {name}"));
        let tip = if bad {
            self.env.commit_file(&wt, "bad", "x\n", "breaks the gate")
        } else {
            tip
        };
        self.env
            .fleet(machine, &["track", "--remote", "origin", "--ready", name])
            .ok();
        tip
    }

    fn remote_git(&self, args: &[&str]) -> String {
        self.env.git(&self.remote, args)
    }

    fn gates(&self) -> Vec<(String, String)> {
        std::fs::read_to_string(&self.gate_log)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let (lane, base) = l.split_once(' ').unwrap();
                (lane.to_string(), base.to_string())
            })
            .collect()
    }

    /// A fresh clone that fetched the receipts verifies the remote's main: every step
    /// has a green receipt for its exact tree.
    fn assert_verified(&self) {
        static CLONES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CLONES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("verify-{n}");
        let fresh = self.machine(&name);
        let run = self
            .env
            .fleet(&fresh, &["verify", "--remote", "origin", "--json"]);
        assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(v["unverified"].as_array().unwrap().len(), 0, "{v}");
        assert_eq!(
            self.remote_git(&["rev-list", "--merges", "--count", "main"]),
            "0",
            "the remote target is linear"
        );
    }

    /// How many commits on the remote's main carry lane `name`'s change.
    fn landed_count(&self, name: &str) -> usize {
        self.remote_git(&["log", "--format=%s", "main"])
            .lines()
            .filter(|s| *s == format!("lane {name}"))
            .count()
    }
}

fn spawn_land(
    f: &Fleet,
    machine: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> std::process::Child {
    let mut all = vec!["land", "--remote", "origin", "--yes"];
    all.extend_from_slice(args);
    f.env.fleet_cmd(machine, &all).envs(env).spawn()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_lander_that_loses_the_race_gates_again_on_the_new_target() {
    let f = Fleet::new();
    let (a, b) = (f.machine("a"), f.machine("b"));
    f.lane(&a, "slow", false);
    f.lane(&b, "fast", false);
    let t0 = f.remote_git(&["rev-parse", "main"]);
    let slow = spawn_land(&f, &a, &["slow"], &[("GATE_SLEEP", "2")]);
    wait_for("the slow gate to start", || !f.gates().is_empty());
    f.env
        .fleet(&b, &["land", "--remote", "origin", "--yes", "fast"])
        .ok();
    let t1 = f.remote_git(&["rev-parse", "main"]);
    assert_ne!(t0, t1);
    let run: Run = Env::wait(slow);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("moved while fleet/slow was gated"),
        "{}",
        run.stderr
    );
    // The slow lane was gated on T0, lost, and was gated again on the new target.
    let slow_gates: Vec<String> = f
        .gates()
        .into_iter()
        .filter(|(lane, _)| lane == "fleet/slow")
        .map(|(_, base)| base)
        .collect();
    assert_eq!(slow_gates, vec![t0.clone(), t1.clone()]);
    assert_eq!(f.remote_git(&["rev-parse", "main~1"]), t1);
    let landed = f.remote_git(&["rev-parse", "main"]);
    let receipt = f.remote_git(&["notes", "--ref", "fleet", "show", &landed]);
    assert!(receipt.contains(&format!("base = \"{t1}\"")), "{receipt}");
    // The machine that landed follows: its main and shared checkout are at the result.
    assert_eq!(f.env.git(&a, &["rev-parse", "main"]), landed);
    assert!(a.join("fast.txt").exists() && a.join("slow.txt").exists());
    assert_eq!(f.env.git(&a, &["status", "--porcelain"]), "");
    f.assert_verified();
}

#[test]
fn a_registry_change_during_the_gate_is_merged_not_lost_and_not_gated_again() {
    let f = Fleet::new();
    let (a, b) = (f.machine("a"), f.machine("b"));
    f.lane(&a, "one", false);
    let lander = spawn_land(&f, &a, &["one"], &[("GATE_SLEEP", "1")]);
    wait_for("the gate to start", || !f.gates().is_empty());
    // Another machine tracks a lane while the gate runs: the lander's push loses on
    // the registry's lease only.
    f.lane(&b, "two", false);
    let run = Env::wait(lander);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(f.gates().len(), 1, "gated once: {:?}", f.gates());
    let status = f
        .env
        .fleet(&b, &["status", "--remote", "origin", "--json"])
        .ok();
    let lanes: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let states: Vec<(String, String)> = lanes
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["branch"].as_str().unwrap().into(),
                l["state"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        states,
        vec![
            ("fleet/one".to_string(), "landed".to_string()),
            ("fleet/two".to_string(), "ready".to_string())
        ]
    );
    f.env
        .fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(f.landed_count("two"), 1);
    f.assert_verified();
}

#[test]
fn three_machines_landing_at_once_land_every_lane_exactly_once() {
    let f = Fleet::new();
    let machines: Vec<PathBuf> = ["m1", "m2", "m3"].iter().map(|m| f.machine(m)).collect();
    let mut tips = Vec::new();
    for round in 0..2 {
        let mut names = Vec::new();
        for (i, m) in machines.iter().enumerate() {
            for j in 0..2 {
                let name = format!("r{round}m{i}l{j}");
                tips.push((name.clone(), f.lane(m, &name, false)));
                names.push(name);
            }
        }
        let landers: Vec<_> = machines
            .iter()
            .map(|m| spawn_land(&f, m, &["--all"], &[("GATE_SLEEP", "0.2")]))
            .collect();
        for lander in landers {
            let run = Env::wait(lander);
            assert_eq!(run.code, 0, "{}", run.stderr);
        }
        for name in &names {
            assert_eq!(f.landed_count(name), 1, "{name} landed once");
        }
    }
    f.assert_verified();
    // No lane's commits were lost or rewritten: the remote's lane branches are the tips
    // the workers pushed.
    for (name, tip) in &tips {
        assert_eq!(&f.remote_git(&["rev-parse", &format!("fleet/{name}")]), tip);
    }
    let status = f
        .env
        .fleet(&machines[0], &["status", "--remote", "origin", "--json"])
        .ok();
    let lanes: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(lanes.as_array().unwrap().len(), 12);
    for lane in lanes.as_array().unwrap() {
        assert_eq!(lane["state"], "landed", "{lane}");
    }
}

#[test]
fn a_batch_lands_through_the_remote_and_bisects_there() {
    let f = Fleet::new();
    let a = f.machine("a");
    for i in 1..=4 {
        f.lane(&a, &format!("b{i}"), i == 3);
    }
    let run = f.env.fleet(
        &a,
        &[
            "land", "--remote", "origin", "--all", "--batch", "--yes", "--json",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let results: Vec<&str> = v["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["landed", "landed", "failed", "landed"], "{v}");
    for name in ["b1", "b2", "b4"] {
        assert_eq!(f.landed_count(name), 1);
    }
    assert_eq!(f.landed_count("b3"), 0);
    f.assert_verified();
}

#[test]
fn killed_during_a_remote_landing_the_remote_is_old_or_gated_and_a_rerun_converges() {
    for failpoint in [
        "land-before-cas:abort",
        "remote-before-push:abort",
        "remote-after-push:abort",
    ] {
        let f = Fleet::new();
        let a = f.machine("a");
        let tip = f.lane(&a, "k", false);
        let t0 = f.remote_git(&["rev-parse", "main"]);
        let child = f
            .env
            .fleet_cmd(&a, &["land", "--remote", "origin", "--yes", "k"])
            .env("FLEET_FAILPOINT", failpoint)
            .spawn();
        let run = Env::wait(child);
        assert_ne!(run.code, 0, "{failpoint} did not fire");
        let now = f.remote_git(&["rev-parse", "main"]);
        if now != t0 {
            f.assert_verified();
        }
        f.env
            .fleet(&a, &["land", "--remote", "origin", "--all", "--yes"])
            .ok();
        assert_eq!(f.landed_count("k"), 1, "{failpoint}");
        assert_eq!(f.remote_git(&["rev-parse", "fleet/k"]), tip);
        f.assert_verified();
        let status = f
            .env
            .fleet(&a, &["status", "--remote", "origin", "--json"])
            .ok();
        assert!(
            status.stdout.contains("\"state\": \"landed\""),
            "{}",
            status.stdout
        );
    }
}

#[test]
fn bad_remotes_are_refused_clearly_and_change_nothing() {
    let f = Fleet::new();
    let a = f.machine("a");
    f.lane(&a, "x", false);
    let before = f.env.git(&a, &["for-each-ref"]);
    let run = f
        .env
        .fleet(&a, &["land", "--remote", "nowhere", "--all", "--yes"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no remote `nowhere`"), "{}", run.stderr);
    assert_eq!(f.env.git(&a, &["for-each-ref"]), before);
    // A lane branch nobody pushed is named, with the fix.
    let wt = f.env.agent(&a, "local");
    f.env.commit_file(&wt, "local.txt", "x\n", "lane local");
    let run = f.env.fleet(&a, &["track", "--remote", "origin", "nope"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("no branch `nope` on origin"),
        "{}",
        run.stderr
    );
    write(&a.join("fleet.toml"), "[lanes]\nremote = \"-bad\"\n");
    let run = f.env.fleet(&a, &["status"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("not a valid remote name"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_remote_lander_killed_at_many_moments_keeps_the_invariant_and_converges() {
    // One undisturbed run, to know how long landing three lanes takes.
    let probe = Fleet::new();
    let m = probe.machine("m");
    for i in 0..3 {
        probe.lane(&m, &format!("p{i}"), false);
    }
    let started = Instant::now();
    probe
        .env
        .fleet(&m, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    let full = started.elapsed();
    let mut interrupted = 0;
    for step in 1..=5u32 {
        let mut delay = full * step / 6;
        for _ in 0..4 {
            let f = Fleet::new();
            let m = f.machine("m");
            let tips: Vec<(String, String)> = (0..3)
                .map(|i| (format!("p{i}"), f.lane(&m, &format!("p{i}"), false)))
                .collect();
            let t0 = f.remote_git(&["rev-parse", "main"]);
            let mut child = spawn_land(&f, &m, &["--all"], &[]);
            std::thread::sleep(delay);
            let hit = child.try_wait().unwrap().is_none();
            let _ = child.kill();
            let _ = child.wait();
            if f.remote_git(&["rev-parse", "main"]) != t0 {
                f.assert_verified();
            }
            f.env
                .fleet(&m, &["land", "--remote", "origin", "--all", "--yes"])
                .ok();
            f.assert_verified();
            for (name, tip) in &tips {
                assert_eq!(f.landed_count(name), 1, "{name} landed once");
                assert_eq!(&f.remote_git(&["rev-parse", &format!("fleet/{name}")]), tip);
            }
            assert_eq!(f.env.git(&m, &["status", "--porcelain"]), "");
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

fn remote_states(f: &Fleet, machine: &Path) -> Vec<(String, String)> {
    let status = f
        .env
        .fleet(machine, &["status", "--remote", "origin", "--json"])
        .ok();
    let lanes: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    lanes
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["branch"].as_str().unwrap().into(),
                l["state"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn commits_readied_during_the_gate_are_not_swallowed_by_the_landing() {
    let f = Fleet::new();
    let a = f.machine("a");
    f.lane(&a, "w", false);
    let lander = spawn_land(&f, &a, &["--all"], &[("GATE_SLEEP", "1.5")]);
    wait_for("the gate to start", || !f.gates().is_empty());
    let wt = f.env.path().join(".fleet-work/a/w");
    f.env.commit_file(&wt, "more.txt", "more\n", "more work");
    f.env.fleet(&wt, &["ready", "--remote", "origin"]).ok();
    assert_eq!(Env::wait(lander).code, 0);
    assert_eq!(
        remote_states(&f, &a),
        vec![("fleet/w".into(), "ready".into())]
    );
    f.env
        .fleet(&a, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    let files = f.remote_git(&["ls-tree", "--name-only", "main"]);
    assert!(files.lines().any(|l| l == "more.txt"), "{files}");
    f.assert_verified();
}

#[test]
fn the_local_queue_and_the_remote_queue_do_not_leak_into_each_other() {
    let f = Fleet::new();
    let a = f.machine("a");
    // A lane tracked and landed here only: the remote's queue never hears of it.
    let wt = f.env.agent(&a, "loc");
    f.env.commit_file(&wt, "loc.txt", "x\n", "lane loc");
    f.env.fleet(&a, &["track", "--ready", "loc"]).ok();
    let run = f
        .env
        .fleet(&a, &["land", "--remote", "origin", "loc", "--yes"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not a lane"), "{}", run.stderr);
    f.lane(&a, "pub", false);
    f.env.fleet(&a, &["land", "loc", "--yes"]).ok();
    f.env
        .fleet(&a, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(
        remote_states(&f, &a),
        vec![("fleet/pub".into(), "landed".into())]
    );
    assert_eq!(f.landed_count("loc"), 0);
    assert_eq!(f.landed_count("pub"), 1);
    // The local registry knows its own lane, and of `pub` only what `worktree new`
    // registered here (running): nothing of the remote's landing.
    let local = f.env.git(&a, &["show", "refs/fleet/lanes:lanes.toml"]);
    let local: toml::Value = toml::from_str(&local).unwrap();
    let states: Vec<(&str, &str)> = local["lane"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["branch"].as_str().unwrap(), l["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        vec![("fleet/loc", "landed"), ("fleet/pub", "running")],
        "{local}"
    );
}

#[test]
fn a_rewound_remote_target_lands_the_dropped_lanes_again() {
    let f = Fleet::new();
    let a = f.machine("a");
    f.lane(&a, "gone", false);
    let t0 = f.remote_git(&["rev-parse", "main"]);
    f.env
        .fleet(&a, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    // Someone force-pushes main back past the landing.
    f.remote_git(&["update-ref", "refs/heads/main", &t0]);
    assert_eq!(
        remote_states(&f, &a),
        vec![("fleet/gone".into(), "ready".into())]
    );
    f.env
        .fleet(&a, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(f.landed_count("gone"), 1);
}

#[test]
fn a_remote_branch_that_went_apart_is_refused_and_nothing_changes() {
    let f = Fleet::new();
    let (a, b) = (f.machine("a"), f.machine("b"));
    f.lane(&a, "split", false);
    // Another machine pushes its own commit on the same branch.
    f.env.git(&b, &["fetch", "-q", "origin"]);
    f.env
        .git(&b, &["checkout", "-q", "-b", "tmp", "origin/fleet/split"]);
    f.env.commit_file(&b, "other.txt", "o\n", "other");
    f.env.git(&b, &["push", "-q", "origin", "tmp:fleet/split"]);
    let theirs = f.remote_git(&["rev-parse", "fleet/split"]);
    let wt = f.env.path().join(".fleet-work/a/split");
    f.env.commit_file(&wt, "mine.txt", "m\n", "mine");
    let registry = f.remote_git(&["rev-parse", "refs/fleet/lanes"]);
    let run = f.env.fleet(&wt, &["ready", "--remote", "origin"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("went apart"), "{}", run.stderr);
    assert_eq!(f.remote_git(&["rev-parse", "fleet/split"]), theirs);
    assert_eq!(f.remote_git(&["rev-parse", "refs/fleet/lanes"]), registry);
}

#[test]
fn a_refused_push_changes_nothing_and_the_same_command_converges_later() {
    let f = Fleet::new();
    let a = f.machine("a");
    let hook = f.remote.join("hooks/pre-receive");
    write(
        &hook,
        "#!/bin/sh\necho closed for maintenance >&2\nexit 1\n",
    );
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&hook)
        .status()
        .unwrap();
    let wt = f.env.agent(&a, "t");
    f.env.commit_file(&wt, "t.txt", "x\n", "lane t");
    let before = f.env.git(&a, &["for-each-ref", "refs/fleet"]);
    let run = f
        .env
        .fleet(&a, &["track", "--remote", "origin", "--ready", "t"]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("closed for maintenance"),
        "{}",
        run.stderr
    );
    assert_eq!(f.env.git(&a, &["for-each-ref", "refs/fleet"]), before);
    std::fs::remove_file(&hook).unwrap();
    f.env
        .fleet(&a, &["track", "--remote", "origin", "--ready", "t"])
        .ok();
    assert_eq!(
        remote_states(&f, &a),
        vec![("fleet/t".into(), "ready".into())]
    );
}

#[test]
fn a_garbage_remote_registry_is_named_and_the_local_one_is_left_alone() {
    let f = Fleet::new();
    let a = f.machine("a");
    let wt = f.env.agent(&a, "l");
    f.env.commit_file(&wt, "l.txt", "x\n", "lane l");
    f.env.fleet(&a, &["track", "--ready", "l"]).ok();
    let local = f.env.git(&a, &["rev-parse", "refs/fleet/lanes"]);
    // Someone pushes a registry fleet cannot read.
    let seed = f.env.path().join("seed");
    std::fs::write(seed.join("lanes.toml"), "this is = = not toml\n").unwrap();
    let blob = f.env.git(&seed, &["hash-object", "-w", "lanes.toml"]);
    let mktree = format!("100644 blob {blob}\tlanes.toml\n");
    let tree = f.env.git_cmd(&seed, &["mktree"]).stdin(&mktree).stdout();
    let commit = f.env.git(&seed, &["commit-tree", &tree, "-m", "garbage"]);
    f.env.git(
        &seed,
        &[
            "push",
            "-q",
            "origin",
            &format!("{commit}:refs/fleet/lanes"),
        ],
    );
    let run = f.env.fleet(&a, &["status", "--remote", "origin"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("refs/fleet/remotes/origin/lanes"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("git push origin :refs/fleet/lanes"),
        "{}",
        run.stderr
    );
    assert_eq!(f.env.git(&a, &["rev-parse", "refs/fleet/lanes"]), local);
    f.env.fleet(&a, &["status"]).ok();
}

#[test]
fn head_and_invalid_names_are_not_lanes_on_a_remote_either() {
    let f = Fleet::new();
    let a = f.machine("a");
    for bad in ["HEAD", "../heads/main", "fleet/a/", ""] {
        let run = f
            .env
            .fleet(&a, &["track", "--remote", "origin", "--ready", bad]);
        assert_eq!(run.code, 2, "{bad:?}: {}", run.stderr);
    }
    assert_eq!(
        f.env
            .git_cmd(
                &f.remote,
                &["rev-parse", "-q", "--verify", "refs/fleet/lanes"]
            )
            .run()
            .code,
        1
    );
}

/// A `git fetch` killed while it updated the remote-tracking refs leaves their lock
/// files, and every later fetch fails on them ("cannot lock ref"). No live git can hold
/// such a lock, so the next fleet command that fetches clears it and goes on.
#[test]
fn a_killed_fetch_s_ref_locks_do_not_stop_the_next_fetch() {
    let fleet = Fleet::new();
    let m = fleet.machine("m");
    fleet.lane(&m, "a", false);
    let common = m.join(".git");
    let locks = [
        common.join("refs/fleet/remotes/origin/lanes.lock"),
        common.join("refs/remotes/origin/main.lock"),
    ];
    for lock in &locks {
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        write(lock, "0000000000000000000000000000000000000000\n");
    }
    // Another machine moves both refs on the remote, so this fetch must update them.
    let other = fleet.machine("other");
    fleet.lane(&other, "b", false);
    fleet
        .env
        .fleet(&other, &["land", "fleet/b", "--yes", "--remote", "origin"])
        .ok();
    fleet
        .env
        .fleet(&m, &["land", "--all", "--yes", "--remote", "origin"])
        .ok();
    for lock in &locks {
        assert!(!lock.exists(), "{} is still there", lock.display());
    }
    assert_eq!(fleet.landed_count("a"), 1);
    assert_eq!(fleet.landed_count("b"), 1);
}
