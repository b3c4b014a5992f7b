//! Issue 13, the watchdog and the shared checkout's follow step under attack: a live
//! git's closed lock, commits on a drifted detached HEAD, states the index hides, and a
//! snapshot racing the guard's put-back.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{Env, write};

const ALLOW: [(&str, &str); 1] = [("FLEET_ALLOW_SHARED", "1")];

/// repo/ (main: README, notes.txt, a gate that passes), guarded, with a ready lane `a`
/// that edits README.
fn guarded_with_lane(env: &Env) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "old line\n"),
            ("notes.txt", "notes\n"),
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
        ],
    );
    let wt = env.agent(&repo, "a");
    env.commit_file(&wt, "README", "new line\n", "edit readme");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    env.fleet(&repo, &["init"]).ok();
    repo
}

fn wait_for(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A `git commit -a` in `repo` whose editor stays open until `release` exists: git
/// holds `index.lock` closed all that time. Returns the running git and the release
/// file, once the editor is open.
fn commit_with_editor_open(env: &Env, repo: &Path) -> (std::process::Child, PathBuf) {
    let dir = env.path().join("editor");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("wait-editor");
    let (open, release) = (dir.join("open"), dir.join("release"));
    write(
        &script,
        &format!(
            "#!/bin/sh\ntouch '{}'\ni=0\nwhile [ ! -e '{}' ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\necho 'held commit' > \"$1\"\n",
            open.display(),
            release.display()
        ),
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let git = env
        .git_cmd(repo, &["commit", "-q", "-a"])
        .envs(&ALLOW)
        .env("GIT_EDITOR", &script)
        .spawn();
    wait_for("the editor to open", || open.exists());
    (git, release)
}

/// Make `path` look an hour old, as a lock a killed process left long ago.
fn age(path: &Path) {
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(old))
        .unwrap();
}

#[test]
fn a_live_git_keeps_its_closed_index_lock_through_the_watchdog_and_a_landing() {
    let env = Env::new();
    let repo = guarded_with_lane(&env);
    let main_before = env.git(&repo, &["rev-parse", "main"]);
    write(
        &repo.join("notes.txt"),
        "notes, committed with the editor open\n",
    );
    let (git, release) = commit_with_editor_open(&env, &repo);
    let lock = repo.join(".git/index.lock");
    assert!(lock.exists(), "git commit -a holds the index lock");
    age(&lock);

    env.fleet(&repo, &["watchdog", "--once", "--restore", "--json"]);
    assert!(
        lock.exists(),
        "the watchdog removed a live git's index.lock"
    );

    // A killed landing's journal: the next landing's recovery clears the lock files a
    // killed git left, at any age, and must still leave this one.
    let lane_tip = env.git(&repo, &["rev-parse", "fleet/a"]);
    write(
        &repo.join(".git/fleet/land-journal"),
        &format!("{main_before} {lane_tip}\n"),
    );
    let landing = env.fleet(&repo, &["land", "a", "--yes"]);
    assert_eq!(landing.code, 1, "{}", landing.stderr);
    assert!(!repo.join(".git/fleet/land-journal").exists());
    assert!(lock.exists(), "the landing removed a live git's index.lock");
    assert_eq!(
        env.git(&repo, &["rev-parse", "main"]),
        main_before,
        "the target moved while the shared checkout could not follow: {}",
        landing.stderr
    );
    assert!(
        landing.stderr.contains("is held by a running git"),
        "{}",
        landing.stderr
    );

    write(&release, "");
    let commit = Env::wait(git);
    assert_eq!(commit.code, 0, "the held commit failed: {}", commit.stderr);
    assert!(!lock.exists());
    assert_eq!(
        env.git(&repo, &["log", "-1", "--format=%s", "main"]),
        "held commit"
    );
    assert_eq!(
        env.git(&repo, &["show", "main:notes.txt"]),
        "notes, committed with the editor open"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");

    // With the commit done, the lane lands and the shared checkout follows.
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert_eq!(env.git(&repo, &["show", "main:README"]), "new line");
    assert_eq!(
        std::fs::read_to_string(repo.join("README")).unwrap(),
        "new line\n"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
}

#[test]
fn an_index_lock_whose_git_died_is_still_cleared() {
    let env = Env::new();
    let repo = guarded_with_lane(&env);
    write(&repo.join("notes.txt"), "edited\n");
    let (mut git, release) = commit_with_editor_open(&env, &repo);
    let lock = repo.join(".git/index.lock");
    git.kill().unwrap();
    git.wait().unwrap();
    assert!(lock.exists(), "the killed git left its lock");
    age(&lock);
    env.fleet(&repo, &["watchdog", "--once", "--json"]);
    write(&release, "");
    assert!(!lock.exists(), "a dead git's lock was kept");
    // And a landing is not held up by it either.
    write(&repo.join("notes.txt"), "notes\n");
    let lock_again = repo.join(".git/index.lock");
    write(&lock_again, "");
    age(&lock_again);
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert!(!lock_again.exists());
    assert_eq!(
        std::fs::read_to_string(repo.join("README")).unwrap(),
        "new line\n"
    );
}

/// repo/ (main: a.txt, fleet.toml), guarded.
fn guarded(env: &Env) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("a.txt", "one\n"), ("fleet.toml", "")]);
    env.fleet(&repo, &["init"]).ok();
    repo
}

