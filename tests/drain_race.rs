//! Races and crashes of `fleet drain`: four drainers on one repository, two clones with
//! two drainers each through a bare remote, and drainers killed with SIGKILL at each
//! step of a run and after many delays, then a fresh drainer run to the end.
//!
//! The fake agent (`race` in tests/common/drain.rs) appends its run to a shared log
//! and holds a lock per task while it runs, so two agents of one task alive at once
//! say so. Afterwards: every attempt ran at most once (each run id once in the log and
//! once in the queue, no two runs of a task overlapping), every task ended succeeded or
//! parked, nothing was lost (each success's commit is on its lane, and the lane is
//! ready), no half-made worktree and no process is left.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use crate::common::drain::{add, assert_no_agent_left, json, project, through_a_bare_remote};
use crate::common::{Env, procs, write};

/// How long the queue may take to settle: generous, the machine may be loaded.
const SETTLE: Duration = Duration::from_secs(300);

/// A project for the races: quick back-offs, a `claim_grace` of `grace`, `[drain]
/// notify` writing each document to a file of its own under `runs/`, and with
/// `nested` a nested repository (`cockpit/`) each run's worktree must include.
fn race_project(env: &Env, grace: &str, nested: bool) -> PathBuf {
    let notified = env.path().join("runs");
    let dir = project(
        env,
        &format!(
            "notify = [\"sh\", \"-c\", \"cat > {}/notified.$$\"]\n",
            notified.display()
        ),
    );
    let toml = std::fs::read_to_string(dir.join("fleet.toml"))
        .unwrap()
        .replace(
            "claim_grace = \"60s\"",
            &format!("claim_grace = \"{grace}\""),
        );
    if grace != "60s" {
        env.commit_file(&dir, "fleet.toml", &toml, "race settings");
    }
    if nested {
        env.repo(&dir.join("cockpit"), "main", &[("c.txt", "cockpit\n")]);
        env.commit_file(&dir, ".gitignore", "cockpit/\n", "cockpit is nested");
        env.fleet(&dir, &["init"]).ok();
    }
    dir
}

/// Every task, read with `fleet task list --json` (through `remote` when given).
fn tasks(env: &Env, dir: &Path, remote: Option<&str>) -> Vec<serde_json::Value> {
    let mut args = vec!["task", "list", "--json"];
    if let Some(remote) = remote {
        args.extend(["--remote", remote]);
    }
    json(env.fleet(dir, &args)).as_array().unwrap().clone()
}

fn runs(task: &serde_json::Value) -> Vec<serde_json::Value> {
    task["run"].as_array().cloned().unwrap_or_default()
}

fn settled(task: &serde_json::Value) -> bool {
    matches!(task["state"].as_str(), Some("succeeded" | "parked"))
}

