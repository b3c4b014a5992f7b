//! `fleet worktree`: real repositories, real nested repositories, state asserted afterwards.

use std::path::Path;

use crate::common::{Env, write, write_stale};

#[test]
fn new_gives_each_agent_isolated_outer_and_nested_worktrees() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let cockpit = outer.join("cockpit");
    let engine = cockpit.join("engine");
    let before = [
        env.snapshot(&outer),
        env.snapshot(&cockpit),
        env.snapshot(&engine),
    ];

    let a = env.fleet(&outer, &["worktree", "new", "a"]).ok();
    let b = env.fleet(&outer, &["worktree", "new", "b"]).ok();
    let a = Path::new(a.stdout.trim()).to_path_buf();
    let b = Path::new(b.stdout.trim()).to_path_buf();
    assert_eq!(a, env.path().join(".fleet-work/outer/a"));
    assert_eq!(b, env.path().join(".fleet-work/outer/b"));

    for (wt, name) in [(&a, "a"), (&b, "b")] {
        let branch = format!("fleet/{name}");
        assert_eq!(env.git(wt, &["symbolic-ref", "--short", "HEAD"]), branch);
        assert_eq!(
            env.git(&wt.join("cockpit"), &["symbolic-ref", "--short", "HEAD"]),
            branch
        );
        assert_eq!(
            env.git(
                &wt.join("cockpit/engine"),
                &["symbolic-ref", "--short", "HEAD"]
            ),
            branch
        );
        // Nested worktrees are linked worktrees of the nested repos, not copies.
        assert_eq!(
            env.git(&wt.join("cockpit"), &["rev-parse", "--git-common-dir"]),
            cockpit.join(".git").display().to_string()
        );
        // Each starts from its own repository's current branch.
        assert_eq!(
            env.git(&wt.join("cockpit/engine"), &["rev-parse", "HEAD"]),
            env.git(&engine, &["rev-parse", "dev"])
        );
        assert_eq!(env.git(wt, &["status", "--porcelain"]), "");
        env.commit_file(wt, &format!("{name}.txt"), name, "outer work");
        env.commit_file(
            &wt.join("cockpit"),
            &format!("{name}.txt"),
            name,
            "nested work",
        );
        env.commit_file(
            &wt.join("cockpit/engine"),
            &format!("{name}.txt"),
            name,
            "nested-nested work",
        );
    }
    let after = [
        env.snapshot(&outer),
        env.snapshot(&cockpit),
        env.snapshot(&engine),
    ];
    assert_eq!(before, after, "a shared checkout changed");
    assert!(!a.join("b.txt").exists() && !b.join("cockpit/a.txt").exists());
}

#[test]
fn new_prints_only_the_path_on_stdout() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env.fleet(&outer, &["worktree", "new", "x"]).ok();
    assert_eq!(
        run.stdout,
        format!("{}\n", env.path().join(".fleet-work/outer/x").display())
    );
    assert!(
        run.stderr.contains("creating agent worktree x"),
        "{}",
        run.stderr
    );
}

#[test]
fn new_twice_succeeds_with_the_same_path_and_changes_nothing() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let first = env.fleet(&outer, &["worktree", "new", "x"]).ok();
    let wt = Path::new(first.stdout.trim()).to_path_buf();
    env.commit_file(&wt, "w.txt", "work", "work");
    let tip = env.git(&wt, &["rev-parse", "HEAD"]);
    let second = env.fleet(&outer, &["worktree", "new", "x"]).ok();
    assert_eq!(first.stdout, second.stdout);
    assert_eq!(env.git(&wt, &["rev-parse", "HEAD"]), tip);
    // Also from inside the agent worktree itself.
    let third = env.fleet(&wt, &["worktree", "new", "x"]).ok();
    assert_eq!(first.stdout, third.stdout);
    // A --base now changes nothing, and says so.
    let fourth = env
        .fleet(&outer, &["worktree", "new", "x", "--base", "main~0"])
        .ok();
    assert!(
        fourth.stderr.contains("--base main~0 is ignored"),
        "{}",
        fourth.stderr
    );
    assert_eq!(env.git(&wt, &["rev-parse", "HEAD"]), tip);
}

#[test]
fn new_refuses_inconsistent_leftovers_and_changes_nothing() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    // The agent branch checked out somewhere else.
    let other = env.path().join("elsewhere");
    env.git(
        &outer,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "fleet/taken",
            other.to_str().unwrap(),
        ],
    );
    env.refused(
        &outer,
        &["worktree", "new", "taken"],
        "branch fleet/taken is checked out at",
    );
    assert!(!env.path().join(".fleet-work/outer/taken").exists());
    assert!(
        !env.branches(&outer.join("cockpit"))
            .contains(&"refs/heads/fleet/taken".to_string())
    );

    // A folder in the way.
    write(&env.path().join(".fleet-work/outer/busy/file"), "mine");
    env.refused(
        &outer,
        &["worktree", "new", "busy"],
        "already exists and is not an agent worktree",
    );
    assert_eq!(
        std::fs::read_to_string(env.path().join(".fleet-work/outer/busy/file")).unwrap(),
        "mine"
    );
    assert!(
        !env.branches(&outer)
            .contains(&"refs/heads/fleet/busy".to_string())
    );

    // A worktree at the right place on the wrong branch.
    let wt = env.path().join(".fleet-work/outer/wrong");
    env.git(
        &outer,
        &["worktree", "add", "-q", "-b", "other", wt.to_str().unwrap()],
    );
    env.refused(
        &outer,
        &["worktree", "new", "wrong"],
        "on other instead of fleet/wrong",
    );
    assert!(
        !env.branches(&outer.join("cockpit"))
            .contains(&"refs/heads/fleet/wrong".to_string())
    );
}

#[test]
fn new_refuses_names_that_could_escape_the_root() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let branches = env.branches(&outer);
    for name in [
        "..", "../x", "a/b", "/abs", "a\tb", "a\nb", "-x", "", "a..b", "x.lock", "a b", "a:b", ".",
    ] {
        let run = env.fleet(&outer, &["worktree", "new", "--", name]).code(2);
        assert!(
            run.stderr.contains("invalid agent name"),
            "{name:?}: {}",
            run.stderr
        );
    }
    assert_eq!(env.branches(&outer), branches);
    assert!(!env.path().join(".fleet-work").exists());
    assert!(!env.path().join("x").exists());
}

#[test]
fn new_refuses_a_missing_target_branch() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(&outer.join("fleet.toml"), "[lanes]\ntarget = \"trunk\"\n");
    let run = env.fleet(&outer, &["worktree", "new", "x"]).code(2);
    assert!(
        run.stderr.contains("target branch `trunk` does not exist"),
        "{}",
        run.stderr
    );
    assert!(!env.path().join(".fleet-work").exists());
    assert_eq!(env.branches(&outer), vec!["refs/heads/main".to_string()]);
}

