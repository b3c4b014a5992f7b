//! The gate under attack (issue 13): it tests exactly the tree that lands, from a place
//! no tool can see the shared checkout from, and a killed or interrupted gate leaves no
//! false result and no broken repository behind.

use std::path::{Path, PathBuf};

use crate::common::assert::lane_states;
use crate::common::{Env, write};

/// A model of test runners that look around: node and pytest resolve packages and
/// `conftest.py` in every parent folder, and jest skips any path with `/.git/` in it
/// (passing with no tests). It records where it ran in `$RAN`, fails when it picks up a
/// parent `conftest.py`, and fails a tree that `uses-leftpad` when no `node_modules`
/// on the way up has it.
const LOOKUP_GATE: &str = r#"#!/bin/sh
case "$PWD/" in */.git/*) echo "no tests found under $PWD"; exit 0 ;; esac
echo "$PWD" >> "$RAN"
found=
d=$(dirname "$PWD")
while :; do
  if [ -e "$d/conftest.py" ]; then echo "picked up $d/conftest.py"; exit 1; fi
  if [ -e "$d/node_modules/leftpad" ]; then found=$d; fi
  [ "$d" = / ] && break
  d=$(dirname "$d")
done
if [ -e uses-leftpad ] && [ -z "$found" ] && [ ! -e node_modules/leftpad ]; then
  echo "cannot find module leftpad"; exit 1
fi
exit 0
"#;

/// repo/ gated by [`LOOKUP_GATE`] (runs recorded in `ran`), `extra` added to its
/// fleet.toml, with `node_modules/leftpad` and `conftest.py` untracked in the shared
/// checkout. Returns the repository and the `ran` file.
fn lookup_repo(env: &Env, extra: &str) -> (PathBuf, PathBuf) {
    let repo = env.path().join("repo");
    let ran = env.path().join("ran");
    let toml = format!(
        "[gate]\ncommands = [\"RAN={} sh gate.sh\"]\n{extra}",
        ran.display()
    );
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("gate.sh", LOOKUP_GATE),
            ("fleet.toml", &toml),
        ],
    );
    write(
        &repo.join("node_modules/leftpad/index.js"),
        "module.exports = 1\n",
    );
    write(&repo.join("conftest.py"), "raise SystemExit(1)\n");
    (repo, ran)
}

/// The linked worktrees of `repo` as `git worktree list` gives them.
fn linked_worktrees(env: &Env, repo: &Path) -> Vec<PathBuf> {
    env.git(repo, &["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .filter(|p| p != repo)
        .collect()
}

/// The one gate worktree of `repo` (the linked worktree that is no agent's).
fn gate_worktree(env: &Env, repo: &Path) -> PathBuf {
    let gates: Vec<PathBuf> = linked_worktrees(env, repo)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "gate"))
        .collect();
    assert_eq!(gates.len(), 1, "{gates:?}");
    gates[0].clone()
}

/// No parent folder of `gate` is the shared checkout or has `.git` in its path.
fn assert_outside_project(gate: &Path, repo: &Path) {
    assert!(
        !gate.starts_with(repo),
        "{} is inside the project",
        gate.display()
    );
    assert!(
        !gate.components().any(|c| c.as_os_str() == ".git"),
        "{} has .git in its path",
        gate.display()
    );
}

#[test]
fn a_lane_using_a_package_only_the_shared_checkout_has_untracked_is_red() {
    let env = Env::new();
    let (repo, ran) = lookup_repo(&env, "");
    let old = env.git(&repo, &["rev-parse", "main"]);
    let wt = env.agent(&repo, "pad");
    env.commit_file(&wt, "uses-leftpad", "require('leftpad')\n", "use leftpad");
    env.fleet(&repo, &["track", "--ready", "pad"]).ok();
    let run = env.fleet(&repo, &["land", "pad", "--yes"]).code(1);
    assert!(
        run.stderr.contains("cannot find module leftpad"),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
    assert_eq!(
        lane_states(&env, &repo),
        [("fleet/pad".to_string(), "failed".to_string())]
    );
    let gate = gate_worktree(&env, &repo);
    assert_outside_project(&gate, &repo);
    assert_eq!(
        std::fs::read_to_string(&ran).unwrap().trim(),
        gate.to_str().unwrap()
    );
}

#[test]
fn the_gate_runs_outside_the_project_even_when_the_worktree_root_is_inside_it() {
    let env = Env::new();
    // The agent worktrees inside the shared checkout (ignored there): the gate cannot go
    // beside them, where every parent lookup would reach the shared checkout.
    let (repo, ran) = lookup_repo(&env, "[worktrees]\nroot = \".worktrees\"\n");
    write(&repo.join(".git/info/exclude"), ".worktrees/\n");
    let wt = env.agent(&repo, "good");
    assert!(wt.starts_with(repo.join(".worktrees")), "{}", wt.display());
    env.commit_file(&wt, "good.txt", "x\n", "good work");
    env.fleet(&repo, &["track", "--ready", "good"]).ok();
    env.fleet(&repo, &["land", "good", "--yes"]).ok();
    assert_eq!(env.git(&repo, &["show", "main:good.txt"]), "x");
    let gate = gate_worktree(&env, &repo);
    assert_outside_project(&gate, &repo);
    // The tests did run (none skipped for a `/.git/` path), in the gate worktree.
    assert_eq!(
        std::fs::read_to_string(&ran).unwrap().trim(),
        gate.to_str().unwrap()
    );
}

#[test]
fn the_gate_worktree_is_reused_and_no_agent_worktree_to_list_rm_or_prune() {
    let env = Env::new();
    let (repo, ran) = lookup_repo(&env, "");
    for lane in ["a", "b"] {
        let wt = env.agent(&repo, lane);
        env.commit_file(&wt, &format!("{lane}.txt"), "x\n", lane);
        env.fleet(&repo, &["track", "--ready", lane]).ok();
    }
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    let gate = gate_worktree(&env, &repo);
    env.fleet(&repo, &["land", "b", "--yes"]).ok();
    assert_eq!(gate_worktree(&env, &repo), gate);
    let runs = std::fs::read_to_string(&ran).unwrap();
    let expected = format!("{0}\n{0}\n", gate.display());
    assert_eq!(runs, expected);

    let list = env.fleet(&repo, &["worktree", "list", "--json"]).ok();
    let listed: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
    let status = env.fleet(&repo, &["status"]).ok();
    assert!(!status.stdout.contains(".fleet-gate"), "{}", status.stdout);
    env.fleet(&repo, &["worktree", "rm", ".fleet-gate", "--force"])
        .code(2);
    env.fleet(&repo, &["worktree", "prune"]).ok();
    assert!(gate.join("README").is_file());
    assert_eq!(gate_worktree(&env, &repo), gate);
}

#[test]
fn a_gate_worktree_at_the_old_place_inside_the_git_dir_is_retired_with_its_nested_ones() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    // What earlier versions left: the gate worktree inside the common git dir, and the
    // nested repository's gate worktree inside it.
    let old = outer.join(".git/fleet/gate");
    env.git(
        &outer,
        &["worktree", "add", "-q", "--detach", old.to_str().unwrap()],
    );
    env.git(
        &outer.join("cockpit"),
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            old.join("cockpit").to_str().unwrap(),
        ],
    );
    let wt = env.agent(&outer, "bump");
    env.commit_file(&wt, "expected", "2\n", "bump: expect");
    env.commit_file(&wt.join("cockpit"), "version", "2\n", "bump: version");
    env.fleet(&outer, &["track", "--ready", "bump"]).ok();
    env.fleet(&outer, &["land", "bump", "--yes"]).ok();
    assert_eq!(
        env.git(&outer.join("cockpit"), &["show", "main:version"]),
        "2"
    );
    assert!(!old.exists(), "the old gate worktree is still there");
    for repo in [outer.clone(), outer.join("cockpit")] {
        let linked = linked_worktrees(&env, &repo);
        assert!(
            linked.iter().all(|p| !p.starts_with(outer.join(".git"))),
            "{} still has a record of the old gate: {linked:?}",
            repo.display()
        );
        let prunable = env.git(&repo, &["worktree", "prune", "--dry-run", "--verbose"]);
        assert_eq!(prunable, "", "{}", repo.display());
    }
    let gate = gate_worktree(&env, &outer);
    assert_outside_project(&gate, &outer);
    let nested = linked_worktrees(&env, &outer.join("cockpit"));
    assert!(nested.contains(&gate.join("cockpit")), "{nested:?}");
}

/// A gate that checks it sees the whole tree (`out/f`, outside the shared checkout's
/// sparse cone, and `in/f`, as committed) and that its own git is not sparse, then does what a build step might: hides a
/// change to a tracked file behind assume-unchanged and a deleted one behind
/// skip-worktree, which the next run must not inherit.
const WHOLE_TREE_GATE: &str = r#"#!/bin/sh
test "$(cat out/f)" = out || { echo "out/f is missing or changed"; exit 1; }
test "$(cat in/f)" = in || { echo "in/f is changed"; exit 1; }
test "$(git config --get core.sparseCheckout)" != true || { echo "the gate's git is sparse"; exit 1; }
echo "$FLEET_LANE" >> "$RAN"
echo stale > in/f
git update-index --assume-unchanged in/f
git update-index --skip-worktree out/f
rm out/f
"#;

#[test]
fn the_gate_sees_the_whole_candidate_whatever_sparse_skip_worktree_or_assume_unchanged_say() {
    let env = Env::new();
    let repo = env.path().join("repo");
    let ran = env.path().join("ran");
    let toml = format!(
        "[gate]\ncommands = [\"RAN={} sh gate.sh\"]\n",
        ran.display()
    );
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("in/f", "in\n"),
            ("out/f", "out\n"),
            ("gate.sh", WHOLE_TREE_GATE),
            ("fleet.toml", &toml),
        ],
    );
    for lane in ["a", "b"] {
        let wt = env.agent(&repo, lane);
        env.commit_file(&wt, &format!("in/{lane}.txt"), "x\n", lane);
        env.fleet(&repo, &["track", "--ready", lane]).ok();
    }
    // A sparse shared checkout, both ways git has: the cone set for this worktree, and
    // the switch in the repository's own config, which every worktree reads.
    env.git(&repo, &["sparse-checkout", "set", "in"]);
    env.git(&repo, &["config", "core.sparseCheckout", "true"]);
    assert!(!repo.join("out/f").exists());
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    env.fleet(&repo, &["land", "b", "--yes"]).ok();
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "fleet/a\nfleet/b\n");
    for lane in ["a", "b"] {
        assert_eq!(
            env.git(&repo, &["show", &format!("main:in/{lane}.txt")]),
            "x"
        );
    }
    // Lane b's gate saw out/f and in/f as committed, though lane a's gate had left
    // them deleted and changed behind skip-worktree and assume-unchanged marks.
}

/// repo/ with one ready lane `a` and a gate that records each run in `runs` and, the
/// first time only, writes `marker` and then does `first` (sleeps for a signal to land
/// on, say). Returns the repository, main's tip, and the two files.
fn repo_with_a_first_gate_that(env: &Env, first: &str) -> (PathBuf, String, PathBuf, PathBuf) {
    let repo = env.path().join("repo");
    let (runs, marker) = (env.path().join("runs"), env.path().join("marker"));
    let gate = format!(
        "echo run >> {runs}; if [ ! -e {marker} ]; then touch {marker}; {first}; fi",
        runs = runs.display(),
        marker = marker.display()
    );
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("fleet.toml", &format!("[gate]\ncommands = [{gate:?}]\n")),
        ],
    );
    let wt = env.agent(&repo, "a");
    env.commit_file(&wt, "a.txt", "x\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    (repo, old, runs, marker)
}

/// Wait (generously) for `path` to appear.
fn wait_for(path: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !path.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_gate_interrupted_by_sigterm_or_ctrl_c_is_no_result_cached_or_recorded() {
    use std::os::unix::process::ExitStatusExt;
    for (signal, number) in [("-TERM", 15), ("-INT", 2)] {
        let env = Env::new();
        let (repo, old, runs, marker) = repo_with_a_first_gate_that(&env, "sleep 120");
        let fleet = env.fleet_cmd(&repo, &["land", "a", "--yes"]).spawn();
        wait_for(&marker);
        let pid = fleet.id().to_string();
        let kill = std::process::Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap();
        assert!(kill.success());
        let out = fleet.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.signal(), Some(number), "{signal}: {stderr}");
        assert!(
            stderr.contains("interrupted by a signal"),
            "{signal}: {stderr}"
        );
        // No result anywhere: no cached verdict, no receipt, the lane ready again.
        let cache = env
            .git_cmd(
                &repo,
                &["rev-parse", "-q", "--verify", "refs/fleet/gate-cache"],
            )
            .run();
        assert_ne!(cache.code, 0, "{signal}: a result was cached");
        assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
        assert_eq!(
            lane_states(&env, &repo),
            [("fleet/a".to_string(), "ready".to_string())],
            "{signal}"
        );
        // The next landing runs the gate again, and lands.
        let run = env.fleet(&repo, &["land", "a", "--yes"]).ok();
        assert!(!run.stderr.contains("was gated before"), "{}", run.stderr);
        assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\nrun\n");
        assert_eq!(env.git(&repo, &["show", "main:a.txt"]), "x");
    }
}

/// Every worktree record of `repo` has a HEAD that names a commit the repository has
/// (what `git fetch` checks before it takes anything).
fn assert_every_worktree_head_resolves(env: &Env, repo: &Path) {
    let records = repo.join(".git/worktrees");
    for entry in std::fs::read_dir(&records).unwrap().flatten() {
        let head = std::fs::read_to_string(entry.path().join("HEAD")).unwrap_or_default();
        let head = head.trim();
        let id = head.strip_prefix("ref: ").unwrap_or(head);
        let found = env
            .git_cmd(
                repo,
                &["rev-parse", "-q", "--verify", &format!("{id}^{{commit}}")],
            )
            .run();
        assert_eq!(
            found.code,
            0,
            "{}/HEAD names {head:?}, which the repository does not have",
            entry.path().display()
        );
    }
}

#[test]
fn fleet_killed_during_its_gate_leaves_every_worktree_head_resolvable_and_git_fetch_working() {
    let env = Env::new();
    // The first run kills its fleet with -9 from inside the gate: the candidate is
    // checked out in a gate worktree made moments before.
    let (repo, old, runs, _marker) = repo_with_a_first_gate_that(&env, "kill -9 $PPID; sleep 5");
    let out = env
        .fleet_cmd(&repo, &["land", "a", "--yes"])
        .spawn()
        .wait_with_output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(9), "fleet was not killed");
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
    assert_every_worktree_head_resolves(&env, &repo);

    // Someone's `git fetch` into the repository works.
    env.git(
        env.path().as_path(),
        &["clone", "-q", repo.to_str().unwrap(), "source"],
    );
    let source = env.path().join("source");
    env.commit_file(&source, "theirs.txt", "t\n", "their work");
    env.git(
        &repo,
        &[
            "fetch",
            "-q",
            source.to_str().unwrap(),
            "main:refs/remotes/source/main",
        ],
    );

    // And a kill between registering a gate worktree and writing its `.git` file: the
    // record stays (git calls it prunable), the next landing starts it over.
    let gate_wt = gate_worktree(&env, &repo);
    std::fs::remove_file(gate_wt.join(".git")).unwrap();
    env.git(
        &repo,
        &[
            "fetch",
            "-q",
            source.to_str().unwrap(),
            "main:refs/remotes/source/main",
        ],
    );
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\nrun\n");
    assert_eq!(env.git(&repo, &["show", "main:a.txt"]), "x");
    assert_eq!(gate_worktree(&env, &repo), gate_wt);
    assert_every_worktree_head_resolves(&env, &repo);
    env.git(
        &repo,
        &[
            "fetch",
            "-q",
            source.to_str().unwrap(),
            "main:refs/remotes/source/main",
        ],
    );
}
