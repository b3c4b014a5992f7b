//! The guard's hooks under attack (issue 13): a hook that lost its run bit, a hook
//! slot holding a folder or a link, a global or relative `core.hooksPath`, a repository
//! on `master`. Each test asserts the repository's state afterwards, not only codes.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::{Env, write};

fn doctor(env: &Env, repo: &Path) -> (i32, serde_json::Value) {
    let run = env.fleet(repo, &["doctor", "--json"]);
    let all = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    (run.code, all)
}

fn check<'a>(all: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    all.as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}: {all:#}"))
}

/// Every file under `dir` (not following links), by path: its kind, mode and contents
/// (a link's target).
fn tree(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out, &|_| false);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>, skip: &dyn Fn(&str) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        if skip(&rel) {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let mode = meta.permissions().mode() & 0o7777;
        let what = if meta.file_type().is_symlink() {
            format!("link -> {}", std::fs::read_link(&path).unwrap().display())
        } else if meta.is_dir() {
            walk(root, &path, out, skip);
            format!("dir {mode:o}")
        } else {
            format!(
                "file {mode:o} {}",
                String::from_utf8_lossy(&std::fs::read(&path).unwrap())
            )
        };
        out.insert(rel, what);
    }
}

/// What a probe must leave alone: every ref and its value, every reflog, the worktree
/// records, the objects, the names of everything in the git dir (fleet's own log
/// aside), and the checkout's files, index and status.
fn repo_state(env: &Env, repo: &Path) -> String {
    let git = repo.join(".git");
    let refs = env.git(repo, &["for-each-ref", "--format=%(refname) %(objectname)"]);
    let worktrees = env.git(repo, &["worktree", "list", "--porcelain"]);
    let objects = env.git(repo, &["count-objects", "-v"]);
    let mut names = BTreeMap::new();
    walk(&git, &git, &mut names, &|rel| {
        rel == "index" || rel == "fleet/guard.log" || rel.starts_with("objects/")
    });
    let names: Vec<&String> = names.keys().collect();
    let logs = tree(&git.join("logs"));
    format!(
        "{refs}\n{worktrees}\n{objects}\n{names:#?}\n{logs:#?}\n{}",
        env.snapshot(repo)
    )
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A guarded repository with an agent worktree holding a commit, a local edit and an
/// untracked file in the shared checkout.
fn guarded(env: &Env) -> (PathBuf, PathBuf) {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("a.txt", "one\n"),
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
        ],
    );
    env.fleet(&repo, &["init"]).ok();
    let wt = env.agent(&repo, "a");
    env.commit_file(&wt, "work.txt", "w\n", "agent work");
    write(&repo.join("a.txt"), "one\nlocal edit\n");
    write(&repo.join("untracked.txt"), "mine\n");
    (repo, wt)
}

#[test]
fn doctor_fails_naming_a_guard_hook_without_its_run_bit_and_its_probes_leave_no_trace() {
    let env = Env::new();
    let (repo, _wt) = guarded(&env);
    // The agent's lane (tracked by `worktree new`) is read once first: status's cache
    // of its facts is no trace of the probes.
    env.fleet(&repo, &["status"]).ok();
    let before = repo_state(&env, &repo);
    let (code, all) = doctor(&env, &repo);
    assert_eq!(code, 0, "{all:#}");
    let fires = check(&all, "guard-fires");
    assert_eq!(fires["verdict"], "ok", "{all:#}");
    for path in ["--no-verify commit", "switch", "update-ref refs/heads/main"] {
        assert!(
            fires["detail"].as_str().unwrap().contains(path),
            "the probe does not try {path}: {fires:#}"
        );
    }
    assert_eq!(
        repo_state(&env, &repo),
        before,
        "a healthy probe left a trace"
    );

    let hooks = repo.join(".git/hooks");
    for hook in [
        "pre-commit",
        "prepare-commit-msg",
        "reference-transaction",
        "post-checkout",
    ] {
        set_mode(&hooks.join(hook), 0o644);
        let (code, all) = doctor(&env, &repo);
        assert_eq!(code, 1, "{hook} without its run bit: {all:#}");
        let installed = check(&all, "hooks-installed");
        assert_eq!(installed["verdict"], "fail", "{hook}: {all:#}");
        let detail = installed["detail"].as_str().unwrap();
        assert!(
            detail.contains(hook) && detail.contains("not executable"),
            "{hook}: {detail}"
        );
        assert_eq!(installed["fix"], "fleet hooks install");
        if hook != "post-checkout" {
            // post-checkout only logs drift: nothing of the guard's refusals rests on it.
            let fires = check(&all, "guard-fires");
            assert_eq!(fires["verdict"], "fail", "{hook}: {all:#}");
            assert!(
                fires["detail"].as_str().unwrap().contains(hook),
                "{fires:#}"
            );
        }
        let text = env.fleet(&repo, &["doctor"]).code(1).stdout;
        assert!(text.contains("fix: fleet hooks install"), "{text}");
        let status = env.fleet(&repo, &["hooks", "status"]).code(1).stdout;
        assert!(status.contains("disabled"), "{status}");
        assert_eq!(
            repo_state(&env, &repo),
            before,
            "the probe with {hook} off left a trace"
        );
        env.fleet(&repo, &["hooks", "install"]).ok();
        assert_eq!(
            std::fs::metadata(hooks.join(hook))
                .unwrap()
                .permissions()
                .mode()
                & 0o111,
            0o111,
            "install did not give {hook} its run bit back"
        );
    }
    let (code, all) = doctor(&env, &repo);
    assert_eq!(code, 0, "{all:#}");
    assert_eq!(repo_state(&env, &repo), before);
}

