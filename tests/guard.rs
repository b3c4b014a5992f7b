//! The shared-checkout guard, attacked with real git commands: what must be refused
//! changes nothing, what must pass passes.

use std::path::PathBuf;

use crate::common::{Env, write};

/// A guarded repository with a second commit (so `HEAD~1` exists) and a branch `other`
/// holding a different file, plus a local edit and an untracked file that must survive.
fn guarded(env: &Env) -> PathBuf {
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
    env.git(&repo, &["branch", "other"]);
    let other = env.fleet(&repo, &["worktree", "new", "scratch"]).ok();
    let scratch = PathBuf::from(other.stdout.trim());
    env.commit_file(&scratch, "only-on-other.txt", "x\n", "other work");
    env.git(&scratch, &["branch", "-f", "other", "HEAD"]);
    env.fleet(&repo, &["init"]).ok();
    write(&repo.join("a.txt"), "one\nlocal edit\n");
    write(&repo.join("untracked.txt"), "mine\n");
    repo
}

#[test]
fn commits_switches_and_resets_in_the_shared_checkout_are_refused_and_change_nothing() {
    let env = Env::new();
    let repo = guarded(&env);
    env.git(&repo, &["add", "a.txt"]);
    write(&repo.join("a.txt"), "one\nlocal edit\nunstaged too\n");
    let before = env.snapshot(&repo);
    let main = env.git(&repo, &["rev-parse", "main"]);

    let stderr = env.guard_refuses(&repo, &["commit", "-m", "sneak"]);
    assert!(stderr.contains("fleet worktree new"), "{stderr}");
    env.guard_refuses(&repo, &["commit", "--no-verify", "-m", "sneak"]);
    env.guard_refuses(&repo, &["commit", "--amend", "--no-verify", "-m", "sneak"]);
    env.guard_refuses(&repo, &["switch", "other"]);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "a refused switch changed the checkout"
    );
    env.guard_refuses(&repo, &["checkout", "--detach", "HEAD~1"]);
    env.guard_refuses(&repo, &["checkout", "--detach"]);
    env.guard_refuses(&repo, &["reset", "--soft", "HEAD~1"]);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "a refused reset changed the checkout"
    );
    env.guard_refuses(&repo, &["merge", "--no-edit", "other"]);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "a refused merge changed the checkout"
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    assert_eq!(env.git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
}

#[test]
fn a_refused_reset_hard_leaves_status_exactly_as_before() {
    let env = Env::new();
    let repo = guarded(&env);
    // reset --hard discards unstaged edits before any hook runs (the watchdog's
    // snapshots cover that); a clean tree with an untracked file must come back whole.
    // A mixed reset rewrites only the index: unstaged edits survive it.
    let before = env.snapshot(&repo);
    env.guard_refuses(&repo, &["reset", "HEAD~1"]);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "a refused mixed reset changed the checkout"
    );
    write(&repo.join("a.txt"), "one\n");
    let before = env.snapshot(&repo);
    env.guard_refuses(&repo, &["reset", "--hard", "HEAD~1"]);
    assert_eq!(env.snapshot(&repo), before);
    assert!(
        repo.join("b.txt").exists(),
        "the file reset removed was not put back"
    );
    // `other` is one commit ahead: pull and rebase would fast-forward the checkout.
    env.guard_refuses(&repo, &["pull", "-q", "--no-rebase", ".", "other"]);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "a refused pull changed the checkout"
    );
    let stderr = env.guard_refuses(&repo, &["rebase", "-q", "other"]);
    assert!(stderr.contains("`git rebase --abort`"), "{stderr}");
    env.git(&repo, &["rebase", "--abort"]);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "a refused rebase changed the checkout"
    );
    assert!(
        !repo.join(".git/rebase-merge").exists(),
        "a refused rebase left its state"
    );
}

#[test]
fn a_commit_made_with_hooks_switched_off_is_still_refused_by_the_ref_guard() {
    let env = Env::new();
    let repo = guarded(&env);
    env.git(&repo, &["add", "a.txt"]);
    let before = env.snapshot(&repo);
    // An empty hooks folder for pre-commit would bypass everything; the point here is the
    // reference-transaction hook alone, so only prepare-commit-msg and pre-commit go.
    let hooks = repo.join(".git/hooks");
    for hook in ["pre-commit", "prepare-commit-msg"] {
        std::fs::remove_file(hooks.join(hook)).unwrap();
    }
    env.guard_refuses(&repo, &["commit", "-m", "sneak"]);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "the staged change must stay staged"
    );
}

