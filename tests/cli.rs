//! `fleet init`, `fleet config`, help and exit codes.

use crate::common::{Env, write};

#[test]
fn init_writes_a_commented_config_once_and_records_the_shared_checkout() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env.fleet(&outer, &["init"]).ok();
    assert!(run.stderr.contains("wrote"), "{}", run.stderr);
    let text = std::fs::read_to_string(outer.join("fleet.toml")).unwrap();
    assert!(text.contains("# fleet.toml") && text.contains("target = \"main\""));
    let recorded = std::fs::read_to_string(outer.join(".git/fleet/shared-checkout")).unwrap();
    assert_eq!(recorded.trim(), outer.display().to_string());

    write(
        &outer.join("fleet.toml"),
        "[lanes]\ntarget = \"main\"\n# mine\n",
    );
    let run = env.fleet(&outer, &["init"]).ok();
    assert!(run.stderr.contains("kept the existing"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(outer.join("fleet.toml")).unwrap(),
        "[lanes]\ntarget = \"main\"\n# mine\n"
    );
}

#[test]
fn init_from_an_agent_worktree_records_the_shared_checkout_not_the_agent() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let wt = env
        .fleet(&outer, &["worktree", "new", "a"])
        .ok()
        .stdout
        .trim()
        .to_string();
    env.fleet(std::path::Path::new(&wt), &["init", "--json"])
        .ok();
    let recorded = std::fs::read_to_string(outer.join(".git/fleet/shared-checkout")).unwrap();
    assert_eq!(recorded.trim(), outer.display().to_string());
    assert!(outer.join("fleet.toml").exists());
    assert!(!std::path::Path::new(&wt).join("fleet.toml").exists());
}

#[test]
fn init_print_changes_nothing() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env.fleet(&outer, &["init", "--print"]).ok();
    assert!(run.stdout.contains("[worktrees]"));
    assert!(!outer.join("fleet.toml").exists());
}

#[test]
fn config_shows_the_effective_values_and_their_source() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let run = env.fleet(&outer, &["config"]).ok();
    assert!(
        run.stdout.contains("built-in defaults") && run.stdout.contains("max_behind = 25"),
        "{}",
        run.stdout
    );
    write(
        &outer.join("fleet.toml"),
        "[lanes]\ntarget = \"trunk\"\n[gate]\ntimeout = \"90s\"\n",
    );
    let run = env.fleet(&outer, &["config", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["config"]["lanes"]["target"], "trunk");
    assert_eq!(v["config"]["lanes"]["prefix"], "fleet/");
    assert_eq!(v["config"]["gate"]["timeout"], "1m 30s");
    assert_eq!(v["source"], outer.join("fleet.toml").display().to_string());
}

#[test]
fn bad_config_is_a_usage_error_with_file_line_and_column() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    write(
        &outer.join("fleet.toml"),
        "[lanes]\ntarget = \"main\"\n\n[worktrees]\nmax_behnd = 3\n",
    );
    for args in [
        &["config"][..],
        &["worktree", "new", "x"],
        &["worktree", "list"],
    ] {
        let run = env.fleet(&outer, args).code(2);
        let expected = format!("{}:5:1", outer.join("fleet.toml").display());
        assert!(run.stderr.contains(&expected), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("max_behnd"), "{}", run.stderr);
        assert!(run.stderr.contains("help:"), "{}", run.stderr);
    }
    assert!(!env.path().join(".fleet-work").exists());
    write(
        &outer.join("fleet.toml"),
        "[lanes]\nstrategy = \"octopus\"\n",
    );
    let run = env.fleet(&outer, &["config"]).code(2);
    assert!(
        run.stderr.contains("octopus") && run.stderr.contains("rebase"),
        "{}",
        run.stderr
    );
}

/// Values that would only fail (or silently misbehave) when landing are refused when the
/// file is read, at their position.
#[test]
fn patterns_markers_and_names_are_checked_where_they_are_written() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    for (text, says) in [
        (
            "[gate]\nprotected = [\"[unclosed\"]\n",
            "is not a glob pattern",
        ),
        (
            "[gate]\nprotected = [\"/\"]\n",
            "an empty pattern protects nothing",
        ),
        ("[gate]\nforbid = [\"TODO\", \"\"]\n", "an empty marker"),
        ("[lint]\nagents = [\"a b\"]\n", "is not a name"),
        ("[lint]\nhelpers = [\"\"]\n", "is not a name"),
    ] {
        write(&outer.join("fleet.toml"), text);
        let run = env.fleet(&outer, &["config"]).code(2);
        let at = format!("{}:2:", outer.join("fleet.toml").display());
        assert!(
            run.stderr.contains(&at) && run.stderr.contains(says),
            "{text}: {}",
            run.stderr
        );
    }
}

