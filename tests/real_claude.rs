//! The real Claude Code CLI, driven offline by the scripted API of `common::anthropic`
//! on loopback, through `fleet run` and `fleet drain`: it commits through its Bash tool
//! in an agent worktree, a 429 becomes the document a supervisor classifies, a hung
//! claude with an MCP helper leaves no process after a timeout or a drainer's
//! SIGKILL, and three drained tasks of a project with a nested repository all land. The documents it
//! prints for success, 429, 529 and 500 are pinned in tests/data/agent-output/claude/
//! (`FLEET_CAPTURE_FIXTURES=1` writes them again). Each test says SKIPPED loudly when
//! there is no CLI.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::common::anthropic::{Api, Reply, claude_env};
use crate::common::assert::lane_states;
use crate::common::claude::claude;
use crate::common::drain::through_a_bare_remote;
use crate::common::procs::{live, members, read_pid, stat_fields};
use crate::common::{Cmd, Env, Run};

/// `fleet run [fleet_args] -- claude -p PROMPT --output-format json
/// --permission-mode bypassPermissions [extra]` in `dir`, pointed at `api`, with a
/// HOME of its own.
fn fleet_run_claude(
    env: &Env,
    claude: &Path,
    api: &Api,
    dir: &Path,
    fleet_args: &[&str],
    prompt: &str,
    extra: &[&str],
) -> Cmd {
    static HOMES: AtomicUsize = AtomicUsize::new(0);
    let mut args = vec!["run"];
    args.extend_from_slice(fleet_args);
    args.extend_from_slice(&[
        "--",
        claude.to_str().unwrap(),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
    ]);
    args.extend_from_slice(extra);
    let home = env.path().join(format!(
        "claude-home-{}",
        HOMES.fetch_add(1, Ordering::SeqCst)
    ));
    let mut cmd = env.fleet_cmd(dir, &args);
    for (key, value) in claude_env(&home, api.port()) {
        cmd = cmd.env(&key, value);
    }
    cmd
}

/// The one JSON document claude printed on stdout.
fn document(run: &Run) -> Value {
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "no JSON document from claude ({e})\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        )
    })
}

#[test]
fn claude_under_fleet_run_commits_a_file_in_its_worktree_through_its_bash_tool() {
    let Some(claude) = claude(
        "real_claude::claude_under_fleet_run_commits_a_file_in_its_worktree_through_its_bash_tool",
    ) else {
        return;
    };
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    let wt = env.agent(&repo, "a");
    let api = Api::start();
    api.script(
        "task-commit",
        vec![
            Reply::bash(
                "printf 'hello\\n' > hello.txt && git add hello.txt && git commit -qm 'add hello'",
            ),
            Reply::text("committed hello.txt"),
        ],
    );
    let run = fleet_run_claude(
        &env,
        &claude,
        &api,
        &wt,
        &["--timeout", "300s"],
        "task-commit: add hello.txt and commit it",
        &[],
    )
    .run();
    let doc = document(&run);
    assert_eq!(run.code, 0, "{doc:#}\n{}", run.stderr);
    assert_eq!(doc["is_error"], false, "{doc:#}");
    assert_eq!(doc["terminal_reason"], "completed", "{doc:#}");
    assert_eq!(doc["result"], "committed hello.txt", "{doc:#}");
    assert_eq!(env.git(&wt, &["show", "HEAD:hello.txt"]), "hello");
    assert_eq!(
        env.git(&repo, &["log", "-1", "--format=%s", "fleet/a"]),
        "add hello",
        "the commit is on the agent's branch"
    );
    assert_eq!(
        env.git(&repo, &["rev-list", "--count", "main..fleet/a"]),
        "1"
    );
    assert!(
        env.git(&repo, &["status", "--porcelain"]).is_empty(),
        "the shared checkout is untouched"
    );
    for r in api.requests() {
        eprintln!(
            "{} {} conn {} {:?}",
            r.method, r.path, r.connection, r.headers
        );
    }
    let turns = api.turns("task-commit");
    assert_eq!(turns.len(), 2, "one turn per scripted reply");
    assert_eq!(turns[1].tool_results(), 1, "the command's output came back");
}

#[test]
fn claude_rate_limited_with_one_retry_reports_is_error_and_api_error_status_429() {
    let Some(claude) = claude(
        "real_claude::claude_rate_limited_with_one_retry_reports_is_error_and_api_error_status_429",
    ) else {
        return;
    };
    let env = Env::new();
    let dir = env.path();
    let api = Api::start();
    api.script("task-limited", vec![Reply::rate_limited()]);
    let run = fleet_run_claude(
        &env,
        &claude,
        &api,
        &dir,
        &["--timeout", "300s"],
        "task-limited: do anything",
        &[],
    )
    .run();
    let doc = document(&run);
    assert_eq!(run.code, 1, "{doc:#}\n{}", run.stderr);
    assert_eq!(doc["is_error"], true, "{doc:#}");
    assert_eq!(doc["api_error_status"], 429, "{doc:#}");
    // Neither subtype nor (in 2.1.197) terminal_reason tells this failure: a
    // classifier reads is_error and api_error_status.
    assert_eq!(doc["subtype"], "success", "{doc:#}");
    let result = doc["result"].as_str().unwrap();
    assert!(
        result.starts_with("API Error: Request rejected (429)"),
        "{result}"
    );
    assert_eq!(
        api.turns("task-limited").len(),
        2,
        "CLAUDE_CODE_MAX_RETRIES=1: the request and one retry"
    );
}

