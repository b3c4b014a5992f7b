//! An adversarial review of `fleet drain`, its task queue, plans and report: a user's
//! day and an attacker's agents (daemons that leave their group, agents that switch
//! branch or delete their worktree, hostile plans and dependencies), each test named
//! after the promise it holds fleet to and checking the state afterwards.

use std::path::{Path, PathBuf};

use crate::common::Env;

/// The records of live groups fleet keeps for doctor, in `repo`.
fn group_records(repo: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(repo.join(".git/fleet/groups")) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_fleet_killed_while_it_reaps_a_group_leaves_no_record_of_that_group() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    // fleet dies (as `kill -9` would) in the middle of reaping the group it ran.
    let run = env
        .fleet_cmd(&repo, &["run", "--", "sh", "-c", "exit 0"])
        .env("FLEET_FAILPOINT", "group-reap-between:abort")
        .run();
    assert_ne!(run.code, 0, "the failpoint never fired: {}", run.stderr);
    // Its guardian, not dismissed, finds the group gone and has nothing left to do;
    // nothing may claim that a group of this fleet is still recorded.
    assert_eq!(group_records(&repo), Vec::<PathBuf>::new());
}

/// `fleet args` in `dir` fails as a usage error (exit 2) saying `says`.
fn usage_error(env: &Env, dir: &Path, args: &[&str], says: &str) -> crate::common::Run {
    let run = env.fleet(dir, args).code(2);
    assert!(run.stderr.contains(says), "{}", run.stderr);
    run
}

/// The task refs of `dir`'s queue, by name.
fn task_names(env: &Env, dir: &Path) -> Vec<String> {
    env.git(
        dir,
        &[
            "for-each-ref",
            "--format=%(refname:lstrip=3)",
            "refs/fleet/tasks/",
        ],
    )
    .lines()
    .map(str::to_string)
    .collect()
}

#[test]
fn task_add_refuses_a_wait_that_could_never_end_so_no_two_tasks_wait_for_each_other() {
    let env = Env::new();
    let dir = crate::common::drain::project(&env, "");
    // A task that does not exist: the wait would never end, and a later `x --after y`
    // would make a cycle no drainer could ever break.
    let run = usage_error(
        &env,
        &dir,
        &["task", "add", "y", "--prompt", "p", "--after", "x"],
        "there is no task `x`",
    );
    assert!(run.stderr.contains("add `x` first"), "{}", run.stderr);
    assert_eq!(task_names(&env, &dir), Vec::<String>::new());
    // A cancelled one never succeeds either.
    env.fleet(&dir, &["task", "add", "x", "--prompt", "p"]).ok();
    env.fleet(&dir, &["task", "cancel", "x"]).ok();
    env.refused(
        &dir,
        &["task", "add", "y", "--prompt", "p", "--after", "x"],
        "`x` was cancelled and will never succeed",
    );
    assert_eq!(task_names(&env, &dir), ["x"]);
    // Once it is back, the wait is fine, and the only order left is one way.
    env.fleet(&dir, &["task", "retry", "x"]).ok();
    env.fleet(&dir, &["task", "add", "y", "--prompt", "p", "--after", "x"])
        .ok();
    assert_eq!(task_names(&env, &dir), ["x", "y"]);
    let report = crate::common::drain::drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["task"], "x", "{report:#}");
}

#[test]
fn task_add_refuses_a_plan_holding_a_nul_byte_that_no_agent_could_be_given() {
    let env = Env::new();
    let dir = crate::common::drain::project(&env, "");
    std::fs::write(dir.join("binary.md"), b"do this\0and that").unwrap();
    usage_error(
        &env,
        &dir,
        &["task", "add", "bin", "--plan", "binary.md"],
        "holds a NUL byte (at byte 7)",
    );
    assert_eq!(task_names(&env, &dir), Vec::<String>::new());
}

/// repo/ with two plans on the committing fake agent, `a` first.
fn two_plans(env: &Env) -> PathBuf {
    crate::common::drain::project(
        env,
        "[plans.a]\nagent = \"commit\"\norder = 1\n[plans.b]\nagent = \"commit\"\norder = 2\n",
    )
}

