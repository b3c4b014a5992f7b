//! `fleet land` on real repositories with real gate commands: the target only moves to a
//! commit whose exact tree passed the gate read from the old target.

use std::path::Path;

use crate::common::assert::{lane_states, receipt};
use crate::common::{Env, write};

/// Lane `a` (which writes "from lane" to shared.txt) lands, and the shared checkout
/// ends clean with the lane's file.
fn lands_and_the_shared_checkout_follows(env: &Env, repo: &Path) {
    env.fleet(repo, &["land", "a", "--yes"]).ok();
    assert_eq!(
        std::fs::read_to_string(repo.join("shared.txt")).unwrap(),
        "from lane\n"
    );
    assert_eq!(env.git(repo, &["status", "--porcelain"]), "");
}

/// `fleet land a` refuses (exit 1) because the shared checkout holds something of the
/// user's at shared.txt, and the target stays where it was.
fn refused_for_shared_txt(env: &Env, repo: &Path) {
    let old = env.git(repo, &["rev-parse", "main"]);
    env.refused_and_unchanged(
        repo,
        &["land", "a", "--yes"],
        "where this lane changes: shared.txt",
        &old,
    );
}

#[test]
fn only_the_green_lane_lands_and_the_target_is_its_tested_tree() {
    let env = Env::new();
    let repo = env.gated_repo("test ! -e red");
    let green = env.agent(&repo, "green");
    let red = env.agent(&repo, "red");
    let conflict = env.agent(&repo, "conflict");
    let running = env.agent(&repo, "running");
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

    let run = env.refused(&repo, &["land", "--all", "--yes"], "landed fleet/green");
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
    let repo = env.gated_repo("test ! -e red");
    let sneaky = env.agent(&repo, "sneaky");
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
    env.refused(
        &repo,
        &["land", "sneaky", "--yes"],
        "protected path fleet.toml",
    );
    env.refused_and_unchanged(
        &repo,
        &["land", "sneaky", "--yes", "--allow-protected"],
        "gate failed: `test ! -e red`",
        &old,
    );
}

#[test]
fn a_lane_changing_the_gate_must_pass_the_old_and_the_new_one() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let lane = env.agent(&repo, "stricter");
    write(
        &lane.join("fleet.toml"),
        "[gate]\ncommands = [\"test -e proof\"]\n",
    );
    env.git(&lane, &["add", "-A"]);
    env.git(&lane, &["commit", "-q", "-m", "stricter gate, no proof"]);
    env.fleet(&repo, &["track", "--ready", "stricter"]).ok();
    env.refused(
        &repo,
        &["land", "stricter", "--yes", "--allow-protected"],
        "`test -e proof` exited 1",
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
    let repo = env.gated_repo("true");
    // The target already has a marker in a context line: that never counts.
    write(&repo.join("old.txt"), "a\nTODO_SCRUB legacy\nc\n");
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "legacy marker"]);
    let clean = env.agent(&repo, "clean");
    env.commit_file(
        &clean,
        "old.txt",
        "a\nTODO_SCRUB legacy\nc changed\n",
        "touches a file with an old marker",
    );
    let dirty = env.agent(&repo, "dirty");
    env.commit_file(
        &dirty,
        "new.txt",
        "one\ntwo // TODO_SCRUB\n",
        "adds a marker",
    );
    env.fleet(&repo, &["track", "--ready", "clean", "dirty"])
        .ok();
    let run = env.refused(&repo, &["land", "--all", "--yes"], "landed fleet/clean");
    assert!(
        run.stderr
            .contains("new.txt:2: adds forbidden marker TODO_SCRUB"),
        "{}",
        run.stderr
    );
    assert!(
        env.git_cmd(&repo, &["cat-file", "-e", "main:new.txt"])
            .run()
            .code
            != 0
    );
}