/// The server itself, no CLI needed: two requests pipelined on one connection, the
/// first with a chunked body, the second by `Content-Length`, each answered in turn
/// with a `Content-Length` the client can frame the next answer by.
#[test]
fn scripted_api_answers_chunked_and_pipelined_requests_on_one_kept_alive_connection() {
    use std::io::{BufRead, BufReader, Read, Write};
    let api = Api::start();
    api.script(
        "pipelined",
        vec![Reply::bash("true"), Reply::text("second")],
    );
    let first = serde_json::json!({
        "model": "m", "stream": true, "tools": [{"name": "Bash"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "pipelined one"}]}],
    })
    .to_string();
    let second = serde_json::json!({
        "model": "m", "stream": false, "tools": [{"name": "Bash"}],
        "messages": [
            {"role": "user", "content": "pipelined one"},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": ""}]},
        ],
    })
    .to_string();
    let (a, b) = first.split_at(first.len() / 2);
    let mut wire = format!(
        "POST /v1/messages?beta=true HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n\
         {:x}\r\n{a}\r\n{:x};ext=1\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    wire += &format!(
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{second}",
        second.len()
    );
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", api.port())).unwrap();
    stream.write_all(wire.as_bytes()).unwrap();
    let mut input = BufReader::new(stream);
    let mut answers = Vec::new();
    for _ in 0..2 {
        let mut status = String::new();
        input.read_line(&mut status).unwrap();
        let mut length = 0;
        loop {
            let mut header = String::new();
            input.read_line(&mut header).unwrap();
            if header.trim().is_empty() {
                break;
            }
            if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        input.read_exact(&mut body).unwrap();
        answers.push((status.trim().to_string(), String::from_utf8(body).unwrap()));
    }
    assert_eq!(answers[0].0, "HTTP/1.1 200 OK");
    let events: Vec<&str> = answers[0]
        .1
        .lines()
        .filter_map(|l| l.strip_prefix("event: "))
        .collect();
    assert_eq!(
        events,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert!(
        answers[0].1.contains(r#""stop_reason":"tool_use""#),
        "{}",
        answers[0].1
    );
    assert!(
        answers[0].1.contains(r#"\"command\":\"true\""#),
        "{}",
        answers[0].1
    );
    let doc: Value = serde_json::from_str(&answers[1].1).unwrap();
    assert_eq!(doc["content"][0]["text"], "second", "{doc}");
    assert_eq!(doc["stop_reason"], "end_turn");
    let turns = api.turns("pipelined");
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0].body["model"], "m", "the chunked body was decoded");
    assert_eq!(turns[0].connection, turns[1].connection);
}

/// The group (= pgid) of a live process.
fn group_of(pid: i32) -> i32 {
    stat_fields(pid)
        .and_then(|f| f.get(2)?.parse().ok())
        .unwrap_or_else(|| panic!("no process {pid}"))
}

/// Kills what is left of a group when a test ends, so a failing test leaves no orphans.
struct Reaper(i32);

impl Drop for Reaper {
    fn drop(&mut self) {
        if !members(self.0).is_empty() {
            // SAFETY: kill(2) of a negative pid signals that group; no memory involved.
            unsafe { libc::kill(-self.0, libc::SIGKILL) };
        }
    }
}

/// An MCP config in `dir` whose one stdio server writes its pid to `pid_file` and
/// sleeps: a helper that does not exit when its stdin closes.
fn mcp_helper(dir: &Path, pid_file: &Path) -> PathBuf {
    let helper = format!("echo $$ > {}; exec sleep 1000", pid_file.display());
    let config = serde_json::json!({
        "mcpServers": {"helper": {"command": "sh", "args": ["-c", helper]}}
    });
    let path = dir.join("mcp.json");
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

#[test]
fn claude_hung_on_the_api_with_an_mcp_helper_leaves_no_process_after_fleet_run_timeout() {
    let Some(claude) = claude(
        "real_claude::claude_hung_on_the_api_with_an_mcp_helper_leaves_no_process_after_fleet_run_timeout",
    ) else {
        return;
    };
    let env = Env::new();
    let dir = env.path();
    let pid_file = dir.join("helper-pid");
    let mcp = mcp_helper(&dir, &pid_file);
    let api = Api::start();
    api.script("task-hang", vec![Reply::Hang]);
    let child = fleet_run_claude(
        &env,
        &claude,
        &api,
        &dir,
        &["--timeout", "15s", "--grace", "1s"],
        "task-hang: wait forever",
        &["--mcp-config", mcp.to_str().unwrap()],
    )
    .spawn();
    let helper = read_pid(&pid_file);
    let pgid = group_of(helper);
    let _reaper = Reaper(pgid);
    let run = Env::wait(child);
    assert_eq!(run.code, 124, "timed out\n{}", run.stderr);
    assert_eq!(run.stdout, "", "a killed claude prints no document");
    assert_eq!(
        api.turns("task-hang").len(),
        1,
        "claude was waiting on the API when it was killed"
    );
    assert!(!live(helper), "the MCP helper {helper} survived");
    assert_eq!(members(pgid), Vec::<i32>::new(), "group {pgid} left");
}

/// The four documents pinned in tests/data/agent-output/claude/real-CASE.json, each
/// case named for the verdict a classifier must give it (tests/agent_output.rs reads
/// the verdict from the name).
const FIXTURE_CASES: [&str; 4] = ["success", "limited-429", "overloaded-529", "failed-500"];

/// What the API answers to every request of a fixture case's run.
fn fixture_reply(case: &str) -> Reply {
    match case {
        "success" => Reply::text("All done."),
        "limited-429" => Reply::rate_limited(),
        "overloaded-529" => Reply::overloaded(),
        _ => Reply::internal_error(),
    }
}

/// The keys a classifier of claude's documents relies on.
const CLASSIFIER_KEYS: [&str; 4] = ["is_error", "api_error_status", "terminal_reason", "subtype"];

/// `doc` with what changes from run to run made constant: ids, times, costs.
/// The scripted API's port, named in the CLI's advice on 5xx errors, is masked too.
fn masked(doc: &Value) -> Value {
    static LOOPBACK: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"127\.0\.0\.1:[0-9]+").unwrap());
    match doc {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| {
                    let value = if key == "session_id" || key == "uuid" {
                        Value::from("00000000-0000-0000-0000-000000000000")
                    } else if key.starts_with("duration_")
                        || key.starts_with("ttft")
                        || key.ends_with("_ms")
                        || key.to_ascii_lowercase().contains("cost")
                    {
                        Value::from(0)
                    } else {
                        masked(value)
                    };
                    let value = match value {
                        Value::String(text) => {
                            Value::from(LOOPBACK.replace_all(&text, "127.0.0.1:PORT").into_owned())
                        }
                        other => other,
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked).collect()),
        other => other.clone(),
    }
}

