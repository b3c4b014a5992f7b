//! `fleet land` on real repositories with real gate commands: the target only moves to a
//! commit whose exact tree passed the gate read from the old target.

mod common;

use std::path::{Path, PathBuf};

use common::{Env, write};

/// A repository whose committed gate fails when a file named `red` exists.
fn repo_with_gate(env: &Env, gate: &str) -> PathBuf {
    let repo = env.path().join("repo");
    let toml = format!("[gate]\ncommands = [{gate:?}]\nforbid = [\"TODO_SCRUB\"]\n");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("shared.txt", "one\n"),
            ("fleet.toml", &toml),
        ],
    );
    repo
}

fn agent(env: &Env, repo: &Path, name: &str) -> PathBuf {
    PathBuf::from(
        env.fleet(repo, &["worktree", "new", name])
            .ok()
            .stdout
            .trim(),
    )
}

fn receipt(env: &Env, repo: &Path, commit: &str) -> toml::Value {
    let text = env.git(repo, &["notes", "--ref", "fleet", "show", commit]);
    toml::from_str(&text).unwrap()
}

fn lane_states(env: &Env, repo: &Path) -> Vec<(String, String)> {
    let run = env.fleet(repo, &["status", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["branch"].as_str().unwrap().to_string(),
                l["state"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn only_the_green_lane_lands_and_the_target_is_its_tested_tree() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "test ! -e red");
    let green = agent(&env, &repo, "green");
    let red = agent(&env, &repo, "red");
    let conflict = agent(&env, &repo, "conflict");
    let running = agent(&env, &repo, "running");
    env.commit_file(&green, "g.txt", "g\n", "green work");
    env.commit_file(&red, "red", "r\n", "breaks the gate");
    env.commit_file(&conflict, "shared.txt", "lane\n", "conflicting edit");
    env.commit_file(&running, "w.txt", "w\n", "unfinished");
    env.commit_file(&repo, "shared.txt", "target\n", "target moves");
    let lane_tips: Vec<String> = ["green", "red", "conflict", "running"]
        .iter()
        .map(|n| env.git(&repo, &["rev-parse", &format!("fleet/{n}")]))
        .collect();
    env.fleet(&repo, &["track", "--ready", "green", "red", "conflict"])
        .ok();
    env.fleet(&repo, &["track", "running"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);

    let run = env.fleet(&repo, &["land", "--all", "--yes"]).code(1);
    assert!(run.stderr.contains("landed fleet/green"), "{}", run.stderr);
    assert!(run.stderr.contains("gate failed"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("conflicts with the target in shared.txt"),
        "{}",
        run.stderr
    );

    let new = env.git(&repo, &["rev-parse", "main"]);
    assert_eq!(
        env.git(&repo, &["rev-parse", "main~1"]),
        old,
        "linear: one new commit on the old target"
    );
    assert_eq!(
        env.git(&repo, &["rev-list", "--merges", "--count", "main"]),
        "0"
    );
    let r = receipt(&env, &repo, &new);
    assert_eq!(r["lane"].as_str(), Some("fleet/green"));
    assert_eq!(r["base"].as_str(), Some(old.as_str()));
    assert_eq!(
        r["tested_tree"].as_str(),
        Some(env.git(&repo, &["rev-parse", "main^{tree}"]).as_str())
    );
    assert_eq!(
        lane_states(&env, &repo),
        vec![
            ("fleet/green".into(), "landed".into()),
            ("fleet/red".into(), "failed".into()),
            ("fleet/conflict".into(), "conflicted".into()),
            ("fleet/running".into(), "running".into()),
        ]
    );
    // Lanes' branches are untouched.
    for (n, tip) in ["green", "red", "conflict", "running"]
        .iter()
        .zip(&lane_tips)
    {
        assert_eq!(&env.git(&repo, &["rev-parse", &format!("fleet/{n}")]), tip);
    }
    // The shared checkout stayed on main, and is clean and current.
    assert_eq!(env.git(&repo, &["symbolic-ref", "--short", "HEAD"]), "main");
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
    assert_eq!(std::fs::read_to_string(repo.join("g.txt")).unwrap(), "g\n");
    // A red lane's log is kept and named in status.
    let status = env.fleet(&repo, &["status"]).ok().stdout;
    assert!(status.contains("gate red"), "{status}");
}

#[test]
fn a_lane_cannot_weaken_its_own_gate() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "test ! -e red");
    let sneaky = agent(&env, &repo, "sneaky");
    write(
        &sneaky.join("fleet.toml"),
        "[gate]\ncommands = [\"true\"]\nprotected = []\n",
    );
    write(&sneaky.join("red"), "x\n");
    env.git(&sneaky, &["add", "-A"]);
    env.git(
        &sneaky,
        &["commit", "-q", "-m", "weaken the gate and break it"],
    );
    env.fleet(&repo, &["track", "--ready", "sneaky"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    // Protected by default, and even when allowed, the target's gate still runs.
    let run = env.fleet(&repo, &["land", "sneaky", "--yes"]).code(1);
    assert!(
        run.stderr.contains("protected path fleet.toml"),
        "{}",
        run.stderr
    );
    let run = env
        .fleet(&repo, &["land", "sneaky", "--yes", "--allow-protected"])
        .code(1);
    assert!(
        run.stderr.contains("gate failed: `test ! -e red`"),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
}

#[test]
fn a_lane_changing_the_gate_must_pass_the_old_and_the_new_one() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "true");
    let lane = agent(&env, &repo, "stricter");
    write(
        &lane.join("fleet.toml"),
        "[gate]\ncommands = [\"test -e proof\"]\n",
    );
    env.git(&lane, &["add", "-A"]);
    env.git(&lane, &["commit", "-q", "-m", "stricter gate, no proof"]);
    env.fleet(&repo, &["track", "--ready", "stricter"]).ok();
    let run = env
        .fleet(&repo, &["land", "stricter", "--yes", "--allow-protected"])
        .code(1);
    assert!(
        run.stderr.contains("`test -e proof` exited 1"),
        "{}",
        run.stderr
    );
    env.commit_file(&lane, "proof", "p\n", "proof");
    env.fleet(&repo, &["ready", "stricter"]).ok();
    env.fleet(&repo, &["land", "stricter", "--yes", "--allow-protected"])
        .ok();
    let r = receipt(&env, &repo, "main");
    let commands: Vec<&str> = r["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, vec!["true", "test -e proof"]);
}

#[test]
fn forbidden_markers_in_added_lines_block_with_file_and_line() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "true");
    // The target already has a marker in a context line: that never counts.
    write(&repo.join("old.txt"), "a\nTODO_SCRUB legacy\nc\n");
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "legacy marker"]);
    let clean = agent(&env, &repo, "clean");
    env.commit_file(
        &clean,
        "old.txt",
        "a\nTODO_SCRUB legacy\nc changed\n",
        "touches a file with an old marker",
    );
    let dirty = agent(&env, &repo, "dirty");
    env.commit_file(
        &dirty,
        "new.txt",
        "one\ntwo // TODO_SCRUB\n",
        "adds a marker",
    );
    env.fleet(&repo, &["track", "--ready", "clean", "dirty"])
        .ok();
    let run = env.fleet(&repo, &["land", "--all", "--yes"]).code(1);
    assert!(run.stderr.contains("landed fleet/clean"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("new.txt:2: adds forbidden marker TODO_SCRUB"),
        "{}",
        run.stderr
    );
    assert!(env.git_run(&repo, &["cat-file", "-e", "main:new.txt"]).code != 0);
}

#[test]
fn the_shared_checkouts_uncommitted_work_is_kept_or_protects_itself() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "true");
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "shared.txt", "from lane\n", "edit shared");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    write(&repo.join("shared.txt"), "local edit\n");
    write(&repo.join("README"), "local readme\n");
    let old = env.git(&repo, &["rev-parse", "main"]);
    let run = env.fleet(&repo, &["land", "a", "--yes"]).code(1);
    assert!(
        run.stderr
            .contains("uncommitted changes in files this lane changes: shared.txt"),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
    assert_eq!(
        std::fs::read_to_string(repo.join("shared.txt")).unwrap(),
        "local edit\n"
    );
    // An edit to another file rides along untouched.
    env.git(&repo, &["checkout", "--", "shared.txt"]);
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert_eq!(
        std::fs::read_to_string(repo.join("shared.txt")).unwrap(),
        "from lane\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("README")).unwrap(),
        "local readme\n"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), " M README");
}

