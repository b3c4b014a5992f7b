//! What agent CLIs print, classified: every fixture in tests/data/agent-output/ gets the
//! verdict its name states (the convention is that folder's README.md), so a drift in a
//! provider's wording fails here; and `classify` never panics on arbitrary output.

use fleet::agents::result::{Ended, ResultKind, Verdict, classify, classify_in};
use jiff::tz::TimeZone;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// 2026-03-14 12:00:00 UTC, a Saturday: the default `now` of the fixtures.
const NOW: i64 = 1_773_489_600;

const FOLDERS: [(&str, ResultKind); 3] = [
    ("claude", ResultKind::ClaudeJson),
    ("codex", ResultKind::CodexJsonl),
    ("gemini", ResultKind::GeminiJson),
];

/// The verdict words a fixture's name starts with (longest first where one is a prefix).
const VERDICTS: [&str; 6] = [
    "success",
    "failed",
    "limited",
    "overloaded",
    "crashed",
    "timed-out",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/agent-output")
}

/// The documents of one folder: files ending in .json, .jsonl or .txt, sorted.
fn documents(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl" | "txt")
            )
        })
        .collect();
    files.sort();
    files
}

/// The verdict word a fixture's name states, after an optional `real-`.
fn stated_verdict(stem: &str) -> Option<&'static str> {
    let stem = stem.strip_prefix("real-").unwrap_or(stem);
    VERDICTS
        .into_iter()
        .find(|v| stem == *v || stem.starts_with(&format!("{v}-")))
}

/// `<stem>.expect`: `key=value` lines, `#` comments; a key may repeat.
fn expectations(doc: &Path) -> Vec<(String, String)> {
    let path = doc.with_extension("expect");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l
                .split_once('=')
                .unwrap_or_else(|| panic!("{}: `{l}` is not key=value", path.display()));
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

/// Checks one fixture; `Err` with what is wrong, `Ok(false)` when skipped.
fn check(doc: &Path, kind: ResultKind) -> Result<bool, String> {
    let stem = doc.file_stem().unwrap().to_str().unwrap();
    let verdict = stated_verdict(stem).ok_or_else(|| {
        format!(
            "the name does not start with a verdict ({}), see tests/data/agent-output/README.md",
            VERDICTS.join(", ")
        )
    })?;
    let expect = expectations(doc);
    let one: BTreeMap<&str, &str> = expect
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    if let Some(zone) = one.get("zone")
        && let Err(e) = jiff::tz::db().get(zone)
    {
        eprintln!(
            "SKIPPED: {} needs the time zone {zone} from the system's tz database, which this machine lacks ({e})",
            doc.display()
        );
        return Ok(false);
    }
    let stdout = std::fs::read(doc).unwrap();
    let stderr = std::fs::read(doc.with_extension("stderr")).unwrap_or_default();
    let default_exit = match verdict {
        "success" => 0,
        "crashed" => 137,
        "timed-out" => 124,
        _ => 1,
    };
    let int = |key: &str, default: i64| -> i64 {
        one.get(key)
            .map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("{key}={v}: not a number"))
            })
            .unwrap_or(default)
    };
    let ended = Ended {
        code: int("exit", default_exit) as i32,
        timed_out: one
            .get("timed_out")
            .map_or(verdict == "timed-out", |v| *v == "true"),
        stopped: one.get("stopped").is_some_and(|v| *v == "true"),
        stdout: &stdout,
        stderr: &stderr,
    };
    let local = match one.get("tz") {
        Some(name) => jiff::tz::db()
            .get(name)
            .map_err(|e| format!("tz={name}: {e}"))?,
        None => TimeZone::UTC,
    };
    let got = classify_in(kind, &ended, int("now", NOW), &local);
    let (word, reason, usage, limit) = match &got {
        Verdict::Succeeded { usage } => ("success", String::new(), Some(usage), None),
        Verdict::Failed { reason, usage } => ("failed", reason.clone(), Some(usage), None),
        Verdict::TimedOut { reason } => ("timed-out", reason.clone(), None, None),
        Verdict::Crashed { reason } => ("crashed", reason.clone(), None, None),
        Verdict::Limited { limit, usage } => (
            if limit.overload {
                "overloaded"
            } else {
                "limited"
            },
            limit.text.clone(),
            Some(usage),
            Some(limit),
        ),
    };
    if word != verdict {
        return Err(format!("expected {verdict}, got {got:?}"));
    }
    for (key, want) in &expect {
        let ok =
            match key.as_str() {
                "exit" | "timed_out" | "stopped" | "now" | "tz" | "zone" => true,
                "reason" => reason.contains(want.as_str()),
                "status" => limit
                    .is_some_and(|l| l.status.map_or("none".into(), |s| s.to_string()) == *want),
                "overload" => limit.is_some_and(|l| l.overload.to_string() == *want),
                "resets_at" => limit
                    .is_some_and(|l| l.resets_at.map_or("none".into(), |t| t.to_string()) == *want),
                "input_tokens" => usage.is_some_and(|u| {
                    u.input_tokens.map(|n| n.to_string()).as_deref() == Some(want.as_str())
                }),
                "output_tokens" => usage.is_some_and(|u| {
                    u.output_tokens.map(|n| n.to_string()).as_deref() == Some(want.as_str())
                }),
                "cost_usd" => usage.is_some_and(|u| {
                    u.cost_usd
                        .is_some_and(|c| (c - want.parse::<f64>().unwrap()).abs() < 1e-9)
                }),
                other => return Err(format!("unknown key `{other}` in its .expect")),
            };
        if !ok {
            return Err(format!("expected {key}={want}, got {got:?}"));
        }
    }
    Ok(true)
}