/// The CLI's own words at the start of `result`, what a classifier matches: up to the
/// first ` · ` (the API's message follows it on a 429) or `. ` (advice follows it on a
/// 5xx), e.g. `API Error: Request rejected (429)`, `API Error: 529 Overloaded`.
fn result_prefix(doc: &Value) -> String {
    let result = doc["result"].as_str().unwrap_or("");
    let end = [" · ", ". "]
        .iter()
        .filter_map(|sep| result.find(sep))
        .min()
        .unwrap_or(result.len());
    result[..end].to_string()
}

fn fixture_path(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agent-output/claude")
        .join(format!("real-{case}.json"))
}

/// Each case run once against the real CLI, in parallel: its masked document.
fn real_documents(claude: &Path) -> Vec<(&'static str, Value)> {
    let env = Env::new();
    let api = Api::start();
    for case in FIXTURE_CASES {
        api.script(&format!("fixture-{case}"), vec![fixture_reply(case)]);
    }
    std::thread::scope(|scope| {
        let runs: Vec<_> = FIXTURE_CASES
            .iter()
            .map(|case| {
                let dir = env.path().join(case);
                std::fs::create_dir_all(&dir).unwrap();
                let prompt = format!("fixture-{case}: say something");
                let cmd = fleet_run_claude(
                    &env,
                    claude,
                    &api,
                    &dir,
                    &["--timeout", "300s"],
                    &prompt,
                    &[],
                );
                (*case, scope.spawn(move || cmd.run()))
            })
            .collect();
        runs.into_iter()
            .map(|(case, run)| (case, masked(&document(&run.join().unwrap()))))
            .collect()
    })
}

/// The pinned documents still say what the real CLI says, in every key a classifier
/// reads. With `FLEET_CAPTURE_FIXTURES=1` it writes them instead (masked, so a capture
/// changes only what the CLI changed).
#[test]
fn claude_documents_for_success_429_529_and_500_match_the_pinned_fixtures() {
    let Some(claude) = claude(
        "real_claude::claude_documents_for_success_429_529_and_500_match_the_pinned_fixtures",
    ) else {
        return;
    };
    let capture = std::env::var_os("FLEET_CAPTURE_FIXTURES").is_some_and(|v| v == "1");
    let mut drift = Vec::new();
    for (case, doc) in real_documents(&claude) {
        let path = fixture_path(case);
        if capture {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let pinned: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (FLEET_CAPTURE_FIXTURES=1 writes it)",
                    path.display()
                )
            }))
            .unwrap();
        for key in CLASSIFIER_KEYS {
            if doc[key] != pinned[key] {
                drift.push(format!(
                    "{case}: {key} is {} (pinned {})",
                    doc[key], pinned[key]
                ));
            }
        }
        if result_prefix(&doc) != result_prefix(&pinned) {
            drift.push(format!(
                "{case}: result starts {:?} (pinned {:?})",
                result_prefix(&doc),
                result_prefix(&pinned)
            ));
        }
    }
    assert!(
        drift.is_empty(),
        "the real CLI's documents drifted from tests/data/agent-output/claude/real-*.json \
         (if on purpose: FLEET_CAPTURE_FIXTURES=1 cargo test ... real_claude::claude_documents):\n{}",
        drift.join("\n")
    );
}

