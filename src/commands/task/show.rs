//! `fleet task show`: one task with its plan, every run and every transition.

use fleet::error::{Error, Result};
use fleet::tasks::{Task, TaskName};

use super::{REMOTE_HELP, with_store};
use crate::cli::args::{Output, QueueArgs};
use crate::commands::CommandEnv;
use crate::render::{self, answer};

/// Show a task: its prompt or plan, every run and every transition
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  fleet task show fix-login\n  fleet task show fix-login --json | jq '.run[-1]'",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    /// The task to show
    #[arg(value_name = "NAME", value_parser = TaskName::parse)]
    name: TaskName,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

/// The task and its plan, as `--json` shows them.
#[derive(serde::Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    task: &'a Task,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<&'a str>,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    with_store(env, &args.queue, |store| {
        let Some((task, plan)) = store.load(&args.name)? else {
            return Err(Error::usage(format!("there is no task `{}`", args.name))
                .with_help("`fleet task list` lists the tasks"));
        };
        if args.out.json {
            render::json(&Shown {
                task: &task,
                plan: plan.as_deref(),
            });
            return Ok(0);
        }
        answer(&format!("task {} ({})", task.name, task.state.as_str()));
        answer(&format!(
            "  priority {}, attempts {}/{}, created {}",
            task.priority,
            task.attempts(),
            task.max_attempts,
            render::age(task.created)
        ));
        if let Some(agent) = &task.agent {
            answer(&format!("  agent {agent}"));
        }
        if let Some(class) = &task.class {
            answer(&format!("  class {class}"));
        }
        if let Some(budget) = budget(task.max_tokens, task.max_cost_usd) {
            answer(&format!("  budget {budget}"));
        }
        if let Some(c) = &task.continues {
            answer(&format!(
                "  continues {} of task {} ({}) in {}",
                c.branch, c.of, c.lane_state, c.worktree
            ));
        }
        if let Some(why) = &task.parked_why {
            answer(&format!("  parked: {why}"));
        }
        if !task.after.is_empty() {
            answer(&format!("  after {}", task.after.join(", ")));
        }
        if let Some(at) = task.not_before {
            answer(&format!("  not before {at} (unix time)"));
        }
        if let Some(prompt) = &task.prompt {
            answer(&format!("  prompt: {prompt:?}"));
        }
        if let (Some(from), Some(plan)) = (&task.plan_from, &plan) {
            answer(&format!(
                "  plan from {from} ({} lines)",
                plan.lines().count()
            ));
        }
        for run in &task.runs {
            let outcome = run
                .outcome
                .map(|o| render::json_word(&o))
                .unwrap_or_else(|| "-".into());
            answer(&format!(
                "  run {} attempt {}: {outcome}, held by pid {} on {} (fleet {} {}), claimed {}",
                run.id,
                run.attempt,
                run.holder.pid,
                run.holder.host,
                run.holder.version,
                run.holder.commit,
                render::age(run.claimed)
            ));
            if let Some(plan) = &run.plan {
                answer(&format!("    on plan {plan}"));
            }
            if let Some(usage) = &run.usage {
                answer(&format!("    used {}", used(usage)));
            }
            if let Some(error) = &run.error {
                answer(&format!("    error: {error:?}"));
            }
        }
        for t in &task.transitions {
            let from = t.from.map_or("(new)", |s| s.as_str());
            let run = t
                .run
                .as_deref()
                .map(|r| format!(" run {r}"))
                .unwrap_or_default();
            answer(&format!("  {} {from} -> {}{run}", t.at, t.to.as_str()));
        }
        Ok(0)
    })
}

/// A task's budget in words, when it has one: `10000 tokens, $5.00`.
fn budget(tokens: Option<u64>, cost: Option<f64>) -> Option<String> {
    let parts: Vec<String> = [
        tokens.map(|t| format!("{t} tokens")),
        cost.map(|c| format!("${c:.2}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// What a run reported it used: `1200 in, 300 out, $0.04`.
fn used(usage: &fleet::agents::result::Usage) -> String {
    let parts: Vec<String> = [
        usage.input_tokens.map(|t| format!("{t} in")),
        usage.output_tokens.map(|t| format!("{t} out")),
        usage.cost_usd.map(|c| format!("${c:.2}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        "nothing reported".to_string()
    } else {
        parts.join(", ")
    }
}
