//! `fleet gate`, the CI merge-gate step, on real candidates: the lint over added lines,
//! protected paths, and the base's gate commands (never the candidate's).

use std::path::{Path, PathBuf};

use crate::common::{Env, write};

/// A repository whose `main` has a gate, and a candidate branch checked out.
fn candidate(env: &Env, gate: &str) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("fleet.toml", gate),
            (
                "legacy.py",
                "import subprocess\nsubprocess.run(['claude'])  # fleet: allow(agent-spawn-without-group) old wrapper, replaced next quarter\n",
            ),
            ("old.py", "import subprocess\nsubprocess.run(['codex'])\n"),
        ],
    );
    env.git(&repo, &["switch", "-q", "-c", "candidate"]);
    repo
}

fn gate(env: &Env, repo: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["gate", "--base", "main", "--json"];
    all.extend_from_slice(args);
    let run = env.fleet(repo, &all);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    (run.code, serde_json::from_str(&run.stdout).unwrap())
}

fn failed(summary: &serde_json::Value) -> Vec<String> {
    summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["passed"] == false)
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_clean_candidate_passes_and_old_findings_do_not_count() {
    let env = Env::new();
    let repo = candidate(&env, "[gate]\ncommands = [\"test -f feature.txt\"]\n");
    env.commit_file(&repo, "feature.txt", "x\n", "feature");
    let junit = env.path().join("gate.xml");
    let (code, summary) = gate(&env, &repo, &["--junit", junit.to_str().unwrap()]);
    assert_eq!(code, 0, "{summary:#}");
    assert_eq!(summary["passed"], true);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("failures=\"0\""), "{xml}");
    assert!(
        xml.contains("name=\"command: test -f feature.txt\""),
        "{xml}"
    );
}

#[test]
fn new_spawns_protected_paths_and_red_commands_fail_the_gate() {
    let env = Env::new();
    let repo = candidate(
        &env,
        "[gate]\ncommands = [\"exit 3\", \"touch not-reached\"]\nprotected = [\".ci/**\"]\n",
    );
    write(
        &repo.join("agent.py"),
        "import subprocess\n\ndef go(p):\n    return subprocess.run(['claude', '-p', p], timeout=60)\n",
    );
    write(&repo.join(".ci/run"), "echo hi\n");
    // The candidate tries to weaken its own gate: the base's fleet.toml still rules.
    write(
        &repo.join("fleet.toml"),
        "[gate]\ncommands = [\"true\"]\nprotected = []\n",
    );
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "candidate"]);
    let (code, summary) = gate(&env, &repo, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        failed(&summary),
        [
            "lint",
            "protected",
            "command: exit 3",
            "command: touch not-reached"
        ]
    );
    assert!(!repo.join("not-reached").exists());
    let problems = summary["steps"][0]["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].as_str().unwrap().starts_with("agent.py:4:"));
    // A reviewer's approval clears the protected step only.
    let (_, approved) = gate(&env, &repo, &["--allow-protected"]);
    assert!(!failed(&approved).contains(&"protected".to_string()));
    // Text output says what failed.
    let text = env.fleet(&repo, &["gate", "--base", "main"]).code(1);
    assert!(text.stdout.contains("FAIL lint"), "{}", text.stdout);
    assert!(
        text.stderr.contains("did not pass the gate"),
        "{}",
        text.stderr
    );
}

#[test]
fn a_gate_command_that_times_out_takes_its_helpers_with_it() {
    let env = Env::new();
    let pids = env.path().join("pids");
    let gate_toml = format!(
        "[gate]\ntimeout = \"1s\"\ncommands = [\"sleep 60 & echo $! > {p}; sleep 60\"]\n",
        p = pids.display()
    );
    let repo = candidate(&env, &gate_toml);
    env.commit_file(&repo, "x.txt", "x\n", "x");
    let (code, summary) = gate(&env, &repo, &[]);
    assert_eq!(code, 1);
    assert!(
        summary["steps"][2]["detail"]
            .as_str()
            .unwrap()
            .contains("timed out")
    );
    let pid: i32 = std::fs::read_to_string(&pids)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The background helper is gone (or a zombie about to be reaped by init).
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let alive = state
        .rsplit(')')
        .next()
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|s| s != "Z" && s != "X");
    assert!(!alive, "helper {pid} survived the gate's timeout: {state}");
}

#[test]
fn without_a_base_the_target_decides_and_usage_errors_exit_2() {
    let env = Env::new();
    let repo = candidate(&env, "");
    env.commit_file(&repo, "x.txt", "x\n", "x");
    let run = env.fleet(&repo, &["gate", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    env.fleet(&repo, &["gate", "--base", "nope"]).code(2);
    write(&repo.join("fleet.toml"), "[lanes]\ntarget = \"release\"\n");
    env.fleet(&repo, &["gate"]).code(2);
}
