//! A lane's life told the same way by every command: `worktree new` tracks it, the
//! worker marks it ready with its own test result, `land` lands it, `worktree rm`
//! clears it, and `status`, `doctor` and `worktree list` agree afterwards, also when a
//! later lane rewrites a landed lane's lines.

use std::path::Path;

use crate::common::{Env, assert::lane_states, write};

fn status(env: &Env, repo: &Path) -> serde_json::Value {
    serde_json::from_str(&env.fleet(repo, &["status", "--json"]).ok().stdout).unwrap()
}

/// The worker's last step, in its worktree: its tests' exit code and log (kept outside
/// the worktree, which must be clean to be marked ready).
fn worker_ready(env: &Env, wt: &Path) {
    let log = env
        .path()
        .join(format!("{}.log", wt.file_name().unwrap().to_str().unwrap()));
    write(&log, "all tests passed\n");
    env.fleet(
        wt,
        &["ready", "--exit-code", "0", "--log", log.to_str().unwrap()],
    )
    .ok();
}

#[test]
fn worktree_new_tracks_the_lane_so_the_workers_own_ready_works() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let wt = env.agent(&repo, "alpha");
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/alpha".to_string(), "running".to_string())]
    );
    let main = env.git(&repo, &["rev-parse", "main"]);
    let lanes = status(&env, &repo);
    assert_eq!(lanes[0]["tip"], main.as_str(), "tracked at its base");
    // Running `worktree new` again changes nothing.
    env.agent(&repo, "alpha");
    assert_eq!(status(&env, &repo).as_array().unwrap().len(), 1);
    env.commit_file(&wt, "a.txt", "a\n", "alpha work");
    // Tracking it again by hand is no refusal (older scripts do it), and changes nothing.
    let registry = env.git(&repo, &["rev-parse", "refs/fleet/lanes"]);
    let run = env.fleet(&repo, &["track", "alpha"]).ok();
    assert!(
        run.stderr.contains("already a lane (running"),
        "{}",
        run.stderr
    );
    assert_eq!(env.git(&repo, &["rev-parse", "refs/fleet/lanes"]), registry);
    worker_ready(&env, &wt);
    let lanes = status(&env, &repo);
    assert_eq!(lanes[0]["state"], "ready");
    assert_eq!(lanes[0]["worker"]["exit_code"], 0);
    assert!(lanes[0]["worker"]["log"].is_string(), "{lanes}");
    // A ready lane tracked again is still refused.
    env.refused(&repo, &["track", "alpha"], "already a lane (ready)");
}

#[test]
fn track_ready_of_a_running_lane_marks_it_ready() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let wt = env.agent(&repo, "alpha");
    env.commit_file(&wt, "a.txt", "a\n", "alpha work");
    env.fleet(&repo, &["track", "--ready", "alpha"]).ok();
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/alpha".to_string(), "ready".to_string())]
    );
}

/// `fleet doctor --json`: its exit code and the verdict of each check by name.
fn doctor(env: &Env, repo: &Path) -> (i32, serde_json::Value) {
    let run = env.fleet(repo, &["doctor", "--json"]);
    (run.code, serde_json::from_str(&run.stdout).unwrap())
}

fn worktree_list(env: &Env, repo: &Path) -> serde_json::Value {
    serde_json::from_str(&env.fleet(repo, &["worktree", "list", "--json"]).ok().stdout).unwrap()
}

#[test]
fn an_ordinary_day_of_new_ready_land_rm_leaves_doctor_green_and_nothing_tracked() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["init"]).ok();
    for name in ["alpha", "beta", "gamma"] {
        let wt = env.agent(&repo, name);
        env.commit_file(
            &wt,
            &format!("{name}.txt"),
            "work\n",
            &format!("{name} work"),
        );
        worker_ready(&env, &wt);
    }
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    for name in ["alpha", "beta", "gamma"] {
        env.fleet(&repo, &["worktree", "rm", name]).ok();
    }
    assert_eq!(
        status(&env, &repo),
        serde_json::json!([]),
        "rm untracks landed lanes"
    );
    assert_eq!(worktree_list(&env, &repo), serde_json::json!([]));
    for name in ["alpha", "beta", "gamma"] {
        assert!(
            !env.branches(&repo)
                .contains(&format!("refs/heads/fleet/{name}")),
            "{name}'s branch is deleted"
        );
    }
    let (code, checks) = doctor(&env, &repo);
    assert_eq!(code, 0, "{checks:#}");
}

