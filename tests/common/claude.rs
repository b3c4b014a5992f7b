//! Finding the real Claude Code CLI for the tests that drive it, and saying SKIPPED
//! loudly when there is none (a test without its CLI must never pass in silence).

use std::path::PathBuf;

/// The CLI: `FLEET_TEST_CLAUDE`, else the one `.ci/install-agent-clis` put under
/// the target dir, else `claude` on PATH. `None` after a SKIPPED line naming `test`.
pub fn claude(test: &str) -> Option<PathBuf> {
    let installed = super::target_dir().join("agent-clis/npm/node_modules/.bin/claude");
    let found = std::env::var_os("FLEET_TEST_CLAUDE")
        .map(PathBuf::from)
        .or_else(|| installed.is_file().then_some(installed))
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .map(|dir| dir.join("claude"))
                .find(|path| path.is_file())
        });
    if found.is_none() {
        skipped(
            test,
            "no Claude Code CLI (run .ci/install-agent-clis, set FLEET_TEST_CLAUDE, or put `claude` on PATH)",
        );
    }
    found
}

/// A SKIPPED line straight to fd 2: the test harness swallows `eprintln!` of a passing
/// test, and a skip must be seen.
pub fn skipped(test: &str, why: &str) {
    let say = format!("\nSKIPPED {test}: {why}\n");
    // SAFETY: write(2) of a valid buffer to the standard error descriptor.
    unsafe { libc::write(2, say.as_ptr().cast(), say.len()) };
}