#[test]
fn agent_worktrees_commit_freely_but_cannot_move_the_target() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(&outer.join("fleet.toml"), "");
    env.fleet(&outer, &["init"]).ok();
    let wt = PathBuf::from(
        env.fleet(&outer, &["worktree", "new", "agent"])
            .ok()
            .stdout
            .trim(),
    );
    env.commit_file(&wt, "work.txt", "w\n", "agent work");
    env.commit_file(&wt.join("cockpit"), "n.txt", "n\n", "nested agent work");
    env.git(&wt, &["commit", "--amend", "--no-edit"]);
    env.git(&wt, &["branch", "new-branch"]);
    env.git(&wt, &["switch", "-q", "new-branch"]);
    env.git(&wt, &["switch", "-q", "fleet/agent"]);

    let main = env.git(&outer, &["rev-parse", "main"]);
    env.guard_refuses(&wt, &["update-ref", "refs/heads/main", "HEAD"]);
    env.guard_refuses(&wt, &["update-ref", "-d", "refs/heads/main"]);
    // The shared checkout's HEAD, named from an agent worktree.
    env.guard_refuses(
        &wt,
        &["update-ref", "--no-deref", "main-worktree/HEAD", "HEAD"],
    );
    // A global option git knows but fleet's command-line reader might not.
    env.guard_refuses(
        &wt,
        &[
            "--attr-source",
            "HEAD",
            "update-ref",
            "-d",
            "refs/heads/main",
        ],
    );
    // fleet's own state is written by fleet alone.
    env.fleet(&outer, &["track", "agent"]).ok();
    env.guard_refuses(&wt, &["update-ref", "-d", "refs/fleet/lanes"]);
    let said = env.guard_refuses(&wt, &["update-ref", "refs/notes/fleet", "HEAD"]);
    assert!(
        said.contains("fleet's own refs") && !said.contains("target branch"),
        "the receipts ref is not a target branch: {said}"
    );
    // Housekeeping that rewrites refs without moving them passes.
    env.git(&outer, &["pack-refs", "--all"]);
    env.git(&outer, &["gc", "-q"]);
    env.guard_refuses(&wt, &["update-ref", "-d", "refs/heads/main"]);
    // git itself already refuses these for a branch checked out elsewhere.
    for args in [
        ["branch", "-f", "main", "HEAD"],
        ["branch", "-D", "main", "--"],
    ] {
        let args: Vec<&str> = args.into_iter().filter(|a| *a != "--").collect();
        assert_ne!(env.git_cmd(&wt, &args).run().code, 0, "git {args:?} passed");
    }
    let push = env.git_cmd(&wt, &["push", ".", "HEAD:main"]).run();
    assert_ne!(push.code, 0, "git push . HEAD:main moved the target");
    assert_eq!(env.git(&outer, &["rev-parse", "main"]), main);
    // The nested repo's target is guarded from the nested agent worktree too.
    let nested_main = env.git(&outer.join("cockpit"), &["rev-parse", "main"]);
    env.guard_refuses(
        &wt.join("cockpit"),
        &["update-ref", "refs/heads/main", "HEAD"],
    );
    assert_eq!(
        env.git(&outer.join("cockpit"), &["rev-parse", "main"]),
        nested_main
    );
    // And the nested repo's shared checkout refuses commits.
    write(&outer.join("cockpit/c.txt"), "changed\n");
    env.guard_refuses(&outer.join("cockpit"), &["commit", "-am", "sneak"]);
    env.guard_refuses(&outer.join("cockpit"), &["switch", "-c", "elsewhere"]);
}

#[test]
fn git_worktree_add_from_the_shared_checkout_passes_and_leaves_it_alone() {
    let env = Env::new();
    let repo = guarded(&env);
    let before = env.snapshot(&repo);
    let side = env.path().join("side");
    env.git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            side.to_str().unwrap(),
        ],
    );
    assert_eq!(env.snapshot(&repo), before);
    assert_eq!(env.git(&side, &["symbolic-ref", "HEAD"]), "refs/heads/side");
    env.commit_file(&side, "s.txt", "s\n", "side work");
    // Creating branches and fetching in the shared checkout pass too.
    env.git(&repo, &["branch", "created-here"]);
    env.git(&repo, &["fetch", "-q", ".", "side:refs/remotes/self/side"]);
}

