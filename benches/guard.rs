//! Side-by-side benchmark: the time a guard adds to one commit in an agent worktree.
//!
//!   .ci/install-hook-managers && cargo bench --bench guard
//!   FLEET_BENCH_RUNS=101 cargo bench --bench guard
//!
//! One `git commit --allow-empty -q -m x` in a linked worktree (made by `fleet worktree
//! new`) of a 200-file repository, with, side by side:
//!
//! - no hooks;
//! - fleet's hooks (`fleet hooks install`);
//! - pre-commit with pre-commit-hooks' `no-commit-to-branch`, run as a `repo: local`
//!   `language: system` hook (the installed `no-commit-to-branch` script from PyPI):
//!   a `repo:` URL would need pre-commit to clone from the network;
//! - prek with its built-in `no-commit-to-branch` (`repo: builtin`, no network);
//! - lefthook with one trivial script (`exit 0`): lefthook skips pre-commit *commands*
//!   when nothing is staged, as with `--allow-empty`; scripts it runs. Its shim is given
//!   `LEFTHOOK_BIN` (the native binary), lefthook's fastest way to find itself;
//! - a one-line shell pre-commit guard (git dir = common dir: refuse);
//! - not a guard, for reference: `#!/bin/sh` + `exit 0` in the four hooks fleet
//!   installs, the cost of git starting those hooks at all; and the same in
//!   reference-transaction alone, the floor under any guard that catches `--no-verify`.
//!
//! Runs are interleaved (every case once per round, the order rotating), median of
//! `FLEET_BENCH_RUNS` (default 41) after 3 warm-up commits each. Then fleet's hooks for a
//! `git fetch` of one new ref (reference-transaction runs on fetches too) against no
//! hooks, the same way. A tool that `.ci/install-hook-managers` did not install is
//! skipped, loudly.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::{Env, median, ms};

const SHELL_GUARD: &str = "#!/bin/sh\n\
    [ \"$(git rev-parse --git-dir)\" = \"$(git rev-parse --git-common-dir)\" ] && exit 1; exit 0\n";