/// The pinned fixtures themselves hold what a classifier needs, CLI or not.
#[test]
fn pinned_claude_fixtures_tell_success_from_each_api_error_by_structure() {
    let read = |case: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(fixture_path(case)).unwrap()).unwrap()
    };
    let success = read("success");
    assert_eq!(success["is_error"], false);
    assert_eq!(success["terminal_reason"], "completed");
    for (case, status) in [
        ("limited-429", 429),
        ("overloaded-529", 529),
        ("failed-500", 500),
    ] {
        let doc = read(case);
        assert_eq!(doc["is_error"], true, "{case}: {doc:#}");
        assert_eq!(doc["api_error_status"], status, "{case}: {doc:#}");
        assert_eq!(doc["session_id"], "00000000-0000-0000-0000-000000000000");
        assert_eq!(doc["total_cost_usd"], 0);
    }
}

/// `fleet.toml` for a project drained by the real CLI: a profile `claude` (the
/// default agent) pointed at `api` with `home = "isolated"` and the JSON document's
/// classifier, `extra` arguments after the usual ones, a gate, quick back-offs.
fn claude_project_toml(claude: &Path, api: &Api, timeout: &str, extra: &[&str]) -> String {
    let command: Vec<String> = [
        claude.to_str().unwrap(),
        "-p",
        "{prompt}",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect();
    let env: Vec<String> = crate::common::anthropic::claude_api_env(api.port())
        .into_iter()
        .map(|(key, value)| format!("{key} = {}", toml::Value::from(value)))
        .collect();
    format!(
        "[gate]\ncommands = [\"test -e README\"]\n\n\
         [drain]\nagent = \"claude\"\nbackoff = \"1s\"\nbackoff_max = \"1s\"\nstop_timeout = \"1s\"\n\n\
         [agents.claude]\ncommand = {}\nenv = {{ {} }}\nhome = \"isolated\"\n\
         result = \"claude-json\"\ntimeout = \"{timeout}\"\n",
        toml::Value::from(command),
        env.join(", "),
    )
}

/// `fleet.toml` written and committed in `dir`.
fn commit_fleet_toml(env: &Env, dir: &Path, toml: &str) {
    env.commit_file(dir, "fleet.toml", toml, "fleet: drain with the real claude");
}

fn json_of(run: Run) -> Value {
    let run = run.ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// `fleet task show NAME --json`: the task.
fn task_show(env: &Env, dir: &Path, name: &str) -> Value {
    let doc = json_of(env.fleet(dir, &["task", "show", name, "--json"]));
    doc.get("task").cloned().unwrap_or(doc)
}

fn task_runs(task: &Value) -> Vec<Value> {
    task["run"].as_array().cloned().unwrap_or_default()
}

/// Wait (generously: real CLIs on a loaded machine) until `done` holds.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// No agent group record left in `dir`, and `pids` (helpers) all gone.
fn assert_no_process_left(dir: &Path, pids: &[i32]) {
    let groups = dir.join(".git/fleet/groups");
    wait_for("the agents' group records to go", || {
        std::fs::read_dir(&groups).map_or(true, |d| d.count() == 0)
    });
    for &pid in pids {
        wait_for(&format!("process {pid} to die"), || !live(pid));
    }
}

#[test]
fn drain_runs_three_real_claudes_committing_through_bash_in_a_nested_project_and_land_all_lands_them()
 {
    let Some(claude) = claude(
        "real_claude::drain_runs_three_real_claudes_committing_through_bash_in_a_nested_project_and_land_all_lands_them",
    ) else {
        return;
    };
    let env = Env::new();
    let outer = env.outer_with_nested();
    let api = Api::start();
    commit_fleet_toml(
        &env,
        &outer,
        &claude_project_toml(&claude, &api, "300s", &[]),
    );
    let commit = |file: &str| {
        format!("printf '{file}\\n' > {file} && git add {file} && git commit -qm 'add {file}'")
    };
    api.script(
        "real-alpha",
        vec![Reply::bash(&commit("alpha.txt")), Reply::text("alpha done")],
    );
    // Beta commits in the outer repository and in the nested one.
    api.script(
        "real-beta",
        vec![
            Reply::bash(&commit("beta.txt")),
            Reply::bash(&format!("cd cockpit && {}", commit("beta-nested.txt"))),
            Reply::text("beta done"),
        ],
    );
    api.script(
        "real-gamma",
        vec![Reply::bash(&commit("gamma.txt")), Reply::text("gamma done")],
    );
    for name in ["alpha", "beta", "gamma"] {
        let prompt = format!("real-{name}: add {name}.txt and commit it");
        env.fleet(&outer, &["task", "add", name, "--prompt", &prompt])
            .ok();
    }
    let report = json_of(env.fleet(&outer, &["drain", "--once", "--max", "3", "--json"]));
    let ran = report["runs"].as_array().unwrap();
    assert_eq!(ran.len(), 3, "{report:#}");
    assert!(
        ran.iter().all(|r| r["outcome"] == "succeeded"),
        "{report:#}"
    );
    for name in ["alpha", "beta", "gamma"] {
        assert_eq!(task_show(&env, &outer, name)["state"], "succeeded");
        let turns = api.turns(&format!("real-{name}"));
        assert_eq!(turns.len(), if name == "beta" { 3 } else { 2 }, "{name}");
    }
    let lanes = lane_states(&env, &outer);
    assert_eq!(lanes.len(), 3, "{lanes:?}");
    assert!(lanes.iter().all(|(_, s)| s == "ready"), "{lanes:?}");

    env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    let tree = env.git(&outer, &["ls-tree", "--name-only", "main"]);
    for file in ["alpha.txt", "beta.txt", "gamma.txt"] {
        assert!(tree.lines().any(|l| l == file), "{file} not landed: {tree}");
    }
    assert_eq!(
        env.git(&outer.join("cockpit"), &["show", "main:beta-nested.txt"]),
        "beta-nested.txt",
        "the nested repository's commit landed on its own main"
    );
    let lanes = lane_states(&env, &outer);
    assert!(lanes.iter().all(|(_, s)| s == "landed"), "{lanes:?}");
    assert!(
        env.git(&outer, &["status", "--porcelain"]).is_empty(),
        "the shared checkout is clean"
    );
    assert_no_process_left(&outer, &[]);
}

#[test]
fn drain_times_out_a_real_claude_hung_on_the_api_with_an_mcp_helper_and_leaves_no_process() {
    let Some(claude) = claude(
        "real_claude::drain_times_out_a_real_claude_hung_on_the_api_with_an_mcp_helper_and_leaves_no_process",
    ) else {
        return;
    };
    let env = Env::new();
    let dir = env.path().join("repo");
    env.repo(&dir, "main", &[("README", "r\n")]);
    let pid_file = env.path().join("helper-pid");
    let mcp = mcp_helper(&env.path(), &pid_file);
    let api = Api::start();
    let toml = claude_project_toml(
        &claude,
        &api,
        "15s",
        &["--mcp-config", mcp.to_str().unwrap()],
    );
    commit_fleet_toml(&env, &dir, &toml);
    api.script("real-hang", vec![Reply::Hang]);
    env.fleet(
        &dir,
        &[
            "task",
            "add",
            "stuck",
            "--prompt",
            "real-hang: wait",
            "--max-attempts",
            "1",
        ],
    )
    .ok();
    let drainer = env
        .fleet_cmd(&dir, &["drain", "--once", "--max", "1", "--json"])
        .spawn();
    let helper = read_pid(&pid_file);
    let pgid = group_of(helper);
    let _reaper = Reaper(pgid);
    let report: Value = serde_json::from_str(&Env::wait(drainer).ok().stdout).unwrap();
    assert_eq!(report["runs"][0]["outcome"], "timed_out", "{report:#}");
    assert_eq!(
        api.turns("real-hang").len(),
        1,
        "claude was waiting on the API"
    );
    let task = task_show(&env, &dir, "stuck");
    assert_eq!(task["state"], "parked", "{task:#}");
    assert_eq!(task_runs(&task)[0]["outcome"], "timed_out", "{task:#}");
    assert_no_process_left(&dir, &[helper, pgid]);
    assert_eq!(members(pgid), Vec::<i32>::new(), "group {pgid} left");
}

#[test]
fn a_drainer_killed_with_sigkill_leaves_no_real_claude_or_mcp_helper_and_the_next_one_reruns_the_task()
 {
    let Some(claude) = claude(
        "real_claude::a_drainer_killed_with_sigkill_leaves_no_real_claude_or_mcp_helper_and_the_next_one_reruns_the_task",
    ) else {
        return;
    };
    let env = Env::new();
    let dir = env.path().join("repo");
    env.repo(&dir, "main", &[("README", "r\n")]);
    let pid_file = env.path().join("helper-pid");
    let mcp = mcp_helper(&env.path(), &pid_file);
    let api = Api::start();
    let toml = claude_project_toml(
        &claude,
        &api,
        "300s",
        &["--mcp-config", mcp.to_str().unwrap()],
    );
    commit_fleet_toml(&env, &dir, &toml);
    api.script("real-killed", vec![Reply::Hang]);
    env.fleet(
        &dir,
        &["task", "add", "again", "--prompt", "real-killed: commit"],
    )
    .ok();
    let mut drainer = env.fleet_cmd(&dir, &["drain"]).spawn();
    let helper = read_pid(&pid_file);
    let pgid = group_of(helper);
    let _reaper = Reaper(pgid);
    wait_for("claude to wait on the API", || {
        api.turns("real-killed").len() == 1
    });
    wait_for("the task to run", || {
        task_show(&env, &dir, "again")["state"] == "running"
    });
    drainer.kill().unwrap();
    drainer.wait().unwrap();
    assert_no_process_left(&dir, &[helper, pgid]);
    assert_eq!(members(pgid), Vec::<i32>::new(), "group {pgid} left");

    // Nothing lost: the next drainer takes the task back and its rerun commits.
    std::fs::remove_file(&pid_file).unwrap();
    api.script(
        "real-killed",
        vec![
            Reply::bash("echo again > again.txt && git add again.txt && git commit -qm again"),
            Reply::text("done"),
        ],
    );
    let report = json_of(env.fleet(&dir, &["drain", "--once", "--json"]));
    assert_eq!(report["taken_back"][0]["task"], "again", "{report:#}");
    let task = task_show(&env, &dir, "again");
    assert_eq!(task["state"], "succeeded", "{task:#}");
    let all = task_runs(&task);
    assert_eq!(all.len(), 2, "{task:#}");
    assert_eq!(all[0]["outcome"], "crashed");
    assert_eq!(all[1]["outcome"], "succeeded");
    let rerun_helper = read_pid(&pid_file);
    assert_no_process_left(&dir, &[rerun_helper]);
}

/// 2100-01-01T00:00:00Z: the reset plan A's 429 names in the `|<epoch>` form.
const PLAN_A_RESET: i64 = 4_102_444_800;

/// The key of the task both plans' servers script.
const PLAN_TASK_KEY: &str = "real-plan-roll";

/// Server A of the plan tests: every turn of the task is a 429 `rate_limit_error`
/// whose message is `message` (a reset in a form the classifier reads).
fn plan_a_api(message: &str) -> Api {
    let api = Api::start();
    api.script(
        PLAN_TASK_KEY,
        vec![Reply::error(429, "rate_limit_error", message)],
    );
    api
}

/// Server B of the plan tests: the task commits through Bash, then says so.
fn plan_b_api() -> Api {
    let api = Api::start();
    api.script(
        PLAN_TASK_KEY,
        vec![
            Reply::bash("echo rolled > rolled.txt && git add rolled.txt && git commit -qm rolled"),
            Reply::text("rolled over to plan b"),
        ],
    );
    api
}

/// [`claude_project_toml`] with two plans on the one `claude` profile, each pointing
/// it at its own endpoint: `a` (tried first) at `api_a`, `b` at `api_b`.
fn two_plan_toml(claude: &Path, api_a: &Api, api_b: &Api) -> String {
    let url = |api: &Api| format!("http://127.0.0.1:{}", api.port());
    claude_project_toml(claude, api_b, "300s", &[])
        + &format!(
            "\n[plans.a]\nagent = \"claude\"\norder = 1\nenv = {{ ANTHROPIC_BASE_URL = {:?} }}\n\
             \n[plans.b]\nagent = \"claude\"\norder = 2\nenv = {{ ANTHROPIC_BASE_URL = {:?} }}\n",
            url(api_a),
            url(api_b),
        )
}

/// `fleet plans --json [extra]` in `dir`, by plan name.
fn plans_by_name(env: &Env, dir: &Path, extra: &[&str]) -> serde_json::Map<String, Value> {
    let mut args = vec!["plans", "--json"];
    args.extend_from_slice(extra);
    json_of(env.fleet(dir, &args))
        .as_array()
        .unwrap_or_else(|| panic!("fleet plans --json: not a list"))
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p.clone()))
        .collect()
}

