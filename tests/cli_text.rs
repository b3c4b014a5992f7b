//! What fleet prints for people and for scripts: the same keys for the same facts in
//! every `--json` document, texts that read right (snapshots), and hook scripts that
//! find fleet the way it was installed.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{Env, snap, write};

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not one JSON document ({e}): {text}"))
}

/// outer/ (with nested cockpit/) whose committed gate passes unless a file `bad` exists,
/// and agent `name`'s worktree with one commit in the outer repository and one in cockpit.
fn project_with_a_lane(env: &Env, name: &str) -> (PathBuf, PathBuf) {
    let outer = env.outer_with_nested();
    env.commit_file(
        &outer,
        "fleet.toml",
        "[gate]\ncommands = [\"test ! -e bad\"]\n",
        "gate",
    );
    let wt = env.agent(&outer, name);
    env.commit_file(&wt, &format!("{name}.txt"), "x\n", "outer work");
    env.commit_file(
        &wt.join("cockpit"),
        &format!("{name}.txt"),
        "x\n",
        "nested work",
    );
    (outer, wt)
}

/// The keys of an object, sorted.
fn keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

#[test]
fn json_documents_name_the_same_facts_with_the_same_keys() {
    let env = Env::new();
    let (outer, wt) = project_with_a_lane(&env, "alpha");
    let cockpit = outer.join("cockpit");

    // An exit code is `exit_code` everywhere: a run's, a worker's test, a failed gate's.
    let run = env
        .fleet(&outer, &["run", "--json", "--", "sh", "-c", "exit 3"])
        .code(3);
    let report = json(run.stderr.lines().last().unwrap());
    assert_eq!(report["exit_code"], 3, "{report}");
    assert!(report.get("code").is_none(), "{report}");
    let log = env.path().join("test.log");
    write(&log, "ok\n");
    env.fleet(
        &wt,
        &["ready", "--exit-code", "0", "--log", log.to_str().unwrap()],
    )
    .ok();
    let bad = env.agent(&outer, "bad");
    env.commit_file(&bad, "bad", "x\n", "breaks the gate");
    env.fleet(&outer, &["track", "--ready", "bad"]).ok();
    let landing = env
        .fleet(&outer, &["land", "--all", "--yes", "--json"])
        .code(1);
    let landing = json(&landing.stdout);
    let failed = landing
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["result"] == "failed")
        .unwrap_or_else(|| panic!("{landing}"));
    assert_eq!(failed["exit_code"], 1, "{failed}");
    // A lane is `branch` everywhere (land and verify keep `lane` beside it).
    for l in landing.as_array().unwrap() {
        assert_eq!(l["branch"], l["lane"], "{l}");
    }
    assert_eq!(failed["branch"], "fleet/bad", "{failed}");
    let verified = json(&env.fleet(&outer, &["verify", "--json"]).ok().stdout);
    let verified = verified["verified"].as_array().unwrap();
    assert!(!verified.is_empty());
    for v in verified {
        assert_eq!(v["branch"], v["lane"], "{v}");
    }
    assert!(verified.iter().any(|v| v["branch"] == "fleet/alpha"));
    let lanes = json(&env.fleet(&outer, &["status", "--json"]).ok().stdout);
    let alpha = lanes
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["branch"] == "fleet/alpha")
        .unwrap();
    assert_eq!(alpha["state"], "landed", "{alpha}");
    assert_eq!(alpha["worker"]["exit_code"], 0, "{alpha}");
    // A lane's worktree folder is `worktree` in status and in worktree list (whose
    // own `path` is the same folder).
    let listed = json(
        &env.fleet(&outer, &["worktree", "list", "--json"])
            .ok()
            .stdout,
    );
    let listed = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["branch"] == "fleet/alpha")
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    assert_eq!(listed["worktree"], alpha["worktree"], "{listed} {alpha}");
    assert_eq!(listed["path"], listed["worktree"], "{listed}");
    let made = json(
        &env.fleet(&outer, &["worktree", "new", "gamma", "--json"])
            .ok()
            .stdout,
    );
    assert_eq!(made["path"], made["worktree"], "{made}");
    assert!(
        std::path::Path::new(made["worktree"].as_str().unwrap()).is_dir(),
        "{made}"
    );

    // The not-found run is the error document every other command prints: that shape and
    // nothing else, with run's own exit code.
    let run = env
        .fleet(&outer, &["run", "--json", "--", "no-such-program-xyz"])
        .code(127);
    let report = json(run.stderr.lines().last().unwrap());
    assert_eq!(keys(&report), ["error"], "{report}");
    assert_eq!(
        keys(&report["error"]),
        ["exit_code", "help", "kind", "message"]
    );
    assert_eq!(report["error"]["exit_code"], 127);
    assert_eq!(report["error"]["kind"], "environment");
    let usage = env
        .fleet(&outer, &["worktree", "rm", "nosuch", "--json"])
        .code(1);
    assert_eq!(keys(&json(&usage.stdout)["error"]), keys(&report["error"]));

    // A repository is `repo` (its shared checkout, absolute) or `rel` (relative to the
    // outer one); a branch in one of them is an object, never "branch (path)".
    let removed = json(
        &env.fleet(&outer, &["worktree", "rm", "alpha", "--json"])
            .ok()
            .stdout,
    );
    assert_eq!(removed["worktree"], alpha["worktree"], "{removed}");
    assert_eq!(removed["path"], removed["worktree"], "{removed}");
    let mut deleted: Vec<(String, String)> = removed["branches_deleted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            assert_eq!(keys(b), ["branch", "repo"], "{b}");
            (
                b["branch"].as_str().unwrap().to_string(),
                b["repo"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    deleted.sort();
    let mut expected = vec![
        ("fleet/alpha".to_string(), outer.display().to_string()),
        ("fleet/alpha".to_string(), cockpit.display().to_string()),
        (
            "fleet/alpha".to_string(),
            cockpit.join("engine").display().to_string(),
        ),
    ];
    expected.sort();
    assert_eq!(deleted, expected);
    assert_eq!(removed["untracked"], serde_json::json!(["fleet/alpha"]));
    env.fleet(&bad, &["preflight"]).ok();
    let kept = json(
        &env.fleet(&outer, &["worktree", "rm", "bad", "--force", "--json"])
            .ok()
            .stdout,
    );
    assert_eq!(
        kept["branches_kept"],
        serde_json::json!([{"branch": "fleet/bad", "repo": outer.display().to_string()}]),
        "{kept}"
    );
    assert!(
        env.branches(&outer)
            .contains(&"refs/heads/fleet/bad".to_string())
    );
    assert!(
        !env.branches(&outer)
            .contains(&"refs/heads/fleet/alpha".to_string())
    );

    let preflight = json(&env.fleet(&cockpit, &["preflight", "--json"]).stdout);
    assert_eq!(
        preflight["repo"],
        outer.display().to_string(),
        "{preflight}"
    );
    assert_eq!(preflight["nested"], "cockpit", "{preflight}");
    assert_eq!(preflight["rel"], "cockpit", "{preflight}");
    env.fleet(&outer, &["init"]).ok();
    let hooks = json(
        &env.fleet(&outer, &["hooks", "status", "--json"])
            .ok()
            .stdout,
    );
    let rels: Vec<&str> = hooks
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rel"].as_str().unwrap())
        .collect();
    assert!(rels.contains(&".") && rels.contains(&"cockpit"), "{hooks}");
}

/// One git command runs several hooks; each is a fleet process of its own. The refusal
/// is explained once per git command, and a human's allowed commit is one line that
/// says it was let through (never "allowed: refusing").
#[test]
fn the_guard_speaks_once_per_git_command_and_allowed_is_never_refusing() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("README", "r\n")]);
    env.commit_file(&repo, "second", "2\n", "second");
    env.fleet(&repo, &["init"]).ok();
    let head = env.git(&repo, &["rev-parse", "HEAD"]);

    write(&repo.join("README"), "human edit\n");
    env.git(&repo, &["add", "README"]);
    let allowed = env
        .git_cmd(&repo, &["commit", "-q", "-m", "by hand"])
        .env("FLEET_ALLOW_SHARED", "1")
        .run()
        .ok();
    let said: Vec<&str> = allowed
        .stderr
        .lines()
        .filter(|l| l.contains("fleet guard"))
        .collect();
    assert_eq!(said.len(), 1, "{}", allowed.stderr);
    assert!(
        said[0].contains("let through by FLEET_ALLOW_SHARED=1"),
        "{}",
        said[0]
    );
    assert!(!allowed.stderr.contains("refusing"), "{}", allowed.stderr);
    assert_ne!(
        env.git(&repo, &["rev-parse", "HEAD"]),
        head,
        "the commit was made"
    );

    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    for args in [
        &["switch", "-q", "--detach", "HEAD~1"][..],
        &["checkout", "-q", "-b", "side"],
    ] {
        let stderr = env.guard_refuses(&repo, args);
        assert_eq!(
            stderr.matches("fleet guard: refusing").count(),
            1,
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.matches("  fix: ").count(), 1, "{args:?}: {stderr}");
        assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head);
        assert_eq!(env.git(&repo, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    }
    let _snap = snap::settings(&env).bind_to_scope();
    write(&repo.join("README"), "another edit\n");
    let refused = env.git_cmd(&repo, &["commit", "-qam", "agent"]).run();
    insta::assert_snapshot!("guard_refuses_a_commit_once", snap::run(&refused));
}