/// What stood in a hook's slot before fleet came.
enum Slot {
    File(u32),
    Dir,
    Link,
    Dangling,
}

fn plant(env: &Env, hooks: &Path, hook: &str, slot: &Slot) {
    let path = hooks.join(hook);
    match slot {
        Slot::File(mode) => {
            write(&path, "#!/bin/sh\nexit 0\n");
            set_mode(&path, *mode);
        }
        Slot::Dir => {
            write(&path.join("inner/script"), "#!/bin/sh\necho inner\n");
            set_mode(&path.join("inner"), 0o750);
            set_mode(&path, 0o701);
        }
        Slot::Link => {
            let elsewhere = env.path().join("elsewhere-hook");
            write(&elsewhere, "#!/bin/sh\nexit 0\n");
            set_mode(&elsewhere, 0o755);
            std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        }
        Slot::Dangling => std::os::unix::fs::symlink("../no/such/hook", &path).unwrap(),
    }
}

#[test]
fn uninstall_puts_back_exactly_what_stood_in_a_hook_slot_whatever_its_kind() {
    let kinds = [
        ("file 0640", Slot::File(0o640)),
        ("file 0700", Slot::File(0o700)),
        ("folder", Slot::Dir),
        ("symlink", Slot::Link),
        ("dangling symlink", Slot::Dangling),
    ];
    for (what, slot) in &kinds {
        for hook in ["pre-commit", "reference-transaction"] {
            let env = Env::new();
            let repo = env.path().join("repo");
            env.repo(&repo, "main", &[("fleet.toml", "")]);
            let hooks = repo.join(".git/hooks");
            plant(&env, &hooks, hook, slot);
            let before = tree(&hooks);
            env.fleet(&repo, &["hooks", "install"]).ok();
            assert_ne!(tree(&hooks), before, "{what} as {hook}: nothing installed");
            let run = env.fleet(&repo, &["hooks", "uninstall"]);
            assert_eq!(run.code, 0, "{what} as {hook}: {}", run.stderr);
            assert_eq!(
                tree(&hooks),
                before,
                "{what} as {hook}: the hooks folder is not as it was"
            );
            assert!(!repo.join(".git/fleet/guard-refs").exists());
        }
    }
}

/// The hooks folder a refusal's help says to set, from its `core.hooksPath '...'`.
fn advised_hooks_path(help: &str) -> String {
    let start = help
        .find("core.hooksPath '")
        .unwrap_or_else(|| panic!("no core.hooksPath advice: {help}"))
        + "core.hooksPath '".len();
    let end = start + help[start..].find('\'').unwrap();
    help[start..end].to_string()
}

#[test]
fn with_a_global_hooks_path_init_advises_an_absolute_one_that_guards_agent_worktrees() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("a.txt", "one\n")]);
    let global = env.path().join("global-hooks");
    env.git(
        &repo,
        &[
            "config",
            "--global",
            "core.hooksPath",
            global.to_str().unwrap(),
        ],
    );
    assert!(
        std::fs::read_to_string(env.path().join("home/.gitconfig"))
            .unwrap()
            .contains("global-hooks"),
        "the global config is the test's own"
    );
    let before = repo_state(&env, &repo);
    let run = env.fleet(&repo, &["init"]).code(1);
    assert!(run.stderr.contains("global git config"), "{}", run.stderr);
    assert_eq!(
        repo_state(&env, &repo),
        before,
        "a refused init wrote something"
    );
    assert!(!global.exists() && !repo.join("fleet.toml").exists());
    let advised = advised_hooks_path(&run.stderr);
    assert!(Path::new(&advised).is_absolute(), "{advised}");
    assert_eq!(
        Path::new(&advised),
        repo.join(".git/hooks"),
        "{}",
        run.stderr
    );

    // The relative path the old advice gave: no hook runs in an agent worktree.
    let wt = env.agent(&repo, "a");
    env.git(&repo, &["config", "core.hooksPath", ".git/hooks"]);
    let run = env.fleet(&repo, &["init"]).code(1);
    assert!(run.stderr.contains("relative"), "{}", run.stderr);
    assert_eq!(advised_hooks_path(&run.stderr), advised);
    let (code, all) = doctor(&env, &repo);
    assert_eq!(code, 1);
    assert_eq!(check(&all, "hooks-path")["verdict"], "fail", "{all:#}");

    // Following the advice: the agent worktree cannot move main.
    env.git(&repo, &["config", "core.hooksPath", &advised]);
    env.fleet(&repo, &["init"]).ok();
    let main = env.git(&repo, &["rev-parse", "main"]);
    env.commit_file(&wt, "w.txt", "w\n", "agent work");
    let run = env
        .git_cmd(&wt, &["update-ref", "refs/heads/main", "HEAD"])
        .run();
    assert_ne!(run.code, 0, "update-ref from the agent worktree passed");
    assert!(run.stderr.contains("fleet guard"), "{}", run.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    let (code, all) = doctor(&env, &repo);
    assert_eq!(code, 0, "{all:#}");
}

