//! A second adversarial review of `fleet drain` and its task queue: liveness fooled
//! (file times in the future, a packed branch ref), `[drain] cleanup` against a person
//! working in a landed worktree and against a drainer killed half way through a
//! removal, and the queue through a remote. Each test is named after the promise it
//! holds fleet to and checks the state afterwards.

use std::path::{Path, PathBuf};

use crate::common::drain::{LiveDrainer, add, drain_once, json, project, runs, show, wait_for};
use crate::common::{Env, procs, write};

/// A fake agent of these tests, as `[agents.NAME]` (`RUNS` is the fixtures' scratch
/// folder).
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

/// Waits on a helper of its own (its pid in `$RUNS/silent-TASK.pid`), printing nothing.
const WAIT: &str = "sleep 300 &\necho $! > \"$RUNS/silent-$FLEET_TASK.pid\"\nwait\n";

/// Drain `task` (one attempt) with `agent`'s profile and `abandon_after = "3s"`, and
/// expect it abandoned: its run timed out saying so, its helper dead.
fn assert_abandoned(env: &Env, dir: &Path, task: &str) {
    add(env, dir, task, &["--agent", task, "--max-attempts", "1"]);
    let mut drainer = env.fleet_cmd(dir, &["drain", "--once", "--json"]).spawn();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = drainer.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    if status.is_none() {
        let _ = drainer.kill();
        let _ = drainer.wait();
    }
    let shown = show(env, dir, task);
    let helper = procs::read_pid(&env.path().join(format!("runs/silent-{task}.pid")));
    if procs::live(helper) {
        let _ = std::process::Command::new("kill")
            .args(["-9", &helper.to_string()])
            .status();
    }
    assert!(status.is_some(), "never abandoned in 60s: {shown:#}");
    assert_eq!(shown["state"], "parked", "{shown:#}");
    let run = &runs(&shown)[0];
    assert_eq!(run["outcome"], "timed_out", "{shown:#}");
    assert!(
        run["error"].as_str().unwrap().starts_with("abandoned: "),
        "{shown:#}"
    );
}

#[test]
fn an_agent_that_dates_a_file_in_the_future_is_still_abandoned_when_silent() {
    let env = Env::new();
    // A file with a time to come (a clock skew, an archive from a machine ahead, or
    // `touch -d`): no sign of activity now, nor at any moment until that time.
    let profile = agent(
        &env,
        "skewed",
        &format!("echo x > ahead.txt\ntouch -d @4102444800 ahead.txt\n{WAIT}"),
        "",
    );
    let dir = project(&env, &format!("abandon_after = \"3s\"\n{profile}"));
    assert_abandoned(&env, &dir, "skewed");
}

#[test]
fn an_agent_whose_packed_branch_tip_is_dated_in_the_future_is_still_abandoned_when_silent() {
    let env = Env::new();
    // Its commit carries a date to come and its branch ref is packed: no loose ref file
    // says when it moved, and the commit's date says nothing true.
    let profile = agent(
        &env,
        "packed",
        &format!(
            "echo x > c.txt; git add -A\nGIT_COMMITTER_DATE=2099-01-01T00:00:00 git commit -qm ahead\ngit pack-refs --all\n{WAIT}"
        ),
        "",
    );
    let dir = project(&env, &format!("abandon_after = \"3s\"\n{profile}"));
    assert_abandoned(&env, &dir, "packed");
}

/// A task drained and its lane landed in `dir`: its branch and worktree.
fn drained_and_landed(env: &Env, dir: &Path) -> (String, PathBuf) {
    add(env, dir, "feat", &[]);
    let first = drain_once(env, dir, &[]);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    let worktree = PathBuf::from(first["runs"][0]["worktree"].as_str().unwrap());
    env.fleet(dir, &["land", "--all", "--yes"]).ok();
    assert_eq!(lane_state(env, dir, &branch).as_deref(), Some("landed"));
    (branch, worktree)
}

/// The state of lane `branch` in `dir`'s own queue, if it is a lane.
fn lane_state(env: &Env, dir: &Path, branch: &str) -> Option<String> {
    crate::common::assert::lane_states(env, dir)
        .into_iter()
        .find(|(b, _)| b == branch)
        .map(|(_, s)| s)
}

