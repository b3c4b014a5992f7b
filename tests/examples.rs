//! The CI examples in `examples/` are valid YAML and wire up what the README promises
//! (checked with Python's PyYAML when it is installed; skipped loudly otherwise).

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