#[test]
fn the_shared_checkouts_uncommitted_work_is_kept_or_protects_itself() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "shared.txt", "from lane\n", "edit shared");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    write(&repo.join("shared.txt"), "local edit\n");
    write(&repo.join("README"), "local readme\n");
    refused_for_shared_txt(&env, &repo);
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
    let repo = env.gated_repo("true");
    let m = env.agent(&repo, "m");
    env.commit_file(&m, "m1", "1\n", "m one");
    env.commit_file(&m, "m2", "2\n", "m two");
    let s = env.agent(&repo, "s");
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
        env.git_cmd(&repo, &["rev-parse", "-q", "--verify", "main^2"])
            .run()
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
            "#!/bin/sh\nset -e\nif [ ! -e {flag} ]; then touch {flag}; cd {repo}; export GIT_INDEX_FILE=$PWD/.git/ext-index; git read-tree main; b=$(echo ext | git hash-object -w --stdin); git update-index --add --cacheinfo 100644,$b,ext.txt; c=$(git commit-tree -p main -m external $(git write-tree)); git update-ref refs/heads/main $c; fi\necho base=$FLEET_BASE >> {seen}\n",
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
    let a = env.agent(&repo, "a");
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
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.fleet(&repo, &["land", "nope", "--yes"]).code(2);
    env.fleet(&repo, &["land", "--yes"]).code(2);
    env.fleet(&repo, &["land", "main", "--yes"]).code(2);
    // No terminal and no --yes: refuse rather than guess.
    env.refused(&repo, &["land", "a"], "--yes");
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
        env.git_cmd(&repo, &["notes", "--ref", "fleet", "list"])
            .run()
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
    let repo = env.gated_repo(&gate);
    let a = env.agent(&repo, "a");
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
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.refused_and_unchanged(&repo, &["land", "a", "--yes"], "exited 124", &old);
}

#[test]
fn the_gate_config_comes_from_the_target_commit_not_the_working_tree() {
    let env = Env::new();
    let repo = env.gated_repo("test ! -e red");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "red", "r\n", "breaks the gate");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    // The shared checkout's file on disk says anything goes: it is not what gates.
    write(&repo.join("fleet.toml"), "[gate]\ncommands = [\"true\"]\n");
    env.refused(&repo, &["land", "a", "--yes"], "`test ! -e red` exited 1");
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
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
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
    let repo = env.gated_repo("test ! -e blocker");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "a1.txt", "1\n", "a one");
    env.commit_file(&a, "a2.txt", "2\n", "a two");
    let b = env.agent(&repo, "b");
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
    env.refused_and_unchanged(&repo, &["revert", "a", "--yes"], "gate failed", &red_target);
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
    let c = env.agent(&repo, "c");
    env.commit_file(&c, "c.txt", "c\n", "c");
    env.fleet(&repo, &["track", "c"]).ok();
    env.fleet(&repo, &["revert", "c", "--yes"]).code(1);
}

#[test]
fn ignored_or_untracked_files_in_the_shared_checkout_are_never_overwritten() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    write(&repo.join(".gitignore"), "ign/\n");
    env.git(&repo, &["add", ".gitignore"]);
    env.git(&repo, &["commit", "-q", "-m", "ignore ign/"]);
    let a = env.agent(&repo, "a");
    write(&a.join("ign/x"), "tracked\n");
    env.git(&a, &["add", "-f", "ign/x"]);
    env.git(&a, &["commit", "-q", "-m", "force-add an ignored path"]);
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    write(&repo.join("ign/x"), "MYPRECIOUS\n");
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.refused_and_unchanged(&repo, &["land", "a", "--yes"], "ign/x", &old);
    assert_eq!(
        std::fs::read_to_string(repo.join("ign/x")).unwrap(),
        "MYPRECIOUS\n"
    );
}

#[test]
fn a_touched_but_unchanged_file_does_not_stop_the_checkout_following() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "shared.txt", "from lane\n", "edit shared");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let file = std::fs::File::options()
        .append(true)
        .open(repo.join("shared.txt"))
        .unwrap();
    file.set_modified(std::time::SystemTime::now()).unwrap();
    lands_and_the_shared_checkout_follows(&env, &repo);
}

#[test]
fn an_edit_made_in_the_shared_checkout_during_the_gate_stops_the_landing() {
    let env = Env::new();
    let repo = env.path().join("repo");
    let gate = format!("echo mine > {}/shared.txt", repo.display());
    env.repo(
        &repo,
        "main",
        &[
            ("shared.txt", "one\n"),
            ("fleet.toml", &format!("[gate]\ncommands = [{gate:?}]\n")),
        ],
    );
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "shared.txt", "lane\n", "lane edit");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    refused_for_shared_txt(&env, &repo);
    assert_eq!(
        std::fs::read_to_string(repo.join("shared.txt")).unwrap(),
        "mine\n"
    );
}

#[test]
fn a_checkout_update_cut_short_is_repaired_on_the_next_run() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    for i in 0..6 {
        env.commit_file(&a, &format!("f{i}.txt"), "new\n", &format!("f{i}"));
    }
    env.commit_file(&a, "shared.txt", "lane\n", "shared");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let run = env
        .fleet_cmd(&repo, &["land", "a", "--yes"])
        .envs(&[("FLEET_FAILPOINT", "land-after-cas:abort")])
        .run();
    assert_ne!(run.code, 0);
    // The target moved; the killed update had written only some files.
    assert_eq!(
        env.git(&repo, &["log", "-1", "--format=%s", "main"]),
        "shared"
    );
    write(&repo.join("f0.txt"), "new\n");
    write(&repo.join("f1.txt"), "new\n");
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert_eq!(
        env.git(&repo, &["status", "--porcelain"]),
        "",
        "not clean and current after repair"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("f5.txt")).unwrap(),
        "new\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("shared.txt")).unwrap(),
        "lane\n"
    );
}