#[test]
fn new_refuses_a_base_too_far_behind_unless_forced() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(&outer.join("fleet.toml"), "[worktrees]\nmax_behind = 2\n");
    let old = env.git(&outer, &["rev-parse", "HEAD"]);
    for i in 0..3 {
        env.commit_file(&outer, "n.txt", &i.to_string(), "move on");
    }
    env.refused(
        &outer,
        &["worktree", "new", "old", "--base", &old],
        "3 commits behind `main` (max_behind is 2)",
    );
    assert!(!env.branches(&outer).iter().any(|b| b.contains("old")));
    let run = env
        .fleet(
            &outer,
            &["worktree", "new", "old", "--base", &old, "--force-base"],
        )
        .ok();
    assert_eq!(
        env.git(Path::new(run.stdout.trim()), &["rev-parse", "HEAD"]),
        old
    );
    // Two behind is within the limit.
    let two = env.git(&outer, &["rev-parse", "HEAD~2"]);
    env.fleet(&outer, &["worktree", "new", "ok", "--base", &two])
        .ok();
    // A base that does not resolve is a usage error.
    env.fleet(
        &outer,
        &["worktree", "new", "nope", "--base", "no-such-rev"],
    )
    .code(2);
}

#[test]
fn a_failure_between_outer_and_nested_leaves_nothing_behind() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env
        .fleet_cmd(&outer, &["worktree", "new", "x"])
        .envs(&[("FLEET_FAILPOINT", "worktree-new-after-outer")])
        .run()
        .code(3);
    assert!(run.stderr.contains("failpoint"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    env.assert_no_agent(&outer, "x");
    assert!(
        !env.path().join(".fleet-work").exists(),
        "root folder created by the run was left"
    );
}

#[test]
fn a_nested_repo_that_cannot_take_a_worktree_rolls_everything_back() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    // The engine's worktree registry is a file: creating a worktree there fails for real.
    write(&outer.join("cockpit/engine/.git/worktrees"), "not a folder");
    env.fleet(&outer, &["worktree", "new", "x"]).code(3);
    std::fs::remove_file(outer.join("cockpit/engine/.git/worktrees")).unwrap();
    env.assert_no_agent(&outer, "x");
    // And it works once the obstacle is gone.
    env.fleet(&outer, &["worktree", "new", "x"]).ok();
}

#[test]
fn a_crash_half_way_converges_on_the_next_run() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env
        .fleet_cmd(&outer, &["worktree", "new", "x"])
        .envs(&[("FLEET_FAILPOINT", "worktree-new-after-outer:abort")])
        .run();
    assert_ne!(run.code, 0);
    let wt = env.path().join(".fleet-work/outer/x");
    assert!(
        wt.exists() && !wt.join("cockpit").exists(),
        "the crash should have hit between the steps"
    );
    env.fleet(&outer, &["worktree", "new", "x"]).ok();
    assert_eq!(
        env.git(
            &wt.join("cockpit/engine"),
            &["symbolic-ref", "--short", "HEAD"]
        ),
        "fleet/x"
    );
}

#[test]
fn new_from_a_nested_shared_checkout_works_on_the_project() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.fleet(&outer, &["init"]).ok();
    let run = env
        .fleet(&outer.join("cockpit/engine"), &["worktree", "new", "n"])
        .ok();
    let wt = env.path().join(".fleet-work/outer/n");
    assert_eq!(run.stdout.trim(), wt.display().to_string());
    assert_eq!(
        env.git(
            &wt.join("cockpit/engine"),
            &["symbolic-ref", "--short", "HEAD"]
        ),
        "fleet/n"
    );
    assert!(!outer.join(".fleet-work").exists() && !outer.join("cockpit/.fleet-work").exists());
}

#[test]
fn works_through_a_symlinked_path_to_the_checkout() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let link = env.path().join("link");
    std::os::unix::fs::symlink(&outer, &link).unwrap();
    let shared = [
        outer.clone(),
        outer.join("cockpit"),
        outer.join("cockpit/engine"),
    ];
    let before = shared.each_ref().map(|repo| env.snapshot(repo));
    // Started through the link, and then from the link's nested folder (the outer
    // repository is fleet's by then, so the nested one is not taken for the project).
    for (name, from) in [("s1", link.clone()), ("s2", link.join("cockpit"))] {
        let run = env.fleet(&from, &["worktree", "new", name]).ok();
        let wt = Path::new(run.stdout.trim()).to_path_buf();
        assert_eq!(wt, env.path().join(".fleet-work/outer").join(name));
        for repo in ["", "cockpit", "cockpit/engine"] {
            env.commit_file(&wt.join(repo), &format!("{name}.txt"), name, "work");
        }
        // Same answer again through the link and through the real path.
        assert_eq!(
            env.fleet(&link, &["worktree", "new", name]).ok().stdout,
            run.stdout
        );
        assert_eq!(
            env.fleet(&outer, &["worktree", "new", name]).ok().stdout,
            run.stdout
        );
    }
    let after = shared.each_ref().map(|repo| env.snapshot(repo));
    assert_eq!(before, after, "a shared checkout changed");
}

#[test]
fn submodules_are_populated_from_local_objects_without_the_network() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let lib = env.path().join("lib-origin");
    // The submodule's origin disappears: only the shared checkout's objects are left.
    std::fs::remove_dir_all(&lib).unwrap();
    let before = env.snapshot(&outer);
    let run = env.fleet(&outer, &["worktree", "new", "sub"]).ok();
    let wt = Path::new(run.stdout.trim()).to_path_buf();
    assert_eq!(
        std::fs::read_to_string(wt.join("vendor/lib/lib.txt")).unwrap(),
        "lib\n"
    );
    assert_eq!(
        env.git(&wt.join("vendor/lib"), &["rev-parse", "HEAD"]),
        env.git(&outer.join("vendor/lib"), &["rev-parse", "HEAD"])
    );
    assert_eq!(
        env.git(&wt, &["submodule", "status"]).chars().next(),
        Some(' '),
        "submodule not checked out cleanly"
    );
    // Its origin still names the real URL, not the local copy it came from.
    assert_eq!(
        env.git(&wt.join("vendor/lib"), &["remote", "get-url", "origin"]),
        lib.display().to_string()
    );
    assert_eq!(env.snapshot(&outer), before);
    // The submodule is not mistaken for a nested repository.
    assert!(!run.stderr.contains("nested vendor/lib"), "{}", run.stderr);
    // And removal works with a populated submodule.
    env.fleet(&outer, &["worktree", "rm", "sub"]).ok();
    assert!(!wt.exists());
}