#[test]
fn merge_and_squash_strategies() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "true");
    let m = agent(&env, &repo, "m");
    env.commit_file(&m, "m1", "1\n", "m one");
    env.commit_file(&m, "m2", "2\n", "m two");
    let s = agent(&env, &repo, "s");
    env.commit_file(&s, "s1", "1\n", "s one");
    env.commit_file(&s, "s2", "2\n", "s two");
    env.fleet(&repo, &["track", "--ready", "m", "s"]).ok();
    let toml = std::fs::read_to_string(repo.join("fleet.toml")).unwrap();
    write(
        &repo.join("fleet.toml"),
        &format!("[lanes]\nstrategy = \"merge\"\n{toml}"),
    );
    env.git(&repo, &["commit", "-q", "-am", "merge strategy"]);
    env.fleet(&repo, &["land", "m", "--yes"]).ok();
    assert_eq!(
        env.git(&repo, &["rev-parse", "main^2"]),
        env.git(&repo, &["rev-parse", "fleet/m"])
    );
    write(
        &repo.join("fleet.toml"),
        &format!("[lanes]\nstrategy = \"squash\"\n{toml}"),
    );
    env.git(&repo, &["commit", "-q", "-am", "squash strategy"]);
    env.fleet(&repo, &["land", "s", "--yes"]).ok();
    assert!(
        env.git_run(&repo, &["rev-parse", "-q", "--verify", "main^2"])
            .code
            != 0
    );
    let message = env.git(&repo, &["log", "-1", "--format=%B", "main"]);
    assert!(
        message.contains("Land lane fleet/s")
            && message.contains("* s one")
            && message.contains("* s two"),
        "{message}"
    );
    assert!(repo.join("s2").exists() && repo.join("m2").exists());
}

