//! Lanes: tracking, readiness, the registry's compare-and-swap under concurrency, and
//! the facts `fleet status` derives from the refs.

use std::path::Path;

use crate::common::{Env, write};

fn status(env: &Env, dir: &Path) -> serde_json::Value {
    let run = env.fleet(dir, &["status", "--json"]).ok();
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn track_refuses_unknown_branches_the_target_and_duplicates_changing_nothing() {
    let env = Env::new();
    let (repo, _) = env.worktrees_with_one_commit(2);
    // `worktree new` tracked both as running; tracking a running lane again is no
    // refusal, so t0 is made ready for the duplicate to be refused.
    env.fleet(&repo, &["track", "fleet/t0"]).ok();
    env.fleet(&repo, &["ready", "fleet/t0"]).ok();
    let before = env.git(&repo, &["rev-parse", "refs/fleet/lanes"]);
    let run = env.fleet(&repo, &["track", "fleet/t1", "nope"]).code(2);
    assert!(run.stderr.contains("no branch `nope`"), "{}", run.stderr);
    let run = env.fleet(&repo, &["track", "main"]).code(2);
    assert!(run.stderr.contains("target branch"), "{}", run.stderr);
    env.refused(&repo, &["track", "fleet/t1", "fleet/t0"], "already a lane");
    env.fleet(&repo, &["track", "t1", "fleet/t1"]).code(2);
    assert_eq!(
        env.git(&repo, &["rev-parse", "refs/fleet/lanes"]),
        before,
        "a refused track changed the registry"
    );
    // Agent names stand for their branches.
    env.fleet(&repo, &["track", "t1"]).ok();
    let lanes = status(&env, &repo);
    assert_eq!(lanes[0]["branch"], "fleet/t0");
    assert_eq!(lanes[1]["branch"], "fleet/t1");
    env.fleet(&repo, &["untrack", "t0"]).ok();
    env.fleet(&repo, &["untrack", "t0"]).code(2);
    assert_eq!(status(&env, &repo).as_array().unwrap().len(), 1);
    assert!(
        env.branches(&repo)
            .contains(&"refs/heads/fleet/t0".to_string()),
        "untrack must keep the branch"
    );
}

#[test]
fn hostile_but_valid_branch_names_work_as_lanes() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("README", "r\n")]);
    for name in ["feat/foo", "deep/er/still", "ünïcödé", "x-_.y"] {
        env.git(&repo, &["branch", name]);
    }
    env.fleet(
        &repo,
        &["track", "feat/foo", "deep/er/still", "ünïcödé", "x-_.y"],
    )
    .ok();
    env.fleet(&repo, &["ready", "deep/er/still"]).ok();
    let lanes = status(&env, &repo);
    assert_eq!(lanes[2]["branch"], "ünïcödé");
    assert_eq!(lanes[1]["state"], "ready");
    // A name git itself rejects is an unknown branch, not a crash.
    env.fleet(&repo, &["track", "--", "-x"]).code(2);
    env.fleet(&repo, &["track", "a b"]).code(2);
}

#[test]
fn concurrent_tracking_never_loses_an_update() {
    let env = Env::new();
    // Plain branches: `worktree new` would track them itself, one after the other.
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("README", "r\n")]);
    for i in 0..8 {
        env.git(&repo, &["branch", &format!("fleet/t{i}")]);
    }
    std::thread::scope(|s| {
        for i in 0..8 {
            let (env, repo) = (&env, &repo);
            s.spawn(move || env.fleet(repo, &["track", &format!("fleet/t{i}")]).ok());
        }
    });
    let lanes = status(&env, &repo);
    let mut names: Vec<String> = lanes
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["branch"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        (0..8).map(|i| format!("fleet/t{i}")).collect::<Vec<_>>()
    );
    // Every change is one commit on the registry ref.
    assert_eq!(
        env.git(&repo, &["rev-list", "--count", "refs/fleet/lanes"]),
        "8"
    );
}

