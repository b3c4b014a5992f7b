//! A whole day of lanes, and the commands that must tell it the same way: three workers
//! through `worktree new` -> commit -> `ready --log` -> `land` -> `worktree rm`, after
//! which `status`, `doctor`, `verify` and `worktree list` agree and are green; a landed
//! lane later rewritten by another; a revert in a project with a nested repository; a
//! reverted lane read the same by every command; and conflicts predicted between ready
//! lanes, not only against the target.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Env, assert::lane_states, assert::receipt, write};

fn json_of(env: &Env, repo: &Path, args: &[&str], code: i32) -> Value {
    let run = env.fleet(repo, args).code(code);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{}", run.stdout))
}

fn status(env: &Env, repo: &Path) -> Value {
    json_of(env, repo, &["status", "--json"], 0)
}

/// The one lane of `status --json` on `branch`.
fn lane<'v>(status: &'v Value, branch: &str) -> &'v Value {
    status
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["branch"] == branch)
        .unwrap_or_else(|| panic!("no lane {branch} in {status:#}"))
}

/// The worker's last step, in its worktree: its tests' exit code and log (kept outside
/// the worktree, which must be clean to be marked ready).
fn worker_ready(env: &Env, wt: &Path) {
    let name = wt.file_name().unwrap().to_str().unwrap();
    let log = env.path().join(format!("{name}.log"));
    write(&log, "all tests passed\n");
    env.fleet(
        wt,
        &["ready", "--exit-code", "0", "--log", log.to_str().unwrap()],
    )
    .ok();
}

/// A worker's whole turn: its worktree, one commit per (file, text), and `ready`.
fn worker(env: &Env, repo: &Path, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let wt = env.agent(repo, name);
    for (file, text) in files {
        env.commit_file(&wt, file, text, &format!("{name}: {file}"));
    }
    worker_ready(env, &wt);
    wt
}