/// Wait until every task is succeeded or parked.
fn wait_settled(env: &Env, dir: &Path, remote: Option<&str>, what: &str) {
    let deadline = Instant::now() + SETTLE;
    loop {
        let all = tasks(env, dir, remote);
        if all.iter().all(settled) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the queue never settled: {:#}",
            serde_json::Value::Array(all)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// SIGTERM to each looping drainer; each stops and says so.
fn stop(drainers: Vec<Child>) {
    for d in &drainers {
        let pid = rustix::process::Pid::from_raw(d.id() as i32).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    }
    for d in drainers {
        let out = Env::wait(d).ok();
        let report: serde_json::Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
        assert_eq!(report["stopped"], true, "{report:#}");
    }
}

/// SIGKILL, then what the drainer said on stderr.
fn sigkill(mut child: Child) -> String {
    let _ = child.kill();
    Env::wait(child).stderr
}

/// The fake agents' log: (what, task, run) per line.
fn log(env: &Env) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(env.path().join("runs/log")).unwrap_or_default();
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 3, "a torn line in the agents' log: {l:?}");
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect()
}

/// Every attempt ran at most once, and none at once with another of its task: no agent
/// found its task's lock held, each run id is in the log at most once and under its own
/// task in the queue, run ids are unique in the queue, and each run of a task was
/// claimed only once the one before had ended. With `all_logged`, every run of a `race`
/// task in the queue is in the log (nothing was killed).
fn assert_exactly_once(env: &Env, all: &[serde_json::Value], all_logged: bool, what: &str) {
    let log = log(env);
    let overlaps: Vec<_> = log.iter().filter(|(k, _, _)| k == "overlap").collect();
    assert!(
        overlaps.is_empty(),
        "{what}: agents of one task ran at once: {overlaps:?}"
    );
    let mut logged: HashMap<&str, &str> = HashMap::new();
    for (_, task, run) in &log {
        assert!(
            logged.insert(run, task).is_none(),
            "{what}: run {run} of {task} ran twice"
        );
    }
    let mut queued: HashMap<String, String> = HashMap::new();
    for task in all {
        let name = task["name"].as_str().unwrap();
        let runs = runs(task);
        for (i, run) in runs.iter().enumerate() {
            let id = run["id"].as_str().unwrap().to_string();
            assert!(
                queued.insert(id.clone(), name.to_string()).is_none(),
                "{what}: run id {id} twice in the queue"
            );
            if let Some(next) = runs.get(i + 1) {
                let ended = run["ended"]
                    .as_i64()
                    .unwrap_or_else(|| panic!("{what}: {name}: run {id} never ended: {task:#}"));
                assert!(
                    next["claimed"].as_i64().unwrap() >= ended,
                    "{what}: {name}: run {} was claimed before run {id} ended: {task:#}",
                    next["id"]
                );
            }
            if all_logged && task["agent"] == "race" {
                assert_eq!(
                    logged.get(id.as_str()).copied(),
                    Some(name),
                    "{what}: run {id} of {name} never ran: {task:#}"
                );
            }
        }
    }
    for (run, task) in &logged {
        assert_eq!(
            queued.get(*run).map(String::as_str),
            Some(*task),
            "{what}: run {run} of {task} ran but the queue does not have it"
        );
    }
}

/// Nothing lost: each succeeded task's last run's branch is a ready lane holding the
/// agent's file (`tip` reads a branch's files; `lanes` maps branch to state); failed
/// runs left no ready lane.
fn assert_lanes(
    all: &[serde_json::Value],
    lanes: &BTreeMap<String, String>,
    files_of: impl Fn(&str) -> String,
    what: &str,
) {
    for task in all {
        let name = task["name"].as_str().unwrap();
        let runs = runs(task);
        if task["state"] == "succeeded" {
            let last = runs.last().unwrap();
            let branch = last["branch"].as_str().unwrap();
            assert_eq!(
                lanes.get(branch).map(String::as_str),
                Some("ready"),
                "{what}: {name}'s lane {branch}: {lanes:?}"
            );
            let files = files_of(branch);
            assert!(
                files.lines().any(|f| f == format!("done-{name}.txt")),
                "{what}: {name}'s commit is not on {branch}: {files}"
            );
        }
        for run in &runs {
            if run["outcome"] != "succeeded"
                && let Some(branch) = run["branch"].as_str()
            {
                assert_ne!(
                    lanes.get(branch).map(String::as_str),
                    Some("ready"),
                    "{what}: {name}'s failed run left a ready lane {branch}"
                );
            }
        }
    }
}

fn lanes_of(env: &Env, dir: &Path, remote: Option<&str>) -> BTreeMap<String, String> {
    let mut args = vec!["status", "--json"];
    if let Some(remote) = remote {
        args.extend(["--remote", remote]);
    }
    json(env.fleet(dir, &args))
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["branch"].as_str().unwrap().to_string(),
                l["state"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// No half-made worktree: `git worktree list` and `fleet worktree list` name the same
/// agent worktrees, each is whole (checked out, with its `nested` nested repositories),
/// and no folder under the worktree root is without one.
fn assert_worktrees_whole(env: &Env, dir: &Path, nested: usize, what: &str) {
    let root = env.path().join(".fleet-work").join("repo");
    let porcelain = env.git(dir, &["worktree", "list", "--porcelain"]);
    let mut by_git: Vec<PathBuf> = porcelain
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .filter(|p| p != dir)
        .collect();
    by_git.sort();
    let listed = json(env.fleet(dir, &["worktree", "list", "--json"]));
    let mut by_fleet: Vec<PathBuf> = Vec::new();
    for wt in listed.as_array().unwrap() {
        let path = PathBuf::from(wt["path"].as_str().unwrap());
        assert_eq!(wt["missing"], false, "{what}: {wt:#}");
        let members = wt["nested"].as_array().unwrap();
        assert_eq!(
            members.len(),
            nested,
            "{what}: a worktree without its nested repositories: {wt:#}"
        );
        assert!(
            members.iter().all(|m| m["missing"] == false),
            "{what}: {wt:#}"
        );
        for place in std::iter::once(path.clone()).chain(
            members
                .iter()
                .map(|m| PathBuf::from(m["path"].as_str().unwrap())),
        ) {
            let status = env.git_cmd(&place, &["status", "--porcelain"]).run();
            assert_eq!(
                status.code,
                0,
                "{what}: {}: {}",
                place.display(),
                status.stderr
            );
        }
        by_fleet.push(path);
    }
    by_fleet.sort();
    assert_eq!(by_git, by_fleet, "{what}");
    if let Ok(entries) = std::fs::read_dir(&root) {
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                // fleet's own trash folder, emptied by the next `worktree new`.
                continue;
            }
            assert!(
                by_fleet.contains(&path),
                "{what}: {} is a folder without a worktree",
                path.display()
            );
        }
    }
}

/// No process whose working folder is under this test's folder is left (agents,
/// checks, guardians, drainers), once their stops have had time.
fn assert_nothing_runs_in(env: &Env, what: &str) {
    let base = env.path();
    let inside = || -> Vec<(i32, PathBuf)> {
        procs::all_pids()
            .into_iter()
            .filter(|&pid| procs::live(pid))
            .filter_map(|pid| {
                let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
                cwd.starts_with(&base).then_some((pid, cwd))
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !inside().is_empty() {
        assert!(
            Instant::now() < deadline,
            "{what}: processes left: {:?}",
            inside()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `[drain] notify` ran for each park: exactly once, or with `killed` (a drainer was
/// killed, maybe while the command ran, which is then run again) at least once whole,
/// every whole document naming the run that parked the task; a document cut short is
/// allowed only then.
fn assert_notified(env: &Env, all: &[serde_json::Value], killed: bool, what: &str) {
    let mut notified: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(env.path().join("runs"))
        .unwrap()
        .flatten()
    {
        if !entry.file_name().to_string_lossy().starts_with("notified.") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(doc) => notified.push((
                doc["task"].as_str().unwrap().to_string(),
                doc["runs"].as_array().unwrap().last().unwrap()["run"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )),
            Err(e) => assert!(
                killed,
                "{what}: a notify document cut short ({e}): {text:?}"
            ),
        }
    }
    notified.sort();
    if killed {
        notified.dedup();
    }
    let mut parked: Vec<(String, String)> = all
        .iter()
        .filter(|t| t["state"] == "parked")
        .map(|t| {
            let last = runs(t).last().unwrap()["id"].as_str().unwrap().to_string();
            (t["name"].as_str().unwrap().to_string(), last)
        })
        .collect();
    parked.sort();
    assert_eq!(notified, parked, "{what}: notify ran once per park");
}

#[test]
fn four_drainers_on_one_repository_run_each_attempt_of_forty_tasks_exactly_once() {
    let env = Env::new();
    let dir = race_project(&env, "60s", false);
    let names: Vec<String> = (1..=36).map(|i| format!("t{i:02}")).collect();
    for name in &names {
        add(&env, &dir, name, &["--agent", "race"]);
    }
    // Four that fail: each retried once, then parked (and notified) exactly once.
    for i in 1..=4 {
        add(
            &env,
            &dir,
            &format!("bad{i}"),
            &["--agent", "fail", "--max-attempts", "2"],
        );
    }
    let drainers: Vec<Child> = (0..4)
        .map(|_| {
            env.fleet_cmd(&dir, &["drain", "--max", "3", "--json"])
                .spawn()
        })
        .collect();
    wait_settled(&env, &dir, None, "4 drainers");
    stop(drainers);
    let all = tasks(&env, &dir, None);
    assert_eq!(all.len(), 40);
    for task in &all {
        let name = task["name"].as_str().unwrap();
        if name.starts_with("bad") {
            assert_eq!(task["state"], "parked", "{task:#}");
            assert_eq!(runs(task).len(), 2, "{task:#}");
        } else {
            assert_eq!(task["state"], "succeeded", "{task:#}");
            assert_eq!(runs(task).len(), 1, "{name} ran more than once: {task:#}");
        }
    }
    assert_exactly_once(&env, &all, true, "4 drainers");
    let lanes = lanes_of(&env, &dir, None);
    // A lane per run: 36 ready, the failed runs' 8 left running.
    assert_eq!(lanes.len(), 44, "{lanes:?}");
    assert_eq!(lanes.values().filter(|s| *s == "ready").count(), 36);
    assert_lanes(
        &all,
        &lanes,
        |b| env.git(&dir, &["ls-tree", "-r", "--name-only", b]),
        "4 drainers",
    );
    assert_notified(&env, &all, false, "4 drainers");
    assert_worktrees_whole(&env, &dir, 0, "4 drainers");
    assert_no_agent_left(&env, &dir);
    assert_nothing_runs_in(&env, "4 drainers");
}

#[test]
fn two_clones_with_two_drainers_each_through_a_bare_remote_run_each_attempt_exactly_once() {
    let env = Env::new();
    let seed = race_project(&env, "60s", false);
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    let remote_s = remote.to_str().unwrap();
    let names: Vec<String> = (1..=14).map(|i| format!("r{i:02}")).collect();
    for name in &names {
        add(
            &env,
            &clones[0],
            name,
            &["--agent", "race", "--remote", "origin"],
        );
    }
    for i in 1..=2 {
        add(
            &env,
            &clones[1],
            &format!("bad{i}"),
            &[
                "--agent",
                "fail",
                "--max-attempts",
                "2",
                "--remote",
                "origin",
            ],
        );
    }
    let drainers: Vec<Child> = clones
        .iter()
        .flat_map(|c| [c, c])
        .map(|c| {
            env.fleet_cmd(c, &["drain", "--remote", "origin", "--max", "2", "--json"])
                .spawn()
        })
        .collect();
    // Read from a clone of its own, as a third machine would.
    let reader = env.path().join("reader");
    env.git(&env.path(), &["clone", "-q", remote_s, "reader"]);
    wait_settled(&env, &reader, Some("origin"), "2 clones");
    stop(drainers);
    let all = tasks(&env, &reader, Some("origin"));
    assert_eq!(all.len(), 16);
    for task in &all {
        let name = task["name"].as_str().unwrap();
        if name.starts_with("bad") {
            assert_eq!(task["state"], "parked", "{task:#}");
            assert_eq!(runs(task).len(), 2, "{task:#}");
        } else {
            assert_eq!(task["state"], "succeeded", "{task:#}");
            assert_eq!(runs(task).len(), 1, "{name} ran more than once: {task:#}");
        }
    }
    assert_exactly_once(&env, &all, true, "2 clones");
    // Both clones' drainers did some of the work.
    let hosts: HashSet<i64> = all
        .iter()
        .flat_map(runs)
        .map(|r| r["holder"]["pid"].as_i64().unwrap())
        .collect();
    assert!(hosts.len() >= 2, "{hosts:?}");
    let lanes = lanes_of(&env, &reader, Some("origin"));
    assert_eq!(
        lanes.values().filter(|s| *s == "ready").count(),
        14,
        "{lanes:?}"
    );
    assert_lanes(
        &all,
        &lanes,
        |b| {
            env.git(
                &remote,
                &["ls-tree", "-r", "--name-only", &format!("refs/heads/{b}")],
            )
        },
        "2 clones",
    );
    assert_notified(&env, &all, false, "2 clones");
    for clone in &clones {
        assert_no_agent_left(&env, clone);
    }
    assert_nothing_runs_in(&env, "2 clones");
}

/// Where a drainer is killed.
#[derive(Clone, Debug)]
enum Kill {
    /// It aborts itself at this failpoint (`FLEET_FAILPOINT=<name>:abort`).
    At(&'static str),
    /// SIGKILL once an agent logged that it runs.
    WhileAnAgentRuns,
    /// SIGKILL after this long.
    After(Duration),
    /// Not killed: the pass runs to its end.
    Never,
    /// At `drain-after-worktree`, the nested repository's worktree record then left as
    /// gix's worktree add leaves it when killed between its two writes of the record's
    /// HEAD (the null id first; see `Repo::add_detached_worktree`).
    InsideTheNestedWorktreeAdd,
}

/// One point of a sweep: a project with a nested repository and three tasks (two
/// that commit, one that fails and is parked at once), a drainer (`--once --max 3`)
/// killed as `kill` says, then fresh drainers until the queue settles; then the
/// checks of the module's doc.
fn killed_and_recovered(kill: &Kill) -> Duration {
    let what = format!("{kill:?}");
    let env = Env::new();
    let dir = race_project(&env, "1s", true);
    add(&env, &dir, "ok-a", &["--agent", "race"]);
    add(&env, &dir, "ok-b", &["--agent", "race"]);
    add(
        &env,
        &dir,
        "bad",
        &["--agent", "fail", "--max-attempts", "1"],
    );
    let args = ["drain", "--once", "--max", "3", "--json"];
    // What the drainers said, shown when a check fails.
    let mut said = String::new();
    let started = Instant::now();
    match kill {
        Kill::At(point) => {
            let run = env
                .fleet_cmd(&dir, &args)
                .env("FLEET_FAILPOINT", format!("{point}:abort"))
                .run();
            said.push_str(&run.stderr);
            assert_ne!(
                run.code, 0,
                "{what}: the failpoint was never hit: {}",
                run.stderr
            );
        }
        Kill::WhileAnAgentRuns => {
            let drainer = env.fleet_cmd(&dir, &args).spawn();
            let logged = env.path().join("runs/log");
            crate::common::drain::wait_for("an agent to run", || {
                std::fs::metadata(&logged).is_ok_and(|m| m.len() > 0)
            });
            said.push_str(&sigkill(drainer));
        }
        Kill::After(delay) => {
            let drainer = env.fleet_cmd(&dir, &args).spawn();
            std::thread::sleep(*delay);
            said.push_str(&sigkill(drainer));
        }
        Kill::Never => {
            said.push_str(&env.fleet(&dir, &args).ok().stderr);
        }
        Kill::InsideTheNestedWorktreeAdd => {
            let run = env
                .fleet_cmd(&dir, &args)
                .env("FLEET_FAILPOINT", "drain-after-worktree:abort")
                .run();
            said.push_str(&run.stderr);
            let records = dir.join("cockpit/.git/worktrees");
            let record = std::fs::read_dir(&records)
                .unwrap()
                .flatten()
                .next()
                .unwrap();
            write(
                &record.path().join("HEAD"),
                &format!("{}\n", "0".repeat(40)),
            );
        }
    }
    let took = started.elapsed();
    let deadline = Instant::now() + SETTLE;
    loop {
        said.push_str("--- the next drainer:\n");
        said.push_str(&env.fleet(&dir, &args).ok().stderr);
        let all = tasks(&env, &dir, None);
        if all.iter().all(settled) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: never settled: {:#}\nwhat the drainers said:\n{said}\n{}",
            serde_json::Value::Array(all),
            left_behind(&env, &dir)
        );
    }
    let checks = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let all = tasks(&env, &dir, None);
        for task in &all {
            let want = if task["name"] == "bad" {
                "parked"
            } else {
                "succeeded"
            };
            assert_eq!(task["state"], want, "{what}: {task:#}");
        }
        assert_exactly_once(&env, &all, false, &what);
        let lanes = lanes_of(&env, &dir, None);
        assert_lanes(
            &all,
            &lanes,
            |b| env.git(&dir, &["ls-tree", "-r", "--name-only", b]),
            &what,
        );
        assert_notified(&env, &all, !matches!(kill, Kill::Never), &what);
        assert_worktrees_whole(&env, &dir, 1, &what);
        assert_no_agent_left(&env, &dir);
        assert_nothing_runs_in(&env, &what);
    }));
    if let Err(e) = checks {
        eprintln!("{what}: what the drainers said:\n{said}");
        std::panic::resume_unwind(e);
    }
    took
}

/// What a queue that never settles may be stuck on, for the failure message: the lock
/// files under the repository's git dir, and the live processes working in the test's
/// folder (their cwd under it) with their command lines.
fn left_behind(env: &Env, dir: &Path) -> String {
    let mut out = String::from("lock files:\n");
    let mut stack = vec![dir.join(".git")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".lock") {
                out.push_str(&format!("  {}\n", path.display()));
            }
        }
    }
    out.push_str("processes working under the test's folder:\n");
    for pid in procs::all_pids() {
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
        if cwd.starts_with(env.path()) {
            let args = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args = String::from_utf8_lossy(&args).replace('\0', " ");
            out.push_str(&format!("  {pid} in {}: {args}\n", cwd.display()));
        }
    }
    out
}

/// Run the sweep's points two at a time (each in a folder of its own).
fn sweep(points: Vec<Kill>) {
    for pair in points.chunks(2) {
        std::thread::scope(|s| {
            let handles: Vec<_> = pair
                .iter()
                .map(|k| s.spawn(move || killed_and_recovered(k)))
                .collect();
            for h in handles {
                if let Err(e) = h.join() {
                    std::panic::resume_unwind(e);
                }
            }
        });
    }
}

#[test]
fn a_drainer_killed_at_each_step_of_a_run_loses_nothing_and_runs_nothing_twice_at_once() {
    sweep(vec![
        Kill::At("drain-after-claim"),
        Kill::At("worktree-new-after-outer"),
        Kill::At("drain-after-worktree"),
        Kill::InsideTheNestedWorktreeAdd,
        Kill::At("drain-after-place"),
        Kill::At("drain-before-running"),
        Kill::WhileAnAgentRuns,
        Kill::At("drain-before-reap"),
        Kill::At("drain-before-ready"),
        Kill::At("drain-after-ready"),
        Kill::At("drain-after-end"),
    ]);
}

#[test]
fn a_drainer_killed_after_each_of_many_delays_loses_nothing_and_runs_nothing_twice_at_once() {
    // The first point is not killed: how long a pass takes sets the delays, ten of
    // them from 0 to that.
    let pass = killed_and_recovered(&Kill::Never);
    sweep((0..10).map(|i| Kill::After(pass * i / 10)).collect());
}
