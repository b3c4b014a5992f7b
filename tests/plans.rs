//! Plans through `fleet drain --once` with fake agents printing Claude Code's JSON (the
//! texts in tests/data/agent-output/claude/): a usage limit closes the run's plan until
//! its reset for every drainer (locally and through a bare remote) without using an
//! attempt, the task runs on the next open plan, an overload only backs off, a closed
//! plan starts nothing, `fleet plans explain` says which plan and why, a budget
//! parks a task before its retry, and a lane `fleet land` finds conflicted or red comes
//! back to an agent as a follow-up task in that lane's worktree.

use std::path::{Path, PathBuf};

use crate::common::assert::lane_states;
use crate::common::drain::through_a_bare_remote;
use crate::common::{Env, write};

/// 2100-01-01T00:00:00Z: the reset in limited-429-usage-limit-reset.json.
const RESET_2100: i64 = 4102444800;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agent-output/claude")
        .join(name)
        .display()
        .to_string()
}

/// The fake agents, by profile name: each prints a fixture as its result document.
fn agents() -> Vec<(&'static str, String)> {
    vec![
        (
            "claude-ok",
            format!(
                "echo \"$CLAUDE_CODE_MAX_RETRIES $PLAN_URL\" > \"$RUNS/env-$FLEET_RUN\"\necho ok > c.txt; git add -A; git commit -qm claude\ncat {:?}\n",
                fixture("success.json")
            ),
        ),
        (
            "claude-429",
            format!(
                "cat {:?}\nexit 1\n",
                fixture("limited-429-usage-limit-reset.json")
            ),
        ),
        (
            "claude-429-no-reset",
            format!("cat {:?}\nexit 1\n", fixture("limited-429.json")),
        ),
        (
            "claude-529",
            format!("cat {:?}\nexit 1\n", fixture("overloaded-529.json")),
        ),
        (
            // Exit-code agent: a follow-up rebases (resolving c.txt) or removes bad.txt;
            // else it writes c.txt (and bad.txt for task `red`) and commits.
            "lander",
            "cp \"$FLEET_PLAN\" \"$RUNS/plan-$FLEET_TASK\"\nif grep -q 'conflicts with' \"$FLEET_PLAN\"; then\n  git rebase -q main >/dev/null 2>&1 || { printf 'both\\n' > c.txt; git add c.txt; GIT_EDITOR=true git rebase --continue >/dev/null; }\nelif grep -q 'gate ran red' \"$FLEET_PLAN\"; then\n  git rm -q bad.txt; git commit -qm 'remove bad.txt'\nelse\n  echo lane > c.txt\n  if [ \"$FLEET_TASK\" = red ]; then echo x > bad.txt; fi\n  git add -A; git commit -qm work\nfi\n".to_string(),
        ),
        (
            "claude-costly",
            format!("cat {:?}\nexit 1\n", fixture("failed-max-turns.json")),
        ),
    ]
}

