//! The examples in `examples/` are valid and wire up what the README promises: the CI
//! files are YAML (checked with Python's PyYAML when it is installed; skipped loudly
//! otherwise); the systemd units hold only keys systemd knows, in their sections, and
//! pass `systemd-analyze verify` where it runs; the cron lines are five schedule fields
//! and a command the shell parses; and every `fleet` command line in them uses flags the
//! binary has.

use std::io::Write;
use std::process::{Command, Stdio};

fn load_yaml(path: &str) -> Option<serde_json::Value> {
    let script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))";
    let out = Command::new("python3")
        .args(["-c", script, path])
        .stdin(Stdio::piped())
        .output()
        .ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No module named 'yaml'") {
            return None;
        }
        panic!("{path} is not valid YAML: {err}");
    }
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn skipped(why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED: examples: {why}");
}

#[test]
fn the_ci_examples_parse_and_run_fleet_gate() {
    let root = env!("CARGO_MANIFEST_DIR");
    let Some(github) = load_yaml(&format!("{root}/examples/github-merge-gate.yml")) else {
        return skipped("python3 with PyYAML is not installed");
    };
    // YAML 1.1 reads the key `on` as the boolean true (GitHub reads it as "on").
    let on = github.get("on").or_else(|| github.get("true")).unwrap();
    assert!(
        on.get("merge_group").is_some(),
        "the merge queue event is missing"
    );
    let steps = github["jobs"]["gate"]["steps"].as_array().unwrap();
    let text = serde_json::to_string(steps).unwrap();
    assert!(text.contains("fleet gate --base"), "{text}");
    assert!(text.contains("upload-sarif"), "{text}");
    let gitlab = load_yaml(&format!("{root}/examples/gitlab-merge-gate.yml")).unwrap();
    let script = serde_json::to_string(&gitlab["fleet-gate"]["script"]).unwrap();
    assert!(script.contains("fleet gate --base"), "{script}");
}

fn example(name: &str) -> String {
    let path = format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A unit file's settings, as (section, key, value), in order. Comments and blank lines
/// are skipped; a line that is neither a section, a comment nor `key=value` fails.
fn unit(name: &str) -> Vec<(String, String, String)> {
    let mut section = String::new();
    let mut settings = Vec::new();
    for (n, line) in example(name).lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_string();
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{name}:{}: not key=value: {line}", n + 1));
        assert!(
            !section.is_empty(),
            "{name}:{}: a key before any section",
            n + 1
        );
        settings.push((section.clone(), key.trim().into(), value.trim().into()));
    }
    settings
}

/// The keys each section may hold: the ones the examples use, each checked against
/// systemd.unit(5), systemd.service(5), systemd.exec(5), systemd.kill(5) and
/// systemd.timer(5). A misspelt key is ignored by systemd with only a warning, so it is
/// caught here even where systemd-analyze is missing.
const KNOWN: &[(&str, &[&str])] = &[
    ("Unit", &["Description", "After", "Wants", "Documentation"]),
    (
        "Service",
        &[
            "Type",
            "WorkingDirectory",
            "ExecStart",
            "ExecStop",
            "EnvironmentFile",
            "Environment",
            "KillMode",
            "TimeoutStopSec",
            "Restart",
            "RestartSec",
        ],
    ),
    (
        "Timer",
        &[
            "OnBootSec",
            "OnUnitActiveSec",
            "OnUnitInactiveSec",
            "OnCalendar",
            "AccuracySec",
            "Persistent",
        ],
    ),
    ("Install", &["WantedBy"]),
];

fn value<'a>(settings: &'a [(String, String, String)], section: &str, key: &str) -> &'a str {
    settings
        .iter()
        .find(|(s, k, _)| s == section && k == key)
        .map(|(_, _, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {key} in [{section}]"))
}

/// The fleet arguments of a command line that runs fleet: what follows the word ending
/// in `/fleet` (or `fleet"`), up to a shell redirection.
fn fleet_args(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| w.trim_matches('"').ends_with("/fleet"))
        .unwrap_or_else(|| panic!("no fleet in {line}"));
    words[at + 1..]
        .iter()
        .take_while(|w| !w.starts_with(">>") && !w.starts_with('>') && !w.starts_with("2>"))
        .map(|w| w.to_string())
        .collect()
}

/// Every `--flag` of `args` is one the fleet binary's `SUBCOMMAND --help` lists. `false`
/// (after saying SKIPPED) when this binary has no such subcommand yet.
fn flags_exist(args: &[String]) -> bool {
    let sub = &args[0];
    let out = Command::new(env!("CARGO_BIN_EXE_fleet"))
        .args([sub.as_str(), "--help"])
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    if !out.status.success() {
        skipped(&format!(
            "this fleet has no `{sub}` command to check the flags of"
        ));
        return false;
    }
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in args.iter().filter(|a| a.starts_with("--")) {
        assert!(
            help.contains(&format!("{flag}\n")) || help.contains(&format!("{flag} ")),
            "`fleet {sub}` has no {flag}: {help}"
        );
    }
    true
}

