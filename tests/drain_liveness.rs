//! Liveness of a running agent: silent (no output, no commit, no change in its worktree)
//! for `stall_after` it is shown stalled by `fleet status`, in another process than its
//! drainer; silent for `abandon_after` its drainer kills its whole group and records the
//! attempt as timed out, and the task is retried or parked like any timeout. An agent
//! that prints, commits or edits is neither; a profile's own settings beat `[drain]`'s.

use std::path::Path;

use crate::common::drain::{add, json, project, runs, show, wait_for};
use crate::common::procs;
use crate::common::{Env, snap, write};

/// Fake agents of these tests, as `[agents.NAME]` with `extra` lines each (`RUNS` is the
/// fixtures' scratch folder, `BIN` where the scripts are).
fn agent(env: &Env, name: &str, body: &str, extra: &str) -> String {
    let script = env.path().join("agents").join(format!("{name}.sh"));
    write(&script, &format!("#!/bin/sh\n{body}"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "[agents.{name}]\ncommand = [{:?}]\ntimeout = \"120s\"\nenv = {{ RUNS = {:?} }}\n{extra}\n",
        script.display().to_string(),
        env.path().join("runs").display().to_string(),
    )
}

/// Prints nothing and waits on a helper of its own (its pid in `$RUNS/silent-TASK.pid`).
const SILENT: &str = "sleep 300 &\necho $! > \"$RUNS/silent-$FLEET_TASK.pid\"\nwait\n";

/// `fleet status --json --tasks`'s row of `task`, if it is held.
fn held(env: &Env, dir: &Path, task: &str) -> Option<serde_json::Value> {
    let doc = json(env.fleet(dir, &["status", "--json", "--tasks"]));
    doc["tasks"]["running"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == task)
        .cloned()
}

fn stalled(env: &Env, dir: &Path, task: &str) -> bool {
    held(env, dir, task).is_some_and(|t| t["stalled"] == true)
}

#[test]
fn a_silent_agent_is_shown_stalled_then_abandoned_its_whole_group_killed_and_the_attempt_counted() {
    let env = Env::new();
    let silent = agent(&env, "silent", SILENT, "");
    let dir = project(
        &env,
        &format!("stall_after = \"1s\"\nabandon_after = \"15s\"\n{silent}"),
    );
    add(
        &env,
        &dir,
        "once",
        &["--agent", "silent", "--max-attempts", "1"],
    );
    add(
        &env,
        &dir,
        "again",
        &["--agent", "silent", "--max-attempts", "3"],
    );
    let drainer = env
        .fleet_cmd(&dir, &["drain", "--once", "--max", "2", "--json"])
        .spawn();
    let mut groups = Vec::new();
    for task in ["once", "again"] {
        wait_for(&format!("{task} to be shown stalled"), || {
            stalled(&env, &dir, task)
        });
        let row = held(&env, &dir, task).unwrap();
        assert_eq!(row["state"], "running", "{row:#}");
        let liveness = &row["liveness"];
        assert_eq!(liveness["by"], "start", "{row:#}");
        assert!(liveness["silent_secs"].as_i64().unwrap() >= 1, "{row:#}");
        assert_eq!(liveness["stall_after_secs"], 1);
        assert_eq!(liveness["abandon_after_secs"], 15);
        groups.push(row["pgid"].as_i64().unwrap() as i32);
    }
    let helpers: Vec<i32> = ["once", "again"]
        .iter()
        .map(|t| procs::read_pid(&env.path().join(format!("runs/silent-{t}.pid"))))
        .collect();
    let out = Env::wait(drainer).ok();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["runs"].as_array().unwrap().len(), 2, "{report:#}");
    // The whole group died: the agent and the helper it started.
    for pgid in groups {
        wait_for(&format!("group {pgid} to be gone"), || {
            procs::members(pgid).is_empty()
        });
    }
    for pid in helpers {
        wait_for(&format!("helper {pid} to die"), || !procs::live(pid));
    }
    for (task, state) in [("once", "parked"), ("again", "queued")] {
        let shown = show(&env, &dir, task);
        assert_eq!(shown["state"], state, "{shown:#}");
        let all = runs(&shown);
        assert_eq!(all.len(), 1, "{shown:#}");
        let run = &all[0];
        assert_eq!(run["outcome"], "timed_out", "{shown:#}");
        let error = run["error"].as_str().unwrap();
        assert!(
            error.starts_with("abandoned: no output and no commit for "),
            "{error}"
        );
        assert!(error.contains("abandon_after = 15s"), "{error}");
        // The attempt is used: not free, as a drainer's own stop would be.
        assert_eq!(run.get("free"), None, "{shown:#}");
    }
    assert!(held(&env, &dir, "again").is_none());
}

