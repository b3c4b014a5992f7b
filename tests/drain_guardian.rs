//! What the drainer's cheaper bookkeeping per task (issue 15's overhead goal) must not
//! cost: one guardian guards every agent and check of a drainer, and still stops all
//! of them, however many run, when the drainer is killed outright; the worktree's
//! status after a run, proven clean from stat data when it can be, still finds what an
//! agent left uncommitted where the stat data cannot tell.

use std::path::{Path, PathBuf};

use crate::common::drain::{add, assert_no_agent_left, drain_once, project, show, wait_for};
use crate::common::{Env, procs, write};

/// An executable script at `path`.
fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    write(path, &format!("#!/bin/sh\n{body}"));
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The guardian pid in the group record `path` (a drainer's `.git/fleet/groups/N.json`).
fn guardian_of(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    record["guardian_pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("no guardian in {}: {text}", path.display()))
}

/// Body of a script that waits for its group's record (the drainer writes it once the
/// group started) and copies it to `$1/NAME-$$.json`.
const COPY_RECORD: &str = "common=$(cd \"$(git rev-parse --git-common-dir)\" && pwd)\n\
     record=\"$common/fleet/groups/$$.json\"\n\
     while [ ! -s \"$record\" ]; do sleep 0.01; done\n";

#[test]
fn one_guardian_guards_every_agent_and_check_of_a_drainer_and_leaves_with_it() {
    let env = Env::new();
    let records = env.path().join("records");
    std::fs::create_dir_all(&records).unwrap();
    let agent = env.path().join("agents/recorded.sh");
    script(
        &agent,
        &format!(
            "{COPY_RECORD}cp \"$record\" \"$RUNS/../records/agent-$$.json\"\n\
             printf '%s\\n' \"$FLEET_TASK\" > \"done-$FLEET_TASK.txt\"\n\
             git add -A\ngit commit -qm \"agent: $FLEET_TASK\"\n"
        ),
    );
    let check = env.path().join("agents/check.sh");
    script(
        &check,
        &format!("{COPY_RECORD}cp \"$record\" \"$1/check-$$.json\"\n"),
    );
    let extra = format!(
        "\n[agents.recorded]\ncommand = [{:?}]\ntimeout = \"60s\"\ncheck = [{:?}, {:?}]\nenv = {{ RUNS = {:?} }}\n",
        agent.display().to_string(),
        check.display().to_string(),
        records.display().to_string(),
        env.path().join("runs").display().to_string(),
    );
    let dir = project(&env, &extra);
    // Two at once (`--once` runs what the caps allow in one pass), each then checked.
    for name in ["a", "b"] {
        add(&env, &dir, name, &["--agent", "recorded"]);
    }
    let report = drain_once(&env, &dir, &["--max", "2"]);
    for name in ["a", "b"] {
        assert_eq!(show(&env, &dir, name)["state"], "succeeded", "{report:#}");
    }
    let copied: Vec<PathBuf> = std::fs::read_dir(&records)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    let agents = copied
        .iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-")
        })
        .count();
    assert_eq!((agents, copied.len()), (2, 4), "{copied:?}");
    let mut guardians: Vec<u64> = copied.iter().map(|p| guardian_of(p)).collect();
    guardians.dedup();
    assert_eq!(
        guardians.len(),
        1,
        "two agents and two checks: {guardians:?}"
    );
    // Dismissed with the drainer: nothing of it is left.
    let guardian = guardians[0] as i32;
    wait_for(&format!("the guardian {guardian} to leave"), || {
        !procs::live(guardian)
    });
    assert_no_agent_left(&env, &dir);
}

