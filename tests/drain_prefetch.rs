//! `fleet drain`'s per-task overhead (issue 15's goal of at most half the shell glue),
//! and what being quicker must not cost: each run's worktree is made without git
//! processes of the drainer's own; the next run prepared ahead (`[drain] prepare_ahead`:
//! claimed and its worktree made while the slot is busy) starts no agent beyond
//! `--max`, is claimed once, is handed back when the drainer stops, and a drainer killed
//! while preparing it leaves what the next drainer takes back and makes again.

use std::path::Path;

use crate::common::assert::lane_states;
use crate::common::drain::{add, assert_no_agent_left, json, project, runs, show, wait_for};
use crate::common::{Env, counting_git, write};

/// A profile `serial` whose agent says in `$RUNS/log` that it ran and `overlap` when
/// another agent of the project holds the shared lock (two at once), sleeps a second
/// (`$RUNS/long-$FLEET_TASK` makes it 120 s), then commits.
fn serial(env: &Env) -> String {
    let script = env.path().join("agents-serial.sh");
    write(
        &script,
        "#!/bin/sh
exec 9>>\"$RUNS/serial.lock\"
flock -n 9 || echo \"overlap $FLEET_TASK\" >> \"$RUNS/log\"
echo \"run $FLEET_TASK\" >> \"$RUNS/log\"
if [ -e \"$RUNS/long-$FLEET_TASK\" ]; then sleep 120; else sleep 1; fi
printf '%s\\n' \"$FLEET_TASK\" > \"done-$FLEET_TASK.txt\"
git add -A
git commit -qm \"agent: $FLEET_TASK\"
",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "\n[agents.serial]\ncommand = [{:?}]\ntimeout = \"300s\"\nenv = {{ RUNS = {:?} }}\n",
        script.display().to_string(),
        env.path().join("runs").display().to_string()
    )
}

/// Start `fleet drain --max 1` (until stopped), with `vars` in its environment.
fn drainer(env: &Env, dir: &Path, vars: &[(&str, &str)]) -> std::process::Child {
    env.fleet_cmd(dir, &["drain", "--max", "1", "--json"])
        .envs(vars)
        .spawn()
}

fn state(env: &Env, dir: &Path, name: &str) -> String {
    show(env, dir, name)["state"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// SIGTERM to `child`, then its output.
fn stop(child: std::process::Child) -> crate::common::Run {
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    Env::wait(child)
}

/// Queue `names` for `agent`, drain them with `--max 1` until every one succeeded, then stop
/// the drainer and return its output.
fn drain_all(env: &Env, dir: &Path, names: &[&str], agent: &str) -> crate::common::Run {
    for name in names {
        add(env, dir, name, &["--agent", agent]);
    }
    let child = drainer(env, dir, &[]);
    wait_for("every task to succeed", || {
        names.iter().all(|n| state(env, dir, n) == "succeeded")
    });
    stop(child)
}

/// The line index in `text` of the first line starting with `start` and holding `has`.
fn line_of(text: &str, start: &str, has: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(start) && l.contains(has))
        .unwrap_or_else(|| panic!("no line `{start}...{has}` in:\n{text}"))
}

/// Agent worktree folders of task `name` under the worktree root.
fn folders_of(env: &Env, name: &str) -> Vec<String> {
    std::fs::read_dir(env.path().join(".fleet-work/repo"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|f| f.starts_with(&format!("{name}-")))
                .collect()
        })
        .unwrap_or_default()
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn drain_runs_no_git_process_of_its_own_for_a_run_only_the_agents() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "one", &[]);
    add(&env, &dir, "two", &[]);
    let (bin, log) = counting_git(&env);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = env
        .fleet_cmd(&dir, &["drain", "--once", "--max", "2", "--json"])
        .env("PATH", path)
        .run()
        .ok();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    for run in report["runs"].as_array().unwrap() {
        assert_eq!(run["outcome"], "succeeded", "{report:#}");
    }
    // The two agents' own `git add -A` and `git commit`, and nothing of the drainer's
    // (it asked git for the hooks folders of each new worktree, for a note it dropped).
    let mut calls = lines(&log);
    calls.sort();
    assert_eq!(
        calls,
        [
            "add -A",
            "add -A",
            "commit -qm agent: one",
            "commit -qm agent: two"
        ],
        "{}",
        run.stderr
    );
    for name in ["one", "two"] {
        assert_eq!(show(&env, &dir, name)["state"], "succeeded");
    }
    let states: Vec<String> = lane_states(&env, &dir).into_iter().map(|l| l.1).collect();
    assert_eq!(states, ["ready", "ready"]);
}

