//! `fleet lint --format sarif` against the SARIF 2.1.0 JSON schema and what GitHub code
//! scanning requires of an upload.
//!
//! The schema is vendored (tests/data/sarif-schema-2.1.0.json; tests/data/README.md says
//! where it comes from) and checked with Python's jsonschema from the venv that
//! `.ci/install-lint-tools` makes under `<target>/lint-tools`: the Rust validators pull
//! in dozens of crates (ICU tables among them). Without that venv the schema check is
//! skipped with a loud `SKIPPED:` line; GitHub's own requirements are checked regardless:
//! `tool.driver.rules` holding the result's `ruleId`, repository-relative URIs,
//! `region.startLine` and `partialFingerprints`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::Env;
use serde_json::Value;

const RULE: &str = "agent-spawn-without-group";
const SPAWN: &str = "import subprocess\nsubprocess.run([\"claude\", \"-p\", \"x\"])\n";

/// The SARIF `fleet lint --format sarif` prints for a repository holding `files`.
fn sarif_for(files: &[(&str, &str)]) -> Value {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", files);
    let run = env.fleet(&repo, &["lint", "--format", "sarif"]).code(1);
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\nstderr: {}", run.stdout, run.stderr))
}

#[test]
fn sarif_is_valid_against_the_schema_and_meets_githubs_requirements() {
    let sarif = sarif_for(&[("agent.py", SPAWN)]);
    github_requirements(&sarif, &[("agent.py", 2)]);
    validate(
        &sarif,
        "sarif_is_valid_against_the_schema_and_meets_githubs_requirements",
    );
}

#[test]
fn nested_paths_stay_relative_and_escaped() {
    let sarif = sarif_for(&[("tools/run agent.py", SPAWN), ("README.md", "claude\n")]);
    github_requirements(&sarif, &[("tools/run%20agent.py", 2)]);
    validate(&sarif, "nested_paths_stay_relative_and_escaped");
}

/// What GitHub code scanning needs to accept and place a result.
fn github_requirements(sarif: &Value, expected: &[(&str, u64)]) {
    assert_eq!(sarif["version"], "2.1.0", "{sarif:#}");
    let runs = sarif["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "one run: {sarif:#}");
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert!(driver["name"].as_str().is_some_and(|n| !n.is_empty()));
    let rules = driver["rules"].as_array().expect("tool.driver.rules");
    let rule_ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    assert!(rule_ids.contains(&RULE), "rule ids: {rule_ids:?}");

    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), expected.len(), "{results:#?}");
    for (result, (uri, line)) in results.iter().zip(expected) {
        let rule_id = result["ruleId"].as_str().expect("ruleId");
        assert_eq!(rule_id, RULE);
        assert!(
            rule_ids.contains(&rule_id),
            "{rule_id} is not in tool.driver.rules"
        );
        if let Some(index) = result["ruleIndex"].as_u64() {
            assert_eq!(
                rules[index as usize]["id"], rule_id,
                "ruleIndex points at another rule"
            );
        }
        assert!(
            result["message"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );

        let location = &result["locations"][0]["physicalLocation"];
        let got = location["artifactLocation"]["uri"].as_str().expect("uri");
        assert_eq!(got, *uri);
        assert!(!got.starts_with('/'), "absolute path as URI: {got}");
        assert!(!got.contains("://") && !got.starts_with("file:"), "{got}");
        assert!(!got.contains('\\') && !got.contains(' '), "{got}");
        if let Some(base) = location["artifactLocation"]["uriBaseId"].as_str() {
            assert!(
                run["originalUriBaseIds"][base].is_object(),
                "uriBaseId {base} is not declared in originalUriBaseIds"
            );
        }
        let region = &location["region"];
        assert_eq!(region["startLine"].as_u64(), Some(*line), "{region:#}");
        for key in ["startColumn", "endLine", "endColumn"] {
            if let Some(v) = region.get(key) {
                assert!(v.as_u64().is_some_and(|n| n >= 1), "{key}: {v}");
            }
        }

        let fingerprints = result["partialFingerprints"]
            .as_object()
            .expect("partialFingerprints");
        assert!(!fingerprints.is_empty(), "empty partialFingerprints");
        assert!(
            fingerprints
                .values()
                .all(|v| v.as_str().is_some_and(|s| !s.is_empty())),
            "{fingerprints:?}"
        );
    }
}

/// `<target>/lint-tools/venv/bin/python`, where `.ci/install-lint-tools` puts jsonschema.
fn validator_python() -> PathBuf {
    crate::common::target_dir().join("lint-tools/venv/bin/python")
}

/// Validate with the draft the schema names, formats checked (uri, uri-reference,
/// date-time). Prints each error and exits 1 when the document is invalid; exits 3 when
/// jsonschema cannot be imported.
const VALIDATE: &str = r#"
import json, sys
try:
    import jsonschema
except ImportError as e:
    print(e)
    sys.exit(3)
schema = json.load(open(sys.argv[1], encoding="utf-8"))
doc = json.load(sys.stdin)
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
for e in errors:
    print("/".join(map(str, e.absolute_path)) + ": " + e.message)
print(f"{cls.__name__}, jsonschema {jsonschema.__version__ if hasattr(jsonschema, '__version__') else '?'}: {len(errors)} error(s)")
sys.exit(1 if errors else 0)
"#;

enum Verdict {
    Valid,
    Invalid(String),
    Skipped(String),
}

fn schema_check(python: &Path, doc: &Value) -> Verdict {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json");
    let mut child = match Command::new(python)
        .args(["-c", VALIDATE])
        .arg(&schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return Verdict::Skipped(format!("{} cannot start: {e}", python.display())),
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(doc.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    match out.status.code() {
        Some(0) => Verdict::Valid,
        Some(1) => Verdict::Invalid(text),
        Some(3) => Verdict::Skipped(format!("jsonschema is not importable: {}", text.trim())),
        _ => panic!("the validator failed:\n{text}"),
    }
}

fn validate(sarif: &Value, test: &str) {
    let python = validator_python();
    if !python.exists() {
        skip(
            test,
            &format!(
                "{} does not exist; run .ci/install-lint-tools (it needs PyPI)",
                python.display()
            ),
        );
        return;
    }
    match schema_check(&python, sarif) {
        Verdict::Valid => {}
        Verdict::Invalid(errors) => {
            panic!("fleet's SARIF is not valid SARIF 2.1.0:\n{errors}\n{sarif:#}")
        }
        Verdict::Skipped(why) => {
            skip(test, &why);
            return;
        }
    }
    // The validator must be able to fail: a region with line 0 and a result without a
    // message are rejected.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    match schema_check(&python, &broken) {
        Verdict::Invalid(errors) => {
            assert!(errors.contains("startLine"), "{errors}");
            assert!(errors.contains("message"), "{errors}");
        }
        Verdict::Valid => panic!("the schema check accepted a broken document"),
        Verdict::Skipped(why) => panic!("the validator vanished mid-test: {why}"),
    }
}

fn skip(test: &str, why: &str) {
    // Straight to stderr: libtest swallows `eprintln!` of a passing test, and a skip
    // must not look like a pass.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {test}: the SARIF schema check did not run because {why} \
         (GitHub's requirements were still checked)"
    );
}
