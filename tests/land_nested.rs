//! A lane that spans the outer repository and a nested one lands as one unit: both
//! parts are gated together (the gate sees the nested candidate at its nested path),
//! and either both targets move or neither. A landing killed between the two moves is
//! finished by the next run.

use std::path::{Path, PathBuf};

use crate::common::assert::receipt;
use crate::common::{Env, write};

/// An agent worktree `name` whose outer part sets `expected` and nested part sets
/// `cockpit/version` (each only when given).
fn lane(env: &Env, outer: &Path, name: &str, expected: Option<&str>, version: Option<&str>) {
    let wt = env.agent(outer, name);
    if let Some(text) = expected {
        env.commit_file(&wt, "expected", text, &format!("{name}: expect"));
    }
    if let Some(text) = version {
        env.commit_file(
            &wt.join("cockpit"),
            "version",
            text,
            &format!("{name}: version"),
        );
    }
    env.fleet(outer, &["track", "--ready", name]).ok();
}

fn tips(env: &Env, outer: &Path) -> (String, String) {
    (
        env.git(outer, &["rev-parse", "main"]),
        env.git(&outer.join("cockpit"), &["rev-parse", "main"]),
    )
}

#[test]
fn a_lane_whose_gate_needs_both_halves_lands_both() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "bump", Some("2\n"), Some("2\n"));
    let (o0, n0) = tips(&env, &outer);
    env.fleet(&outer, &["land", "bump", "--yes"]).ok();
    let (o1, n1) = tips(&env, &outer);
    assert_ne!(o0, o1);
    assert_ne!(n0, n1);
    assert_eq!(env.git(&outer, &["show", "main:expected"]), "2");
    assert_eq!(
        env.git(&outer.join("cockpit"), &["show", "main:version"]),
        "2"
    );
    // Both shared checkouts followed their targets.
    assert_eq!(
        std::fs::read_to_string(outer.join("expected")).unwrap(),
        "2\n"
    );
    assert_eq!(
        std::fs::read_to_string(outer.join("cockpit/version")).unwrap(),
        "2\n"
    );
    assert_eq!(env.git(&outer, &["status", "--porcelain"]), "");
    assert_eq!(
        env.git(&outer.join("cockpit"), &["status", "--porcelain"]),
        ""
    );
    // Each repository has a receipt for its exact tree naming every move of the unit.
    let outer_receipt = receipt(&env, &outer, &o1);
    let nested_receipt = receipt(&env, &outer.join("cockpit"), &n1);
    assert_eq!(
        outer_receipt["tested_tree"].as_str().unwrap(),
        env.git(&outer, &["rev-parse", "main^{tree}"])
    );
    assert_eq!(
        nested_receipt["tested_tree"].as_str().unwrap(),
        env.git(&outer.join("cockpit"), &["rev-parse", "main^{tree}"])
    );
    assert_eq!(outer_receipt["unit"], nested_receipt["unit"]);
    assert_eq!(outer_receipt["unit"].as_array().unwrap().len(), 2);
    // One gate run covered both.
    let runs = std::fs::read_to_string(env.path().join("runs")).unwrap();
    assert_eq!(runs.lines().count(), 1);
    // Landing again finds nothing to do.
    let again = env.fleet(&outer, &["land", "bump", "--yes"]).ok();
    assert!(again.stderr.contains("already landed"), "{}", again.stderr);
    assert_eq!(tips(&env, &outer), (o1, n1));
}

#[test]
fn a_lane_whose_nested_half_breaks_the_gate_lands_neither() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "half", Some("3\n"), Some("broken\n"));
    let before = tips(&env, &outer);
    let run = env.fleet(&outer, &["land", "half", "--yes"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(tips(&env, &outer), before, "neither target moved");
    assert_eq!(
        std::fs::read_to_string(outer.join("expected")).unwrap(),
        "1\n"
    );
    let status = env.fleet(&outer, &["status", "--json"]).ok().stdout;
    assert!(status.contains("\"state\": \"failed\""), "{status}");
}

#[test]
fn a_lane_with_only_a_nested_part_moves_only_the_nested_target() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    let wt = env.agent(&outer, "docs");
    env.commit_file(&wt.join("cockpit"), "README", "docs\n", "docs");
    env.fleet(&outer, &["track", "--ready", "docs"]).ok();
    let (o0, n0) = tips(&env, &outer);
    env.fleet(&outer, &["land", "docs", "--yes"]).ok();
    let (o1, n1) = tips(&env, &outer);
    assert_eq!(o0, o1);
    assert_ne!(n0, n1);
    assert!(outer.join("cockpit/README").exists());
}

