//! `fleet doctor --remote NAME` (issue 15, points 2 and 4): with the task queue on a
//! shared remote, the task checks read the remote's queue (fetched once, nothing
//! pushed), so a forged or unreadable task ref there, a claim another clone's drainer
//! died holding and a holder on another machine whose lease ran out are reported from
//! any clone; the local checks still run on the local repository; a remote that is not
//! there or cannot be fetched is an error naming it. Real bare remotes, two clones.

use std::path::{Path, PathBuf};

use crate::common::Env;
use crate::common::drain::{add, json, project, through_a_bare_remote, wait_for};

/// Every ref of `repo` with the object it names, one a line (the whole state doctor
/// must leave as it found).
fn all_refs(env: &Env, repo: &Path) -> String {
    env.git(repo, &["for-each-ref", "--format=%(refname) %(objectname)"])
}

/// The fake-agent project (`claim_grace` of `grace`) shared through a bare remote and
/// cloned twice, as two machines have it; both clones adopted (`fleet init`).
fn two_clones(env: &Env, grace: &str) -> (PathBuf, PathBuf, PathBuf) {
    let seed = project(env, "");
    if grace != "60s" {
        let toml = std::fs::read_to_string(seed.join("fleet.toml"))
            .unwrap()
            .replace(
                "claim_grace = \"60s\"",
                &format!("claim_grace = \"{grace}\""),
            );
        env.commit_file(&seed, "fleet.toml", &toml, "claim grace");
    }
    let (remote, clones) = through_a_bare_remote(env, &seed, &["a", "b"]);
    for clone in &clones {
        env.fleet(clone, &["init"]).ok();
    }
    let [a, b] = <[PathBuf; 2]>::try_from(clones).unwrap();
    (remote, a, b)
}

/// Doctor's checks (`fleet doctor --json` with `extra`) and its exit code.
fn doctor(env: &Env, dir: &Path, extra: &[&str]) -> (i32, Vec<serde_json::Value>) {
    let mut args = vec!["doctor", "--json"];
    args.extend_from_slice(extra);
    let run = env.fleet(dir, &args);
    let all: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    (run.code, all.as_array().unwrap().clone())
}

fn named<'a>(checks: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    checks
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {checks:#?}"))
}

const ON_ORIGIN: &[&str] = &["--remote", "origin"];