#[test]
fn a_drainer_killed_outright_with_two_agents_running_takes_both_groups_with_it() {
    let env = Env::new();
    let dir = project(&env, "");
    for name in ["x", "y"] {
        add(&env, &dir, name, &["--agent", "hang"]);
    }
    let mut drainer = env
        .fleet_cmd(&dir, &["drain", "--once", "--max", "2"])
        .spawn();
    let runs = env.path().join("runs");
    // The agent starts before its task is recorded as running (the update that holds
    // its group id): wait for both, so the kill lands on two running tasks. A kill in
    // between leaves a claim, which the next drainer takes back (tests/attack_drain*.rs).
    wait_for(
        "both agents' helpers to start and both tasks to run",
        || {
            ["x", "y"].iter().all(|t| {
                std::fs::read_to_string(runs.join(format!("hang-{t}.pid")))
                    .is_ok_and(|p| !p.trim().is_empty())
                    && show(&env, &dir, t)["state"] == "running"
            })
        },
    );
    let helpers: Vec<i32> = ["x", "y"]
        .iter()
        .map(|t| procs::read_pid(&runs.join(format!("hang-{t}.pid"))))
        .collect();
    drainer.kill().unwrap();
    drainer.wait().unwrap();
    for pid in helpers {
        wait_for(&format!("helper {pid} to be stopped"), || !procs::live(pid));
    }
    // Both groups' records went with them (their guardian removed them).
    assert_no_agent_left(&env, &dir);
    for name in ["x", "y"] {
        assert_eq!(show(&env, &dir, name)["state"], "running");
    }
}

#[test]
fn a_run_that_left_a_change_its_stat_data_do_not_show_fails_as_left_uncommitted() {
    let env = Env::new();
    let agent = env.path().join("agents/sly.sh");
    // Each after committing: `staged` stages a change to README then puts the file back
    // as HEAD has it (only the index differs); `same-size` rewrites README to other
    // text of the same size and sets its times back.
    script(
        &agent,
        "printf '%s\\n' \"$FLEET_TASK\" > \"done-$FLEET_TASK.txt\"\n\
         git add -A\ngit commit -qm \"agent: $FLEET_TASK\"\n\
         case \"$FLEET_TASK\" in\n\
         staged) echo other > README; git add README; git show HEAD:README > README ;;\n\
         same-size) touch -r README \"$RUNS/stamp-$FLEET_RUN\"; printf 'x\\n' > README;\n\
           touch -r \"$RUNS/stamp-$FLEET_RUN\" README ;;\n\
         esac\n",
    );
    let extra = format!(
        "\n[agents.sly]\ncommand = [{:?}]\ntimeout = \"60s\"\nenv = {{ RUNS = {:?} }}\n",
        agent.display().to_string(),
        env.path().join("runs").display().to_string(),
    );
    let dir = project(&env, &extra);
    for name in ["staged", "same-size"] {
        add(&env, &dir, name, &["--agent", "sly", "--max-attempts", "1"]);
    }
    let report = drain_once(&env, &dir, &["--max", "2"]);
    for name in ["staged", "same-size"] {
        let run = report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["task"] == name)
            .unwrap_or_else(|| panic!("no run of {name}: {report:#}"));
        assert_eq!(run["outcome"], "failed", "{name}: {run:#}");
        let error = run["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("left changes it did not commit in ") && error.contains("README"),
            "{name}: {error}"
        );
        assert!(run["check"].is_null(), "{name}: the check ran: {run:#}");
        assert_eq!(show(&env, &dir, name)["state"], "parked");
    }
    let lanes = crate::common::assert::lane_states(&env, &dir);
    assert!(lanes.iter().all(|(_, state)| state != "ready"), "{lanes:?}");
    assert_no_agent_left(&env, &dir);
}

#[test]
fn a_panic_in_an_agents_thread_fails_its_run_and_kills_its_group_instead_of_hanging_the_drainer() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "stuck", &["--agent", "hang"]);
    let mut drainer = env
        .fleet_cmd(&dir, &["drain", "--once", "--json"])
        .env("FLEET_FAILPOINT", "drain-agent-started:panic")
        .spawn();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while drainer.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = drainer.kill();
            let _ = drainer.wait();
            panic!("the drainer never ended after its agent's thread panicked");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let task = show(&env, &dir, "stuck");
    let run = crate::common::drain::runs(&task)
        .pop()
        .expect("a run recorded");
    assert_eq!(run["outcome"], "failed", "{task:#}");
    let error = run["error"].as_str().unwrap_or_default();
    assert!(error.contains("bug in fleet"), "{task:#}");
    assert_no_agent_left(&env, &dir);
}
