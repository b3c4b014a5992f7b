//! fleet's guard next to the hook managers people already use: pre-commit, prek,
//! lefthook (the real tools, installed by `.ci/install-hook-managers` under
//! `<target>/hook-managers`) and husky v9 (its stub files, written here: husky itself is
//! only an installer of those).
//!
//! For each: the manager's hooks are installed first, then `fleet hooks install` chains
//! them. Then (a) a commit in an agent worktree runs the manager's hook once and passes,
//! (b) the manager's hook failing fails that commit, (c) the shared checkout's commit is
//! refused by fleet, and (d) `fleet hooks uninstall` puts the manager's files back byte
//! for byte and mode for mode, and the manager's hook still runs.
//!
//! A tool that is not installed is skipped with a loud `SKIPPED:` line, not failed.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{Env, Run, write};

/// `<target>/hook-managers`, where `.ci/install-hook-managers` puts the tools.
fn managers_dir() -> PathBuf {
    crate::common::target_dir().join("hook-managers")
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The tool's binary, or a loud skip notice and `None`.
fn find_tool(manager: Manager, test: &str) -> Option<PathBuf> {
    let dir = managers_dir();
    let path = match manager {
        Manager::PreCommit => dir.join("venv/bin/pre-commit"),
        Manager::Prek => dir.join("venv/bin/prek"),
        Manager::Lefthook => lefthook_native(&dir.join("npm/node_modules"))
            .unwrap_or_else(|| dir.join("npm/node_modules/.bin/lefthook")),
    };
    if is_executable(&path) {
        return Some(path);
    }
    // Straight to stderr: libtest swallows `eprintln!` of a passing test, and a skip
    // must not look like a pass.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {test}: {} is not installed because {} does not exist; \
         run .ci/install-hook-managers (it needs the PyPI and npm registries)",
        manager.name(),
        path.display()
    );
    None
}

/// lefthook's own binary from its npm platform package (`lefthook-linux-x64/bin/lefthook`).
fn lefthook_native(node_modules: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(node_modules)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("lefthook-"))
        .map(|e| e.path().join("bin/lefthook"))
        .filter(|p| is_executable(p))
        .collect();
    dirs.sort();
    dirs.into_iter().next()
}

#[derive(Clone, Copy, Debug)]
enum Manager {
    PreCommit,
    Prek,
    Lefthook,
}

impl Manager {
    fn name(self) -> &'static str {
        match self {
            Manager::PreCommit => "pre-commit",
            Manager::Prek => "prek",
            Manager::Lefthook => "lefthook",
        }
    }

    /// The committed config file: one local hook running `check`.
    fn config(self, check: &Path) -> (&'static str, String) {
        let check = check.display();
        match self {
            Manager::PreCommit | Manager::Prek => (
                ".pre-commit-config.yaml",
                format!(
                    "repos:\n- repo: local\n  hooks:\n  - id: check\n    name: check\n    \
                     entry: {check}\n    language: system\n    always_run: true\n    \
                     pass_filenames: false\n"
                ),
            ),
            Manager::Lefthook => (
                "lefthook.yml",
                format!("pre-commit:\n  commands:\n    check:\n      run: {check}\n"),
            ),
        }
    }
}

/// Run a program with the same hermetic environment `common` gives git and fleet.
fn run_tool(env: &Env, dir: &Path, program: &Path, args: &[&str]) -> Run {
    let home = env.path().join("home");
    let out = Command::new(program)
        .current_dir(dir)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("NO_COLOR", "1")
        // stdin: a pipe closed at once (never /dev/null on these machines).
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|c| c.wait_with_output())
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every entry of a hooks folder: name -> (bytes, or the link target of a symlink; mode).
fn hook_files(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        let bytes = if meta.file_type().is_symlink() {
            std::fs::read_link(entry.path())
                .unwrap()
                .into_os_string()
                .into_encoded_bytes()
        } else if meta.is_file() {
            std::fs::read(entry.path()).unwrap()
        } else {
            continue;
        };
        files.insert(
            entry.file_name().to_string_lossy().into_owned(),
            (bytes, meta.permissions().mode()),
        );
    }
    files
}

fn assert_same_files(
    before: &BTreeMap<String, (Vec<u8>, u32)>,
    after: &BTreeMap<String, (Vec<u8>, u32)>,
    what: &str,
) {
    let names = |m: &BTreeMap<String, (Vec<u8>, u32)>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(after), names(before), "{what}: files differ");
    for (name, (bytes, mode)) in before {
        let (after_bytes, after_mode) = &after[name];
        assert!(
            after_bytes == bytes,
            "{what}: {name} not restored byte for byte:\nbefore:\n{}\nafter:\n{}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(after_bytes)
        );
        assert_eq!(
            after_mode, mode,
            "{what}: {name} mode {after_mode:o}, was {mode:o}"
        );
    }
}

