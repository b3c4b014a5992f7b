//! `fleet drain` with fake agents (small shell scripts written here): a task's agent runs
//! in a fresh worktree and lane named for the run, its end is classified, a success that
//! committed makes the lane ready, failures are retried after a back-off and parked at
//! the cap (notify runs once), a stopped or killed drainer leaves no process and loses
//! no task, and no task text is ever run.

use std::path::PathBuf;
use std::time::Duration;

use crate::common::assert::lane_states;
use crate::common::drain::{
    add, assert_no_agent_left, drain_once, json, project, runs, show, through_a_bare_remote,
    wait_for,
};
use crate::common::procs;
use crate::common::{Env, write};

#[test]
fn drain_once_runs_the_agent_in_a_fresh_lane_and_makes_it_ready_when_it_committed() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "fix-login", &[]);
    let report = drain_once(&env, &dir, &[]);
    let run = &report["runs"][0];
    assert_eq!(run["outcome"], "succeeded", "{report:#}");
    // The default check: the gate's commands, in the worktree.
    assert_eq!(run["check"]["exit_code"], 0, "{report:#}");
    let log = std::fs::read_to_string(run["check"]["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("$ sh -c test -e README"), "{log}");
    let branch = run["branch"].as_str().unwrap().to_string();
    let worktree = PathBuf::from(run["worktree"].as_str().unwrap());
    let task = show(&env, &dir, "fix-login");
    assert_eq!(task["state"], "succeeded");
    let stored = &runs(&task)[0];
    assert_eq!(stored["branch"].as_str(), Some(branch.as_str()));
    assert_eq!(stored["worktree"].as_str(), worktree.to_str());
    assert!(stored["pgid"].as_i64().is_some() && stored["started"].as_i64().is_some());
    // A branch named for the run, holding the agent's commit and not the plan.
    assert!(branch.starts_with("fleet/fix-login-"), "{branch}");
    let tree = env.git(&dir, &["ls-tree", "-r", "--name-only", &branch]);
    assert!(tree.contains("done-fix-login.txt"), "{tree}");
    assert!(!tree.contains("plan.md"), "{tree}");
    // The plan the agent read, at the documented path, ignored by git.
    let plan = std::fs::read_to_string(worktree.join(".fleet/plan.md")).unwrap();
    assert_eq!(plan, "do the thing");
    assert_eq!(env.git(&worktree, &["status", "--porcelain"]), "");
    assert_eq!(lane_states(&env, &dir), [(branch, "ready".to_string())]);
    // Its logs, per run, and no drainer record left.
    let run_dir = dir
        .join(".git/fleet/runs")
        .join(stored["id"].as_str().unwrap());
    assert!(run_dir.join("stdout").is_file() && run_dir.join("stderr").is_file());
    assert!(
        std::fs::read_dir(dir.join(".git/fleet/drainers"))
            .unwrap()
            .next()
            .is_none()
    );
    assert_no_agent_left(&env, &dir);
}

#[test]
fn drain_fails_a_run_that_committed_nothing_retries_with_the_error_then_parks_and_notifies_once() {
    let env = Env::new();
    let notified = env.path().join("runs/notified");
    let dir = project(
        &env,
        &format!(
            "notify = [\"sh\", \"-c\", \"cat >> {}; echo >> {}\"]\n",
            notified.display(),
            notified.display()
        ),
    );
    add(
        &env,
        &dir,
        "lazy",
        &["--agent", "nothing", "--max-attempts", "1"],
    );
    add(
        &env,
        &dir,
        "broken",
        &["--agent", "fail", "--max-attempts", "2"],
    );
    let first = drain_once(&env, &dir, &["--max", "2"]);
    assert_eq!(first["runs"].as_array().unwrap().len(), 2, "{first:#}");
    let lazy = show(&env, &dir, "lazy");
    assert_eq!(lazy["state"], "parked");
    let error = runs(&lazy)[0]["error"].as_str().unwrap().to_string();
    assert!(error.starts_with("no changes"), "{error}");
    let broken = show(&env, &dir, "broken");
    assert_eq!(broken["state"], "queued");
    assert!(broken["not_before"].as_i64().is_some());
    let error = runs(&broken)[0]["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("exited with code 3") && error.contains("boom"),
        "{error}"
    );
    // After the back-off the second attempt runs, reads the first one's error, and parks.
    wait_for("the second attempt to run", || {
        drain_once(&env, &dir, &[]);
        show(&env, &dir, "broken")["state"] == "parked"
    });
    let broken = show(&env, &dir, "broken");
    assert_eq!(runs(&broken).len(), 2);
    let second = &runs(&broken)[1];
    let worktree = PathBuf::from(second["worktree"].as_str().unwrap());
    let plan = std::fs::read_to_string(worktree.join(".fleet/plan.md")).unwrap();
    assert!(
        plan.starts_with("do the thing") && plan.contains("boom"),
        "{plan}"
    );
    // One notification per park, with what the task went through.
    drain_once(&env, &dir, &[]);
    let text = std::fs::read_to_string(&notified).unwrap();
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&text)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let mut tasks: Vec<&str> = docs.iter().map(|d| d["task"].as_str().unwrap()).collect();
    tasks.sort();
    assert_eq!(tasks, ["broken", "lazy"], "{text}");
    let doc = docs.iter().find(|d| d["task"] == "broken").unwrap();
    assert_eq!(doc["attempts"], 2);
    assert!(doc["last_error"].as_str().unwrap().contains("boom"));
    assert!(
        doc["runs"][1]["stderr"]
            .as_str()
            .unwrap()
            .ends_with("stderr")
    );
    // Failed lanes are not ready.
    assert!(lane_states(&env, &dir).iter().all(|(_, s)| s == "running"));
    assert_no_agent_left(&env, &dir);
}

