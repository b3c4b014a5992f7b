//! `fleet lint` on real repositories: which lines count as new under `--diff` and
//! `--staged`, exit codes, and files that do not parse.

use std::path::Path;

use crate::common::{Env, write};

const BAD: &str = "import subprocess\n\ndef run(p):\n    subprocess.run([\"claude\", \"-p\", p])\n";

fn lint_json(env: &Env, repo: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["lint", "--json"];
    all.extend_from_slice(args);
    let run = env.fleet(repo, &all);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    (run.code, serde_json::from_str(&run.stdout).unwrap())
}

fn lines(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{}", f["path"].as_str().unwrap(), f["line"]))
        .collect()
}

#[test]
fn diff_reports_only_new_findings_not_renamed_or_moved_ones() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("old.py", BAD), ("keep.py", BAD)]);
    let base = env.git(&repo, &["rev-parse", "HEAD"]);
    // Renamed, with a line added elsewhere in it; the old finding moves with it.
    env.git(&repo, &["mv", "old.py", "renamed.py"]);
    write(&repo.join("renamed.py"), &format!("# header\n{BAD}"));
    // Moved lines: the function goes below a new one.
    write(
        &repo.join("keep.py"),
        "import subprocess\n\ndef other():\n    return 1\n\ndef run(p):\n    subprocess.run([\"claude\", \"-p\", p])\n",
    );
    // A new finding.
    write(
        &repo.join("new.py"),
        "import subprocess\n\n\ndef ask(q):\n    subprocess.run([\"claude\", \"-p\", q])\n",
    );
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "change"]);
    let (code, all) = lint_json(&env, &repo, &[]);
    assert_eq!(code, 1);
    assert_eq!(lines(&all).len(), 3, "{all:#}");
    let (code, new) = lint_json(&env, &repo, &["--diff", &base]);
    assert_eq!(code, 1);
    assert_eq!(lines(&new), ["new.py:5"], "{new:#}");
    // A range works from the objects alone, whatever the working tree holds.
    write(&repo.join("new.py"), "# gone from the working tree\n");
    let (_, range) = lint_json(&env, &repo, &["--diff", &format!("{base}..HEAD")]);
    assert_eq!(lines(&range), ["new.py:5"]);
    let (code, none) = lint_json(&env, &repo, &["--diff", "HEAD"]);
    assert_eq!((code, lines(&none).len()), (0, 0));
}

#[test]
fn staged_reports_only_staged_lines() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("old.py", BAD)]);
    write(&repo.join("staged.py"), BAD);
    env.git(&repo, &["add", "staged.py"]);
    write(&repo.join("unstaged.py"), BAD);
    let (code, staged) = lint_json(&env, &repo, &["--staged"]);
    assert_eq!(code, 1);
    assert_eq!(lines(&staged), ["staged.py:4"]);
}

#[test]
fn exit_codes_paths_and_unparsable_files() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            (
                "clean.py",
                "import subprocess\nsubprocess.run(['git', 'status'])\n",
            ),
            ("broken.rs", "fn main( { Command::new(\"claude\")\n"),
            ("broken.py", "def f(:\n    subprocess.run(['claude'])\n"),
        ],
    );
    let run = env.fleet(&repo, &["lint", "clean.py"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let (_, all) = lint_json(&env, &repo, &[]);
    let errors: Vec<&str> = all["parse_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(errors, ["broken.py", "broken.rs"]);
    // An untracked file named on the command line is linted too.
    write(&repo.join("scratch.py"), BAD);
    let (code, one) = lint_json(&env, &repo, &["scratch.py"]);
    assert_eq!((code, lines(&one)), (1, vec!["scratch.py:4".to_string()]));
    // Usage errors: exit 2.
    env.fleet(&repo, &["lint", "--diff", "no-such-rev"]).code(2);
    env.fleet(&repo, &["lint", "missing.py"]).code(2);
    env.fleet(&repo, &["lint", "--format", "xml"]).code(2);
    // SARIF and text are produced for the same findings.
    let sarif = env
        .fleet(&repo, &["lint", "--format", "sarif", "scratch.py"])
        .code(1);
    let sarif: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 1);
    let text = env.fleet(&repo, &["lint", "scratch.py"]).code(1);
    assert!(text.stdout.contains("scratch.py:4:"), "{}", text.stdout);
}

#[test]
fn spawns_inside_approved_helpers_are_trusted() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            (
                "fleet.toml",
                "[lint]\nhelpers = [\"tools.procs.spawn_group\", \"web.run.spawnGroup\", \"agents::launch\"]\n",
            ),
            (
                "tools/procs.py",
                "import subprocess\n\ndef spawn_group(args):\n    return subprocess.Popen([\"claude\", *args])\n\ndef elsewhere():\n    subprocess.run([\"claude\"])\n",
            ),
            (
                "web/run.js",
                "const cp = require('child_process');\nfunction spawnGroup(args) {\n  return cp.spawn('claude', args);\n}\nconst other = () => cp.spawn('claude', []);\n",
            ),
            (
                "src/agents.rs",
                "use std::process::Command;\npub fn launch() { Command::new(\"claude\").spawn().unwrap(); }\npub fn other() { Command::new(\"claude\").spawn().unwrap(); }\n",
            ),
        ],
    );
    let (code, all) = lint_json(&env, &repo, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        lines(&all),
        ["src/agents.rs:3", "tools/procs.py:7", "web/run.js:5"],
        "{all:#}"
    );
}

