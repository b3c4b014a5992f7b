//! The landing report, shared by `fleet land` and `fleet revert`: one line per lane
//! (landed, refused and why, what would land), or the reports as JSON; and the exit
//! code they add up to.

use fleet::error::Error;
use fleet::land::{LaneReport, Outcome};

use super::term::TermUi;
use super::{error, json, note, ok};

/// 0 when every lane landed (or would), the stopping error's code, else 1.
pub fn exit_code(reports: &[LaneReport]) -> u8 {
    let stopped = reports.iter().find_map(|r| match &r.outcome {
        Outcome::Error { exit_code, .. } => Some(*exit_code),
        _ => None,
    });
    stopped.unwrap_or(if reports.iter().all(|r| r.ok()) { 0 } else { 1 })
}

/// Print the reports; the returned code is the exit code.
pub fn lanes(reports: &[LaneReport], term: &TermUi, as_json: bool) -> u8 {
    term.clear_progress();
    let code = exit_code(reports);
    if as_json {
        json(&reports);
        return code;
    }
    if reports.is_empty() {
        note("nothing to land: no lane is ready (`fleet ready LANE` marks one)");
    }
    for r in reports {
        match &r.outcome {
            Outcome::Landed {
                candidate,
                gate_ms,
                cached,
                ..
            } => ok(&format!(
                "landed {} as {} (gate {:.1}s{})",
                r.lane,
                candidate.to_hex_with_len(12),
                *gate_ms as f64 / 1000.0,
                if *cached { ", cached" } else { "" }
            )),
            Outcome::AlreadyLanded => note(&format!("{}: already landed", r.lane)),
            Outcome::Failed {
                log,
                exit_code,
                command,
                cached,
            } => {
                error(&Error::refused(format!(
                    "{}: gate failed: `{command}` exited {exit_code}{}; log {}",
                    r.lane,
                    if *cached {
                        " (cached result; --no-cache runs it again)"
                    } else {
                        ""
                    },
                    super::short_path(log, &std::env::current_dir().unwrap_or_default())
                )));
                // Indented: these are the gate's lines, and its `$ COMMAND` must not
                // read as fleet's own output or as a shell prompt.
                let tail = fleet::gate::log_tail(log, 20);
                let tail: Vec<String> = tail.lines().map(|l| format!("  {l}")).collect();
                note(&tail.join("\n"));
            }
            Outcome::Conflicted { files } => error(
                &Error::refused(format!(
                    "{}: conflicts with the target in {}",
                    r.lane,
                    files.join(", ")
                ))
                .with_help(fleet::lanes::CONFLICT_HELP),
            ),
            Outcome::Blocked { reasons } => error(&Error::refused(format!(
                "{}: blocked:\n  {}",
                r.lane,
                reasons.join("\n  ")
            ))),
            Outcome::Refused { reason } => error(&Error::refused(format!("{}: {reason}", r.lane))),
            Outcome::Error { message, help, .. } => {
                let mut e = Error::refused(format!("{}: {message}", r.lane));
                e.help = help.clone();
                error(&e);
            }
            Outcome::WouldLand {
                base,
                files,
                commands,
                ..
            } => note(&format!(
                "{}: would land on {} ({}), gate: {}",
                r.lane,
                base.to_hex_with_len(12),
                super::count(*files, "file"),
                commands.join(" && ")
            )),
        }
    }
    code
}
