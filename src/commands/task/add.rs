//! `fleet task add`: put a task in the queue.

use std::path::PathBuf;

use fleet::error::{Error, Result};
use fleet::tasks::{Store, Task, TaskName, TaskState};

use super::REMOTE_HELP;
use crate::cli::args::{Output, QueueArgs};
use crate::commands::CommandEnv;
use crate::render::{self, term::TermUi};

/// Add a task to the queue
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Add a task to the queue, queued. Its prompt, or its plan file's content, is \
                  stored in git with it, so every machine that fetches the queue has it; it is \
                  data, never run by a shell. A name taken already is refused.",
    after_long_help = "Examples:\n  fleet task add fix-login --prompt 'Fix the login redirect loop'\n  fleet task add docs --plan plans/docs.md --agent claude --after fix-login\n  fleet task add hotfix --prompt 'Revert the flag' --priority 10 --max-attempts 1\n  fleet task add api --remote origin --prompt 'Add the /health route'\n  fleet task add rename --prompt 'Rename foo to bar' --class mechanical --max-cost 2.50",
    group(clap::ArgGroup::new("what").required(true).args(["prompt", "plan"])),
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    /// The task's name: ASCII letters, digits, `-`, `_` and `.`
    #[arg(value_name = "NAME", value_parser = TaskName::parse)]
    name: TaskName,
    /// What the agent is asked to do
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    /// A file holding the plan (stored with the task as plan.md)
    #[arg(long, value_name = "FILE")]
    plan: Option<PathBuf>,
    /// The agent profile ([agents.PROFILE] in fleet.toml) to run it with
    #[arg(long, value_name = "PROFILE")]
    agent: Option<String>,
    /// Wait until this task has succeeded (repeat for several)
    #[arg(long, value_name = "TASK", value_parser = TaskName::parse)]
    after: Vec<TaskName>,
    /// Higher runs first (negative is allowed)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    priority: i32,
    /// The task's class: [classes] CLASS in fleet.toml lists the plans it may run on, in order
    #[arg(long, value_name = "CLASS")]
    class: Option<String>,
    /// Park it before a retry once its runs reported this many tokens (default: [drain] max_tokens)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_tokens: Option<u64>,
    /// Park it before a retry once its runs reported this cost in USD (default: [drain] max_cost_usd)
    #[arg(long, value_name = "USD", value_parser = cost)]
    max_cost: Option<f64>,
    /// Attempts before the task is parked
    #[arg(long, value_name = "N", default_value_t = fleet::tasks::DEFAULT_MAX_ATTEMPTS,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_attempts: u32,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

/// A cost in USD: a number above zero. A ceiling of 0 is reached before any run, so
/// the task would be parked at its first retry, even after a run that cost nothing.
fn cost(text: &str) -> std::result::Result<f64, String> {
    match text.trim_start_matches('$').parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(0.0) => Err(format!(
            "`{text}` is no budget: a task with a ceiling of $0 is parked at its first retry \
             (give a number like 2.50; --max-attempts 1 runs it once)"
        )),
        _ => Err(format!(
            "`{text}` is not a cost in USD (give a number like 2.50)"
        )),
    }
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let plan = match &args.plan {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|e| {
            Error::usage(format!("cannot read the plan {}: {e}", path.display()))
                .with_help("give --plan a readable text file")
        })?),
        None => None,
    };
    if let (Some(text), Some(path)) = (&plan, &args.plan)
        && let Some(at) = text.find('\0')
    {
        return Err(Error::usage(format!(
            "the plan {} holds a NUL byte (at byte {at}): no agent can be given it, as an \
             argument or in its environment",
            path.display()
        ))
        .with_help("give --plan a text file"));
    }
    let (ctx, queue) = env.queue(&args.queue)?;
    if let Some(class) = &args.class
        && !ctx.config.classes.contains_key(class)
    {
        let known = if ctx.config.classes.is_empty() {
            "fleet.toml has no [classes]; add e.g. [classes] mechanical = [\"cheap\", \"subscription\"]".to_string()
        } else {
            format!(
                "the classes are {}",
                ctx.config
                    .classes
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Err(Error::usage(format!(
            "there is no class `{class}` in fleet.toml's [classes]"
        ))
        .with_help(known));
    }
    let store = Store::new(&ctx, &queue);
    store.refresh()?;
    for dep in args.after.iter().filter(|dep| *dep != &args.name) {
        waitable(&store, &args.name, dep)?;
    }
    let mut task = Task::new(&args.name, fleet::time::now());
    task.prompt = args.prompt;
    task.plan_from = args.plan.map(|p| p.display().to_string());
    task.agent = args.agent;
    task.after = args.after.iter().map(|a| a.as_str().to_string()).collect();
    task.priority = args.priority;
    task.max_attempts = args.max_attempts;
    task.class = args.class;
    task.max_tokens = args.max_tokens;
    task.max_cost_usd = args.max_cost;
    store.add(&task, plan.as_deref())?;
    if args.out.json {
        render::json(&task);
    } else {
        render::ok(&format!(
            "added task {} (queued, priority {})",
            task.name, task.priority
        ));
    }
    // Every add leaves a loose ref; a long queue is kept packed (see `drain::pack`).
    fleet::drain::pack::pack_task_refs_if_loose(&ctx, &queue, &TermUi::plain());
    Ok(0)
}

/// Refuse to make `name` wait for `dep` when that wait could never end: `dep` is not in
/// the queue, or was cancelled. A task may only wait for one that exists already, so no
/// two tasks can wait for each other.
fn waitable(store: &Store, name: &TaskName, dep: &TaskName) -> Result<()> {
    match store.load(dep)? {
        None => Err(Error::usage(format!(
            "task `{name}` cannot wait for `{dep}`: there is no task `{dep}`"
        ))
        .with_help(format!(
            "add `{dep}` first (`fleet task add {dep} ...`), then `{name}`: a task waits only \
             for one in the queue"
        ))),
        Some((task, _)) if task.state == TaskState::Cancelled => Err(Error::refused(format!(
            "task `{name}` cannot wait for `{dep}`: `{dep}` was cancelled and will never succeed"
        ))
        .with_help(format!(
            "`fleet task retry {dep}` puts it back first, or add `{name}` without --after {dep}"
        ))),
        Some(_) => Ok(()),
    }
}
