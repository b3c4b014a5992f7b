//! Running the gate commands: one after another in a worktree, each through
//! [`crate::proc`] in its own process group (killed as a whole on timeout and after it
//! exits), stopping at the first failure, all output to one log in the common git dir
//! whose digest a receipt pins.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::{CommandResult, GateOutcome, blob_digest};
use crate::error::{Error, Result};
use crate::git::Repo;

/// Run `commands` one after another in `worktree` (stopping at the first failure),
/// all output to one log. `progress` gets the command and its elapsed time.
pub fn run(
    repo: &Repo,
    worktree: &Path,
    commands: &[String],
    timeout: Duration,
    env: &[(&str, String)],
    lane: &str,
    mut progress: impl FnMut(&str, Duration),
) -> Result<GateOutcome> {
    let logs = crate::state::logs(&repo.common_dir());
    std::fs::create_dir_all(&logs)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", logs.display())))?;
    let log_path = logs.join(format!("gate-{}-{}.log", sanitize(lane), unique_suffix()));
    let mut log = std::fs::File::create(&log_path)
        .map_err(|e| Error::env(format!("cannot create {}: {e}", log_path.display())))?;
    let mut results = Vec::new();
    let started = std::time::Instant::now();
    for command in commands {
        let _ = writeln!(log, "$ {command}");
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c").arg(command).current_dir(worktree);
        // The gate sees the candidate's worktree, not whatever repository fleet was
        // started from.
        for var in crate::repo_env::FOR_CHILDREN {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        for (k, v) in whole_tree_config() {
            cmd.env(k, v);
        }
        let remaining = timeout.saturating_sub(started.elapsed());
        let outcome = crate::proc::run_logged(
            &mut cmd,
            &log,
            Some(remaining),
            crate::proc::DEFAULT_GRACE,
            |t| progress(command, t),
        )
        .map_err(|e| Error::env(format!("cannot run the gate command `{command}`: {e}")))?;
        let result = CommandResult {
            command: command.clone(),
            exit_code: outcome.code(),
            timed_out: outcome.timed_out,
            duration_ms: outcome.duration.as_millis() as u64,
        };
        let _ = writeln!(
            log,
            "[fleet] `{command}` exited {}{} after {} ms",
            result.exit_code,
            if result.timed_out { " (timed out)" } else { "" },
            result.duration_ms
        );
        let failed = result.exit_code != 0;
        results.push(result);
        if failed {
            if interrupted() {
                let _ = writeln!(log, "[fleet] interrupted by a signal: no result");
                return Err(Error::env(format!(
                    "the gate of {lane} was interrupted by a signal while `{command}` ran: \
                     no result was recorded or cached"
                ))
                .with_help("land again to run the gate again")
                .with_source(std::io::Error::from(std::io::ErrorKind::Interrupted)));
            }
            break;
        }
    }
    drop(log);
    let bytes = std::fs::read(&log_path).unwrap_or_default();
    Ok(GateOutcome {
        green: results.iter().all(|r| r.exit_code == 0),
        results,
        duration_ms: started.elapsed().as_millis() as u64,
        log: log_path,
        log_digest: blob_digest(&bytes),
    })
}

/// `GIT_CONFIG_*` variables that give every git a gate command runs
/// [`git::cli::GATE_CONFIG`](crate::git::cli::GATE_CONFIG), so a sparse or
/// index-trusting setting of the repository does not reach the gate's own git either.
/// Appended after any the environment already has, so these win.
fn whole_tree_config() -> Vec<(String, String)> {
    let had = crate::git::cli::config_count(std::env::var("GIT_CONFIG_COUNT").ok().as_deref());
    crate::git::cli::config_env(&crate::git::cli::GATE_CONFIG, had)
}

/// Is `error` a gate run stopped by a signal (see [`interrupted`])? fleet ends by that
/// signal once the landing has put its lanes back, before it could print the error.
pub fn is_interruption(error: &Error) -> bool {
    error
        .source
        .as_deref()
        .and_then(|e| e.downcast_ref::<std::io::Error>())
        .is_some_and(|e| e.kind() == std::io::ErrorKind::Interrupted)
}

/// Did Ctrl-C, SIGTERM or SIGHUP stop the command that just failed? A landing defers
/// signals while it tests (its lanes go back to ready before fleet ends), and then
/// [`crate::proc`] kills the gate's group and holds the signal until the lanes are put
/// back. A gate it stopped reached no verdict, and a red one would be recorded and
/// cached for that tree.
fn interrupted() -> bool {
    crate::proc::interrupted().is_some()
}

/// A lane name safe as part of a file name.
pub(super) fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos}-{}", std::process::id())
}