/// Plan `a` in `plans` is closed by `run` of the task `task`, until a time `until`
/// accepts; plan `b` is open.
fn assert_plan_a_closed(
    plans: &serde_json::Map<String, Value>,
    run: &Value,
    task: &str,
    until: impl Fn(i64) -> bool,
) {
    assert_eq!(plans["a"]["open"], false, "{plans:#?}");
    let at = plans["a"]["state"]["until"].as_i64();
    assert!(at.is_some_and(until), "until {at:?}: {plans:#?}");
    assert_eq!(plans["a"]["state"]["run"], *run, "{plans:#?}");
    assert_eq!(plans["a"]["state"]["task"], task, "{plans:#?}");
    assert_eq!(plans["b"]["open"], true, "{plans:#?}");
}

/// The real CLI's document of a drained run (its stdout file, named in the report).
fn run_document(run: &Value) -> Value {
    let path = run["stdout"].as_str().unwrap();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{path}: {e}\n{text}"))
}

/// The CLI's `result` on a 429 whose API message is `message`, as 2.1.197 words it.
fn rejected_429(message: &str) -> String {
    format!("API Error: Request rejected (429) · {message}")
}

/// `fleet task add roll` for the plan tests (one attempt: a counted limit would park it).
fn add_roll_task(env: &Env, dir: &Path, extra: &[&str]) {
    let prompt = format!("{PLAN_TASK_KEY}: write rolled.txt and commit it");
    let mut args = vec![
        "task",
        "add",
        "roll",
        "--prompt",
        &prompt,
        "--max-attempts",
        "1",
    ];
    args.extend_from_slice(extra);
    env.fleet(dir, &args).ok();
}

