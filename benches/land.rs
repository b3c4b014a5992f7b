//! Side-by-side benchmark: landing lanes, and `fleet status` with many lanes.
//!
//!   cargo bench --bench land
//!
//! 1. Landing N one-commit lanes on a 200-file repository with a trivial gate (`true`):
//!    `fleet land --all --yes` against the shell-script way in the shared checkout
//!    (`git checkout main && git merge --no-ff lane && true`, per lane), as time per
//!    lane, for N = 10, 20 and 40 (to show it stays linear). Median of 3 runs each.
//! 2. `fleet status --json` with 1,000 tracked lanes, each adding a file (first run and
//!    warm, median of 5) against `git for-each-ref --format='%(ahead-behind:main)'` over the
//!    same branches; then, after the target moves on, a first run (every lane's merge
//!    predicted, median of 3) against `git merge-tree --write-tree` once per lane.
//! 3. Batches: 8 ready lanes with a gate that sleeps 2 s, landed one by one
//!    (`land --all`) against `land --all --batch`, all green and with lane 5 breaking
//!    the gate: wall time and gate runs, median of 3 runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let fleet = PathBuf::from(env!("CARGO_BIN_EXE_fleet"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path().canonicalize().unwrap();
    let home = base.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".gitconfig"), "").unwrap();
    let env = Env { home, fleet };

    println!("| case | shell / git | fleet | ratio fleet/other |");
    println!("| --- | ---: | ---: | ---: |");
    for lanes in [10, 20, 40] {
        let mut shell = Vec::new();
        let mut ours = Vec::new();
        for run in 0..3 {
            let dir = base.join(format!("land-{lanes}-{run}"));
            let (a, b) = (dir.join("fleet"), dir.join("shell"));
            env.make_repo_with_lanes(&a, lanes);
            env.make_repo_with_lanes(&b, lanes);
            env.fleet(&a, &["track", "--ready"], &lane_names(lanes));
            let started = Instant::now();
            env.fleet(&a, &["land", "--all", "--yes"], &[]);
            ours.push(started.elapsed() / lanes as u32);
            let started = Instant::now();
            for lane in lane_names(lanes) {
                env.git(&b, &["checkout", "-q", "main"]);
                env.git(&b, &["merge", "-q", "--no-ff", "--no-edit", &lane]);
                env.run(Path::new("true"), &b, &[]);
            }
            shell.push(started.elapsed() / lanes as u32);
            assert_eq!(
                env.output(&a, "git", &["rev-list", "--count", "main"])
                    .trim(),
                (lanes + 1).to_string()
            );
        }
        report(&format!("land {lanes} lanes, per lane"), &shell, &ours);
    }

    let dir = base.join("status");
    env.make_repo_with_branches(&dir, 1000);
    env.fleet(&dir, &["track"], &lane_names(1000));
    let for_each_ref = || {
        let started = Instant::now();
        env.git(
            &dir,
            &[
                "for-each-ref",
                "--format=%(refname:short) %(ahead-behind:main)",
                "refs/heads/lane-*",
            ],
        );
        started.elapsed()
    };
    // A first run computes every lane's facts; later runs reuse them until the target
    // or a lane moves. Deleting fleet's memo file makes each timed run a first run.
    let memo = dir.join(".git/fleet/cache/status-facts-v1.json");
    let status = |cold: bool| {
        if cold {
            let _ = std::fs::remove_file(&memo);
        }
        let started = Instant::now();
        env.fleet(&dir, &["status", "--json"], &[]);
        started.elapsed()
    };
    let (mut first, mut warm, mut git) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        first.push(status(true));
        warm.push(status(false));
        git.push(for_each_ref());
    }
    report(
        "`status --json`, 1000 lanes, first run (fills the cache)",
        &git,
        &first,
    );
    report("`status --json`, 1000 lanes, warm", &git, &warm);

    // The target moves on: every lane is now behind, so status predicts each merge.
    // What a user would otherwise run for that: `git merge-tree` once per lane.
    std::fs::write(dir.join("src/d0/f0.txt"), "moved on\n").unwrap();
    env.git(&dir, &["commit", "-q", "-am", "target moves on"]);
    let (mut moved, mut merge_tree) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        moved.push(status(true));
        let started = Instant::now();
        for lane in lane_names(1000) {
            env.git(&dir, &["merge-tree", "--write-tree", "main", &lane]);
        }
        merge_tree.push(started.elapsed());
    }
    report(
        "`status --json`, 1000 lanes behind a moved target, first run (vs `git merge-tree` per lane)",
        &merge_tree,
        &moved,
    );

    batches(&env, &base);
}

