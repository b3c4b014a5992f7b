//! Snapshots of what people read after a run: the status table and its JSON, the
//! worktree list, land's refusals, and the `error:`/`help:` shape. Run-dependent bits
//! are filtered (common/snap.rs); state is still asserted where the other modules do.

use crate::common::{Env, snap, write};

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