#[test]
fn drain_times_out_a_hanging_agent_and_reaps_one_that_killed_itself_with_no_process_left() {
    let env = Env::new();
    let dir = project(&env, "");
    // A short timeout for the hanging profile.
    let toml = std::fs::read_to_string(dir.join("fleet.toml"))
        .unwrap()
        .replace(
            "hang.sh\"]\ntimeout = \"120s\"",
            "hang.sh\"]\ntimeout = \"2s\"",
        );
    env.commit_file(&dir, "fleet.toml", &toml, "short timeout");
    add(&env, &dir, "stuck", &["--agent", "hang"]);
    add(&env, &dir, "dies", &["--agent", "crash"]);
    let report = drain_once(&env, &dir, &["--max", "2"]);
    assert_eq!(report["runs"].as_array().unwrap().len(), 2, "{report:#}");
    let stuck = show(&env, &dir, "stuck");
    assert_eq!(runs(&stuck)[0]["outcome"], "timed_out", "{stuck:#}");
    assert_eq!(stuck["state"], "queued");
    let dies = show(&env, &dir, "dies");
    assert_eq!(runs(&dies)[0]["outcome"], "crashed", "{dies:#}");
    assert!(
        runs(&dies)[0]["error"]
            .as_str()
            .unwrap()
            .contains("signal 9")
    );
    assert_no_agent_left(&env, &dir);
}

#[test]
fn drain_claims_a_task_after_its_after_task_only_once_that_lane_has_landed() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "first", &[]);
    add(&env, &dir, "second", &["--after", "first"]);
    let report = drain_once(&env, &dir, &["--max", "2"]);
    assert_eq!(report["runs"].as_array().unwrap().len(), 1, "{report:#}");
    assert_eq!(report["runs"][0]["task"], "first");
    // Succeeded, its lane ready but not landed: the second still waits.
    let report = drain_once(&env, &dir, &[]);
    assert!(report["runs"].as_array().unwrap().is_empty(), "{report:#}");
    assert_eq!(show(&env, &dir, "second")["state"], "queued");
    env.fleet(&dir, &["land", "--all", "--yes"]).ok();
    let report = drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["task"], "second", "{report:#}");
    assert_eq!(show(&env, &dir, "second")["state"], "succeeded");
}