/// Detach `repo`'s HEAD past the guard and commit `n` files on it; the new HEAD.
fn commit_on_a_detached_head(env: &Env, repo: &Path, tag: &str, n: usize) -> String {
    env.git_cmd(repo, &["switch", "-q", "--detach"])
        .envs(&ALLOW)
        .run()
        .ok();
    for i in 0..n {
        write(&repo.join(format!("{tag}-{i}.txt")), "work\n");
        env.git_cmd(repo, &["add", "-A"]).run().ok();
        env.git_cmd(repo, &["commit", "-q", "-m", &format!("{tag} {i}")])
            .envs(&ALLOW)
            .run()
            .ok();
    }
    env.git(repo, &["rev-parse", "HEAD"])
}

fn branches_containing(env: &Env, repo: &Path, commit: &str) -> Vec<String> {
    env.git(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "--contains",
            commit,
            "refs/heads",
        ],
    )
    .lines()
    .map(String::from)
    .collect()
}

/// A first watchdog check sees the drift, a second one past its one-second grace
/// restores it; the second run.
fn restore_after_grace(env: &Env, repo: &Path, extra: &[&str]) -> crate::common::Run {
    env.fleet(repo, &["watchdog", "--once", "--json"]);
    std::thread::sleep(Duration::from_millis(2100));
    let mut args = vec!["watchdog", "--once", "--restore", "--grace", "1s"];
    args.extend_from_slice(extra);
    env.fleet(repo, &args).ok()
}

