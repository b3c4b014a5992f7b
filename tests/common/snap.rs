//! insta settings for snapshots of what people read: run-to-run noise (temp paths, the
//! binary's path, object ids, durations, times, pids) becomes a placeholder, the rest is
//! pinned byte for byte. Snapshots live in tests/snapshots/; a missing or different one
//! fails.

use super::Env;

/// Settings for text with nothing run-dependent in it (help pages): no filters, so a
/// default like `[default: 2s]` stays pinned too.
pub fn exact() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// Settings for one test's snapshots of what a run in `env` printed; bind them around
/// the asserts: `let _snap = snap::settings(&env).bind_to_scope();`.
pub fn settings(env: &Env) -> insta::Settings {
    let mut s = exact();
    // This test's temp folder, canonical and as given, then any other temp folder.
    let raw = env.tmp.path().display().to_string();
    for path in [env.path().display().to_string(), raw] {
        s.add_filter(&escape(&path), "[TMP]");
    }
    s.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    // The binary under test, which hook scripts name: it lives where the checkout is built.
    let bin = env!("CARGO_BIN_EXE_fleet");
    let canonical = std::fs::canonicalize(bin).unwrap().display().to_string();
    for path in [canonical, bin.to_string()] {
        s.add_filter(&escape(&path), "[FLEET]");
    }
    // Gate logs are named after the time (ns) and pid; then epoch seconds.
    s.add_filter(r"-\d{10,}-\d+\.log\b", "-[TIME]-[PID].log");
    s.add_filter(r"\b1\d{9}\b", "[TIME]");
    // Object ids: full, then abbreviated (a word of 7 to 12 hex digits; commits fleet
    // makes carry the time, so their ids change from run to run).
    s.add_filter(r"\b[0-9a-f]{40}\b", "[OID]");
    s.add_filter(r"\b[0-9a-f]{7,12}\b", "[OID]");
    // Timestamps, then durations and ages ("0.3s", "12ms", "1m 5s", "3 minutes").
    s.add_filter(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?",
        "[TIME]",
    );
    s.add_filter(
        r"\b\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d)( \d+(\.\d+)?(ns|us|µs|ms|s|m|h|d))*\b",
        "[DUR]",
    );
    s.add_filter(r"\b\d+(\.\d+)? (ns|us|µs|ms|s)\b", "[DUR]");
    s.add_filter(r"\b\d+ (seconds?|minutes?|hours?|days?)\b", "[DUR]");
    s.add_filter(r#""(\w*_ms|\w*duration\w*)": \d+"#, r#""$1": [DUR]"#);
    s.add_filter(r"\bpid \d+", "pid [PID]");
    s
}

/// `text` as a regex that matches it literally.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// What a run printed, labelled, for one snapshot: exit code, stdout, stderr.
pub fn run(run: &super::Run) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    )
}