#[test]
fn drain_stopped_by_sigterm_stops_its_agent_records_the_run_and_queues_the_task_again() {
    let env = Env::new();
    let dir = project(&env, "");
    add(
        &env,
        &dir,
        "long",
        &["--agent", "hang", "--max-attempts", "1"],
    );
    let drainer = env.fleet_cmd(&dir, &["drain", "--json"]).spawn();
    let helper = procs::read_pid(&env.path().join("runs/hang-long.pid"));
    wait_for("the task to run", || {
        show(&env, &dir, "long")["state"] == "running"
    });
    let pid = rustix::process::Pid::from_raw(drainer.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let out = Env::wait(drainer).ok();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["stopped"], true);
    wait_for("the agent's helper to die", || !procs::live(helper));
    let long = show(&env, &dir, "long");
    // Stopped by the drainer: not the task's fault, so it does not use up its only attempt.
    assert_eq!(long["state"], "queued", "{long:#}");
    let run = &runs(&long)[0];
    assert_eq!(run["outcome"], "timed_out");
    assert!(
        run["error"]
            .as_str()
            .unwrap()
            .contains("stopped by the drainer")
    );
    assert_eq!(run["free"], true);
    assert_no_agent_left(&env, &dir);
}

#[test]
fn a_drainer_killed_outright_takes_its_agent_along_and_the_next_one_reaps_and_reruns_the_task() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "again", &["--agent", "hang-once"]);
    let mut drainer = env.fleet_cmd(&dir, &["drain"]).spawn();
    let helper = procs::read_pid(&env.path().join("runs/hang-again.pid"));
    wait_for("the task to run", || {
        show(&env, &dir, "again")["state"] == "running"
    });
    drainer.kill().unwrap();
    drainer.wait().unwrap();
    // Its guardian stops the agent's whole group.
    wait_for("the agent's helper to die", || !procs::live(helper));
    let report = drain_once(&env, &dir, &[]);
    assert_eq!(report["taken_back"][0]["task"], "again", "{report:#}");
    assert!(
        report["taken_back"][0]["why"]
            .as_str()
            .unwrap()
            .contains("is gone")
    );
    let task = show(&env, &dir, "again");
    assert_eq!(task["state"], "succeeded", "{task:#}");
    let all = runs(&task);
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["outcome"], "crashed");
    assert_eq!(all[1]["outcome"], "succeeded");
    assert_no_agent_left(&env, &dir);
}

#[test]
fn two_drainers_with_max_two_run_each_of_six_tasks_exactly_once() {
    let env = Env::new();
    let dir = project(&env, "");
    let names: Vec<String> = (1..=6).map(|i| format!("t{i}")).collect();
    for name in &names {
        add(&env, &dir, name, &[]);
    }
    for _ in 0..6 {
        let drainers: Vec<_> = (0..2)
            .map(|_| {
                env.fleet_cmd(&dir, &["drain", "--once", "--max", "2", "--json"])
                    .spawn()
            })
            .collect();
        for d in drainers {
            Env::wait(d).ok();
        }
        if names
            .iter()
            .all(|n| show(&env, &dir, n)["state"] == "succeeded")
        {
            break;
        }
    }
    for name in &names {
        let task = show(&env, &dir, name);
        assert_eq!(task["state"], "succeeded", "{task:#}");
        assert_eq!(runs(&task).len(), 1, "{name} ran more than once: {task:#}");
    }
    let lanes = lane_states(&env, &dir);
    assert_eq!(lanes.len(), 6, "{lanes:?}");
    assert!(lanes.iter().all(|(_, s)| s == "ready"), "{lanes:?}");
    assert_no_agent_left(&env, &dir);
}

#[test]
fn hostile_prompts_reach_the_agent_as_one_argument_and_are_never_run() {
    let env = Env::new();
    let dir = project(&env, "");
    let prompt =
        "-rf $(touch pwned1) `touch pwned2`; touch pwned3\nline two | cat && rm -rf / {task}";
    let flag = format!("--prompt={prompt}");
    env.fleet(&dir, &["task", "add", "hostile", "--agent", "args", &flag])
        .ok();
    let report = drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    let worktree = PathBuf::from(report["runs"][0]["worktree"].as_str().unwrap());
    let args = std::fs::read_to_string(worktree.join("args.txt")).unwrap();
    assert_eq!(args, format!("2\n[{prompt}]\n[hostile]\n"));
    for pwned in ["pwned1", "pwned2", "pwned3"] {
        for place in [&dir, &worktree, &env.path()] {
            assert!(
                !place.join(pwned).exists(),
                "{pwned} in {}",
                place.display()
            );
        }
    }
    // Names are checked before anything is stored.
    env.fleet(&dir, &["task", "add", "-rf", "--prompt", "x"])
        .code(2);
    env.fleet(&dir, &["task", "add", "a;b", "--prompt", "x"])
        .code(2);
}