#[test]
fn the_checkout_reached_through_a_symlink_is_guarded() {
    let env = Env::new();
    let repo = guarded(&env);
    let link = env.path().join("link");
    std::os::unix::fs::symlink(&repo, &link).unwrap();
    let before = env.snapshot(&repo);
    env.guard_refuses(&link, &["commit", "-am", "sneak"]);
    env.guard_refuses(&link, &["switch", "other"]);
    assert_eq!(env.snapshot(&repo), before);
}

#[test]
fn with_core_hooks_path_relative_or_absolute_the_guard_fires_in_every_worktree() {
    for hooks_path in ["absolute", ".githooks"] {
        let env = Env::new();
        let repo = env.path().join("repo");
        // A relative folder must be ignored: fleet's scripts in it are not for committing
        // (a_hooks_path_fleet_scripts_would_be_committed_from_is_refused_and_nothing_is_written).
        env.repo(
            &repo,
            "main",
            &[
                ("a.txt", "one\n"),
                ("fleet.toml", ""),
                (".gitignore", "/.githooks/\n"),
            ],
        );
        let value = if hooks_path == "absolute" {
            env.path().join("shared-hooks").display().to_string()
        } else {
            hooks_path.to_string()
        };
        env.git(&repo, &["config", "core.hooksPath", &value]);
        let early = PathBuf::from(
            env.fleet(&repo, &["worktree", "new", "early"])
                .ok()
                .stdout
                .trim(),
        );
        env.fleet(&repo, &["hooks", "install"]).ok();
        let late = PathBuf::from(
            env.fleet(&repo, &["worktree", "new", "late"])
                .ok()
                .stdout
                .trim(),
        );
        env.guard_refuses(&repo, &["commit", "--allow-empty", "-m", "sneak"]);
        for wt in [&early, &late] {
            env.commit_file(wt, "w.txt", "w\n", "agent work");
            env.guard_refuses(wt, &["update-ref", "refs/heads/main", "HEAD"]);
        }
        env.fleet(&repo, &["hooks", "status"]).ok();
    }
}

#[test]
fn the_escape_hatch_lets_a_human_through_and_is_logged() {
    let env = Env::new();
    let repo = guarded(&env);
    let run = env
        .fleet_cmd(&repo, &["hook", "pre-commit"])
        .envs(&[("FLEET_ALLOW_SHARED", "1")])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut git = std::process::Command::new("git");
    git.current_dir(&repo)
        .env("FLEET_ALLOW_SHARED", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", env.path().join("home"))
        .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
        .args([
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@x",
            "switch",
            "-q",
            "other",
        ])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = git.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        env.git(&repo, &["symbolic-ref", "HEAD"]),
        "refs/heads/other"
    );
    let guard_log = std::fs::read_to_string(repo.join(".git/fleet/guard.log")).unwrap();
    assert!(guard_log.contains("\"allowed\""), "{guard_log}");
    // post-checkout wrote the drift down, with the command that caused it.
    let drift = std::fs::read_to_string(repo.join(".git/fleet/drift.log")).unwrap();
    let line: serde_json::Value = serde_json::from_str(drift.lines().last().unwrap()).unwrap();
    assert_eq!(line["head"], "refs/heads/other");
    assert_eq!(line["detail"], "branch checkout");
    assert!(
        line["processes"][0]["args"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "switch"),
        "{line}"
    );
}