#[test]
fn plans_close_until_a_time_gone_by_is_refused_rather_than_leaving_the_plan_open() {
    let env = Env::new();
    let dir = two_plans(&env);
    let before = env.git(&dir, &["for-each-ref", "refs/fleet/plans/"]);
    let run = usage_error(
        &env,
        &dir,
        &["plans", "close", "a", "--until", "2020-01-01T00:00:00Z"],
        "`2020-01-01T00:00:00Z` has passed already",
    );
    assert!(!run.stderr.contains("ok:"), "{}", run.stderr);
    assert_eq!(
        env.git(&dir, &["for-each-ref", "refs/fleet/plans/"]),
        before
    );
    // Nor is a word that is no time at all taken for one.
    usage_error(
        &env,
        &dir,
        &["plans", "close", "a", "--until", "tomorrow"],
        "`tomorrow` is neither a time",
    );
    assert_eq!(
        env.git(&dir, &["for-each-ref", "refs/fleet/plans/"]),
        before
    );
    // A time to come closes it, and a task goes to plan b.
    env.fleet(
        &dir,
        &["plans", "close", "a", "--until", "2100-01-01T00:00:00Z"],
    )
    .ok();
    crate::common::drain::add(&env, &dir, "t", &[]);
    let report = crate::common::drain::drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["plan"], "b", "{report:#}");
}

/// Profiles appended to the drain fixture's fleet.toml: `[agents.NAME]` running `body`
/// as a shell script (with `$RUNS` the fixture's scratch folder), read as `result`.
fn agents(env: &Env, list: &[(&str, &str, &str)]) -> String {
    use std::os::unix::fs::PermissionsExt;
    let mut toml = String::new();
    for (name, result, body) in list {
        let script = env.path().join(format!("agents/{name}.sh"));
        crate::common::write(&script, &format!("#!/bin/sh\n{body}"));
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        toml.push_str(&format!(
            "\n[agents.{name}]\ncommand = [{:?}]\ntimeout = \"60s\"\nresult = \"{result}\"\nenv = {{ RUNS = {:?} }}\n",
            script.display().to_string(),
            env.path().join("runs").display().to_string(),
        ));
    }
    toml
}

#[test]
fn a_daemon_an_agent_starts_outside_its_process_group_is_stopped_with_the_run() {
    let env = Env::new();
    // The daemon calls setsid: a group and session of its own, out of reach of the
    // group kill; its own child too.
    let extra = agents(
        &env,
        &[(
            "daemon",
            "exit-code",
            "echo d > d.txt; git add -A; git commit -qm daemon\n\
             setsid sh -c 'sleep 300 & echo $! > \"$RUNS/daemon.pid\"; wait' >/dev/null 2>&1 &\n\
             while [ ! -s \"$RUNS/daemon.pid\" ]; do sleep 0.05; done\n",
        )],
    );
    let dir = crate::common::drain::project(&env, &extra);
    crate::common::drain::add(&env, &dir, "d", &["--agent", "daemon"]);
    let report = crate::common::drain::drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    let daemon = crate::common::procs::read_pid(&env.path().join("runs/daemon.pid"));
    // Escaped indeed: not in the agent's group.
    let pgid = crate::common::drain::show(&env, &dir, "d")["run"][0]["pgid"]
        .as_i64()
        .unwrap();
    assert_ne!(
        crate::common::procs::stat_fields(daemon).map(|f| f[2].clone()),
        Some(pgid.to_string())
    );
    crate::common::drain::wait_for(&format!("the daemon {daemon} to be stopped"), || {
        !crate::common::procs::live(daemon)
    });
    crate::common::drain::assert_no_agent_left(&env, &dir);
}

#[test]
fn a_claude_result_at_the_end_of_a_long_transcript_is_read_and_the_run_succeeds() {
    let env = Env::new();
    // 40 MB of transcript (more than fleet reads whole), then the result line, as
    // `--output-format stream-json` ends.
    let extra = agents(
        &env,
        &[(
            "chatty",
            "claude-json",
            "echo c > c.txt; git add -A; git commit -qm chatty\n\
             yes '{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"thinking aloud\"}]}}' | head -n 500000\n\
             echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":9,\"result\":\"Done.\",\"session_id\":\"s\",\"total_cost_usd\":0.5,\"usage\":{\"input_tokens\":1000,\"output_tokens\":50}}'\n",
        )],
    );
    let dir = crate::common::drain::project(&env, &extra);
    crate::common::drain::add(&env, &dir, "long", &["--agent", "chatty"]);
    let report = crate::common::drain::drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    let task = crate::common::drain::show(&env, &dir, "long");
    assert_eq!(task["state"], "succeeded", "{task:#}");
    let lanes = crate::common::assert::lane_states(&env, &dir);
    assert_eq!(lanes.len(), 1);
    assert_eq!(lanes[0].1, "ready", "{lanes:?}");
}

