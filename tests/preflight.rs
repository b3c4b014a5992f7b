//! `fleet preflight` in every kind of place: exit 0 only in an agent worktree on its
//! own lane branch; every blind case exits 1.

use std::path::Path;

use crate::common::Env;

fn json(run: &crate::common::Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn passes_in_an_agent_worktree_and_its_nested_worktrees() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "a"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    std::fs::create_dir_all(wt.join("sub/dir")).unwrap();
    for (dir, place, nested) in [
        (wt.clone(), "agent", None),
        (wt.join("sub/dir"), "agent", None),
        (wt.join("cockpit"), "nested-agent", Some("cockpit")),
        (
            wt.join("cockpit/engine"),
            "nested-agent",
            Some("cockpit/engine"),
        ),
    ] {
        let run = env.fleet(&dir, &["preflight", "--json"]).ok();
        let r = json(&run);
        assert_eq!(r["ok"], true);
        assert_eq!(r["place"], place, "{}", dir.display());
        assert_eq!(r["agent"], "a");
        assert_eq!(r["branch"], "fleet/a");
        assert_eq!(r["lane"], "fleet/a");
        assert_eq!(r["repo"], outer.display().to_string());
        assert_eq!(r["nested"].as_str(), nested);
    }
    let text = env.fleet(&wt.join("cockpit"), &["preflight"]).ok();
    assert!(
        text.stdout.contains("nested cockpit of agent a"),
        "{}",
        text.stdout
    );
}

#[test]
fn fails_in_the_shared_checkouts() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let r = json(&env.fleet(&outer, &["preflight", "--json"]).code(1));
    assert_eq!(r["place"], "shared");
    assert_eq!(r["ok"], false);
    // Before fleet knows the outer repository, the nested one is a project of its own,
    // as every other command takes it.
    let cockpit = outer.join("cockpit");
    let r = json(&env.fleet(&cockpit, &["preflight", "--json"]).code(1));
    assert_eq!(r["place"], "shared");
    assert_eq!(r["repo"], cockpit.display().to_string());
    env.fleet(&outer, &["init"]).ok();
    let r = json(&env.fleet(&cockpit, &["preflight", "--json"]).code(1));
    assert_eq!(r["place"], "nested-shared");
    assert_eq!(r["repo"], outer.display().to_string());
    assert_eq!(r["nested"], "cockpit");
    let r = json(
        &env.fleet(&outer.join("cockpit/engine"), &["preflight", "--json"])
            .code(1),
    );
    assert_eq!(r["place"], "nested-shared");
    assert_eq!(r["nested"], "cockpit/engine");
    let run = env.refused(&outer, &["preflight"], "this is the shared checkout");
    assert!(run.stderr.contains("fleet worktree new"), "{}", run.stderr);
}

#[test]
fn agent_flag_prints_the_path_and_create_makes_it() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env.refused(&outer, &["preflight", "--agent", "z"], "--create");
    assert_eq!(run.stdout, "");
    // A plain folder where the worktree would be is not the agent's worktree.
    std::fs::create_dir_all(env.path().join(".fleet-work/outer/ghost")).unwrap();
    let run = env.refused(
        &outer,
        &["preflight", "--agent", "ghost"],
        "is not a worktree",
    );
    assert_eq!(run.stdout, "");
    let run = env
        .fleet(&outer, &["preflight", "--agent", "z", "--create"])
        .code(1);
    let path = env.path().join(".fleet-work/outer/z");
    assert_eq!(run.stdout.trim(), path.display().to_string());
    assert_eq!(
        env.git(&path.join("cockpit"), &["symbolic-ref", "--short", "HEAD"]),
        "fleet/z"
    );
    let run = env.fleet(&outer, &["preflight", "--agent", "z"]).code(1);
    assert_eq!(run.stdout.trim(), path.display().to_string());
    // And from there, preflight passes.
    env.fleet(&path, &["preflight"]).ok();
}

#[test]
fn fails_on_a_detached_head_and_on_a_foreign_branch() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "d"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    env.git(&wt, &["switch", "-q", "--detach"]);
    env.refused(&wt, &["preflight"], "HEAD is detached");
    env.git(&wt, &["switch", "-q", "-c", "elsewhere"]);
    env.refused(
        &wt,
        &["preflight"],
        "on elsewhere, but agent d's lane branch is fleet/d",
    );
    env.git(&wt.join("cockpit"), &["switch", "-q", "--detach"]);
    env.fleet(&wt.join("cockpit"), &["preflight"]).code(1);
}

