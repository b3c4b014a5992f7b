//! `fleet report` after a drained and landed day with fake agents: every task's fate,
//! the landed ones with the commit `fleet verify` lists as verified for their lane,
//! the failed one parked, the one that conflicts conflicted, and totals of runs, tokens and cost the agents reported.

use std::path::{Path, PathBuf};

use crate::common::{Env, write};

/// A fake Claude Code (`--output-format json`): commits a file of its own and reports
/// 10 tokens in, 5 out, one cent.
const CLAUDE: &str = "printf '%s\\n' \"$FLEET_TASK\" > \"$FLEET_TASK.txt\"\ngit add -A\ngit commit -qm \"agent: $FLEET_TASK\"\ncat <<'EOF'\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":2,\"result\":\"Done.\",\"session_id\":\"s\",\"total_cost_usd\":0.01,\"usage\":{\"input_tokens\":10,\"output_tokens\":5},\"api_error_status\":null,\"terminal_reason\":\"completed\",\"stop_reason\":\"end_turn\",\"permission_denials\":[]}\nEOF\n";
const FAIL: &str = "echo 'boom: the frobnicator broke' >&2\nexit 3\n";
/// Rewrites the README, which a person changes on the target too: its lane conflicts.
const CLASH: &str = "echo agent > README\ngit commit -qam 'agent: readme'\n";

/// repo/ with a gate (the README is there) and three profiles: `claude` (the default),
/// `fail` and `clash`.
fn project(env: &Env) -> PathBuf {
    let dir = env.path().join("repo");
    let bin = env.path().join("agents");
    let mut toml = String::from(
        "[gate]\ncommands = [\"test -e README\"]\n[drain]\nagent = \"claude\"\nbackoff = \"1s\"\nbackoff_max = \"1s\"\nclaim_grace = \"60s\"\nstop_timeout = \"1s\"\n",
    );
    for (name, body, result) in [
        ("claude", CLAUDE, "claude-json"),
        ("fail", FAIL, "exit-code"),
        ("clash", CLASH, "exit-code"),
    ] {
        let script = bin.join(format!("{name}.sh"));
        write(&script, &format!("#!/bin/sh\n{body}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        toml.push_str(&format!(
            "\n[agents.{name}]\ncommand = [{:?}]\ntimeout = \"60s\"\nresult = \"{result}\"\n",
            script.display().to_string(),
        ));
    }
    env.repo(&dir, "main", &[("README", "r\n"), ("fleet.toml", &toml)]);
    dir
}

fn json(env: &Env, dir: &Path, args: &[&str]) -> serde_json::Value {
    let run = env.fleet(dir, args);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {args:?}: {}", run.stdout))
}

fn task<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no task {name}: {report:#}"))
}

