//! Holes found in the guard by a hostile trial (issue 13, points 13 to 15): stashes
//! made in a shared checkout, branches left behind by a refused `checkout -b`, and
//! submodules of the shared checkout. Each test drives real git against a guarded
//! repository and checks the state afterwards.

use std::path::{Path, PathBuf};

use crate::common::{Env, write};

/// A guarded repository with a tracked edit, a staged new file and an untracked file.
fn guarded_with_local_work(env: &Env) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("a.txt", "one\n"),
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
        ],
    );
    env.commit_file(&repo, "b.txt", "two\n", "second");
    env.fleet(&repo, &["init"]).ok();
    write(&repo.join("a.txt"), "one\nlocal edit\n");
    write(&repo.join("staged.txt"), "staged\n");
    env.git(&repo, &["add", "staged.txt"]);
    write(&repo.join("untracked.txt"), "mine\n");
    repo
}

/// `git args` in `dir` fails and the guard says why.
fn refused(env: &Env, dir: &Path, args: &[&str]) -> String {
    let run = env.git_cmd(dir, args).run();
    assert_ne!(run.code, 0, "git {args:?} was not refused");
    assert!(
        run.stderr.contains("fleet guard"),
        "git {args:?} failed without the guard saying why: {}",
        run.stderr
    );
    run.stderr
}

/// Everything a refused command must leave alone: the snapshot (HEAD, branch, index,
/// files, status), the staged diff, and every ref.
fn state(env: &Env, dir: &Path) -> String {
    format!(
        "{}\n--cached--\n{}\n--refs--\n{}",
        env.snapshot(dir),
        env.git(dir, &["diff", "--cached"]),
        env.git(dir, &["for-each-ref", "--format=%(refname) %(objectname)"]),
    )
}

fn has_ref(env: &Env, dir: &Path, name: &str) -> bool {
    env.git_cmd(dir, &["rev-parse", "-q", "--verify", name])
        .run()
        .code
        == 0
}

#[test]
fn git_stash_in_the_shared_checkout_is_refused_and_leaves_every_edit_in_place() {
    let env = Env::new();
    let repo = guarded_with_local_work(&env);
    let before = state(&env, &repo);
    for args in [
        &["stash"][..],
        &["stash", "push", "-u"],
        &["stash", "push", "--include-untracked", "-m", "hide"],
        &["stash", "--all"],
    ] {
        let stderr = refused(&env, &repo, args);
        assert!(stderr.contains("stash"), "{stderr}");
        assert!(
            !has_ref(&env, &repo, "refs/stash"),
            "git {args:?} left a stash"
        );
        assert_eq!(
            state(&env, &repo),
            before,
            "git {args:?} changed the checkout"
        );
    }
    assert_eq!(
        std::fs::read_to_string(repo.join("a.txt")).unwrap(),
        "one\nlocal edit\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("untracked.txt")).unwrap(),
        "mine\n"
    );
    assert!(
        env.git(&repo, &["diff", "--cached", "--name-only"])
            .contains("staged.txt")
    );
}

#[test]
fn an_agent_worktree_stashes_and_pops_its_own_work() {
    let env = Env::new();
    let repo = guarded_with_local_work(&env);
    let agent = env.agent(&repo, "a1");
    write(&agent.join("a.txt"), "agent edit\n");
    env.git(&agent, &["stash"]);
    assert_eq!(
        std::fs::read_to_string(agent.join("a.txt")).unwrap(),
        "one\n"
    );
    env.git(&agent, &["stash", "pop"]);
    assert_eq!(
        std::fs::read_to_string(agent.join("a.txt")).unwrap(),
        "agent edit\n"
    );
    assert!(!has_ref(&env, &repo, "refs/stash"));
}

#[test]
fn a_refused_checkout_b_or_switch_c_leaves_no_branch_behind_outer_or_nested() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(&outer.join("fleet.toml"), "[gate]\ncommands = [\"true\"]\n");
    env.git(&outer, &["add", "fleet.toml"]);
    env.git(&outer, &["commit", "-q", "-m", "fleet"]);
    env.commit_file(&outer, "b.txt", "two\n", "second");
    env.commit_file(&outer.join("cockpit"), "d.txt", "two\n", "second");
    env.fleet(&outer, &["init"]).ok();
    for repo in [outer.clone(), outer.join("cockpit")] {
        write(&repo.join("README"), "local edit\n");
        write(&repo.join("untracked.txt"), "mine\n");
        let before = state(&env, &repo);
        for args in [
            &["checkout", "-b", "x"][..],
            &["checkout", "-q", "-b", "x1", "HEAD~1"],
            &["checkout", "-qb", "x2"],
            &["checkout", "-B", "x3", "HEAD~1"],
            &["switch", "-c", "y"],
            &["switch", "-c", "y1", "HEAD~1"],
            &["switch", "--create", "y2"],
        ] {
            refused(&env, &repo, args);
            assert_eq!(
                state(&env, &repo),
                before,
                "git {args:?} in {} left a trace",
                repo.display()
            );
        }
        for name in ["x", "x1", "x2", "x3", "y", "y1", "y2"] {
            assert!(
                !has_ref(&env, &repo, &format!("refs/heads/{name}")),
                "branch {name} left in {}",
                repo.display()
            );
        }
    }
}

#[test]
fn a_plain_branch_creation_in_the_shared_checkout_passes_and_moves_nothing() {
    let env = Env::new();
    let repo = guarded_with_local_work(&env);
    let before = env.snapshot(&repo);
    env.git(&repo, &["branch", "z"]);
    env.git(&repo, &["branch", "z1", "HEAD~1"]);
    assert!(has_ref(&env, &repo, "refs/heads/z"));
    assert!(has_ref(&env, &repo, "refs/heads/z1"));
    assert_eq!(env.snapshot(&repo), before);
    env.git(&repo, &["branch", "-D", "z1"]);
    assert!(!has_ref(&env, &repo, "refs/heads/z1"));
}