#[test]
fn protected_paths_cannot_be_slipped_past() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\nprotected = [\".ci\", \"/deploy/**\", \".github/**\"]\nforbid = [\"TODO_SCRUB\"]\n"),
            ("README", "r\n"),
        ],
    );
    let runner = repo.join("run.sh");
    write(&runner, "#!/bin/sh\n");
    std::fs::create_dir_all(repo.join(".ci")).unwrap();
    std::fs::copy(&runner, repo.join(".ci/check.sh")).unwrap();
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["update-index", "--chmod=+x", ".ci/check.sh"]);
    env.git(&repo, &["commit", "-q", "-m", "ci script"]);
    type Change<'a> = &'a dyn Fn(&Path);
    let cases: [(&str, Change); 5] = [
        ("mode", &|wt: &Path| {
            env.git(wt, &["update-index", "--chmod=-x", ".ci/check.sh"]);
            env.git(wt, &["commit", "-q", "-m", "chmod"]);
        }),
        ("bare", &|wt: &Path| {
            env.commit_file(wt, ".ci/x", "x\n", "bare name");
        }),
        ("anchored", &|wt: &Path| {
            env.commit_file(wt, "deploy/y", "y\n", "anchored");
        }),
        ("case", &|wt: &Path| {
            env.commit_file(wt, ".GITHUB/z", "z\n", "case");
        }),
        ("binary", &|wt: &Path| {
            std::fs::write(wt.join("blob.bin"), b"\0\x01TODO_SCRUB\0").unwrap();
            env.git(wt, &["add", "blob.bin"]);
            env.git(wt, &["commit", "-q", "-m", "binary with marker"]);
        }),
    ];
    let old = env.git(&repo, &["rev-parse", "main"]);
    for (name, change) in cases {
        let wt = env.agent(&repo, name);
        change(&wt);
        env.fleet(&repo, &["track", "--ready", name]).ok();
        let run = env.fleet(&repo, &["land", name, "--yes"]).code(1);
        assert!(run.stderr.contains("blocked"), "{name}: {}", run.stderr);
    }
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
}

#[test]
fn orphan_lanes_keep_their_root_commit_and_status_copes() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let wt = env.agent(&repo, "orphan");
    env.git(&wt, &["switch", "-q", "--orphan", "vendor-import"]);
    env.commit_file(&wt, "vendor.txt", "v\n", "import vendor");
    env.fleet(&repo, &["track", "--ready", "vendor-import"])
        .ok();
    env.fleet(&repo, &["status"]).ok();
    env.fleet(&repo, &["land", "vendor-import", "--yes"]).ok();
    assert_eq!(
        std::fs::read_to_string(repo.join("vendor.txt")).unwrap(),
        "v\n"
    );
}

#[test]
fn new_commits_on_a_landed_lane_land_too() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "b.txt", "b\n", "first");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    env.commit_file(&a, "c.txt", "c\n", "more work");
    env.fleet(&repo, &["ready", "a"]).ok();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert!(repo.join("c.txt").exists());
}

#[test]
fn a_lane_with_an_invalid_fleet_toml_is_blocked_even_when_allowed() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(
        &a,
        "fleet.toml",
        "[gate]\ncommands = [\"true\"\n",
        "broken config",
    );
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.refused_and_unchanged(
        &repo,
        &["land", "a", "--yes", "--allow-protected"],
        "its fleet.toml is invalid",
        &old,
    );
}

#[test]
fn submodule_pointer_changes_are_blocked_unless_allowed() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    env.git(
        &a,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{head},sub"),
        ],
    );
    env.git(&a, &["commit", "-q", "-m", "add a gitlink"]);
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    env.refused(&repo, &["land", "a", "--yes"], "changes submodule sub");
}

#[test]
fn earlier_landings_are_reported_when_a_later_lane_stops_the_run() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "fleet.toml", "[gate]\ncommands = []\n", "drop the gate");
    let b = env.agent(&repo, "b");
    env.commit_file(&b, "b.txt", "b\n", "b");
    env.fleet(&repo, &["track", "--ready", "a", "b"]).ok();
    let run = env
        .fleet(&repo, &["land", "--all", "--yes", "--allow-protected"])
        .code(2);
    assert!(run.stderr.contains("landed fleet/a"), "{}", run.stderr);
    assert!(run.stderr.contains("no gate commands"), "{}", run.stderr);
}