#[test]
fn a_hooks_path_fleet_scripts_would_be_committed_from_is_refused_and_nothing_is_written() {
    for value in ["hooks", "absolute"] {
        let env = Env::new();
        let repo = env.path().join("repo");
        env.repo(&repo, "main", &[("a.txt", "one\n")]);
        let wt = env.path().join("agent");
        env.git(&repo, &["worktree", "add", "-q", wt.to_str().unwrap()]);
        write(&repo.join("hooks/pre-commit"), "#!/bin/sh\nexit 0\n");
        let value = if value == "absolute" {
            repo.join("hooks").display().to_string()
        } else {
            value.to_string()
        };
        env.git(&repo, &["config", "core.hooksPath", &value]);
        let before = repo_state(&env, &repo);
        let agent_before = env.snapshot(&wt);
        for args in [&["init"][..], &["hooks", "install"]] {
            let run = env.fleet(&repo, args).code(1);
            assert!(
                run.stderr.contains("absolute path outside the work tree")
                    && run.stderr.contains(".git/hooks"),
                "{value}: {}",
                run.stderr
            );
            assert_eq!(repo_state(&env, &repo), before, "{value}: {args:?} wrote");
            assert_eq!(env.snapshot(&wt), agent_before, "{value}: {args:?} wrote");
            assert!(!wt.join("hooks").exists() && !repo.join("fleet.toml").exists());
            assert_eq!(env.git(&wt, &["status", "--porcelain"]), "");
        }
    }

    // An ignored folder (husky's `.husky/_`) is no trap: nothing to commit.
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[("a.txt", "one\n"), (".gitignore", "/hooks/\n")],
    );
    env.git(&repo, &["config", "core.hooksPath", "hooks"]);
    env.fleet(&repo, &["hooks", "install"]).ok();
    assert!(repo.join("hooks/pre-commit").is_file());
    let wt = env.agent(&repo, "a");
    assert!(wt.join("hooks/reference-transaction").is_file());
    assert_eq!(env.git(&wt, &["status", "--porcelain"]), "");
}

fn written_target(repo: &Path) -> String {
    let text = std::fs::read_to_string(repo.join("fleet.toml")).unwrap();
    let v: toml::Value = toml::from_str(&text).unwrap();
    v["lanes"]["target"].as_str().unwrap().to_string()
}

#[test]
fn init_targets_the_branch_the_shared_checkout_has() {
    // On master: the file names master, the guard guards it, a lane lands on it.
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "master", &[("a.txt", "one\n")]);
    let run = env.fleet(&repo, &["init"]).ok();
    assert!(run.stderr.contains("target `master`"), "{}", run.stderr);
    assert_eq!(written_target(&repo), "master");
    let guarded = std::fs::read_to_string(repo.join(".git/fleet/guard-refs")).unwrap();
    assert_eq!(guarded, "refs/heads/master\n");
    let toml = std::fs::read_to_string(repo.join("fleet.toml")).unwrap();
    write(
        &repo.join("fleet.toml"),
        &toml.replacen("commands = []", "commands = [\"true\"]", 1),
    );
    env.git(&repo, &["add", "fleet.toml"]);
    env.git_cmd(&repo, &["commit", "-q", "-m", "adopt fleet"])
        .env("FLEET_ALLOW_SHARED", "1")
        .run()
        .ok();
    let wt = env.agent(&repo, "a");
    let tip = env.commit_file(&wt, "b.txt", "two\n", "lane work");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    env.fleet(&repo, &["land", "--yes", "a"]).ok();
    let landed = env.git(&repo, &["rev-parse", "master:b.txt"]);
    assert_eq!(
        landed,
        env.git(&repo, &["rev-parse", &format!("{tip}:b.txt")])
    );
    assert!(!env.branches(&repo).contains(&"refs/heads/main".to_string()));
    let (code, all) = doctor(&env, &repo);
    assert_eq!(code, 0, "{all:#}");

    // Unborn: the branch HEAD names.
    let env = Env::new();
    let repo = env.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    env.git(&repo, &["init", "-q", "-b", "trunk"]);
    env.fleet(&repo, &["init"]).ok();
    assert_eq!(written_target(&repo), "trunk");

    // Detached: refused, nothing written.
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "master", &[("a.txt", "one\n")]);
    env.git(&repo, &["checkout", "-q", "--detach"]);
    let before = repo_state(&env, &repo);
    let run = env.fleet(&repo, &["init"]).code(1);
    assert!(
        run.stderr.contains("detached HEAD") && run.stderr.contains("git switch"),
        "{}",
        run.stderr
    );
    assert_eq!(repo_state(&env, &repo), before);
    assert!(!repo.join("fleet.toml").exists());
}