#[test]
fn ready_uses_the_worker_exit_code_not_the_log_words() {
    let env = Env::new();
    let (repo, wts) = env.worktrees_with_one_commit(1);
    env.fleet(&repo, &["track", "fleet/t0"]).ok();
    let log = env.path().join("test.log");
    write(&log, "all tests passed! SUCCESS\n");
    env.refused(
        &wts[0],
        &["ready", "--exit-code", "1", "--log", log.to_str().unwrap()],
        "exited 1",
    );
    let lane = &status(&env, &repo)[0];
    assert_eq!(lane["state"], "running");
    assert_eq!(lane["worker"]["exit_code"], 1);
    let kept = lane["worker"]["log"].as_str().unwrap();
    assert_eq!(
        std::fs::read_to_string(kept).unwrap(),
        "all tests passed! SUCCESS\n"
    );
    write(&log, "FAILED FAILED error\n");
    env.fleet(
        &wts[0],
        &["ready", "--exit-code", "0", "--log", log.to_str().unwrap()],
    )
    .ok();
    assert_eq!(status(&env, &repo)[0]["state"], "ready");
    // Untracked branches are not silently tracked by `ready`.
    let run = env.fleet(&repo, &["ready", "main"]).code(2);
    // The help keeps the worker's result: track first, then `ready` again.
    assert!(run.stderr.contains("fleet track main"), "{}", run.stderr);
}

#[test]
fn status_derives_landed_conflicts_and_staleness_from_the_refs() {
    let env = Env::new();
    let (repo, wts) = env.worktrees_with_one_commit(3);
    write(&repo.join("fleet.toml"), "[lanes]\nstale_after = \"1h\"\n");
    env.git(&repo, &["add", "fleet.toml"]);
    env.git(&repo, &["commit", "-q", "-m", "fleet config"]);
    // t1 conflicts with the target on shared.txt.
    env.commit_file(&wts[1], "shared.txt", "lane\n", "lane edit");
    env.commit_file(&repo, "shared.txt", "target\n", "target edit");
    env.fleet(&repo, &["track", "t0", "t1", "t2"]).ok();
    // t0 lands by squash, behind fleet's back.
    env.git(&repo, &["merge", "--squash", "-q", "fleet/t0"]);
    env.git(&repo, &["commit", "-q", "-m", "squash t0"]);
    // t2's worktree goes away: only its old commit (2026-01-01) dates it.
    env.fleet(&repo, &["worktree", "rm", "t2", "--force"]).ok();
    let lanes = status(&env, &repo);
    assert_eq!(lanes[0]["state"], "landed");
    assert_eq!(lanes[0]["recorded_state"], "running");
    assert_eq!(lanes[1]["conflicts"], serde_json::json!(["shared.txt"]));
    assert_eq!(lanes[1]["stale"], false, "its worktree was just touched");
    assert_eq!(lanes[2]["stale"], true);
    let text = env.fleet(&repo, &["status"]).ok().stdout;
    assert!(
        text.contains("conflicts: shared.txt") && text.contains("stale"),
        "{text}"
    );
}

#[test]
fn predicted_conflicts_agree_with_git_merge_tree_whatever_shape_the_overlap_takes() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("shared.txt", "one\n"),
            ("gone.txt", "soon deleted\n"),
            ("deep/a/file.txt", "deep\n"),
            ("ren/f1.txt", "first\n"),
            ("ren/f2.txt", "second\n"),
            ("ren/f3.txt", "third\n"),
            ("lr/f1.txt", "first\n"),
            ("lr/f2.txt", "second\n"),
        ],
    );
    // (lane, file it writes, whether a conflict is expected)
    let lanes = [
        ("clean", "README", false),
        ("same-file", "shared.txt", true),
        ("under-a-new-file", "dir1/x.txt", true),
        ("over-a-new-folder", "dir2", true),
        ("edits-a-deleted-file", "gone.txt", true),
        ("next-to-the-target", "deep/a/other.txt", false),
        ("file-over-deep-folder", "deep/a", true),
        // The target renames ren/ to moved/ and adds moved/new.txt: the folder rename
        // carries this lane's ren/new.txt onto it, with no path in common.
        ("into-a-renamed-folder", "ren/new.txt", true),
        // The other way round: this lane renames lr/ to lr2/ and adds lr2/y.txt; the
        // target adds lr/y.txt.
        ("renames-a-folder", "lr2/y.txt", true),
    ];
    for (name, path, _) in lanes {
        let wt = env.agent(&repo, name);
        // A file where a folder was: the folder goes in the same commit.
        let _ = std::fs::remove_dir_all(wt.join(path));
        if name == "renames-a-folder" {
            std::fs::rename(wt.join("lr"), wt.join("lr2")).unwrap();
        }
        env.commit_file(&wt, path, &format!("from {name}\n"), name);
    }
    // The target moves on after every lane branched off.
    write(&repo.join("shared.txt"), "target\n");
    write(&repo.join("dir1"), "a file now\n");
    write(&repo.join("dir2/inner.txt"), "a folder now\n");
    write(&repo.join("deep/a/file.txt"), "deeper\n");
    std::fs::remove_file(repo.join("gone.txt")).unwrap();
    std::fs::rename(repo.join("ren"), repo.join("moved")).unwrap();
    write(&repo.join("moved/new.txt"), "the target's\n");
    write(&repo.join("lr/y.txt"), "the target's\n");
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "target moves on"]);
    let names: Vec<String> = lanes.iter().map(|(n, _, _)| format!("fleet/{n}")).collect();
    let mut args = vec!["track"];
    args.extend(names.iter().map(String::as_str));
    env.fleet(&repo, &args).ok();
    let views = status(&env, &repo);
    for (i, (name, _, expected)) in lanes.iter().enumerate() {
        let predicted = !views[i]["conflicts"].as_array().unwrap().is_empty();
        let git = env
            .git_cmd(&repo, &["merge-tree", "--write-tree", "main", &names[i]])
            .run();
        assert_eq!(git.code == 1, *expected, "git merge-tree on {name}");
        assert_eq!(predicted, *expected, "{name}: {}", views[i]);
    }
}