#[test]
fn fleet_land_moves_the_guarded_target_and_the_shared_checkout_follows() {
    let env = Env::new();
    let repo = guarded(&env);
    std::fs::remove_file(repo.join("untracked.txt")).unwrap();
    write(&repo.join("a.txt"), "one\n");
    let wt = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "lander"])
            .ok()
            .stdout
            .trim(),
    );
    env.commit_file(&wt, "landed.txt", "l\n", "to land");
    env.fleet(&repo, &["track", "--ready", "lander"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert_ne!(env.git(&repo, &["rev-parse", "main"]), old);
    assert!(repo.join("landed.txt").exists());
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
}

#[test]
fn chained_hooks_run_first_with_their_arguments_and_stdin_and_can_fail() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("a.txt", "one\n"), ("fleet.toml", "")]);
    let hooks = repo.join(".git/hooks");
    let log = env.path().join("chained.log");
    let pre_commit = format!(
        "#!/bin/sh\necho \"pre-commit $*\" >> {log}\n[ -e {stop} ] && exit 3\nexit 0\n",
        log = log.display(),
        stop = env.path().join("stop").display()
    );
    let transaction = format!(
        "#!/usr/bin/env bash\nwhile read -r o n r; do echo \"rt $1 $r\" >> {log}; done\n",
        log = log.display()
    );
    write(&hooks.join("pre-commit"), &pre_commit);
    write(&hooks.join("reference-transaction"), &transaction);
    use std::os::unix::fs::PermissionsExt;
    for hook in ["pre-commit", "reference-transaction"] {
        std::fs::set_permissions(hooks.join(hook), std::fs::Permissions::from_mode(0o750)).unwrap();
    }
    let before_bytes = [pre_commit.clone(), transaction.clone()];
    env.fleet(&repo, &["hooks", "install"]).ok();
    let first = std::fs::read_to_string(hooks.join("pre-commit")).unwrap();
    let again = env.fleet(&repo, &["hooks", "install", "--json"]).ok();
    assert!(again.stdout.contains("unchanged"));
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        first
    );

    let wt = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "agent"])
            .ok()
            .stdout
            .trim(),
    );
    env.commit_file(&wt, "w.txt", "w\n", "agent work");
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(seen.contains("pre-commit"), "{seen}");
    assert!(
        seen.contains("rt prepared refs/heads/fleet/agent"),
        "{seen}"
    );
    assert!(
        seen.contains("rt committed refs/heads/fleet/agent"),
        "{seen}"
    );
    // The chained hook's failure still fails the commit.
    write(&env.path().join("stop"), "");
    write(&wt.join("w2.txt"), "w\n");
    env.git(&wt, &["add", "-A"]);
    let failed = env.git_cmd(&wt, &["commit", "-m", "stopped"]).run();
    assert_ne!(failed.code, 0);

    let status = env.fleet(&repo, &["hooks", "status", "--json"]).ok();
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let states: Vec<String> = status[0]["dirs"][0]["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            format!(
                "{}={}",
                h["name"].as_str().unwrap(),
                h["state"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            "pre-commit=chained",
            "prepare-commit-msg=installed",
            "reference-transaction=chained",
            "post-checkout=installed"
        ]
    );

    env.fleet(&repo, &["hooks", "uninstall"]).ok();
    for (hook, bytes) in ["pre-commit", "reference-transaction"]
        .iter()
        .zip(&before_bytes)
    {
        assert_eq!(&std::fs::read_to_string(hooks.join(hook)).unwrap(), bytes);
        let mode = std::fs::metadata(hooks.join(hook))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o750, "{hook} mode not restored");
    }
    for hook in ["prepare-commit-msg", "post-checkout"] {
        assert!(!hooks.join(hook).exists(), "{hook} left behind");
    }
    assert!(!hooks.join("pre-commit.fleet-chained").exists());
    // Unguarded again: a commit in the shared checkout goes through.
    std::fs::remove_file(env.path().join("stop")).unwrap();
    env.git(
        &repo,
        &["commit", "--allow-empty", "-q", "-m", "free again"],
    );
}

#[test]
fn a_hook_whose_fleet_binary_is_gone_says_so_and_fails_closed_only_where_it_guards() {
    let env = Env::new();
    let repo = guarded(&env);
    let wt = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "agent"])
            .ok()
            .stdout
            .trim(),
    );
    let hooks = repo.join(".git/hooks");
    for hook in ["pre-commit", "prepare-commit-msg", "reference-transaction"] {
        let path = hooks.join(hook);
        let text = std::fs::read_to_string(&path).unwrap();
        let bin = env!("CARGO_BIN_EXE_fleet");
        let canonical = std::fs::canonicalize(bin).unwrap();
        std::fs::write(
            &path,
            text.replace(canonical.to_str().unwrap(), "/gone/fleet"),
        )
        .unwrap();
    }
    let status = env.fleet(&repo, &["hooks", "status"]).code(1);
    assert!(status.stdout.contains("stale"), "{}", status.stdout);
    // PATH without fleet: the agent's own commit needs no fleet and passes.
    env.commit_file(&wt, "w.txt", "w\n", "agent work");
    let stderr = env.guard_refuses(&repo, &["commit", "-am", "sneak"]);
    assert!(stderr.contains("/gone/fleet"), "{stderr}");
    env.fleet(&repo, &["hooks", "install"]).ok();
    env.fleet(&repo, &["hooks", "status"]).ok();
}