/// `doctor`, `verify` and `worktree list` after a day whose lanes are all removed:
/// doctor has no failing check and exits 0, verify vouches for every move of the target
/// (naming `lanes`, in landing order) and lists none unverified, and no agent worktree
/// is left. Status is the caller's to check (what is left tracked differs).
fn green_and_agreeing(env: &Env, repo: &Path, lanes: &[&str]) {
    let checks = json_of(env, repo, &["doctor", "--json"], 0);
    for c in checks.as_array().unwrap() {
        assert_ne!(c["verdict"], "fail", "{checks:#}");
    }
    let report = json_of(env, repo, &["verify", "--json"], 0);
    assert_eq!(report["unverified"], json!([]), "{report:#}");
    let mut verified: Vec<&str> = report["verified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["lane"].as_str().unwrap())
        .collect();
    verified.reverse();
    assert_eq!(verified, lanes, "{report:#}");
    assert_eq!(
        json_of(env, repo, &["worktree", "list", "--json"], 0),
        json!([])
    );
}

fn assert_no_branch(env: &Env, repo: &Path, branch: &str) {
    assert!(
        !env.branches(repo).contains(&format!("refs/heads/{branch}")),
        "{branch} kept in {}",
        repo.display()
    );
}

#[test]
fn three_workers_through_a_day_leave_status_doctor_verify_and_worktree_list_agreeing() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["init"]).ok();
    for name in ["alpha", "beta", "gamma"] {
        worker(&env, &repo, name, &[(&format!("{name}.txt"), "work\n")]);
    }
    let before = status(&env, &repo);
    for name in ["alpha", "beta", "gamma"] {
        let l = lane(&before, &format!("fleet/{name}"));
        assert_eq!(l["state"], "ready", "{before:#}");
        assert!(l["worker"]["log"].is_string(), "{before:#}");
    }
    let landed = json_of(&env, &repo, &["land", "--all", "--yes", "--json"], 0);
    assert_eq!(
        landed
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["result"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["landed"; 3],
        "{landed:#}"
    );
    // Before rm: status calls each landed, with no conflict, and worktree list shows
    // each worktree on its lane with nothing the target lacks.
    let after = status(&env, &repo);
    let listed = json_of(&env, &repo, &["worktree", "list", "--json"], 0);
    for name in ["alpha", "beta", "gamma"] {
        let l = lane(&after, &format!("fleet/{name}"));
        assert_eq!(l["state"], "landed", "{after:#}");
        assert_eq!(l["conflicts"], json!([]), "{after:#}");
        let wt = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed: {listed:#}"));
        assert_eq!(wt["branch"], format!("fleet/{name}"));
        assert_eq!(wt["path"], l["worktree"], "{listed:#}");
        assert_eq!(wt["dirty"], false, "{listed:#}");
    }
    for name in ["alpha", "beta", "gamma"] {
        env.fleet(&repo, &["worktree", "rm", name]).ok();
        assert_no_branch(&env, &repo, &format!("fleet/{name}"));
    }
    assert_eq!(status(&env, &repo), json!([]));
    for name in ["alpha", "beta", "gamma"] {
        assert_eq!(
            env.git(&repo, &["show", &format!("main:{name}.txt")]),
            "work"
        );
    }
    green_and_agreeing(&env, &repo, &["fleet/alpha", "fleet/beta", "fleet/gamma"]);
}

#[test]
fn a_day_where_a_later_lane_rewrites_a_landed_one_still_agrees_everywhere() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["init"]).ok();
    worker(&env, &repo, "alpha", &[("shared.txt", "alpha\n")]);
    worker(&env, &repo, "gamma", &[("gamma.txt", "g\n")]);
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    // beta starts after alpha landed and rewrites alpha's line; alpha's worktree stays.
    let beta = worker(&env, &repo, "beta", &[("shared.txt", "beta\n")]);
    env.fleet(&repo, &["land", "beta", "--yes"]).ok();
    assert_eq!(env.git(&repo, &["show", "main:shared.txt"]), "beta");
    let lanes = status(&env, &repo);
    for name in ["fleet/alpha", "fleet/beta", "fleet/gamma"] {
        assert_eq!(lane(&lanes, name)["state"], "landed", "{lanes:#}");
        assert_eq!(lane(&lanes, name)["conflicts"], json!([]), "{lanes:#}");
    }
    let run = env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert!(run.stderr.contains("nothing to land"), "{}", run.stderr);
    assert!(beta.exists());
    for name in ["alpha", "beta", "gamma"] {
        env.fleet(&repo, &["worktree", "rm", name]).ok();
        assert_no_branch(&env, &repo, &format!("fleet/{name}"));
    }
    assert_eq!(status(&env, &repo), json!([]));
    green_and_agreeing(&env, &repo, &["fleet/alpha", "fleet/gamma", "fleet/beta"]);
}

/// outer/ (with cockpit/ and cockpit/engine/ nested, ignored) whose main holds a gate
/// that always passes, committed before `fleet init` guards the shared checkout.
fn nested_project(env: &Env) -> PathBuf {
    let outer = env.outer_with_nested();
    env.commit_file(
        &outer,
        "fleet.toml",
        "[gate]\ncommands = [\"true\"]\n",
        "gate",
    );
    env.fleet(&outer, &["init"]).ok();
    outer
}