#[test]
fn drain_reads_claude_json_by_structure_a_429_is_never_a_success() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "good", &["--agent", "claude-ok"]);
    add(&env, &dir, "limited", &["--agent", "claude-429"]);
    drain_once(&env, &dir, &["--max", "2"]);
    assert_eq!(show(&env, &dir, "good")["state"], "succeeded");
    let limited = show(&env, &dir, "limited");
    let run = &runs(&limited)[0];
    // `subtype` says success; `is_error` with `api_error_status` 429 is a usage limit:
    // not a failure, no attempt used, queued again for after the limit.
    assert_eq!(run["outcome"], "limited", "{limited:#}");
    assert_eq!(run["free"], true, "{limited:#}");
    assert_eq!(limited["state"], "queued", "{limited:#}");
    assert!(limited["not_before"].as_i64().is_some(), "{limited:#}");
}

#[test]
fn a_task_naming_an_unknown_profile_fails_with_an_error_naming_it() {
    let env = Env::new();
    let dir = project(&env, "");
    add(
        &env,
        &dir,
        "odd",
        &["--agent", "gemini", "--max-attempts", "1"],
    );
    let report = drain_once(&env, &dir, &[]);
    let error = report["runs"][0]["error"].as_str().unwrap().to_string();
    assert!(error.contains("no agent profile `gemini`"), "{error}");
    let task = show(&env, &dir, "odd");
    assert_eq!(task["state"], "parked");
    assert_eq!(runs(&task)[0]["outcome"], "failed");
    // A project with no profile at all is refused before anything is claimed.
    let bare = env.path().join("bare");
    env.repo(&bare, "main", &[("README", "r\n")]);
    add(&env, &bare, "waiting", &[]);
    let out = env.fleet(&bare, &["drain", "--once", "--json"]).code(2);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no agent profile"),
        "{doc:#}"
    );
    assert_eq!(show(&env, &bare, "waiting")["state"], "queued");
}

#[test]
fn drain_takes_back_claims_whose_holder_is_gone_stale_or_expired_and_runs_them() {
    let env = Env::new();
    let dir = project(&env, "");
    let toml = std::fs::read_to_string(dir.join("fleet.toml"))
        .unwrap()
        .replace("claim_grace = \"60s\"", "claim_grace = \"1s\"");
    env.commit_file(&dir, "fleet.toml", &toml, "short claim grace");
    // Claimed in priority order.
    for (name, priority) in [("expired", "3"), ("gone", "2"), ("stale", "1")] {
        add(&env, &dir, name, &["--priority", priority]);
    }
    let claim = |name: &str, args: &[&str]| {
        let mut all = vec!["task", "claim", "--json"];
        all.extend_from_slice(args);
        let claimed = json(env.fleet(&dir, &all));
        assert_eq!(claimed["task"]["name"], name, "{claimed:#}");
    };
    // The claimer exits at once: a holder on this host whose process is gone.
    claim("expired", &["--holder", "elsewhere", "--lease", "1s"]);
    claim("gone", &[]);
    claim("stale", &["--holder", "elsewhere", "--lease", "1h"]);
    let mut taken = Vec::new();
    wait_for("every claim to be taken back", || {
        let report = drain_once(&env, &dir, &["--max", "3"]);
        for t in report["taken_back"].as_array().unwrap() {
            taken.push((
                t["task"].as_str().unwrap().to_string(),
                t["why"].as_str().unwrap().to_string(),
            ));
        }
        taken.len() == 3
    });
    taken.sort();
    assert!(taken[0].1.contains("expired"), "{taken:?}");
    assert!(taken[1].1.contains("is gone"), "{taken:?}");
    assert!(taken[2].1.contains("stale claim"), "{taken:?}");
    for name in ["gone", "stale", "expired"] {
        wait_for(&format!("{name} to run again"), || {
            drain_once(&env, &dir, &["--max", "3"]);
            show(&env, &dir, name)["state"] == "succeeded"
        });
        let task = show(&env, &dir, name);
        let all = runs(&task);
        assert_eq!(all.len(), 2, "{task:#}");
        assert_eq!(all[0]["outcome"], "crashed");
    }
}