#[test]
fn drain_cleanup_keeps_a_landed_worktree_a_person_s_shell_works_in_and_says_so() {
    let env = Env::new();
    let dir = project(&env, "cleanup = true\n");
    let (branch, worktree) = drained_and_landed(&env, &dir);
    // A person looks at what landed, from a shell (an editor) inside the worktree.
    let mut shell = std::process::Command::new("sleep")
        .arg("300")
        .current_dir(worktree.join("."))
        .spawn()
        .unwrap();
    let run = env.fleet(&dir, &["drain", "--once", "--json"]).ok();
    let _ = shell.kill();
    let _ = shell.wait();
    assert!(worktree.join("README").exists(), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("pid {}", shell.id())),
        "{}",
        run.stderr
    );
    assert_eq!(lane_state(&env, &dir, &branch).as_deref(), Some("landed"));
    assert!(env.branches(&dir).contains(&format!("refs/heads/{branch}")));
    // Once the shell is gone, the next pass removes it.
    drain_once(&env, &dir, &[]);
    assert!(!worktree.exists());
    assert_eq!(lane_state(&env, &dir, &branch), None);
}

#[test]
fn drain_cleanup_killed_after_deleting_the_branch_untracks_the_lane_at_the_next_pass() {
    let env = Env::new();
    let dir = project(&env, "cleanup = true\n");
    let (branch, worktree) = drained_and_landed(&env, &dir);
    // What a drainer killed inside `worktree rm`, after its branch went and before
    // its lane was untracked, leaves: no worktree, no branch, the lane still landed.
    env.git(&dir, &["worktree", "remove", worktree.to_str().unwrap()]);
    env.git(&dir, &["branch", "-D", &branch]);
    let run = env.fleet(&dir, &["drain", "--once", "--json"]).ok();
    assert_eq!(lane_state(&env, &dir, &branch), None, "{}", run.stderr);
    assert_eq!(show(&env, &dir, "feat")["state"], "succeeded");
    let report = json(env.fleet(&dir, &["report", "--json"]));
    assert_eq!(report["tasks"][0]["fate"], "landed", "{report:#}");
}

/// A follow-up's agent: rebases its lane onto `main`, resolving c.txt as `both`; any
/// other task writes c.txt and commits.
const LANDER: &str = "if grep -q 'conflicts with' \"$FLEET_PLAN\"; then\n  git rebase -q main >/dev/null 2>&1 || { printf 'both\\n' > c.txt; git add c.txt; GIT_EDITOR=true git rebase --continue >/dev/null; }\nelse\n  echo lane > c.txt; git add -A; git commit -qm work\nfi\n";