#[test]
fn revert_of_a_landed_lane_works_in_a_project_with_a_nested_repository() {
    let env = Env::new();
    let outer = nested_project(&env);
    let cockpit = outer.join("cockpit");
    let engine = cockpit.join("engine");
    // worktree new made alpha's (empty) branches in cockpit and engine too.
    let alpha = worker(&env, &outer, "alpha", &[("alpha.txt", "a\n")]);
    assert!(
        env.branches(&cockpit)
            .contains(&"refs/heads/fleet/alpha".to_string())
    );
    worker(&env, &outer, "beta", &[("beta.txt", "b\n")]);
    env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    let (cockpit_main, engine_dev) = (
        env.git(&cockpit, &["rev-parse", "main"]),
        env.git(&engine, &["rev-parse", "dev"]),
    );

    let run = env
        .fleet(&outer, &["revert", "alpha", "--yes", "--json"])
        .ok();
    assert!(run.stdout.contains("\"landed\""), "{}", run.stdout);
    let files = env.git(&outer, &["ls-tree", "--name-only", "main"]);
    assert!(
        !files.contains("alpha.txt") && files.contains("beta.txt"),
        "{files}"
    );
    assert!(!outer.join("alpha.txt").exists(), "shared checkout follows");
    assert_eq!(
        receipt(&env, &outer, "main")["lane"].as_str(),
        Some("revert/fleet/alpha")
    );
    assert_eq!(env.git(&cockpit, &["rev-parse", "main"]), cockpit_main);
    assert_eq!(env.git(&engine, &["rev-parse", "dev"]), engine_dev);
    let lanes = status(&env, &outer);
    assert_eq!(
        lane(&lanes, "fleet/alpha")["state"],
        "reverted",
        "{lanes:#}"
    );
    assert_eq!(
        lane(&lanes, "revert/fleet/alpha")["state"],
        "landed",
        "{lanes:#}"
    );
    // verify tells the same: alpha's landing stands, reverted by the move to main.
    let report = json_of(&env, &outer, &["verify", "--json"], 0);
    let main = env.git(&outer, &["rev-parse", "main"]);
    let alpha_landing = report["verified"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["lane"] == "fleet/alpha")
        .unwrap();
    assert_eq!(alpha_landing["reverted_by"], main.as_str(), "{report:#}");
    assert!(
        report["verified"][0].get("reverted_by").is_none(),
        "{report:#}"
    );

    // The end of the day: every worktree removed, every branch gone, all green.
    for name in ["alpha", "beta"] {
        env.fleet(&outer, &["worktree", "rm", name]).ok();
        for repo in [&outer, &cockpit, &engine] {
            assert_no_branch(&env, repo, &format!("fleet/{name}"));
        }
    }
    assert!(!alpha.exists());
    env.fleet(&outer, &["untrack", "--landed"]).ok();
    assert_eq!(status(&env, &outer), json!([]));
    green_and_agreeing(
        &env,
        &outer,
        &["fleet/alpha", "fleet/beta", "revert/fleet/alpha"],
    );
}

#[test]
fn revert_still_refuses_a_lane_that_landed_parts_in_a_nested_repository_and_says_how() {
    let env = Env::new();
    let outer = nested_project(&env);
    let wt = env.agent(&outer, "alpha");
    env.commit_file(&wt.join("cockpit"), "c.txt", "alpha\n", "alpha: c");
    env.commit_file(&wt, "alpha.txt", "a\n", "alpha: outer");
    worker_ready(&env, &wt);
    env.fleet(&outer, &["land", "alpha", "--yes"]).ok();
    let main = env.git(&outer, &["rev-parse", "main"]);
    let run = env.refused_and_unchanged(
        &outer,
        &["revert", "alpha", "--yes"],
        "landed parts in nested repositories (cockpit)",
        &main,
    );
    assert!(
        run.stderr.contains("fleet worktree new revert-alpha")
            && run.stderr.contains("in cockpit: `git diff"),
        "{}",
        run.stderr
    );
    assert_eq!(
        lane(&status(&env, &outer), "fleet/alpha")["state"],
        "landed"
    );
    // The help, followed: a new lane whose parts reverse each move of the unit.
    let help = run.stderr.lines().find(|l| l.contains("help:")).unwrap();
    let undo = env.agent(&outer, "revert-alpha");
    for rel in ["cockpit", "."] {
        let from = help.find(&format!("in {rel}: `git diff ")).unwrap() + rel.len() + 15;
        let ids: Vec<&str> = help[from..].split_whitespace().take(2).collect();
        let dir = undo.join(rel);
        // Untrimmed: a patch ends with its newline, as a shell pipe keeps it.
        let patch = env
            .git_cmd(&dir, &["diff", ids[0], ids[1]])
            .run()
            .ok()
            .stdout;
        env.git_cmd(&dir, &["apply", "--index"])
            .stdin(&patch)
            .run()
            .ok();
        env.git(&dir, &["commit", "-q", "-m", "Revert fleet/alpha here"]);
    }
    worker_ready(&env, &undo);
    env.fleet(&outer, &["land", "revert-alpha", "--yes"]).ok();
    assert_eq!(
        env.git(&outer.join("cockpit"), &["show", "main:c.txt"]),
        "cockpit"
    );
    assert!(
        !env.git(&outer, &["ls-tree", "--name-only", "main"])
            .contains("alpha.txt")
    );
}

