//! `fleet report`: per task, its runs and its lane's fate, and totals, as a table or
//! JSON (the joining is [`fleet::tasks::report`]'s).

use fleet::error::{Error, Result};
use fleet::tasks::report::{DayReport, RunReport, TaskReport};

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render::{self, DIM, answer, paint, short_id};

/// The day in one table: each task's runs, its lane's fate, totals
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Per task: its runs (attempt, plan, outcome, duration, the tokens and cost its \
                  agent reported) and what became of its lane: landed as which target commit \
                  (with that commit's receipt, the one `fleet verify` checks), or red at the \
                  gate, conflicted, ready, parked. Then the totals: tasks, runs, each fate, \
                  tokens, cost and agent time. Nothing is logged for it: it reads the task \
                  refs, the lane registry and the receipts on refs/notes/fleet, so any clone \
                  that fetched them gives the same report. --since keeps the tasks with a run \
                  claimed or ended (or made) since then, and of those only such runs.",
    after_long_help = "Examples:\n  fleet report\n  fleet report --since 8h\n  fleet report --since 2026-12-01T08:00:00Z --json\n  fleet report --json | jq -r '.tasks[] | select(.fate == \"landed\") | \"\\(.name) \\(.lane.landed_as)\"'\n  fleet report --remote origin"
)]
pub struct Args {
    /// Only what happened since TIME: a duration back from now (2h, 1d) or an RFC 3339 time
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let since = match &args.since {
        Some(text) => Some(
            fleet::tasks::report::parse_since(text, fleet::time::now()).map_err(|e| {
                Error::usage(format!("--since {e}"))
                    .with_help("give --since 2026-12-01T08:00:00Z (RFC 3339) or a duration like 8h")
            })?,
        ),
        None => None,
    };
    let (ctx, queue) = env.refreshed_queue(&args.queue)?;
    fleet::tasks::Store::new(&ctx, &queue).refresh()?;
    let report = fleet::tasks::report::report(&ctx, &queue, since)?;
    if args.out.json {
        render::json(&report);
        return Ok(0);
    }
    if report.tasks.is_empty() {
        render::note(match since {
            Some(_) => "no task ran in that time",
            None => "no tasks; add one with `fleet task add NAME --prompt TEXT`",
        });
        return Ok(0);
    }
    text(&report);
    Ok(0)
}

fn text(report: &DayReport) {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        answer(&paint(
            DIM,
            &format!(
                "{:<24} {:<10} {:>4} {:>9} {:>8}  {}",
                "TASK", "FATE", "RUNS", "TOKENS", "COST", "LANE"
            ),
        ));
    }
    for t in &report.tasks {
        answer(&format!(
            "{:<24} {:<10} {:>4} {:>9} {:>8}  {}",
            t.name,
            t.fate,
            t.runs.len(),
            t.tokens.map_or("-".into(), |n| n.to_string()),
            t.cost_usd.map_or("-".into(), |c| format!("${c:.2}")),
            lane(t)
        ));
        for r in &t.runs {
            answer(&paint(DIM, &format!("  {}", run_line(r))));
        }
    }
    let tot = &report.totals;
    let fates: Vec<String> = tot.fates.iter().map(|(f, n)| format!("{n} {f}")).collect();
    answer(&format!(
        "{}, {}: {}; {} tokens, ${:.2}, {} of agent time",
        render::count(tot.tasks, "task"),
        render::count(tot.runs, "run"),
        fates.join(", "),
        tot.tokens,
        tot.cost_usd,
        duration(tot.run_seconds)
    ));
}

/// `BRANCH landed as ID (receipt green)`, `BRANCH conflicted: FILES`, or `-`.
fn lane(t: &TaskReport) -> String {
    let Some(l) = &t.lane else {
        return "-".into();
    };
    match (&l.landed_as, &l.receipt) {
        (Some(id), Some(r)) => format!(
            "{} landed as {} (receipt {})",
            l.branch,
            short_id(id),
            if r.green { "green" } else { "NOT green" }
        ),
        (Some(id), None) => format!("{} landed as {} (no receipt)", l.branch, short_id(id)),
        (None, _) => {
            let why: Vec<&str> = l
                .conflicts
                .iter()
                .chain(&l.detail)
                .map(String::as_str)
                .collect();
            if why.is_empty() {
                format!("{} {}", l.branch, l.state.as_str())
            } else {
                format!("{} {}: {}", l.branch, l.state.as_str(), why.join(", "))
            }
        }
    }
}

/// `#1 plan sub  succeeded in 42s  15 tokens $0.01`, then the error when it failed.
fn run_line(r: &RunReport) -> String {
    let mut line = format!("#{}", r.attempt);
    if let Some(plan) = &r.plan {
        line.push_str(&format!(" plan {plan}"));
    }
    match (r.outcome, r.duration_s) {
        (Some(o), Some(d)) => {
            line.push_str(&format!("  {} in {}", render::json_word(&o), duration(d)))
        }
        _ => line.push_str("  running"),
    }
    if r.free {
        line.push_str(" (free)");
    }
    if r.input_tokens.is_some() || r.output_tokens.is_some() {
        let n = r.input_tokens.unwrap_or(0) + r.output_tokens.unwrap_or(0);
        line.push_str(&format!("  {n} tokens"));
    }
    if let Some(c) = r.cost_usd {
        line.push_str(&format!(" ${c:.2}"));
    }
    if let Some(e) = &r.error {
        let first = e.lines().next().unwrap_or_default();
        line.push_str(&format!("  {first}"));
    }
    line
}

fn duration(secs: i64) -> String {
    match secs {
        ..60 => format!("{secs}s"),
        60..3600 => format!("{}m{:02}s", secs / 60, secs % 60),
        _ => format!("{}h{:02}m", secs / 3600, secs % 3600 / 60),
    }
}
