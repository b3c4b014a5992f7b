//! The task queue in git: `fleet task add | list | show | cancel | retry` and the claim a
//! drainer makes. One ref per task under refs/fleet/tasks/, each change a commit on the
//! old one moved by compare-and-swap (a leased push through a remote); claimers racing
//! on one repository or through a bare remote claim every task exactly once; a stale
//! holder cannot move a task it lost; names and prompts are data, never run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{Env, write};

fn repo(env: &Env) -> PathBuf {
    let dir = env.path().join("repo");
    env.repo(&dir, "main", &[("README", "r\n")]);
    dir
}

/// The task refs, by name, and the commits they hold.
fn task_refs(env: &Env, dir: &Path, prefix: &str) -> BTreeMap<String, String> {
    env.git(
        dir,
        &["for-each-ref", "--format=%(refname) %(objectname)", prefix],
    )
    .lines()
    .map(|l| {
        let (name, id) = l.split_once(' ').unwrap();
        (name.rsplit('/').next().unwrap().to_string(), id.to_string())
    })
    .collect()
}

/// `task.toml` of task `name` as stored in `reference`'s commit.
fn stored(env: &Env, dir: &Path, reference: &str) -> toml::Value {
    toml::from_str(&env.git(dir, &["show", &format!("{reference}:task.toml")])).unwrap()
}

