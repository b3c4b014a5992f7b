//! What the two lint benches (`lint`, `lint_go`) share: the tools' hermetic environment,
//! the findings of a JSON report as `path:line`, and how the figures are printed.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// `path:line` of every finding in a JSON list, read by `get`.
pub fn findings(
    list: &serde_json::Value,
    get: impl Fn(&serde_json::Value) -> Option<(String, u64)>,
) -> BTreeSet<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(get)
        .map(|(path, line)| format!("{path}:{line}"))
        .collect()
}

/// Both tools' environment in the corpus, not `common::Env`'s: semgrep gets a UTF-8
/// locale, and neither tool writes to the tree, so no identity and no git config.
pub fn hermetic(cmd: &mut Command, home: &Path, dir: &Path) {
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        // Never /dev/null: on some machines it has been a plain file others write into.
        .env("GIT_CONFIG_GLOBAL", home.join("no-such-gitconfig"))
        .env("NO_COLOR", "1")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
}

pub fn run(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.get_program()))
}

/// `/proc/loadavg`'s first three fields: other work on the machine skews every figure.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

pub fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

/// Whole milliseconds: a lint of the corpus takes seconds (`common::ms` has tenths).
pub fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

pub fn all_ms(v: &[Duration]) -> Vec<u128> {
    v.iter().map(Duration::as_millis).collect()
}

/// The first dozen of a list, and how many more.
pub fn shorten(list: &[&String]) -> String {
    let shown: Vec<&str> = list.iter().take(12).map(|s| s.as_str()).collect();
    let more = list.len().saturating_sub(shown.len());
    if more == 0 {
        shown.join(", ")
    } else {
        format!("{} and {more} more", shown.join(", "))
    }
}

/// Say what each tool found outside `planted` (the planted files' folder).
pub fn outside_planted(planted: &str, fleet: &BTreeSet<String>, semgrep: &BTreeSet<String>) {
    for (tool, found) in [("fleet", fleet), ("semgrep", semgrep)] {
        let outside: Vec<&String> = found.iter().filter(|f| !f.starts_with(planted)).collect();
        if !outside.is_empty() {
            println!(
                "{tool}: {} finding(s) outside {planted}: {}",
                outside.len(),
                shorten(&outside)
            );
        }
    }
}

/// Compare both tools' findings on the planted files with the lines marked `mark`
/// (`expected`): every difference, or the findings they share.
pub fn compare_planted(
    planted: &str,
    mark: &str,
    expected: &BTreeSet<String>,
    fleet: &BTreeSet<String>,
    semgrep: &BTreeSet<String>,
) {
    let on_planted = |set: &BTreeSet<String>| -> BTreeSet<String> {
        set.iter()
            .filter(|f| f.starts_with(planted))
            .cloned()
            .collect()
    };
    let (fleet_p, semgrep_p) = (on_planted(fleet), on_planted(semgrep));
    println!();
    println!(
        "planted: {} expected finding(s) (`{mark}` marks); fleet {}, semgrep {}",
        expected.len(),
        fleet_p.len(),
        semgrep_p.len()
    );
    let mut same = true;
    for (label, a, b) in [
        ("fleet only", &fleet_p, &semgrep_p),
        ("semgrep only", &semgrep_p, &fleet_p),
        ("expected, missed by fleet", expected, &fleet_p),
        ("expected, missed by semgrep", expected, &semgrep_p),
        ("fleet, not expected", &fleet_p, expected),
        ("semgrep, not expected", &semgrep_p, expected),
    ] {
        let diff: Vec<&String> = a.difference(b).collect();
        if !diff.is_empty() {
            same = false;
            println!("  DIFFERENCE {label}: {}", shorten(&diff));
        }
    }
    if same {
        println!(
            "  same findings: {}",
            fleet_p.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
}
