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

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const OUTER_FILES: usize = 24_000;
const NESTED_FILES: usize = 4_000;

fn main() {
    let runs: usize = std::env::var("FLEET_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let fleet = PathBuf::from(env!("CARGO_BIN_EXE_fleet"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path().canonicalize().unwrap();
    let home = base.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".gitconfig"), "").unwrap();
    let env = Env { home };

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
            env.time(
                &outer,
                "git",
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
        let fleet_case = || env.time_bin(&outer, &fleet, &["worktree", "new", &format!("f{i}")]);
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
            let mut total = env.time(
                &outer,
                "git",
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
                total += env.time(
                    &outer.join(name),
                    "git",
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
        let fleet_case = || env.time_bin(&outer, &fleet, &["worktree", "new", &format!("m{i}")]);
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
        pre.push(env.time_bin_code(&agent, &fleet, &["preflight"], 0));
        status.push(env.time(&agent, "git", &["rev-parse", "--abbrev-ref", "HEAD"]));
    }
    println!(
        "| `fleet preflight` (vs `git rev-parse --abbrev-ref HEAD`) | {} | {} | {:.2} |",
        ms(median(&status)),
        ms(median(&pre)),
        median(&pre).as_secs_f64() / median(&status).as_secs_f64()
    );
    eprintln!("runs per case: {runs} (preflight: 31); cleaning up ...");
}

struct Env {
    home: PathBuf,
}

impl Env {
    fn cmd(&self, program: &Path, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(dir)
            .args(args)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.join(".gitconfig"))
            .env("GIT_AUTHOR_NAME", "Bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.invalid")
            .env("GIT_COMMITTER_NAME", "Bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.invalid")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn run(&self, program: &Path, dir: &Path, args: &[&str], code: i32) -> Duration {
        let started = Instant::now();
        let out = self
            .cmd(program, dir, args)
            .spawn()
            .and_then(|c| c.wait_with_output())
            .expect("spawn");
        let took = started.elapsed();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{} {args:?}: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        took
    }

    fn git(&self, dir: &Path, args: &[&str]) {
        self.run(Path::new("git"), dir, args, 0);
    }

    fn time(&self, dir: &Path, program: &str, args: &[&str]) -> Duration {
        self.run(Path::new(program), dir, args, 0)
    }

    fn time_bin(&self, dir: &Path, bin: &Path, args: &[&str]) -> Duration {
        self.run(bin, dir, args, 0)
    }

    fn time_bin_code(&self, dir: &Path, bin: &Path, args: &[&str], code: i32) -> Duration {
        self.run(bin, dir, args, code)
    }

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

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn report(case: &str, git: &[Duration], fleet: &[Duration]) {
    let (g, f) = (median(git), median(fleet));
    println!(
        "| {case} | {} | {} | {:.2} |",
        ms(g),
        ms(f),
        f.as_secs_f64() / g.as_secs_f64()
    );
}
