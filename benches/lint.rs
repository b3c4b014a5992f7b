//! Side-by-side benchmark: `fleet lint` against semgrep running an equivalent rule, over
//! one large real code base.
//!
//!   bash benches/setup-lint-corpus && cargo bench --bench lint
//!   FLEET_BENCH_RUNS=9 cargo bench --bench lint
//!
//! The tree (`<target>/lint-bench/tree`, made by `benches/setup-lint-corpus`) holds the
//! source distributions of django, sympy, ansible-core, awscli and mypy, committed
//! together, plus `planted/`: a few Python files that start agent CLIs, compliant and
//! not, each expected finding marked `# finding` on its line.
//!
//! Timed, interleaved (one of each per round, the order alternating), median of
//! `FLEET_BENCH_RUNS` (default 5) after one warm-up run of each:
//!
//! - `fleet lint --json` (the release binary) in the tree: every tracked file;
//! - `semgrep scan --config benches/semgrep-agent-spawn.yml --json --metrics=off
//!   --disable-version-check` over the same tree, offline (`--oss-only`, no metrics, no
//!   version check, the rule from a local file);
//! - `semgrep --version`: semgrep's start-up, for reference.
//!
//! Then the two tools' findings on `planted/` (as `path:line`) are compared with each
//! other and with the `# finding` marks; any difference is printed. No corpus or no
//! semgrep: SKIPPED and why, exit 0.

mod common;

use common::lint::{
    all_ms, compare_planted, findings, hermetic, loadavg, ms, outside_planted, ratio, run,
};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const PLANTED: &str = "planted/";

