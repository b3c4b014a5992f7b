//! The loop back from landing through a shared remote (`fleet drain --remote origin`,
//! the lanes on the remote): a lane `fleet land` found conflicted or red in one clone
//! becomes a follow-up task for a drainer in another, the follow-up's rebased branch
//! replaces the remote's only while the remote still holds the tip it continued (a
//! push leased on that exact value), and someone's push meanwhile is refused with
//! their commit kept; and `[drain] cleanup`.

use std::path::{Path, PathBuf};

use crate::common::drain::{add as add_task, drain_once, json, runs, through_a_bare_remote};
use crate::common::{Env, write};

const REMOTE: &[&str] = &["--remote", "origin"];

/// The fake agents, by profile name. `lander`: a follow-up rebases onto the remote's
/// main (`origin/main`) when there is one, else onto `main`, resolving c.txt as `both`,
/// or removes bad.txt; else it writes c.txt (and bad.txt for task `red`) and commits. `lander-raced`: as `lander`, but its follow-up first
/// has someone else push a commit to the lane's branch on the remote (from clone `b`).
fn agents(env: &Env) -> Vec<(&'static str, String)> {
    let follow = "if grep -q 'conflicts with' \"$FLEET_PLAN\"; then\n  onto=main; git rev-parse -q --verify origin/main >/dev/null && onto=origin/main\n  git rebase -q \"$onto\" >/dev/null 2>&1 || { printf 'both\\n' > c.txt; git add c.txt; GIT_EDITOR=true git rebase --continue >/dev/null; }\nelif grep -q 'gate ran red' \"$FLEET_PLAN\"; then\n  git rm -q bad.txt; git commit -qm 'remove bad.txt'\nelse\n  echo lane > c.txt\n  if [ \"$FLEET_TASK\" = red ]; then echo x > bad.txt; fi\n  git add -A; git commit -qm work\nfi\n";
    let other = env.path().join("b");
    let intrude = format!(
        "if grep -q 'conflicts with' \"$FLEET_PLAN\"; then\n  branch=$(git rev-parse --abbrev-ref HEAD)\n  (cd {other:?} && git fetch -q origin && git checkout -q -B theirs \"origin/$branch\" && echo theirs > theirs.txt && git add theirs.txt && git commit -qm theirs && git push -q origin \"theirs:$branch\" && git rev-parse HEAD > \"$RUNS/theirs\" && git checkout -q main)\nfi\n"
    );
    let copy = "cp \"$FLEET_PLAN\" \"$RUNS/plan-$FLEET_TASK\"\n";
    // Its follow-up's first attempt rebases and then fails; the next one, on the
    // rebased branch, adds a fix and succeeds.
    let flaky = "if grep -q 'conflicts with' \"$FLEET_PLAN\" && [ -e \"$RUNS/flaky-done\" ]; then\n  echo fix > fix.txt; git add fix.txt; git commit -qm fix; exit 0\nfi\nif grep -q 'conflicts with' \"$FLEET_PLAN\"; then touch \"$RUNS/flaky-done\"; fi\n";
    let fail_after = "if [ -e \"$RUNS/flaky-done\" ]; then exit 1; fi\n";
    vec![
        ("lander", format!("{copy}{follow}")),
        ("lander-raced", format!("{copy}{intrude}{follow}")),
        ("lander-flaky", format!("{copy}{flaky}{follow}{fail_after}")),
    ]
}

