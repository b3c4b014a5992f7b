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