#[test]
fn untrack_landed_clears_every_landed_lane_and_keeps_the_others() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    for name in ["alpha", "beta"] {
        let wt = env.agent(&repo, name);
        env.commit_file(
            &wt,
            &format!("{name}.txt"),
            "work\n",
            &format!("{name} work"),
        );
    }
    env.fleet(&repo, &["ready", "alpha"]).ok();
    env.fleet(&repo, &["land", "alpha", "--yes"]).ok();
    env.fleet(&repo, &["untrack", "--landed"]).ok();
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/beta".to_string(), "running".to_string())]
    );
    assert!(
        env.branches(&repo)
            .contains(&"refs/heads/fleet/alpha".to_string()),
        "untrack keeps branches"
    );
}

#[test]
fn a_landed_lane_stays_landed_when_a_later_lane_rewrites_its_lines() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["init"]).ok();
    let alpha = env.agent(&repo, "alpha");
    env.commit_file(&alpha, "shared.txt", "alpha\n", "alpha: shared line");
    worker_ready(&env, &alpha);
    // Another lane lands first, so alpha lands rebased (not as its own commits).
    let zeta = env.agent(&repo, "zeta");
    env.commit_file(&zeta, "zeta.txt", "z\n", "zeta work");
    worker_ready(&env, &zeta);
    env.fleet(&repo, &["land", "zeta", "--yes"]).ok();
    env.fleet(&repo, &["worktree", "rm", "zeta"]).ok();
    env.fleet(&repo, &["land", "alpha", "--yes"]).ok();
    let alpha_tip = env.git(&repo, &["rev-parse", "fleet/alpha"]);
    assert_ne!(
        env.git(&repo, &["merge-base", "main", "fleet/alpha"]),
        alpha_tip,
        "alpha landed rebased"
    );
    let beta = env.agent(&repo, "beta");
    env.commit_file(&beta, "shared.txt", "beta\n", "beta: rewrites alpha's line");
    worker_ready(&env, &beta);
    env.fleet(&repo, &["land", "beta", "--yes"]).ok();
    let main = env.git(&repo, &["rev-parse", "main"]);

    // status: landed, no conflict.
    let lanes = status(&env, &repo);
    let alpha_view = &lanes[0];
    assert_eq!(alpha_view["branch"], "fleet/alpha");
    assert_eq!(alpha_view["state"], "landed", "{lanes:#}");
    assert_eq!(alpha_view["conflicts"], serde_json::json!([]), "{lanes:#}");
    // land: nothing to land, and alpha named is already landed; main untouched.
    let run = env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert!(run.stderr.contains("nothing to land"), "{}", run.stderr);
    let run = env.fleet(&repo, &["land", "alpha", "--yes", "--json"]).ok();
    assert!(run.stdout.contains("already-landed"), "{}", run.stdout);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    assert_eq!(env.git(&repo, &["show", "main:shared.txt"]), "beta");
    assert_eq!(lane_states(&env, &repo)[0].1, "landed");
    // doctor: green.
    let (code, checks) = doctor(&env, &repo);
    assert_eq!(code, 0, "{checks:#}");
    // rm: removes it, deletes its branch and untracks it.
    env.fleet(&repo, &["worktree", "rm", "alpha"]).ok();
    assert!(!alpha.exists());
    assert!(
        !env.branches(&repo)
            .contains(&"refs/heads/fleet/alpha".to_string())
    );
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/beta".to_string(), "landed".to_string())]
    );
}

