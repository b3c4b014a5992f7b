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

mod common;

use std::path::Path;
use std::time::Instant;

use common::{Env, median, report};

fn main() {
    let env = Env::new();
    let base = &env.base;

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
            track(&env, &a, &["--ready"], lanes);
            let started = Instant::now();
            env.fleet(&a, &["land", "--all", "--yes"]);
            ours.push(started.elapsed() / lanes as u32);
            let started = Instant::now();
            for lane in lane_names(lanes) {
                env.git(&b, &["checkout", "-q", "main"]);
                env.git(&b, &["merge", "-q", "--no-ff", "--no-edit", &lane]);
                common::check(env.cmd(Path::new("true"), &b, &[]));
            }
            shell.push(started.elapsed() / lanes as u32);
            assert_eq!(
                env.git_stdout(&a, &["rev-list", "--count", "main"]).trim(),
                (lanes + 1).to_string()
            );
        }
        report(&format!("land {lanes} lanes, per lane"), &shell, &ours);
    }

    let dir = base.join("status");
    env.make_repo_with_branches(&dir, 1000);
    track(&env, &dir, &[], 1000);
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
        env.fleet(&dir, &["status", "--json"]);
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

    batches(&env, base);
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
                track(env, &dir, &["--ready"], LANES);
                let mut args = vec!["land", "--all", "--yes", "--json"];
                args.extend_from_slice(extra);
                let started = Instant::now();
                let out = fleet_stdout(env, &dir, &args);
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

/// A `fleet.toml` whose gate is the one command `gate`.
fn gate_toml(gate: &str) -> String {
    format!("[gate]\ncommands = [{gate:?}]\n")
}

/// `fleet track FLAGS lane-0 .. lane-(n-1)`, which must succeed.
fn track(env: &Env, dir: &Path, flags: &[&str], n: usize) {
    let names = lane_names(n);
    let mut args = vec!["track"];
    args.extend_from_slice(flags);
    args.extend(names.iter().map(String::as_str));
    env.fleet(dir, &args);
}

/// fleet's stdout, whatever its exit code (a red lane exits 1).
fn fleet_stdout(env: &Env, dir: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&common::output(env.fleet_cmd(dir, args)).stdout).into_owned()
}

impl Env {
    /// 200 files, a trivial gate, and `lanes` branches of one commit each (one new file).
    fn make_repo_with_lanes(&self, dir: &Path, lanes: usize) {
        self.make_repo_with_lanes_gate(dir, lanes, "true", None);
    }

    /// As `make_repo_with_lanes`, with `gate` as the gate command; lane `bad` (when
    /// given) also adds a file named `bad`.
    fn make_repo_with_lanes_gate(&self, dir: &Path, lanes: usize, gate: &str, bad: Option<usize>) {
        self.base_repo(dir, &gate_toml(gate));
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
        self.base_repo(dir, &gate_toml("true"));
        let main = self.git_stdout(dir, &["rev-parse", "main"]);
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
            .git_cmd(dir, &["fast-import", "--quiet"])
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
}
