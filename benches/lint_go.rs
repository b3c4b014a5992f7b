//! Side-by-side benchmark on Go: `fleet lint` against semgrep running an equivalent Go
//! rule (benches/semgrep-agent-spawn-go.yml), over the Go toolchain's own source.
//!
//!   bash benches/setup-lint-corpus-go && cargo bench --bench lint_go
//!   FLEET_BENCH_RUNS=9 cargo bench --bench lint_go
//!
//! The tree (`<target>/lint-bench-go/tree`, made by `benches/setup-lint-corpus-go`) holds
//! Debian's golang-src package (`src/` and `test/`), committed, plus `planted/`: two Go
//! files that start agent CLIs, compliant and not, each expected finding marked
//! `// finding` on its line.
//!
//! Timed, interleaved (one of each per round, the order alternating), median of
//! `FLEET_BENCH_RUNS` (default 5) after one warm-up run of each:
//!
//! - `fleet lint --json` (the release binary) in the tree: every tracked file;
//! - `semgrep scan --config benches/semgrep-agent-spawn-go.yml --json --metrics=off
//!   --disable-version-check --oss-only .` over the same tree, offline;
//! - `semgrep --version`: semgrep's start-up, for reference.
//!
//! Then the two tools' findings on `planted/` (as `path:line`) are compared with each
//! other and with the `// finding` marks; any difference is printed. No corpus or no
//! semgrep: SKIPPED and why, exit 0.

mod common;

use common::lint::{
    all_ms, compare_planted, findings, hermetic, loadavg, ms, outside_planted, ratio, run,
};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const PLANTED: &str = "planted/";
const MARK: &str = "// finding";

fn main() {
    let runs = common::runs(5);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = common::target_dir();
    let tree = target.join("lint-bench-go/tree");
    let semgrep = target.join("lint-bench/venv/bin/semgrep");
    let rule = manifest.join("benches/semgrep-agent-spawn-go.yml");
    for (what, path) in [
        ("the Go corpus", tree.join(".git")),
        ("semgrep", semgrep.clone()),
    ] {
        if !path.exists() {
            println!(
                "SKIPPED: Go lint benchmark: {what} is missing ({} does not exist); run \
                 `bash benches/setup-lint-corpus-go` first (it needs Debian's packages and PyPI)",
                path.display()
            );
            return;
        }
    }
    let fleet = PathBuf::from(env!("CARGO_BIN_EXE_fleet"));
    let home = tempfile::tempdir().expect("tempdir");

    println!("load average before: {}", loadavg());
    let (tracked, go_files, go_lines) = count(&tree);
    println!(
        "tree: {} ({tracked} tracked files; {go_files} Go files, {go_lines} lines of Go)",
        tree.display()
    );
    let rule_arg = rule.display().to_string();
    let scan = [
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
        cmd.args(["lint", "--json"]);
        cmd
    };
    let semgrep_cmd = |args: &[&str]| {
        let mut cmd = Command::new(&semgrep);
        hermetic(&mut cmd, home.path(), &tree);
        cmd.env("SEMGREP_SEND_METRICS", "off")
            .env("SEMGREP_ENABLE_VERSION_CHECK", "0")
            .args(args);
        cmd
    };
    let version = run(semgrep_cmd(&["--version"]));
    println!(
        "semgrep {}, fleet {} ({}), {runs} run(s) each, interleaved",
        String::from_utf8_lossy(&version.stdout).trim(),
        env!("CARGO_PKG_VERSION"),
        fleet.display()
    );

    // Warm-up (page cache, semgrep's own caches); their outputs are the ones compared.
    let fleet_out = run(fleet_cmd());
    let semgrep_out = run(semgrep_cmd(&scan));
    for (tool, out) in [("fleet lint", &fleet_out), ("semgrep", &semgrep_out)] {
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{tool} failed: {}",
            String::from_utf8_lossy(&out.stderr)
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
                1 => semgrep_cmd(&scan),
                _ => semgrep_cmd(&["--version"]),
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

    println!();
    println!("| tool (Go corpus) | median of {runs} | ratio to fleet |");
    println!("| --- | ---: | ---: |");
    println!("| fleet lint --json | {} | 1.0 |", ms(fleet_t));
    for (what, t) in [
        ("semgrep scan (one rule)", semgrep_t),
        ("semgrep --version (start-up)", start_t),
        (
            "semgrep scan less its start-up",
            semgrep_t.saturating_sub(start_t),
        ),
    ] {
        println!("| {what} | {} | {:.1} |", ms(t), ratio(t, fleet_t));
    }
    println!();
    println!(
        "fleet is {:.1}x as fast as semgrep on this Go tree",
        ratio(semgrep_t, fleet_t)
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
        "semgrep: {} file(s) scanned, {} error(s), {} finding(s) in all",
        semgrep_json["paths"]["scanned"]
            .as_array()
            .map_or(0, Vec::len),
        semgrep_json["errors"].as_array().map_or(0, Vec::len),
        semgrep_found.len()
    );
    outside_planted(PLANTED, &fleet_found, &semgrep_found);
    println!("load average after: {}", loadavg());

    let expected = expected(&tree);
    compare_planted(PLANTED, MARK, &expected, &fleet_found, &semgrep_found);
}

/// Tracked files, Go files and lines of Go in the tree.
fn count(tree: &Path) -> (usize, usize, usize) {
    let mut git = Command::new("git");
    git.current_dir(tree).args(["ls-files", "-z"]);
    let out = run(git);
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let files: Vec<&str> = listing.split('\0').filter(|f| !f.is_empty()).collect();
    let go: Vec<&&str> = files.iter().filter(|f| f.ends_with(".go")).collect();
    let lines = go
        .iter()
        .filter_map(|f| std::fs::read(tree.join(f)).ok())
        .map(|b| b.iter().filter(|c| **c == b'\n').count())
        .sum();
    (files.len(), go.len(), lines)
}

/// `path:line` of every line under planted/ marked `// finding`.
fn expected(tree: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(tree.join(PLANTED))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            if line.trim_end().ends_with(MARK) {
                out.insert(format!("{PLANTED}{name}:{}", i + 1));
            }
        }
    }
    out
}