#[test]
fn refused_merges_and_picks_say_how_to_get_back_and_their_abort_passes() {
    let env = Env::new();
    let repo = guarded(&env);
    std::fs::remove_file(repo.join("untracked.txt")).unwrap();
    write(&repo.join("a.txt"), "one\n");
    let before = env.snapshot(&repo);
    for (args, abort) in [
        (vec!["cherry-pick", "other"], vec!["cherry-pick", "--abort"]),
        (
            vec!["revert", "--no-edit", "HEAD"],
            vec!["reset", "--merge"],
        ),
    ] {
        let stderr = env.guard_refuses(&repo, &args);
        let hint = format!("`git {}`", abort.join(" "));
        assert!(stderr.contains(&hint), "{args:?}: {stderr}");
        env.git(&repo, &abort);
        assert_eq!(env.snapshot(&repo), before, "{args:?} then {abort:?}");
    }
}

#[test]
fn a_refused_orphan_switch_puts_every_file_back() {
    let env = Env::new();
    let repo = guarded(&env);
    write(&repo.join("a.txt"), "one\n");
    let before = env.snapshot(&repo);
    env.guard_refuses(&repo, &["switch", "--orphan", "newroot"]);
    assert_eq!(env.snapshot(&repo), before);
}

#[test]
fn commands_that_leave_files_alone_keep_the_users_changes_after_a_refusal() {
    let env = Env::new();
    let repo = guarded(&env);
    env.git(&repo, &["rm", "-q", "b.txt"]);
    // An untracked copy of a file only the other branch has.
    write(&repo.join("other-only.txt"), "x\n");
    let before = env.snapshot(&repo);
    env.guard_refuses(&repo, &["reset", "--soft", "HEAD~1"]);
    env.guard_refuses(&repo, &["reset", "--soft", "other"]);
    env.guard_refuses(&repo, &["update-ref", "HEAD", "other"]);
    env.guard_refuses(&repo, &["symbolic-ref", "HEAD", "refs/heads/other"]);
    assert_eq!(env.snapshot(&repo), before);
}

#[test]
fn put_back_goes_through_the_checkouts_filters() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            (".gitattributes", "* text eol=crlf\n"),
            ("a.txt", "one\n"),
            ("fleet.toml", ""),
        ],
    );
    let wt = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "o"])
            .ok()
            .stdout
            .trim(),
    );
    write(&wt.join("a.txt"), "changed\n");
    write(&wt.join("n.txt"), "new\n");
    env.git(&wt, &["add", "-A"]);
    env.git(&wt, &["commit", "-q", "-m", "other side"]);
    env.git(&repo, &["branch", "side", "fleet/o"]);
    // The file as git checks it out here (CRLF), as in any real checkout of this repo.
    std::fs::remove_file(repo.join("a.txt")).unwrap();
    env.git(&repo, &["checkout", "--", "a.txt"]);
    env.fleet(&repo, &["init"]).ok();
    let before = env.snapshot(&repo);
    env.guard_refuses(&repo, &["switch", "side"]);
    assert_eq!(env.snapshot(&repo), before);
    assert_eq!(std::fs::read(repo.join("a.txt")).unwrap(), b"one\r\n");
}

#[test]
fn install_refuses_where_it_would_do_harm_and_changes_nothing() {
    // A global core.hooksPath: fleet's hooks would run in every repository.
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    let global = env.path().join("global-hooks");
    env.git(
        &repo,
        &[
            "config",
            "--global",
            "core.hooksPath",
            global.to_str().unwrap(),
        ],
    );
    env.refused(&repo, &["hooks", "install"], "global git config");
    assert!(!global.exists());
    assert!(!repo.join(".git/fleet/guard-refs").exists());

    // A tracked hooks folder: installing would change tracked files everywhere.
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[("fleet.toml", ""), (".githooks/pre-commit", "#!/bin/sh\n")],
    );
    env.git(&repo, &["config", "core.hooksPath", ".githooks"]);
    let before = env.snapshot(&repo);
    env.refused(&repo, &["hooks", "install"], "tracks");
    assert_eq!(env.snapshot(&repo), before);

    // reftable: not supported yet, said plainly.
    let env = Env::new();
    let repo = env.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    env.git(
        &repo,
        &["init", "-q", "-b", "main", "--ref-format=reftable"],
    );
    write(&repo.join("fleet.toml"), "");
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "one"]);
    let run = env.fleet(&repo, &["hooks", "install"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("reftable"), "{}", run.stderr);
}

