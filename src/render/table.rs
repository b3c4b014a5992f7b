//! The tables: `fleet status` (a line of task counts and one line per held task, a
//! stalled one saying so and for how long it was silent, then one line per lane, one
//! more per nested repository where it has commits) and `fleet worktree list` (one line
//! per agent worktree, one more per nested worktree). No row ends in spaces: an empty
//! last column is not padded.

use fleet::lanes::LaneState;
use fleet::status::{LaneView, TaskSummary};
use fleet::worktree::Listed;

use super::{DIM, age, answer, paint};

/// A header row, for a person at a terminal only: a script that reads the lines gets the
/// same rows as before, and nothing to skip.
fn header(text: &str) {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        answer(&paint(DIM, text));
    }
}

/// The task counts (the states with any task) on one line, then each task a drainer
/// holds: what to look at, and where, when an agent seems stuck.
pub fn tasks(summary: &TaskSummary) {
    let counts: Vec<String> = summary
        .counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(state, n)| format!("{n} {}", state.as_str()))
        .collect();
    answer(&format!("tasks: {}", counts.join(", ")));
    if !summary.running.is_empty() {
        header(&format!(
            "  {:<20} {:<8} {}",
            "TASK", "STATE", "RUN, ATTEMPT, AGE, DRAINER, AGENT GROUP, HOST, WORKTREE"
        ));
    }
    for t in &summary.running {
        // A running agent silent for its stall_after reads `stalled`, and for how long.
        let state = if t.stalled {
            "stalled"
        } else {
            t.state.as_str()
        };
        let mut line = format!(
            "  {:<20} {:<8} run {} attempt {} {:<7} pid {} pgid {} on {}",
            t.name,
            state,
            t.run,
            t.attempt,
            age(t.started.unwrap_or(t.claimed)),
            t.pid,
            t.pgid.map_or("-".to_string(), |g| g.to_string()),
            t.host,
        );
        if let Some(worktree) = &t.worktree {
            line.push_str(&format!(" {worktree}"));
        }
        if t.holder_alive == Some(false) {
            line.push_str(" holder gone");
        }
        if let Some(l) = t.liveness.as_ref().filter(|l| l.stalled) {
            line.push_str(&format!(
                " silent for {}",
                fleet::drain::liveness::show_secs(l.silent_secs)
            ));
        }
        answer(&line);
    }
}

/// One line per lane; paths (a red gate's log) relative to `cwd` or `~` where shorter.
pub fn lanes(views: &[LaneView], cwd: &std::path::Path) {
    if !views.is_empty() {
        header(&format!(
            "{:<28} {:<10} {:<10} {}",
            "LANE", "STATE", "+AHD -BHD", "GATE"
        ));
    }
    for v in views {
        let mut line = format!(
            "{:<28} {:<10} {}",
            v.branch,
            v.state.as_str(),
            counts(v.state == LaneState::Landed, v.ahead, v.behind)
        );
        if v.missing {
            line.push_str(" branch missing");
        }
        if v.stale {
            line.push_str(" stale");
        }
        if !v.conflicts.is_empty() {
            line.push_str(&format!(" conflicts: {}", v.conflicts.join(", ")));
        }
        for c in &v.conflicts_after {
            line.push_str(&format!(
                " conflicts after {}: {}",
                c.lane,
                c.files.join(", ")
            ));
        }
        if let Some(gate) = &v.gate {
            let verdict = if gate.green { "green" } else { "red" };
            line.push_str(&format!(
                " gate {verdict} {:.1}s",
                gate.duration_ms as f64 / 1000.0
            ));
            if !gate.green {
                line.push_str(&format!(
                    " log {}",
                    super::short_path(std::path::Path::new(&gate.log), cwd)
                ));
            }
        }
        if !v.detail.is_empty() {
            line.push_str(&format!(" ({})", v.detail.join("; ")));
        }
        answer(line.trim_end());
        // Only where the lane has commits of its own: a nested repository it left
        // alone would add a `+0` row per lane (JSON lists every part).
        for n in v.nested.iter().filter(|n| n.ahead > 0) {
            let line = format!(
                "  {} {:<10} {}",
                paint(DIM, &format!("{:<26}", n.rel)),
                "",
                counts(
                    n.state == Some(LaneState::Landed),
                    Some(n.ahead),
                    Some(n.behind)
                )
            );
            answer(line.trim_end());
        }
    }
}

pub fn worktrees(list: &[Listed]) {
    if !list.is_empty() {
        header(&format!(
            "{:<16} {:<24} {:<10} {:<7} {}",
            "WORKTREE", "BRANCH", "+AHD -BHD", "STATE", "LAST COMMIT"
        ));
    }
    for wt in list {
        let line = format!(
            "{:<16} {:<24} {} {} {}",
            wt.name,
            wt.branch.as_deref().unwrap_or("(detached)"),
            counts(wt.landed, wt.ahead, wt.behind),
            dirty_word(wt.dirty, wt.missing),
            wt.last_commit.map(age).unwrap_or_default()
        );
        answer(line.trim_end());
        for n in &wt.nested {
            answer(
                format!(
                    "  {} {:<24} {} {} {}",
                    paint(DIM, &format!("{:<14}", n.rel.display())),
                    n.branch.as_deref().unwrap_or("(detached)"),
                    counts(n.landed, n.ahead, n.behind),
                    dirty_word(n.dirty, false),
                    n.last_commit.map(age).unwrap_or_default()
                )
                .trim_end(),
            );
        }
    }
}

/// `in target` for landed work (its commits are in the target, squashed or rebased, so
/// git still counts them ahead: a count would read like unlanded work), else the counts.
fn counts(landed: bool, ahead: Option<usize>, behind: Option<usize>) -> String {
    if landed {
        format!("{:<10}", "in target")
    } else {
        ahead_behind(ahead, behind)
    }
}

fn ahead_behind(ahead: Option<usize>, behind: Option<usize>) -> String {
    match (ahead, behind) {
        (Some(a), Some(b)) => format!("+{a:<3} -{b:<3}"),
        _ => "?     ?   ".to_string(),
    }
}

fn dirty_word(dirty: Option<bool>, missing: bool) -> &'static str {
    match (missing, dirty) {
        (true, _) => "missing",
        (false, Some(true)) => "dirty  ",
        (false, Some(false)) => "clean  ",
        (false, None) => "?      ",
    }
}