/// The task names `fleet task list --remote origin --json` lists in `dir`.
fn listed_on_origin(env: &Env, dir: &Path) -> Vec<String> {
    let listed = json(env.fleet(dir, &["task", "list", "--json", "--remote", "origin"]));
    let mut names: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

fn task_refs_on(env: &Env, remote: &Path) -> Vec<String> {
    env.git(
        remote,
        &["for-each-ref", "--format=%(refname)", "refs/fleet/tasks/"],
    )
    .lines()
    .map(String::from)
    .collect()
}

#[test]
fn doctor_remote_names_each_unreadable_task_ref_on_the_remote_with_the_push_that_deletes_it() {
    let env = Env::new();
    let (remote, a, b) = two_clones(&env, "60s");
    add(&env, &a, "one", ON_ORIGIN);
    add(&env, &a, "two", ON_ORIGIN);
    // Forged in clone A and pushed to the shared remote: a task ref naming a blob, and
    // one naming a commit without a task.toml.
    let blob = env
        .git_cmd(&a, &["hash-object", "-w", "--stdin"])
        .stdin("state = \"exploded\"\n")
        .stdout();
    let tree = env
        .git_cmd(&a, &["mktree"])
        .stdin(&format!("100644 blob {blob}\tnotes.txt\n"))
        .stdout();
    let empty = env.git(&a, &["commit-tree", &tree, "-m", "no task here"]);
    env.git(
        &a,
        &[
            "push",
            "-q",
            "origin",
            &format!("{blob}:refs/fleet/tasks/blobby"),
            &format!("{empty}:refs/fleet/tasks/hollow"),
        ],
    );
    let before = all_refs(&env, &remote);

    let (code, checks) = doctor(&env, &b, ON_ORIGIN);
    assert_eq!(code, 1, "{checks:#?}");
    let bad = named(&checks, "unreadable-tasks");
    assert_eq!(bad["verdict"], "fail", "{bad:#}");
    let detail = bad["detail"].as_str().unwrap();
    for forged in ["blobby", "hollow"] {
        assert!(
            detail.contains(&format!("refs/fleet/tasks/{forged} on origin"))
                && detail.contains(&format!("`git push origin :refs/fleet/tasks/{forged}`")),
            "{bad:#}"
        );
    }
    assert!(
        !detail.contains("tasks/one") && !detail.contains("tasks/two"),
        "{bad:#}"
    );
    // Each says what it is: a blob is not a task commit, a commit lacks its task.toml.
    assert!(
        detail.contains("points to a blob") && detail.contains("has no task.toml"),
        "{bad:#}"
    );
    assert!(
        bad["fix"]
            .as_str()
            .unwrap()
            .contains("git push origin :REF"),
        "{bad:#}"
    );
    // Report-only: every ref on the remote is as it was.
    assert_eq!(all_refs(&env, &remote), before);

    // The listings leave the forged refs out and go on with the good tasks.
    assert_eq!(listed_on_origin(&env, &b), ["one", "two"]);
    // The local queue of B is not the remote's: local doctor finds nothing there.
    let (_, local) = doctor(&env, &b, &[]);
    assert_eq!(named(&local, "unreadable-tasks")["verdict"], "ok");

    // The fix doctor names deletes them on the remote, and then doctor passes.
    for forged in ["blobby", "hollow"] {
        env.git(
            &b,
            &[
                "push",
                "-q",
                "origin",
                &format!(":refs/fleet/tasks/{forged}"),
            ],
        );
    }
    assert_eq!(
        task_refs_on(&env, &remote),
        ["refs/fleet/tasks/one", "refs/fleet/tasks/two"]
    );
    let (code, checks) = doctor(&env, &b, ON_ORIGIN);
    assert_eq!(named(&checks, "unreadable-tasks")["verdict"], "ok");
    assert_eq!(code, 0, "{checks:#?}");
}

#[test]
fn doctor_remote_sees_the_stale_claim_of_a_drainer_killed_in_another_clone() {
    let env = Env::new();
    let (remote, a, b) = two_clones(&env, "1s");
    add(&env, &a, "fix-it", ON_ORIGIN);
    // Clone A's drainer dies right after its claim went in on the remote, before it
    // made a worktree or started the agent (abort: no cleanup runs, as with kill -9).
    let killed = env
        .fleet_cmd(&a, &["drain", "--once", "--json", "--remote", "origin"])
        .env("FLEET_FAILPOINT", "drain-after-claim:abort")
        .run();
    assert_ne!(
        killed.code, 0,
        "the failpoint never fired: {}",
        killed.stderr
    );
    let shown = json(env.fleet(
        &b,
        &["task", "show", "fix-it", "--json", "--remote", "origin"],
    ));
    let task = shown.get("task").unwrap_or(&shown);
    assert_eq!(task["state"], "claimed", "{shown:#}");
    let run_id = task["run"][0]["id"].as_str().unwrap().to_string();
    let before = all_refs(&env, &remote);

    // Seen from clone B, once the grace is over.
    let mut last = Vec::new();
    wait_for("doctor --remote to fail on the stale claim", || {
        let (code, checks) = doctor(&env, &b, ON_ORIGIN);
        let stale = named(&checks, "stale-claims")["verdict"] == "fail";
        last = checks;
        stale && code == 1
    });
    let stale = named(&last, "stale-claims");
    let detail = stale["detail"].as_str().unwrap();
    assert!(
        detail.contains("task fix-it")
            && detail.contains(&run_id)
            && detail.contains("never started"),
        "{stale:#}"
    );
    assert!(
        stale["fix"]
            .as_str()
            .unwrap()
            .contains("fleet drain --once --remote origin"),
        "{stale:#}"
    );
    // Same machine, so its pid can be checked: the holder is gone.
    let dead = named(&last, "dead-holders");
    assert_eq!(dead["verdict"], "fail", "{dead:#}");
    assert!(
        dead["detail"].as_str().unwrap().contains("is gone"),
        "{dead:#}"
    );
    assert_eq!(
        all_refs(&env, &remote),
        before,
        "doctor moved a ref on the remote"
    );
    // B's own queue has no task: local doctor does not fail on it.
    let (_, local) = doctor(&env, &b, &[]);
    assert_eq!(named(&local, "stale-claims")["verdict"], "ok");

    // The fix doctor names takes the claim back; the task runs, and doctor passes.
    wait_for("the drain in B to run the task", || {
        env.fleet(&b, &["drain", "--once", "--json", "--remote", "origin"])
            .ok();
        let shown = json(env.fleet(
            &b,
            &["task", "show", "fix-it", "--json", "--remote", "origin"],
        ));
        shown.get("task").unwrap_or(&shown)["state"] == "succeeded"
    });
    let (_, checks) = doctor(&env, &b, ON_ORIGIN);
    for name in ["stale-claims", "dead-holders"] {
        assert_eq!(named(&checks, name)["verdict"], "ok", "{checks:#?}");
    }
}

#[test]
fn doctor_remote_judges_a_holder_on_another_machine_by_its_lease_and_says_so() {
    let env = Env::new();
    let (remote, a, b) = two_clones(&env, "60s");
    add(&env, &a, "far", ON_ORIGIN);
    let claimed = json(env.fleet(
        &a,
        &[
            "task", "claim", "--json", "--holder", "box-2", "--lease", "1s", "--remote", "origin",
        ],
    ));
    assert_eq!(claimed["task"]["name"], "far", "{claimed:#}");
    let before = all_refs(&env, &remote);
    let mut last = Vec::new();
    wait_for("doctor --remote to fail on the expired lease", || {
        let (_, checks) = doctor(&env, &b, ON_ORIGIN);
        let dead = named(&checks, "dead-holders")["verdict"] == "fail";
        last = checks;
        dead
    });
    let dead = named(&last, "dead-holders");
    let detail = dead["detail"].as_str().unwrap();
    assert!(
        detail.contains("task far")
            && detail.contains("on box-2")
            && detail.contains("let its lease expire")
            && detail.contains("cannot be checked from here"),
        "{dead:#}"
    );
    assert!(
        dead["fix"]
            .as_str()
            .unwrap()
            .contains("fleet drain --once --remote origin"),
        "{dead:#}"
    );
    assert_eq!(all_refs(&env, &remote), before);
}

#[test]
fn doctor_remote_on_a_clean_queue_passes_and_moves_no_ref_on_the_remote() {
    let env = Env::new();
    let (remote, a, b) = two_clones(&env, "60s");
    add(&env, &a, "first", ON_ORIGIN);
    let report = json(env.fleet(&a, &["drain", "--once", "--json", "--remote", "origin"]));
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    add(
        &env,
        &a,
        "second",
        &["--remote", "origin", "--after", "first"],
    );
    add(&env, &b, "third", ON_ORIGIN);
    let before = all_refs(&env, &remote);

    let (code, checks) = doctor(&env, &b, ON_ORIGIN);
    assert_eq!(code, 0, "{checks:#?}");
    for c in &checks {
        assert_ne!(c["verdict"], "fail", "{c:#}");
    }
    for name in [
        "stale-claims",
        "dead-holders",
        "blocked-waits",
        "unreadable-tasks",
    ] {
        assert_eq!(named(&checks, name)["verdict"], "ok", "{checks:#?}");
    }
    env.fleet(&b, &["doctor", "--remote", "origin"]).ok();
    assert_eq!(
        all_refs(&env, &remote),
        before,
        "doctor moved a ref on the remote"
    );
    assert_eq!(listed_on_origin(&env, &b), ["first", "second", "third"]);
}

#[test]
fn doctor_remote_with_a_remote_that_is_not_there_or_cannot_be_fetched_says_which_and_how() {
    let env = Env::new();
    let (_remote, _a, b) = two_clones(&env, "60s");
    let before = all_refs(&env, &b);

    // No such remote: a usage error, as `fleet task list --remote` says it.
    let run = env.fleet(&b, &["doctor", "--remote", "nosuch"]).code(2);
    assert!(run.stderr.contains("no remote `nosuch`"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let run = env
        .fleet(&b, &["doctor", "--remote", "nosuch", "--json"])
        .code(2);
    let doc: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    let listed = env
        .fleet(&b, &["task", "list", "--remote", "nosuch", "--json"])
        .code(2);
    let listed: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(doc, listed, "doctor and task list word it differently");
    assert_eq!(doc["error"]["kind"], "usage", "{doc:#}");
    assert_eq!(doc["error"]["exit_code"], 2, "{doc:#}");
    assert!(
        doc["error"]["message"].as_str().unwrap().contains("nosuch")
            && doc["error"]["help"]
                .as_str()
                .unwrap()
                .contains("git remote"),
        "{doc:#}"
    );

    // A remote that is there but cannot be fetched (its repository is gone).
    let gone = env.path().join("moved-away.git");
    env.git(&b, &["remote", "add", "gone", gone.to_str().unwrap()]);
    let run = env.fleet(&b, &["doctor", "--remote", "gone"]).code(3);
    assert!(
        run.stderr.contains("remote `gone`") && run.stderr.contains("could not be fetched"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("git remote set-url gone"),
        "{}",
        run.stderr
    );
    let run = env
        .fleet(&b, &["doctor", "--remote", "gone", "--json"])
        .code(3);
    let doc: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    assert_eq!(doc["error"]["kind"], "environment", "{doc:#}");
    assert_eq!(doc["error"]["exit_code"], 3, "{doc:#}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("remote `gone`")
            && doc["error"]["help"]
                .as_str()
                .unwrap()
                .contains("git fetch gone"),
        "{doc:#}"
    );
    // Nothing changed here either.
    assert_eq!(all_refs(&env, &b), before);
}

#[test]
fn doctor_with_a_configured_remote_fetches_its_queue_and_a_failed_fetch_is_a_failing_check() {
    let env = Env::new();
    let (remote, a, b) = two_clones(&env, "60s");
    add(&env, &a, "one", ON_ORIGIN);
    // Clone B has `[lanes] remote` set and has never fetched the queue.
    let toml = std::fs::read_to_string(b.join("fleet.toml")).unwrap();
    std::fs::write(
        b.join("fleet.toml"),
        format!("{toml}\n[lanes]\nremote = \"origin\"\n"),
    )
    .unwrap();
    let blob = env
        .git_cmd(&a, &["hash-object", "-w", "--stdin"])
        .stdin("garbage\n")
        .stdout();
    env.git(
        &a,
        &[
            "push",
            "-q",
            "origin",
            &format!("{blob}:refs/fleet/tasks/forged"),
        ],
    );
    let before = all_refs(&env, &remote);

    // Plain `fleet doctor` reads the configured remote's queue as it is now.
    let (code, checks) = doctor(&env, &b, &[]);
    assert_eq!(code, 1, "{checks:#?}");
    let queue = named(&checks, "remote-queue");
    assert_eq!(queue["verdict"], "ok", "{queue:#}");
    assert!(
        queue["detail"].as_str().unwrap().contains("origin"),
        "{queue:#}"
    );
    let bad = named(&checks, "unreadable-tasks");
    assert!(
        bad["detail"]
            .as_str()
            .unwrap()
            .contains("refs/fleet/tasks/forged on origin"),
        "{bad:#}"
    );
    assert_eq!(all_refs(&env, &remote), before);

    // The remote out of reach: a failing check naming it, and every other check still
    // runs (the task checks on what was last fetched).
    let gone = env.path().join("moved-away.git");
    env.git(&b, &["remote", "set-url", "origin", gone.to_str().unwrap()]);
    let (code, checks) = doctor(&env, &b, &[]);
    assert_eq!(code, 1, "{checks:#?}");
    let queue = named(&checks, "remote-queue");
    assert_eq!(queue["verdict"], "fail", "{queue:#}");
    assert!(
        queue["detail"]
            .as_str()
            .unwrap()
            .contains("remote `origin`: it could not be fetched")
            && queue["detail"]
                .as_str()
                .unwrap()
                .contains("as last fetched")
            && queue["fix"]
                .as_str()
                .unwrap()
                .contains("git remote set-url origin"),
        "{queue:#}"
    );
    assert_eq!(named(&checks, "hooks-installed")["verdict"], "ok");
    assert_eq!(named(&checks, "unreadable-tasks")["verdict"], "fail");
}
