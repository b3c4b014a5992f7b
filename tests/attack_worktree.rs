//! Holes found under attack in agent worktrees (issue 13): each test tries to make a
//! fleet command lose work, and checks the repository afterwards.

use std::path::Path;

use crate::common::{Env, write};

/// `worktree rm --force` discards uncommitted files only: a worktree an agent made by
/// hand inside its own (`git worktree add --detach inner`), of this repository or of
/// another, whose detached HEAD holds commits no ref has, keeps the whole agent
/// worktree. Its git dir being elsewhere does not make its commits safe: once the
/// folder goes, `git worktree prune` drops the HEAD that was their only name.
#[test]
fn worktree_rm_force_keeps_commits_only_a_hand_made_inner_worktree_has() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "inner"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    // Of the project itself, and of the nested repository: both keep their git dirs
    // in the shared checkouts' common dirs.
    for (repo, folder) in [(wt.clone(), "scratch"), (wt.join("cockpit"), "side")] {
        env.git(&repo, &["worktree", "add", "-q", "--detach", folder]);
        let inner = repo.join(folder);
        let only_here =
            env.commit_file(&inner, "only.txt", "only here\n", "work on a detached HEAD");
        let run = env.refused(
            &outer,
            &["worktree", "rm", "inner", "--force"],
            "commits that exist only there",
        );
        assert!(run.stderr.contains(folder), "{}", run.stderr);
        assert!(
            inner.join("only.txt").exists(),
            "the inner worktree is gone"
        );
        assert_eq!(env.git(&inner, &["rev-parse", "HEAD"]), only_here);
        assert!(wt.join(".git").exists(), "the agent worktree is gone");
        // Named by a branch, the commits are safe: --force goes ahead.
        env.git(&inner, &["branch", &format!("keep-{folder}")]);
    }
    env.fleet(&outer, &["worktree", "rm", "inner", "--force"])
        .ok();
    assert!(!wt.exists());
    for (repo, branch) in [
        (outer.clone(), "keep-scratch"),
        (outer.join("cockpit"), "keep-side"),
    ] {
        env.git(&repo, &["worktree", "prune"]);
        let tip = env.git(&repo, &["rev-parse", branch]);
        assert_eq!(
            env.git(&repo, &["show", &format!("{tip}:only.txt")]),
            "only here"
        );
    }
}

/// A hand-made inner worktree on a branch, or detached at a commit a ref already has,
/// loses nothing but files: `--force` removes it with the agent worktree, and the record
/// git kept for it is gone too (no worktree of the shared checkout points into the void).
#[test]
fn worktree_rm_force_removes_an_inner_worktree_whose_commits_are_safe() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "safe"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    env.git(&wt, &["worktree", "add", "-q", "--detach", "probe"]);
    write(&wt.join("probe/untracked.txt"), "scratch");
    env.refused(&outer, &["worktree", "rm", "safe"], "probe");
    env.fleet(&outer, &["worktree", "rm", "safe", "--force"])
        .ok();
    assert!(!wt.exists());
    let list = env.git(&outer, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains("probe"), "{list}");
}

/// `worktree new` without `fleet init` works, and says that nothing guards the shared
/// checkout; after `init` it says nothing of the kind.
#[test]
fn worktree_new_without_the_guard_says_the_shared_checkout_is_unprotected() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let run = env.fleet(&repo, &["worktree", "new", "early"]).ok();
    assert!(
        run.stderr.contains("no guard hooks are installed"),
        "{}",
        run.stderr
    );
    assert!(Path::new(run.stdout.trim()).join(".git").exists());
    env.fleet(&repo, &["init"]).ok();
    let run = env.fleet(&repo, &["worktree", "new", "later"]).ok();
    assert!(!run.stderr.contains("no guard hooks"), "{}", run.stderr);
}

/// Only commits land: `fleet ready` refuses a lane whose worktree (or a nested
/// repository's worktree in it) holds uncommitted or untracked files, naming them, and
/// `--allow-dirty` marks it ready with a warning.
#[test]
fn ready_refuses_a_lane_whose_worktree_holds_work_that_would_not_land() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "half"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    env.commit_file(&wt, "done.txt", "done\n", "the committed half");
    write(&wt.join("cockpit/forgotten.txt"), "never committed");
    let run = env.refused(&wt, &["ready"], "would not land");
    assert!(run.stderr.contains("forgotten.txt"), "{}", run.stderr);
    assert!(run.stderr.contains("--allow-dirty"), "{}", run.stderr);
    let lanes = env.fleet(&outer, &["status", "--json"]).ok().stdout;
    assert!(!lanes.contains("\"ready\""), "{lanes}");
    env.fleet(&outer, &["track", "half"]).ok();
    let run = env.fleet(&outer, &["ready", "half", "--allow-dirty"]).ok();
    assert!(run.stderr.contains("forgotten.txt"), "{}", run.stderr);
    let lanes = env.fleet(&outer, &["status", "--json"]).ok().stdout;
    assert!(lanes.contains("\"ready\""), "{lanes}");
}