#[test]
fn a_follow_up_whose_drainer_died_after_its_agent_rebased_the_lane_makes_the_lane_ready_at_its_retry()
 {
    let env = Env::new();
    let lander = agent(&env, "lander", LANDER, "");
    let dir = project(&env, &format!("on_conflict = \"task\"\n{lander}"));
    add(&env, &dir, "feat", &["--agent", "lander"]);
    let first = drain_once(&env, &dir, &[]);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    env.commit_file(&dir, "c.txt", "main\n", "main's c.txt");
    env.fleet(&dir, &["land", "--all", "--yes"]).code(1);
    assert_eq!(
        lane_state(&env, &dir, &branch).as_deref(),
        Some("conflicted")
    );
    // The follow-up's agent rebases the lane; its drainer dies (as `kill -9` would)
    // before the lane is made ready.
    let killed = env
        .fleet_cmd(&dir, &["drain", "--once", "--json"])
        .env("FLEET_FAILPOINT", "drain-before-ready:abort")
        .run();
    assert_ne!(
        killed.code, 0,
        "the failpoint never fired: {}",
        killed.stderr
    );
    let rebased = env.git(&dir, &["rev-parse", &branch]);
    env.git(&dir, &["merge-base", "--is-ancestor", "main", &branch]);

    // The next drainer takes the run back and retries it in the same worktree: the
    // work is done already (the branch is off the conflicted tip), so the lane is
    // made ready, not failed for "no changes" until the follow-up parks.
    let again = drain_once(&env, &dir, &[]);
    let follow = again["runs"][0]["task"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(follow.starts_with("feat-conflict-"), "{again:#}");
    assert_eq!(again["runs"][0]["outcome"], "succeeded", "{again:#}");
    assert_eq!(lane_state(&env, &dir, &branch).as_deref(), Some("ready"));
    assert_eq!(env.git(&dir, &["rev-parse", &branch]), rebased);
    env.fleet(&dir, &["land", "--all", "--yes"]).ok();
    assert_eq!(env.git(&dir, &["show", "main:c.txt"]), "both");
    assert_eq!(show(&env, &dir, &follow)["state"], "succeeded");
}

#[test]
fn a_run_whose_end_a_running_drainer_could_not_record_is_taken_back_by_it_not_left_running() {
    let env = Env::new();
    let remote = env.path().join("remote.git");
    let away = env.path().join("remote-away.git");
    // Its first run takes the remote away (an outage just as the run ends) and fails,
    // so its end is to be recorded through the remote (a run whose check passed would
    // wait for the remote instead: attack_drain3); the next commits only.
    let body = format!(
        "sleep 2\necho x > x.txt; git add -A; git commit -qm work\nif [ ! -e \"$RUNS/broke\" ]; then mv {remote:?} {away:?}; touch \"$RUNS/broke\"; exit 1; fi\n"
    );
    let flaky = agent(&env, "flaky", &body, "");
    let seed = project(&env, &flaky);
    let (_, clones) = crate::common::drain::through_a_bare_remote(&env, &seed, &["a"]);
    let a = clones[0].clone();
    add(&env, &a, "t", &["--remote", "origin", "--agent", "flaky"]);
    let mut drainer = LiveDrainer::start(&env, &a, &["drain", "--remote", "origin"], &[]);
    drainer.wait_for_line("was not recorded");
    std::fs::rename(&away, &remote).unwrap();

    // The drainer that lost track of its run (alive, so no other drainer here takes
    // it back) takes it back itself, and the task goes on to its next attempt.
    wait_for("the task to succeed", || {
        show_remote(&env, &a, "t")["state"] == "succeeded"
    });
    drop(drainer);
    let task = show_remote(&env, &a, "t");
    let all = runs(&task);
    assert_eq!(all.len(), 2, "{task:#}");
    assert_eq!(all[0]["outcome"], "crashed", "{task:#}");
    assert!(
        all[0]["error"].as_str().unwrap().contains("not recorded"),
        "{task:#}"
    );
    assert_eq!(all[1]["outcome"], "succeeded", "{task:#}");
}

/// `fleet task show NAME --json --remote origin` in `dir`: the task.
fn show_remote(env: &Env, dir: &Path, name: &str) -> serde_json::Value {
    let doc = json(env.fleet(dir, &["task", "show", name, "--json", "--remote", "origin"]));
    doc.get("task").cloned().unwrap_or(doc)
}

#[test]
fn an_agent_editing_a_worktree_too_big_to_walk_is_not_abandoned_on_the_walk_s_say() {
    let env = Env::new();
    // 212,500 files an install left (ignored), more than the walk looks at; then the
    // agent edits one file of its own, printing nothing, for twice abandon_after.
    let body = "mkdir node_modules\nfor i in $(seq 0 849); do mkdir node_modules/p$i; (cd node_modules/p$i && seq 0 249 | xargs touch); done\necho node_modules/ > .gitignore\nmkdir src\ni=0; while [ $i -lt 16 ]; do echo $i > src/a.txt; sleep 0.5; i=$((i+1)); done\ngit add -A; git commit -qm work\n";
    let big = agent(&env, "big", body, "");
    let dir = project(&env, &format!("abandon_after = \"4s\"\n{big}"));
    add(
        &env,
        &dir,
        "big",
        &["--agent", "big", "--max-attempts", "1"],
    );
    let report = drain_once(&env, &dir, &[]);
    let task = show(&env, &dir, "big");
    assert_eq!(task["state"], "succeeded", "{task:#}\n{report:#}");
    assert_eq!(runs(&task).len(), 1, "{task:#}");
}

#[test]
fn a_conflicted_lane_of_a_task_with_a_long_name_still_gets_its_follow_up() {
    let env = Env::new();
    let lander = agent(&env, "lander", LANDER, "");
    let dir = project(&env, &format!("on_conflict = \"task\"\n{lander}"));
    // 95 bytes: a valid task name (at most 100), too long for `<name>-conflict-<tip>`.
    let name = format!("long-{}", "x".repeat(90));
    add(&env, &dir, &name, &["--agent", "lander"]);
    let first = drain_once(&env, &dir, &[]);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    env.commit_file(&dir, "c.txt", "main\n", "main's c.txt");
    env.fleet(&dir, &["land", "--all", "--yes"]).code(1);
    assert_eq!(
        lane_state(&env, &dir, &branch).as_deref(),
        Some("conflicted")
    );

    let second = drain_once(&env, &dir, &[]);
    let follow = second["runs"][0]["task"].as_str().unwrap_or_default();
    assert!(follow.contains("-conflict-"), "{second:#}");
    assert_eq!(second["runs"][0]["outcome"], "succeeded", "{second:#}");
    assert_eq!(lane_state(&env, &dir, &branch).as_deref(), Some("ready"));
    env.fleet(&dir, &["land", "--all", "--yes"]).ok();
    assert_eq!(env.git(&dir, &["show", "main:c.txt"]), "both");
}

/// As [`LANDER`], rebasing onto the remote's main (`origin/main`) when there is one.
const LANDER_REMOTE: &str = "if grep -q 'conflicts with' \"$FLEET_PLAN\"; then\n  onto=main; git rev-parse -q --verify origin/main >/dev/null && onto=origin/main\n  git rebase -q \"$onto\" >/dev/null 2>&1 || { printf 'both\\n' > c.txt; git add c.txt; GIT_EDITOR=true git rebase --continue >/dev/null; }\nelse\n  echo lane > c.txt; git add -A; git commit -qm work\nfi\n";

#[test]
fn a_follow_up_through_a_remote_whose_drainer_died_after_its_leased_push_lands_at_its_retry() {
    let env = Env::new();
    let lander = agent(&env, "lander", LANDER_REMOTE, "");
    let seed = project(&env, &format!("on_conflict = \"task\"\n{lander}"));
    let (remote, clones) = crate::common::drain::through_a_bare_remote(&env, &seed, &["a", "b"]);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    let on_remote = ["--remote", "origin"];
    add(
        &env,
        &a,
        "feat",
        &["--agent", "lander", "--remote", "origin"],
    );
    let first = drain_once(&env, &a, &on_remote);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    env.commit_file(&b, "c.txt", "main\n", "main's c.txt");
    env.git(&b, &["push", "-q", "origin", "main"]);
    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .code(1);
    let old_tip = env.git(&remote, &["rev-parse", &branch]);

    // The follow-up's rebase is pushed over the tip it continued; its drainer dies
    // (as `kill -9` would) right after that push.
    let killed = env
        .fleet_cmd(&a, &["drain", "--once", "--json", "--remote", "origin"])
        .env("FLEET_FAILPOINT", "publish-after-push:abort")
        .run();
    assert_ne!(
        killed.code, 0,
        "the failpoint never fired: {}",
        killed.stderr
    );
    let pushed = env.git(&remote, &["rev-parse", &branch]);
    assert_ne!(pushed, old_tip);
    env.git(&remote, &["merge-base", "--is-ancestor", "main", &branch]);

    // The next drainer retries it: the remote already holds the rebase, nothing is
    // pushed over anything else, and the lane is ready and lands.
    let again = drain_once(&env, &a, &on_remote);
    assert_eq!(again["runs"][0]["outcome"], "succeeded", "{again:#}");
    assert_eq!(env.git(&remote, &["rev-parse", &branch]), pushed);
    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(env.git(&remote, &["show", "main:c.txt"]), "both");
    env.git(&remote, &["merge-base", "--is-ancestor", &pushed, "main"]);
}

#[test]
fn a_task_ref_no_fleet_can_read_stops_neither_the_queue_nor_status_and_doctor_names_it() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "good", &[]);
    // A task ref whose task.toml this fleet cannot read: garbage pushed to it, or a
    // newer fleet's state.
    let blob = env
        .git_cmd(&dir, &["hash-object", "-w", "--stdin"])
        .stdin("name = \"bad\"\nstate = \"exploded\"\n")
        .stdout();
    let tree = env
        .git_cmd(&dir, &["mktree"])
        .stdin(&format!("100644 blob {blob}\ttask.toml\n"))
        .stdout();
    let commit = env.git(&dir, &["commit-tree", &tree, "-m", "bad"]);
    env.git(&dir, &["update-ref", "refs/fleet/tasks/bad", &commit]);

    let report = drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["task"], "good", "{report:#}");
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    assert_eq!(show(&env, &dir, "good")["state"], "succeeded");
    let listed = json(env.fleet(&dir, &["task", "list", "--json"]));
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed:#}");
    env.fleet(&dir, &["status"]).ok();
    let (code, check) = crate::task_health::doctor_check(&env, &dir, "unreadable-tasks");
    assert_eq!(code, 1, "{check:#}");
    assert_eq!(check["verdict"], "fail", "{check:#}");
    let problems = check["detail"].to_string();
    assert!(
        problems.contains("refs/fleet/tasks/bad") && problems.contains("exploded"),
        "{check:#}"
    );
    // The ref is as it was: doctor only reports.
    assert_eq!(
        env.git(&dir, &["rev-parse", "refs/fleet/tasks/bad"]),
        commit
    );
}