const UNITS: &[&str] = &[
    "fleet-drain.service",
    "fleet-land.service",
    "fleet-land.timer",
    "fleet-watchdog.service",
    "fleet-watchdog.timer",
];

#[test]
fn the_systemd_units_hold_known_keys_and_wire_drain_and_land() {
    for name in UNITS {
        let settings = unit(name);
        for (section, key, _) in &settings {
            let keys = KNOWN
                .iter()
                .find(|(s, _)| s == section)
                .unwrap_or_else(|| panic!("{name}: unknown section [{section}]"))
                .1;
            assert!(
                keys.contains(&key.as_str()),
                "{name}: unknown key {key} in [{section}]"
            );
        }
        if name.ends_with(".service") {
            let args = fleet_args(value(&settings, "Service", "ExecStart"));
            flags_exist(&args);
        } else {
            // A timer starts the service of its own name, which must be there.
            let service = name.replace(".timer", ".service");
            assert!(UNITS.contains(&service.as_str()), "{name} starts {service}");
            assert_eq!(value(&settings, "Install", "WantedBy"), "timers.target");
        }
    }

    let drain = unit("fleet-drain.service");
    let start = value(&drain, "Service", "ExecStart");
    let args = fleet_args(start);
    assert_eq!(args[0], "drain", "{start}");
    assert!(
        !args.contains(&"--once".to_string()),
        "a service drains until stopped"
    );
    assert_eq!(value(&drain, "Service", "Restart"), "on-failure");
    assert_eq!(value(&drain, "Service", "KillMode"), "control-group");
    // systemd waits longer than the drainer gives its agents, so it never SIGKILLs a
    // drainer that is still stopping them; the ExecStop waits for the drainer to exit.
    let stop_timeout = &args[args.iter().position(|a| a == "--stop-timeout").unwrap() + 1];
    let stop_timeout = humantime::parse_duration(stop_timeout).unwrap();
    let systemd_timeout =
        humantime::parse_duration(value(&drain, "Service", "TimeoutStopSec")).unwrap();
    assert!(
        systemd_timeout > stop_timeout,
        "{systemd_timeout:?} <= {stop_timeout:?}"
    );
    let stop = value(&drain, "Service", "ExecStop");
    assert!(
        stop.contains("kill -TERM \"$$MAINPID\"") && stop.contains("kill -0"),
        "{stop}"
    );

    let land = unit("fleet-land.service");
    assert_eq!(value(&land, "Service", "Type"), "oneshot");
    assert_eq!(
        fleet_args(value(&land, "Service", "ExecStart")),
        ["land", "--all", "--yes"]
    );
    let timer = unit("fleet-land.timer");
    assert!(
        timer
            .iter()
            .any(|(s, k, _)| s == "Timer" && k.starts_with("OnUnit")),
        "the land timer repeats"
    );

    verify_with_systemd();
}

/// `systemd-analyze verify` on copies of the units whose fleet is the binary under test
/// (it checks that each command exists): no error and no warning. Skipped loudly where
/// systemd-analyze is missing or cannot run (a container without a manager).
fn verify_with_systemd() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for name in UNITS {
        let text = example(name).replace("%h/.cargo/bin/fleet", env!("CARGO_BIN_EXE_fleet"));
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let out = match Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .args(&paths)
        .stdin(Stdio::piped())
        .output()
    {
        Ok(out) => out,
        Err(_) => return skipped("systemd-analyze is not installed"),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("Failed to initialize manager") {
        return skipped(&format!("systemd-analyze cannot run here: {err}"));
    }
    assert!(
        out.status.success() && err.trim().is_empty(),
        "systemd-analyze verify: {err}"
    );
}

#[test]
fn the_cron_lines_are_five_fields_and_a_command_the_shell_parses() {
    for name in ["fleet-land.cron", "fleet-watchdog.cron"] {
        let text = example(name);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect();
        assert!(!lines.is_empty(), "{name} has no cron line");
        for line in lines {
            let fields: Vec<&str> = line.splitn(6, ' ').collect();
            assert_eq!(fields.len(), 6, "{name}: {line}");
            for field in &fields[..5] {
                assert!(
                    !field.is_empty()
                        && field
                            .chars()
                            .all(|c| c.is_ascii_digit() || "*/,-".contains(c)),
                    "{name}: bad schedule field {field:?} in {line}"
                );
            }
            let command = fields[5];
            let parsed = Command::new("bash")
                .args(["-n", "-c", command])
                .stdin(Stdio::piped())
                .output()
                .unwrap();
            assert!(
                parsed.status.success(),
                "{name}: {command}: {}",
                String::from_utf8_lossy(&parsed.stderr)
            );
            flags_exist(&fleet_args(command));
        }
    }
    let land = example("fleet-land.cron");
    assert!(land.contains("fleet\" land --all --yes"), "{land}");
    assert!(land.contains("fleet\" drain --once"), "{land}");
}