/// As a pre-commit hook of `git commit -a`, `--staged` lints what is being committed:
/// git hands the hook a temporary index in `GIT_INDEX_FILE`, which fleet must read.
#[test]
fn staged_in_a_pre_commit_hook_of_commit_all_sees_the_commit() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("app.py", "print('ok')\n")]);
    let hook = repo.join(".git/hooks/pre-commit");
    write(
        &hook,
        &format!(
            "#!/bin/sh\nexec '{}' lint --staged\n",
            env!("CARGO_BIN_EXE_fleet")
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    write(&repo.join("app.py"), BAD);
    let run = env
        .git_cmd(&repo, &["commit", "-qam", "spawn an agent"])
        .run();
    assert_ne!(
        run.code, 0,
        "the hook let the finding through: {}",
        run.stderr
    );
    assert!(run.stderr.contains("app.py"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("ignoring GIT_INDEX_FILE"),
        "{}",
        run.stderr
    );
}

/// Each way of missing half the cleanup (no kill, a leader-only kill, a kill gated on the
/// leader, a call that returns no pid) is told apart: its own message and the fix for it.
#[test]
fn each_missing_half_gets_the_help_for_its_own_shape() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint_corpus");
    let files = [
        "python/both_halves.py",
        "rust/both_halves.rs",
        "javascript/both_halves.js",
        "shell/leader_only_kill.sh",
        "shell/gated_group_kill.sh",
        "shell/session_nobody_kills.sh",
    ];
    let contents: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let name = f.replace('/', "_");
            (name, std::fs::read_to_string(corpus.join(f)).unwrap())
        })
        .collect();
    let pairs: Vec<(&str, &str)> = contents
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &pairs);
    let (code, report) = lint_json(&env, &repo, &[]);
    assert_eq!(code, 1);
    let found = report["findings"].as_array().unwrap();
    let help_at = |path: &str, needle: &str| -> Vec<String> {
        let text = &contents.iter().find(|(n, _)| n == path).unwrap().1;
        let line = text.lines().position(|l| l.contains(needle)).unwrap() + 1;
        found
            .iter()
            .filter(|f| f["path"] == path && f["line"] == line)
            .map(|f| format!("{} | {}", f["message"], f["help"]))
            .collect()
    };
    let expect = [
        (
            "python_both_halves.py",
            "def leader_only",
            "only the leader is killed",
        ),
        (
            "python_both_halves.py",
            "start_new_session=True, timeout=600",
            "returns no pid",
        ),
        ("python_both_halves.py", "[\"aider\"", "gated on the leader"),
        (
            "python_both_halves.py",
            "[\"goose\"",
            "nothing kills the group",
        ),
        ("python_both_halves.py", "[\"crush\"", "leader-only kill"),
        (
            "rust_both_halves.rs",
            "fn leader_only",
            "only the leader is killed",
        ),
        (
            "rust_both_halves.rs",
            "tokio::process::Command::new(\"codex\")",
            "kill_on_drop",
        ),
        ("rust_both_halves.rs", "fn gated", "gated on the leader"),
        ("rust_both_halves.rs", "(\"amp\")", "return no pid"),
        (
            "rust_both_halves.rs",
            "(\"crush\")",
            "nothing kills the group",
        ),
        (
            "javascript_both_halves.js",
            "('gemini'",
            "only the leader is killed",
        ),
        (
            "javascript_both_halves.js",
            "('aider'",
            "gated on the leader",
        ),
        (
            "javascript_both_halves.js",
            "spawnSync('claude'",
            "returns no pid",
        ),
        (
            "javascript_both_halves.js",
            "('goose'",
            "nothing kills the group",
        ),
        (
            "shell_leader_only_kill.sh",
            "setsid aider",
            "only the leader is killed",
        ),
        (
            "shell_gated_group_kill.sh",
            "setsid opencode",
            "gated on the leader",
        ),
        (
            "shell_session_nobody_kills.sh",
            "setsid goose",
            "nothing kills the group",
        ),
    ];
    for (path, needle, says) in expect {
        // The needle names the function for Rust and Python's leader_only: the spawn is
        // on the next line.
        let mut helps = help_at(path, needle);
        if helps.is_empty() {
            let text = &contents.iter().find(|(n, _)| n == path).unwrap().1;
            let line = text.lines().position(|l| l.contains(needle)).unwrap() + 2;
            helps = found
                .iter()
                .filter(|f| f["path"] == path && f["line"] == line)
                .map(|f| format!("{} | {}", f["message"], f["help"]))
                .collect();
        }
        assert_eq!(helps.len(), 1, "{path} `{needle}`: {helps:?}\n{report:#}");
        assert!(helps[0].contains(says), "{path} `{needle}`: {}", helps[0]);
    }
}