#[test]
fn two_agents_commit_in_their_submodules_without_touching_the_shared_one() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let shared_sub = outer.join("vendor/lib");
    let before = [env.snapshot(&outer), env.snapshot(&shared_sub)];
    for name in ["s1", "s2"] {
        let wt = Path::new(
            env.fleet(&outer, &["worktree", "new", name])
                .ok()
                .stdout
                .trim(),
        )
        .to_path_buf();
        let sub = wt.join("vendor/lib");
        env.git(&sub, &["switch", "-q", "-c", &format!("fleet/{name}")]);
        env.commit_file(&sub, &format!("{name}.txt"), name, "submodule work");
        env.git(&wt, &["add", "vendor/lib"]);
        env.git(&wt, &["commit", "-q", "-m", "bump submodule"]);
        env.commit_file(&wt, &format!("{name}.txt"), name, "outer work");
    }
    assert_eq!([env.snapshot(&outer), env.snapshot(&shared_sub)], before);
}

#[test]
fn list_reports_branch_head_ahead_behind_dirty_and_nested() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "l"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    env.commit_file(&wt, "a.txt", "a", "one");
    env.commit_file(&wt, "b.txt", "b", "two");
    env.commit_file(&outer, "main.txt", "m", "main moves");
    write(&wt.join("cockpit/untracked.txt"), "u");
    let run = env.fleet(&outer, &["worktree", "list", "--json"]).ok();
    let list: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let l = &list[0];
    assert_eq!(l["name"], "l");
    assert_eq!(l["branch"], "fleet/l");
    assert_eq!(l["head"], env.git(&wt, &["rev-parse", "HEAD"]));
    assert_eq!(l["ahead"], 2);
    assert_eq!(l["behind"], 1);
    assert_eq!(l["dirty"], false);
    assert!(l["last_commit"].as_i64().unwrap() > 0);
    let nested = l["nested"].as_array().unwrap();
    assert_eq!(nested.len(), 2);
    assert_eq!(nested[0]["rel"], "cockpit");
    assert_eq!(nested[0]["dirty"], true);
    assert_eq!(nested[1]["rel"], "cockpit/engine");
    assert_eq!(nested[1]["dirty"], false);
    let text = env.fleet(&outer, &["worktree", "list"]).ok().stdout;
    assert!(
        text.contains("fleet/l") && text.contains("+2") && text.contains("-1"),
        "{text}"
    );
}

#[test]
fn rm_refuses_to_lose_uncommitted_or_unlanded_work() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "r"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();

    write(&wt.join("cockpit/engine/new.txt"), "unsaved");
    env.refused(&outer, &["worktree", "rm", "r"], "uncommitted changes");
    assert!(wt.join("cockpit/engine/new.txt").exists());
    std::fs::remove_file(wt.join("cockpit/engine/new.txt")).unwrap();

    let tip = env.commit_file(&wt.join("cockpit"), "work.txt", "w", "nested work");
    env.refused(&outer, &["worktree", "rm", "r"], "not in its target");
    assert!(wt.join("cockpit/work.txt").exists());

    // --force removes the worktrees but keeps the unlanded branch.
    let run = env.fleet(&outer, &["worktree", "rm", "r", "--force"]).ok();
    assert!(run.stderr.contains("kept branch fleet/r"), "{}", run.stderr);
    assert!(!wt.exists());
    assert_eq!(
        env.git(&outer.join("cockpit"), &["rev-parse", "fleet/r"]),
        tip
    );
    assert!(
        !env.branches(&outer)
            .contains(&"refs/heads/fleet/r".to_string()),
        "landed (empty) branch should go"
    );
}

#[test]
fn rm_counts_a_squash_landed_branch_as_landed() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "sq"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    env.commit_file(&wt, "one.txt", "1", "one");
    env.commit_file(&wt, "two.txt", "2", "two");
    // Land by squash on main, with main having moved on meanwhile.
    env.commit_file(&outer, "other.txt", "o", "other work");
    env.git(&outer, &["merge", "--squash", "-q", "fleet/sq"]);
    env.git(&outer, &["commit", "-q", "-m", "squash sq"]);
    let run = env.fleet(&outer, &["worktree", "rm", "sq"]).ok();
    assert!(
        run.stderr.contains("deleted branch fleet/sq"),
        "{}",
        run.stderr
    );
    assert!(!wt.exists());
    assert!(
        !env.branches(&outer)
            .contains(&"refs/heads/fleet/sq".to_string())
    );
    // Nested branches were empty: gone too.
    assert!(
        !env.branches(&outer.join("cockpit"))
            .contains(&"refs/heads/fleet/sq".to_string())
    );
}

#[test]
fn rm_of_an_unknown_agent_is_refused() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.refused(
        &outer,
        &["worktree", "rm", "ghost"],
        "no agent worktree `ghost`",
    );
}

#[test]
fn prune_forgets_vanished_worktrees_in_every_repo() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "p"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    std::fs::remove_dir_all(&wt).unwrap();
    env.fleet(&outer, &["worktree", "prune"]).ok();
    for repo in [
        outer.clone(),
        outer.join("cockpit"),
        outer.join("cockpit/engine"),
    ] {
        let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
        assert!(
            !list.contains(".fleet-work/outer/p"),
            "{}: {list}",
            repo.display()
        );
    }
}

#[test]
fn racing_processes_for_one_name_end_with_one_consistent_worktree() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let runs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| env.fleet(&outer, &["worktree", "new", "race"])))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for run in &runs {
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            run.stdout.trim(),
            env.path()
                .join(".fleet-work/outer/race")
                .display()
                .to_string()
        );
    }
    assert_eq!(
        runs.iter()
            .filter(|r| r.stderr.contains("already there"))
            .count(),
        3
    );
    let wt = env.path().join(".fleet-work/outer/race");
    assert_eq!(
        env.git(
            &wt.join("cockpit/engine"),
            &["symbolic-ref", "--short", "HEAD"]
        ),
        "fleet/race"
    );
    let list = env.git(&outer, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 2, "{list}");
}

#[test]
fn racing_processes_for_different_names_all_succeed() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let names = ["r1", "r2", "r3"];
    let runs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = names
            .iter()
            .map(|n| {
                let (env, outer) = (&env, &outer);
                s.spawn(move || env.fleet(outer, &["worktree", "new", n]))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for run in runs {
        run.ok();
    }
    for n in names {
        let branch = format!("refs/heads/fleet/{n}");
        assert!(
            env.branches(&outer.join("cockpit/engine"))
                .contains(&branch)
        );
    }
}

#[test]
fn a_root_inside_the_shared_checkout_is_not_mistaken_for_nested_repos() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(
        &outer.join("fleet.toml"),
        "[worktrees]\nroot = \".agents\"\n",
    );
    let a = env.fleet(&outer, &["worktree", "new", "a"]).ok();
    assert_eq!(
        a.stdout.trim(),
        outer.join(".agents/a").display().to_string()
    );
    let b = env.fleet(&outer, &["worktree", "new", "b"]).ok();
    assert!(
        !b.stderr.contains(".agents/a"),
        "agent a was taken for a nested repo: {}",
        b.stderr
    );
    assert_eq!(
        env.git(
            &outer.join(".agents/b/cockpit"),
            &["symbolic-ref", "--short", "HEAD"]
        ),
        "fleet/b"
    );
}

