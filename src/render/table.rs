//! The two tables: `fleet status` (one line per lane) and `fleet worktree list` (one
//! line per agent worktree, one more per nested worktree).

use fleet::status::LaneView;
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

pub fn lanes(views: &[LaneView]) {
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
            ahead_behind(v.ahead, v.behind)
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
                line.push_str(&format!(" log {}", gate.log));
            }
        }
        if !v.detail.is_empty() {
            line.push_str(&format!(" ({})", v.detail.join("; ")));
        }
        answer(&line);
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
            ahead_behind(wt.ahead, wt.behind),
            dirty_word(wt.dirty, wt.missing),
            wt.last_commit.map(age).unwrap_or_default()
        );
        answer(&line);
        for n in &wt.nested {
            answer(&format!(
                "  {} {:<24} {} {} {}",
                paint(DIM, &format!("{:<14}", n.rel.display())),
                n.branch.as_deref().unwrap_or("(detached)"),
                ahead_behind(n.ahead, n.behind),
                dirty_word(n.dirty, false),
                n.last_commit.map(age).unwrap_or_default()
            ));
        }
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