#[test]
fn a_target_changed_after_install_is_guarded_too() {
    let env = Env::new();
    let repo = guarded(&env);
    env.git(&repo, &["branch", "release"]);
    write(&repo.join("fleet.toml"), "[lanes]\ntarget = \"release\"\n");
    env.fleet(&repo, &["status"]).ok();
    let wt = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "agent"])
            .ok()
            .stdout
            .trim(),
    );
    env.commit_file(&wt, "w.txt", "w\n", "agent work");
    env.guard_refuses(&wt, &["update-ref", "refs/heads/release", "HEAD"]);
}

#[test]
fn the_guard_log_keeps_the_git_command_but_not_its_ancestors_arguments() {
    let env = Env::new();
    let repo = guarded(&env);
    env.guard_refuses(&repo, &["commit", "-am", "sneak"]);
    let log = std::fs::read_to_string(repo.join(".git/fleet/guard.log")).unwrap();
    let line: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    let processes = line["processes"].as_array().unwrap();
    assert!(
        processes[0]["args"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "sneak")
    );
    for p in &processes[1..] {
        assert!(p["args"].as_array().unwrap().len() <= 1, "{p}");
    }
}

#[test]
fn an_explicit_work_tree_does_not_unguard_the_shared_checkout() {
    let env = Env::new();
    let repo = guarded(&env);
    // reset --hard discards unstaged edits before any hook runs: start clean.
    write(&repo.join("a.txt"), "one\n");
    let before = env.snapshot(&repo);
    let work_tree = [("GIT_WORK_TREE", repo.to_str().unwrap())];
    for args in [
        vec!["switch", "-q", "--detach"],
        vec!["commit", "-qam", "sneak"],
        vec!["reset", "-q", "--hard", "HEAD~1"],
    ] {
        let run = env.git_cmd(&repo, &args).envs(&work_tree).run();
        assert_ne!(run.code, 0, "{args:?} went through");
    }
    let run = env
        .git_cmd(&repo, &["--work-tree=.", "switch", "-q", "other"])
        .run();
    assert_ne!(run.code, 0);
    assert_eq!(env.snapshot(&repo), before);
}

#[test]
fn put_back_handles_paths_with_quotes_and_newlines() {
    let env = Env::new();
    let repo = guarded(&env);
    write(&repo.join("a.txt"), "one\n");
    let scratch = repo.join("../.fleet-work/repo/scratch");
    write(&scratch.join("\"q\""), "q\n");
    write(&scratch.join("new\nline"), "n\n");
    env.git(&scratch, &["add", "-A"]);
    env.git(&scratch, &["commit", "-q", "-m", "odd names"]);
    env.git(&scratch, &["branch", "-f", "other", "HEAD"]);
    let before = env.snapshot(&repo);
    env.guard_refuses(&repo, &["switch", "other"]);
    assert_eq!(env.snapshot(&repo), before);
}

#[test]
fn a_target_with_a_hostile_name_is_guarded_like_any_other() {
    let env = Env::new();
    let repo = env.path().join("repo");
    let target = "release/ünï-2.0_x";
    env.repo(
        &repo,
        target,
        &[
            ("a.txt", "one\n"),
            ("fleet.toml", &format!("[lanes]\ntarget = \"{target}\"\n")),
        ],
    );
    env.commit_file(&repo, "b.txt", "two\n", "second");
    env.fleet(&repo, &["init"]).ok();
    let refs = std::fs::read_to_string(repo.join(".git/fleet/guard-refs")).unwrap();
    assert!(refs.contains(&format!("refs/heads/{target}")), "{refs}");
    let wt = PathBuf::from(
        env.fleet(&repo, &["worktree", "new", "agent"])
            .ok()
            .stdout
            .trim(),
    );
    env.commit_file(&wt, "w.txt", "w\n", "agent work");
    let tip = env.git(&repo, &["rev-parse", target]);
    env.guard_refuses(
        &wt,
        &["update-ref", &format!("refs/heads/{target}"), "HEAD"],
    );
    env.guard_refuses(&wt, &["update-ref", "-d", &format!("refs/heads/{target}")]);
    let before = env.snapshot(&repo);
    env.guard_refuses(&repo, &["commit", "--allow-empty", "-m", "sneak"]);
    env.guard_refuses(&repo, &["reset", "--hard", "HEAD~1"]);
    assert_eq!(env.snapshot(&repo), before);
    assert_eq!(env.git(&repo, &["rev-parse", target]), tip);
    // Branches whose names merely resemble the target pass.
    env.git(&wt, &["branch", &format!("{target}-copy")]);
    env.git(&wt, &["branch", "-f", &format!("{target}-copy"), "HEAD"]);
}