#[test]
fn a_nested_repo_without_commits_is_skipped_with_a_warning() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.git(&outer, &["init", "-q", "empty"]);
    let run = env.fleet(&outer, &["worktree", "new", "e"]).ok();
    assert!(
        run.stderr.contains("empty has no commits yet"),
        "{}",
        run.stderr
    );
    assert!(
        env.path()
            .join(".fleet-work/outer/e/cockpit/engine/e.txt")
            .exists()
    );
}

#[test]
fn listed_nested_repos_are_included_and_missing_ones_warned_about() {
    let env = Env::new();
    let outer = env.path().join("outer");
    env.repo(
        &outer,
        "main",
        &[("README", "x\n"), (".gitignore", "tools/\n")],
    );
    env.repo(&outer.join("tools/deep"), "main", &[("t.txt", "t\n")]);
    write(
        &outer.join("fleet.toml"),
        "[worktrees]\nnested = [\"tools/deep\", \"gone\"]\n",
    );
    let run = env.fleet(&outer, &["worktree", "new", "n"]).ok();
    assert!(run.stderr.contains("lists `gone`"), "{}", run.stderr);
    assert_eq!(
        env.git(
            &env.path().join(".fleet-work/outer/n/tools/deep"),
            &["symbolic-ref", "--short", "HEAD"]
        ),
        "fleet/n"
    );
}

#[test]
fn rm_refuses_a_locked_worktree_even_with_force() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "lk"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    env.git(&outer, &["worktree", "lock", wt.to_str().unwrap()]);
    env.refused(&outer, &["worktree", "rm", "lk", "--force"], "is locked");
    assert!(wt.join("cockpit/engine/e.txt").exists());
}

#[test]
fn an_existing_agent_branch_without_worktree_gets_the_worktree_attached() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "back"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    let tip = env.commit_file(&wt, "work.txt", "w", "unlanded work");
    // rm --force keeps the unlanded branch; new brings the work back.
    env.fleet(&outer, &["worktree", "rm", "back", "--force"])
        .ok();
    assert!(!wt.exists());
    let run = env.fleet(&outer, &["worktree", "new", "back"]).ok();
    assert!(
        run.stderr.contains("attaching the worktree to it"),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&wt, &["rev-parse", "HEAD"]), tip);
    assert_eq!(std::fs::read_to_string(wt.join("work.txt")).unwrap(), "w");
}

#[test]
fn a_checkout_interrupted_by_a_crash_is_redone() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "cut"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    // What a kill -9 during the deepest checkout leaves: a registration locked
    // "initializing", some files, no index.
    let engine = wt.join("cockpit/engine");
    let id_dir = worktree_git_dir(&env, &engine);
    std::fs::remove_file(id_dir.join("index")).unwrap();
    std::fs::write(id_dir.join("locked"), "initializing\n").unwrap();
    std::fs::remove_file(engine.join("e.txt")).unwrap();
    let run = env.fleet(&outer, &["worktree", "new", "cut"]).ok();
    assert!(run.stderr.contains("left half-created"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(engine.join("e.txt")).unwrap(),
        "engine\n"
    );
    assert_eq!(env.git(&engine, &["status", "--porcelain"]), "");
    let id_dir = worktree_git_dir(&env, &engine);
    assert!(!id_dir.join("locked").exists());
    // Earlier still: HEAD is git's placeholder and the `.git` link not written yet.
    std::fs::remove_file(id_dir.join("index")).unwrap();
    std::fs::write(id_dir.join("locked"), "initializing\n").unwrap();
    std::fs::write(id_dir.join("HEAD"), format!("{}\n", "0".repeat(40))).unwrap();
    std::fs::remove_file(engine.join(".git")).unwrap();
    let run = env.fleet(&outer, &["worktree", "new", "cut"]).ok();
    assert!(run.stderr.contains("left half-created"), "{}", run.stderr);
    assert_eq!(
        env.git(&engine, &["symbolic-ref", "--short", "HEAD"]),
        "fleet/cut"
    );
    let id_dir = worktree_git_dir(&env, &engine);
    // And rm is not blocked by such a lock either.
    std::fs::write(id_dir.join("locked"), "initializing\n").unwrap();
    env.fleet(&outer, &["worktree", "rm", "cut"]).ok();
    assert!(!wt.exists());
}

#[test]
fn an_unfinished_checkout_holding_other_worktrees_is_refused_not_deleted() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "odd"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    let cockpit_git = worktree_git_dir(&env, &wt.join("cockpit"));
    std::fs::remove_file(cockpit_git.join("index")).unwrap();
    std::fs::write(cockpit_git.join("locked"), "initializing\n").unwrap();
    write(&wt.join("cockpit/engine/precious.txt"), "work");
    env.refused(
        &outer,
        &["worktree", "new", "odd"],
        "never fully checked out",
    );
    assert!(wt.join("cockpit/engine/precious.txt").exists());
}

#[test]
fn rm_deletes_only_the_agents_own_branch() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "own"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    // The shared checkout moves to another branch; the agent checks out main itself.
    env.git(&outer, &["switch", "-q", "-c", "dev"]);
    env.git(&wt, &["switch", "-q", "main"]);
    env.git(&outer.join("cockpit"), &["branch", "release"]);
    env.git(&wt.join("cockpit"), &["switch", "-q", "release"]);
    env.fleet(&outer, &["worktree", "rm", "own"]).ok();
    assert!(
        env.branches(&outer)
            .contains(&"refs/heads/main".to_string()),
        "the target was deleted"
    );
    assert!(
        env.branches(&outer.join("cockpit"))
            .contains(&"refs/heads/release".to_string())
    );
    // The agent's own (empty, landed) branches are gone.
    assert!(
        !env.branches(&outer.join("cockpit/engine"))
            .contains(&"refs/heads/fleet/own".to_string())
    );
}

#[test]
fn rm_never_drops_detached_commits_even_with_force() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "det"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    env.git(&wt.join("cockpit/engine"), &["switch", "-q", "--detach"]);
    let orphan = env.commit_file(&wt.join("cockpit/engine"), "d.txt", "d", "detached work");
    let run = env.refused(
        &outer,
        &["worktree", "rm", "det", "--force"],
        "detached HEAD has commits",
    );
    assert!(run.stderr.contains("git switch -c"), "{}", run.stderr);
    assert_eq!(
        env.git(&wt.join("cockpit/engine"), &["rev-parse", "HEAD"]),
        orphan
    );
    assert!(wt.join("cockpit/engine/d.txt").exists());
}