/// An agent's `git commit` may start git's automatic maintenance (`gc --auto`), which
/// git detaches into the background by default. Stopped half way by the drainer's stop
/// of what a run leaves behind, it could leave a lock in the repository every worktree
/// shares. Agents' git runs it to its end inside the commit instead, in the run's group.
#[test]
fn git_s_automatic_maintenance_in_an_agent_s_commit_runs_to_its_end_inside_the_run() {
    let env = Env::new();
    let body = "git config --get maintenance.autoDetach > \"$RUNS/maintenance-detach\"\n\
                git config --get gc.autoDetach > \"$RUNS/gc-detach\"\n\
                echo x > gc.txt\ngit add gc.txt\ngit commit -qm 'agent: one file'\n";
    let profile = agent(&env, "gc", body, "");
    let dir = project(&env, &profile);
    // Three packs and a limit of one: the agent's commit makes git consolidate them.
    for i in 0..3 {
        let made = std::process::Command::new("sh")
            .args([
                "-c",
                &format!(
                    "printf 'pack {i}' | git hash-object -w --stdin | git pack-objects -q .git/objects/pack/pack"
                ),
            ])
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(made.success());
    }
    env.git(&dir, &["config", "gc.autoPackLimit", "1"]);
    let packs = || {
        std::fs::read_dir(dir.join(".git/objects/pack"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "pack")
            })
            .count()
    };
    let before = packs();
    assert!(before >= 3);
    add(&env, &dir, "gc", &["--agent", "gc", "--max-attempts", "1"]);
    let out = env.fleet(&dir, &["drain", "--once", "--json"]);
    assert!(
        !out.stderr.contains("outside its process group"),
        "the drainer stopped a process the agent's git left: {}",
        out.stderr
    );
    assert_eq!(show(&env, &dir, "gc")["state"], "succeeded");
    assert!(
        packs() < before,
        "gc did not run to its end: {} packs of {before}",
        packs()
    );
    for file in ["maintenance-detach", "gc-detach"] {
        let seen = std::fs::read_to_string(env.path().join("runs").join(file)).unwrap();
        assert_eq!(seen.trim(), "false", "{file}");
    }
    assert!(!dir.join(".git/gc.pid").exists());
    let locks: Vec<_> = walkdir(&dir.join(".git"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "lock"))
        // fleet's own locks are files it keeps and locks with flock(2).
        .filter(|p| !p.starts_with(dir.join(".git/fleet")))
        .collect();
    assert!(locks.is_empty(), "{locks:?}");
}

/// Every file under `dir`.
fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Recording a run as running can fail for a moment (a fetch of the remote that failed
/// just then): that is tried again, not taken for a lost task whose agent is stopped
/// and whose attempt is used.
#[test]
fn a_blip_while_recording_a_run_as_running_neither_stops_its_agent_nor_uses_an_attempt() {
    let env = Env::new();
    let dir = project(&env, "");
    add(&env, &dir, "blip", &["--max-attempts", "1"]);
    let out = env
        .fleet_cmd(&dir, &["drain", "--once", "--json"])
        .env("FLEET_FAILPOINT", "drain-before-running:once")
        .run();
    assert!(!out.stderr.contains("lost the task"), "{}", out.stderr);
    let shown = show(&env, &dir, "blip");
    assert_eq!(shown["state"], "succeeded", "{shown:#}");
    assert_eq!(runs(&shown).len(), 1, "{shown:#}");
}