#[test]
fn a_failing_worker_test_takes_a_ready_lane_back_to_running() {
    let env = Env::new();
    let (repo, _) = env.worktrees_with_one_commit(1);
    env.fleet(&repo, &["track", "--ready", "t0"]).ok();
    env.fleet(&repo, &["ready", "t0", "--exit-code", "1"])
        .code(1);
    assert_eq!(status(&env, &repo)[0]["state"], "running");
}

#[test]
fn unknown_lanes_and_missing_folders_are_usage_errors() {
    let env = Env::new();
    let (repo, _) = env.worktrees_with_one_commit(1);
    env.fleet(&repo, &["untrack", "nope"]).code(2);
    env.fleet(&repo, &["ready", "nope"]).code(2);
    env.fleet(&repo, &["-C", "/no/such/folder", "status"])
        .code(2);
    // `ready` with no lane in the shared checkout names the problem.
    let run = env.fleet(&repo, &["ready"]).code(2);
    assert!(
        run.stderr.contains("the target branch, not on a lane"),
        "{}",
        run.stderr
    );
}

#[test]
fn absurd_durations_are_refused_not_a_crash() {
    let env = Env::new();
    let (repo, _) = env.worktrees_with_one_commit(0);
    env.fleet(
        &repo,
        &["run", "--timeout", "18446744073709551615s", "--", "true"],
    )
    .code(2);
    env.fleet(&repo, &["run", "--timeout", "0s", "--", "true"])
        .code(2);
    write(
        &repo.join("fleet.toml"),
        "[lanes]\nstale_after = \"9223372036854775808s\"\n",
    );
    let run = env.fleet(&repo, &["status"]).code(2);
    assert!(
        run.stderr.contains("longer than a year") || run.stderr.contains("not a duration"),
        "{}",
        run.stderr
    );
}

/// The command's stdout is its own (`claude --output-format json` prints its document
/// there); fleet's report is the last line of stderr with --json, or a file with
/// --report, the not-found case included.
#[test]
fn run_keeps_the_command_s_stdout_and_reports_on_stderr_or_to_a_file() {
    let env = Env::new();
    let script = "echo '{\"result\": 1}'; echo to-stderr >&2";
    let run = env
        .fleet(&env.path(), &["run", "--json", "--", "sh", "-c", script])
        .ok();
    assert_eq!(run.stdout, "{\"result\": 1}\n");
    let last = run.stderr.lines().last().unwrap_or_default();
    let report: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(report["exit_code"], 0);
    assert!(run.stderr.starts_with("to-stderr\n"), "{}", run.stderr);
    let file = env.path().join("report.json");
    let run = env
        .fleet(
            &env.path(),
            &["run", "--report", "report.json", "--", "sh", "-c", "exit 4"],
        )
        .code(4);
    assert_eq!(run.stdout, "");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(report["exit_code"], 4);
    let run = env
        .fleet(&env.path(), &["run", "--json", "--", "no-such-program-xyz"])
        .code(127);
    assert_eq!(run.stdout, "");
    let last = run.stderr.lines().last().unwrap_or_default();
    let report: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(report["error"]["exit_code"], 127);
    assert!(
        report["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no-such-program-xyz")
    );
}