#[test]
fn watchdog_restore_keeps_commits_made_on_a_drifted_detached_head_on_a_rescue_branch() {
    let env = Env::new();
    let repo = guarded(&env);
    let main = env.git(&repo, &["rev-parse", "main"]);

    // A clean drift with two commits found on no branch: --json names the branch.
    let drifted = commit_on_a_detached_head(&env, &repo, "lost", 2);
    let run = restore_after_grace(&env, &repo, &["--json"]);
    let found: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(found["verdict"], "restored", "{found}");
    assert_eq!(env.git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    let kept = found["commits_branch"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(kept.starts_with("fleet/rescue"), "{found}");
    assert_eq!(env.git(&repo, &["rev-parse", &kept]), drifted);
    assert_eq!(
        found["rescued_commits"].as_array().map(Vec::len),
        Some(2),
        "{found}"
    );
    assert!(found["detail"].as_str().unwrap().contains(&kept), "{found}");
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");

    // A dirty drift with a commit: the text report names the commit and the branch
    // that keeps it (the rescue of the uncommitted changes sits on it).
    let drifted = commit_on_a_detached_head(&env, &repo, "again", 1);
    write(&repo.join("a.txt"), "one\nuncommitted\n");
    let run = restore_after_grace(&env, &repo, &[]);
    let holders = branches_containing(&env, &repo, &drifted);
    assert!(
        holders.iter().any(|b| b.starts_with("fleet/rescue")),
        "the drifted commit is on no branch: {holders:?}"
    );
    assert!(run.stdout.contains(&drifted[..8]), "{}", run.stdout);
    assert!(
        holders.iter().any(|b| run.stdout.contains(b.as_str())),
        "{}",
        run.stdout
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("a.txt")).unwrap(),
        "one\nuncommitted\n"
    );
}

/// `fleet land a` is refused for `says`, and neither the target nor anything of the
/// shared checkout (HEAD, branch, index, status, files, `extra` state) changed.
fn land_refused_with_checkout_as_it_was(env: &Env, repo: &Path, says: &str, extra: &[&str]) {
    let main = env.git(repo, &["rev-parse", "main"]);
    let before = env.snapshot(repo);
    let flags = env.git(repo, &["ls-files", "-v", "-s"]);
    let staged = env.git(repo, &["diff", "--cached"]);
    let state: Vec<bool> = extra
        .iter()
        .map(|f| repo.join(".git").join(f).exists())
        .collect();
    let run = env.fleet(repo, &["land", "a", "--yes"]);
    assert_eq!(
        run.code, 1,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains(says) || run.stdout.contains(says),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(
        env.git(repo, &["rev-parse", "main"]),
        main,
        "the target moved"
    );
    assert_eq!(env.snapshot(repo), before, "the shared checkout changed");
    assert_eq!(env.git(repo, &["ls-files", "-v", "-s"]), flags);
    let after: Vec<bool> = extra
        .iter()
        .map(|f| repo.join(".git").join(f).exists())
        .collect();
    assert_eq!(after, state);
    assert_eq!(
        env.git(repo, &["diff", "--cached"]),
        staged,
        "staged changes left"
    );
}

#[test]
fn land_never_moves_the_target_over_edits_the_shared_checkouts_index_hides() {
    let env = Env::new();
    let repo = guarded_with_lane(&env);
    for flag in ["--skip-worktree", "--assume-unchanged"] {
        env.git(&repo, &["update-index", flag, "README"]);
        write(&repo.join("README"), "my hidden edit\n");
        land_refused_with_checkout_as_it_was(&env, &repo, "README", &[]);
        assert_eq!(
            std::fs::read_to_string(repo.join("README")).unwrap(),
            "my hidden edit\n"
        );
        env.git(
            &repo,
            &["update-index", &flag.replace("--", "--no-"), "README"],
        );
        env.git_cmd(&repo, &["checkout", "--", "README"])
            .envs(&ALLOW)
            .run()
            .ok();
    }
    // A hidden edit where the lane changes nothing is no reason to refuse: it stays.
    env.git(&repo, &["update-index", "--skip-worktree", "notes.txt"]);
    write(&repo.join("notes.txt"), "my hidden notes\n");
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert_eq!(env.git(&repo, &["show", "main:README"]), "new line");
    assert_eq!(
        std::fs::read_to_string(repo.join("README")).unwrap(),
        "new line\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "my hidden notes\n"
    );
    assert_eq!(env.git(&repo, &["diff", "--cached", "--name-only"]), "");
}

#[test]
fn land_never_moves_the_target_under_a_conflicted_merge_in_the_shared_checkout() {
    let env = Env::new();
    let repo = guarded_with_lane(&env);
    let b = env.agent(&repo, "b");
    env.commit_file(&b, "notes.txt", "b's notes\n", "b edits notes");
    write(&repo.join("notes.txt"), "main's notes\n");
    env.git_cmd(&repo, &["commit", "-q", "-a", "-m", "main edits notes"])
        .envs(&ALLOW)
        .run()
        .ok();
    let merge = env
        .git_cmd(&repo, &["merge", "-q", "fleet/b"])
        .envs(&ALLOW)
        .run();
    assert_ne!(merge.code, 0, "the merge was meant to conflict");
    assert!(repo.join(".git/MERGE_HEAD").exists());
    land_refused_with_checkout_as_it_was(&env, &repo, "merge", &["MERGE_HEAD"]);
    assert!(
        env.git(&repo, &["ls-files", "-u"]).contains("notes.txt"),
        "the conflict is still there to resolve"
    );
    // Once the merge is finished, the lane lands.
    write(&repo.join("notes.txt"), "both notes\n");
    env.git(&repo, &["add", "notes.txt"]);
    env.git_cmd(&repo, &["commit", "-q", "--no-edit"])
        .envs(&ALLOW)
        .run()
        .ok();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert_eq!(
        std::fs::read_to_string(repo.join("README")).unwrap(),
        "new line\n"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
}

/// The file fleet's own lock `name` lives in, in `repo`'s common dir.
fn fleet_lock(repo: &Path, name: &str) -> PathBuf {
    repo.join(".git/fleet").join(format!("{name}.lock"))
}

/// Hold fleet's lock `name` of `repo` as another fleet process would.
fn hold_lock(repo: &Path, name: &str) -> std::fs::File {
    let path = fleet_lock(repo, name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap();
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive).unwrap();
    file
}

/// A process other than this one that has `path` open.
fn someone_has_open(path: &Path) -> bool {
    let me = std::process::id() as i32;
    crate::common::procs::all_pids()
        .into_iter()
        .filter(|&pid| pid != me)
        .any(|pid| {
            std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
                fds.flatten()
                    .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t == path))
            })
        })
}