#[test]
fn an_agent_that_prints_commits_or_edits_past_stall_after_is_neither_stalled_nor_abandoned() {
    let env = Env::new();
    let profiles = [
        agent(
            &env,
            "chatty",
            "i=0\nwhile [ $i -lt 16 ]; do echo tick $i; sleep 0.5; i=$((i+1)); done\necho x > c.txt; git add -A; git commit -qm chatty\n",
            "",
        ),
        // Empty commits: nothing in the worktree changes, only the branch moves.
        agent(
            &env,
            "committer",
            "for i in 1 2 3 4 5 6 7 8; do git commit -q --allow-empty -m \"n$i\"; sleep 1; done\n",
            "",
        ),
        // Prints nothing and commits at the end only, as a json-mode claude does.
        agent(
            &env,
            "editor",
            "for i in 1 2 3 4 5 6 7 8; do echo $i > n.txt; sleep 1; done\ngit add -A; git commit -qm edited\n",
            "",
        ),
    ]
    .concat();
    let dir = project(
        &env,
        &format!("stall_after = \"4s\"\nabandon_after = \"5s\"\n{profiles}"),
    );
    for name in ["chatty", "committer", "editor"] {
        add(&env, &dir, name, &["--agent", name]);
    }
    let drainer = env
        .fleet_cmd(&dir, &["drain", "--once", "--max", "3", "--json"])
        .spawn();
    wait_for("the three agents to run", || {
        ["chatty", "committer", "editor"]
            .iter()
            .all(|t| held(&env, &dir, t).is_some_and(|r| r["state"] == "running"))
    });
    // Sampled while they work, well past stall_after: none is ever stalled.
    let mut seen = std::collections::BTreeSet::new();
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(7) {
        let doc = json(env.fleet(&dir, &["status", "--json", "--tasks"]));
        for row in doc["tasks"]["running"].as_array().unwrap() {
            assert_eq!(row["stalled"], false, "{row:#}");
            seen.insert(format!("{} {}", row["name"], row["liveness"]["by"]));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    for shown in [
        "\"chatty\" \"output\"",
        "\"committer\" \"commit\"",
        "\"editor\" \"files\"",
    ] {
        assert!(seen.contains(shown), "never seen {shown}: {seen:?}");
    }
    let out = Env::wait(drainer).ok();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    for name in ["chatty", "committer", "editor"] {
        let task = show(&env, &dir, name);
        assert_eq!(task["state"], "succeeded", "{task:#}\n{report:#}");
        assert_eq!(runs(&task).len(), 1, "{task:#}");
    }
}

#[test]
fn a_profile_s_own_stall_after_and_abandon_after_beat_drain_s() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let profiles = [
        agent(&env, "quick", SILENT, "abandon_after = \"30s\""),
        agent(
            &env,
            "patient",
            SILENT,
            "stall_after = \"1h\"\ntimeout = \"30s\"",
        )
        .replace("timeout = \"120s\"\n", ""),
    ]
    .concat();
    let dir = project(
        &env,
        &format!("stall_after = \"1s\"\nabandon_after = \"1h\"\n{profiles}"),
    );
    add(&env, &dir, "quick", &["--agent", "quick"]);
    add(&env, &dir, "patient", &["--agent", "patient"]);
    let drainer = env
        .fleet_cmd(&dir, &["drain", "--once", "--max", "2", "--json"])
        .spawn();
    wait_for("quick to be shown stalled", || stalled(&env, &dir, "quick"));
    wait_for("patient to run", || {
        held(&env, &dir, "patient").is_some_and(|r| r["state"] == "running")
    });
    let mut text = env.fleet(&dir, &["status"]).ok();
    // doctor warns on the stalled one, and says what ends it.
    let doctor = env.fleet(&dir, &["doctor", "--json"]);
    let checks: serde_json::Value = serde_json::from_str(&doctor.stdout).unwrap();
    let check = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "stalled-runs")
        .unwrap_or_else(|| panic!("no stalled-runs check in {checks:#}"));
    assert_eq!(check["verdict"], "warn", "{check:#}");
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains("task quick"), "{detail}");
    assert!(detail.contains("abandoned once silent for 30s"), "{detail}");
    assert!(!detail.contains("task patient"), "{detail}");
    let patient = held(&env, &dir, "patient").unwrap();
    assert_eq!(patient["stalled"], false, "{patient:#}");
    assert_eq!(patient["liveness"]["stall_after_secs"], 3600);
    assert_eq!(patient["liveness"]["abandon_after_secs"], 3600);
    // The host is replaced before any filter runs: filters apply in order, and the
    // common ones would first turn part of a name such as `runner-7f3a2b1c9` (or a
    // container's hex id) into an [OID], after which no hostname filter matches.
    text.stdout = text
        .stdout
        .replace(&format!(" on {} ", hostname()), " on [HOST] ");
    let mut s = snap::settings(&env);
    s.add_filter(r"pgid \d+", "pgid [PGID]");
    s.add_filter(r"run \S+ attempt", "run [RUN] attempt");
    // The age column is padded to its width: "9s ago" and "10s ago" alike.
    s.add_filter(r"ago +pid", "ago pid");
    s.bind(|| insta::assert_snapshot!("status_stalled", snap::run(&text)));
    Env::wait(drainer).ok();
    let quick = &runs(&show(&env, &dir, "quick"))[0];
    assert_eq!(quick["outcome"], "timed_out", "{quick:#}");
    assert!(
        quick["error"]
            .as_str()
            .unwrap()
            .contains("abandoned: no output and no commit for"),
        "{quick:#}"
    );
    // Silent as long, but its profile's abandon_after is [drain]'s hour: its own
    // timeout ended it.
    let patient = &runs(&show(&env, &dir, "patient"))[0];
    assert_eq!(patient["outcome"], "timed_out", "{patient:#}");
    assert!(
        !patient["error"].as_str().unwrap().contains("abandoned"),
        "{patient:#}"
    );
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}