#[test]
fn every_command_has_help_with_an_example() {
    let env = Env::new();
    let commands: &[&[&str]] = &[
        &[],
        &["init"],
        &["config"],
        &["preflight"],
        &["worktree"],
        &["worktree", "new"],
        &["worktree", "list"],
        &["worktree", "rm"],
        &["worktree", "prune"],
        &["track"],
        &["untrack"],
        &["ready"],
        &["status"],
        &["land"],
        &["revert"],
        &["verify"],
        &["run"],
    ];
    for cmd in commands {
        let mut args = cmd.to_vec();
        args.push("--help");
        let run = env.fleet(&env.path(), &args).ok();
        assert!(
            run.stdout.contains("Examples:"),
            "{cmd:?} --help has no example:\n{}",
            run.stdout
        );
    }
}

#[test]
fn usage_errors_exit_2_and_outside_a_repo_is_an_environment_problem() {
    let env = Env::new();
    env.fleet(&env.path(), &["worktree", "new"]).code(2);
    env.fleet(&env.path(), &["no-such-command"]).code(2);
    for args in [&["worktree", "list"][..], &["status"], &["land", "--all"]] {
        let run = env.fleet(&env.path(), args).code(3);
        assert!(
            run.stderr.contains("not inside a git repository"),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("help:"), "{}", run.stderr);
    }
}

#[test]
fn commands_find_the_repository_from_the_folder_not_from_git_dir_or_work_tree() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let own_top = [("GIT_WORK_TREE", outer.to_str().unwrap())];
    // Pointing at the folder's own worktree changes nothing and is not worth a warning.
    let run = env
        .fleet_cmd(&outer, &["worktree", "new", "x"])
        .envs(&own_top)
        .run()
        .ok();
    assert!(
        !run.stderr.contains("ignoring GIT_WORK_TREE"),
        "{}",
        run.stderr
    );
    let run = env
        .fleet_cmd(&outer, &["worktree", "list"])
        .envs(&own_top)
        .run()
        .ok();
    assert!(run.stdout.contains("fleet/x"), "{}", run.stdout);
    // Pointing elsewhere is ignored, with a warning naming the variable.
    let nested_git = outer.join("cockpit/.git");
    let run = env
        .fleet_cmd(&outer, &["worktree", "list"])
        .envs(&[("GIT_DIR", nested_git.to_str().unwrap())])
        .run()
        .ok();
    assert!(run.stdout.contains("fleet/x"), "{}", run.stdout);
    assert!(run.stderr.contains("ignoring GIT_DIR="), "{}", run.stderr);
}

#[test]
fn a_config_file_that_cannot_be_read_is_a_configuration_error() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let path = outer.join("fleet.toml");
    let shown = path.display().to_string();
    std::os::unix::fs::symlink("missing.toml", &path).unwrap();
    for args in [&["config"][..], &["init"]] {
        let run = env.fleet(&outer, args).code(2);
        assert!(
            run.stderr.contains(&shown) && run.stderr.contains("does not exist"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("help:"), "{}", run.stderr);
    }
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, b"[lanes]\ntarget = \"ma\xffin\"\n").unwrap();
    let run = env.fleet(&outer, &["config"]).code(2);
    assert!(
        run.stderr.contains(&shown) && run.stderr.contains("UTF-8"),
        "{}",
        run.stderr
    );
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    let run = env.fleet(&outer, &["config"]).code(2);
    assert!(
        run.stderr.contains(&shown) && run.stderr.contains("folder"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_nested_path_naming_the_checkout_itself_is_rejected_at_its_position() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    for nested in [".", "./", "./.", "a/..", ""] {
        write(
            &outer.join("fleet.toml"),
            &format!("[lanes]\ntarget = \"main\"\n\n[worktrees]\nnested = [\"{nested}\"]\n"),
        );
        let run = env.fleet(&outer, &["config"]).code(2);
        let expected = format!("{}:5:10", outer.join("fleet.toml").display());
        assert!(run.stderr.contains(&expected), "{nested:?}: {}", run.stderr);
    }
    assert!(!env.path().join(".fleet-work").exists());
}

#[test]
fn a_table_where_a_value_belongs_is_reported_at_its_header() {
    let env = Env::new();
    let outer = env.outer_with_nested();
    let file = outer.join("fleet.toml");
    for (text, at, says) in [
        (
            "# lanes\n\n[[lanes]]\ntarget = \"x\"\n",
            "3:1",
            "list of tables",
        ),
        (
            "[lanes]\nprefix = \"p/\"\n\n[lanes.target]\nname = \"x\"\n",
            "4:1",
            "write `target = ...` under `[lanes]`",
        ),
    ] {
        write(&file, text);
        let run = env.fleet(&outer, &["config"]).code(2);
        let expected = format!("{}:{at}", file.display());
        assert!(
            run.stderr.contains(&expected) && run.stderr.contains(says),
            "{text:?}: {}",
            run.stderr
        );
    }
}
