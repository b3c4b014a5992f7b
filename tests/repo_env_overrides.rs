//! What fleet leaves alone: the variables that point git elsewhere never reach the git
//! commands fleet starts (not even under `fleet hook`, which keeps its environment), and
//! read-only commands write nothing in the common git dir.

use std::path::{Path, PathBuf};

use crate::common::Env;

/// A guarded repository whose shared checkout is on `main`, with a branch `other`
/// holding a file `main` lacks (so a switch there rewrites the checkout's files).
fn guarded(env: &Env) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("a.txt", "one\n"),
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
        ],
    );
    env.git(&repo, &["branch", "other"]);
    let scratch = env.agent(&repo, "scratch");
    env.commit_file(&scratch, "only-on-other.txt", "x\n", "other work");
    env.git(&scratch, &["branch", "-f", "other", "HEAD"]);
    env.fleet(&repo, &["init"]).ok();
    repo
}

/// The git processes traced to `trace` (git's trace2 event format): for each, its
/// arguments and whether `var` was set in its environment.
fn traced(trace: &Path, var: &str) -> Vec<(Vec<String>, bool)> {
    let text = std::fs::read_to_string(trace).unwrap_or_default();
    let mut processes: std::collections::BTreeMap<String, (Vec<String>, bool)> = Default::default();
    for line in text.lines() {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let sid = event["sid"].as_str().unwrap_or_default().to_string();
        let process = processes.entry(sid).or_default();
        match event["event"].as_str() {
            Some("start") => {
                process.0 = event["argv"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_str().map(String::from))
                    .collect();
            }
            Some("def_param") if event["param"] == var => process.1 = true,
            _ => {}
        }
    }
    processes.into_values().collect()
}

#[test]
fn git_commands_fleet_starts_under_a_hook_do_not_see_alternate_object_directories() {
    const VAR: &str = "GIT_ALTERNATE_OBJECT_DIRECTORIES";
    let env = Env::new();
    let repo = guarded(&env);
    let trace = env.path().join("trace2.json");
    let alternates = env.path().join("alternate-objects");
    std::fs::create_dir_all(&alternates).unwrap();
    let before = env.snapshot(&repo);

    // git runs the guard's hooks with its environment; the refused switch has already
    // rewritten the files, so the hook puts them back with git commands of its own.
    // git's trace2 records, for every git process, whether the variable was set.
    // (Not GIT_NAMESPACE here: `fleet hook` takes that one out of its own environment,
    // see the next test.)
    let run = env
        .git_cmd(&repo, &["switch", "other"])
        .envs(&[
            (VAR, alternates.to_str().unwrap()),
            ("GIT_TRACE2_EVENT", trace.to_str().unwrap()),
            ("GIT_TRACE2_ENV_VARS", VAR),
        ])
        .run();
    assert_ne!(run.code, 0, "the switch was not refused: {}", run.stderr);
    assert!(run.stderr.contains("fleet guard"), "{}", run.stderr);
    assert_eq!(
        env.snapshot(&repo),
        before,
        "the files were not put back: {}",
        run.stderr
    );

    let processes = traced(&trace, VAR);
    // fleet runs every git command with `-C <checkout>`; the user's own runs without it.
    let fleets: Vec<_> = processes
        .iter()
        .filter(|(argv, _)| argv.get(1).map(String::as_str) == Some("-C"))
        .collect();
    assert!(
        !fleets.is_empty(),
        "fleet ran no git command while putting the files back: {processes:?}"
    );
    for (argv, saw) in &fleets {
        assert!(!saw, "a git command fleet started saw {VAR}: {argv:?}");
    }
    assert!(
        processes
            .iter()
            .any(|(argv, saw)| *saw && argv.iter().any(|a| a == "switch")),
        "the user's own git did not get {VAR}, so this test shows nothing: {processes:?}"
    );
}