/// The manager's hook: appends "ran in <folder>" to `marker`, fails while `stop` exists.
struct Check {
    script: PathBuf,
    marker: PathBuf,
    stop: PathBuf,
}

impl Check {
    fn new(env: &Env) -> Check {
        let dir = env.path().join("check");
        let (script, marker, stop) = (dir.join("check.sh"), dir.join("ran"), dir.join("stop"));
        write(
            &script,
            &format!(
                "#!/bin/sh\necho \"ran in $(pwd)\" >> '{}'\nif [ -e '{}' ]; then\n    \
                 echo 'check: the stop file is there' >&2\n    exit 1\nfi\nexit 0\n",
                marker.display(),
                stop.display()
            ),
        );
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        Check {
            script,
            marker,
            stop,
        }
    }

    fn runs(&self) -> Vec<String> {
        std::fs::read_to_string(&self.marker)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    fn stop(&self, on: bool) {
        if on {
            write(&self.stop, "");
        } else {
            let _ = std::fs::remove_file(&self.stop);
        }
    }
}

/// Stage a new file and commit it (lefthook skips its pre-commit commands when nothing
/// is staged, so every commit here carries a file).
fn commit(env: &Env, dir: &Path, name: &str) -> Run {
    write(&dir.join(name), &format!("{name}\n"));
    env.git(dir, &["add", name]);
    env.git_cmd(dir, &["commit", "-q", "-m", name]).run()
}

fn new_worktree(env: &Env, repo: &Path, name: &str) -> PathBuf {
    PathBuf::from(
        env.fleet(repo, &["worktree", "new", name])
            .ok()
            .stdout
            .trim(),
    )
}

fn refused_by_fleet(run: &Run, what: &str) {
    assert_ne!(run.code, 0, "{what} was not refused");
    assert!(
        run.stderr.contains("fleet guard"),
        "{what} failed without the guard saying why: {}",
        run.stderr
    );
}

/// One manager through (a) to (d).
fn manager_case(manager: Manager, test: &str) {
    let Some(tool) = find_tool(manager, test) else {
        return;
    };
    let env = Env::new();
    let check = Check::new(&env);
    let repo = env.path().join("repo");
    let (config_name, config) = manager.config(&check.script);
    env.repo(
        &repo,
        "main",
        &[
            ("a.txt", "one\n"),
            ("fleet.toml", ""),
            (config_name, &config),
        ],
    );
    let installed = run_tool(&env, &repo, &tool, &["install"]);
    assert_eq!(
        installed.code,
        0,
        "{} install: {}{}",
        manager.name(),
        installed.stdout,
        installed.stderr
    );
    let hooks = repo.join(".git/hooks");
    let theirs = hook_files(&hooks);
    assert!(
        theirs.contains_key("pre-commit"),
        "{} installed no pre-commit",
        manager.name()
    );

    env.fleet(&repo, &["hooks", "install"]).ok();
    let status = env.fleet(&repo, &["hooks", "status", "--json"]).ok();
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let pre_commit = status[0]["dirs"][0]["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "pre-commit")
        .unwrap()
        .clone();
    assert_eq!(pre_commit["state"], "chained", "{pre_commit}");
    let wt = new_worktree(&env, &repo, "agent");

    // (a) the agent's commit runs the manager's hook, once, in the agent worktree.
    let head = env.git(&wt, &["rev-parse", "HEAD"]);
    let run = commit(&env, &wt, "agent-1.txt");
    assert_eq!(run.code, 0, "agent commit failed: {}", run.stderr);
    assert_ne!(env.git(&wt, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        check.runs(),
        [format!("ran in {}", wt.display())],
        "the manager's hook did not run exactly once in the agent worktree"
    );

    // (b) the manager's hook failing fails the agent's commit.
    check.stop(true);
    let head = env.git(&wt, &["rev-parse", "HEAD"]);
    let run = commit(&env, &wt, "agent-2.txt");
    assert_ne!(
        run.code, 0,
        "the manager's failing hook did not stop the commit"
    );
    assert!(
        run.stderr.contains("stop file") || run.stdout.contains("stop file"),
        "the failure is not the manager's hook's: {}{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(env.git(&wt, &["rev-parse", "HEAD"]), head);
    assert_eq!(check.runs().len(), 2);
    check.stop(false);

    // (c) the shared checkout's commit is refused by fleet and changes nothing; the
    // manager's hook ran first, as a chained hook does.
    let main = env.git(&repo, &["rev-parse", "main"]);
    write(&repo.join("shared.txt"), "shared\n");
    env.git(&repo, &["add", "shared.txt"]);
    let before = env.snapshot(&repo);
    let run = env.git_cmd(&repo, &["commit", "-q", "-m", "sneak"]).run();
    refused_by_fleet(&run, "a commit in the shared checkout");
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    assert_eq!(env.snapshot(&repo), before);
    assert_eq!(
        check.runs().last().unwrap(),
        &format!("ran in {}", repo.display())
    );

    // (d) uninstall gives the manager its files back exactly, and its hook still runs.
    env.fleet(&repo, &["hooks", "uninstall"]).ok();
    assert_same_files(&theirs, &hook_files(&hooks), manager.name());
    let runs = check.runs().len();
    let run = commit(&env, &wt, "agent-3.txt");
    assert_eq!(run.code, 0, "agent commit after uninstall: {}", run.stderr);
    assert_eq!(check.runs().len(), runs + 1);
    check.stop(true);
    let run = commit(&env, &wt, "agent-4.txt");
    assert_ne!(
        run.code, 0,
        "after uninstall the manager's hook no longer fails"
    );
    check.stop(false);
    // Unguarded now: the staged change in the shared checkout commits, through the hook.
    let run = env
        .git_cmd(&repo, &["commit", "-q", "-m", "free again"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        check.runs().last().unwrap(),
        &format!("ran in {}", repo.display())
    );
}

#[test]
fn pre_commit_hooks_are_chained_and_given_back() {
    manager_case(
        Manager::PreCommit,
        "pre_commit_hooks_are_chained_and_given_back",
    );
}

#[test]
fn prek_hooks_are_chained_and_given_back() {
    manager_case(Manager::Prek, "prek_hooks_are_chained_and_given_back");
}

#[test]
fn lefthook_hooks_are_chained_and_given_back() {
    manager_case(
        Manager::Lefthook,
        "lefthook_hooks_are_chained_and_given_back",
    );
}

/// A lefthook repository whose hooks fleet chained, with an agent worktree.
fn lefthook_guarded(env: &Env, tool: &Path, check: &Check) -> (PathBuf, PathBuf) {
    let repo = env.path().join("repo");
    let (config_name, config) = Manager::Lefthook.config(&check.script);
    env.repo(&repo, "main", &[("fleet.toml", ""), (config_name, &config)]);
    run_tool(env, &repo, tool, &["install"]).ok();
    env.fleet(&repo, &["hooks", "install"]).ok();
    let wt = new_worktree(env, &repo, "agent");
    (repo, wt)
}

/// Commit a change to lefthook.yml from the agent worktree: lefthook's run sees its
/// config checksum changed and re-installs its hooks, moving fleet's `pre-commit` to
/// `pre-commit.old` (which lefthook never runs) and writing its shim in its place.
fn lefthook_resync(env: &Env, repo: &Path, wt: &Path, check: &Check) {
    let config = format!(
        "pre-commit:\n  commands:\n    check:\n      run: {}\n    again:\n      run: 'true'\n",
        check.script.display()
    );
    write(&wt.join("lefthook.yml"), &config);
    // lefthook trusts its checksum file while the config is no newer than the time
    // recorded in it (whole seconds): make the change visibly later.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(wt.join("lefthook.yml"))
        .and_then(|f| f.set_modified(later))
        .unwrap();
    env.git(wt, &["add", "lefthook.yml"]);
    env.git(wt, &["commit", "-q", "-m", "lefthook: one more command"]);
    let hooks = repo.join(".git/hooks");
    let resynced = std::fs::read_to_string(hooks.join("pre-commit")).unwrap();
    assert!(
        !resynced.contains("fleet-guard-hook") && hooks.join("pre-commit.old").is_file(),
        "lefthook no longer re-syncs over fleet's hook; this test's premise is gone"
    );
}

/// lefthook re-installs its hooks on the next run after its config changes, moving
/// whatever stands at `pre-commit` (fleet's script) to `pre-commit.old`, which it never
/// runs. The ref guard (reference-transaction, which lefthook does not manage) still
/// refuses the shared checkout's commit.
#[test]
fn lefthook_resyncing_over_fleet_leaves_the_shared_checkout_refused() {
    let test = "lefthook_resyncing_over_fleet_leaves_the_shared_checkout_refused";
    let Some(tool) = find_tool(Manager::Lefthook, test) else {
        return;
    };
    let env = Env::new();
    let check = Check::new(&env);
    let (repo, wt) = lefthook_guarded(&env, &tool, &check);
    lefthook_resync(&env, &repo, &wt, &check);
    let main = env.git(&repo, &["rev-parse", "main"]);
    write(&repo.join("shared.txt"), "shared\n");
    env.git(&repo, &["add", "shared.txt"]);
    let run = env.git_cmd(&repo, &["commit", "-q", "-m", "sneak"]).run();
    refused_by_fleet(
        &run,
        "a commit in the shared checkout after lefthook re-synced",
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    // fleet sees that its pre-commit is gone.
    let status = env.fleet(&repo, &["hooks", "status"]).code(1);
    assert!(status.stdout.contains("missing"), "{}", status.stdout);
}

/// After a hook manager wrote its shim over fleet's (lefthook's re-sync above, husky on
/// every `npm install`), the new shim is byte for byte the one already chained:
/// `fleet hooks install` takes the slot back.
#[test]
fn fleet_hooks_install_takes_back_a_hook_a_manager_rewrote() {
    let test = "fleet_hooks_install_takes_back_a_hook_a_manager_rewrote";
    let Some(tool) = find_tool(Manager::Lefthook, test) else {
        return;
    };
    let env = Env::new();
    let check = Check::new(&env);
    let (repo, wt) = lefthook_guarded(&env, &tool, &check);
    let hooks = repo.join(".git/hooks");
    let chained = std::fs::read(hooks.join("pre-commit.fleet-chained")).unwrap();
    lefthook_resync(&env, &repo, &wt, &check);
    assert_eq!(std::fs::read(hooks.join("pre-commit")).unwrap(), chained);
    env.fleet(&repo, &["hooks", "install"]).ok();
    env.fleet(&repo, &["hooks", "status"]).ok();
    let before = check.runs().len();
    assert_eq!(commit(&env, &wt, "w.txt").code, 0);
    assert_eq!(
        check.runs().len(),
        before + 1,
        "lefthook's hook ran not once"
    );
    write(&repo.join("shared.txt"), "shared\n");
    env.git(&repo, &["add", "shared.txt"]);
    let run = env.git_cmd(&repo, &["commit", "-q", "-m", "sneak"]).run();
    refused_by_fleet(&run, "a commit in the shared checkout");
}

/// husky v9's `.husky/_/h`, as its installer copies it (husky 9.1).
const HUSKY_H: &str = r#"#!/usr/bin/env sh
[ "$HUSKY" = "2" ] && set -x
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n

[ ! -f "$s" ] && exit 0

if [ -f "$HOME/.huskyrc" ]; then
	echo "husky - '~/.huskyrc' is DEPRECATED, please move your code to ~/.config/husky/init.sh"
fi
i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"
[ -f "$i" ] && . "$i" "$n"

[ "${HUSKY-}" = "0" ] && exit 0

export PATH="node_modules/.bin:$PATH"
sh -e "$s" "$@"
c=$?

[ $c != 0 ] && echo "husky - $n script failed (code $c)"
[ $c = 127 ] && echo "husky - command not found in PATH=$PATH"
exit $c
"#;

/// The hooks husky v9 writes a stub for.
const HUSKY_HOOKS: [&str; 13] = [
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-rebase",
    "post-rewrite",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-auto-gc",
];

/// What `husky` (v9, run by `npm install`'s `prepare`) does in a checkout: relative
/// `core.hooksPath=.husky/_`, and `.husky/_` (ignored by its own `.gitignore`) holding
/// `h` and a two-line stub per hook that sources it.
fn husky_install(env: &Env, checkout: &Path) {
    env.git(checkout, &["config", "core.hooksPath", ".husky/_"]);
    let dir = checkout.join(".husky/_");
    write(&dir.join(".gitignore"), "*");
    write(&dir.join("h"), HUSKY_H);
    for hook in HUSKY_HOOKS {
        let path = dir.join(hook);
        write(&path, "#!/usr/bin/env sh\n. \"${0%/*}/h\"");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    write(&dir.join("husky.sh"), "");
}

/// A repository whose committed `.husky/pre-commit` runs the check, husky installed in
/// the shared checkout and in an agent worktree (each runs `npm install` itself), then
/// fleet's hooks installed over both.
fn husky_guarded(env: &Env, check: &Check) -> (PathBuf, PathBuf) {
    let repo = env.path().join("repo");
    let user_hook = format!("{}\n", check.script.display());
    env.repo(
        &repo,
        "main",
        &[
            ("a.txt", "one\n"),
            ("fleet.toml", ""),
            (".husky/pre-commit", &user_hook),
        ],
    );
    husky_install(env, &repo);
    let wt = new_worktree(env, &repo, "agent");
    assert!(
        !wt.join(".husky/_").exists(),
        "the unguarded `fleet worktree new` wrote into .husky/_"
    );
    husky_install(env, &wt);
    (repo, wt)
}

#[test]
fn husky_v9_hooks_still_run_through_fleets_chaining() {
    let env = Env::new();
    let check = Check::new(&env);
    let (repo, wt) = husky_guarded(&env, &check);
    // Without fleet: the user's hook runs through husky's stub.
    assert_eq!(commit(&env, &wt, "before.txt").code, 0);
    assert_eq!(check.runs(), [format!("ran in {}", wt.display())]);
    let theirs = [
        hook_files(&repo.join(".husky/_")),
        hook_files(&wt.join(".husky/_")),
    ];

    let install = env.fleet(&repo, &["hooks", "install"]).ok();
    // The relative hooks path resolves once per worktree: both copies are chained.
    for dir in [&repo, &wt] {
        assert!(
            dir.join(".husky/_/pre-commit.fleet-chained").is_file(),
            "{} not chained: {}",
            dir.display(),
            install.stdout
        );
    }

    // (a) the agent's commit runs the user's .husky/pre-commit through `h`, once.
    let run = commit(&env, &wt, "agent-1.txt");
    assert_eq!(run.code, 0, "agent commit failed: {}", run.stderr);
    assert_eq!(check.runs().len(), 2);
    assert_eq!(
        check.runs().last().unwrap(),
        &format!("ran in {}", wt.display())
    );
    // (b) it failing fails the commit, with husky's own message.
    check.stop(true);
    let head = env.git(&wt, &["rev-parse", "HEAD"]);
    let run = commit(&env, &wt, "agent-2.txt");
    assert_ne!(run.code, 0, "husky's failing hook did not stop the commit");
    assert!(
        format!("{}{}", run.stdout, run.stderr).contains("husky - pre-commit script failed"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(env.git(&wt, &["rev-parse", "HEAD"]), head);
    check.stop(false);
    // (c) the shared checkout: the user's hook runs first, then fleet refuses.
    let main = env.git(&repo, &["rev-parse", "main"]);
    write(&repo.join("shared.txt"), "shared\n");
    env.git(&repo, &["add", "shared.txt"]);
    let before = env.snapshot(&repo);
    let run = env.git_cmd(&repo, &["commit", "-q", "-m", "sneak"]).run();
    refused_by_fleet(&run, "a commit in the shared checkout");
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    assert_eq!(env.snapshot(&repo), before);
    assert_eq!(
        check.runs().last().unwrap(),
        &format!("ran in {}", repo.display())
    );
    // `--no-verify` skips husky and fleet's pre-commit alike; the ref guard still holds.
    let run = env
        .git_cmd(&repo, &["commit", "-q", "--no-verify", "-m", "sneak"])
        .run();
    refused_by_fleet(&run, "a --no-verify commit in the shared checkout");
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);

    // (d) uninstall gives husky both folders back exactly; its hook still runs.
    env.fleet(&repo, &["hooks", "uninstall"]).ok();
    assert_same_files(&theirs[0], &hook_files(&repo.join(".husky/_")), "shared");
    assert_same_files(&theirs[1], &hook_files(&wt.join(".husky/_")), "agent");
    let runs = check.runs().len();
    assert_eq!(commit(&env, &wt, "agent-3.txt").code, 0);
    assert_eq!(check.runs().len(), runs + 1);
    let run = env
        .git_cmd(&repo, &["commit", "-q", "-m", "free again"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(check.runs().len(), runs + 2);
}

/// husky writes its stubs again on every `npm install`, over fleet's pre-commit. The
/// ref guard, in a hook husky does not know, still refuses the shared checkout's commit.
#[test]
fn husky_reinstalling_over_fleet_leaves_the_shared_checkout_refused() {
    let env = Env::new();
    let check = Check::new(&env);
    let (repo, wt) = husky_guarded(&env, &check);
    env.fleet(&repo, &["hooks", "install"]).ok();
    husky_install(&env, &repo);
    husky_install(&env, &wt);
    assert_eq!(commit(&env, &wt, "agent.txt").code, 0);
    let main = env.git(&repo, &["rev-parse", "main"]);
    write(&repo.join("shared.txt"), "shared\n");
    env.git(&repo, &["add", "shared.txt"]);
    let run = env.git_cmd(&repo, &["commit", "-q", "-m", "sneak"]).run();
    refused_by_fleet(
        &run,
        "a commit in the shared checkout after husky re-installed",
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    assert_eq!(
        check.runs().last().unwrap(),
        &format!("ran in {}", repo.display()),
        "husky's hook did not run"
    );
}