#[test]
fn leftovers_of_a_gate_killed_with_fleet_are_cleaned_up_next_time() {
    let env = Env::new();
    let repo = env.path().join("repo");
    let pidfile = env.path().join("sleeper.pid");
    let gate = format!(
        "if [ ! -e {p} ]; then sh -c 'echo $$ > {p}; exec sleep 300' & wait; fi; true",
        p = pidfile.display()
    );
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("fleet.toml", &format!("[gate]\ncommands = [{gate:?}]\n")),
        ],
    );
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fleet"))
        .current_dir(&repo)
        .args(["land", "a", "--yes"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "gate never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s[s.rfind(')').unwrap() + 1..].trim_start().starts_with('Z'));
    assert!(!alive, "sleep {pid} from the killed gate is still running");
}

#[test]
fn revert_dry_run_creates_nothing() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    let lanes_before = env.git(&repo, &["rev-parse", "refs/fleet/lanes"]);
    let run = env.fleet(&repo, &["revert", "a", "--dry-run"]).ok();
    assert!(run.stderr.contains("would land"), "{}", run.stderr);
    assert!(env.git(&repo, &["branch", "--list", "revert/*"]).is_empty());
    assert_eq!(
        env.git(&repo, &["rev-parse", "refs/fleet/lanes"]),
        lanes_before
    );
    // Nothing new on a landed lane: `ready` refuses rather than pretend.
    env.refused(&repo, &["ready", "a"], "no new commits");
}

#[test]
fn an_environment_error_after_the_gate_leaves_the_lane_ready_not_testing() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "a.txt", "a\n", "a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    write(&repo.join(".git/refs/heads/main.lock"), "held\n");
    env.fleet(&repo, &["land", "a", "--yes"]).code(3);
    let run = env.fleet(&repo, &["status", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v[0]["state"], "ready");
}

#[test]
fn an_untracked_file_where_the_lane_needs_a_folder_stops_the_landing() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "notes/today.txt", "t\n", "adds a folder");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    write(&repo.join("notes"), "my scratch file\n");
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.refused_and_unchanged(&repo, &["land", "a", "--yes"], "notes/today.txt", &old);
    assert_eq!(
        std::fs::read_to_string(repo.join("notes")).unwrap(),
        "my scratch file\n"
    );
    // Dry runs report it before any gate runs.
    env.refused(&repo, &["land", "a", "--dry-run"], "notes/today.txt");
}

/// Edits the shared checkout's `shared.txt` to `content` of the same size, with the
/// modification time put back, after the index's stat data were refreshed more than a
/// second later: the index and `lstat` alone can then only tell by the change time.
fn sneaky_same_size_edit(env: &Env, repo: &Path, content: &str) {
    let path = repo.join("shared.txt");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    env.git(repo, &["update-index", "--really-refresh"]);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    assert_eq!(std::fs::read(&path).unwrap().len(), content.len());
    write(&path, content);
    std::fs::File::options()
        .append(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
}

#[test]
fn local_changes_the_index_alone_cannot_see_still_stop_the_landing() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "shared.txt", "from lane\n", "edit shared");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();

    // Same size, same modification time: only the change time differs.
    sneaky_same_size_edit(&env, &repo, "two\n");
    refused_for_shared_txt(&env, &repo);
    assert_eq!(
        std::fs::read_to_string(repo.join("shared.txt")).unwrap(),
        "two\n"
    );
    env.git(&repo, &["checkout", "--", "shared.txt"]);

    // Only the executable bit.
    let mode = |m: u32| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(repo.join("shared.txt"), std::fs::Permissions::from_mode(m))
            .unwrap();
    };
    mode(0o755);
    refused_for_shared_txt(&env, &repo);
    mode(0o644);

    // Dropped from the index, the file left on disk (it shows as untracked).
    env.git(&repo, &["rm", "-q", "--cached", "shared.txt"]);
    refused_for_shared_txt(&env, &repo);
    env.git(&repo, &["reset", "-q", "--", "shared.txt"]);

    // Staged, then the file put back as it was.
    write(&repo.join("shared.txt"), "staged\n");
    env.git(&repo, &["add", "shared.txt"]);
    write(&repo.join("shared.txt"), "one\n");
    refused_for_shared_txt(&env, &repo);
    env.git(&repo, &["reset", "-q", "--", "shared.txt"]);

    // A conflict left in the index.
    let head = env.git(&repo, &["rev-parse", "HEAD:shared.txt"]);
    env.git_cmd(&repo, &["update-index", "--index-info"])
        .stdin(&format!(
            "0 {z}\tshared.txt\n100644 {head} 1\tshared.txt\n100644 {head} 2\tshared.txt\n",
            z = "0".repeat(40)
        ))
        .stdout();
    refused_for_shared_txt(&env, &repo);
    env.git(&repo, &["reset", "-q", "--", "shared.txt"]);

    // Nothing of the user's left: it lands, and the file follows.
    lands_and_the_shared_checkout_follows(&env, &repo);
}

