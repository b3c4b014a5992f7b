//! `fleet watchdog` and `fleet recover`: drifted shared checkouts are put back without
//! losing a byte, dirty ones are snapshotted so even `reset --hard` loses nothing.

use std::path::{Path, PathBuf};

use crate::common::{Env, write};

const ALLOW: [(&str, &str); 1] = [("FLEET_ALLOW_SHARED", "1")];

/// A guarded repository with branch `other` one commit ahead (adding other.txt).
fn guarded(env: &Env) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("a.txt", "one\n"),
            ("fleet.toml", ""),
            (".gitignore", "*.log\n"),
        ],
    );
    env.commit_file(&repo, "b.txt", "two\n", "second");
    env.git(&repo, &["branch", "other"]);
    let scratch = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "scratch"])
            .ok()
            .stdout
            .trim(),
    );
    env.commit_file(&scratch, "other.txt", "o\n", "other work");
    env.git(&scratch, &["branch", "-f", "other", "HEAD"]);
    env.fleet(&repo, &["init"]).ok();
    repo
}

fn watchdog(env: &Env, repo: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["watchdog", "--once", "--json"];
    all.extend_from_slice(args);
    let run = env.fleet(repo, &all);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn snapshots(env: &Env, repo: &Path) -> Vec<serde_json::Value> {
    let run = env.fleet(repo, &["recover", "--list", "--json"]).ok();
    serde_json::from_str::<Vec<serde_json::Value>>(&run.stdout).unwrap()
}

#[test]
fn a_snapshot_brings_back_every_byte_a_reset_hard_destroyed() {
    let env = Env::new();
    let repo = guarded(&env);
    write(&repo.join("a.txt"), "one\nunsaved edit \u{e9}\n");
    write(&repo.join("staged.txt"), "staged\n");
    env.git(&repo, &["add", "staged.txt"]);
    write(&repo.join("dir/untracked.txt"), "untracked\n");
    write(&repo.join("noise.log"), "ignored\n");
    let found = watchdog(&env, &repo, &[]);
    assert_eq!(found[0]["verdict"], "ok");
    assert!(found[0]["snapshot"].is_string(), "{found:?}");
    // Unchanged: no second snapshot.
    let again = watchdog(&env, &repo, &[]);
    assert!(again[0]["snapshot"].is_null(), "{again:?}");
    assert_eq!(snapshots(&env, &repo).len(), 1);

    // Not a move of HEAD, so the guard lets it through: this is the loss hooks can't stop.
    env.git(&repo, &["reset", "-q", "--hard"]);
    assert_eq!(
        std::fs::read_to_string(repo.join("a.txt")).unwrap(),
        "one\n"
    );

    let id = snapshots(&env, &repo)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.fleet(&repo, &["recover", &id, "--branch", "recovered"])
        .ok();
    let show = |path: &str| env.git(&repo, &["show", &format!("recovered:{path}")]);
    assert_eq!(show("a.txt"), "one\nunsaved edit \u{e9}");
    assert_eq!(show("staged.txt"), "staged");
    assert_eq!(show("dir/untracked.txt"), "untracked");
    assert_ne!(
        env.git_cmd(&repo, &["show", "recovered:noise.log"])
            .run()
            .code,
        0,
        "ignored files are not snapshotted"
    );
    assert_eq!(
        env.git(&repo, &["rev-parse", "recovered~1"]),
        env.git(&repo, &["rev-parse", "main"])
    );
    // The snapshot touched nothing: not the index, not the stash.
    assert_eq!(env.git_cmd(&repo, &["stash", "list"]).run().stdout, "");
    // Recovering onto an existing branch is refused.
    env.fleet(&repo, &["recover", &id, "--branch", "recovered"])
        .code(1);
    env.fleet(&repo, &["recover", "nope", "--branch", "x"])
        .code(2);
}

#[test]
fn a_clean_drift_is_left_alone_inside_the_grace_period_then_restored() {
    let env = Env::new();
    let repo = guarded(&env);
    env.git_cmd(&repo, &["switch", "-q", "other"])
        .envs(&ALLOW)
        .run();
    let first = watchdog(&env, &repo, &["--restore", "--grace", "2s"]);
    assert_eq!(first[0]["verdict"], "drifted");
    assert_eq!(
        env.git(&repo, &["symbolic-ref", "HEAD"]),
        "refs/heads/other"
    );
    std::thread::sleep(std::time::Duration::from_millis(3100));
    let second = watchdog(&env, &repo, &["--restore", "--grace", "2s"]);
    assert_eq!(second[0]["verdict"], "restored", "{second:?}");
    assert!(second[0]["rescue_branch"].is_null());
    assert_eq!(env.git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
    assert!(!repo.join("other.txt").exists());
    assert_eq!(watchdog(&env, &repo, &[])[0]["verdict"], "ok");
}

#[test]
fn a_dirty_drift_is_saved_on_a_rescue_branch_then_restored() {
    let env = Env::new();
    let repo = guarded(&env);
    env.git_cmd(&repo, &["switch", "-q", "--detach", "other"])
        .envs(&ALLOW)
        .run();
    write(&repo.join("a.txt"), "one\nedited while drifted\n");
    write(&repo.join("new-staged.txt"), "staged bytes\n");
    env.git(&repo, &["add", "new-staged.txt"]);
    write(&repo.join("loose.txt"), "untracked bytes\n");
    watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    assert_eq!(found[0]["verdict"], "restored", "{found:?}");
    let rescue = found[0]["rescue_branch"].as_str().unwrap().to_string();
    assert!(rescue.starts_with("fleet/rescue/"), "{rescue}");
    let show = |path: &str| env.git(&repo, &["show", &format!("{rescue}:{path}")]);
    assert_eq!(show("a.txt"), "one\nedited while drifted");
    assert_eq!(show("new-staged.txt"), "staged bytes");
    assert_eq!(show("loose.txt"), "untracked bytes");
    assert_eq!(
        show("other.txt"),
        "o",
        "the rescue commit sits on the drifted commit"
    );
    // Back on main, and the local changes came along (nothing discarded).
    assert_eq!(env.git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert!(!repo.join("other.txt").exists());
    assert_eq!(
        std::fs::read_to_string(repo.join("a.txt")).unwrap(),
        "one\nedited while drifted\n"
    );
    assert!(repo.join("loose.txt").exists());
    assert_eq!(env.git_cmd(&repo, &["stash", "list"]).run().stdout, "");
}

#[test]
fn a_checkout_in_the_middle_of_a_rebase_is_left_alone() {
    let env = Env::new();
    let repo = guarded(&env);
    let editor = "sed -i '1i break'";
    env.git_cmd(
        &repo,
        &[
            "-c",
            &format!("sequence.editor={editor}"),
            "rebase",
            "-q",
            "-i",
            "HEAD~1",
        ],
    )
    .envs(&ALLOW)
    .run();
    assert!(
        repo.join(".git/rebase-merge").exists(),
        "the rebase did not stop"
    );
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    assert_eq!(found[0]["verdict"], "busy", "{found:?}");
    assert!(repo.join(".git/rebase-merge").exists());
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head);
    env.fleet(&repo, &["watchdog", "--once"]).code(1);
}

#[test]
fn a_nested_shared_checkout_is_watched_too() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(&outer.join("fleet.toml"), "");
    env.fleet(&outer, &["init"]).ok();
    let cockpit = outer.join("cockpit");
    env.git_cmd(&cockpit, &["switch", "-q", "-c", "elsewhere"])
        .envs(&ALLOW)
        .run();
    write(&cockpit.join("c.txt"), "dirty nested\n");
    let found = watchdog(&env, &outer, &["--restore", "--grace", "1s"]);
    let nested: Vec<&serde_json::Value> = found
        .iter()
        .filter(|f| f["checkout"].as_str().unwrap().ends_with("cockpit"))
        .collect();
    assert_eq!(nested.len(), 1, "{found:?}");
    assert_eq!(nested[0]["verdict"], "drifted");
    assert!(nested[0]["snapshot"].is_string());
    std::thread::sleep(std::time::Duration::from_millis(2100));
    watchdog(&env, &outer, &["--restore", "--grace", "1s"]);
    assert_eq!(
        env.git(&cockpit, &["symbolic-ref", "HEAD"]),
        "refs/heads/main"
    );
    assert_eq!(
        std::fs::read_to_string(cockpit.join("c.txt")).unwrap(),
        "dirty nested\n"
    );
}

fn age_file(path: &Path) {
    let status = std::process::Command::new("touch")
        .args(["-d", "1 hour ago"])
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn leftovers_of_killed_processes_do_not_stop_the_watchdog() {
    let env = Env::new();
    let repo = guarded(&env);
    write(&repo.join("a.txt"), "precious\n");
    // An index.lock nobody holds, and a temporary index of a killed watchdog.
    let lock = repo.join(".git/index.lock");
    write(&lock, "");
    age_file(&lock);
    let tmp = repo.join(".git/fleet/snapshot-index-1-1.lock");
    write(&tmp, "");
    age_file(&tmp);
    let found = watchdog(&env, &repo, &[]);
    assert!(found[0]["snapshot"].is_string(), "{found:?}");
    assert!(!lock.exists() && !tmp.exists());
    // A nested repository without commits does not stop the others being snapshotted.
    std::fs::create_dir_all(repo.join("fresh")).unwrap();
    env.git(&repo.join("fresh"), &["init", "-q"]);
    write(&repo.join("fresh/f.txt"), "x\n");
    write(&repo.join("a.txt"), "precious, edited again\n");
    let found = watchdog(&env, &repo, &[]);
    assert!(found[0]["snapshot"].is_string(), "{found:?}");
}

#[test]
fn a_head_lock_nobody_holds_is_cleared_and_a_fresh_one_is_waited_for_with_its_reason() {
    let env = Env::new();
    let repo = guarded(&env);
    env.git_cmd(&repo, &["switch", "-q", "-c", "elsewhere"])
        .envs(&ALLOW)
        .run();
    // Past the grace, so only the lock stands in the way of the restore.
    watchdog(&env, &repo, &[]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // A fresh HEAD.lock: git may be moving HEAD right now, so nothing is restored, and
    // the finding says why.
    let lock = repo.join(".git/HEAD.lock");
    write(&lock, "");
    let found = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    assert_eq!(found[0]["verdict"], "drifted", "{found:?}");
    let detail = found[0]["detail"].as_str().unwrap();
    assert!(detail.contains("HEAD is locked"), "{detail}");
    assert!(lock.exists());
    assert_eq!(
        env.git(&repo, &["symbolic-ref", "HEAD"]),
        "refs/heads/elsewhere"
    );
    // The same lock an hour old, with no git of this checkout alive: a killed git's or
    // watchdog's leftover, cleared, and the checkout put back.
    age_file(&lock);
    let found = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    assert_eq!(found[0]["verdict"], "restored", "{found:?}");
    assert!(!lock.exists());
    assert_eq!(env.git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
}

#[test]
fn staged_and_unstaged_versions_of_a_file_are_both_kept() {
    let env = Env::new();
    let repo = guarded(&env);
    write(&repo.join("a.txt"), "STAGED\n");
    env.git(&repo, &["add", "a.txt"]);
    write(&repo.join("a.txt"), "on disk\n");
    watchdog(&env, &repo, &[]);
    let id = snapshots(&env, &repo)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.fleet(&repo, &["recover", &id, "--branch", "r"]).ok();
    assert_eq!(env.git(&repo, &["show", "r:a.txt"]), "on disk");
    assert_eq!(env.git(&repo, &["show", "r^2:a.txt"]), "STAGED");
}

#[test]
fn the_newest_snapshot_outlives_its_keep_time() {
    let env = Env::new();
    let repo = guarded(&env);
    write(
        &repo.join("fleet.toml"),
        "[guard]\nsnapshot_keep = \"1s\"\n",
    );
    write(&repo.join("a.txt"), "precious\n");
    watchdog(&env, &repo, &[]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    watchdog(&env, &repo, &[]);
    assert_eq!(snapshots(&env, &repo).len(), 1, "the only copy was pruned");
}

#[test]
fn a_restore_never_overwrites_an_ignored_file_or_guts_an_orphan() {
    let env = Env::new();
    let repo = guarded(&env);
    // main tracks keep.log although *.log is ignored; the drifted commit does not.
    write(&repo.join("keep.log"), "v\n");
    env.git(&repo, &["add", "-f", "keep.log"]);
    env.git_cmd(&repo, &["commit", "-q", "-m", "tracked log"])
        .envs(&ALLOW)
        .run();
    env.git_cmd(&repo, &["switch", "-q", "--detach", "HEAD~1"])
        .envs(&ALLOW)
        .run();
    assert!(!repo.join("keep.log").exists());
    write(&repo.join("keep.log"), "MY LOCAL DATA\n");
    watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    assert_eq!(found[0]["verdict"], "stuck", "{found:?}");
    assert_eq!(
        std::fs::read_to_string(repo.join("keep.log")).unwrap(),
        "MY LOCAL DATA\n"
    );

    let env = Env::new();
    let repo = guarded(&env);
    env.git_cmd(&repo, &["switch", "-q", "--orphan", "x"])
        .envs(&ALLOW)
        .run();
    write(&repo.join("new.txt"), "w\n");
    watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    assert_eq!(found[0]["verdict"], "stuck", "{found:?}");
    assert!(repo.join("new.txt").exists());
    let rescue = found[0]["rescue_branch"].as_str().unwrap();
    assert_eq!(env.git(&repo, &["show", &format!("{rescue}:new.txt")]), "w");
}

#[test]
fn an_agent_named_rescue_does_not_block_rescues() {
    let env = Env::new();
    let repo = guarded(&env);
    env.fleet(&repo, &["worktree", "new", "rescue"]).ok();
    env.git_cmd(&repo, &["switch", "-q", "--detach", "HEAD~1"])
        .envs(&ALLOW)
        .run();
    write(&repo.join("a.txt"), "dirty\n");
    watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let found = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
    assert_eq!(found[0]["verdict"], "restored", "{found:?}");
    let rescue = found[0]["rescue_branch"].as_str().unwrap();
    assert_eq!(
        env.git(&repo, &["show", &format!("{rescue}:a.txt")]),
        "dirty"
    );
}

#[test]
fn bad_input_is_a_usage_error_not_a_crash() {
    let env = Env::new();
    let repo = guarded(&env);
    env.fleet(&repo, &["recover", "..", "--branch", "x"])
        .code(2);
    env.fleet(&repo, &["recover", "1-abc", "--branch", "HEAD"])
        .code(2);
    env.git_cmd(&repo, &["switch", "-q", "--detach", "HEAD~1"])
        .envs(&ALLOW)
        .run();
    write(
        &repo.join(".git/fleet/watchdog.toml"),
        &format!("[drift]\n\"{}\" = -9223372036854775808\n", repo.display()),
    );
    let run = env.fleet(&repo, &["watchdog", "--once", "--restore", "--grace", "1h"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        env.git(&repo, &["rev-parse", "--abbrev-ref", "HEAD"]),
        "HEAD"
    );
}

#[test]
fn killed_during_a_restore_a_rerun_converges_without_losing_a_byte() {
    let mut killed_while_running = 0;
    for delay_ms in [5u64, 15, 30, 50, 80, 120] {
        let env = Env::new();
        let repo = guarded(&env);
        let scratch = repo.join("../.fleet-work/repo/scratch");
        for n in 0..300 {
            write(&scratch.join(format!("many/f{n}.txt")), &format!("{n}\n"));
        }
        env.git(&scratch, &["add", "-A"]);
        env.git(&scratch, &["commit", "-q", "-m", "many"]);
        env.git(&scratch, &["branch", "-f", "other", "HEAD"]);
        env.git_cmd(&repo, &["switch", "-q", "--detach", "other"])
            .envs(&ALLOW)
            .run();
        write(&repo.join("a.txt"), "precious edit\n");
        watchdog(&env, &repo, &[]);
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fleet"))
            .current_dir(&repo)
            .args(["watchdog", "--once", "--restore", "--grace", "1s"])
            .env("HOME", env.path().join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_none() {
            killed_while_running += 1;
        }
        let _ = child.kill();
        let _ = child.wait();
        // A kill leaves git's locks behind as a real crash would; aged, they are stale.
        for lock in [".git/index.lock", ".git/HEAD.lock"] {
            let lock = repo.join(lock);
            if lock.exists() {
                age_file(&lock);
            }
        }
        let mut last = Vec::new();
        for _ in 0..3 {
            last = watchdog(&env, &repo, &["--restore", "--grace", "1s"]);
            if last[0]["verdict"] == "restored" || last[0]["verdict"] == "ok" {
                break;
            }
        }
        assert!(
            last[0]["verdict"] == "restored" || last[0]["verdict"] == "ok",
            "delay {delay_ms}: {last:?}"
        );
        assert_eq!(env.git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
        // The edit is in the checkout, or on a rescue branch.
        let on_disk = std::fs::read_to_string(repo.join("a.txt")).unwrap();
        let rescued = env
            .git(
                &repo,
                &[
                    "for-each-ref",
                    "--format=%(refname)",
                    "refs/heads/fleet/rescue",
                ],
            )
            .lines()
            .any(|r| {
                env.git_cmd(&repo, &["show", &format!("{r}:a.txt")])
                    .run()
                    .stdout
                    == "precious edit\n"
            });
        assert!(
            on_disk == "precious edit\n" || rescued,
            "delay {delay_ms}: edit lost"
        );
        assert!(!repo.join(".git/index.lock").exists());
    }
    assert!(killed_while_running >= 1, "no kill hit a running watchdog");
}