#[test]
fn rm_refuses_to_delete_a_repository_it_does_not_manage() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "scr"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    // A repository without commits: only its files are at stake (commits never go,
    // see `rm_never_deletes_commits_of_a_repository_made_inside_the_worktree`).
    std::fs::create_dir_all(wt.join("scratch")).unwrap();
    env.git(&wt.join("scratch"), &["init", "-q"]);
    write(&wt.join("scratch/s.txt"), "s");
    env.refused(
        &outer,
        &["worktree", "rm", "scr"],
        "scratch is a git repository fleet does not manage",
    );
    assert!(wt.join("scratch/s.txt").exists());
    env.fleet(&outer, &["worktree", "rm", "scr", "--force"])
        .ok();
    assert!(!wt.exists());
}

#[test]
fn rm_refuses_to_drop_commits_that_exist_only_in_a_submodule_clone() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "sm"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    let sub = wt.join("vendor/lib");
    env.git(&sub, &["switch", "-q", "-c", "fleet/sm"]);
    let work = env.commit_file(&sub, "new.txt", "n", "submodule work");
    env.git(&sub, &["switch", "-q", "--detach", "HEAD~1"]);
    env.refused(
        &outer,
        &["worktree", "rm", "sm", "--force"],
        "has commits only in this worktree",
    );
    assert_eq!(env.git(&sub, &["rev-parse", "fleet/sm"]), work);
}

fn worktree_git_dir(env: &Env, checkout: &Path) -> std::path::PathBuf {
    std::path::PathBuf::from(env.git(checkout, &["rev-parse", "--absolute-git-dir"]))
}

#[test]
fn works_on_a_machine_without_a_git_identity() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env
        .fleet_cmd(&outer, &["worktree", "new", "anon"])
        .anonymous()
        .run()
        .ok();
    let wt = Path::new(run.stdout.trim()).to_path_buf();
    assert_eq!(
        env.git(&wt.join("cockpit"), &["symbolic-ref", "--short", "HEAD"]),
        "fleet/anon"
    );
    // The identity is fleet's fallback, in memory only: nothing was written to config.
    assert!(
        env.git_cmd(&outer, &["config", "committer.name"])
            .run()
            .stdout
            .is_empty()
    );
    env.fleet_cmd(&outer, &["worktree", "rm", "anon"])
        .anonymous()
        .run()
        .ok();
}

#[test]
fn rm_sees_untracked_files_even_when_status_hides_them() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.git(&outer, &["config", "status.showUntrackedFiles", "no"]);
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "hid"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    write(&wt.join("precious.txt"), "p");
    env.refused(&outer, &["worktree", "rm", "hid"], "precious.txt");
    assert!(wt.join("precious.txt").exists());
}

#[test]
fn rm_sees_submodule_edits_even_when_gitmodules_ignores_them() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    env.git(
        &outer,
        &[
            "config",
            "-f",
            ".gitmodules",
            "submodule.vendor/lib.ignore",
            "dirty",
        ],
    );
    env.git(&outer, &["commit", "-q", "-am", "ignore dirty submodule"]);
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "ign"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    write(&wt.join("vendor/lib/lib.txt"), "edited\n");
    env.fleet(&outer, &["worktree", "rm", "ign"]).code(1);
    assert_eq!(
        std::fs::read_to_string(wt.join("vendor/lib/lib.txt")).unwrap(),
        "edited\n"
    );
}

#[test]
fn rm_refuses_to_drop_a_stash_in_a_submodule_clone() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "st"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    write(&wt.join("vendor/lib/lib.txt"), "stashed\n");
    env.git(&wt.join("vendor/lib"), &["stash", "-q"]);
    env.refused(&outer, &["worktree", "rm", "st", "--force"], "refs/stash");
    assert!(wt.exists());
}

#[test]
fn a_missing_submodule_checkout_is_filled_in_on_the_next_run() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "fill"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    // What a crash between the checkout and the submodule step leaves.
    env.git(&wt, &["submodule", "deinit", "-q", "-f", "vendor/lib"]);
    assert!(!wt.join("vendor/lib/lib.txt").exists());
    env.fleet(&outer, &["worktree", "new", "fill"]).ok();
    assert_eq!(
        std::fs::read_to_string(wt.join("vendor/lib/lib.txt")).unwrap(),
        "lib\n"
    );
}

#[test]
fn an_agent_name_that_would_be_the_target_branch_is_refused() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(&outer.join("fleet.toml"), "[lanes]\nprefix = \"\"\n");
    env.git(&outer, &["switch", "-q", "-c", "other"]);
    let run = env.fleet(&outer, &["worktree", "new", "main"]).code(2);
    assert!(
        run.stderr.contains("the target branch itself"),
        "{}",
        run.stderr
    );
    assert!(!env.path().join(".fleet-work/outer/main").exists());
    // And where a nested repository's shared checkout has the branch out.
    env.git(&outer, &["switch", "-q", "main"]);
    env.git(
        &outer.join("cockpit"),
        &["switch", "-q", "-c", "cockpit-own"],
    );
    env.refused(
        &outer,
        &["worktree", "new", "cockpit-own"],
        "an agent cannot work on it",
    );
    assert!(
        env.branches(&outer)
            .iter()
            .all(|b| !b.ends_with("cockpit-own"))
    );
}

#[test]
fn a_users_checkoutless_worktree_is_never_taken_for_a_crash_leftover() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = env.path().join(".fleet-work/outer/mine");
    env.git(
        &outer,
        &[
            "worktree",
            "add",
            "-q",
            "--no-checkout",
            "-b",
            "fleet/mine",
            wt.to_str().unwrap(),
        ],
    );
    write(&wt.join("notes.txt"), "mine");
    env.git(
        &outer,
        &["worktree", "lock", "--reason", "usb", wt.to_str().unwrap()],
    );
    env.refused(&outer, &["worktree", "new", "mine"], "without a checkout");
    assert_eq!(
        std::fs::read_to_string(wt.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn new_from_inside_an_agents_submodule_works_on_the_project() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "w"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    let run = env
        .fleet(&wt.join("vendor/lib"), &["worktree", "new", "y"])
        .ok();
    assert_eq!(
        run.stdout.trim(),
        env.path().join(".fleet-work/outer/y").display().to_string()
    );
    assert!(!wt.join(".fleet-work").exists());
}

#[test]
fn overlong_names_and_symlinked_nested_repos_are_handled() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.fleet(&outer, &["worktree", "new", &"a".repeat(101)])
        .code(2);
    env.fleet(&outer, &["worktree", "new", &"ü".repeat(60)])
        .code(2);
    std::os::unix::fs::symlink(outer.join("cockpit"), outer.join("linked")).unwrap();
    write(
        &outer.join("fleet.toml"),
        "[worktrees]\nnested = [\"linked\"]\n",
    );
    let run = env.fleet(&outer, &["worktree", "new", "sym"]).ok();
    assert!(
        run.stderr.contains("which is a symlink; skipped"),
        "{}",
        run.stderr
    );
}