#[test]
fn a_reverted_lane_is_told_reverted_by_status_land_ready_rm_and_doctor() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["init"]).ok();
    // alpha lands as its own commit (fast-forward), beta rebased on top of it.
    worker(&env, &repo, "alpha", &[("alpha.txt", "a\n")]);
    worker(&env, &repo, "beta", &[("beta.txt", "b\n")]);
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    for name in ["alpha", "beta"] {
        env.fleet(&repo, &["revert", name, "--yes"]).ok();
    }
    let main = env.git(&repo, &["rev-parse", "main"]);
    let files = env.git(&repo, &["ls-tree", "--name-only", "main"]);
    assert!(
        !files.contains("alpha.txt") && !files.contains("beta.txt"),
        "{files}"
    );
    let lanes = status(&env, &repo);
    for name in ["fleet/alpha", "fleet/beta"] {
        assert_eq!(lane(&lanes, name)["state"], "reverted", "{lanes:#}");
        assert_eq!(lane(&lanes, name)["conflicts"], json!([]), "{lanes:#}");
    }
    let text = env.fleet(&repo, &["status"]).ok().stdout;
    assert!(
        text.lines()
            .any(|l| l.starts_with("fleet/alpha") && l.contains("reverted")),
        "{text}"
    );
    // land: not taken by --all, refused by name with the way back; main untouched.
    let run = env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert!(run.stderr.contains("nothing to land"), "{}", run.stderr);
    let run = env.refused_and_unchanged(&repo, &["land", "alpha", "--yes"], "was reverted", &main);
    assert!(
        run.stderr.contains("fleet revert revert/fleet/alpha"),
        "{}",
        run.stderr
    );
    env.refused(&repo, &["ready", "alpha"], "was reverted");
    assert_eq!(lane_states(&env, &repo)[0].1, "reverted");
    let checks = json_of(&env, &repo, &["doctor", "--json"], 0);
    assert!(
        checks
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["verdict"] != "fail"),
        "{checks:#}"
    );
    // The way back the refusal names: reverting the revert lands alpha's work again,
    // and alpha is landed again.
    env.fleet(&repo, &["revert", "revert/fleet/alpha", "--yes"])
        .ok();
    assert_eq!(env.git(&repo, &["show", "main:alpha.txt"]), "a");
    let lanes = status(&env, &repo);
    assert_eq!(lane(&lanes, "fleet/alpha")["state"], "landed", "{lanes:#}");
    assert_eq!(lane(&lanes, "revert/fleet/alpha")["state"], "reverted");
    // Reverting alpha again goes through the lane that brought it back.
    let main = env.git(&repo, &["rev-parse", "main"]);
    let run =
        env.refused_and_unchanged(&repo, &["revert", "alpha", "--yes"], "landed again", &main);
    assert!(
        run.stderr
            .contains("fleet revert revert/revert/fleet/alpha"),
        "{}",
        run.stderr
    );
    env.fleet(&repo, &["revert", "revert/revert/fleet/alpha", "--yes"])
        .ok();
    assert!(
        !env.git(&repo, &["ls-tree", "--name-only", "main"])
            .contains("alpha.txt")
    );
    let states: Vec<(String, String)> = lane_states(&env, &repo)
        .into_iter()
        .filter(|(b, _)| b.ends_with("fleet/alpha"))
        .collect();
    assert_eq!(
        states,
        [
            ("fleet/alpha", "reverted"),
            ("revert/fleet/alpha", "landed"),
            ("revert/revert/fleet/alpha", "reverted"),
            ("revert/revert/revert/fleet/alpha", "landed"),
        ]
        .map(|(b, s)| (b.to_string(), s.to_string()))
    );
    // rm: finished work (in the target's history as its landing), so removed and
    // untracked without --force.
    for name in ["alpha", "beta"] {
        env.fleet(&repo, &["worktree", "rm", name]).ok();
        assert_no_branch(&env, &repo, &format!("fleet/{name}"));
    }
    env.fleet(&repo, &["untrack", "--landed"]).ok();
    assert_eq!(status(&env, &repo), json!([]));
    green_and_agreeing(
        &env,
        &repo,
        &[
            "fleet/alpha",
            "fleet/beta",
            "revert/fleet/alpha",
            "revert/fleet/beta",
            "revert/revert/fleet/alpha",
            "revert/revert/revert/fleet/alpha",
        ],
    );
}