/// repo/ with the fake agents (exit-code profiles whose own check passes, so only the
/// gate at landing can run red), quick back-offs, `[drain]` `extra`.
fn project(env: &Env, extra: &str) -> PathBuf {
    let dir = env.path().join("repo");
    let bin = env.path().join("agents");
    std::fs::create_dir_all(env.path().join("runs")).unwrap();
    let mut toml = String::from(
        "[gate]\ncommands = [\"test -e README\", \"test ! -e bad.txt\"]\n[drain]\nagent = \"lander\"\nbackoff = \"1s\"\nbackoff_max = \"1s\"\nclaim_grace = \"60s\"\nstop_timeout = \"1s\"\n",
    );
    toml.push_str(extra);
    for (name, body) in agents(env) {
        let script = bin.join(format!("{name}.sh"));
        write(&script, &format!("#!/bin/sh\n{body}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        toml.push_str(&format!(
            "\n[agents.{name}]\ncommand = [{:?}]\ntimeout = \"60s\"\nresult = \"exit-code\"\ncheck = [\"true\"]\nenv = {{ RUNS = {:?} }}\n",
            script.display().to_string(),
            env.path().join("runs").display().to_string(),
        ));
    }
    env.repo(&dir, "main", &[("README", "r\n"), ("fleet.toml", &toml)]);
    dir
}

/// `fleet task show NAME --json` with `extra` arguments: the task.
fn show(env: &Env, dir: &Path, name: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["task", "show", name, "--json"];
    args.extend_from_slice(extra);
    let doc = json(env.fleet(dir, &args));
    doc.get("task").cloned().unwrap_or(doc)
}