#[test]
fn an_emptied_file_whose_index_entry_git_smudged_still_stops_the_landing() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let a = env.agent(&repo, "a");
    env.commit_file(&a, "shared.txt", "from lane\n", "edit shared");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
    };
    let shared = repo.join("shared.txt");
    // What git's index says of shared.txt: (size, ctime seconds, mtime seconds).
    let entry = || {
        let debug = env.git(&repo, &["ls-files", "--debug", "shared.txt"]);
        let field = |name: &str| -> i64 {
            let line = debug
                .lines()
                .find(|l| l.trim_start().starts_with(name))
                .unwrap();
            let value = line.trim_start()[name.len()..]
                .trim_start_matches(':')
                .trim();
            value
                .split([':', '\t'])
                .next()
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        };
        (field("size"), field("ctime"), field("mtime"))
    };
    // Within one second: the entry is written, the file changes (same size), the index
    // is written again (git smudges the racily clean, changed entry: size 0), and the
    // file is emptied. The entry then matches the emptied file in every stat field
    // git keeps. Timing decides whether git smudges, so the attempt is repeated until
    // git's own index shows exactly that.
    let smudged = (0..40).any(|_| {
        while now().subsec_millis() > 200 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        write(&shared, "one\n");
        env.git(&repo, &["add", "shared.txt"]);
        write(&shared, "ONE\n");
        write(&repo.join("g1"), "g\n");
        env.git(&repo, &["add", "g1"]);
        std::fs::File::create(&shared).unwrap();
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(&shared).unwrap();
        if entry() == (0, meta.ctime(), meta.mtime()) {
            return true;
        }
        env.git(&repo, &["reset", "-q"]);
        false
    });
    assert!(smudged, "git never smudged the entry in 40 attempts");
    // A later index write makes the smudged entry look settled (not racy).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    write(&repo.join("g2"), "g\n");
    env.git(&repo, &["add", "g2"]);
    assert_eq!(entry().0, 0);
    refused_for_shared_txt(&env, &repo);
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), "");
}

#[test]
fn the_gate_worktree_loses_untracked_leftovers_and_keeps_ignored_build_caches() {
    let env = Env::new();
    let seen = env.path().join("seen");
    // Each lane's gate leaves one kind of leftover, and the next one checks it is gone:
    // files, an empty folder, a repository, and gen/out, written while gen/ was ignored
    // and no longer ignored in lane e's candidate. build/ is ignored throughout: a cache
    // that must survive.
    let gate = format!(
        "echo \"$(ls build 2>/dev/null | tr '\\n' ' ')\" >> {seen}; \
         mkdir -p build; touch \"build/$(echo $FLEET_LANE | tr / -)\"; \
         case $FLEET_LANE in \
         fleet/a) touch leftover src/stray ;; \
         fleet/b) test ! -e leftover && test ! -e src/stray && mkdir empty ;; \
         fleet/c) test ! -e empty && git init -q repo-left ;; \
         fleet/d) test ! -e repo-left && mkdir gen && touch gen/out ;; \
         fleet/e) test ! -e gen ;; \
         esac",
        seen = seen.display()
    );
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("src/lib.txt", "lib\n"),
            (".gitignore", "build/\ngen/\n"),
            ("fleet.toml", &format!("[gate]\ncommands = [{gate:?}]\n")),
        ],
    );
    let lanes = ["a", "b", "c", "d", "e"];
    for lane in lanes {
        let wt = env.agent(&repo, lane);
        if lane == "e" {
            write(&wt.join(".gitignore"), "build/\n");
        }
        env.commit_file(&wt, &format!("{lane}.txt"), "x\n", lane);
    }
    let mut track = vec!["track", "--ready"];
    track.extend(lanes);
    env.fleet(&repo, &track).ok();
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert_eq!(
        lane_states(&env, &repo),
        lanes.map(|l| (format!("fleet/{l}"), "landed".to_string()))
    );
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        "\nfleet-a \nfleet-a fleet-b \nfleet-a fleet-b fleet-c \nfleet-a fleet-b fleet-c fleet-d \n"
    );
}