#[test]
fn a_real_claude_429_with_a_reset_closes_plan_a_until_then_and_the_task_runs_on_plan_b_without_using_an_attempt()
 {
    let Some(claude) = claude(
        "real_claude::a_real_claude_429_with_a_reset_closes_plan_a_until_then_and_the_task_runs_on_plan_b_without_using_an_attempt",
    ) else {
        return;
    };
    let env = Env::new();
    let dir = env.path().join("repo");
    env.repo(&dir, "main", &[("README", "r\n")]);
    let message = format!("Claude AI usage limit reached|{PLAN_A_RESET}");
    let (api_a, api_b) = (plan_a_api(&message), plan_b_api());
    commit_fleet_toml(&env, &dir, &two_plan_toml(&claude, &api_a, &api_b));
    add_roll_task(&env, &dir, &[]);

    // Run 1, on plan a: the real CLI's 429 document is a limit, not a failure.
    let first = json_of(env.fleet(&dir, &["drain", "--once", "--json"]));
    let run1 = &first["runs"][0];
    assert_eq!(run1["plan"], "a", "{first:#}");
    assert_eq!(run1["outcome"], "limited", "{first:#}");
    let doc = run_document(run1);
    assert_eq!(doc["is_error"], true, "{doc:#}");
    assert_eq!(doc["api_error_status"], 429, "{doc:#}");
    assert_eq!(doc["result"], rejected_429(&message), "{doc:#}");
    assert_eq!(
        api_a.turns(PLAN_TASK_KEY).len(),
        2,
        "CLAUDE_CODE_MAX_RETRIES=1: the request and one retry, on plan a's server"
    );
    assert!(
        api_b.turns(PLAN_TASK_KEY).is_empty(),
        "run 1 on plan a reached plan b's server"
    );
    let task = task_show(&env, &dir, "roll");
    assert_eq!(task["state"], "queued", "{task:#}");
    assert_eq!(task_runs(&task)[0]["plan"], "a", "{task:#}");
    assert_eq!(task_runs(&task)[0]["outcome"], "limited", "{task:#}");
    assert_eq!(
        task_runs(&task)[0]["free"],
        true,
        "the attempt was not counted"
    );
    let reset = |until: i64| until == PLAN_A_RESET;
    assert_plan_a_closed(&plans_by_name(&env, &dir, &[]), &run1["run"], "roll", reset);
    let stored = env.git(&dir, &["show", "refs/fleet/plans/a:plan.toml"]);
    assert!(
        stored.contains(&format!("until = {PLAN_A_RESET}")),
        "{stored}"
    );

    // Run 2, on plan b's endpoint: it commits, and its lane is ready.
    let second = json_of(env.fleet(&dir, &["drain", "--once", "--json"]));
    let run2 = &second["runs"][0];
    assert_eq!(run2["plan"], "b", "{second:#}");
    assert_eq!(run2["outcome"], "succeeded", "{second:#}");
    assert_eq!(run2["attempt"], 1, "the limited run used no attempt");
    assert_eq!(run_document(run2)["result"], "rolled over to plan b");
    let task = task_show(&env, &dir, "roll");
    assert_eq!(task["state"], "succeeded", "{task:#}");
    assert_eq!(task_runs(&task).len(), 2, "{task:#}");
    let branch = run2["branch"].as_str().unwrap().to_string();
    assert_eq!(
        env.git(&dir, &["show", &format!("{branch}:rolled.txt")]),
        "rolled"
    );
    let lanes = lane_states(&env, &dir);
    assert!(lanes.contains(&(branch, "ready".to_string())), "{lanes:?}");
    assert_eq!(api_b.turns(PLAN_TASK_KEY).len(), 2, "bash, then text");
    assert_eq!(
        api_a.turns(PLAN_TASK_KEY).len(),
        2,
        "plan a's server was asked again after run 1"
    );
    assert_plan_a_closed(&plans_by_name(&env, &dir, &[]), &run1["run"], "roll", reset);
}