#[test]
fn fails_outside_any_repository_and_in_a_bare_one() {
    let env = Env::new();
    let plain = env.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    env.refused(&plain, &["preflight"], "not inside a git repository");
    let bare = env.path().join("bare.git");
    env.git(
        &env.path(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    env.refused(&bare, &["preflight"], "bare repository");
}

#[test]
fn fails_when_git_dir_or_work_tree_point_elsewhere() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "g"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    let other = outer.join(".git");
    let run = env
        .fleet_cmd(&wt, &["preflight"])
        .envs(&[("GIT_DIR", other.to_str().unwrap())])
        .run()
        .code(1);
    assert!(run.stderr.contains("GIT_DIR="), "{}", run.stderr);
    let run = env
        .fleet_cmd(&wt, &["preflight"])
        .envs(&[("GIT_WORK_TREE", outer.to_str().unwrap())])
        .run()
        .code(1);
    assert!(run.stderr.contains("GIT_WORK_TREE="), "{}", run.stderr);
    for var in [
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_INDEX_FILE",
        "GIT_NAMESPACE",
    ] {
        let run = env
            .fleet_cmd(&wt, &["preflight"])
            .envs(&[(var, other.to_str().unwrap())])
            .run()
            .code(1);
        assert!(run.stderr.contains(var), "{var}: {}", run.stderr);
    }
    // Pointing at the place itself is fine.
    let own = env.git(&wt, &["rev-parse", "--absolute-git-dir"]);
    env.fleet_cmd(&wt, &["preflight"])
        .envs(&[
            ("GIT_DIR", own.as_str()),
            ("GIT_WORK_TREE", wt.to_str().unwrap()),
        ])
        .run()
        .ok();
}

#[test]
fn fails_with_its_own_git_dir_in_a_subfolder_without_work_tree() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = env.agent(&outer, "g");
    env.commit_file(&wt, "sub/s.txt", "s\n", "sub");
    let own = env.git(&wt, &["rev-parse", "--absolute-git-dir"]);
    // git would take sub/ as the top of the worktree: everything else looks deleted.
    let run = env
        .fleet_cmd(&wt.join("sub"), &["preflight"])
        .envs(&[("GIT_DIR", own.as_str())])
        .run()
        .code(1);
    assert!(
        run.stderr.contains("GIT_DIR=") && run.stderr.contains("GIT_WORK_TREE"),
        "{}",
        run.stderr
    );
    // From the top of the worktree, or with GIT_WORK_TREE naming it, git sees it right.
    env.fleet_cmd(&wt, &["preflight"])
        .envs(&[("GIT_DIR", own.as_str())])
        .run()
        .ok();
    env.fleet_cmd(&wt.join("sub"), &["preflight"])
        .envs(&[
            ("GIT_DIR", own.as_str()),
            ("GIT_WORK_TREE", wt.to_str().unwrap()),
        ])
        .run()
        .ok();
}

#[test]
fn fails_in_a_linked_worktree_that_is_not_an_agents() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let stray = env.path().join("stray");
    env.git(
        &outer,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "fleet/stray",
            stray.to_str().unwrap(),
        ],
    );
    env.refused(&stray, &["preflight"], "not an agent worktree");
    // A nested repo's worktree outside any agent worktree.
    let nested_stray = env.path().join("nested-stray");
    env.git(
        &outer.join("cockpit"),
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "x",
            nested_stray.to_str().unwrap(),
        ],
    );
    env.fleet(&nested_stray, &["preflight"]).code(1);
}

#[test]
fn symlinked_paths_resolve_to_the_right_answer() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = Path::new(
        env.fleet(&outer, &["worktree", "new", "s"])
            .ok()
            .stdout
            .trim(),
    )
    .to_path_buf();
    let to_agent = env.path().join("to-agent");
    std::os::unix::fs::symlink(wt.join("cockpit"), &to_agent).unwrap();
    let r = json(&env.fleet(&to_agent, &["preflight", "--json"]).ok());
    assert_eq!(r["place"], "nested-agent");
    assert_eq!(r["agent"], "s");
    let to_shared = env.path().join("to-shared");
    std::os::unix::fs::symlink(&outer, &to_shared).unwrap();
    let r = json(&env.fleet(&to_shared, &["preflight", "--json"]).code(1));
    assert_eq!(r["place"], "shared");
}