fn main() {
    let runs = common::runs(5);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bench = common::target_dir().join("lint-bench");
    let tree = bench.join("tree");
    let semgrep = bench.join("venv/bin/semgrep");
    let rule = manifest.join("benches/semgrep-agent-spawn.yml");
    for (what, path) in [
        ("the corpus", tree.join(".git")),
        ("semgrep", semgrep.clone()),
    ] {
        if !path.exists() {
            println!(
                "SKIPPED: lint benchmark: {what} is missing ({} does not exist); \
                 run `bash benches/setup-lint-corpus` first (it needs PyPI)",
                path.display()
            );
            return;
        }
    }
    let fleet = PathBuf::from(env!("CARGO_BIN_EXE_fleet"));
    let home = tempfile::tempdir().expect("tempdir");

    println!("load average before: {}", loadavg());
    let corpus = Corpus::count(&tree);
    println!(
        "tree: {} ({} tracked files; {} Python files, {} lines of Python)",
        tree.display(),
        corpus.tracked,
        corpus.python_files,
        corpus.python_lines
    );
    let semgrep_version = text(&run(semgrep_cmd(
        &semgrep,
        home.path(),
        &tree,
        &["--version"],
    )));
    println!(
        "semgrep {}, fleet {} ({}), {} run(s) each, interleaved",
        semgrep_version.trim(),
        env!("CARGO_PKG_VERSION"),
        fleet.display(),
        runs
    );

    let fleet_args = ["lint", "--json"];
    let rule_arg = rule.display().to_string();
    let semgrep_args = [
        "scan",
        "--config",
        rule_arg.as_str(),
        "--json",
        "--metrics=off",
        "--disable-version-check",
        "--oss-only",
        ".",
    ];
    let fleet_cmd = || {
        let mut cmd = Command::new(&fleet);
        hermetic(&mut cmd, home.path(), &tree);
        cmd.args(fleet_args);
        cmd
    };
    let semgrep_scan = || semgrep_cmd(&semgrep, home.path(), &tree, &semgrep_args);
    let semgrep_start = || semgrep_cmd(&semgrep, home.path(), &tree, &["--version"]);

    // Warm-up (page cache, semgrep's own caches); their outputs are the ones compared.
    let fleet_out = run(fleet_cmd());
    let semgrep_out = run(semgrep_scan());
    run(semgrep_start());
    if !matches!(fleet_out.status.code(), Some(0 | 1)) {
        panic!(
            "fleet lint failed: {}",
            String::from_utf8_lossy(&fleet_out.stderr)
        );
    }
    if !matches!(semgrep_out.status.code(), Some(0 | 1)) {
        panic!(
            "semgrep failed: {}",
            String::from_utf8_lossy(&semgrep_out.stderr)
        );
    }

    let mut times: [Vec<Duration>; 3] = Default::default();
    for round in 0..runs {
        let mut order = [0usize, 1, 2];
        if round % 2 == 1 {
            order.reverse();
        }
        for case in order {
            let mut cmd = match case {
                0 => fleet_cmd(),
                1 => semgrep_scan(),
                _ => semgrep_start(),
            };
            let start = Instant::now();
            let out = cmd.output().expect("spawn");
            times[case].push(start.elapsed());
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "case {case} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let [fleet_t, semgrep_t, start_t] = [0, 1, 2].map(|i| common::median(&times[i]));

    let fleet_json: serde_json::Value =
        serde_json::from_slice(&fleet_out.stdout).expect("fleet lint --json is JSON");
    let semgrep_json: serde_json::Value =
        serde_json::from_slice(&semgrep_out.stdout).expect("semgrep --json is JSON");
    let fleet_found = findings(&fleet_json["findings"], |f| {
        Some((f["path"].as_str()?.to_string(), f["line"].as_u64()?))
    });
    let semgrep_found = findings(&semgrep_json["results"], |r| {
        let path = r["path"].as_str()?;
        let path = path.strip_prefix("./").unwrap_or(path).to_string();
        Some((path, r["start"]["line"].as_u64()?))
    });
    let semgrep_scanned = semgrep_json["paths"]["scanned"]
        .as_array()
        .map_or(0, Vec::len);
    let semgrep_errors = semgrep_json["errors"].as_array().map_or(0, Vec::len);

    println!();
    println!("| tool | median of {runs} | ratio to fleet |");
    println!("| --- | ---: | ---: |");
    println!("| fleet lint --json | {} | 1.0 |", ms(fleet_t));
    println!(
        "| semgrep scan (one rule) | {} | {:.1} |",
        ms(semgrep_t),
        ratio(semgrep_t, fleet_t)
    );
    println!(
        "| semgrep --version (start-up) | {} | {:.1} |",
        ms(start_t),
        ratio(start_t, fleet_t)
    );
    println!(
        "| semgrep scan less its start-up | {} | {:.1} |",
        ms(semgrep_t.saturating_sub(start_t)),
        ratio(semgrep_t.saturating_sub(start_t), fleet_t)
    );
    let goal = ratio(semgrep_t, fleet_t);
    println!();
    println!(
        "fleet is {goal:.1}x as fast as semgrep on this tree: the 50x goal (issue 17) is {}",
        if goal >= 50.0 { "met" } else { "NOT met" }
    );
    println!(
        "all runs (ms): fleet {:?}; semgrep scan {:?}; semgrep --version {:?}",
        all_ms(&times[0]),
        all_ms(&times[1]),
        all_ms(&times[2])
    );
    println!(
        "fleet: {} file(s) considered, {} parsed (let through by the prefilter), {} parse \
         error(s), {} finding(s) in all",
        fleet_json["files_considered"],
        fleet_json["files_parsed"],
        fleet_json["parse_errors"].as_array().map_or(0, Vec::len),
        fleet_found.len()
    );
    println!(
        "semgrep: {semgrep_scanned} file(s) scanned, {semgrep_errors} error(s), {} \
         finding(s) in all",
        semgrep_found.len()
    );
    outside_planted(PLANTED, &fleet_found, &semgrep_found);
    println!("load average after: {}", loadavg());

    // The comparison on the planted files.
    let expected = expected(&tree);
    compare_planted(
        PLANTED,
        "# finding",
        &expected,
        &fleet_found,
        &semgrep_found,
    );
}

struct Corpus {
    tracked: usize,
    python_files: usize,
    python_lines: usize,
}

impl Corpus {
    fn count(tree: &Path) -> Corpus {
        let mut git = Command::new("git");
        git.current_dir(tree).args(["ls-files", "-z"]);
        let out = run(git);
        let listing = String::from_utf8_lossy(&out.stdout).into_owned();
        let files: Vec<&str> = listing.split('\0').filter(|f| !f.is_empty()).collect();
        let python: Vec<&&str> = files.iter().filter(|f| f.ends_with(".py")).collect();
        let python_lines = python
            .iter()
            .filter_map(|f| std::fs::read(tree.join(f)).ok())
            .map(|b| b.iter().filter(|c| **c == b'\n').count())
            .sum();
        Corpus {
            tracked: files.len(),
            python_files: python.len(),
            python_lines,
        }
    }
}

/// `path:line` of every line under planted/ marked `# finding`.
fn expected(tree: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![tree.join(PLANTED)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(tree)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for (i, line) in text.lines().enumerate() {
                if line.trim_end().ends_with("# finding") {
                    out.insert(format!("{rel}:{}", i + 1));
                }
            }
        }
    }
    out
}

/// semgrep, kept off the network: no metrics, no version check, no registry, no login.
fn semgrep_cmd(semgrep: &Path, home: &Path, tree: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(semgrep);
    hermetic(&mut cmd, home, tree);
    cmd.env("SEMGREP_SEND_METRICS", "off")
        .env("SEMGREP_ENABLE_VERSION_CHECK", "0")
        .env("SEMGREP_FORCE_COLOR", "")
        .env("NO_COLOR", "1")
        .args(args);
    cmd
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}