/// `fleet hooks install` run as the `fleet` that PATH finds writes hooks that call
/// `fleet` by name: replacing the binary on PATH replaces what the hooks run. A fleet
/// that is not on PATH is named by its absolute path.
#[test]
fn hooks_call_fleet_by_name_when_installed_from_path_and_by_path_otherwise() {
    let env = Env::new();
    let bin = env.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let real = std::path::Path::new(env!("CARGO_BIN_EXE_fleet"));
    std::os::unix::fs::symlink(real, bin.join("fleet")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("README", "r\n")]);
    let install = std::process::Command::new(bin.join("fleet"))
        .args(["hooks", "install"])
        .current_dir(&repo)
        .env("PATH", &path)
        .env("HOME", env.path().join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
        .output()
        .unwrap();
    assert!(install.status.success(), "{install:?}");
    let hook = std::fs::read_to_string(repo.join(".git/hooks/pre-commit")).unwrap();
    assert!(hook.contains("fleet_bin='fleet'"), "{hook}");
    let status = env
        .fleet_cmd(&repo, &["hooks", "status"])
        .env("PATH", &path)
        .run()
        .ok();
    assert!(status.stdout.contains("installed"), "{}", status.stdout);

    // An upgrade is a new binary under the same name: the hooks run it.
    let marker = env.path().join("upgraded");
    std::fs::remove_file(bin.join("fleet")).unwrap();
    write(
        &bin.join("fleet"),
        &format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' \"$@\"\n",
            marker.display(),
            real.display()
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("fleet"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    write(&repo.join("README"), "edit\n");
    let refused = env
        .git_cmd(&repo, &["commit", "-qam", "agent"])
        .env("PATH", &path)
        .run();
    assert_ne!(refused.code, 0, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("fleet guard: refusing"),
        "{}",
        refused.stderr
    );
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head);
    let ran = std::fs::read_to_string(&marker).unwrap_or_default();
    assert!(
        ran.contains("hook pre-commit"),
        "the upgraded fleet did not run: {ran:?}"
    );
    // Without fleet on PATH at all, the hook refuses rather than letting it through.
    let blind = env
        .git_cmd(&repo, &["commit", "-qam", "agent"])
        .env("PATH", "/usr/bin:/bin")
        .run();
    assert_ne!(blind.code, 0, "{}", blind.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head);

    // Not on PATH: the absolute path, as before.
    let other = env.path().join("other");
    env.repo(&other, "main", &[("README", "r\n")]);
    env.fleet(&other, &["hooks", "install"]).ok();
    let hook = std::fs::read_to_string(other.join(".git/hooks/pre-commit")).unwrap();
    let canonical = real.canonicalize().unwrap();
    assert!(
        hook.contains(&format!("fleet_bin='{}'", canonical.display())),
        "{hook}"
    );
}

/// A landed lane's worktree reads `in target` in `fleet worktree list`, as in `fleet
/// status`, not the `+N -M` git still counts for a rebased landing; `landed: true` in
/// JSON, for its nested parts too. An unlanded worktree keeps its counts.
#[test]
fn worktree_list_says_in_target_for_a_landed_lane() {
    let env = Env::new();
    let (outer, _alpha) = project_with_a_lane(&env, "alpha");
    let beta = env.agent(&outer, "beta");
    env.commit_file(&beta, "beta.txt", "b\n", "beta work");
    // The target moves on, so alpha lands rebased: git counts its branch ahead still.
    env.commit_file(&outer, "later.txt", "l\n", "target moves");
    env.commit_file(&outer.join("cockpit"), "later.txt", "l\n", "cockpit moves");
    env.fleet(&outer, &["track", "--ready", "alpha", "beta"])
        .ok();
    env.fleet(&outer, &["land", "alpha", "--yes"]).ok();

    let listed = json(
        &env.fleet(&outer, &["worktree", "list", "--json"])
            .ok()
            .stdout,
    );
    let entry = |name: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap_or_else(|| panic!("{listed}"))
            .clone()
    };
    let alpha = entry("alpha");
    assert_eq!(alpha["landed"], true, "{alpha}");
    assert!(alpha["ahead"].as_u64().unwrap() > 0, "{alpha}");
    let cockpit = alpha["nested"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["rel"] == "cockpit")
        .unwrap()
        .clone();
    assert_eq!(cockpit["landed"], true, "{cockpit}");
    assert_eq!(entry("beta")["landed"], false, "{listed}");

    let table = env.fleet(&outer, &["worktree", "list"]).ok().stdout;
    let row = |start: &str| {
        table
            .lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no {start} row: {table}"))
            .to_string()
    };
    assert!(row("alpha ").contains(" in target "), "{table}");
    assert!(row("cockpit ").contains(" in target "), "{table}");
    assert!(row("beta ").contains(" +1   -2 "), "{table}");
}