fn main() {
    let runs = common::runs(41);
    let env = Env::new();
    let base = &env.base;
    let tools = managers_dir();

    let mut cases: Vec<Case> = Vec::new();
    cases.push(env.case(base, "no hooks", |_| {}, &[]));
    cases.push(env.case(
        base,
        "fleet hooks",
        |repo| env.fleet(repo, &["hooks", "install"]),
        &[],
    ));

    let venv = tools.join("venv/bin");
    if let Some(pre_commit) = tool(&venv.join("pre-commit"), "pre-commit") {
        let script = venv.join("no-commit-to-branch");
        let (entry, label) = if script.is_file() {
            (
                script.display().to_string(),
                "pre-commit, `no-commit-to-branch`",
            )
        } else {
            skip(
                "pre-commit-hooks",
                &script,
                "the pre-commit case runs `true` instead",
            );
            ("true".to_string(), "pre-commit, a `true` hook")
        };
        let config = format!(
            "repos:\n- repo: local\n  hooks:\n  - id: no-commit-to-branch\n    \
             name: no-commit-to-branch\n    entry: {entry}\n    language: system\n    \
             always_run: true\n    pass_filenames: false\n"
        );
        cases.push(env.case(
            base,
            label,
            |repo| {
                std::fs::write(repo.join(".pre-commit-config.yaml"), &config).unwrap();
                env.commit_all(repo);
                env.run(&pre_commit, repo, &["install"], &[]);
            },
            &[],
        ));
    }
    if let Some(prek) = tool(&venv.join("prek"), "prek") {
        let config = "repos:\n- repo: builtin\n  hooks:\n  - id: no-commit-to-branch\n";
        cases.push(env.case(
            base,
            "prek, builtin `no-commit-to-branch`",
            |repo| {
                std::fs::write(repo.join(".pre-commit-config.yaml"), config).unwrap();
                env.commit_all(repo);
                env.run(&prek, repo, &["install"], &[]);
            },
            &[],
        ));
    }
    let lefthook = lefthook_native(&tools.join("npm/node_modules"));
    if let Some(lefthook) = tool(
        &lefthook
            .unwrap_or_else(|| tools.join("npm/node_modules/lefthook-<platform>/bin/lefthook")),
        "lefthook",
    ) {
        let bin = lefthook.display().to_string();
        cases.push(env.case(
            base,
            "lefthook, one trivial script",
            |repo| {
                std::fs::create_dir_all(repo.join(".lefthook/pre-commit")).unwrap();
                std::fs::write(repo.join(".lefthook/pre-commit/noop.sh"), "exit 0\n").unwrap();
                std::fs::write(
                    repo.join("lefthook.yml"),
                    "pre-commit:\n  scripts:\n    \"noop.sh\":\n      runner: sh\n",
                )
                .unwrap();
                env.commit_all(repo);
                env.run(&lefthook, repo, &["install"], &[]);
            },
            &[("LEFTHOOK_BIN", bin.as_str())],
        ));
    }
    cases.push(env.case(
        base,
        "one-line shell guard",
        |repo| {
            let hook = repo.join(".git/hooks/pre-commit");
            std::fs::write(&hook, SHELL_GUARD).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        },
        &[],
    ));

    // Not a guard: the floor under any guard in fleet's hook slots, the cost of git
    // starting `#!/bin/sh` with `exit 0` for each of them (a commit runs pre-commit,
    // prepare-commit-msg and reference-transaction, the last once per state).
    cases.push(env.case(
        base,
        "no-op sh in fleet's 4 hooks",
        |repo| {
            use std::os::unix::fs::PermissionsExt;
            for hook in [
                "pre-commit",
                "prepare-commit-msg",
                "reference-transaction",
                "post-checkout",
            ] {
                let path = repo.join(".git/hooks").join(hook);
                std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        },
        &[],
    ));

    // The floor under any guard that catches `--no-verify`: reference-transaction alone,
    // which git 2.47 runs five times per commit (HEAD and the branch prepared and
    // committed; AUTO_MERGE's deletion aborted, prepared and committed).
    cases.push(env.case(
        base,
        "no-op sh in reference-transaction alone",
        |repo| {
            use std::os::unix::fs::PermissionsExt;
            let path = repo.join(".git/hooks/reference-transaction");
            std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        },
        &[],
    ));

    // Every case must be what it claims: the agent's commit passes, and the guards
    // refuse a commit in the shared checkout (no hooks and lefthook's no-op do not).
    for case in &cases {
        let guards = !(case.name == "no hooks"
            || case.name.starts_with("lefthook")
            || case.name.starts_with("no-op"));
        let shared = env.status(
            &case.repo,
            &["commit", "--allow-empty", "-q", "-m", "shared"],
            &case.env,
        );
        assert_eq!(
            !shared,
            guards,
            "{}: a commit in the shared checkout {}",
            case.name,
            if shared { "passed" } else { "was refused" }
        );
    }

    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for round in 0..runs + 3 {
        for k in 0..cases.len() {
            let i = (round + k) % cases.len();
            let case = &cases[i];
            let took = env.time(
                &case.worktree,
                &["commit", "--allow-empty", "-q", "-m", "x"],
                &case.env,
            );
            if round >= 3 {
                times[i].push(took);
            }
        }
    }

    let none = median(&times[0]);
    let fleet_added = median(&times[1]).saturating_sub(none);
    println!("`git commit --allow-empty -q -m x` in an agent worktree, median of {runs} runs:");
    println!();
    println!("| hooks | per commit | added vs no hooks | added, ratio to fleet's |");
    println!("| --- | ---: | ---: | ---: |");
    for (case, times) in cases.iter().zip(&times) {
        let total = median(times);
        let added = total.saturating_sub(none);
        let ratio = if case.name == "no hooks" {
            "-".to_string()
        } else {
            format!("{:.1}", added.as_secs_f64() / fleet_added.as_secs_f64())
        };
        println!(
            "| {} | {} | {} | {ratio} |",
            case.name,
            ms(total),
            if case.name == "no hooks" {
                "-".to_string()
            } else {
                format!("+{}", ms(added))
            }
        );
    }

    // A fetch of one new ref into the shared checkout: fleet's reference-transaction
    // hook runs for it (prepared and committed) and lets it through.
    let source = base.join("source");
    env.base_repo(&source, "");
    env.git(
        &source,
        &["commit", "--allow-empty", "-q", "-m", "to fetch"],
    );
    let url = source.display().to_string();
    let fetched = [&cases[0], &cases[1]];
    let mut fetch_times = [Vec::new(), Vec::new()];
    for round in 0..runs + 3 {
        for k in 0..2 {
            let i = (round + k) % 2;
            let refspec = format!("+refs/heads/main:refs/remotes/source/r{round}");
            let took = env.time(
                &fetched[i].repo,
                &["fetch", "-q", &url, &refspec],
                &fetched[i].env,
            );
            if round >= 3 {
                fetch_times[i].push(took);
            }
        }
    }
    let (bare, guarded) = (median(&fetch_times[0]), median(&fetch_times[1]));
    println!();
    println!(
        "`git fetch -q SOURCE +main:refs/remotes/source/rN` (one new ref), median of {runs} runs:"
    );
    println!();
    println!("| hooks | per fetch | added vs no hooks |");
    println!("| --- | ---: | ---: |");
    println!("| no hooks | {} | - |", ms(bare));
    println!(
        "| fleet hooks | {} | +{} |",
        ms(guarded),
        ms(guarded.saturating_sub(bare))
    );
}

struct Case {
    name: String,
    repo: PathBuf,
    worktree: PathBuf,
    env: Vec<(String, String)>,
}

/// `<target>/hook-managers`, where `.ci/install-hook-managers` puts the tools.
fn managers_dir() -> PathBuf {
    common::target_dir().join("hook-managers")
}

fn skip(name: &str, path: &Path, what: &str) {
    eprintln!(
        "SKIPPED: {name}: not installed because {} does not exist ({what}); \
         run .ci/install-hook-managers",
        path.display()
    );
}

fn tool(path: &Path, name: &str) -> Option<PathBuf> {
    if path.is_file() {
        Some(path.to_path_buf())
    } else {
        skip(name, path, "its case is left out");
        None
    }
}

/// lefthook's own binary from its npm platform package (`lefthook-linux-x64/bin/lefthook`).
fn lefthook_native(node_modules: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(node_modules)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("lefthook-"))
        .map(|e| e.path().join("bin/lefthook"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}

/// `cmd` with a case's extra variables (lefthook's `LEFTHOOK_BIN`).
fn with(mut cmd: Command, extra: &[(String, String)]) -> Command {
    cmd.envs(extra.iter().map(|(k, v)| (k, v)));
    cmd
}

impl Env {
    fn output(
        &self,
        program: &Path,
        dir: &Path,
        args: &[&str],
        extra: &[(String, String)],
    ) -> Output {
        common::output(with(self.cmd(program, dir, args), extra))
    }

    fn run(&self, program: &Path, dir: &Path, args: &[&str], extra: &[(String, String)]) {
        common::check(with(self.cmd(program, dir, args), extra));
    }

    fn status(&self, dir: &Path, args: &[&str], extra: &[(String, String)]) -> bool {
        self.output(Path::new("git"), dir, args, extra)
            .status
            .success()
    }

    /// Wall time of one git command, which must succeed.
    fn time(&self, dir: &Path, args: &[&str], extra: &[(String, String)]) -> Duration {
        common::timed(with(self.git_cmd(dir, args), extra))
    }

    fn commit_all(&self, dir: &Path) {
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "--no-verify", "-m", "hooks config"]);
    }

    /// A repository set up by `setup` (in its shared checkout), then an agent worktree.
    fn case(
        &self,
        base: &Path,
        name: &str,
        setup: impl FnOnce(&Path),
        extra: &[(&str, &str)],
    ) -> Case {
        let slug: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let repo = base.join(&slug).join("repo");
        self.base_repo(&repo, "");
        setup(&repo);
        let out = self.output(&self.fleet, &repo, &["worktree", "new", "agent"], &[]);
        assert!(
            out.status.success(),
            "{name}: fleet worktree new: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let worktree = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Case {
            name: name.to_string(),
            repo,
            worktree,
            env: extra
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }
}