#[test]
fn drain_prepares_the_next_run_while_one_runs_and_still_runs_one_agent_at_a_time_with_max_1() {
    let env = Env::new();
    let dir = project(&env, &serial(&env));
    let names = ["s1", "s2", "s3", "s4"];
    let out = drain_all(&env, &dir, &names, "serial");
    let log = std::fs::read_to_string(env.path().join("runs/log")).unwrap();
    assert!(!log.contains("overlap"), "two agents at once:\n{log}");
    assert_eq!(log.lines().count(), 4, "{log}");
    // s3 was claimed and prepared while s2 ran, before s2's lane was ready.
    let claimed = line_of(&out.stderr, "s3: claimed", "prepared ahead");
    assert!(
        claimed < line_of(&out.stderr, "s2: succeeded", ""),
        "{}",
        out.stderr
    );
    for name in names {
        // Claimed once: one run, the first attempt, started with its group.
        let task = show(&env, &dir, name);
        let runs = runs(&task);
        assert_eq!(runs.len(), 1, "{task:#}");
        assert_eq!(runs[0]["attempt"], 1, "{task:#}");
        assert_eq!(runs[0]["outcome"], "succeeded", "{task:#}");
        assert!(runs[0]["pgid"].as_i64().is_some() && runs[0]["started"].as_i64().is_some());
        assert_eq!(folders_of(&env, name).len(), 1, "{name}");
    }
    let states: Vec<String> = lane_states(&env, &dir).into_iter().map(|l| l.1).collect();
    assert_eq!(states, ["ready"; 4]);
    assert_no_agent_left(&env, &dir);
}

#[test]
fn drain_hands_the_runs_prepared_ahead_back_to_the_queue_when_stopped_with_no_attempt_used() {
    let env = Env::new();
    let dir = project(&env, &serial(&env));
    for name in ["h1", "h2", "h3", "h4"] {
        add(&env, &dir, name, &["--agent", "serial"]);
    }
    write(&env.path().join("runs/long-h2"), "");
    let child = drainer(&env, &dir, &[]);
    wait_for("h3 and h4 to be claimed while h2 runs", || {
        state(&env, &dir, "h2") == "running"
            && ["h3", "h4"]
                .iter()
                .all(|n| state(&env, &dir, n) == "claimed")
    });
    wait_for("h3's and h4's worktrees", || {
        ["h3", "h4"].iter().all(|n| folders_of(&env, n).len() == 1)
    });
    let out = stop(child);
    for name in ["h3", "h4"] {
        assert!(
            out.stderr.contains(&format!(
                "{name}: handed back before its agent started: the drainer stopped"
            )),
            "{}",
            out.stderr
        );
        // Queued again, its one run ended and free: no attempt used.
        let task = show(&env, &dir, name);
        assert_eq!(task["state"], "queued", "{task:#}");
        let first = &runs(&task)[0];
        assert_eq!(first["free"], true, "{task:#}");
        assert!(first["ended"].as_i64().is_some(), "{task:#}");
        assert!(first.get("started").is_none(), "{task:#}");
        // Its worktree, branch and lane are gone: no agent ran there.
        assert!(
            folders_of(&env, name).is_empty(),
            "{:?}",
            folders_of(&env, name)
        );
        let branches = env.git(&dir, &["branch", "--list", &format!("fleet/{name}-*")]);
        assert_eq!(branches.trim(), "", "{branches}");
        assert!(
            lane_states(&env, &dir)
                .iter()
                .all(|(b, _)| !b.starts_with(&format!("fleet/{name}-"))),
            "{:?}",
            lane_states(&env, &dir)
        );
        assert!(
            !env.git(&dir, &["worktree", "list"])
                .contains(&format!("/{name}-"))
        );
    }
    assert_no_agent_left(&env, &dir);
    // The next drainer runs them as their first attempts.
    std::fs::remove_file(env.path().join("runs/long-h2")).unwrap();
    let report = json(env.fleet(&dir, &["drain", "--once", "--max", "3", "--json"]));
    for name in ["h3", "h4"] {
        let task = show(&env, &dir, name);
        assert_eq!(task["state"], "succeeded", "{report:#}");
        let last = runs(&task).last().cloned().unwrap();
        assert_eq!(last["attempt"], 1, "{task:#}");
    }
}