#[test]
fn isolated_runs_get_a_home_of_their_own_env_copies_the_drainer_s_variables_and_caps_hold() {
    let env = Env::new();
    let record = "printf '%s\\n%s\\n%s\\n' \"$HOME\" \"$CLAUDE_CONFIG_DIR\" \"$SECRET\" > seen.txt\ngit config --file \"$HOME/.gitconfig\" user.name >> seen.txt\nsleep 1\ngit add -A\ngit commit -qm seen\n";
    let script = env.path().join("agents/isolated.sh");
    write(&script, &format!("#!/bin/sh\n{record}"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = project(
        &env,
        &format!(
            "\n[agents.iso]\ncommand = [{:?}]\nhome = \"isolated\"\nmax_concurrency = 2\nenv = {{ SECRET = {{ from = \"DRAIN_SECRET\" }} }}\n",
            script.display().to_string()
        ),
    );
    env.git(&dir, &["config", "user.name", "Drainer Identity"]);
    for name in ["i1", "i2", "i3"] {
        add(&env, &dir, name, &["--agent", "iso"]);
    }
    let report = json(
        env.fleet_cmd(&dir, &["drain", "--once", "--max", "3", "--json"])
            .env("DRAIN_SECRET", "s3cr3t")
            .run(),
    );
    // max_concurrency = 2: a pass with --max 3 runs two of the three.
    let done = report["runs"].as_array().unwrap();
    assert_eq!(done.len(), 2, "{report:#}");
    let mut homes = Vec::new();
    for run in done {
        assert_eq!(run["outcome"], "succeeded", "{report:#}");
        let worktree = PathBuf::from(run["worktree"].as_str().unwrap());
        let seen = std::fs::read_to_string(worktree.join("seen.txt")).unwrap();
        let lines: Vec<&str> = seen.lines().collect();
        let run_dir = dir
            .join(".git/fleet/runs")
            .join(run["run"].as_str().unwrap());
        assert_eq!(lines[0], run_dir.join("home").to_str().unwrap(), "{seen}");
        assert_eq!(lines[1], run_dir.join("home/.claude").to_str().unwrap());
        assert_eq!(lines[2], "s3cr3t");
        assert_eq!(lines[3], "Drainer Identity");
        homes.push(lines[0].to_string());
    }
    assert_ne!(homes[0], homes[1]);
    // The secret is in nothing fleet keeps in git (the agent's own commit aside).
    let all = env.git(&dir, &["log", "-p", "--glob=refs/fleet/*", "--format=%B"]);
    assert!(!all.contains("s3cr3t"), "{all}");
    // Without the variable, the attempt fails and says which one.
    let report = drain_once(&env, &dir, &[]);
    let error = report["runs"][0]["error"].as_str().unwrap();
    assert!(error.contains("DRAIN_SECRET"), "{error}");
}

#[test]
fn drain_through_a_bare_remote_runs_the_task_and_makes_its_lane_ready_there() {
    let env = Env::new();
    let seed = project(&env, "");
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["machine"]);
    let machine = clones[0].clone();
    add(&env, &machine, "far", &["--remote", "origin"]);
    let report = drain_once(&env, &machine, &["--remote", "origin"]);
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    let branch = report["runs"][0]["branch"].as_str().unwrap().to_string();
    // The lane is the remote's alone: this clone's own registry (fleet.toml names no
    // remote) does not keep a copy that stays running for ever.
    let here = json(env.fleet(&machine, &["status", "--json"]));
    assert!(
        here.as_array()
            .unwrap()
            .iter()
            .all(|l| l["branch"] != branch.as_str()),
        "{here:#}"
    );
    // The queue and the lane are the remote's: another clone sees both.
    let other = env.path().join("other");
    env.git(
        &env.path(),
        &["clone", "-q", remote.to_str().unwrap(), "other"],
    );
    let task = json(env.fleet(
        &other,
        &["task", "show", "far", "--remote", "origin", "--json"],
    ));
    assert_eq!(task["state"], "succeeded", "{task:#}");
    let lanes = json(env.fleet(&other, &["status", "--remote", "origin", "--json"]));
    let lane = lanes
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["branch"] == branch.as_str())
        .unwrap_or_else(|| panic!("{lanes:#}"));
    assert_eq!(lane["state"], "ready");
    env.git(
        &remote,
        &["rev-parse", "--verify", &format!("refs/heads/{branch}")],
    );
}