#[test]
fn a_unit_killed_between_its_moves_is_finished_by_the_next_run() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "bump", Some("2\n"), Some("2\n"));
    let (o0, n0) = tips(&env, &outer);
    let run = env
        .fleet_cmd(&outer, &["land", "bump", "--yes"])
        .envs(&[("FLEET_FAILPOINT", "unit-between-moves:abort")])
        .run();
    assert_ne!(run.code, 0);
    // The nested target moved first; the outer one not yet.
    let (o1, n1) = tips(&env, &outer);
    assert_eq!(o1, o0);
    assert_ne!(n1, n0);
    let runs_before = std::fs::read_to_string(env.path().join("runs")).unwrap();
    env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    let (o2, n2) = tips(&env, &outer);
    assert_ne!(o2, o0);
    assert_eq!(n2, n1);
    assert_eq!(env.git(&outer, &["show", "main:expected"]), "2");
    assert_eq!(
        std::fs::read_to_string(env.path().join("runs")).unwrap(),
        runs_before,
        "finishing the unit needs no new gate run"
    );
    assert_eq!(env.git(&outer, &["status", "--porcelain"]), "");
}

#[test]
fn a_nested_part_touching_a_protected_path_blocks_the_whole_lane() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    let toml = std::fs::read_to_string(outer.join("fleet.toml")).unwrap();
    write(
        &outer.join("fleet.toml"),
        &format!("{toml}protected = [\"cockpit/version\"]\n"),
    );
    env.git(&outer, &["commit", "-qam", "protect the cockpit version"]);
    lane(&env, &outer, "sneaky", Some("2\n"), Some("2\n"));
    let before = tips(&env, &outer);
    let run = env.fleet(&outer, &["land", "sneaky", "--yes"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("cockpit/version"), "{}", run.stderr);
    assert_eq!(tips(&env, &outer), before);
}

fn journal(outer: &Path) -> PathBuf {
    outer.join(".git/fleet/unit-journal")
}

#[test]
fn a_nested_move_that_cannot_happen_keeps_the_outer_target_where_it_is() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "a", Some("2\n"), Some("2\n"));
    let (o0, n0) = tips(&env, &outer);
    // Something holds the nested target's lock (a live git, or a killed one).
    let lock = outer.join("cockpit/.git/refs/heads/main.lock");
    write(&lock, "");
    let run = env.fleet(&outer, &["land", "a", "--yes"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("locked"), "{}", run.stderr);
    assert!(journal(&outer).exists());
    // Running again while it is still locked moves nothing either.
    let again = env.fleet(&outer, &["land", "--all", "--yes"]);
    assert_eq!(again.code, 3, "{}", again.stderr);
    assert_eq!(tips(&env, &outer), (o0.clone(), n0.clone()));
    std::fs::remove_file(&lock).unwrap();
    env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    let (o1, n1) = tips(&env, &outer);
    assert_ne!(o1, o0);
    assert_ne!(n1, n0);
    assert!(!journal(&outer).exists());
    assert_eq!(
        env.git(&outer.join("cockpit"), &["status", "--porcelain"]),
        ""
    );
}

#[test]
fn a_unit_killed_right_after_a_move_gets_its_shared_checkouts_repaired() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "a", Some("2\n"), Some("2\n"));
    let run = env
        .fleet_cmd(&outer, &["land", "a", "--yes"])
        .envs(&[("FLEET_FAILPOINT", "unit-after-cas:abort")])
        .run();
    assert_ne!(run.code, 0);
    // The nested target moved, its files did not follow yet.
    assert_eq!(
        env.git(&outer.join("cockpit"), &["show", "main:version"]),
        "2"
    );
    env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    for repo in [outer.clone(), outer.join("cockpit")] {
        assert_eq!(
            env.git(&repo, &["status", "--porcelain"]),
            "",
            "{}",
            repo.display()
        );
    }
    assert_eq!(
        std::fs::read_to_string(outer.join("cockpit/version")).unwrap(),
        "2\n"
    );
    assert_eq!(
        std::fs::read_to_string(outer.join("expected")).unwrap(),
        "2\n"
    );
}