#[test]
fn report_after_a_drained_and_landed_day_shows_each_task_s_fate_checked_against_verify() {
    let env = Env::new();
    let dir = project(&env);
    for (name, extra) in [
        ("alpha", &[][..]),
        ("beta", &[][..]),
        ("broken", &["--agent", "fail", "--max-attempts", "1"][..]),
        ("clasher", &["--agent", "clash"][..]),
    ] {
        let mut args = vec!["task", "add", name, "--prompt", "do the thing"];
        args.extend_from_slice(extra);
        env.fleet(&dir, &args).ok();
    }
    env.fleet(&dir, &["drain", "--once", "--max", "4", "--json"])
        .ok();
    // A person changes the README on the target meanwhile: the clasher's lane
    // conflicts, the others land.
    env.commit_file(&dir, "README", "human\n", "human: readme");
    env.fleet(&dir, &["land", "--all", "--yes"]).code(1);

    let report = json(&env, &dir, &["report", "--json"]);
    let verify = json(&env, &dir, &["verify", "--json"]);
    let verified = verify["verified"].as_array().unwrap();
    assert_eq!(verified.len(), 2, "{verify:#}");
    for name in ["alpha", "beta"] {
        let t = task(&report, name);
        assert_eq!(t["state"], "succeeded", "{t:#}");
        assert_eq!(t["fate"], "landed", "{t:#}");
        let lane = &t["lane"];
        assert_eq!(lane["state"], "landed", "{t:#}");
        // The commit it landed as is the one verify vouches for, for that lane.
        let by_verify = verified
            .iter()
            .find(|v| v["branch"] == lane["branch"])
            .unwrap_or_else(|| panic!("verify has no {}: {verify:#}", lane["branch"]));
        assert_eq!(lane["landed_as"], by_verify["id"], "{t:#}");
        assert_eq!(lane["receipt"]["commit"], by_verify["id"], "{t:#}");
        assert_eq!(lane["receipt"]["green"], true, "{t:#}");
        assert_eq!(lane["receipt"]["moved_from"], by_verify["moved_from"]);
        // And it is in the target.
        let id = lane["landed_as"].as_str().unwrap();
        env.git(&dir, &["merge-base", "--is-ancestor", id, "main"]);
        let runs = t["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{t:#}");
        assert_eq!(runs[0]["outcome"], "succeeded");
        assert_eq!(runs[0]["input_tokens"], 10);
        assert_eq!(runs[0]["output_tokens"], 5);
        assert_eq!(runs[0]["cost_usd"], 0.01);
        assert!(runs[0]["duration_s"].as_i64().is_some(), "{t:#}");
        assert_eq!(t["tokens"], 15);
    }
    let broken = task(&report, "broken");
    assert_eq!(broken["fate"], "parked", "{broken:#}");
    assert_eq!(broken["runs"][0]["outcome"], "failed", "{broken:#}");
    assert!(
        broken["runs"][0]["error"]
            .as_str()
            .unwrap()
            .contains("boom"),
        "{broken:#}"
    );
    assert!(broken["lane"]["landed_as"].is_null(), "{broken:#}");
    assert!(broken["tokens"].is_null(), "{broken:#}");
    let clasher = task(&report, "clasher");
    assert_eq!(clasher["state"], "succeeded", "{clasher:#}");
    assert_eq!(clasher["fate"], "conflicted", "{clasher:#}");
    assert_eq!(clasher["lane"]["state"], "conflicted", "{clasher:#}");
    assert_eq!(clasher["lane"]["conflicts"][0], "README", "{clasher:#}");
    assert!(clasher["lane"]["landed_as"].is_null(), "{clasher:#}");
    let totals = &report["totals"];
    assert_eq!(totals["tasks"], 4, "{totals:#}");
    assert_eq!(totals["runs"], 4, "{totals:#}");
    assert_eq!(totals["fates"]["conflicted"], 1, "{totals:#}");
    assert_eq!(totals["fates"]["landed"], 2, "{totals:#}");
    assert_eq!(totals["fates"]["parked"], 1, "{totals:#}");
    assert_eq!(totals["tokens"], 30, "{totals:#}");
    assert!(
        (totals["cost_usd"].as_f64().unwrap() - 0.02).abs() < 1e-9,
        "{totals:#}"
    );

    // The table says the same.
    let text = env.fleet(&dir, &["report"]).ok().stdout;
    let alpha = text.lines().find(|l| l.starts_with("alpha")).unwrap();
    let landed_as = task(&report, "alpha")["lane"]["landed_as"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        alpha.contains("landed") && alpha.contains(&landed_as[..7]) && alpha.contains("green"),
        "{text}"
    );
    assert!(text.contains("broken") && text.contains("parked"), "{text}");
    let clasher = text.lines().find(|l| l.starts_with("clasher")).unwrap();
    assert!(clasher.contains("conflicted: README"), "{text}");
    assert!(
        text.contains("4 tasks, 4 runs: 1 conflicted, 2 landed, 1 parked; 30 tokens, $0.02"),
        "{text}"
    );
}

#[test]
fn report_since_keeps_what_happened_since_then_and_refuses_a_time_it_cannot_read() {
    let env = Env::new();
    let dir = project(&env);
    env.fleet(&dir, &["task", "add", "alpha", "--prompt", "do it"])
        .ok();
    env.fleet(&dir, &["drain", "--once", "--json"]).ok();
    let day = json(&env, &dir, &["report", "--since", "1d", "--json"]);
    assert_eq!(day["totals"]["tasks"], 1, "{day:#}");
    assert_eq!(task(&day, "alpha")["fate"], "ready", "{day:#}");
    // A time to come is refused: an empty report would say no task ran.
    let future = env
        .fleet(&dir, &["report", "--since", "2999-01-01T00:00:00Z"])
        .code(2);
    assert!(
        future.stderr.contains("is still to come"),
        "{}",
        future.stderr
    );
    let bad = env.fleet(&dir, &["report", "--since", "lately"]).code(2);
    assert!(
        bad.stderr.contains("--since") && bad.stderr.contains("lately"),
        "{}",
        bad.stderr
    );
}