/// `fleet verify --help`'s fresh-clone example, run literally in a fresh clone whose
/// guard is installed, fetches the receipts and verifies: what the README says (`fleet
/// verify --remote origin` fetches them), not a `git fetch` into `refs/notes/fleet`,
/// which the guard refuses to any git command.
#[test]
fn verify_helps_a_fresh_clone_with_a_command_that_works_there() {
    let env = Env::new();
    let origin = env.gated_repo("true");
    let wt = env.agent(&origin, "alpha");
    env.commit_file(&wt, "alpha.txt", "a\n", "alpha work");
    env.fleet(&origin, &["track", "--ready", "alpha"]).ok();
    env.fleet(&origin, &["land", "alpha", "--yes"]).ok();
    env.git(
        &env.path(),
        &["clone", "-q", origin.to_str().unwrap(), "fresh"],
    );
    let fresh = env.path().join("fresh");
    env.fleet(&fresh, &["hooks", "install"]).ok();
    env.fleet(&fresh, &["verify"]).code(1);

    let help = env.fleet(&fresh, &["verify", "--help"]).ok().stdout;
    let example = help
        .lines()
        .find(|l| l.contains("# in a fresh clone"))
        .unwrap_or_else(|| panic!("no fresh-clone example: {help}"));
    let command = example.split('#').next().unwrap().trim();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_fleet"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = env.sh_cmd(&fresh, command).env("PATH", &path).run();
    assert_eq!(run.code, 0, "`{command}`: {}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("1 verified, 0 not") || run.stderr.contains("1 verified, 0 not"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(
        env.git(&fresh, &["rev-parse", "refs/notes/fleet"]),
        env.git(&origin, &["rev-parse", "refs/notes/fleet"]),
        "the receipts came along"
    );
    // The long help says the same thing in words.
    assert!(help.contains("fleet verify --remote"), "{help}");
}