/// `cargo build -vv` of the crate in `dir`, with the test's own toolchain; whether cargo
/// found the crate dirty (the build script reruns) and the commit the binary embeds.
fn cargo_build(env: &Env, dir: &Path) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["build", "-vv", "--offline"])
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
        .stdin(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let dirty = stderr
        .lines()
        .any(|l| l.trim_start().starts_with("Dirty bt"));
    let embedded = std::process::Command::new(dir.join("target/debug/bt"))
        .stdin(std::process::Stdio::piped())
        .output()
        .unwrap();
    (
        dirty,
        String::from_utf8_lossy(&embedded.stdout).trim().to_string(),
    )
}

#[test]
fn the_build_embeds_the_commit_head_is_at_even_when_another_worktree_moved_its_branch() {
    let env = Env::new();
    // A crate built by fleet's own build.rs, in a linked worktree of its repository.
    let repo = env.path().join("crate");
    env.repo(
        &repo,
        "main",
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"bt\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
            ),
            (
                "src/main.rs",
                "fn main() { println!(\"{}\", env!(\"FLEET_COMMIT\")); }\n",
            ),
            (".gitignore", "target/\nCargo.lock\n"),
        ],
    );
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/build.rs"),
        repo.join("build.rs"),
    )
    .unwrap();
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-qm", "build.rs"]);
    let wt = env.path().join("wt");
    env.git(
        &repo,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "-b", "wt"],
    );
    let head = |dir: &Path| env.git(dir, &["rev-parse", "--short=12", "HEAD"]);
    assert_eq!(cargo_build(&env, &wt).1, head(&wt));
    // Nothing moved: the script does not rerun.
    assert_eq!(cargo_build(&env, &wt), (false, head(&wt)));
    // The worktree's branch moved from the main checkout: HEAD moved, this worktree's
    // reflog did not.
    env.git(&repo, &["commit", "-q", "--allow-empty", "-m", "two"]);
    env.git(&repo, &["update-ref", "refs/heads/wt", "main"]);
    assert_eq!(cargo_build(&env, &wt), (true, head(&wt)));
    // Packed, then with no reflog at all: one rerun for the gone loose ref, then none.
    env.git(&wt, &["pack-refs", "--all"]);
    env.git(&wt, &["config", "core.logAllRefUpdates", "false"]);
    let log = env.git(&wt, &["rev-parse", "--git-path", "logs/HEAD"]);
    std::fs::remove_file(&log).unwrap();
    cargo_build(&env, &wt);
    assert_eq!(cargo_build(&env, &wt), (false, head(&wt)));
}

#[test]
fn a_run_that_leaves_its_worktree_off_its_branch_dirty_or_deleted_fails_saying_so_and_no_lane_is_ready()
 {
    let env = Env::new();
    let extra = agents(
        &env,
        &[
            (
                "switch",
                "exit-code",
                "git checkout -q -b elsewhere; echo s > s.txt; git add -A; git commit -qm s\n",
            ),
            (
                "detach",
                "exit-code",
                "echo a > a.txt; git add -A; git commit -qm a\ngit checkout -q --detach; echo d > d.txt; git add -A; git commit -qm d\n",
            ),
            (
                "dirty",
                "exit-code",
                "echo a > a.txt; git add -A; git commit -qm a\necho forgot > forgot.txt; echo more >> a.txt\n",
            ),
            (
                "vanish",
                "exit-code",
                "echo a > a.txt; git add -A; git commit -qm a\ncd /; rm -rf \"$FLEET_WORKTREE\"\n",
            ),
        ],
    );
    let dir = crate::common::drain::project(&env, &extra);
    for agent in ["switch", "detach", "dirty", "vanish"] {
        crate::common::drain::add(
            &env,
            &dir,
            agent,
            &["--agent", agent, "--max-attempts", "1"],
        );
    }
    let report = crate::common::drain::drain_once(&env, &dir, &["--max", "4"]);
    let says = [
        (
            "switch",
            "left its worktree on branch `elsewhere`, not on the run's branch fleet/switch-",
        ),
        ("detach", "left its worktree's HEAD detached at "),
        ("dirty", "left changes it did not commit in "),
        ("vanish", "the agent deleted its worktree "),
    ];
    for (task, said) in says {
        let run = report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["task"] == task)
            .unwrap_or_else(|| panic!("no run of {task}: {report:#}"));
        assert_eq!(run["outcome"], "failed", "{task}: {run:#}");
        let error = run["error"].as_str().unwrap_or_default();
        assert!(error.contains(said), "{task}: {error}");
        assert!(run["check"].is_null(), "{task}: the check ran: {run:#}");
        assert_eq!(
            crate::common::drain::show(&env, &dir, task)["state"],
            "parked"
        );
    }
    let dirty = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["task"] == "dirty")
        .unwrap();
    let error = dirty["error"].as_str().unwrap();
    assert!(
        error.contains("a.txt") && error.contains("forgot.txt"),
        "{error}"
    );
    // No lane of theirs is ready to land.
    let lanes = crate::common::assert::lane_states(&env, &dir);
    assert!(lanes.iter().all(|(_, state)| state != "ready"), "{lanes:?}");
    crate::common::drain::assert_no_agent_left(&env, &dir);
}