/// Wait until `child` has `path` open (it waits for the lock in it) or has exited;
/// whether it is still running.
fn waits_on(child: &mut std::process::Child, path: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if someone_has_open(path) {
            return true;
        }
        assert!(Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_watchdog_snapshot_never_captures_the_guards_put_back_window() {
    let env = Env::new();
    let repo = guarded(&env);
    write(&repo.join("a.txt"), "one\na real edit\n");
    // Mid put-back, as the guard holds it: a refused switch's git removed fleet.toml,
    // and the guard has not written it back yet.
    let lock = hold_lock(&repo, "shared-files");
    std::fs::remove_file(repo.join("fleet.toml")).unwrap();
    let mut watchdog = env
        .fleet_cmd(&repo, &["watchdog", "--once", "--json"])
        .spawn();
    let waited = waits_on(&mut watchdog, &fleet_lock(&repo, "shared-files"));
    let snapshots = env.git(&repo, &["for-each-ref", "refs/fleet/snapshots"]);
    assert!(
        waited && snapshots.is_empty(),
        "the watchdog snapshotted the put-back window: {snapshots}"
    );
    write(&repo.join("fleet.toml"), "");
    drop(lock);
    let run = Env::wait(watchdog).ok();
    let found: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    let snapshot = found["snapshot"].as_str().unwrap();
    assert_eq!(
        env.git(&repo, &["ls-tree", "--name-only", snapshot]),
        "a.txt\nfleet.toml"
    );
    assert_eq!(
        env.git(&repo, &["show", &format!("{snapshot}:a.txt")]),
        "one\na real edit"
    );
}

#[test]
fn the_guard_puts_a_refused_switchs_files_back_holding_the_lock_snapshots_wait_for() {
    let env = Env::new();
    let repo = guarded(&env);
    let scratch = env.agent(&repo, "scratch");
    env.git(&scratch, &["rm", "-q", "fleet.toml"]);
    env.git(&scratch, &["commit", "-q", "-m", "drop fleet.toml"]);
    env.git(&scratch, &["branch", "other"]);
    let before = env.snapshot(&repo);
    let lock = hold_lock(&repo, "shared-files");
    let mut switch = env.git_cmd(&repo, &["switch", "-q", "other"]).spawn();
    assert!(
        waits_on(&mut switch, &fleet_lock(&repo, "shared-files")),
        "the guard put the files back without taking the lock"
    );
    // git rewrote the files; the guard waits to put them back.
    assert!(!repo.join("fleet.toml").exists());
    drop(lock);
    let run = Env::wait(switch);
    assert_ne!(run.code, 0, "the switch was not refused");
    assert_eq!(env.snapshot(&repo), before);
}