fn json(run: crate::common::Run) -> serde_json::Value {
    let run = run.ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn task_add_list_show_cancel_retry_round_trip_through_the_task_refs() {
    let env = Env::new();
    let dir = repo(&env);
    write(&dir.join("plans/docs.md"), "# Docs\n\nWrite them.\n");
    env.fleet(&dir, &["task", "add", "fix", "--prompt", "Fix the loop"])
        .ok();
    env.fleet(
        &dir,
        &[
            "task",
            "add",
            "docs",
            "--plan",
            "plans/docs.md",
            "--after",
            "fix",
            "--priority",
            "5",
            "--agent",
            "claude",
            "--max-attempts",
            "2",
        ],
    )
    .ok();
    let refs = task_refs(&env, &dir, "refs/fleet/tasks");
    assert_eq!(refs.keys().collect::<Vec<_>>(), ["docs", "fix"]);

    let docs = stored(&env, &dir, "refs/fleet/tasks/docs");
    assert_eq!(docs["state"].as_str(), Some("queued"));
    assert_eq!(docs["priority"].as_integer(), Some(5));
    assert_eq!(docs["max_attempts"].as_integer(), Some(2));
    assert_eq!(docs["agent"].as_str(), Some("claude"));
    assert_eq!(docs["after"].as_array().unwrap()[0].as_str(), Some("fix"));
    assert_eq!(
        env.git(&dir, &["show", "refs/fleet/tasks/docs:plan.md"]),
        "# Docs\n\nWrite them."
    );
    let fix = stored(&env, &dir, "refs/fleet/tasks/fix");
    assert_eq!(fix["prompt"].as_str(), Some("Fix the loop"));
    assert_eq!(fix["max_attempts"].as_integer(), Some(3));

    // Queue order: both queued, the higher priority first.
    let list = json(env.fleet(&dir, &["task", "list", "--json"]));
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["docs", "fix"]);
    let table = env.fleet(&dir, &["task", "list"]).ok().stdout;
    assert!(table.lines().next().unwrap().starts_with("docs"), "{table}");
    assert!(table.contains("0/2"), "{table}");

    // Adding a name taken is refused; the ref is untouched.
    env.refused(
        &dir,
        &["task", "add", "fix", "--prompt", "other"],
        "exists already",
    );
    assert_eq!(task_refs(&env, &dir, "refs/fleet/tasks"), refs);

    // Cancel: a new commit whose parent is the old one.
    let old = refs["fix"].clone();
    env.fleet(&dir, &["task", "cancel", "fix"]).ok();
    let after_cancel = task_refs(&env, &dir, "refs/fleet/tasks")["fix"].clone();
    assert_eq!(
        env.git(&dir, &["rev-parse", &format!("{after_cancel}^")]),
        old
    );
    assert_eq!(
        stored(&env, &dir, "refs/fleet/tasks/fix")["state"].as_str(),
        Some("cancelled")
    );
    env.refused(&dir, &["task", "cancel", "fix"], "cancelled already");

    // Retry: queued again, every transition kept.
    let shown = json(env.fleet(&dir, &["task", "retry", "fix", "--json"]));
    assert_eq!(shown["state"], "queued");
    let shown = json(env.fleet(&dir, &["task", "show", "fix", "--json"]));
    let moves: Vec<(String, String)> = shown["transition"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["from"].as_str().unwrap_or("-").to_string(),
                t["to"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        moves,
        [
            ("-".into(), "queued".into()),
            ("queued".into(), "cancelled".into()),
            ("cancelled".into(), "queued".into())
        ]
    );
    let docs = json(env.fleet(&dir, &["task", "show", "docs", "--json"]));
    assert_eq!(docs["plan"], "# Docs\n\nWrite them.\n");
    let text = env.fleet(&dir, &["task", "show", "fix"]).ok().stdout;
    assert!(text.contains("cancelled -> queued"), "{text}");
    env.fleet(&dir, &["task", "show", "nope"]).code(2);
}

#[test]
fn task_names_and_prompts_from_a_hostile_user_are_refused_or_stored_never_run() {
    let env = Env::new();
    let dir = repo(&env);
    for bad in ["a\nb", "tâche", "a;b", "$(touch pwned)", "..", "a/b", "-rf"] {
        let run = env
            .fleet(&dir, &["task", "add", bad, "--prompt", "x"])
            .code(2);
        assert!(
            run.stderr.contains("invalid task name") || bad.starts_with('-'),
            "{bad:?}: {}",
            run.stderr
        );
    }
    let run = env
        .fleet(&dir, &["task", "add", "a\nb", "--prompt", "x", "--json"])
        .code(2);
    let error: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(error["error"]["kind"], "usage", "{error}");
    env.fleet(
        &dir,
        &["task", "add", "ok", "--after", "b c", "--prompt", "x"],
    )
    .code(2);
    for (name, prompt) in [
        ("p1", "$(touch pwned)"),
        ("p2", "`touch pwned`; touch pwned\n--help"),
        ("p3", "-rf"),
    ] {
        env.fleet(&dir, &["task", "add", name, &format!("--prompt={prompt}")])
            .ok();
        assert_eq!(
            stored(&env, &dir, &format!("refs/fleet/tasks/{name}"))["prompt"].as_str(),
            Some(prompt)
        );
    }
    env.fleet(&dir, &["task", "list"]).ok();
    env.fleet(&dir, &["task", "show", "p2"]).ok();
    env.fleet(&dir, &["task", "claim", "--json"]).ok();
    assert!(!dir.join("pwned").exists() && !env.path().join("pwned").exists());
    assert_eq!(
        task_refs(&env, &dir, "refs/fleet/tasks")
            .keys()
            .collect::<Vec<_>>(),
        ["p1", "p2", "p3"]
    );
}

/// A bare remote and a first clone of it, with an empty main pushed.
fn remote_and_clone(env: &Env) -> (PathBuf, PathBuf) {
    let remote = env.path().join("remote.git");
    env.git(
        &env.path(),
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let dir = repo(env);
    env.git(&dir, &["remote", "add", "origin", remote.to_str().unwrap()]);
    env.git(&dir, &["push", "-q", "origin", "main"]);
    (remote, dir)
}

fn clone(env: &Env, remote: &Path, name: &str) -> PathBuf {
    env.git(
        &env.path(),
        &["clone", "-q", remote.to_str().unwrap(), name],
    );
    env.path().join(name)
}

#[test]
fn a_task_s_plan_added_through_a_remote_is_readable_from_a_fresh_clone() {
    let env = Env::new();
    let (remote, dir) = remote_and_clone(&env);
    write(
        &env.path().join("plan.md"),
        "step 1\nstep 2 `$(rm -rf /)`\n",
    );
    let plan = env.path().join("plan.md");
    env.fleet(
        &dir,
        &[
            "task",
            "add",
            "build",
            "--remote",
            "origin",
            "--plan",
            plan.to_str().unwrap(),
        ],
    )
    .ok();
    // On the remote, not in this repository's own queue.
    assert_eq!(
        task_refs(&env, &remote, "refs/fleet/tasks")
            .keys()
            .collect::<Vec<_>>(),
        ["build"]
    );
    assert!(task_refs(&env, &dir, "refs/fleet/tasks").is_empty());

    let fresh = clone(&env, &remote, "fresh");
    env.git(
        &fresh,
        &[
            "fetch",
            "-q",
            "origin",
            "refs/fleet/tasks/*:refs/fleet/tasks/*",
        ],
    );
    assert_eq!(
        env.git(&fresh, &["show", "refs/fleet/tasks/build:plan.md"]),
        "step 1\nstep 2 `$(rm -rf /)`"
    );
    let other = clone(&env, &remote, "other");
    let shown = json(env.fleet(
        &other,
        &["task", "show", "build", "--remote", "origin", "--json"],
    ));
    assert_eq!(shown["plan"], "step 1\nstep 2 `$(rm -rf /)`\n");
    // A second add of the name from another clone loses to the lease on "absent".
    env.refused(
        &other,
        &[
            "task", "add", "build", "--remote", "origin", "--prompt", "x",
        ],
        "exists already",
    );
}

/// Run `claimers` claim loops at once (each `fleet task claim` until nothing is left),
/// each in its repository; every (task, run) claimed.
fn race_claims(env: &Env, claimers: &[(PathBuf, Vec<&str>)]) -> Vec<(String, String)> {
    std::thread::scope(|s| {
        let handles: Vec<_> = claimers
            .iter()
            .enumerate()
            .map(|(i, (dir, extra))| {
                s.spawn(move || {
                    let holder = format!("claimer-{i}");
                    let mut args = vec!["task", "claim", "--holder", &holder, "--json"];
                    args.extend(extra.iter().copied());
                    let mut claimed = Vec::new();
                    loop {
                        let v = json(env.fleet(dir, &args));
                        if v.is_null() {
                            return claimed;
                        }
                        assert_eq!(v["run"]["holder"]["host"], holder.as_str());
                        claimed.push((
                            v["task"]["name"].as_str().unwrap().to_string(),
                            v["run"]["id"].as_str().unwrap().to_string(),
                        ));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

/// Every task claimed exactly once, and each task's stored state says so: claimed,
/// one run, the run the claimer was told.
fn assert_each_claimed_once(
    env: &Env,
    dir: &Path,
    prefix: &str,
    n: usize,
    claimed: &[(String, String)],
) {
    let mut names: Vec<&str> = claimed.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    let mut expected: Vec<String> = (0..n).map(|i| format!("t{i:02}")).collect();
    expected.sort();
    assert_eq!(names, expected, "every task claimed exactly once");
    for (name, run) in claimed {
        let task = stored(env, dir, &format!("{prefix}{name}"));
        assert_eq!(task["state"].as_str(), Some("claimed"), "{name}");
        let runs = task["run"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{name}: {runs:?}");
        assert_eq!(runs[0]["id"].as_str(), Some(run.as_str()));
        assert_eq!(runs[0]["attempt"].as_integer(), Some(1));
    }
}

#[test]
fn four_claimers_racing_on_forty_tasks_claim_each_exactly_once() {
    let env = Env::new();
    let dir = repo(&env);
    for i in 0..40 {
        let name = format!("t{i:02}");
        let priority = (i % 3).to_string();
        env.fleet(
            &dir,
            &[
                "task",
                "add",
                &name,
                "--prompt",
                "p",
                "--priority",
                &priority,
            ],
        )
        .ok();
    }
    let claimers: Vec<(PathBuf, Vec<&str>)> = (0..4).map(|_| (dir.clone(), vec![])).collect();
    let claimed = race_claims(&env, &claimers);
    assert_each_claimed_once(&env, &dir, "refs/fleet/tasks/", 40, &claimed);
    let list = json(env.fleet(&dir, &["task", "list", "--json"]));
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|t| t["state"] == "claimed")
    );
}

#[test]
fn two_clones_with_two_claimers_each_through_a_bare_remote_claim_each_task_once() {
    let env = Env::new();
    let (remote, dir) = remote_and_clone(&env);
    for i in 0..16 {
        let name = format!("t{i:02}");
        env.fleet(
            &dir,
            &["task", "add", &name, "--prompt", "p", "--remote", "origin"],
        )
        .ok();
    }
    let a = clone(&env, &remote, "a");
    let b = clone(&env, &remote, "b");
    let remote_flag = vec!["--remote", "origin"];
    let claimers = vec![
        (a.clone(), remote_flag.clone()),
        (a.clone(), remote_flag.clone()),
        (b.clone(), remote_flag.clone()),
        (b.clone(), remote_flag.clone()),
    ];
    let claimed = race_claims(&env, &claimers);
    assert_each_claimed_once(&env, &remote, "refs/fleet/tasks/", 16, &claimed);
}

#[test]
fn a_stale_run_id_cannot_finish_or_start_a_task_it_lost() {
    use fleet::tasks::{Holder, Outcome, Store, TaskName, TaskState};
    let env = Env::new();
    let dir = repo(&env);
    env.git(&dir, &["config", "user.name", "Test"]);
    env.git(&dir, &["config", "user.email", "test@example.invalid"]);
    env.fleet(&dir, &["task", "add", "t", "--prompt", "p"]).ok();
    let ctx = fleet::context::Context::find(&dir).unwrap();
    let queue = fleet::queue::Queue::Local;
    let store = Store::new(&ctx, &queue);
    let name = TaskName::parse("t").unwrap();
    let holder = Holder::this_process("test");
    let lease = std::time::Duration::from_secs(60);

    let first = store.claim_next(&holder, 100, lease).unwrap().unwrap();
    assert!(store.claim_next(&holder, 100, lease).unwrap().is_none());
    store.start(&name, &first.run.id, 4242, 101).unwrap();
    store
        .finish(&name, &first.run.id, Outcome::Crashed, None, 102)
        .unwrap();
    let task = store
        .requeue_after(
            &name,
            &first.run.id,
            102,
            std::time::Duration::from_secs(30),
        )
        .unwrap();
    assert_eq!(
        (task.state, task.not_before),
        (TaskState::Queued, Some(132))
    );
    // The back-off holds until its time.
    assert!(store.claim_next(&holder, 120, lease).unwrap().is_none());
    let second = store.claim_next(&holder, 140, lease).unwrap().unwrap();
    assert_eq!(second.run.attempt, 2);

    let before = env.git(&dir, &["rev-parse", "refs/fleet/tasks/t"]);
    let e = store
        .finish(&name, &first.run.id, Outcome::Succeeded, None, 150)
        .unwrap_err();
    assert_eq!(e.kind, fleet::error::Kind::Refused);
    assert!(e.message.contains("not held by run"), "{}", e.message);
    assert!(store.start(&name, &first.run.id, 1, 150).is_err());
    assert_eq!(env.git(&dir, &["rev-parse", "refs/fleet/tasks/t"]), before);
    let stored = stored(&env, &dir, "refs/fleet/tasks/t");
    assert_eq!(stored["state"].as_str(), Some("claimed"));

    // The holder of the live run finishes it; at the cap a failure parks it.
    store
        .finish(
            &name,
            &second.run.id,
            Outcome::Failed,
            Some("boom".into()),
            160,
        )
        .unwrap();
    store
        .requeue_after(&name, &second.run.id, 160, std::time::Duration::ZERO)
        .unwrap();
    let third = store.claim_next(&holder, 170, lease).unwrap().unwrap();
    store
        .finish(&name, &third.run.id, Outcome::TimedOut, None, 171)
        .unwrap();
    let task = store
        .requeue_after(&name, &third.run.id, 171, std::time::Duration::ZERO)
        .unwrap();
    assert_eq!(task.state, TaskState::Parked);
    // Retry keeps the attempts and grants one more.
    let task = store.retry(&name, 180).unwrap();
    assert_eq!((task.attempts(), task.max_attempts), (3, 4));
    assert_eq!(
        store
            .claim_next(&holder, 181, lease)
            .unwrap()
            .unwrap()
            .run
            .attempt,
        4
    );
    let shown = json(env.fleet(&dir, &["task", "show", "t", "--json"]));
    assert_eq!(shown["run"].as_array().unwrap().len(), 4);
    assert_eq!(shown["run"][1]["error"], "boom");
}

/// The task memo's file (parsed tasks keyed by commit id).
fn memo_file(dir: &Path) -> PathBuf {
    dir.join(".git/fleet/cache/task-memo-v1.json")
}

/// The commit ids the memo holds for the local queue.
fn memo_commits(dir: &Path) -> std::collections::BTreeSet<String> {
    let memo: serde_json::Value =
        serde_json::from_slice(&std::fs::read(memo_file(dir)).unwrap()).unwrap();
    memo["queues"]["refs/fleet/tasks/"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// `fleet task list --json`, as (name, state, priority).
fn listed(env: &Env, dir: &Path) -> Vec<(String, String, i64)> {
    json(env.fleet(dir, &["task", "list", "--json"]))
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["state"].as_str().unwrap().to_string(),
                t["priority"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_corrupt_or_partial_task_memo_is_ignored_and_rebuilt_and_the_list_stays_right() {
    let env = Env::new();
    let dir = repo(&env);
    for (name, priority) in [("a", "1"), ("b", "2"), ("c", "3")] {
        env.fleet(
            &dir,
            &["task", "add", name, "--prompt", "p", "--priority", priority],
        )
        .ok();
    }
    env.fleet(&dir, &["task", "cancel", "a"]).ok();
    let want = vec![
        ("c".to_string(), "queued".to_string(), 3),
        ("b".to_string(), "queued".to_string(), 2),
        ("a".to_string(), "cancelled".to_string(), 1),
    ];
    assert_eq!(listed(&env, &dir), want);
    let refs: std::collections::BTreeSet<String> = task_refs(&env, &dir, "refs/fleet/tasks/")
        .into_values()
        .collect();
    assert_eq!(memo_commits(&dir), refs, "the list wrote the memo");

    let whole = std::fs::read(memo_file(&dir)).unwrap();
    for broken in [
        whole[..whole.len() / 2].to_vec(),
        b"\x00\xffnot json".to_vec(),
        br#"{"version": 999, "queues": {}}"#.to_vec(),
        Vec::new(),
    ] {
        std::fs::write(memo_file(&dir), &broken).unwrap();
        assert_eq!(listed(&env, &dir), want, "with {broken:?}");
        assert_eq!(memo_commits(&dir), refs, "rebuilt after {broken:?}");
    }
    // A claim reads a broken memo as no memo too, and claims the first task once.
    std::fs::write(memo_file(&dir), &whole[..whole.len() / 3]).unwrap();
    let claimed = json(env.fleet(&dir, &["task", "claim", "--json"]));
    assert_eq!(claimed["task"]["name"], "c");
    assert_eq!(
        stored(&env, &dir, "refs/fleet/tasks/c")["state"].as_str(),
        Some("claimed")
    );
    assert_eq!(
        stored(&env, &dir, "refs/fleet/tasks/b")["state"].as_str(),
        Some("queued")
    );
}

/// Put a new commit on task `name`'s ref by git alone, its `task.toml` edited by
/// `edit`, as another program would.
fn change_by_git(env: &Env, dir: &Path, name: &str, edit: impl Fn(&mut toml::Value)) -> String {
    let reference = format!("refs/fleet/tasks/{name}");
    let old = env.git(dir, &["rev-parse", &reference]);
    let mut task = stored(env, dir, &reference);
    edit(&mut task);
    let blob = env
        .git_cmd(dir, &["hash-object", "-w", "--stdin"])
        .stdin(&toml::to_string(&task).unwrap())
        .stdout();
    let tree = env
        .git_cmd(dir, &["mktree"])
        .stdin(&format!("100644 blob {}\ttask.toml\n", blob.trim()))
        .stdout();
    let new = env.git(
        dir,
        &["commit-tree", tree.trim(), "-p", &old, "-m", "by hand"],
    );
    env.git(dir, &["update-ref", &reference, &new, &old]);
    new
}

#[test]
fn a_task_changed_by_another_process_is_seen_at_once_because_the_memo_is_keyed_by_commit() {
    let env = Env::new();
    let dir = repo(&env);
    env.git(&dir, &["config", "user.name", "Test"]);
    env.git(&dir, &["config", "user.email", "test@example.invalid"]);
    for (name, priority) in [("a", "5"), ("b", "1")] {
        env.fleet(
            &dir,
            &["task", "add", name, "--prompt", "p", "--priority", priority],
        )
        .ok();
    }
    let old_a = env.git(&dir, &["rev-parse", "refs/fleet/tasks/a"]);
    listed(&env, &dir);
    assert!(memo_commits(&dir).contains(old_a.trim()), "a is memoised");

    // Another program cancels `a` and raises `b`: the memo's entries for the old
    // commits stay true of those commits, and the new commits are read from git.
    let new_a = change_by_git(&env, &dir, "a", |t| {
        t["state"] = toml::Value::String("cancelled".into());
    });
    change_by_git(&env, &dir, "b", |t| {
        t["priority"] = toml::Value::Integer(9);
    });
    assert_eq!(
        listed(&env, &dir),
        vec![
            ("b".to_string(), "queued".to_string(), 9),
            ("a".to_string(), "cancelled".to_string(), 5),
        ]
    );
    let memo = memo_commits(&dir);
    assert!(memo.contains(new_a.trim()), "{memo:?}");
    assert!(
        !memo.contains(old_a.trim()),
        "a commit no ref names is dropped"
    );

    // A memo file edited to lie (`a` queued again under its real commit) does not get
    // `a` claimed: the claim reads the chosen commit itself before it swaps.
    let path = memo_file(&dir);
    let mut file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    file["queues"]["refs/fleet/tasks/"][new_a.trim()]["state"] = "queued".into();
    file["queues"]["refs/fleet/tasks/"][new_a.trim()]["priority"] = 99.into();
    std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let claimed = json(env.fleet(&dir, &["task", "claim", "--json"]));
    assert_eq!(claimed["task"]["name"], "b");
    assert_eq!(
        env.git(&dir, &["rev-parse", "refs/fleet/tasks/a"]),
        new_a,
        "the cancelled task did not move"
    );
    assert_eq!(
        stored(&env, &dir, "refs/fleet/tasks/a")["state"].as_str(),
        Some("cancelled")
    );
    let claimed = json(env.fleet(&dir, &["task", "claim", "--json"]));
    assert!(claimed.is_null(), "{claimed}");
}