#[test]
fn a_drainer_killed_outright_takes_the_daemon_its_agent_started_outside_the_group_with_it() {
    let env = Env::new();
    let extra = agents(
        &env,
        &[(
            "daemon-hang",
            "exit-code",
            "setsid sh -c 'sleep 300 & echo $! > \"$RUNS/daemon.pid\"; wait' >/dev/null 2>&1 &\n\
             sleep 300 &\necho $! > \"$RUNS/hang.pid\"\nwait\n",
        )],
    );
    let dir = crate::common::drain::project(&env, &extra);
    crate::common::drain::add(&env, &dir, "d", &["--agent", "daemon-hang"]);
    let mut drainer = env.fleet_cmd(&dir, &["drain", "--once"]).spawn();
    let runs = env.path().join("runs");
    crate::common::drain::wait_for("the agent and its daemon to start", || {
        ["daemon.pid", "hang.pid"]
            .iter()
            .all(|f| std::fs::read_to_string(runs.join(f)).is_ok_and(|t| !t.trim().is_empty()))
    });
    let daemon = crate::common::procs::read_pid(&runs.join("daemon.pid"));
    drainer.kill().unwrap();
    drainer.wait().unwrap();
    crate::common::drain::wait_for(&format!("the daemon {daemon} to be stopped"), || {
        !crate::common::procs::live(daemon)
    });
    crate::common::drain::assert_no_agent_left(&env, &dir);
}

#[test]
fn a_run_whose_agent_tried_to_move_the_target_fails_and_nothing_of_it_lands() {
    let env = Env::new();
    let extra = agents(
        &env,
        &[(
            "pusher",
            "exit-code",
            "echo p > p.txt; git add -A; git commit -qm p\n\
             git update-ref refs/heads/main HEAD || true\n\
             git push -q . HEAD:main || true\n\
             exit 0\n",
        )],
    );
    let dir = crate::common::drain::project(&env, &extra);
    env.fleet(&dir, &["hooks", "install"]).ok();
    let main = env.git(&dir, &["rev-parse", "main"]);
    crate::common::drain::add(
        &env,
        &dir,
        "p",
        &["--agent", "pusher", "--max-attempts", "1"],
    );
    let report = crate::common::drain::drain_once(&env, &dir, &[]);
    let run = &report["runs"][0];
    assert_eq!(run["outcome"], "failed", "{report:#}");
    let error = run["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("the guard refused what the agent tried: refusing to move refs/heads/main"),
        "{error}"
    );
    assert!(run["check"].is_null(), "{run:#}");
    assert_eq!(env.git(&dir, &["rev-parse", "main"]), main);
    assert_eq!(
        crate::common::drain::show(&env, &dir, "p")["state"],
        "parked"
    );
    let lanes = crate::common::assert::lane_states(&env, &dir);
    assert!(lanes.iter().all(|(_, state)| state != "ready"), "{lanes:?}");
    crate::common::drain::assert_no_agent_left(&env, &dir);
}