#[test]
fn a_conflict_is_reported_with_a_help_line_and_each_path_once() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    for name in ["alpha", "beta"] {
        let wt = env.agent(&repo, name);
        env.commit_file(
            &wt,
            "shared.txt",
            &format!("{name}\n"),
            &format!("{name} edits"),
        );
        worker_ready(&env, &wt);
    }
    env.fleet(&repo, &["land", "alpha", "--yes"]).ok();
    let main = env.git(&repo, &["rev-parse", "main"]);
    let run = env.refused_and_unchanged(
        &repo,
        &["land", "beta", "--yes"],
        "conflicts with the target in shared.txt",
        &main,
    );
    assert!(
        run.stderr.contains("help:") && run.stderr.contains("git rebase"),
        "{}",
        run.stderr
    );
    assert_eq!(lane_states(&env, &repo)[1].1, "conflicted");
    let text = env.fleet(&repo, &["status"]).ok().stdout;
    let line = text.lines().find(|l| l.contains("fleet/beta")).unwrap();
    assert_eq!(line.matches("shared.txt").count(), 1, "{text}");
}

#[test]
fn land_remote_with_lanes_ready_only_here_says_how_to_publish_them() {
    let env = Env::new();
    let repo = machine_of_a_bare_remote(&env, "[gate]\ncommands = [\"true\"]\n");
    let wt = env.agent(&repo, "alpha");
    env.commit_file(&wt, "a.txt", "a\n", "alpha work");
    worker_ready(&env, &wt);
    let before = env.git(&repo, &["ls-remote", "origin"]);
    let run = env.refused(
        &repo,
        &["land", "--remote", "origin", "--all", "--yes"],
        "ready only in this repository's own queue: fleet/alpha",
    );
    assert!(
        run.stderr
            .contains("fleet track --remote origin --ready fleet/alpha"),
        "{}",
        run.stderr
    );
    let run = env
        .fleet(&repo, &["land", "--remote", "origin", "alpha", "--yes"])
        .code(2);
    assert!(
        run.stderr
            .contains("fleet track --remote origin --ready fleet/alpha"),
        "{}",
        run.stderr
    );
    assert_eq!(
        env.git(&repo, &["ls-remote", "origin"]),
        before,
        "nothing pushed"
    );
    // Published as the help says, it lands on the remote.
    env.fleet(
        &repo,
        &["track", "--remote", "origin", "--ready", "fleet/alpha"],
    )
    .ok();
    env.fleet(&repo, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(
        env.git(&repo, &["rev-parse", "origin/main:a.txt"]),
        env.git(&repo, &["rev-parse", "fleet/alpha:a.txt"])
    );
}

#[test]
fn sibling_repositories_get_their_own_default_worktree_root() {
    let env = Env::new();
    let (app, app2) = (env.path().join("app"), env.path().join("app2"));
    env.repo(&app, "main", &[("README", "one\n")]);
    env.repo(&app2, "main", &[("README", "two\n")]);
    let a = env.agent(&app, "task-42");
    let b = env.agent(&app2, "task-42");
    assert_eq!(a, env.path().join(".fleet-work/app/task-42"));
    assert_eq!(b, env.path().join(".fleet-work/app2/task-42"));
    assert_eq!(std::fs::read_to_string(a.join("README")).unwrap(), "one\n");
    assert_eq!(std::fs::read_to_string(b.join("README")).unwrap(), "two\n");
    env.fleet(&app2, &["worktree", "rm", "task-42"]).ok();
    assert!(a.exists() && !b.exists(), "each repository removes its own");
}

#[test]
fn a_shared_root_collision_names_the_repository_that_owns_the_folder() {
    let env = Env::new();
    let (app, app2) = (env.path().join("app"), env.path().join("app2"));
    env.repo(&app, "main", &[("README", "one\n")]);
    env.repo(&app2, "main", &[("README", "two\n")]);
    for repo in [&app, &app2] {
        write(
            &repo.join("fleet.toml"),
            "[worktrees]\nroot = \"../shared-root\"\n",
        );
    }
    env.agent(&app, "task-42");
    let run = env.refused(&app2, &["worktree", "new", "task-42"], "another repository");
    assert!(run.stderr.contains(app.to_str().unwrap()), "{}", run.stderr);
    assert!(
        run.stderr.contains("[worktrees] root") && !run.stderr.contains("worktree rm"),
        "{}",
        run.stderr
    );
    assert!(
        !env.branches(&app2)
            .contains(&"refs/heads/fleet/task-42".to_string()),
        "nothing made in app2"
    );
}

#[test]
fn worktree_new_with_the_queue_on_a_remote_says_how_to_track_the_lane() {
    let env = Env::new();
    let repo = machine_of_a_bare_remote(
        &env,
        "[lanes]\nremote = \"origin\"\n[gate]\ncommands = [\"true\"]\n",
    );
    let run = env.fleet(&repo, &["worktree", "new", "alpha"]).ok();
    assert!(
        run.stderr
            .contains("`fleet track fleet/alpha` publishes and tracks it"),
        "{}",
        run.stderr
    );
    assert_eq!(
        env.git_cmd(&repo, &["rev-parse", "--verify", "-q", "refs/fleet/lanes"])
            .run()
            .code,
        1,
        "nothing tracked in this repository's own registry"
    );
    env.fleet(&repo, &["track", "alpha"]).ok();
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/alpha".to_string(), "running".to_string())]
    );
}