/// The lane a ready lane would conflict with once it landed is named `branch` in
/// `status --json` too (`lane` kept beside it), as every other lane is.
#[test]
fn status_names_the_lane_it_would_conflict_after_by_branch() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    for (name, text) in [("first", "first\n"), ("second", "second\n")] {
        let wt = env.agent(&repo, name);
        env.commit_file(&wt, "shared.txt", text, &format!("{name} edits shared.txt"));
        env.fleet(&repo, &["track", "--ready", name]).ok();
    }
    let lanes = json(&env.fleet(&repo, &["status", "--json"]).ok().stdout);
    let all: Vec<&Value> = lanes
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["conflicts_after"].as_array().unwrap())
        .collect();
    assert_eq!(all.len(), 1, "{lanes}");
    assert_eq!(keys(all[0]), ["branch", "files", "lane"], "{lanes}");
    assert_eq!(all[0]["branch"], all[0]["lane"], "{lanes}");
    assert!(
        ["fleet/first", "fleet/second"].contains(&all[0]["branch"].as_str().unwrap()),
        "{lanes}"
    );
    assert_eq!(all[0]["files"], serde_json::json!(["shared.txt"]));
}

/// A commit made in a landed lane's worktree after its landing is work the target does
/// not have: `worktree list` counts it again instead of saying `in target`, and
/// `status` calls the lane running again (recorded landed), as `worktree rm` sees it.
#[test]
fn work_committed_after_a_landing_is_unlanded_in_status_and_worktree_list() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let wt = env.agent(&repo, "alpha");
    env.commit_file(&wt, "alpha.txt", "a\n", "alpha work");
    env.commit_file(&repo, "later.txt", "l\n", "target moves");
    env.fleet(&repo, &["track", "--ready", "alpha"]).ok();
    env.fleet(&repo, &["land", "alpha", "--yes"]).ok();
    let landed = |env: &Env| {
        json(
            &env.fleet(&repo, &["worktree", "list", "--json"])
                .ok()
                .stdout,
        )[0]["landed"]
            .clone()
    };
    assert_eq!(landed(&env), true);
    env.commit_file(&wt, "more.txt", "m\n", "more work after landing");
    assert_eq!(landed(&env), false);
    let table = env.fleet(&repo, &["worktree", "list"]).ok().stdout;
    assert!(!table.contains("in target"), "{table}");
    let lanes = json(&env.fleet(&repo, &["status", "--json"]).ok().stdout);
    assert_eq!(lanes[0]["state"], "running", "{lanes}");
    assert_eq!(lanes[0]["recorded_state"], "landed", "{lanes}");
    let status = env.fleet(&repo, &["status"]).ok().stdout;
    assert!(!status.contains("in target"), "{status}");
}