#[test]
fn task_add_refuses_a_budget_of_zero_that_would_park_the_task_at_its_first_retry() {
    let env = Env::new();
    let dir = crate::common::drain::project(&env, "");
    usage_error(
        &env,
        &dir,
        &["task", "add", "t", "--prompt", "p", "--max-cost", "0"],
        "`0` is no budget",
    );
    usage_error(
        &env,
        &dir,
        &["task", "add", "t", "--prompt", "p", "--max-tokens", "0"],
        "--max-tokens",
    );
    assert_eq!(task_names(&env, &dir), Vec::<String>::new());
    env.fleet(
        &dir,
        &["task", "add", "t", "--prompt", "p", "--max-cost", "0.01"],
    )
    .ok();
    assert_eq!(task_names(&env, &dir), ["t"]);
}

#[test]
fn report_since_a_time_to_come_is_refused_rather_than_reporting_an_empty_day() {
    let env = Env::new();
    let dir = crate::common::drain::project(&env, "");
    crate::common::drain::add(&env, &dir, "t", &[]);
    crate::common::drain::drain_once(&env, &dir, &[]);
    let run = usage_error(
        &env,
        &dir,
        &["report", "--since", "2100-01-01T00:00:00Z", "--json"],
        "is still to come",
    );
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "usage", "{doc}");
    // The same day read from its start has the run.
    let doc = crate::common::drain::json(env.fleet(&dir, &["report", "--since", "1d", "--json"]));
    assert_eq!(doc["tasks"][0]["name"], "t", "{doc:#}");
}

#[test]
fn an_agent_stuck_printing_is_stopped_at_the_output_cap_and_its_logs_stay_bounded() {
    let env = Env::new();
    // 128 MiB in 64 KiB lines, then a hang: without a cap its log grows until the
    // timeout, and an agent printing for ever would fill the disk.
    let extra = agents(
        &env,
        &[(
            "flood",
            "exit-code",
            "echo f > f.txt; git add -A; git commit -qm flood\n\
             sleep 300 &\n\
             i=0; while [ $i -lt 2048 ]; do printf '%65536s\\n' x; i=$((i+1)); done\n\
             sleep 300\n",
        )],
    );
    let dir = crate::common::drain::project(&env, &format!("max_output_mib = 1\n{extra}"));
    crate::common::drain::add(&env, &dir, "loud", &["--agent", "flood"]);
    let report = crate::common::drain::drain_once(&env, &dir, &[]);
    let run = &report["runs"][0];
    assert_eq!(run["outcome"], "failed", "{report:#}");
    assert!(
        run["error"]
            .as_str()
            .is_some_and(|e| e.contains("max_output_mib (1 MiB)")),
        "{report:#}"
    );
    let log = std::fs::metadata(run["stdout"].as_str().unwrap())
        .unwrap()
        .len();
    assert!(
        log < 64 << 20,
        "the log grew to {log} bytes, far past the 1 MiB cap"
    );
    let task = crate::common::drain::show(&env, &dir, "loud");
    assert_eq!(task["state"], "queued", "{task:#}");
    assert_eq!(
        crate::common::assert::lane_states(&env, &dir)[0].1,
        "running"
    );
    crate::common::drain::assert_no_agent_left(&env, &dir);
}

#[test]
fn a_plan_too_long_to_pass_as_an_argument_parks_its_task_at_once_naming_the_fix() {
    let env = Env::new();
    let dir = crate::common::drain::project(&env, "");
    // The `args` profile passes the plan's text through `{prompt}`: 200 KiB is more than
    // Linux lets one argument hold, so every attempt would fail alike.
    std::fs::write(dir.join("long.md"), "do it\n".repeat(200 * 1024 / 6)).unwrap();
    env.fleet(
        &dir,
        &[
            "task", "add", "long", "--agent", "args", "--plan", "long.md",
        ],
    )
    .ok();
    let report = crate::common::drain::drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["outcome"], "failed", "{report:#}");
    let task = crate::common::drain::show(&env, &dir, "long");
    assert_eq!(task["state"], "parked", "{task:#}");
    assert_eq!(crate::common::drain::runs(&task).len(), 1, "{task:#}");
    let why = task["parked_why"].as_str().unwrap_or_default();
    assert!(why.contains("more than one argument may hold"), "{task:#}");
    assert!(why.contains("`{plan}`"), "{why}");
    crate::common::drain::assert_no_agent_left(&env, &dir);
}

