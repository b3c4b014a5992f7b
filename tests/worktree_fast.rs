//! `fleet worktree new` made cheaper: a kill while a worktree is added leaves nothing git
//! chokes on, and the cost of a new worktree does not grow with the agents already there.

use std::path::{Path, PathBuf};

use crate::common::{Env, counting_git, write};

const NULL_HEAD: &str = "HEAD 0000000000000000000000000000000000000000";

/// What a kill left must not break git or fleet: no worktree listed with the null id as
/// HEAD, `git fetch` works, `fleet doctor` runs, and `worktree new` of the same name
/// then makes the worktree whole.
fn assert_converges(env: &Env, repo: &Path, name: &str) {
    let list = env.git(repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains(NULL_HEAD), "{list}");
    // A worktree record whose HEAD is the null id makes every fetch fail.
    env.git(repo, &["fetch", "-q", ".", "main:refs/remotes/probe/main"]);
    let doctor = env.fleet(repo, &["doctor"]);
    assert!(
        doctor.code == 0 || doctor.code == 1,
        "doctor: {} {}",
        doctor.stdout,
        doctor.stderr
    );
    let wt = PathBuf::from(
        env.fleet(repo, &["worktree", "new", name])
            .ok()
            .stdout
            .trim(),
    );
    assert_eq!(
        env.git(&wt, &["symbolic-ref", "--short", "HEAD"]),
        format!("fleet/{name}")
    );
    assert_eq!(
        env.git(&wt, &["rev-parse", "HEAD"]),
        env.git(repo, &["rev-parse", "main"])
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("shared.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(env.git(&wt, &["status", "--porcelain"]), "");
    let list = env.git(repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 2, "{list}");
    assert!(!list.contains("locked"), "{list}");
    assert!(!list.contains(NULL_HEAD), "{list}");
}

#[test]
fn worktree_new_killed_inside_add_worktree_leaves_no_null_head_and_converges() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let run = env
        .fleet_cmd(&repo, &["worktree", "new", "k"])
        .envs(&[("FLEET_FAILPOINT", "worktree-add-registered:abort")])
        .run();
    assert_ne!(
        run.code, 0,
        "the kill point was not reached: {}",
        run.stderr
    );
    let wt = env.path().join(".fleet-work/repo/k");
    assert!(
        wt.join(".git").is_file() && !wt.join("shared.txt").exists(),
        "the kill should have hit between the record and the checkout"
    );
    // Registered with its branch, locked as unfinished: never the null id.
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(list.contains("branch refs/heads/fleet/k"), "{list}");
    assert!(list.contains("locked initializing"), "{list}");
    assert_converges(&env, &repo, "k");
}

#[test]
fn worktree_new_redoes_a_record_a_killed_gix_add_left_without_its_head() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.git(&repo, &["branch", "fleet/g"]);
    // What gix's add leaves when killed before it writes the new record's HEAD (fleet
    // before this change): `git worktree list` shows the null id for it.
    let wt = env.path().join(".fleet-work/repo/g");
    let record = repo.join(".git/worktrees/g");
    std::fs::create_dir_all(&wt).unwrap();
    std::fs::create_dir_all(&record).unwrap();
    write(&record.join("locked"), "initializing\n");
    write(
        &record.join("gitdir"),
        &format!("{}\n", wt.join(".git").display()),
    );
    write(&record.join("commondir"), "../..\n");
    write(&wt.join(".git"), &format!("gitdir: {}\n", record.display()));
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(list.contains(NULL_HEAD), "{list}");
    env.fleet(&repo, &["worktree", "new", "g"]).ok();
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains(NULL_HEAD), "{list}");
    std::fs::remove_dir_all(&wt).unwrap();
    env.git(&repo, &["worktree", "prune"]);
    env.git(&repo, &["branch", "-D", "fleet/g"]);
    assert_converges(&env, &repo, "g");
}

/// The git processes one `fleet worktree new NAME` runs, with the counting git first on
/// PATH.
fn git_calls(env: &Env, repo: &Path, name: &str, bin: &Path, log: &Path) -> Vec<String> {
    let _ = std::fs::remove_file(log);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    env.fleet_cmd(repo, &["worktree", "new", name])
        .env("PATH", path)
        .run()
        .ok();
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn worktree_new_runs_as_many_git_processes_with_eight_agents_as_with_one() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["init"]).ok();
    let (bin, log) = counting_git(&env);
    env.agent(&repo, "first");
    let with_one = git_calls(&env, &repo, "second", &bin, &log);
    for i in 0..6 {
        env.agent(&repo, &format!("more{i}"));
    }
    let with_eight = git_calls(&env, &repo, "ninth", &bin, &log);
    assert_eq!(
        with_one.len(),
        with_eight.len(),
        "with one agent:\n{}\nwith eight:\n{}",
        with_one.join("\n"),
        with_eight.join("\n")
    );
    // And the worktree is whole.
    let wt = env.path().join(".fleet-work/repo/ninth");
    assert!(wt.join("shared.txt").is_file());
    assert_eq!(
        env.git(&wt, &["symbolic-ref", "--short", "HEAD"]),
        "fleet/ninth"
    );
}

#[test]
fn worktree_new_still_says_when_the_shared_checkout_is_unguarded_with_many_agents() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    for i in 0..3 {
        let run = env
            .fleet(&repo, &["worktree", "new", &format!("a{i}")])
            .ok();
        assert!(
            run.stderr.contains("no guard hooks are installed in ."),
            "{}",
            run.stderr
        );
    }
    env.fleet(&repo, &["init"]).ok();
    let run = env.fleet(&repo, &["worktree", "new", "b"]).ok();
    assert!(!run.stderr.contains("no guard hooks"), "{}", run.stderr);
    // A hook that lost its run bit is said again.
    let hook = repo.join(".git/hooks/pre-commit");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = env.fleet(&repo, &["worktree", "new", "c"]).ok();
    assert!(
        run.stderr.contains("no guard hooks are installed in ."),
        "{}",
        run.stderr
    );
}