/// repo/ with a claude-json profile per fake agent, quick back-offs, and `extra`.
fn project(env: &Env, extra: &str) -> PathBuf {
    let dir = env.path().join("repo");
    let bin = env.path().join("agents");
    std::fs::create_dir_all(env.path().join("runs")).unwrap();
    let mut toml = String::from(
        "[gate]\ncommands = [\"test -e README\", \"test ! -e bad.txt\"]\n[drain]\nbackoff = \"1s\"\nbackoff_max = \"1s\"\nclaim_grace = \"60s\"\nstop_timeout = \"1s\"\n",
    );
    toml.push_str(extra);
    for (name, body) in agents() {
        let script = bin.join(format!("{name}.sh"));
        write(&script, &format!("#!/bin/sh\n{body}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        // The lander's own check passes, so only the gate at landing can run red.
        let result = if name == "lander" {
            "result = \"exit-code\"\ncheck = [\"true\"]"
        } else {
            "result = \"claude-json\""
        };
        toml.push_str(&format!(
            "\n[agents.{name}]\ncommand = [{:?}]\ntimeout = \"60s\"\n{result}\nenv = {{ RUNS = {:?} }}\n",
            script.display().to_string(),
            env.path().join("runs").display().to_string(),
        ));
    }
    env.repo(&dir, "main", &[("README", "r\n"), ("fleet.toml", &toml)]);
    dir
}

/// Plan `a` (first) runs into a 429 with a reset; plan `b` (second) succeeds.
const TWO_PLANS: &str = "\n[plans.a]\nagent = \"claude-429\"\norder = 1\n[plans.b]\nagent = \"claude-ok\"\norder = 2\nenv = { PLAN_URL = \"http://plan-b.invalid\" }\n";

fn json(run: crate::common::Run) -> serde_json::Value {
    let run = run.ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn show(env: &Env, dir: &Path, name: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["task", "show", name, "--json"];
    args.extend_from_slice(extra);
    let doc = json(env.fleet(dir, &args));
    doc.get("task").cloned().unwrap_or(doc)
}

fn runs(task: &serde_json::Value) -> Vec<serde_json::Value> {
    task["run"].as_array().cloned().unwrap_or_default()
}

fn add(env: &Env, dir: &Path, name: &str, extra: &[&str]) {
    let mut args = vec!["task", "add", name, "--prompt", "do the thing"];
    args.extend_from_slice(extra);
    env.fleet(dir, &args).ok();
}

fn drain_once(env: &Env, dir: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["drain", "--once", "--json"];
    args.extend_from_slice(extra);
    json(env.fleet(dir, &args))
}

/// `fleet plans --json`, by plan name.
fn plans(env: &Env, dir: &Path, extra: &[&str]) -> serde_json::Map<String, serde_json::Value> {
    let mut args = vec!["plans", "--json"];
    args.extend_from_slice(extra);
    json(env.fleet(dir, &args))
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p.clone()))
        .collect()
}

#[test]
fn a_usage_limit_closes_the_plan_until_its_reset_and_the_task_runs_on_the_next_plan_without_using_an_attempt()
 {
    let env = Env::new();
    let dir = project(&env, TWO_PLANS);
    add(&env, &dir, "quota", &["--max-attempts", "1"]);

    let first = drain_once(&env, &dir, &[]);
    let run1 = &first["runs"][0];
    assert_eq!(run1["plan"], "a", "{first:#}");
    assert_eq!(run1["outcome"], "limited", "{first:#}");
    // Plan a is closed until the reset the agent named, by that run, in its ref.
    let listed = plans(&env, &dir, &[]);
    assert_eq!(listed["a"]["open"], false, "{listed:?}");
    assert_eq!(listed["a"]["state"]["until"], RESET_2100);
    assert_eq!(listed["a"]["state"]["run"], run1["run"]);
    assert_eq!(listed["a"]["state"]["task"], "quota");
    assert_eq!(listed["b"]["open"], true);
    let stored = env.git(&dir, &["show", "refs/fleet/plans/a:plan.toml"]);
    assert!(stored.contains("open = false"), "{stored}");
    assert!(
        stored.contains(&format!("until = {RESET_2100}")),
        "{stored}"
    );
    // The attempt was not used, and the task is queued again at once.
    let task = show(&env, &dir, "quota", &[]);
    assert_eq!(task["state"], "queued", "{task:#}");
    assert_eq!(runs(&task)[0]["free"], true);
    assert_eq!(runs(&task)[0]["plan"], "a");

    let second = drain_once(&env, &dir, &[]);
    let run2 = &second["runs"][0];
    assert_eq!(run2["plan"], "b", "{second:#}");
    assert_eq!(run2["outcome"], "succeeded", "{second:#}");
    assert_eq!(run2["attempt"], 1, "the limited run used no attempt");
    let task = show(&env, &dir, "quota", &[]);
    assert_eq!(task["state"], "succeeded");
    assert_eq!(runs(&task)[1]["plan"], "b");
    assert_eq!(runs(&task)[1]["usage"]["cost_usd"], 0.01275);
    let branch = run2["branch"].as_str().unwrap().to_string();
    assert!(
        lane_states(&env, &dir).contains(&(branch, "ready".to_string())),
        "{:?}",
        lane_states(&env, &dir)
    );
    // The plan's env reached the agent, and claude's retries were capped.
    let seen = std::fs::read_to_string(
        env.path()
            .join(format!("runs/env-{}", run2["run"].as_str().unwrap())),
    )
    .unwrap();
    assert_eq!(seen.trim(), "2 http://plan-b.invalid");
    // A person reopens plan a.
    env.fleet(&dir, &["plans", "open", "a"]).ok();
    assert_eq!(plans(&env, &dir, &[])["a"]["open"], true);
}

#[test]
fn a_limit_with_no_reset_time_closes_the_plan_until_reopened_or_for_its_cooldown_never_a_guess() {
    let env = Env::new();
    let dir = project(
        &env,
        "\n[plans.x]\nagent = \"claude-429-no-reset\"\n[plans.y]\nagent = \"claude-429-no-reset\"\norder = 2\ncooldown = \"10m\"\n",
    );
    add(&env, &dir, "quota", &["--max-attempts", "1"]);
    let first = drain_once(&env, &dir, &[]);
    assert_eq!(first["runs"][0]["plan"], "x", "{first:#}");
    let listed = plans(&env, &dir, &[]);
    assert_eq!(listed["x"]["open"], false, "{listed:?}");
    assert!(listed["x"]["state"].get("until").is_none(), "{listed:?}");
    let why = listed["x"]["state"]["why"].as_str().unwrap();
    assert!(why.contains("closed until `fleet plans open x`"), "{why}");
    let second = drain_once(&env, &dir, &[]);
    assert_eq!(second["runs"][0]["plan"], "y", "{second:#}");
    let y = &plans(&env, &dir, &[])["y"]["state"];
    assert_eq!(
        y["until"].as_i64().unwrap() - y["at"].as_i64().unwrap(),
        600,
        "{y}"
    );
    // Every plan closed: nothing starts, the task waits queued with its attempt unused.
    let third = drain_once(&env, &dir, &[]);
    assert_eq!(third["runs"], serde_json::json!([]), "{third:#}");
    let task = show(&env, &dir, "quota", &[]);
    assert_eq!(task["state"], "queued");
    assert_eq!(runs(&task).len(), 2);
    assert!(runs(&task).iter().all(|r| r["free"] == true));
    let text = env.fleet(&dir, &["plans", "explain", "quota"]).ok().stdout;
    assert!(text.contains("would wait"), "{text}");
}

#[test]
fn an_overload_backs_off_and_leaves_the_plan_open() {
    let env = Env::new();
    let dir = project(
        &env,
        "\n[plans.busy]\nagent = \"claude-529\"\n[plans.spare]\nagent = \"claude-ok\"\norder = 5\n",
    );
    add(&env, &dir, "surge", &["--max-attempts", "1"]);
    let report = drain_once(&env, &dir, &[]);
    let run = &report["runs"][0];
    assert_eq!(run["plan"], "busy", "{report:#}");
    assert_eq!(run["outcome"], "limited", "{report:#}");
    assert!(
        run["error"].as_str().unwrap().contains("overloaded"),
        "{report:#}"
    );
    let listed = plans(&env, &dir, &[]);
    assert_eq!(listed["busy"]["open"], true, "{listed:?}");
    env.git_cmd(
        &dir,
        &["rev-parse", "--verify", "-q", "refs/fleet/plans/busy"],
    )
    .run()
    .code(1);
    let task = show(&env, &dir, "surge", &[]);
    assert_eq!(task["state"], "queued");
    assert_eq!(runs(&task)[0]["free"], true);
    // Queued after a back-off, not after [drain] limit_cooldown (15 minutes).
    let wait = task["not_before"].as_i64().unwrap() - runs(&task)[0]["ended"].as_i64().unwrap();
    assert!((0..=1).contains(&wait), "{task:#}");
}

#[test]
fn a_closed_plan_starts_nothing_until_a_person_opens_it() {
    let env = Env::new();
    let dir = project(&env, "\n[plans.only]\nagent = \"claude-ok\"\n");
    add(&env, &dir, "held", &[]);
    env.fleet(&dir, &["plans", "close", "only"]).ok();
    let listed = plans(&env, &dir, &[]);
    assert_eq!(listed["only"]["open"], false);
    assert!(listed["only"]["state"].get("until").is_none(), "{listed:?}");
    let report = drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"], serde_json::json!([]), "{report:#}");
    assert_eq!(show(&env, &dir, "held", &[])["state"], "queued");
    let text = env.fleet(&dir, &["plans"]).ok().stdout;
    assert!(
        text.contains("only (profile claude-ok): closed until reopened"),
        "{text}"
    );
    env.fleet(&dir, &["plans", "open", "only"]).ok();
    let report = drain_once(&env, &dir, &[]);
    assert_eq!(report["runs"][0]["plan"], "only", "{report:#}");
    assert_eq!(report["runs"][0]["outcome"], "succeeded");
}

#[test]
fn plans_explain_names_the_plan_a_task_would_run_on_every_plan_passed_over_and_a_pinned_profile() {
    let env = Env::new();
    let dir = project(
        &env,
        "\n[plans.sub]\nagent = \"claude-ok\"\n[plans.cheap]\nagent = \"claude-ok\"\nmax_concurrency = 2\n[plans.api]\nagent = \"claude-429\"\n[classes]\nmechanical = [\"sub\", \"cheap\", \"api\"]\n",
    );
    add(&env, &dir, "rename", &["--class", "mechanical"]);
    add(&env, &dir, "pinned", &["--agent", "claude-429"]);
    env.fleet(
        &dir,
        &["plans", "close", "sub", "--until", "2100-01-01T00:00:00Z"],
    )
    .ok();
    insta::assert_snapshot!(
        "plans_explain_class",
        env.fleet(&dir, &["plans", "explain", "rename"]).ok().stdout
    );
    insta::assert_snapshot!(
        "plans_explain_pinned",
        env.fleet(&dir, &["plans", "explain", "pinned"]).ok().stdout
    );
    let route = json(env.fleet(&dir, &["plans", "explain", "rename", "--json"]));
    assert_eq!(route["decision"]["decision"], "run");
    assert_eq!(route["decision"]["plan"], "cheap");
    // An unknown class is refused when the task is added.
    let refused = env
        .fleet(
            &dir,
            &["task", "add", "x", "--prompt", "p", "--class", "nope"],
        )
        .code(2);
    assert!(
        refused.stderr.contains("no class `nope`"),
        "{}",
        refused.stderr
    );
}

#[test]
fn a_task_over_its_budget_is_parked_with_that_reason_before_a_retry_and_notify_runs() {
    let env = Env::new();
    let notified = env.path().join("runs/notified.json");
    let dir = project(
        &env,
        &format!(
            "max_cost_usd = 0.1\nnotify = [\"sh\", \"-c\", \"cat >> {}\"]\n\n[plans.p]\nagent = \"claude-costly\"\n",
            notified.display()
        ),
    );
    // failed-max-turns.json reports 1200 tokens and $0.0831 a run.
    add(&env, &dir, "tokens", &["--max-tokens", "1000"]);
    add(&env, &dir, "dollars", &[]);
    drain_once(&env, &dir, &["--max", "2"]);
    let tokens = show(&env, &dir, "tokens", &[]);
    assert_eq!(tokens["state"], "parked", "{tokens:#}");
    assert_eq!(runs(&tokens).len(), 1);
    let why = tokens["parked_why"].as_str().unwrap();
    assert!(why.contains("1200 tokens") && why.contains("1000"), "{why}");
    // The text says the same: the budget, why it is parked, what the run used.
    let shown = env.fleet(&dir, &["task", "show", "tokens"]).ok();
    assert!(
        shown.stdout.contains("  budget 1000 tokens\n"),
        "{}",
        shown.stdout
    );
    assert!(
        shown.stdout.contains(&format!("  parked: {why}\n")),
        "{}",
        shown.stdout
    );
    assert!(
        shown.stdout.contains("    used 300 in, 900 out, $0.08\n"),
        "{}",
        shown.stdout
    );
    // The [drain] default: under it after one run, over it after the second.
    let dollars = show(&env, &dir, "dollars", &[]);
    assert_eq!(dollars["state"], "queued", "{dollars:#}");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    drain_once(&env, &dir, &[]);
    let dollars = show(&env, &dir, "dollars", &[]);
    assert_eq!(dollars["state"], "parked", "{dollars:#}");
    assert!(
        dollars["parked_why"].as_str().unwrap().contains("$0.1662"),
        "{dollars:#}"
    );
    let text = std::fs::read_to_string(&notified).unwrap();
    assert_eq!(text.matches("\"event\": \"parked\"").count(), 2, "{text}");
    assert!(text.contains("over its budget"), "{text}");
}

#[test]
fn a_plan_closed_by_a_drainer_in_one_clone_is_closed_in_another_through_the_remote() {
    let env = Env::new();
    let seed = project(&env, TWO_PLANS);
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["a", "b"]);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    add(&env, &a, "far", &["--remote", "origin"]);
    let first = drain_once(&env, &a, &["--remote", "origin"]);
    assert_eq!(first["runs"][0]["plan"], "a", "{first:#}");
    assert_eq!(first["runs"][0]["outcome"], "limited", "{first:#}");
    // The remote holds the plan's ref, and clone b sees plan a closed.
    env.git(&remote, &["rev-parse", "--verify", "refs/fleet/plans/a"]);
    let seen = plans(&env, &b, &["--remote", "origin"]);
    assert_eq!(seen["a"]["open"], false, "{seen:?}");
    assert_eq!(seen["a"]["state"]["until"], RESET_2100);
    // b's drainer routes the task past the closed plan.
    let second = drain_once(&env, &b, &["--remote", "origin"]);
    assert_eq!(second["runs"][0]["plan"], "b", "{second:#}");
    assert_eq!(second["runs"][0]["outcome"], "succeeded", "{second:#}");
    assert_eq!(
        show(&env, &a, "far", &["--remote", "origin"])["state"],
        "succeeded"
    );
}

/// Lanes by branch, with their state.
fn lane_state(env: &Env, dir: &Path, branch: &str) -> String {
    lane_states(env, dir)
        .into_iter()
        .find(|(b, _)| b == branch)
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no lane {branch}: {:?}", lane_states(env, dir)))
}

#[test]
fn a_lane_land_finds_conflicted_comes_back_as_a_follow_up_task_in_its_worktree_and_lands_after_it()
{
    let env = Env::new();
    let dir = project(&env, "on_conflict = \"task\"\n");
    add(&env, &dir, "feat", &["--agent", "lander"]);
    let first = drain_once(&env, &dir, &[]);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    let worktree = first["runs"][0]["worktree"].as_str().unwrap().to_string();
    // The target moves on with its own c.txt: the lane conflicts.
    env.commit_file(&dir, "c.txt", "main\n", "main's c.txt");
    env.fleet(&dir, &["land", "--all", "--yes"]).code(1);
    assert_eq!(lane_state(&env, &dir, &branch), "conflicted");
    // A dependant waits for feat's lane to land, through its follow-up.
    add(
        &env,
        &dir,
        "next",
        &["--agent", "lander", "--after", "feat"],
    );

    let second = drain_once(&env, &dir, &[]);
    let run = &second["runs"][0];
    let name = run["task"].as_str().unwrap().to_string();
    assert!(name.starts_with("feat-conflict-"), "{second:#}");
    assert_eq!(run["outcome"], "succeeded", "{second:#}");
    // It continued the lane: same branch, same worktree.
    assert_eq!(run["branch"], branch.as_str());
    assert_eq!(run["worktree"], worktree.as_str());
    let task = show(&env, &dir, &name, &[]);
    assert_eq!(task["continues"]["branch"], branch.as_str(), "{task:#}");
    assert_eq!(task["continues"]["of"], "feat");
    let plan = std::fs::read_to_string(env.path().join(format!("runs/plan-{name}"))).unwrap();
    assert!(plan.contains("- c.txt"), "{plan}");
    assert_eq!(lane_state(&env, &dir, &branch), "ready");
    // Another pass makes no second follow-up for the same conflict.
    let third = drain_once(&env, &dir, &[]);
    assert_eq!(third["runs"], serde_json::json!([]), "{third:#}");

    env.fleet(&dir, &["land", "--all", "--yes"]).ok();
    assert_eq!(lane_state(&env, &dir, &branch), "landed");
    assert_eq!(env.git(&dir, &["show", "main:c.txt"]), "both");
    let fourth = drain_once(&env, &dir, &[]);
    assert_eq!(fourth["runs"][0]["task"], "next", "{fourth:#}");
}

#[test]
fn a_lane_red_at_the_gate_comes_back_as_a_follow_up_task_carrying_the_log_and_lands_after_it() {
    let env = Env::new();
    let dir = project(&env, "on_red = \"task\"\n");
    add(&env, &dir, "red", &["--agent", "lander"]);
    let first = drain_once(&env, &dir, &[]);
    assert_eq!(first["runs"][0]["outcome"], "succeeded", "{first:#}");
    let branch = first["runs"][0]["branch"].as_str().unwrap().to_string();
    env.fleet(&dir, &["land", "--all", "--yes"]).code(1);
    assert_eq!(lane_state(&env, &dir, &branch), "failed");

    let second = drain_once(&env, &dir, &[]);
    let run = &second["runs"][0];
    let name = run["task"].as_str().unwrap().to_string();
    assert!(name.starts_with("red-red-"), "{second:#}");
    assert_eq!(run["outcome"], "succeeded", "{second:#}");
    assert_eq!(run["branch"], branch.as_str());
    let plan = std::fs::read_to_string(env.path().join(format!("runs/plan-{name}"))).unwrap();
    assert!(plan.contains("The gate log ("), "{plan}");
    assert_eq!(lane_state(&env, &dir, &branch), "ready");
    env.fleet(&dir, &["land", "--all", "--yes"]).ok();
    assert_eq!(lane_state(&env, &dir, &branch), "landed");
    env.git_cmd(&dir, &["cat-file", "-e", "main:bad.txt"])
        .run()
        .code(128);
}