/// The next 10:40 pm after `now` in America/Sao_Paulo, as the classifier reads
/// `resets 10:40pm (America/Sao_Paulo)`; `None` (after a SKIPPED line) without that
/// zone in the system's tz database.
fn next_sao_paulo_1040pm(now: i64, test: &str) -> Option<i64> {
    let tz = match jiff::tz::db().get("America/Sao_Paulo") {
        Ok(tz) => tz,
        Err(e) => {
            crate::common::claude::skipped(test, &format!("no America/Sao_Paulo zone ({e})"));
            return None;
        }
    };
    let today = jiff::Timestamp::from_second(now)
        .unwrap()
        .to_zoned(tz.clone())
        .date();
    let time = jiff::civil::time(22, 40, 0, 0);
    (0..3)
        .map(|d| {
            today
                .checked_add(jiff::Span::new().days(d))
                .unwrap()
                .to_datetime(time)
                .to_zoned(tz.clone())
                .unwrap()
                .timestamp()
                .as_second()
        })
        .find(|&t| t > now)
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[test]
fn a_plan_a_real_claude_closes_with_a_named_zone_reset_in_one_clone_is_closed_in_the_other_through_the_remote()
 {
    let test = "real_claude::a_plan_a_real_claude_closes_with_a_named_zone_reset_in_one_clone_is_closed_in_the_other_through_the_remote";
    let Some(claude) = claude(test) else {
        return;
    };
    let Some(_) = next_sao_paulo_1040pm(now_secs(), test) else {
        return;
    };
    let env = Env::new();
    let seed = env.path().join("seed");
    env.repo(&seed, "main", &[("README", "r\n")]);
    let message = "You've hit your session limit · resets 10:40pm (America/Sao_Paulo)";
    let (api_a, api_b) = (plan_a_api(message), plan_b_api());
    commit_fleet_toml(&env, &seed, &two_plan_toml(&claude, &api_a, &api_b));
    let (remote, clones) = through_a_bare_remote(&env, &seed, &["one", "two"]);
    let (one, two) = (clones[0].clone(), clones[1].clone());
    let origin = ["--remote", "origin"];
    add_roll_task(&env, &one, &origin);

    // A drainer in clone one runs into plan a's limit.
    let before = now_secs();
    let mut args = vec!["drain", "--once", "--json"];
    args.extend_from_slice(&origin);
    let first = json_of(env.fleet(&one, &args));
    let after = now_secs();
    let run1 = &first["runs"][0];
    assert_eq!(run1["plan"], "a", "{first:#}");
    assert_eq!(run1["outcome"], "limited", "{first:#}");
    assert_eq!(run_document(run1)["result"], rejected_429(message));
    // The reset read in the zone the text names: the next 10:40 pm there after the
    // run ended (either end of the run, should it straddle 10:40 pm).
    let expected = [before, after].map(|t| next_sao_paulo_1040pm(t, test).unwrap());
    let reset = |until: i64| expected.contains(&until);
    assert_plan_a_closed(
        &plans_by_name(&env, &one, &origin),
        &run1["run"],
        "roll",
        reset,
    );
    env.git(&remote, &["rev-parse", "--verify", "refs/fleet/plans/a"]);

    // Clone two sees plan a closed, before and after a drainer of its own, which runs
    // the task on plan b and never asks plan a's server.
    let seen = plans_by_name(&env, &two, &origin);
    assert_plan_a_closed(&seen, &run1["run"], "roll", reset);
    let second = json_of(env.fleet(&two, &args));
    let run2 = &second["runs"][0];
    assert_eq!(run2["plan"], "b", "{second:#}");
    assert_eq!(run2["outcome"], "succeeded", "{second:#}");
    assert_eq!(run2["attempt"], 1, "the limited run used no attempt");
    assert_plan_a_closed(
        &plans_by_name(&env, &two, &origin),
        &run1["run"],
        "roll",
        reset,
    );
    assert_eq!(
        api_a.turns(PLAN_TASK_KEY).len(),
        2,
        "only run 1 asked plan a"
    );
    assert_eq!(api_b.turns(PLAN_TASK_KEY).len(), 2, "bash, then text");
    let branch = run2["branch"].as_str().unwrap().to_string();
    // The lane is ready where the drainer keeps lanes: on the remote.
    let lanes = remote_lane_states(&env, &two);
    assert!(lanes.contains(&(branch, "ready".to_string())), "{lanes:?}");
    let mut show = vec!["task", "show", "roll", "--json"];
    show.extend_from_slice(&origin);
    let doc = json_of(env.fleet(&one, &show));
    let task = doc.get("task").cloned().unwrap_or(doc);
    assert_eq!(task["state"], "succeeded", "{task:#}");
    assert_eq!(task_runs(&task)[0]["free"], true, "{task:#}");
    // Clone one's own view, after a fetch, holds the same closed plan.
    assert_plan_a_closed(
        &plans_by_name(&env, &one, &origin),
        &run1["run"],
        "roll",
        reset,
    );
}

/// `fleet status --json --remote origin` in `dir`: the remote's lanes, by branch, with
/// their state.
fn remote_lane_states(env: &Env, dir: &Path) -> Vec<(String, String)> {
    json_of(env.fleet(dir, &["status", "--json", "--remote", "origin"]))
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
