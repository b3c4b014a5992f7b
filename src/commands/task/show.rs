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