#[test]
fn a_failing_check_fails_the_attempt_and_leaves_its_lane_running_with_the_log() {
    let env = Env::new();
    let commit = env.path().join("agents/commit.sh");
    let dir = project(
        &env,
        &format!(
            "\n[agents.badcheck]\ncommand = [{:?}]\ncheck = [\"sh\", \"-c\", \"echo 2 tests failed; exit 4\"]\nenv = {{ RUNS = {:?} }}\n",
            commit.display().to_string(),
            env.path().join("runs").display().to_string()
        ),
    );
    add(
        &env,
        &dir,
        "red",
        &["--agent", "badcheck", "--max-attempts", "1"],
    );
    let report = drain_once(&env, &dir, &[]);
    let run = &report["runs"][0];
    assert_eq!(run["outcome"], "failed", "{report:#}");
    assert_eq!(run["check"]["exit_code"], 4);
    let error = run["error"].as_str().unwrap();
    assert!(
        error.contains("the check exited 4") && error.contains("2 tests failed"),
        "{error}"
    );
    assert_eq!(show(&env, &dir, "red")["state"], "parked");
    let branch = run["branch"].as_str().unwrap().to_string();
    assert_eq!(lane_states(&env, &dir), [(branch, "running".to_string())]);
}

#[test]
fn a_check_running_when_the_drainer_is_stopped_is_stopped_too_and_the_task_queued_again() {
    let env = Env::new();
    let commit = env.path().join("agents/commit.sh");
    let pidfile = env.path().join("runs/check.pid");
    let dir = project(
        &env,
        &format!(
            "\n[agents.slowcheck]\ncommand = [{:?}]\ncheck = [\"sh\", \"-c\", \"sleep 300 & echo $! > {}; wait\"]\nenv = {{ RUNS = {:?} }}\n",
            commit.display().to_string(),
            pidfile.display(),
            env.path().join("runs").display().to_string()
        ),
    );
    add(
        &env,
        &dir,
        "slow",
        &["--agent", "slowcheck", "--max-attempts", "1"],
    );
    let drainer = env.fleet_cmd(&dir, &["drain", "--json"]).spawn();
    let helper = procs::read_pid(&pidfile);
    let pid = rustix::process::Pid::from_raw(drainer.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let out = Env::wait(drainer).ok();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let run = &report["runs"][0];
    assert!(
        run["error"].as_str().unwrap().contains("during the check"),
        "{report:#}"
    );
    wait_for("the check's helper to die", || !procs::live(helper));
    let task = show(&env, &dir, "slow");
    assert_eq!(task["state"], "queued", "{task:#}");
    assert_eq!(runs(&task)[0]["free"], true);
    // Its lane was not made ready by a check that never finished.
    let branch = run["branch"].as_str().unwrap().to_string();
    assert_eq!(lane_states(&env, &dir), [(branch, "running".to_string())]);
    assert_no_agent_left(&env, &dir);
}

#[test]
fn a_usage_limit_queues_the_task_again_without_using_up_an_attempt() {
    use fleet::tasks::{Holder, Outcome, Store, Task, TaskName, TaskState};
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "quota", &["--max-attempts", "1"]);
    let ctx = fleet::context::Context::find(&dir).unwrap();
    let queue = fleet::queue::Queue::configured(&ctx);
    let store = Store::new(&ctx, &queue);
    let name = TaskName::parse("quota").unwrap();
    let holder = Holder::this_process("test");
    let lease = Duration::from_secs(60);
    let first = store.claim_next(&holder, 100, lease).unwrap().unwrap();
    store
        .finish(
            &name,
            &first.run.id,
            Outcome::Limited,
            Some("429".into()),
            101,
        )
        .unwrap();
    let task: Task = store
        .requeue_after(&name, &first.run.id, 101, Duration::from_secs(50))
        .unwrap();
    assert_eq!(task.state, TaskState::Queued);
    assert_eq!(task.attempts(), 0);
    assert_eq!(task.not_before, Some(151));
    assert!(store.claim_next(&holder, 150, lease).unwrap().is_none());
    let second = store.claim_next(&holder, 151, lease).unwrap().unwrap();
    assert_eq!(second.run.attempt, 1);
    let states: Vec<TaskState> = second.task.transitions.iter().map(|t| t.to).collect();
    assert!(states.contains(&TaskState::Limited), "{states:?}");
}