/// What a `rm` cut short can leave, by its steps (folder moved aside, record dropped,
/// files deleted), and what an older fleet's or gix's removal left (files going, `.git`
/// gone first): each converges, and no commit is lost.
#[test]
fn a_removal_cut_short_at_any_step_converges() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let root = env.path().join(".fleet-work/outer");

    // Moved aside into the trash, record still there: `new` starts again on the kept
    // branch (its commit included) and empties the trash.
    let a = env.agent(&outer, "a");
    let work = env.commit_file(&a, "a.txt", "a", "agent work");
    std::fs::create_dir_all(root.join(".fleet-trash")).unwrap();
    std::fs::rename(&a, root.join(".fleet-trash/a-1")).unwrap();
    env.fleet(&outer, &["worktree", "new", "a"]).ok();
    assert_eq!(env.git(&a, &["rev-parse", "HEAD"]), work);
    assert_eq!(env.git(&a, &["status", "--porcelain"]), "");
    assert!(!root.join(".fleet-trash").exists(), "trash not emptied");

    // Moved aside: `rm` finishes the job.
    let b = env.agent(&outer, "b");
    std::fs::create_dir_all(root.join(".fleet-trash")).unwrap();
    std::fs::rename(b.join("cockpit"), root.join(".fleet-trash/cockpit-b")).unwrap();
    std::fs::rename(&b, root.join(".fleet-trash/b")).unwrap();
    env.fleet(&outer, &["worktree", "rm", "b"]).ok();
    env.assert_no_agent(&outer, "b");
    assert!(!root.join(".fleet-trash").exists());

    // The `.git` link gone, files left: nothing can vouch for them, so `new` refuses,
    // `rm` refuses without --force, and `rm --force` clears it.
    let c = env.agent(&outer, "c");
    std::fs::remove_file(c.join(".git")).unwrap();
    env.refused(&outer, &["worktree", "new", "c"], "has no `.git` any more");
    env.refused(&outer, &["worktree", "rm", "c"], "lost its `.git`");
    assert!(c.join("README").exists(), "refused rm deleted files");
    env.fleet(&outer, &["worktree", "rm", "c", "--force"]).ok();
    env.assert_no_agent(&outer, "c");
    env.fleet(&outer, &["worktree", "new", "c"]).ok();
}

#[test]
fn rm_never_deletes_commits_of_a_repository_made_inside_the_worktree() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let lib = env.path().join("lib");
    env.repo(&lib, "main", &[("l.txt", "l\n")]);
    let a = env.agent(&outer, "a");
    // A plain clone, untouched: its commits are on its remote, so --force may go.
    env.git(&a, &["clone", "-q", lib.to_str().unwrap(), "vendor-copy"]);
    env.fleet(&outer, &["worktree", "rm", "a"]).code(1);
    env.fleet(&outer, &["worktree", "rm", "a", "--force"]).ok();
    assert!(!a.exists());

    // A clone with a commit of its own: no flag deletes it.
    let b = env.agent(&outer, "b");
    env.git(&b, &["clone", "-q", lib.to_str().unwrap(), "vendor-fix"]);
    let fix = env.commit_file(&b.join("vendor-fix"), "l.txt", "fixed\n", "precious fix");
    env.refused(
        &outer,
        &["worktree", "rm", "b", "--force"],
        "commits that exist only there",
    );
    assert_eq!(env.git(&b.join("vendor-fix"), &["rev-parse", "HEAD"]), fix);
    // And a fresh repository with a commit and no remote at all.
    env.repo(&b.join("scratch"), "main", &[("s.txt", "s\n")]);
    env.fleet(&outer, &["worktree", "rm", "b", "--force"])
        .code(1);
    assert!(b.join("scratch/s.txt").exists());
}

#[test]
fn a_base_given_in_an_agent_worktree_means_what_git_means_there() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let a = env.agent(&outer, "a");
    let work = env.commit_file(&a, "a.txt", "a", "agent work");
    let b = Path::new(
        env.fleet(&a, &["worktree", "new", "b", "--base", "HEAD"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    assert_eq!(env.git(&b, &["rev-parse", "HEAD"]), work);
    // Syntax gix does not read (the upstream of a branch tracking a local one): git does.
    env.git(&a, &["branch", "-q", "--set-upstream-to=main"]);
    let u = env
        .fleet(&a, &["worktree", "new", "u", "--base", "@{u}"])
        .ok();
    assert_eq!(
        env.git(Path::new(u.stdout.trim()), &["rev-parse", "HEAD"]),
        env.git(&outer, &["rev-parse", "main"])
    );
    // From inside a nested worktree of the agent, HEAD is the agent's outer HEAD.
    let c = Path::new(
        env.fleet(
            &a.join("cockpit"),
            &["worktree", "new", "c", "--base", "HEAD"],
        )
        .ok()
        .stdout
        .trim(),
    )
    .to_path_buf();
    assert_eq!(env.git(&c, &["rev-parse", "HEAD"]), work);
    // From a nested repository's shared checkout: the shared checkout's HEAD.
    let d = env.fleet(
        &outer.join("cockpit"),
        &["worktree", "new", "d", "--base", "HEAD"],
    );
    assert_eq!(
        env.git(Path::new(d.ok().stdout.trim()), &["rev-parse", "HEAD"]),
        env.git(&outer, &["rev-parse", "HEAD"])
    );
}

#[test]
fn rm_of_a_name_that_is_a_symlink_to_another_agent_is_refused() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let a = env.agent(&outer, "a");
    std::os::unix::fs::symlink(&a, env.path().join(".fleet-work/outer/x")).unwrap();
    env.refused(&outer, &["worktree", "rm", "x", "--force"], "symbolic link");
    assert!(a.join("cockpit/c.txt").exists());
    assert!(
        env.branches(&outer)
            .contains(&"refs/heads/fleet/a".to_string())
    );
}

#[test]
fn nested_repositories_with_a_separate_or_linked_git_dir_are_isolated_too() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    // `git init --separate-git-dir`, its git dir in a folder named `worktrees`.
    let store = env.path().join("store/worktrees/lib.git");
    let lib = outer.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    env.git(
        &lib,
        &[
            "init",
            "-q",
            "-b",
            "main",
            "--separate-git-dir",
            store.to_str().unwrap(),
        ],
    );
    env.commit_file(&lib, "l.txt", "l", "lib");
    // A `.git` that is a symlink to the git dir.
    let tools = outer.join("tools");
    env.repo(&env.path().join("tools-real"), "main", &[("t.txt", "t\n")]);
    std::fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(env.path().join("tools-real/.git"), tools.join(".git")).unwrap();
    env.git(&tools, &["checkout", "-q", "-f", "main"]);
    write(&outer.join(".gitignore"), "cockpit/\nlib/\ntools/\n");
    env.git(&outer, &["commit", "-qam", "ignore nested"]);
    let a = env.agent(&outer, "a");
    for (rel, file) in [("lib", "l.txt"), ("tools", "t.txt")] {
        assert_eq!(
            env.git(&a.join(rel), &["symbolic-ref", "--short", "HEAD"]),
            "fleet/a",
            "{rel} has no worktree of its own"
        );
        assert!(a.join(rel).join(file).exists());
    }
}