/// The state of the lane `branch` in the remote's queue, as `dir` sees it.
fn remote_lane_state(env: &Env, dir: &Path, branch: &str) -> String {
    let lanes = json(env.fleet(dir, &["status", "--remote", "origin", "--json"]));
    lanes
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["branch"] == branch)
        .map(|l| l["state"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no lane {branch} on the remote: {lanes:#}"))
}

/// Clone a's drainer runs `task` (with `agent`) into a lane ready on the remote; clone
/// b moves the remote's main on with its own c.txt and lands: the lane conflicts.
/// Returns (a, b, the remote, the lane's branch, its tip before the follow-up).
fn conflicted_on_the_remote(env: &Env, agent: &str) -> (PathBuf, PathBuf, PathBuf, String, String) {
    let seed = project(env, "on_conflict = \"task\"\n");
    let (remote, clones) = through_a_bare_remote(env, &seed, &["a", "b"]);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add_task(env, &a, "feat", &["--agent", agent, "--remote", "origin"]);
    let first = drain_once(env, &a, REMOTE);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    assert_eq!(remote_lane_state(env, &b, &branch), "ready");
    env.commit_file(&b, "c.txt", "main\n", "main's c.txt");
    env.git(&b, &["push", "-q", "origin", "main"]);
    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .code(1);
    assert_eq!(remote_lane_state(env, &b, &branch), "conflicted");
    let tip = env.git(&remote, &["rev-parse", &branch]);
    (a, b, remote, branch, tip)
}

#[test]
fn a_follow_up_through_a_remote_replaces_the_lane_it_rebased_by_a_lease_and_lands_from_another_clone()
 {
    let env = Env::new();
    let (a, b, remote, branch, old_tip) = conflicted_on_the_remote(&env, "lander");
    // Clone b's drainer makes the follow-up but leaves it to clone a, which has the
    // lane's worktree.
    let elsewhere = drain_once(&env, &b, REMOTE);
    assert_eq!(elsewhere["runs"], serde_json::json!([]), "{elsewhere:#}");
    let made = json(env.fleet(&b, &["task", "list", "--remote", "origin", "--json"]));
    assert!(made.to_string().contains("feat-conflict-"), "{made:#}");

    let second = drain_once(&env, &a, REMOTE);
    let run = &second["runs"][0];
    let name = run["task"].as_str().unwrap().to_string();
    assert!(name.starts_with("feat-conflict-"), "{second:#}");
    assert_eq!(run["outcome"], "succeeded", "{second:#}");
    assert_eq!(run["branch"], branch.as_str());
    // The plan names the remote's target, which this clone's own main is behind.
    let plan = std::fs::read_to_string(env.path().join(format!("runs/plan-{name}"))).unwrap();
    assert!(plan.contains("`git rebase origin/main`"), "{plan}");
    assert!(plan.contains("- c.txt"), "{plan}");
    let task = show(&env, &b, &name, REMOTE);
    assert_eq!(task["state"], "succeeded", "{task:#}");
    assert_eq!(task["continues"]["tip"], old_tip.as_str(), "{task:#}");
    // The remote's lane is the rebased branch: on top of the remote's main, with the
    // follow-up's resolution, and ready again.
    let new_tip = env.git(&remote, &["rev-parse", &branch]);
    assert_ne!(new_tip, old_tip);
    assert_eq!(new_tip, env.git(&a, &["rev-parse", &branch]));
    env.git(&remote, &["merge-base", "--is-ancestor", "main", &branch]);
    assert_eq!(
        env.git(&remote, &["show", &format!("{branch}:c.txt")]),
        "both"
    );
    assert_eq!(remote_lane_state(&env, &b, &branch), "ready");

    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(remote_lane_state(&env, &b, &branch), "landed");
    env.git(&remote, &["merge-base", "--is-ancestor", &new_tip, "main"]);
    assert_eq!(env.git(&remote, &["show", "main:c.txt"]), "both");
    env.fleet(&b, &["verify", "--remote", "origin"]).ok();
    assert_eq!(show(&env, &a, "feat", REMOTE)["state"], "succeeded");
    assert_eq!(show(&env, &a, &name, REMOTE)["state"], "succeeded");
}

#[test]
fn a_follow_up_whose_first_attempt_rebased_then_failed_publishes_its_retry_over_the_tip_it_continued()
 {
    let env = Env::new();
    let (a, b, remote, branch, old_tip) = conflicted_on_the_remote(&env, "lander-flaky");
    // Made by the first pass (which also runs the follow-up once: it rebases, then fails).
    let first = drain_once(&env, &a, REMOTE);
    let run = &first["runs"][0];
    let name = run["task"].as_str().unwrap().to_string();
    assert!(name.starts_with("feat-conflict-"), "{first:#}");
    assert_eq!(run["outcome"], "failed", "{first:#}");
    assert_eq!(env.git(&remote, &["rev-parse", &branch]), old_tip);
    // The retry starts from the rebased branch, not from the tip it continues.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let second = drain_once(&env, &a, REMOTE);
    let run = &second["runs"][0];
    assert_eq!(run["task"], name.as_str(), "{second:#}");
    assert_eq!(run["outcome"], "succeeded", "{second:#}");
    let new_tip = env.git(&remote, &["rev-parse", &branch]);
    assert_eq!(new_tip, env.git(&a, &["rev-parse", &branch]));
    env.git(&remote, &["merge-base", "--is-ancestor", "main", &branch]);
    assert_eq!(
        env.git(&remote, &["show", &format!("{branch}:fix.txt")]),
        "fix"
    );
    assert_eq!(remote_lane_state(&env, &b, &branch), "ready");
    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(remote_lane_state(&env, &b, &branch), "landed");
    env.fleet(&b, &["verify", "--remote", "origin"]).ok();
}

#[test]
fn a_follow_up_whose_lane_someone_pushed_to_meanwhile_is_refused_and_their_commit_stays_on_the_remote()
 {
    let env = Env::new();
    let (a, b, remote, branch, old_tip) = conflicted_on_the_remote(&env, "lander-raced");
    let main_before = env.git(&remote, &["rev-parse", "main"]);

    let second = drain_once(&env, &a, REMOTE);
    let run = &second["runs"][0];
    let name = run["task"].as_str().unwrap().to_string();
    assert!(name.starts_with("feat-conflict-"), "{second:#}");
    assert_eq!(run["outcome"], "failed", "{second:#}");
    let error = run["error"].as_str().unwrap();
    assert!(
        error.contains(&format!(
            "{branch} on origin moved since the follow-up began"
        )),
        "{error}"
    );
    // Their commit is the remote's branch still, on top of the tip the follow-up
    // continued; the remote's main did not move; the lane waits, conflicted.
    let theirs = std::fs::read_to_string(env.path().join("runs/theirs")).unwrap();
    assert_eq!(env.git(&remote, &["rev-parse", &branch]), theirs.trim());
    assert_eq!(
        env.git(&remote, &["rev-parse", &format!("{branch}^")]),
        old_tip
    );
    assert_eq!(env.git(&remote, &["rev-parse", "main"]), main_before);
    assert_eq!(remote_lane_state(&env, &b, &branch), "conflicted");
    // The follow-up's own work is kept too, on the branch in clone a's worktree.
    assert_eq!(env.git(&a, &["show", &format!("{branch}:c.txt")]), "both");
    let task = show(&env, &a, &name, REMOTE);
    assert_eq!(runs(&task)[0]["outcome"], "failed", "{task:#}");
}

#[test]
fn a_lane_red_at_the_gate_through_a_remote_comes_back_as_a_follow_up_and_lands_from_another_clone()
{
    let env = Env::new();
    let seed = project(&env, "on_red = \"task\"\n");
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add_task(&env, &a, "red", &["--remote", "origin"]);
    let first = drain_once(&env, &a, REMOTE);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .code(1);
    assert_eq!(remote_lane_state(&env, &b, &branch), "failed");

    let second = drain_once(&env, &a, REMOTE);
    let run = &second["runs"][0];
    let name = run["task"].as_str().unwrap().to_string();
    assert!(name.starts_with("red-red-"), "{second:#}");
    assert_eq!(run["outcome"], "succeeded", "{second:#}");
    assert_eq!(remote_lane_state(&env, &b, &branch), "ready");
    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(remote_lane_state(&env, &b, &branch), "landed");
    env.git_cmd(&remote, &["cat-file", "-e", "main:bad.txt"])
        .run()
        .code(128);
    assert_eq!(env.git(&remote, &["show", "main:c.txt"]), "lane");
    env.fleet(&b, &["verify", "--remote", "origin"]).ok();
    assert_eq!(show(&env, &b, &name, REMOTE)["state"], "succeeded");
}

/// Clone-free: `feat` drained into a lane and landed; returns its branch and worktree.
fn drained_and_landed(env: &Env, dir: &Path) -> (String, PathBuf) {
    add_task(env, dir, "feat", &[]);
    let first = drain_once(env, dir, &[]);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    let worktree = PathBuf::from(first["runs"][0]["worktree"].as_str().unwrap());
    env.fleet(dir, &["land", "--all", "--yes"]).ok();
    assert_eq!(
        local_lane_state(env, dir, &branch).as_deref(),
        Some("landed")
    );
    (branch, worktree)
}

/// The state of lane `branch` in this repository's own queue, if it is a lane.
fn local_lane_state(env: &Env, dir: &Path, branch: &str) -> Option<String> {
    crate::common::assert::lane_states(env, dir)
        .into_iter()
        .find(|(b, _)| b == branch)
        .map(|(_, s)| s)
}

#[test]
fn drain_cleanup_removes_a_landed_task_s_worktree_and_untracks_its_lane_and_keeps_the_task_and_its_receipt()
 {
    let env = Env::new();
    let dir = project(&env, "cleanup = true\n");
    // A person's own worktree, landed beside the task's: not the drainer's to remove.
    let mine = env.agent(&dir, "mine");
    env.commit_file(&mine, "mine.txt", "mine\n", "mine");
    env.fleet(&dir, &["ready", "mine"]).ok();
    let (branch, worktree) = drained_and_landed(&env, &dir);
    assert_eq!(
        local_lane_state(&env, &dir, "fleet/mine").as_deref(),
        Some("landed")
    );
    let landed = env.git(&dir, &["rev-parse", "main"]);

    let second = drain_once(&env, &dir, &[]);
    assert_eq!(second["runs"], serde_json::json!([]), "{second:#}");
    assert!(!worktree.exists(), "{} is still there", worktree.display());
    // `worktree rm` decided: its changes are in the target, so its branch went.
    assert!(
        !env.branches(&dir).contains(&format!("refs/heads/{branch}")),
        "{:?}",
        env.branches(&dir)
    );
    assert_eq!(local_lane_state(&env, &dir, &branch), None);
    let listed = env.git(&dir, &["worktree", "list", "--porcelain"]);
    assert!(
        !listed.contains(&worktree.display().to_string()),
        "{listed}"
    );
    // The person's worktree and lane are as they were.
    assert!(mine.join("mine.txt").exists());
    assert_eq!(
        local_lane_state(&env, &dir, "fleet/mine").as_deref(),
        Some("landed")
    );
    // Nothing else moved; the task's record is whole.
    assert_eq!(env.git(&dir, &["rev-parse", "main"]), landed);
    env.git(&dir, &["show", "main:c.txt"]);
    let task = show(&env, &dir, "feat", &[]);
    assert_eq!(task["state"], "succeeded", "{task:#}");
    assert_eq!(runs(&task)[0]["branch"], branch.as_str(), "{task:#}");
    let report = json(env.fleet(&dir, &["report", "--json"]));
    let feat = report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "feat")
        .cloned()
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(feat["state"], "succeeded", "{feat:#}");
    assert_eq!(feat["fate"], "landed", "{feat:#}");
    assert_eq!(feat["lane"]["branch"], branch.as_str(), "{feat:#}");
    assert_eq!(feat["lane"]["receipt"]["green"], true, "{feat:#}");
    assert_eq!(feat["runs"][0]["outcome"], "succeeded", "{feat:#}");
    // Where it landed is still told by the receipt, which names the lane.
    let receipt = crate::common::assert::receipt(&env, &dir, &landed);
    let lanes: Vec<String> = env
        .git(&dir, &["rev-list", "--first-parent", "main", "-n", "3"])
        .lines()
        .filter_map(|c| crate::common::assert::receipt_if_any(&env, &dir, c))
        .map(|r| r["lane"].as_str().unwrap().to_string())
        .collect();
    assert!(lanes.contains(&branch), "{lanes:?} {receipt:#?}");
    env.fleet(&dir, &["verify"]).ok();
}

#[test]
fn drain_cleanup_keeps_a_landed_task_s_worktree_with_uncommitted_changes_and_says_so() {
    let env = Env::new();
    let dir = project(&env, "cleanup = true\n");
    let (branch, worktree) = drained_and_landed(&env, &dir);
    write(&worktree.join("notes.txt"), "a person's notes\n");

    let run = env.fleet(&dir, &["drain", "--once", "--json"]).ok();
    assert!(
        run.stderr.contains("has uncommitted changes") && run.stderr.contains("notes.txt"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(worktree.join("notes.txt")).unwrap(),
        "a person's notes\n"
    );
    assert!(env.branches(&dir).contains(&format!("refs/heads/{branch}")));
    assert_eq!(
        local_lane_state(&env, &dir, &branch).as_deref(),
        Some("landed")
    );
}

#[test]
fn without_drain_cleanup_a_landed_task_s_worktree_and_lane_stay() {
    let env = Env::new();
    let dir = project(&env, "");
    let (branch, worktree) = drained_and_landed(&env, &dir);
    drain_once(&env, &dir, &[]);
    assert!(worktree.join("c.txt").exists());
    assert!(env.branches(&dir).contains(&format!("refs/heads/{branch}")));
    assert_eq!(
        local_lane_state(&env, &dir, &branch).as_deref(),
        Some("landed")
    );
}

#[test]
fn drain_cleanup_through_a_remote_removes_the_worktree_of_a_task_landed_from_another_clone() {
    let env = Env::new();
    let seed = project(&env, "cleanup = true\n");
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add_task(&env, &a, "feat", REMOTE);
    let first = drain_once(&env, &a, REMOTE);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    let worktree = PathBuf::from(first["runs"][0]["worktree"].as_str().unwrap());
    env.fleet(&b, &["land", "--remote", "origin", "--all", "--yes"])
        .ok();
    assert_eq!(remote_lane_state(&env, &b, &branch), "landed");

    let run = env
        .fleet(&a, &["drain", "--once", "--json", "--remote", "origin"])
        .ok();
    assert!(
        !worktree.exists(),
        "{} is still there: {}",
        worktree.display(),
        run.stderr
    );
    assert!(
        !env.branches(&a).contains(&format!("refs/heads/{branch}")),
        "{:?}",
        env.branches(&a)
    );
    let lanes = json(env.fleet(&b, &["status", "--remote", "origin", "--json"]));
    assert!(
        !lanes
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["branch"] == branch.as_str()),
        "{lanes:#}"
    );
    // The remote keeps the lane's branch and its landing; the task its record.
    env.git(&remote, &["merge-base", "--is-ancestor", &branch, "main"]);
    env.fleet(&b, &["verify", "--remote", "origin"]).ok();
    assert_eq!(show(&env, &b, "feat", REMOTE)["state"], "succeeded");
}

#[test]
fn a_dependant_starts_only_once_its_dependency_s_lane_landed_after_a_follow_up_even_when_cleaned_up()
 {
    let env = Env::new();
    let dir = project(&env, "on_conflict = \"task\"\ncleanup = true\n");
    add_task(&env, &dir, "feat", &[]);
    let first = drain_once(&env, &dir, &[]);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    let worktree = PathBuf::from(first["runs"][0]["worktree"].as_str().unwrap());
    env.commit_file(&dir, "c.txt", "main\n", "main's c.txt");
    env.fleet(&dir, &["land", "--all", "--yes"]).code(1);
    assert_eq!(
        local_lane_state(&env, &dir, &branch).as_deref(),
        Some("conflicted")
    );
    add_task(&env, &dir, "next", &["--after", "feat"]);

    // Room for two: only the follow-up runs; `next` waits for the lane, not the task.
    let second = drain_once(&env, &dir, &["--max", "2"]);
    let ran: Vec<&str> = second["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["task"].as_str().unwrap())
        .collect();
    assert_eq!(ran.len(), 1, "{second:#}");
    assert!(ran[0].starts_with("feat-conflict-"), "{second:#}");
    assert_eq!(
        local_lane_state(&env, &dir, &branch).as_deref(),
        Some("ready")
    );
    let third = drain_once(&env, &dir, &["--max", "2"]);
    assert_eq!(third["runs"], serde_json::json!([]), "{third:#}");
    assert_eq!(show(&env, &dir, "next", &[])["state"], "queued");

    env.fleet(&dir, &["land", "--all", "--yes"]).ok();
    assert_eq!(env.git(&dir, &["show", "main:c.txt"]), "both");
    // The pass that cleans the landed lane up (its branch deleted, untracked) starts
    // the dependant: a lane gone after landing still counts as landed.
    let fourth = drain_once(&env, &dir, &["--max", "2"]);
    assert!(!worktree.exists(), "{} is still there", worktree.display());
    assert_eq!(local_lane_state(&env, &dir, &branch), None);
    assert_eq!(fourth["runs"][0]["task"], "next", "{fourth:#}");
    assert_eq!(fourth["runs"][0]["outcome"], "succeeded", "{fourth:#}");
}

#[test]
fn drain_cleanup_untracks_a_landed_task_s_lane_whose_worktree_someone_removed_already() {
    let env = Env::new();
    let dir = project(&env, "cleanup = true\n");
    let (branch, worktree) = drained_and_landed(&env, &dir);
    env.git(&dir, &["worktree", "remove", worktree.to_str().unwrap()]);
    let run = env.fleet(&dir, &["drain", "--once", "--json"]).ok();
    assert!(run.stderr.contains("is gone already"), "{}", run.stderr);
    assert_eq!(local_lane_state(&env, &dir, &branch), None);
    // The branch is left as it was: only `worktree rm` deletes one.
    assert!(env.branches(&dir).contains(&format!("refs/heads/{branch}")));
    assert_eq!(show(&env, &dir, "feat", &[])["state"], "succeeded");
}
