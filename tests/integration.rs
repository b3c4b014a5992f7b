//! The one integration-test binary: every file in tests/ is a module of it, so the
//! shared fixtures in `common/` are compiled once and linked once (as ripgrep's
//! tests/tests.rs and jj's runner.rs do).

mod common;

mod adopt;
mod agent_output;
mod attack_drain;
mod attack_drain2;
mod attack_drain3;
mod attack_gate;
mod attack_guard;
mod attack_hooks;
mod attack_land;
mod attack_lint;
mod attack_proc;
mod attack_watch;
mod attack_worktree;
mod cli;
mod cli_text;
mod demo;
mod doctor;
mod doctor_remote;
mod drain;
mod drain_followup;
mod drain_guardian;
mod drain_liveness;
mod drain_prefetch;
mod drain_race;
mod examples;
mod fuzz;
mod gate;
mod git_layer;
mod guard;
mod help;
mod hook_managers;
mod kill;
mod land;
mod land_batch;
mod land_confirm;
mod land_crash;
mod land_nested;
mod lanes;
mod lifecycle;
mod lifecycle_day;
mod lint;
mod lint_corpus;
mod lint_sarif;
mod plans;
mod preflight;
mod readme;
mod reads;
mod real_claude;
mod remote;
mod repo_env_overrides;
mod report;
mod run;
mod status_nested;
mod task;
mod task_health;
mod task_pack;
mod verify;
mod watchdog;
mod worktree;
mod worktree_fast;

/// With `autotests = false` a test file nobody names as a module is never compiled, so
/// its tests would silently stop running. Every `.rs` file and every folder holding a
/// `mod.rs` under tests/ must be a `mod` line above.
#[test]
fn test_no_forgotten_test_files() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let runner = std::fs::read_to_string(tests.join("integration.rs")).unwrap();
    let declared: std::collections::BTreeSet<&str> = runner
        .lines()
        .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut forgotten = Vec::new();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let module = if path.is_dir() {
            if !path.join("mod.rs").exists() {
                continue; // data folders: lint_corpus/, data/, snapshots/
            }
            name
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem == "integration" {
                continue;
            }
            stem.to_string()
        } else {
            continue;
        };
        if !declared.contains(module.as_str()) {
            forgotten.push(module);
        }
    }
    forgotten.sort();
    assert!(
        forgotten.is_empty(),
        "tests/ files that are not modules of tests/integration.rs (add `mod NAME;`): {forgotten:?}"
    );
}