#[test]
fn drain_killed_while_preparing_a_run_ahead_leaves_a_claim_the_next_drainer_takes_back_and_remakes()
{
    let env = Env::new();
    let dir = project(&env, &serial(&env));
    for name in ["k1", "k2", "k3"] {
        add(&env, &dir, name, &["--agent", "serial"]);
    }
    // Aborts (as kill -9 would) once the run prepared ahead has its worktree.
    let child = drainer(
        &env,
        &dir,
        &[("FLEET_FAILPOINT", "drain-ahead-after-worktree:abort")],
    );
    let mut child = child;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() >= deadline {
            let out = stop(child);
            panic!("the drainer never reached the failpoint:\n{}", out.stderr);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = Env::wait(child);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert_eq!(state(&env, &dir, "k1"), "succeeded");
    assert_eq!(state(&env, &dir, "k3"), "claimed");
    let left = folders_of(&env, "k3");
    assert_eq!(left.len(), 1, "{}", out.stderr);
    // The next drainer takes k3 back (its drainer is gone) and runs it again in a fresh
    // worktree; the one left half made is removed. (k2, running while k3 was prepared,
    // may have ended before the kill, or is taken back and run again too.)
    let report = json(env.fleet(&dir, &["drain", "--once", "--max", "3", "--json"]));
    assert_eq!(state(&env, &dir, "k2"), "succeeded", "{report:#}");
    {
        let task = show(&env, &dir, "k3");
        assert_eq!(task["state"], "succeeded", "{report:#}");
        let runs = runs(&task);
        assert_eq!(runs.len(), 2, "{task:#}");
        assert_eq!(runs[0]["outcome"], "crashed", "{task:#}");
        assert!(
            runs[0]["error"]
                .as_str()
                .unwrap_or_default()
                .contains("is gone"),
            "{task:#}"
        );
    }
    let now = folders_of(&env, "k3");
    assert_eq!(now.len(), 1, "{now:?}");
    assert!(!now.contains(&left[0]), "{now:?} still has {}", left[0]);
    assert!(!env.git(&dir, &["worktree", "list"]).contains(&left[0]));
    let branches = env.git(&dir, &["branch", "--list", &format!("fleet/{}", left[0])]);
    assert_eq!(branches.trim(), "");
    let k3: Vec<(String, String)> = lane_states(&env, &dir)
        .into_iter()
        .filter(|(b, _)| b.starts_with("fleet/k3-"))
        .collect();
    assert_eq!(k3.len(), 1, "{k3:?}");
    assert_eq!(k3[0].1, "ready");
    assert_no_agent_left(&env, &dir);
}

#[test]
fn drain_with_max_1_prepares_two_runs_ahead_side_by_side_while_a_short_run_runs() {
    let env = Env::new();
    let script = env.path().join("agents-peek.sh");
    // p2's agent waits (up to 30 s) until the worktrees of p3 and p4, both prepared
    // ahead while it runs, are there, and says how many it saw.
    write(
        &script,
        "#!/bin/sh
if [ \"$FLEET_TASK\" = p2 ]; then
  i=0
  while [ $i -lt 300 ]; do
    n=$(ls \"$(dirname \"$FLEET_WORKTREE\")\" | grep -c -e '^p3-' -e '^p4-')
    [ \"$n\" -ge 2 ] && break
    sleep 0.1
    i=$((i+1))
  done
  echo \"saw $n\" > \"$RUNS/p2-saw\"
fi
echo \"run $FLEET_TASK\" >> \"$RUNS/log\"
printf '%s\\n' \"$FLEET_TASK\" > \"done-$FLEET_TASK.txt\"
git add -A
git commit -qm \"agent: $FLEET_TASK\"
",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runs_dir = env.path().join("runs");
    std::fs::create_dir_all(&runs_dir).unwrap();
    let profile = format!(
        "\n[agents.peek]\ncommand = [{:?}]\ntimeout = \"120s\"\nenv = {{ RUNS = {:?} }}\n",
        script.display().to_string(),
        runs_dir.display().to_string()
    );
    let dir = project(&env, &profile);
    let names = ["p1", "p2", "p3", "p4"];
    let out = drain_all(&env, &dir, &names, "peek");
    let saw = std::fs::read_to_string(runs_dir.join("p2-saw")).unwrap();
    assert_eq!(saw.trim(), "saw 2", "{}", out.stderr);
    // Both were claimed ahead while p2 ran; the agents still ran one at a time, in the
    // order of the claims.
    let p2_done = line_of(&out.stderr, "p2: succeeded", "");
    for name in ["p3", "p4"] {
        let claimed = line_of(&out.stderr, &format!("{name}: claimed"), "prepared ahead");
        assert!(claimed < p2_done, "{}", out.stderr);
    }
    assert_eq!(
        lines(&runs_dir.join("log")),
        ["run p1", "run p2", "run p3", "run p4"]
    );
    for name in names {
        let task = show(&env, &dir, name);
        let runs = runs(&task);
        assert_eq!(runs.len(), 1, "{task:#}");
        assert_eq!(runs[0]["attempt"], 1, "{task:#}");
        assert_eq!(runs[0]["outcome"], "succeeded", "{task:#}");
        assert_eq!(folders_of(&env, name).len(), 1, "{name}");
    }
    let states: Vec<String> = lane_states(&env, &dir).into_iter().map(|l| l.1).collect();
    assert_eq!(states, ["ready"; 4]);
    assert_no_agent_left(&env, &dir);
}