#[test]
fn submodules_a_crash_left_half_checked_out_are_checked_out_again() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let a = env.agent(&outer, "a");
    let sub = a.join("vendor/lib");
    // What a kill of the whole process group leaves: the marker, a partial checkout
    // (files missing, the index says so) and git's lock.
    let git_dir = std::path::PathBuf::from(env.git(&a, &["rev-parse", "--absolute-git-dir"]));
    // One marker per submodule: its path inside the worktree, hex-encoded.
    let hex: String = "vendor/lib".bytes().map(|b| format!("{b:02x}")).collect();
    let marker = git_dir.join("fleet-populating").join(hex);
    write(&marker, "");
    std::fs::remove_file(sub.join("lib.txt")).unwrap();
    env.git(&sub, &["rm", "-q", "--cached", "lib.txt"]);
    let lock = std::path::PathBuf::from(env.git(&sub, &["rev-parse", "--absolute-git-dir"]))
        .join("index.lock");
    write_stale(&lock);
    let run = env.fleet(&outer, &["worktree", "new", "a"]).ok();
    assert!(
        run.stderr.contains("checking it out again"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(sub.join("lib.txt")).unwrap(),
        "lib\n"
    );
    assert_eq!(env.git(&sub, &["status", "--porcelain"]), "");
    assert!(!marker.exists());
}

#[test]
fn a_branch_in_the_way_in_a_nested_repository_is_named_and_nothing_is_left() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.git(&outer.join("cockpit"), &["branch", "fleet"]);
    let run = env.refused(
        &outer,
        &["worktree", "new", "x"],
        "nested repository cockpit",
    );
    assert!(
        run.stderr.contains("branch `fleet` exists"),
        "{}",
        run.stderr
    );
    env.assert_no_agent(&outer, "x");
}

#[test]
fn a_submodule_whose_commit_the_shared_copy_lacks_is_left_out_with_a_note() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    // The superproject records a submodule commit the shared copy never fetched.
    let lib = env.path().join("lib-origin");
    let newer = env.commit_file(&lib, "lib.txt", "newer\n", "newer");
    env.git(
        &outer,
        &[
            "update-index",
            "--cacheinfo",
            &format!("160000,{newer},vendor/lib"),
        ],
    );
    env.git(&outer, &["commit", "-q", "-m", "bump lib"]);
    std::fs::remove_dir_all(&lib).unwrap();
    let run = env.fleet(&outer, &["worktree", "new", "s"]).ok();
    assert!(run.stderr.contains("lacks its commit"), "{}", run.stderr);
    assert!(env.path().join(".fleet-work/outer/s/README").exists());
}

#[test]
fn rm_from_another_agent_with_git_work_tree_set_keeps_the_agents_work() {
    let env = Env::new();
    let app = env.path().join("app");
    env.repo(&app, "main", &[("a.txt", "a\n")]);
    let a = env.agent(&app, "a");
    let b = env.agent(&app, "b");
    write(&a.join("a.txt"), "a\nedit\n");
    write(&a.join("notes.txt"), "x\n");
    let shared = app.to_str().unwrap();
    let run = env
        .fleet_cmd(&b, &["worktree", "rm", "a"])
        .envs(&[("GIT_WORK_TREE", shared)])
        .run()
        .code(1);
    assert!(run.stderr.contains("uncommitted changes"), "{}", run.stderr);
    assert!(
        run.stderr.contains("warning: ignoring GIT_WORK_TREE="),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(a.join("a.txt")).unwrap(),
        "a\nedit\n"
    );
    assert!(a.join("notes.txt").exists());
    assert!(
        env.branches(&app)
            .contains(&"refs/heads/fleet/a".to_string())
    );
    // The same with the other variables that point git at another repository or index.
    let shared_git = app.join(".git");
    let shared_index = shared_git.join("index");
    for (var, value) in [
        ("GIT_DIR", shared_git.to_str().unwrap()),
        ("GIT_INDEX_FILE", shared_index.to_str().unwrap()),
    ] {
        let run = env
            .fleet_cmd(&b, &["worktree", "rm", "a"])
            .envs(&[(var, value)])
            .run()
            .code(1);
        assert!(
            run.stderr.contains("uncommitted changes"),
            "{var}: {}",
            run.stderr
        );
        assert!(a.join("notes.txt").exists(), "{var}");
    }
}

#[test]
fn a_linked_worktree_of_another_repository_inside_the_checkout_is_named() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let other = env.path().join("other");
    env.repo(&other, "main", &[("o.txt", "o\n")]);
    env.git(
        &other,
        &[
            "worktree",
            "add",
            "-q",
            outer.join("borrowed").to_str().unwrap(),
        ],
    );
    // The outer repository's own linked worktree inside its checkout is no concern.
    env.git(&outer, &["worktree", "add", "-q", "own-wt"]);
    write(&outer.join(".gitignore"), "cockpit/\nborrowed/\nown-wt/\n");
    env.git(&outer, &["commit", "-qam", "ignore"]);
    let run = env.fleet(&outer, &["worktree", "new", "a"]).ok();
    assert!(
        run.stderr
            .contains("borrowed is a linked worktree of another repository"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("own-wt"), "{}", run.stderr);
}