#[test]
fn a_target_that_moves_during_the_gate_is_gated_again() {
    let env = Env::new();
    let repo = env.path().join("repo");
    // The gate itself moves the target once (as another lander would), then passes.
    let mover = env.path().join("mover.sh");
    write(
        &mover,
        &format!(
            "#!/bin/sh\nset -e\nif [ ! -e {flag} ]; then touch {flag}; cd {repo}; c=$(git commit-tree -p main -m external main^{{tree}}); git update-ref refs/heads/main $c; fi\necho base=$FLEET_BASE >> {seen}\n",
            flag = env.path().join("moved").display(),
            repo = repo.display(),
            seen = env.path().join("seen").display()
        ),
    );
    let gate = format!("sh {}", mover.display());
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("fleet.toml", &format!("[gate]\ncommands = [{gate:?}]\n")),
        ],
    );
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let run = env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert!(
        run.stderr.contains("moved while fleet/a was gated"),
        "{}",
        run.stderr
    );
    let seen = std::fs::read_to_string(env.path().join("seen")).unwrap();
    assert_eq!(seen.lines().count(), 2, "gated twice: {seen}");
    let external = env.git(&repo, &["rev-parse", "main~1"]);
    assert_eq!(
        env.git(&repo, &["log", "-1", "--format=%s", "main~1"]),
        "external"
    );
    assert_eq!(
        receipt(&env, &repo, "main")["base"].as_str(),
        Some(external.as_str())
    );
    assert!(seen.lines().nth(1).unwrap().ends_with(&external));
}

#[test]
fn bad_input_changes_nothing() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "true");
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.fleet(&repo, &["land", "nope", "--yes"]).code(2);
    env.fleet(&repo, &["land", "--yes"]).code(2);
    env.fleet(&repo, &["land", "main", "--yes"]).code(2);
    // No terminal and no --yes: refuse rather than guess.
    let run = env.fleet(&repo, &["land", "a"]).code(1);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
    // An unparsable fleet.toml on the target.
    write(&repo.join("fleet.toml"), "[gate\ncommands = 1\n");
    env.git(&repo, &["commit", "-q", "-am", "broken config"]);
    let broken = env.git(&repo, &["rev-parse", "main"]);
    let run = env.fleet(&repo, &["land", "a", "--yes"]).code(2);
    assert!(run.stderr.contains("fleet.toml:1"), "{}", run.stderr);
    // No gate at all is refused too.
    write(&repo.join("fleet.toml"), "[gate]\ncommands = []\n");
    env.git(&repo, &["commit", "-q", "-am", "no gate"]);
    let nogate = env.git(&repo, &["rev-parse", "main"]);
    let run = env.fleet(&repo, &["land", "a", "--yes"]).code(2);
    assert!(run.stderr.contains("no gate commands"), "{}", run.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), nogate);
    assert_ne!(broken, old);
    // Dry run moves nothing.
    write(&repo.join("fleet.toml"), "[gate]\ncommands = [\"true\"]\n");
    env.git(&repo, &["commit", "-q", "-am", "gate back"]);
    let before = env.git(&repo, &["rev-parse", "main"]);
    let run = env.fleet(&repo, &["land", "a", "--dry-run"]).ok();
    assert!(run.stderr.contains("would land"), "{}", run.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), before);
    assert!(
        env.git_run(&repo, &["notes", "--ref", "fleet", "list"])
            .stdout
            .is_empty()
    );
}

#[test]
fn a_gate_that_leaves_processes_behind_leaves_none_alive() {
    let env = Env::new();
    let pidfile = env.path().join("helper.pid");
    let gate = format!(
        "sh -c 'trap \"\" TERM; echo $$ > {}; while :; do sleep 1; done' >/dev/null 2>&1 & sleep 0.2; exit 0",
        pidfile.display()
    );
    let repo = repo_with_gate(&env, &gate);
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
    let alive = stat.is_some_and(|s| !s[s.rfind(')').unwrap() + 1..].trim_start().starts_with('Z'));
    assert!(!alive, "gate helper {pid} outlived fleet land");
}