#[test]
fn a_landed_lane_with_a_nested_part_stays_landed_when_a_later_lane_rewrites_it() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    env.commit_file(
        &outer,
        "fleet.toml",
        "[gate]\ncommands = [\"true\"]\n",
        "gate",
    );
    let land = |name: &str, file: &str, text: &str| {
        let wt = env.agent(&outer, name);
        env.commit_file(&wt.join("cockpit"), file, text, &format!("{name}: c"));
        env.commit_file(
            &wt,
            &format!("{name}.txt"),
            "x\n",
            &format!("{name}: outer"),
        );
        worker_ready(&env, &wt);
        env.fleet(&outer, &["land", name, "--yes"]).ok();
        wt
    };
    let alpha = env.agent(&outer, "alpha");
    env.commit_file(&alpha.join("cockpit"), "c.txt", "alpha\n", "alpha: c");
    env.commit_file(&alpha, "alpha.txt", "x\n", "alpha: outer");
    worker_ready(&env, &alpha);
    // Another lane lands first in both repositories, so alpha lands rebased.
    land("zeta", "z.txt", "zeta\n");
    env.fleet(&outer, &["land", "alpha", "--yes"]).ok();
    land("beta", "c.txt", "beta\n");
    assert_eq!(
        lane_states(&env, &outer)[0],
        ("fleet/alpha".into(), "landed".into())
    );
    env.fleet(&outer, &["worktree", "rm", "alpha"]).ok();
    for repo in [outer.clone(), outer.join("cockpit")] {
        assert!(
            !env.branches(&repo)
                .contains(&"refs/heads/fleet/alpha".to_string()),
            "alpha's branch kept in {}",
            repo.display()
        );
    }
    assert!(
        !lane_states(&env, &outer)
            .iter()
            .any(|(b, _)| b == "fleet/alpha")
    );
}

/// machine/: a clone of remote.git (bare, on local disk) whose main holds README and
/// `fleet_toml` as fleet.toml.
fn machine_of_a_bare_remote(env: &Env, fleet_toml: &str) -> std::path::PathBuf {
    let root = env.path();
    env.git(&root, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    let seed = root.join("seed");
    env.repo(
        &seed,
        "main",
        &[("README", "r\n"), ("fleet.toml", fleet_toml)],
    );
    env.git(&seed, &["remote", "add", "origin", "../remote.git"]);
    env.git(&seed, &["push", "-q", "origin", "main"]);
    env.git(&root, &["clone", "-q", "remote.git", "machine"]);
    root.join("machine")
}