/// `GIT_NAMESPACE` changes which refs git shows a client, not which HEAD `git switch`
/// moves: the guard must read the real refs, or it cannot tell what moved and cannot
/// put the files back.
#[test]
fn a_refused_switch_or_commit_with_a_namespace_set_is_refused_and_put_back() {
    let env = Env::new();
    let repo = guarded(&env);
    let before = env.snapshot(&repo);
    let namespace = [("GIT_NAMESPACE", "team")];

    let switch = env
        .git_cmd(&repo, &["switch", "other"])
        .envs(&namespace)
        .run();
    assert_ne!(
        switch.code, 0,
        "the switch was not refused: {}",
        switch.stderr
    );
    assert!(
        switch.stderr.contains("fleet guard: refusing to move HEAD"),
        "{}",
        switch.stderr
    );
    assert_eq!(
        env.snapshot(&repo),
        before,
        "the files were not put back: {}",
        switch.stderr
    );

    std::fs::write(repo.join("a.txt"), "one\nedited\n").unwrap();
    env.git(&repo, &["add", "a.txt"]);
    let staged = env.snapshot(&repo);
    let commit = env
        .git_cmd(&repo, &["commit", "-m", "in the shared checkout"])
        .envs(&namespace)
        .run();
    assert_ne!(
        commit.code, 0,
        "the commit was not refused: {}",
        commit.stderr
    );
    assert!(
        commit.stderr.contains("fleet guard: refusing to commit"),
        "{}",
        commit.stderr
    );
    assert_eq!(env.snapshot(&repo), staged, "{}", commit.stderr);
}

/// Every file under `dir` with its size and modification time, sorted.
fn listing(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(next) = todo.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                todo.push(entry.path());
            }
            out.push((entry.path(), meta.len(), meta.modified().unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn config_and_status_write_nothing_once_the_guard_list_is_current() {
    let env = Env::new();
    let repo = guarded(&env);
    let lane = env.agent(&repo, "task");
    env.commit_file(&lane, "task.txt", "task\n", "task work");
    env.fleet(&repo, &["track", "fleet/task"]).ok();
    // The first status fills its cache of lane facts; after that the facts are known.
    env.fleet(&repo, &["status"]).ok();
    let common = PathBuf::from(env.git(
        &repo,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    ));
    let guard_refs = std::fs::read_to_string(common.join("fleet/guard-refs")).unwrap();
    assert!(guard_refs.contains("refs/heads/main"), "{guard_refs}");
    let before = listing(&common);

    for args in [
        &["config"][..],
        &["status"],
        &["status", "--json"],
        &["config"],
    ] {
        env.fleet(&repo, args).ok();
        env.fleet(&lane, args).ok();
    }

    assert_eq!(
        listing(&common),
        before,
        "a read-only command wrote in the common git dir"
    );
}

/// The guard's branch list follows a changed target from every command that finds the
/// project the way all commands do, preflight in the shared checkout included; a
/// worker's `fleet preflight` in its own worktree writes nothing.
#[test]
fn a_changed_target_is_guarded_by_the_next_command_but_an_agents_preflight_writes_nothing() {
    let env = Env::new();
    let repo = guarded(&env);
    let lane = env.agent(&repo, "task");
    env.git(&repo, &["branch", "release"]);
    let common = PathBuf::from(env.git(
        &repo,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    ));
    let guard_refs = || std::fs::read_to_string(common.join("fleet/guard-refs")).unwrap();
    assert!(
        !guard_refs().contains("refs/heads/release"),
        "{}",
        guard_refs()
    );
    // The target changes in the shared checkout's fleet.toml (what the worktree
    // commands read), as a person edits it.
    std::fs::write(
        repo.join("fleet.toml"),
        "[lanes]\ntarget = \"release\"\n[gate]\ncommands = [\"true\"]\n",
    )
    .unwrap();
    let before = listing(&common);

    env.fleet(&lane, &["preflight"]).ok();
    env.fleet(&lane, &["preflight", "--json"]).ok();
    assert_eq!(
        listing(&common),
        before,
        "an agent's preflight wrote in the common dir"
    );

    env.fleet(&repo, &["preflight"]).code(1);
    assert!(
        guard_refs().contains("refs/heads/release"),
        "preflight in the shared checkout did not guard the new target: {}",
        guard_refs()
    );
}