/// Section 3: one by one against --batch, with a 2 s gate.
fn batches(env: &Env, base: &Path) {
    const LANES: usize = 8;
    let gate = "sleep 2; test ! -e bad";
    println!();
    println!("| 8 lanes, gate sleeps 2 s | one by one | `--batch` | ratio batch/one-by-one |");
    println!("| --- | ---: | ---: | ---: |");
    for (case, bad) in [("all green", None), ("lane 5 breaks the gate", Some(4))] {
        let (mut single, mut batch) = (Vec::new(), Vec::new());
        let (mut single_runs, mut batch_runs) = (0, 0);
        for run in 0..3 {
            let timed = |name: &str, extra: &[&str]| {
                let dir = base.join(format!("batch-{}-{name}-{run}", bad.is_some()));
                env.make_repo_with_lanes_gate(&dir, LANES, gate, bad);
                env.fleet(&dir, &["track", "--ready"], &lane_names(LANES));
                let mut args = vec!["land", "--all", "--yes", "--json"];
                args.extend_from_slice(extra);
                let started = Instant::now();
                let out = env.output_any(&dir, &args);
                let took = started.elapsed();
                let v: serde_json::Value = serde_json::from_str(&out).expect("json");
                let runs = v["gate_runs"].as_u64().unwrap_or_else(|| {
                    // One by one prints the lane array; every gated lane ran once.
                    v.as_array()
                        .map(|a| a.iter().filter(|l| l["result"] != "already-landed").count())
                        .unwrap_or(0) as u64
                });
                (took, runs)
            };
            let (t, r) = timed("single", &[]);
            single.push(t);
            single_runs = r;
            let (t, r) = timed("batch", &["--batch"]);
            batch.push(t);
            batch_runs = r;
        }
        let (s, b) = (median(&single), median(&batch));
        println!(
            "| {case}: wall time (gate runs) | {:.1} s ({single_runs}) | {:.1} s ({batch_runs}) | {:.2} |",
            s.as_secs_f64(),
            b.as_secs_f64(),
            b.as_secs_f64() / s.as_secs_f64()
        );
        println!(
            "| {case}: `--batch` in gate runs of 2 s | | {:.2}× | |",
            b.as_secs_f64() / 2.0
        );
    }
}

fn lane_names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("lane-{i}")).collect()
}

struct Env {
    home: PathBuf,
    fleet: PathBuf,
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

    fn output(&self, dir: &Path, program: &str, args: &[&str]) -> String {
        let out = self
            .cmd(Path::new(program), dir, args)
            .spawn()
            .and_then(|c| c.wait_with_output())
            .expect("spawn");
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn run(&self, program: &Path, dir: &Path, args: &[&str]) {
        let out = self
            .cmd(program, dir, args)
            .spawn()
            .and_then(|c| c.wait_with_output())
            .expect("spawn");
        assert!(
            out.status.success(),
            "{} {args:?}: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// fleet's stdout, whatever its exit code (a red lane exits 1).
    fn output_any(&self, dir: &Path, args: &[&str]) -> String {
        let out = self
            .cmd(&self.fleet, dir, args)
            .spawn()
            .and_then(|c| c.wait_with_output())
            .expect("spawn");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn git(&self, dir: &Path, args: &[&str]) {
        self.run(Path::new("git"), dir, args);
    }

    fn fleet(&self, dir: &Path, args: &[&str], more: &[String]) {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(more.iter().map(String::as_str));
        self.run(&self.fleet, dir, &all);
    }

    /// 200 files, a trivial gate, and `lanes` branches of one commit each (one new file).
    fn make_repo_with_lanes(&self, dir: &Path, lanes: usize) {
        self.make_repo_with_lanes_gate(dir, lanes, "true", None);
    }

    /// As `make_repo_with_lanes`, with `gate` as the gate command; lane `bad` (when
    /// given) also adds a file named `bad`.
    fn make_repo_with_lanes_gate(&self, dir: &Path, lanes: usize, gate: &str, bad: Option<usize>) {
        self.base_repo(dir, gate);
        let scratch = dir.with_extension("scratch");
        self.git(
            dir,
            &[
                "worktree",
                "add",
                "-q",
                "--detach",
                scratch.to_str().unwrap(),
            ],
        );
        for i in 0..lanes {
            self.git(
                &scratch,
                &["switch", "-q", "-c", &format!("lane-{i}"), "main"],
            );
            std::fs::write(scratch.join(format!("lane-{i}.txt")), format!("{i}\n")).unwrap();
            if bad == Some(i) {
                std::fs::write(scratch.join("bad"), "x\n").unwrap();
            }
            self.git(&scratch, &["add", "-A"]);
            self.git(&scratch, &["commit", "-q", "-m", &format!("lane {i}")]);
        }
        self.git(
            dir,
            &["worktree", "remove", "--force", scratch.to_str().unwrap()],
        );
    }

    /// `n` branches, each one commit ahead of main adding its own file, made in one
    /// `git fast-import`.
    fn make_repo_with_branches(&self, dir: &Path, n: usize) {
        self.base_repo(dir, "true");
        let main = self.output(dir, "git", &["rev-parse", "main"]);
        let mut stream = String::new();
        for i in 0..n {
            let text = format!("lane {i}\n");
            stream.push_str(&format!(
                "commit refs/heads/lane-{i}\ncommitter Bench <bench@example.invalid> 1700000000 +0000\n\
                 data 5\nlane\nfrom {}\nM 100644 inline lane-{i}.txt\ndata {}\n{text}\n",
                main.trim(),
                text.len()
            ));
        }
        let mut child = self
            .cmd(Path::new("git"), dir, &["fast-import", "--quiet"])
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stream.as_bytes())
            .unwrap();
        assert!(child.wait_with_output().unwrap().status.success());
    }

    fn base_repo(&self, dir: &Path, gate: &str) {
        std::fs::create_dir_all(dir).unwrap();
        self.git(dir, &["init", "-q", "-b", "main"]);
        for i in 0..200 {
            let path = dir.join(format!("src/d{}/f{i}.txt", i % 10));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("file {i}\n").repeat(20)).unwrap();
        }
        std::fs::write(
            dir.join("fleet.toml"),
            format!("[gate]\ncommands = [{gate:?}]\n"),
        )
        .unwrap();
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", "base"]);
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

fn report(case: &str, other: &[Duration], fleet: &[Duration]) {
    let (o, f) = (median(other), median(fleet));
    println!(
        "| {case} | {} | {} | {:.2} |",
        ms(o),
        ms(f),
        f.as_secs_f64() / o.as_secs_f64()
    );
}
