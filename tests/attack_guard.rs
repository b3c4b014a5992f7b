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
        let stderr = env.guard_refuses(&repo, args);
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
fn an_agent_worktree_stashes_and_pops_its_own_work_and_the_shared_checkout_cannot_clear_it() {
    let env = Env::new();
    let repo = guarded_with_local_work(&env);
    let agent = env.agent(&repo, "a1");
    write(&agent.join("b.txt"), "first stash\n");
    env.git(&agent, &["stash"]);
    write(&agent.join("a.txt"), "agent edit\n");
    env.git(&agent, &["stash"]);
    let stashes = env.git(&agent, &["stash", "list", "--format=%H"]);
    assert_eq!(stashes.lines().count(), 2);
    let before = state(&env, &repo);
    env.guard_refuses(&repo, &["stash", "clear"]);
    env.guard_refuses(&repo, &["stash", "push", "-u"]);
    assert_eq!(env.git(&agent, &["stash", "list", "--format=%H"]), stashes);
    assert_eq!(state(&env, &repo), before);
    assert_eq!(
        std::fs::read_to_string(agent.join("a.txt")).unwrap(),
        "one\n"
    );
    env.git(&agent, &["stash", "pop"]);
    assert_eq!(
        std::fs::read_to_string(agent.join("a.txt")).unwrap(),
        "agent edit\n"
    );
    env.git(&agent, &["stash", "pop"]);
    assert_eq!(
        std::fs::read_to_string(agent.join("b.txt")).unwrap(),
        "first stash\n"
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
            env.guard_refuses(&repo, args);
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

/// outer/ guarded, with a submodule at vendor/lib whose origin has a second commit
/// the submodule has fetched (so there is somewhere to switch to).
fn guarded_with_submodule(env: &Env) -> PathBuf {
    let outer = env.outer_with_submodule();
    env.commit_file(
        &outer,
        "fleet.toml",
        "[gate]\ncommands = [\"true\"]\n",
        "fleet",
    );
    env.commit_file(&env.path().join("lib-origin"), "more.txt", "more\n", "more");
    env.git(&outer.join("vendor/lib"), &["fetch", "-q", "origin"]);
    env.fleet(&outer, &["init"]).ok();
    outer
}

/// Commits, switches and branch switches in the submodule checkout `sub` are refused
/// and leave it, and the outer checkout `outer`, as they were.
fn assert_submodule_guarded(env: &Env, outer: &Path, sub: &Path) {
    let before = state(env, sub);
    let outer_before = env.git(outer, &["status", "--porcelain"]);
    for args in [
        &["commit", "-q", "--allow-empty", "-m", "sneak"][..],
        &[
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            "sneak",
        ],
        &["checkout", "-q", "--detach", "origin/main"],
        &["switch", "-q", "--detach", "HEAD"],
        &["switch", "-q", "-c", "y", "origin/main"],
        &["reset", "-q", "--soft", "origin/main"],
    ] {
        env.guard_refuses(sub, args);
        assert_eq!(
            state(env, sub),
            before,
            "git {args:?} changed the submodule {}",
            sub.display()
        );
        assert_eq!(
            env.git(outer, &["status", "--porcelain"]),
            outer_before,
            "git {args:?} in {} shows in the outer checkout",
            sub.display()
        );
    }
}

#[test]
fn a_submodule_of_the_shared_checkout_is_guarded_like_the_checkout_itself() {
    let env = Env::new();
    let outer = guarded_with_submodule(&env);
    let sub = outer.join("vendor/lib");
    assert_eq!(env.git(&outer, &["status", "--porcelain"]), "");
    assert_submodule_guarded(&env, &outer, &sub);
    assert_eq!(env.git(&outer, &["status", "--porcelain"]), "");

    // An agent's own copy of the submodule is its own: it commits freely.
    let agent = env.agent(&outer, "a1");
    let agent_sub = agent.join("vendor/lib");
    env.git(
        &agent_sub,
        &["commit", "-q", "--allow-empty", "-m", "agent work"],
    );
    assert_eq!(
        env.git(&agent_sub, &["log", "-1", "--format=%s"]),
        "agent work"
    );
    env.git(&agent_sub, &["switch", "-q", "--detach", "origin/main"]);
    assert_eq!(env.git(&outer, &["status", "--porcelain"]), "");

    // uninstall takes the submodule's hooks out too.
    env.fleet(&outer, &["hooks", "uninstall"]).ok();
    assert_no_guard_left(&outer.join(".git/modules/vendor/lib"));
    env.git(&sub, &["commit", "-q", "--allow-empty", "-m", "free again"]);
}

/// No fleet hook and no guard-refs in the submodule git dir `git_dir`.
fn assert_no_guard_left(git_dir: &Path) {
    for hook in ["pre-commit", "reference-transaction"] {
        let path = git_dir.join("hooks").join(hook);
        assert!(!path.exists(), "{} left", path.display());
    }
    let refs = git_dir.join("fleet/guard-refs");
    assert!(!refs.exists(), "{} left", refs.display());
}

#[test]
fn a_submodule_added_after_init_is_guarded_by_the_next_fleet_command() {
    let env = Env::new();
    let outer = guarded_with_submodule(&env);
    let lib2 = env.path().join("lib2-origin");
    env.repo(&lib2, "main", &[("two.txt", "two\n")]);
    let url = lib2.to_str().unwrap().to_string();
    env.git(
        &outer,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            &url,
            "vendor/lib2",
        ],
    );
    env.git_cmd(&outer, &["commit", "-q", "-m", "add lib2"])
        .env("FLEET_ALLOW_SHARED", "1")
        .run()
        .ok();
    env.commit_file(&lib2, "more.txt", "more\n", "more");
    let sub = outer.join("vendor/lib2");
    env.git(&sub, &["fetch", "-q", "origin"]);
    env.fleet(&outer, &["status"]).ok();
    assert_submodule_guarded(&env, &outer, &sub);
    let status = env.fleet(&outer, &["hooks", "status", "--json"]).ok();
    assert!(status.stdout.contains("vendor/lib2"), "{}", status.stdout);

    // A submodule whose checkout is gone keeps its git dir: uninstall still finds it.
    env.git(&outer, &["submodule", "deinit", "-q", "-f", "vendor/lib2"]);
    env.fleet(&outer, &["hooks", "uninstall"]).ok();
    assert_no_guard_left(&outer.join(".git/modules/vendor/lib2"));
    assert_no_guard_left(&outer.join(".git/modules/vendor/lib"));
}

#[test]
fn git_stash_in_a_nested_shared_checkout_is_refused_too() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.commit_file(
        &outer,
        "fleet.toml",
        "[gate]\ncommands = [\"true\"]\n",
        "fleet",
    );
    env.fleet(&outer, &["init"]).ok();
    let cockpit = outer.join("cockpit");
    write(&cockpit.join("c.txt"), "local edit\n");
    write(&cockpit.join("new.txt"), "untracked\n");
    let before = state(&env, &cockpit);
    env.guard_refuses(&cockpit, &["stash", "push", "-u"]);
    assert!(!has_ref(&env, &cockpit, "refs/stash"));
    assert_eq!(state(&env, &cockpit), before);
}