#[test]
fn doctor_fails_on_a_task_waiting_for_one_cancelled_after_the_wait_was_added() {
    let env = Env::new();
    let dir = crate::common::drain::project(&env, "");
    env.fleet(&dir, &["task", "add", "x", "--prompt", "p"]).ok();
    env.fleet(&dir, &["task", "add", "y", "--prompt", "p", "--after", "x"])
        .ok();
    let (_, check) = crate::task_health::doctor_check(&env, &dir, "blocked-waits");
    assert_eq!(check["verdict"], "ok", "{check}");
    // Cancelled once y waits for it: y would wait for ever, and nothing said so.
    env.fleet(&dir, &["task", "cancel", "x"]).ok();
    let (code, check) = crate::task_health::doctor_check(&env, &dir, "blocked-waits");
    assert_eq!(
        (code, check["verdict"].as_str()),
        (1, Some("fail")),
        "{check}"
    );
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.contains("task y waits for x, which was cancelled"),
        "{detail}"
    );
    assert!(
        check["fix"].as_str().unwrap().contains("fleet task retry"),
        "{check}"
    );
    // Doctor only reports: both tasks are as they were.
    assert_eq!(
        crate::common::drain::show(&env, &dir, "y")["state"],
        "queued"
    );
    assert_eq!(
        crate::common::drain::show(&env, &dir, "x")["state"],
        "cancelled"
    );
    env.fleet(&dir, &["task", "retry", "x"]).ok();
    let (_, check) = crate::task_health::doctor_check(&env, &dir, "blocked-waits");
    assert_eq!(check["verdict"], "ok", "{check}");
}

/// Set `path`'s modification time `secs` seconds back.
fn age(path: &Path, secs: u64) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    file.set_modified(then).unwrap();
}

#[test]
fn an_agent_killed_inside_its_git_commit_leaves_a_packed_refs_lock_that_stalls_the_queue_only_until_it_is_stale()
 {
    let env = Env::new();
    // git 2.47's `git commit` takes `packed-refs.lock` for a moment; killed then (as a
    // group kill at a timeout or a drainer's death does), it leaves the file, and while
    // it exists every compare-and-swap of a ref through gix waits on it and fails. The
    // agent leaves one as that commit would, on its first attempt only, and dies.
    let extra = agents(
        &env,
        &[(
            "killed-in-commit",
            "exit-code",
            "if [ ! -e \"$RUNS/once\" ]; then\n  touch \"$RUNS/once\"\n  \
             touch \"$(git rev-parse --git-common-dir)/packed-refs.lock\"\n  kill -9 $$\nfi\n\
             echo k > k.txt; git add -A; git commit -qm k\n",
        )],
    );
    let dir = crate::common::drain::project(&env, &extra);
    crate::common::drain::add(&env, &dir, "k", &["--agent", "killed-in-commit"]);
    let lock = dir.join(".git/packed-refs.lock");
    // The drainer that ran it finds every write of the queue in the way; it may wait
    // the leftover out (10 s) and clear it, or leave it to the next drainer. What it
    // says names the lock, never that the queue kept changing.
    let first = env.fleet(&dir, &["drain", "--once"]).ok();
    assert!(!first.stderr.contains("kept changing"), "{}", first.stderr);
    // A fresh one (a live git may be holding it) is never cleared: a user's command
    // fails naming it (exit 3: waiting may clear it) and changes nothing.
    crate::common::write(&lock, "");
    let added = env
        .fleet(&dir, &["task", "add", "k2", "--prompt", "another"])
        .code(3);
    assert!(
        added.stderr.contains("packed-refs.lock")
            && added.stderr.contains("though nothing else moved it"),
        "{}",
        added.stderr
    );
    assert!(lock.exists(), "a fresh packed-refs.lock was cleared");
    assert_eq!(task_names(&env, &dir), ["k"]);
    // Once it is stale (10 s, no git of the repository running), the next drainers
    // clear it, take the crashed run back and run the task to its end.
    age(&lock, 60);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut said = String::new();
    loop {
        said.push_str(&env.fleet(&dir, &["drain", "--once"]).ok().stderr);
        let task = crate::common::drain::show(&env, &dir, "k");
        if task["state"] == "succeeded" {
            let outcomes: Vec<_> = crate::common::drain::runs(&task)
                .iter()
                .map(|r| r["outcome"].as_str().unwrap_or("").to_string())
                .collect();
            assert_eq!(outcomes, ["crashed", "succeeded"], "{task:#}\n{said}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never succeeded: {task:#}\n{said}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(!lock.exists(), "the stale packed-refs.lock is still there");
    crate::common::drain::assert_no_agent_left(&env, &dir);
}