#[test]
fn a_finish_that_meets_the_users_edit_refuses_and_keeps_the_journal() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "a", Some("2\n"), Some("2\n"));
    let (o0, _) = tips(&env, &outer);
    let run = env
        .fleet_cmd(&outer, &["land", "a", "--yes"])
        .envs(&[("FLEET_FAILPOINT", "unit-between-moves:abort")])
        .run();
    assert_ne!(run.code, 0);
    write(&outer.join("expected"), "user edit\n");
    let run = env.fleet(&outer, &["land", "--all", "--yes"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("expected"), "{}", run.stderr);
    assert_eq!(env.git(&outer, &["rev-parse", "main"]), o0);
    assert_eq!(
        std::fs::read_to_string(outer.join("expected")).unwrap(),
        "user edit\n"
    );
    assert!(journal(&outer).exists());
    // Once the edit is out of the way, the unit finishes without a new gate run.
    env.git(&outer, &["checkout", "--", "expected"]);
    env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    assert_eq!(env.git(&outer, &["show", "main:expected"]), "2");
}

#[test]
fn a_nested_target_that_moved_on_past_the_part_is_not_reported_as_lost() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "a", Some("2\n"), Some("2\n"));
    let run = env
        .fleet_cmd(&outer, &["land", "a", "--yes"])
        .envs(&[("FLEET_FAILPOINT", "unit-between-moves:abort")])
        .run();
    assert_ne!(run.code, 0);
    // Someone commits on the nested target on top of the landed part.
    let cockpit = outer.join("cockpit");
    write(&cockpit.join("more"), "m\n");
    env.git(&cockpit, &["add", "more"]);
    env.git_cmd(&cockpit, &["commit", "-qm", "more"])
        .envs(&[("FLEET_ALLOW_SHARED", "1")])
        .run();
    let run = env.fleet(&outer, &["land", "--all", "--yes"]).ok();
    assert!(!run.stderr.contains("did not finish"), "{}", run.stderr);
    assert_eq!(env.git(&outer, &["show", "main:expected"]), "2");
}

#[test]
fn a_lane_with_work_in_a_nested_repository_without_a_target_is_refused() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "a", Some("2\n"), Some("2\n"));
    let cockpit = outer.join("cockpit");
    env.git_cmd(&cockpit, &["checkout", "-q", "--detach", "main"])
        .envs(&[("FLEET_ALLOW_SHARED", "1")])
        .run();
    let before = tips(&env, &outer);
    let run = env.fleet(&outer, &["land", "a", "--yes"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("not on a branch"), "{}", run.stderr);
    assert_eq!(tips(&env, &outer), before);
    let status = env.fleet(&outer, &["status", "--json"]).ok().stdout;
    assert!(!status.contains("\"state\": \"landed\""), "{status}");
}

#[test]
fn a_nested_repository_gone_from_the_checkout_is_gone_from_the_gate_too() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "a", Some("2\n"), Some("2\n"));
    env.fleet(&outer, &["land", "a", "--yes"]).ok();
    std::fs::rename(outer.join("cockpit"), env.path().join("cockpit-moved")).unwrap();
    let wt = env.agent(&outer, "c");
    env.commit_file(&wt, "readme", "r\n", "c: readme");
    env.fleet(&outer, &["track", "--ready", "c"]).ok();
    let run = env.fleet(&outer, &["land", "c", "--yes"]);
    assert_eq!(
        run.code, 1,
        "the gate must not read a stale cockpit: {}",
        run.stderr
    );
}

#[test]
fn a_batch_lands_a_unit_lane_on_its_own() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    let x = env.agent(&outer, "x");
    env.commit_file(&x, "x.txt", "x\n", "x");
    env.fleet(&outer, &["track", "--ready", "x"]).ok();
    lane(&env, &outer, "u", Some("2\n"), Some("2\n"));
    let y = env.agent(&outer, "y");
    env.commit_file(&y, "y.txt", "y\n", "y");
    env.fleet(&outer, &["track", "--ready", "y"]).ok();
    let run = env
        .fleet(&outer, &["land", "--all", "--batch", "--yes"])
        .ok();
    assert!(run.stderr.contains("landed fleet/u"), "{}", run.stderr);
    let files = env.git(&outer, &["ls-tree", "--name-only", "main"]);
    assert!(
        files.contains("x.txt") && files.contains("y.txt"),
        "{files}"
    );
    assert_eq!(env.git(&outer, &["show", "main:expected"]), "2");
    assert_eq!(
        env.git(&outer.join("cockpit"), &["show", "main:version"]),
        "2"
    );
}

#[test]
fn revert_refuses_a_unit_lane_plainly() {
    let env = Env::new();
    let outer = env.outer_gated_on_nested_version();
    lane(&env, &outer, "a", Some("2\n"), Some("2\n"));
    env.fleet(&outer, &["land", "a", "--yes"]).ok();
    let before = tips(&env, &outer);
    let run = env.fleet(&outer, &["revert", "a", "--yes"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("landed parts in nested repositories (cockpit)"),
        "{}",
        run.stderr
    );
    assert_eq!(tips(&env, &outer), before);
}
