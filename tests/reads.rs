//! Snapshots of what people read after a run: the status table and its JSON, the
//! worktree list, land's refusals, the `error:`/`help:` shape, verify's report, doctor's
//! checks, lint's findings and SARIF, the hooks table and preflight's answer.
//! Run-dependent bits are filtered (common/snap.rs); state is still asserted where the
//! other modules do.

use std::path::{Path, PathBuf};

use crate::common::{Env, snap, write, write_stale};

#[test]
fn status_and_worktree_list_read_the_same_run_after_run() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let repo = env.gated_repo("test ! -e red");
    let green = env.agent(&repo, "green");
    env.commit_file(&green, "g.txt", "g\n", "green work");
    let red = env.agent(&repo, "red");
    env.commit_file(&red, "red", "r\n", "breaks the gate");
    env.fleet(&repo, &["track", "--ready", "green", "red"]).ok();
    env.fleet(&repo, &["land", "red", "--yes"]).code(1);
    insta::assert_snapshot!("status", snap::run(&env.fleet(&repo, &["status"])));
    insta::assert_snapshot!(
        "status_json",
        snap::run(&env.fleet(&repo, &["status", "--json"]))
    );
    insta::assert_snapshot!(
        "worktree_list",
        snap::run(&env.fleet(&repo, &["worktree", "list"]))
    );
    insta::assert_snapshot!(
        "worktree_list_json",
        snap::run(&env.fleet(&repo, &["worktree", "list", "--json"]))
    );
}

#[test]
fn land_refusals_read_the_same_run_after_run() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let repo = env.gated_repo("test ! -e red");
    let red = env.agent(&repo, "red");
    env.commit_file(&red, "red", "r\n", "breaks the gate");
    let clash = env.agent(&repo, "clash");
    env.commit_file(&clash, "shared.txt", "lane\n", "lane edit");
    let sneaky = env.agent(&repo, "sneaky");
    env.commit_file(
        &sneaky,
        "fleet.toml",
        "[gate]\ncommands = [\"true\"]\n",
        "weaken",
    );
    env.fleet(&repo, &["track", "--ready", "red", "clash", "sneaky"])
        .ok();
    env.commit_file(&repo, "shared.txt", "target\n", "target edit");
    let old = env.git(&repo, &["rev-parse", "main"]);
    for (name, says) in [
        ("red", "gate failed"),
        ("clash", "conflicts with the target in shared.txt"),
        ("sneaky", "protected path fleet.toml"),
    ] {
        let run = env.refused_and_unchanged(&repo, &["land", name, "--yes"], says, &old);
        insta::assert_snapshot!(format!("land_refused_{name}"), snap::run(&run));
    }
}

#[test]
fn errors_say_error_then_help() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let repo = env.gated_repo("true");
    let run = env.fleet(&repo, &["land", "nope", "--yes"]);
    insta::assert_snapshot!("error_unknown_lane", snap::run(&run));
    let run = env.fleet(&repo, &["worktree", "new", "bad/../name"]);
    insta::assert_snapshot!("error_bad_agent_name", snap::run(&run));
    write(&repo.join("fleet.toml"), "[gate\ncommands = 1\n");
    env.git(&repo, &["commit", "-q", "-am", "broken config"]);
    let run = env.fleet(&repo, &["config"]);
    insta::assert_snapshot!("error_bad_config", snap::run(&run));
}

/// On a terminal the tables get a header row; piped (every other test), they do not.
#[test]
fn tables_have_a_header_row_on_a_terminal_only() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let wt = env.agent(&repo, "a");
    env.commit_file(&wt, "a.txt", "a\n", "lane work");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    for (args, header) in [
        (&["status"][..], "LANE"),
        (&["worktree", "list"][..], "WORKTREE"),
    ] {
        let piped = env.fleet(&repo, args).ok();
        assert!(!piped.stdout.contains(header), "{}", piped.stdout);
        let Some(shown) = env.fleet_on_a_terminal(&repo, args) else {
            return;
        };
        let first = shown.stdout.lines().next().unwrap_or_default().to_string();
        assert!(first.contains(header), "{args:?}: {}", shown.stdout);
        assert!(first.contains("+AHD -BHD"), "{first}");
        assert!(shown.stdout.contains("fleet/a"), "{}", shown.stdout);
    }
}