/// The repair touches only the submodule a run left unfinished: the agent's work in
/// the others (commits on a detached HEAD, edits) survives any number of re-runs.
#[test]
fn rerunning_new_never_forces_a_submodule_the_agent_works_in() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let other = env.path().join("other-origin");
    env.repo(&other, "main", &[("o.txt", "o\n")]);
    let add = ["-c", "protocol.file.allow=always", "submodule", "add", "-q"];
    env.git(
        &outer,
        &[&add[..], &[other.to_str().unwrap(), "vendor/other"]].concat(),
    );
    env.git(&outer, &["commit", "-q", "-m", "second submodule"]);
    let a = env.agent(&outer, "a");
    let lib = a.join("vendor/lib");
    let work = env.commit_file(&lib, "lib.txt", "agent\n", "agent work");
    write(&lib.join("lib.txt"), "uncommitted\n");
    // The other submodule's clone was cut short before it had a HEAD.
    let git_dir = std::path::PathBuf::from(env.git(&a, &["rev-parse", "--absolute-git-dir"]));
    let hex: String = "vendor/other".bytes().map(|b| format!("{b:02x}")).collect();
    write(&git_dir.join("fleet-populating").join(hex), "");
    write(
        &git_dir.join("modules/vendor/other/HEAD"),
        "ref: refs/heads/.invalid\n",
    );
    for _ in 0..2 {
        env.fleet(&outer, &["worktree", "new", "a"]).ok();
    }
    assert_eq!(env.git(&lib, &["rev-parse", "HEAD"]), work);
    assert_eq!(
        std::fs::read_to_string(lib.join("lib.txt")).unwrap(),
        "uncommitted\n"
    );
    let other_wt = a.join("vendor/other");
    assert_eq!(
        std::fs::read_to_string(other_wt.join("o.txt")).unwrap(),
        "o\n"
    );
    assert_eq!(env.git(&other_wt, &["status", "--porcelain"]), "");
    assert!(!git_dir.join("fleet-populating").exists());
}

#[test]
fn a_ref_lock_left_by_a_killed_run_does_not_block_rm_or_new() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.agent(&outer, "a");
    write_stale(&outer.join(".git/refs/heads/fleet/a.lock"));
    env.fleet(&outer, &["worktree", "rm", "a"]).ok();
    env.assert_no_agent(&outer, "a");
    write_stale(&outer.join(".git/refs/heads/fleet/a.lock"));
    env.fleet(&outer, &["worktree", "new", "a"]).ok();
}

#[test]
fn rm_never_deletes_a_bare_repository_or_a_separate_git_dir_inside_the_worktree() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let a = env.agent(&outer, "a");
    // The only copy of pushed work: a bare repository inside the worktree.
    env.git(&a, &["init", "-q", "--bare", "store.git"]);
    let clone = env.path().join("clone");
    env.git(
        env.path().as_path(),
        &[
            "clone",
            "-q",
            a.join("store.git").to_str().unwrap(),
            "clone",
        ],
    );
    env.commit_file(&clone, "w.txt", "w", "work");
    env.git(&clone, &["push", "-q", "origin", "HEAD:main"]);
    env.refused(&outer, &["worktree", "rm", "a", "--force"], "store.git");
    assert!(a.join("store.git/HEAD").exists());
    std::fs::remove_dir_all(a.join("store.git")).unwrap();
    // A repository checked out elsewhere whose git dir is inside the worktree.
    let r = env.path().join("r");
    std::fs::create_dir_all(&r).unwrap();
    env.git(
        &r,
        &[
            "init",
            "-q",
            "--separate-git-dir",
            a.join("gitstore").to_str().unwrap(),
        ],
    );
    env.commit_file(&r, "r.txt", "r", "r");
    env.fleet(&outer, &["worktree", "rm", "a", "--force"])
        .code(1);
    assert!(a.join("gitstore/HEAD").exists());
}

#[test]
fn a_git_dir_committed_as_files_is_not_taken_for_a_repository_in_the_way() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let a = env.agent(&outer, "a");
    // A test fixture: a bare repository tracked as plain files on the agent's branch.
    env.git(&a, &["init", "-q", "--bare", "fixtures/repo.git"]);
    write(&a.join("fixtures/repo.git/objects/.keep"), "");
    write(&a.join("fixtures/repo.git/refs/.keep"), "");
    env.git(&a, &["add", "-f", "fixtures"]);
    env.git(&a, &["commit", "-q", "-m", "fixture"]);
    env.git(&outer, &["merge", "-q", "--ff-only", "fleet/a"]);
    env.fleet(&outer, &["worktree", "rm", "a"]).ok();
    assert!(!a.exists());
}

#[test]
fn rm_cut_short_after_the_worktrees_went_settles_the_branches_on_a_rerun() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let a = env.agent(&outer, "a");
    let unlanded = env.commit_file(&a.join("cockpit"), "n.txt", "n", "nested work");
    // What a kill right after the worktrees went leaves: the branches alone.
    for (repo, wt) in [
        (outer.join("cockpit/engine"), a.join("cockpit/engine")),
        (outer.join("cockpit"), a.join("cockpit")),
        (outer.clone(), a.clone()),
    ] {
        env.git(
            &repo,
            &["worktree", "remove", "--force", wt.to_str().unwrap()],
        );
    }
    let run = env.fleet(&outer, &["worktree", "rm", "a"]).ok();
    assert!(run.stderr.contains("kept branch fleet/a"), "{}", run.stderr);
    let branch = "refs/heads/fleet/a".to_string();
    assert!(!env.branches(&outer).contains(&branch));
    assert!(
        !env.branches(&outer.join("cockpit/engine"))
            .contains(&branch)
    );
    // The unlanded nested branch stays, with its commit.
    assert_eq!(
        env.git(&outer.join("cockpit"), &["rev-parse", "fleet/a"]),
        unlanded
    );
}

#[test]
fn a_symlinked_worktree_root_works_with_submodules() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let real = env.path().join("real-root");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, env.path().join("linked-root")).unwrap();
    write(
        &outer.join("fleet.toml"),
        "[worktrees]\nroot = \"../linked-root\"\n",
    );
    let wt = env.agent(&outer, "a");
    assert_eq!(wt, real.join("a"));
    assert_eq!(
        std::fs::read_to_string(wt.join("vendor/lib/lib.txt")).unwrap(),
        "lib\n"
    );
    env.fleet(&outer, &["worktree", "new", "a"]).ok();
    env.fleet(&outer, &["worktree", "rm", "a"]).ok();
    assert!(!real.join("a").exists());
}

#[test]
fn list_json_says_when_a_nested_worktree_is_gone_and_refuses_paths_json_cannot_carry() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let a = env.agent(&outer, "a");
    std::fs::remove_dir_all(a.join("cockpit/engine")).unwrap();
    let run = env.fleet(&outer, &["worktree", "list", "--json"]).ok();
    let list: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let nested = list[0]["nested"].as_array().unwrap();
    let engine = nested
        .iter()
        .find(|n| n["rel"] == "cockpit/engine")
        .unwrap();
    assert_eq!(engine["missing"], true);
    assert_eq!(
        nested.iter().find(|n| n["rel"] == "cockpit").unwrap()["missing"],
        false
    );
    // A nested repository whose name is not UTF-8: no JSON can say it, so no success.
    use std::os::unix::ffi::OsStrExt;
    let odd = outer.join(std::ffi::OsStr::from_bytes(b"n\xffx"));
    env.repo(&odd, "main", &[("f", "f\n")]);
    write(&outer.join(".git/info/exclude"), "n*x/\n");
    env.agent(&outer, "b");
    let run = env.fleet(&outer, &["worktree", "list", "--json"]).code(3);
    assert!(run.stderr.contains("cannot render JSON"), "{}", run.stderr);
}