#[test]
fn every_agent_output_fixture_gets_the_verdict_its_name_states() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (folder, kind) in FOLDERS {
        let docs = documents(&root().join(folder));
        assert!(!docs.is_empty(), "no fixtures in {folder}/");
        for doc in docs {
            match check(&doc, kind) {
                Ok(true) => checked += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!(
                    "{folder}/{}: {e}",
                    doc.file_name().unwrap().to_string_lossy()
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) misread:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 20, "only {checked} fixtures checked");
}

/// Every `.expect` and `.stderr` belongs to a document, so a renamed document cannot
/// leave its expectations silently unread.
#[test]
fn every_agent_output_sidecar_has_its_document() {
    for (folder, _) in FOLDERS {
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "expect" | "stderr") {
                continue;
            }
            let has_doc = ["json", "jsonl", "txt"]
                .iter()
                .any(|e| path.with_extension(e).exists());
            assert!(has_doc, "{} has no document next to it", path.display());
        }
    }
}

/// The coordinator's case: claude's `subtype` says "success" on a 429; the verdict comes
/// from `is_error` and `api_error_status`, and the same document with `is_error` false
/// and exit 0 succeeds.
#[test]
fn claude_subtype_success_with_is_error_is_not_a_success() {
    let doc = std::fs::read(root().join("claude/limited-429.json")).unwrap();
    let ended = Ended {
        code: 1,
        timed_out: false,
        stopped: false,
        stdout: &doc,
        stderr: b"",
    };
    assert!(matches!(
        classify(ResultKind::ClaudeJson, &ended, NOW),
        Verdict::Limited { .. }
    ));
    // By the exit code alone it is a plain failure: the kind matters.
    assert!(matches!(
        classify(ResultKind::ExitCode, &ended, NOW),
        Verdict::Failed { .. }
    ));
}

/// A failure's reason is the agent's own last words, bounded, for the next attempt's plan.
#[test]
fn a_failure_reason_is_the_agents_last_words_bounded() {
    let mut stderr = String::new();
    for i in 0..2000 {
        stderr.push_str(&format!("noise line {i}\n"));
    }
    stderr.push_str("error: the tests failed in src/lib.rs\n");
    let ended = Ended {
        code: 3,
        timed_out: false,
        stopped: false,
        stdout: b"",
        stderr: stderr.as_bytes(),
    };
    let Verdict::Failed { reason, .. } = classify(ResultKind::ExitCode, &ended, NOW) else {
        panic!("not a failure");
    };
    assert!(reason.starts_with("exited with code 3: …"), "{reason}");
    assert!(
        reason.ends_with("error: the tests failed in src/lib.rs"),
        "{reason}"
    );
    assert!(reason.len() < 700, "{} bytes", reason.len());
}

fn cases() -> u32 {
    std::env::var("FLEET_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// The fixtures, cut and spliced with random bytes: mostly-valid documents with damage.
fn seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (folder, _) in FOLDERS {
        for doc in documents(&root().join(folder)) {
            seeds.push(std::fs::read(doc).unwrap());
        }
    }
    seeds
}

#[test]
fn classify_never_panics_on_arbitrary_output() {
    let seeds = seeds();
    let n = seeds.len();
    let mutated = (
        0..n,
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        prop::collection::vec(any::<u8>(), 0..40),
    )
        .prop_map(move |(i, a, b, insert)| {
            let seed = &seeds[i];
            let (a, b) = (a.index(seed.len() + 1), b.index(seed.len() + 1));
            let (a, b) = (a.min(b), a.max(b));
            [&seed[..a], &insert[..], &seed[b..]].concat()
        });
    let strategy = (
        prop_oneof![mutated, prop::collection::vec(any::<u8>(), 0..300)],
        prop::collection::vec(any::<u8>(), 0..200),
        any::<i32>(),
        any::<i64>(),
    );
    let mut runner = TestRunner::new(RunnerConfig {
        cases: cases(),
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    runner
        .run(&strategy, |(stdout, stderr, code, now)| {
            for (_, kind) in FOLDERS {
                for kind in [kind, ResultKind::ExitCode] {
                    let ended = Ended {
                        code,
                        timed_out: false,
                        stopped: false,
                        stdout: &stdout,
                        stderr: &stderr,
                    };
                    let _ = classify_in(kind, &ended, now, &TimeZone::UTC);
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Reset texts with random clocks, dates, zones and epochs: parsed or refused, never a
/// panic (jiff's ranges, day 31 of February, hour 99, year 9999).
#[test]
fn reset_texts_never_panic() {
    let mut runner = TestRunner::new(RunnerConfig {
        cases: cases(),
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let strategy = (
        prop_oneof![
            Just("resets "),
            Just("try again at "),
            Just("resets in "),
            Just("retry in "),
            Just("usage limit reached|"),
        ],
        "[0-9]{0,12}(:[0-9]{0,3})?( ?[aApP]\\.?[mM]\\.?)?",
        prop_oneof![
            Just(String::new()),
            Just(" (America/Sao_Paulo)".to_string()),
            "\\([A-Za-z/_+-]{0,20}\\)",
            "(Jan|Feb|Sep|Mon) [0-9]{1,3}(st|th)?,? [0-9]{0,5} (at )?[0-9]{1,2}(:[0-9]{2})?(am|pm)",
            "[0-9.]{1,20}(ms|s|h|d|m)",
        ],
        any::<i64>(),
    );
    runner
        .run(&strategy, |(marker, clock, tail, now)| {
            let text = format!("{marker}{clock}{tail}");
            let _ = fleet::agents::limits::reset_in_text(&text, now, &TimeZone::UTC);
            let text = format!("{marker}{tail}");
            let _ = fleet::agents::limits::reset_in_text(&text, now, &TimeZone::UTC);
            Ok(())
        })
        .unwrap();
}