#[test]
fn a_lane_that_landed_only_in_a_nested_repository_is_landed_everywhere() {
    let env = Env::new();
    let outer = nested_project(&env);
    let cockpit = outer.join("cockpit");
    let wt = env.agent(&outer, "alpha");
    env.commit_file(&wt.join("cockpit"), "c.txt", "alpha\n", "alpha: c");
    worker_ready(&env, &wt);
    // Another lane lands in cockpit first, so alpha lands there rebased.
    let zeta = env.agent(&outer, "zeta");
    env.commit_file(&zeta.join("cockpit"), "z.txt", "z\n", "zeta: c");
    worker_ready(&env, &zeta);
    env.fleet(&outer, &["land", "zeta", "--yes"]).ok();
    env.fleet(&outer, &["land", "alpha", "--yes"]).ok();
    assert_eq!(env.git(&cockpit, &["show", "main:c.txt"]), "alpha");
    assert_ne!(
        env.git(&cockpit, &["merge-base", "main", "fleet/alpha"]),
        env.git(&cockpit, &["rev-parse", "fleet/alpha"]),
        "alpha landed rebased in cockpit"
    );
    // A later lane rewrites alpha's line in cockpit.
    let beta = env.agent(&outer, "beta");
    env.commit_file(&beta.join("cockpit"), "c.txt", "beta\n", "beta: c");
    env.commit_file(&beta, "beta.txt", "b\n", "beta: outer");
    worker_ready(&env, &beta);
    env.fleet(&outer, &["land", "beta", "--yes"]).ok();
    let lanes = status(&env, &outer);
    assert_eq!(lane(&lanes, "fleet/alpha")["state"], "landed", "{lanes:#}");
    let run = env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    assert!(run.stderr.contains("nothing to land"), "{}", run.stderr);
    for name in ["alpha", "beta", "zeta"] {
        env.fleet(&outer, &["worktree", "rm", name]).ok();
        for repo in [&outer, &cockpit] {
            assert_no_branch(&env, repo, &format!("fleet/{name}"));
        }
    }
    assert_eq!(status(&env, &outer), json!([]));
    let checks = json_of(&env, &outer, &["doctor", "--json"], 0);
    assert!(
        checks
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["verdict"] != "fail"),
        "{checks:#}"
    );
}
#[test]
fn status_predicts_a_conflict_between_two_ready_lanes_before_either_lands() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    worker(&env, &repo, "alpha", &[("shared.txt", "alpha\n")]);
    worker(
        &env,
        &repo,
        "beta",
        &[("shared.txt", "beta\n"), ("b.txt", "b\n")],
    );
    worker(&env, &repo, "gamma", &[("gamma.txt", "g\n")]);
    // delta touches shared.txt too, but is still running: no landing order to predict.
    let delta = env.agent(&repo, "delta");
    env.commit_file(&delta, "shared.txt", "delta\n", "delta");
    let lanes = status(&env, &repo);
    for name in ["fleet/alpha", "fleet/beta", "fleet/gamma"] {
        assert_eq!(lane(&lanes, name)["conflicts"], json!([]), "{lanes:#}");
    }
    assert_eq!(
        lane(&lanes, "fleet/beta")["conflicts_after"],
        json!([{"branch": "fleet/alpha", "lane": "fleet/alpha", "files": ["shared.txt"]}]),
        "{lanes:#}"
    );
    for name in ["fleet/alpha", "fleet/gamma", "fleet/delta"] {
        assert_eq!(
            lane(&lanes, name)["conflicts_after"],
            json!([]),
            "{lanes:#}"
        );
    }
    let text = env.fleet(&repo, &["status"]).ok().stdout;
    let line = text.lines().find(|l| l.starts_with("fleet/beta")).unwrap();
    assert!(
        line.contains("conflicts after fleet/alpha: shared.txt"),
        "{text}"
    );
    assert_eq!(line.matches("shared.txt").count(), 1, "{text}");
    // As predicted: alpha lands, then beta conflicts with the target (and no longer
    // with a lane).
    env.fleet(&repo, &["land", "alpha", "--yes"]).ok();
    let lanes = status(&env, &repo);
    assert_eq!(
        lane(&lanes, "fleet/beta")["conflicts"],
        json!(["shared.txt"]),
        "{lanes:#}"
    );
    assert_eq!(lane(&lanes, "fleet/beta")["conflicts_after"], json!([]));
}
