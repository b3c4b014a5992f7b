//! A third adversarial review of `fleet drain`, through a remote: a run whose agent
//! and check did their work but whose lane could not be published or made ready (the
//! remote out of reach, a hook there saying no) is kept and finished, not failed and
//! run again; and drainers of two clones racing on one remote whose hook refuses pushes
//! at random. Each test is named after the promise it holds fleet to and checks the
//! state afterwards.

use std::path::Path;

use crate::common::assert::remote_lane_states;
use crate::common::drain::{
    LiveDrainer, add, json, project, runs, through_a_bare_remote, wait_for,
};
use crate::common::{Env, write};

/// A fake agent of these tests, as `[agents.NAME]` (`RUNS` is the fixtures' scratch
/// folder).
fn agent(env: &Env, name: &str, body: &str) -> String {
    let script = env.path().join("agents").join(format!("{name}.sh"));
    write(&script, &format!("#!/bin/sh\n{body}"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "[agents.{name}]\ncommand = [{:?}]\ntimeout = \"120s\"\nenv = {{ RUNS = {:?} }}\n",
        script.display().to_string(),
        env.path().join("runs").display().to_string(),
    )
}

/// `fleet task show NAME --json --remote origin` in `dir`: the task.
fn show_remote(env: &Env, dir: &Path, name: &str) -> serde_json::Value {
    let doc = json(env.fleet(dir, &["task", "show", name, "--json", "--remote", "origin"]));
    doc.get("task").cloned().unwrap_or(doc)
}

/// The runs the agents of these tests logged in `$RUNS/ran`, one run id a line.
fn ran(env: &Env) -> Vec<String> {
    std::fs::read_to_string(env.path().join("runs/ran"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// After a task through the remote ended: it succeeded in one run whose agent ran once,
/// and its lane is on the remote, at the agent's commit, ready (as clone `other` sees it).
fn assert_published_once(env: &Env, remote: &Path, mine: &Path, other: &Path, task: &str) {
    let shown = show_remote(env, mine, task);
    assert_eq!(shown["state"], "succeeded", "{shown:#}");
    let all = runs(&shown);
    assert_eq!(all.len(), 1, "{shown:#}");
    assert_eq!(all[0]["outcome"], "succeeded", "{shown:#}");
    assert_eq!(all[0]["attempt"], 1, "{shown:#}");
    assert_eq!(ran(env), vec![all[0]["id"].as_str().unwrap().to_string()]);
    let branch = all[0]["branch"].as_str().unwrap();
    let here = env.git(mine, &["rev-parse", branch]);
    assert_eq!(env.git(remote, &["rev-parse", branch]), here);
    assert_eq!(
        env.git(remote, &["log", "-1", "--format=%s", branch]),
        "work"
    );
    assert!(
        remote_lane_states(env, other, "origin")
            .contains(&(branch.to_string(), "ready".to_string())),
        "{:?}",
        remote_lane_states(env, other, "origin")
    );
}

/// Wait until the run the remote records for `task` is running (its start pushed).
fn until_running(remote: &Path) -> String {
    format!(
        "i=0; until git --git-dir={remote:?} log --format=%s \"refs/fleet/tasks/$FLEET_TASK\" 2>/dev/null | grep -q running; do sleep 0.1; i=$((i+1)); [ $i -gt 900 ] && break; done\n"
    )
}

#[test]
fn a_run_whose_publish_found_the_remote_gone_is_published_once_it_is_back_without_running_its_agent_again()
 {
    let env = Env::new();
    let remote = env.path().join("remote.git");
    let away = env.path().join("remote-away.git");
    // The agent commits, then takes the remote away (an outage just as the run ends,
    // before its check and its publish); a second run would only commit.
    let body = format!(
        "echo \"$FLEET_RUN\" >> \"$RUNS/ran\"\necho x > x.txt; git add -A; git commit -qm work\n{}if [ ! -e \"$RUNS/broke\" ]; then mv {remote:?} {away:?}; touch \"$RUNS/broke\"; fi\n",
        until_running(&remote)
    );
    let seed = project(&env, &agent(&env, "outage", &body));
    let (_, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add(&env, &a, "t", &["--remote", "origin", "--agent", "outage"]);
    let mut drainer = LiveDrainer::start(&env, &a, &["drain", "--remote", "origin"], &[]);
    drainer.wait_for_line("could not be made ready yet");
    std::fs::rename(&away, &remote).unwrap();

    wait_for("the task to succeed", || {
        show_remote(&env, &a, "t")["state"] == "succeeded"
    });
    let said = drainer.said();
    drop(drainer);
    assert!(said.contains("the agent does not run again"), "{said}");
    assert_published_once(&env, &remote, &a, &b, "t");
}

/// A `pre-receive` hook for the remote that refuses every branch but `main` while
/// `deny` exists (the task refs and the registry go in).
fn deny_lanes_hook(remote: &Path, deny: &Path) {
    let hook = remote.join("hooks/pre-receive");
    write(
        &hook,
        &format!(
            "#!/bin/sh\nwhile read old new ref; do\n  case \"$ref\" in refs/heads/main) ;; refs/heads/*) [ -e {deny:?} ] && {{ echo \"lanes closed: $ref\" >&2; exit 1; }} ;; esac\ndone\nexit 0\n"
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_drainer_killed_while_its_checked_run_waits_for_its_publish_leaves_it_to_the_next_which_publishes_it_once()
 {
    let env = Env::new();
    let deny = env.path().join("deny");
    // The agent commits and closes the remote's branches to pushes (a hook there says
    // no) as its run ends.
    let body = format!(
        "echo \"$FLEET_RUN\" >> \"$RUNS/ran\"\necho x > x.txt; git add -A; git commit -qm work\n[ -e \"$RUNS/denied\" ] || {{ touch {deny:?} \"$RUNS/denied\"; }}\n"
    );
    let seed = project(&env, &agent(&env, "denied", &body));
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    deny_lanes_hook(&remote, &deny);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add(&env, &a, "t", &["--remote", "origin", "--agent", "denied"]);
    let mut drainer = LiveDrainer::start(&env, &a, &["drain", "--remote", "origin"], &[]);
    drainer.wait_for_line("could not be made ready yet");
    // What it kept is on the task, for whichever drainer finishes it.
    wait_for("the checked run to be recorded", || {
        let shown = show_remote(&env, &a, "t");
        shown["state"] == "running" && !runs(&shown)[0]["unpublished"].is_null()
    });
    drainer.kill9();
    std::fs::remove_file(&deny).unwrap();

    let next = json(env.fleet(&a, &["drain", "--once", "--json", "--remote", "origin"]));
    assert_eq!(next["taken_back"][0]["state"], "succeeded", "{next:#}");
    assert!(
        next["runs"].as_array().unwrap().is_empty(),
        "it ran an agent: {next:#}"
    );
    assert_published_once(&env, &remote, &a, &b, "t");
}

/// For the races: logs `run TASK RUN` in `$RUNS/log`, and `overlap TASK RUN` when
/// another agent of its task holds the task's lock (a run twice at once); then commits.
const LOGGED: &str = "exec 9>>\"$RUNS/lock-$FLEET_TASK\"\nflock -n 9 || echo \"overlap $FLEET_TASK $FLEET_RUN\" >> \"$RUNS/log\"\necho \"run $FLEET_TASK $FLEET_RUN\" >> \"$RUNS/log\"\nsleep 0.3\nprintf '%s\\n' \"$FLEET_TASK\" > \"done-$FLEET_TASK.txt\"\ngit add -A\ngit commit -qm work\n";

/// A `pre-receive` hook for the remote that refuses every third push it is asked to
/// take and holds every fifth for a second first (a counter under a lock, in `runs/`).
fn flaky_hook(env: &Env, remote: &Path) {
    let runs = env.path().join("runs");
    let hook = remote.join("hooks/pre-receive");
    write(
        &hook,
        &format!(
            "#!/bin/sh\ncat >/dev/null\nexec 8>>{lock:?}\nflock 8\nn=$(cat {count:?} 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > {count:?}\nflock -u 8\n[ $((n % 5)) -eq 0 ] && sleep 1\nif [ $((n % 3)) -eq 0 ]; then echo \"refused push $n at random\" >&2; exit 1; fi\nexit 0\n",
            lock = runs.join("hook.lock"),
            count = runs.join("hook.count"),
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Every task of the remote's queue, as clone `dir` reads it.
fn remote_tasks(env: &Env, dir: &Path) -> Vec<serde_json::Value> {
    json(env.fleet(dir, &["task", "list", "--json", "--remote", "origin"]))
        .as_array()
        .unwrap()
        .clone()
}

/// Each attempt ran once and none at once with another of its task: no agent found its
/// task's lock held, no run id is twice in the log, and every logged run is a run of
/// its task in the queue, each claimed after the one before it ended.
fn assert_each_attempt_once(env: &Env, all: &[serde_json::Value]) {
    let text = std::fs::read_to_string(env.path().join("runs/log")).unwrap_or_default();
    assert!(
        !text.contains("overlap"),
        "runs of one task at once:\n{text}"
    );
    let mut logged = std::collections::HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 3, "a torn line: {line:?}");
        assert!(
            logged.insert(f[2].to_string(), f[1].to_string()).is_none(),
            "run {} ran twice:\n{text}",
            f[2]
        );
    }
    let mut queued = std::collections::HashMap::new();
    for task in all {
        let name = task["name"].as_str().unwrap();
        let runs = runs(task);
        for (i, run) in runs.iter().enumerate() {
            let id = run["id"].as_str().unwrap().to_string();
            assert!(queued.insert(id.clone(), name.to_string()).is_none());
            if let Some(next) = runs.get(i + 1) {
                let ended = run["ended"]
                    .as_i64()
                    .unwrap_or_else(|| panic!("{name}: run {id} never ended: {task:#}"));
                assert!(next["claimed"].as_i64().unwrap() >= ended, "{task:#}");
            }
        }
    }
    for (run, task) in &logged {
        assert_eq!(
            queued.get(run),
            Some(task),
            "run {run} of {task} is not in the queue"
        );
    }
}

/// No process whose working folder is under this test's folder is left (agents,
/// checks, guardians, drainers), once their stops have had time.
fn assert_nothing_runs_in(env: &Env) {
    let base = env.path();
    let inside = || -> Vec<(i32, std::path::PathBuf)> {
        crate::common::procs::all_pids()
            .into_iter()
            .filter(|&pid| crate::common::procs::live(pid))
            .filter_map(|pid| {
                let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
                cwd.starts_with(&base).then_some((pid, cwd))
            })
            .collect()
    };
    wait_for("no process left in the test's folder", || {
        inside().is_empty()
    });
}

/// What `fleet doctor --json` in `dir` says of the task queue: the checks on tasks
/// that did not pass.
fn doctor_on_tasks(env: &Env, dir: &Path) -> Vec<serde_json::Value> {
    let doctor = env.fleet(dir, &["doctor", "--json"]);
    let checks: serde_json::Value = serde_json::from_str(&doctor.stdout).unwrap();
    checks
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            ["stale-claims", "dead-holders", "orphan", "task"]
                .iter()
                .any(|n| c["name"].as_str().unwrap_or("").contains(n))
                && c["verdict"] != "ok"
        })
        .cloned()
        .collect()
}

/// After the drainers stopped: each clone's view of the remote (its tracking refs,
/// fleet's and the branches') is what the remote holds, once fetched.
fn assert_views_match(env: &Env, remote: &Path, clones: &[std::path::PathBuf]) {
    let theirs = |prefix: &str| {
        env.git(
            remote,
            &["for-each-ref", "--format=%(objectname) %(refname)", prefix],
        )
    };
    for clone in clones {
        remote_tasks(env, clone);
        let ours = |prefix: &str, strip: &str, to: &str| {
            env.git(
                clone,
                &["for-each-ref", "--format=%(objectname) %(refname)", prefix],
            )
            .lines()
            .map(|l| l.replacen(strip, to, 1))
            .collect::<Vec<_>>()
            .join("\n")
        };
        assert_eq!(
            ours(
                "refs/fleet/remotes/origin/tasks/",
                "refs/fleet/remotes/origin/",
                "refs/fleet/"
            ),
            theirs("refs/fleet/tasks/")
        );
        assert_eq!(
            ours(
                "refs/fleet/remotes/origin/lanes",
                "refs/fleet/remotes/origin/",
                "refs/fleet/"
            ),
            theirs("refs/fleet/lanes")
        );
    }
}

#[test]
fn two_clones_with_two_drainers_each_on_a_remote_whose_hook_refuses_pushes_at_random_run_each_attempt_once()
 {
    let env = Env::new();
    let seed = project(&env, &agent(&env, "logged", LOGGED));
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    let names: Vec<String> = (1..=20).map(|i| format!("h{i:02}")).collect();
    for name in &names {
        add(
            &env,
            &clones[0],
            name,
            &["--agent", "logged", "--remote", "origin"],
        );
    }
    flaky_hook(&env, &remote);
    let drainers: Vec<LiveDrainer> = clones
        .iter()
        .flat_map(|c| [c, c])
        .map(|c| LiveDrainer::start(&env, c, &["drain", "--remote", "origin", "--max", "2"], &[]))
        .collect();
    let reader = env.path().join("reader");
    env.git(
        &env.path(),
        &["clone", "-q", remote.to_str().unwrap(), "reader"],
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(400);
    loop {
        let all = remote_tasks(&env, &reader);
        if all
            .iter()
            .all(|t| matches!(t["state"].as_str(), Some("succeeded" | "parked")))
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the queue never settled: {:#}",
            serde_json::Value::Array(all)
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let mut drainers = drainers;
    let said: Vec<String> = drainers.iter_mut().map(LiveDrainer::said).collect();
    drop(drainers);
    let all = remote_tasks(&env, &reader);
    assert_eq!(all.len(), 20);
    assert_each_attempt_once(&env, &all);
    let succeeded = all.iter().filter(|t| t["state"] == "succeeded").count();
    let lanes = remote_lane_states(&env, &reader, "origin");
    for task in all.iter().filter(|t| t["state"] == "succeeded") {
        let last = runs(task).last().cloned().unwrap();
        let branch = last["branch"].as_str().unwrap().to_string();
        assert!(
            lanes.contains(&(branch.clone(), "ready".into())),
            "{task:#}\n{lanes:?}"
        );
        let files = env.git(
            &remote,
            &[
                "ls-tree",
                "-r",
                "--name-only",
                &format!("refs/heads/{branch}"),
            ],
        );
        assert!(files.contains(&format!("done-{}.txt", task["name"].as_str().unwrap())));
    }
    assert_views_match(&env, &remote, &clones);
    assert_nothing_runs_in(&env);
    for clone in &clones {
        assert_eq!(
            doctor_on_tasks(&env, clone),
            Vec::<serde_json::Value>::new()
        );
    }
    let parked: Vec<_> = all.iter().filter(|t| t["state"] == "parked").collect();
    eprintln!(
        "{succeeded} succeeded, {} parked; the drainers said:\n{}",
        parked.len(),
        said.join("\n---\n")
    );
    assert!(
        parked.is_empty(),
        "parked by pushes refused at random: {:#?}",
        parked
    );
}

/// 2 clones × 2 drainers on the flaky remote of [`flaky_hook`], 8 tasks, one drainer of
/// clone `a` killed (as `kill -9` would) the first time it reaches `point`: afterwards
/// every task succeeded, each attempt ran once and none at once, each clone's view is
/// the remote's, nothing is left running and doctor is clean.
fn killed_on_a_flaky_remote(point: &str) {
    let env = Env::new();
    let seed = project(&env, &agent(&env, "logged", LOGGED));
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    for i in 1..=8 {
        let name = format!("k{i:02}");
        add(
            &env,
            &clones[0],
            &name,
            &["--agent", "logged", "--remote", "origin"],
        );
    }
    flaky_hook(&env, &remote);
    let args = ["drain", "--remote", "origin", "--max", "2"];
    let abort = format!("{point}:abort");
    let mut killed = LiveDrainer::start(&env, &clones[0], &args, &[("FLEET_FAILPOINT", &abort)]);
    let others: Vec<LiveDrainer> = [&clones[0], &clones[1], &clones[1]]
        .into_iter()
        .map(|c| LiveDrainer::start(&env, c, &args, &[]))
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(400);
    let reader = env.path().join("reader");
    env.git(
        &env.path(),
        &["clone", "-q", remote.to_str().unwrap(), "reader"],
    );
    loop {
        let all = remote_tasks(&env, &reader);
        if all.iter().all(|t| t["state"] == "succeeded") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{point}: the queue never settled: {:#}",
            serde_json::Value::Array(all)
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let aborted = killed.child.try_wait().unwrap();
    let said = killed.said();
    assert!(
        aborted.is_some_and(|s| !s.success()),
        "{point}: the failpoint never fired: {said}"
    );
    drop(others);
    let all = remote_tasks(&env, &reader);
    assert_each_attempt_once(&env, &all);
    assert!(
        all.iter().flat_map(runs).any(|r| r["outcome"] == "crashed"),
        "{point}: no run was taken back: {:#}",
        serde_json::Value::Array(all.clone())
    );
    let lanes = remote_lane_states(&env, &reader, "origin");
    for task in &all {
        let branch = runs(task).last().unwrap()["branch"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            lanes.contains(&(branch, "ready".into())),
            "{point}: {task:#}\n{lanes:?}"
        );
    }
    assert_views_match(&env, &remote, &clones);
    assert_nothing_runs_in(&env);
    for clone in &clones {
        assert_eq!(
            doctor_on_tasks(&env, clone),
            Vec::<serde_json::Value>::new(),
            "{point}"
        );
    }
}

#[test]
fn a_drainer_killed_on_a_flaky_remote_with_its_agent_started_loses_nothing_and_runs_nothing_twice()
{
    killed_on_a_flaky_remote("drain-before-running");
}

#[test]
fn a_drainer_killed_on_a_flaky_remote_after_the_check_passed_loses_nothing_and_runs_nothing_twice()
{
    killed_on_a_flaky_remote("drain-before-ready");
}

#[test]
fn a_drainer_killed_on_a_flaky_remote_after_it_pushed_the_lane_loses_nothing_and_runs_nothing_twice()
 {
    killed_on_a_flaky_remote("publish-after-push");
}

/// Push to `remote`, under `refs/fleet/tasks/{under}`, a copy of task `of` as clone `dir`
/// fetched it, its `name` line made `name`: a task ref written by hand. Its commit id.
fn forge(env: &Env, dir: &Path, remote: &Path, of: &str, under: &str, name: &str) -> String {
    let toml = env.git(
        dir,
        &[
            "show",
            &format!("refs/fleet/remotes/origin/tasks/{of}:task.toml"),
        ],
    );
    let forged: String = toml
        .lines()
        .map(|l| {
            if l.starts_with("name = ") {
                format!("name = {name:?}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let blob = env
        .git_cmd(dir, &["hash-object", "-w", "--stdin"])
        .stdin(&forged)
        .stdout();
    let tree = env
        .git_cmd(dir, &["mktree"])
        .stdin(&format!("100644 blob {}\ttask.toml\n", blob.trim()))
        .stdout();
    let commit = env.git(dir, &["commit-tree", "-m", "forged", tree.trim()]);
    env.git(
        dir,
        &[
            "push",
            "-q",
            remote.to_str().unwrap(),
            &format!("{commit}:refs/fleet/tasks/{under}"),
        ],
    );
    commit
}

#[test]
fn task_refs_forged_on_the_remote_under_another_name_or_a_hostile_one_are_never_run_and_block_no_claim()
 {
    let env = Env::new();
    let seed = project(&env, "");
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a"]);
    let a = clones[0].clone();
    add(&env, &a, "good", &["--remote", "origin"]);
    env.fleet(&a, &["task", "list", "--remote", "origin"]).ok();
    let mark = env.path().join("pwned");
    // Names a drainer would put in a branch, a folder, an argv and an environment.
    let hostile = format!("$(touch {})", mark.display());
    let forged: Vec<(&str, String)> = vec![
        ("evil", hostile.clone()),
        ("dash", "-rf".to_string()),
        ("-x", "-x".to_string()),
        ("a/b", "a/b".to_string()),
        ("uni", "tâche\nrm -rf".to_string()),
        // A copy of the good task's ref under another name.
        ("copy", "good".to_string()),
    ];
    let mut ids = Vec::new();
    for (under, name) in &forged {
        ids.push((*under, forge(&env, &a, &remote, "good", under, name)));
    }
    let before = env.git(&remote, &["for-each-ref", "refs/fleet/tasks/"]);

    let listed = remote_tasks(&env, &a);
    let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["good"], "{listed:#?}");
    let report = json(env.fleet(
        &a,
        &[
            "drain", "--once", "--max", "4", "--json", "--remote", "origin",
        ],
    ));
    let ran: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task"].as_str().unwrap())
        .collect();
    assert_eq!(ran, vec!["good"], "{report:#}");
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    assert!(!mark.exists(), "a forged name was executed");
    // Nothing was written to the forged refs, nor beside them.
    let after = env.git(&remote, &["for-each-ref", "refs/fleet/tasks/"]);
    for (under, id) in &ids {
        let line = format!("{id} commit\trefs/fleet/tasks/{under}");
        assert!(
            before.contains(&line) && after.contains(&line),
            "{under}:\n{after}"
        );
    }
    assert_eq!(after.lines().count(), before.lines().count(), "{after}");
    // Each is named, with what removes it.
    let shown = env.fleet(&a, &["task", "show", "evil", "--remote", "origin"]);
    assert_eq!(shown.code, 3, "{}", shown.stderr);
    assert!(shown.stderr.contains("calls itself"), "{}", shown.stderr);
    assert!(
        shown
            .stderr
            .contains("git push origin :refs/fleet/tasks/evil"),
        "{}",
        shown.stderr
    );
}

#[test]
fn hostile_prompts_through_a_remote_reach_the_agent_as_one_argument_each_and_run_nothing() {
    let env = Env::new();
    let seed = project(&env, "");
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a"]);
    let a = clones[0].clone();
    let mark = env.path().join("pwned");
    let prompt = format!(
        "-rf --help\n$(touch {m}); `touch {m}` | touch {m} && touch {m}\n'\"\\ ünïcødé ✓ refs/heads/main ../..",
        m = mark.display()
    );
    env.fleet(
        &a,
        &[
            "task",
            "add",
            "p",
            &format!("--prompt={prompt}"),
            "--agent",
            "args",
            "--remote",
            "origin",
        ],
    )
    .ok();
    let report = json(env.fleet(&a, &["drain", "--once", "--json", "--remote", "origin"]));
    assert_eq!(report["runs"][0]["outcome"], "succeeded", "{report:#}");
    let branch = report["runs"][0]["branch"].as_str().unwrap();
    let args = env.git(&remote, &["show", &format!("{branch}:args.txt")]);
    assert_eq!(args, format!("2\n[{prompt}]\n[p]"));
    assert!(!mark.exists(), "the prompt was executed");
    let shown = show_remote(&env, &a, "p");
    assert_eq!(shown["prompt"], prompt.as_str());
}
