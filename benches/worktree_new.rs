//! Side-by-side benchmark: `fleet worktree new` against what a user would otherwise run.
//!
//!   cargo bench --bench worktree_new              # synthetic 24,000-file repository
//!   FLEET_BENCH_RUNS=9 cargo bench --bench worktree_new
//!
//! 1. Outer repository only: `git worktree add -b B PATH main` vs `fleet worktree new`.
//! 2. With three nested repositories: git run once per repository, one after another
//!    (what a script would do), vs one `fleet worktree new`.
//! 3. `fleet preflight` inside an agent worktree (process start included).
//!
//! Medians of several runs, runs of both tools interleaved. Worktrees are only removed
//! after all timed runs: this machine's file system slows file creation right after a
//! mass deletion.

mod common;

use std::path::Path;

use common::{Env, median, ms, report};

const OUTER_FILES: usize = 24_000;
const NESTED_FILES: usize = 4_000;

fn main() {
    let runs = common::runs(5);
    let env = Env::new();
    let base = &env.base;

    eprintln!("building a {OUTER_FILES}-file repository ...");
    let outer = base.join("outer");
    env.make_repo(&outer, OUTER_FILES, 1);
    std::fs::write(outer.join(".gitignore"), "nested-*/\n").unwrap();
    env.git(&outer, &["add", ".gitignore"]);
    env.git(&outer, &["commit", "-q", "-m", "ignore nested"]);
    std::fs::write(
        outer.join("fleet.toml"),
        "[worktrees]\nroot = \"../fleet-wt\"\n",
    )
    .unwrap();

    println!("| case | git | fleet | ratio fleet/git |");
    println!("| --- | ---: | ---: | ---: |");

    let mut git_times = Vec::new();
    let mut fleet_times = Vec::new();
    for i in 0..runs {
        let git_case = || {
            env.time_git(
                &outer,
                &[
                    "worktree",
                    "add",
                    "-q",
                    "-b",
                    &format!("g{i}"),
                    base.join(format!("git-wt/g{i}")).to_str().unwrap(),
                    "main",
                ],
            )
        };
        let fleet_case = || env.time_fleet(&outer, &["worktree", "new", &format!("f{i}")]);
        if i % 2 == 0 {
            git_times.push(git_case());
            fleet_times.push(fleet_case());
        } else {
            fleet_times.push(fleet_case());
            git_times.push(git_case());
        }
    }
    report(
        &format!("outer repo, {OUTER_FILES} files"),
        &git_times,
        &fleet_times,
    );
    let outer_git = median(&git_times);

    eprintln!("adding three nested repositories of {NESTED_FILES} files ...");
    let nested = ["nested-a", "nested-b", "nested-c"];
    for (k, name) in nested.iter().enumerate() {
        env.make_repo(&outer.join(name), NESTED_FILES, 100 + k as u64);
    }
    let mut git_times = Vec::new();
    let mut fleet_times = Vec::new();
    for i in 0..runs {
        let git_case = || {
            let dest = base.join(format!("git-wt/n{i}"));
            let mut total = env.time_git(
                &outer,
                &[
                    "worktree",
                    "add",
                    "-q",
                    "-b",
                    &format!("n{i}"),
                    dest.to_str().unwrap(),
                    "main",
                ],
            );
            for name in nested {
                total += env.time_git(
                    &outer.join(name),
                    &[
                        "worktree",
                        "add",
                        "-q",
                        "-b",
                        &format!("n{i}"),
                        dest.join(name).to_str().unwrap(),
                    ],
                );
            }
            total
        };
        let fleet_case = || env.time_fleet(&outer, &["worktree", "new", &format!("m{i}")]);
        if i % 2 == 0 {
            git_times.push(git_case());
            fleet_times.push(fleet_case());
        } else {
            fleet_times.push(fleet_case());
            git_times.push(git_case());
        }
    }
    report(
        "outer + 3 nested (git: one repo after another)",
        &git_times,
        &fleet_times,
    );
    println!(
        "| fleet with 3 nested vs git outer only | {} | {} | {:.2} |",
        ms(outer_git),
        ms(median(&fleet_times)),
        median(&fleet_times).as_secs_f64() / outer_git.as_secs_f64()
    );

    let agent = base.join("fleet-wt/m0");
    let mut pre = Vec::new();
    let mut status = Vec::new();
    for _ in 0..31 {
        pre.push(env.time_fleet(&agent, &["preflight"]));
        status.push(env.time_git(&agent, &["rev-parse", "--abbrev-ref", "HEAD"]));
    }
    println!(
        "| `fleet preflight` (vs `git rev-parse --abbrev-ref HEAD`) | {} | {} | {:.2} |",
        ms(median(&status)),
        ms(median(&pre)),
        median(&pre).as_secs_f64() / median(&status).as_secs_f64()
    );
    eprintln!("runs per case: {runs} (preflight: 31); cleaning up ...");
}

impl Env {
    /// A repository of `files` files of source-like text (200 B to 16 KiB) spread over
    /// nested folders, in one commit.
    fn make_repo(&self, dir: &Path, files: usize, seed: u64) {
        std::fs::create_dir_all(dir).unwrap();
        self.git(dir, &["init", "-q", "-b", "main"]);
        let mut rng = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            rng >> 33
        };
        for i in 0..files {
            let path = dir.join(format!(
                "pkg{}/mod{}/sub{}/file{i}.py",
                i % 12,
                (i / 12) % 40,
                (i / 480) % 5
            ));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let len = 200 + (next() % 16_000) as usize;
            let mut text = String::with_capacity(len + 64);
            while text.len() < len {
                text.push_str(&format!(
                    "def f_{}(x):\n    return x * {}\n",
                    next() % 100_000,
                    next() % 977
                ));
            }
            std::fs::write(path, text).unwrap();
        }
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", "import"]);
    }
}