/// `--json` covers errors too: the error in cargo's shape on stderr and one JSON
/// document on stdout, for a refusal, a value fleet's own parser refused, and a command
/// line clap rejects; `--json` after `--` belongs to the wrapped command.
#[test]
fn errors_with_json_are_one_json_document_on_stdout() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let repo = env.gated_repo("true");
    let run = env
        .fleet(&repo, &["land", "nope", "--yes", "--json"])
        .code(2);
    insta::assert_snapshot!("error_json_unknown_lane", snap::run(&run));
    let run = env
        .fleet(&repo, &["worktree", "new", "--json", "bad/name"])
        .code(2);
    insta::assert_snapshot!("error_json_bad_agent_name", snap::run(&run));
    let run = env.fleet(&repo, &["status", "--json", "--bogus"]).code(2);
    insta::assert_snapshot!("error_json_unknown_flag", snap::run(&run));
    for run in [
        env.fleet(&repo, &["land", "nope", "--json"]),
        env.fleet(&repo, &["status", "--json", "--bogus"]),
    ] {
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert!(doc["error"]["message"].as_str().is_some(), "{doc}");
    }
    let run = env
        .fleet(&repo, &["run", "--", "sh", "-c", "exit 3", "--json"])
        .code(3);
    assert_eq!(run.stdout, "", "a wrapped command's --json is not fleet's");
}

#[test]
fn verify_reads_the_same_run_after_run() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let repo = env.gated_repo("true");
    let wt = env.agent(&repo, "a");
    env.commit_file(&wt, "a.txt", "a\n", "lane work");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    // No guard hooks here: a plain commit moves main without a receipt.
    env.commit_file(&repo, "sneak.txt", "s\n", "sneak in a fix");
    let run = env.fleet(&repo, &["verify"]).code(1);
    insta::assert_snapshot!("verify", snap::run(&run));
    let run = env.fleet(&repo, &["verify", "--json"]).code(1);
    insta::assert_snapshot!("verify_json", snap::run(&run));
}

/// repo/ with fleet adopted (`fleet init`: guard hooks installed) and an empty fleet.toml.
fn adopted(env: &Env) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    env.fleet(&repo, &["init"]).ok();
    repo
}

#[test]
fn doctor_and_hooks_status_read_the_same_run_after_run() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let repo = adopted(&env);
    let healthy = env.fleet(&repo, &["doctor"]).ok();
    insta::assert_snapshot!("doctor_healthy", snap::run(&healthy));
    let hooks = env.fleet(&repo, &["hooks", "status"]).ok();
    insta::assert_snapshot!("hooks_status", snap::run(&hooks));
    // Two problems: a lock file a killed git left, and a guard hook gone.
    write_stale(&repo.join(".git/index.lock"));
    std::fs::remove_file(repo.join(".git/hooks/post-checkout")).unwrap();
    let sick = env.fleet(&repo, &["doctor"]).code(1);
    insta::assert_snapshot!("doctor_problems", snap::run(&sick));
    let hooks = env.fleet(&repo, &["hooks", "status"]).code(1);
    insta::assert_snapshot!("hooks_status_missing", snap::run(&hooks));
}

/// repo/ holding three files of tests/lint_corpus/ (five findings of both rules).
fn lint_fixture(env: &Env) -> PathBuf {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint_corpus");
    let files = [
        "python/keyword_none.py",
        "shell/background_claude.sh",
        "shell/suppressions.sh",
    ]
    .map(|f| (f, std::fs::read_to_string(corpus.join(f)).unwrap()));
    let files: Vec<(&str, &str)> = files.iter().map(|(f, t)| (*f, t.as_str())).collect();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &files);
    repo
}

#[test]
fn lint_findings_and_sarif_read_the_same_run_after_run() {
    let env = Env::new();
    let mut settings = snap::settings(&env);
    // The release, not the findings: bumping the version must not touch this snapshot.
    settings.add_filter(
        &format!(r#""semanticVersion": "{}""#, env!("CARGO_PKG_VERSION")),
        r#""semanticVersion": "[VERSION]""#,
    );
    let _snap = settings.bind_to_scope();
    let repo = lint_fixture(&env);
    let run = env.fleet(&repo, &["lint"]).code(1);
    insta::assert_snapshot!("lint", snap::run(&run));
    let run = env.fleet(&repo, &["lint", "--format", "sarif"]).code(1);
    insta::assert_snapshot!("lint_sarif", snap::run(&run));
}

#[test]
fn preflight_reads_the_same_run_after_run() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let repo = adopted(&env);
    let wt = env.agent(&repo, "a");
    for (dir, name, code) in [(&wt, "agent", 0), (&repo, "blind", 1)] {
        let run = env.fleet(dir, &["preflight"]).code(code);
        insta::assert_snapshot!(format!("preflight_{name}"), snap::run(&run));
        let run = env.fleet(dir, &["preflight", "--json"]).code(code);
        insta::assert_snapshot!(format!("preflight_{name}_json"), snap::run(&run));
    }
}