#[test]
fn a_project_inside_an_unrelated_repository_still_passes_in_its_agent_worktrees() {
    let env = Env::new();
    let dotfiles = env.path().join("home-repo");
    env.repo(&dotfiles, "main", &[(".bashrc", "x\n")]);
    let project = dotfiles.join("src/project");
    env.repo(&project, "main", &[("README", "p\n")]);
    let run = env.fleet(&project, &["worktree", "new", "a"]).ok();
    assert!(
        run.stderr.contains("it is taken as a project of its own"),
        "{}",
        run.stderr
    );
    let wt = std::path::PathBuf::from(run.stdout.trim());
    let r = json(&env.fleet(&wt, &["preflight", "--json"]).ok());
    assert_eq!(r["place"], "agent");
    assert_eq!(r["repo"], project.display().to_string());
    // fleet run once in the dotfiles repository (a watchdog, a dry-run landing) leaves
    // state there; the project, which has agent worktrees of its own, is not taken over.
    env.fleet(&dotfiles, &["land", "--all", "--dry-run"]);
    assert!(dotfiles.join(".git/fleet").is_dir());
    let run = env.fleet(&project, &["worktree", "new", "b"]).ok();
    assert_eq!(
        run.stdout.trim(),
        dotfiles
            .join("src/.fleet-work/project/b")
            .display()
            .to_string()
    );
    let list = env.fleet(&project, &["worktree", "list"]).ok();
    assert!(list.stdout.contains("fleet/a"), "{}", list.stdout);
}

#[test]
fn a_submodule_is_not_an_agent_worktree() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let wt = std::path::PathBuf::from(
        env.fleet(&outer, &["worktree", "new", "a"])
            .ok()
            .stdout
            .trim(),
    );
    env.git(&wt.join("vendor/lib"), &["switch", "-q", "-c", "fleet/a"]);
    env.refused(&wt.join("vendor/lib"), &["preflight"], "submodule");
}

#[test]
fn fails_inside_a_git_directory() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.fleet(&outer, &["worktree", "new", "g"]).ok();
    env.refused(
        &outer.join(".git/worktrees/g"),
        &["preflight"],
        "inside a git directory",
    );
}

/// `--agent NAME` says who the worker is: in another agent's worktree that is no pass,
/// and the path printed (created with `--create`) is NAME's own.
#[test]
fn agent_flag_in_another_agents_worktree_fails_and_points_to_the_right_one() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let alice = env.agent(&outer, "alice");
    env.fleet(&alice, &["preflight", "--agent", "alice"]).ok();
    let run = env.refused(
        &alice.join("cockpit"),
        &["preflight", "--agent", "bob"],
        "not bob's",
    );
    assert!(run.stderr.contains("--create"), "{}", run.stderr);
    let run = env
        .fleet(&alice, &["preflight", "--agent", "bob", "--create"])
        .code(1);
    let bob = env.path().join(".fleet-work/outer/bob");
    assert_eq!(run.stdout.trim(), bob.display().to_string());
    env.fleet(&bob, &["preflight", "--agent", "bob"]).ok();
    env.fleet(&alice, &["preflight", "--agent", "no/such"])
        .code(2);
}

#[test]
fn an_unborn_lane_branch_is_no_pass() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let a = env.agent(&outer, "a");
    env.git(&a, &["update-ref", "-d", "refs/heads/fleet/a"]);
    env.refused(&a, &["preflight"], "has no commits");
}

#[test]
fn a_worktree_of_a_bare_repository_is_named_as_such() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let bare = env.path().join("bare.git");
    env.git(
        env.path().as_path(),
        &["clone", "-q", "--bare", outer.to_str().unwrap(), "bare.git"],
    );
    let wt = env.path().join("bare-wt");
    env.git(
        &bare,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "main"],
    );
    env.refused(
        &wt,
        &["preflight"],
        "is a linked worktree of the bare repository",
    );
}