#[test]
fn a_gate_timeout_fails_the_lane_and_kills_the_group() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            (
                "fleet.toml",
                "[gate]\ncommands = [\"sleep 30\"]\ntimeout = \"500ms\"\n",
            ),
        ],
    );
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    let started = std::time::Instant::now();
    let run = env.fleet(&repo, &["land", "a", "--yes"]).code(1);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(run.stderr.contains("exited 124"), "{}", run.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
}

#[test]
fn the_gate_config_comes_from_the_target_commit_not_the_working_tree() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "test ! -e red");
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "red", "r\n", "breaks the gate");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    // The shared checkout's file on disk says anything goes: it is not what gates.
    write(&repo.join("fleet.toml"), "[gate]\ncommands = [\"true\"]\n");
    let run = env.fleet(&repo, &["land", "a", "--yes"]).code(1);
    assert!(
        run.stderr.contains("`test ! -e red` exited 1"),
        "{}",
        run.stderr
    );
    // A broken fleet.toml on the target is reported as the target's, even when the
    // shared checkout (on another branch) has a valid one.
    env.git(&repo, &["checkout", "--", "fleet.toml"]);
    env.git(&repo, &["switch", "-q", "-c", "elsewhere"]);
    let wt = env.path().join("fix");
    env.git(
        &repo,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "main"],
    );
    write(&wt.join("fleet.toml"), "[gate\n");
    env.git(&wt, &["commit", "-q", "-am", "broken gate config"]);
    let target = env.git(&repo, &["rev-parse", "main"]);
    let run = env.fleet(&repo, &["land", "a", "--yes"]).code(2);
    assert!(
        run.stderr.contains("main (") && run.stderr.contains(":fleet.toml:1"),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), target);
}

#[test]
fn a_locked_target_ref_is_a_clear_error_and_nothing_changes() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "true");
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    write(&repo.join(".git/refs/heads/main.lock"), "held by someone\n");
    let run = env.fleet(&repo, &["land", "a", "--yes"]).code(3);
    assert!(run.stderr.contains("main.lock"), "{}", run.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
    assert!(
        repo.join(".git/refs/heads/main.lock").exists(),
        "someone else's lock must stay"
    );
    std::fs::remove_file(repo.join(".git/refs/heads/main.lock")).unwrap();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
}

#[test]
fn revert_undoes_a_landed_lane_through_the_gate() {
    let env = Env::new();
    let repo = repo_with_gate(&env, "test ! -e blocker");
    let a = agent(&env, &repo, "a");
    env.commit_file(&a, "a1.txt", "1\n", "a one");
    env.commit_file(&a, "a2.txt", "2\n", "a two");
    let b = agent(&env, &repo, "b");
    env.commit_file(&b, "b.txt", "b\n", "b");
    env.fleet(&repo, &["track", "--ready", "a", "b"]).ok();
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    let before_revert = env.git(&repo, &["rev-parse", "main"]);
    // The revert is gated like anything else: a red gate keeps it out.
    write(&repo.join("blocker"), "x\n");
    env.git(&repo, &["add", "blocker"]);
    env.git(
        &repo,
        &["commit", "-q", "-m", "blocker (not gated, by hand)"],
    );
    let red_target = env.git(&repo, &["rev-parse", "main"]);
    let run = env.fleet(&repo, &["revert", "a", "--yes"]).code(1);
    assert!(run.stderr.contains("gate failed"), "{}", run.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), red_target);
    env.git(&repo, &["rm", "-q", "blocker"]);
    env.git(&repo, &["commit", "-q", "-m", "unblock"]);
    env.fleet(&repo, &["revert", "a", "--yes"]).ok();
    assert!(!repo.join("a1.txt").exists() && !repo.join("a2.txt").exists());
    assert!(repo.join("b.txt").exists(), "only lane a is undone");
    let r = receipt(&env, &repo, "main");
    assert_eq!(r["lane"].as_str(), Some("revert/fleet/a"));
    assert!(
        env.git(&repo, &["log", "-1", "--format=%s", "main"])
            .starts_with("Revert lane fleet/a")
    );
    assert_ne!(before_revert, env.git(&repo, &["rev-parse", "main"]));
    // Unknown or never-landed lanes are refused.
    env.fleet(&repo, &["revert", "nope", "--yes"]).code(2);
    let c = agent(&env, &repo, "c");
    env.commit_file(&c, "c.txt", "c\n", "c");
    env.fleet(&repo, &["track", "c"]).ok();
    env.fleet(&repo, &["revert", "c", "--yes"]).code(1);
}
