//! `fleet plans`: each plan open or closed (until when, why, the run that closed it);
//! `open` and `close` for a person; `explain TASK`, the route a drainer would take.

use std::collections::BTreeMap;

use fleet::error::{Error, Result};
use fleet::plans::route::{self, Decision, Route, Standing};
use fleet::plans::{PlanState, PlanStore, show_time};
use fleet::tasks::{Store, TaskName, TaskState};

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render::{self, answer};

/// The help of `--remote` for the plan commands.
const REMOTE_HELP: &str = "Use the plans and task queue of this git remote, shared by every \
                           machine that pushes to it (default: [lanes] remote in fleet.toml, else \
                           this repository)";

/// Plans: open or closed, and the route a task takes
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Show each plan ([plans.NAME] in fleet.toml: the profile it runs, its env, \
                  max_concurrency, order): open, or closed until when and why (the run whose \
                  usage limit closed it). The state is git data (one ref per plan under \
                  refs/fleet/plans/), changed by compare-and-swap and shared through the \
                  remote, so every drainer sees a closed plan at once. A closed plan starts \
                  nothing; its tasks go to the next open plan.",
    after_long_help = "Examples:\n  fleet plans\n  fleet plans --json\n  fleet plans close subscription --until 2h\n  fleet plans open subscription\n  fleet plans explain fix-login",
    args_conflicts_with_subcommands = true,
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
pub struct Args {
    #[command(subcommand)]
    command: Option<PlansCommand>,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

#[derive(Debug, clap::Subcommand)]
enum PlansCommand {
    Open(OpenArgs),
    Close(CloseArgs),
    Explain(ExplainArgs),
}

/// Open a plan (a person's word: it starts tasks again at once)
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  fleet plans open subscription\n  fleet plans open api-key --remote origin",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
struct OpenArgs {
    /// The plan ([plans.NAME] in fleet.toml)
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

/// Close a plan until a time, or until it is opened again
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = "Examples:\n  fleet plans close subscription\n  fleet plans close subscription --until 2h\n  fleet plans close api-key --until 2026-12-01T18:00:00Z",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
struct CloseArgs {
    /// The plan ([plans.NAME] in fleet.toml)
    #[arg(value_name = "NAME")]
    name: String,
    /// Open again at this time (2026-12-01T18:00:00Z) or after this long (2h); default:
    /// until `fleet plans open`
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

/// Which plan a task would run on now, and why
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Print which plan the task would run on if a drainer claimed it now, every \
                  plan considered (open, closed until when and why, at capacity, or running \
                  another profile than the task pins) and every setting that overrides a \
                  default (a task's --agent pinning a profile). A drainer routes by the same \
                  code.",
    after_long_help = "Examples:\n  fleet plans explain fix-login\n  fleet plans explain fix-login --json",
    mut_arg("remote", |a| a.help(REMOTE_HELP))
)]
struct ExplainArgs {
    /// The task
    #[arg(value_name = "TASK", value_parser = TaskName::parse)]
    task: TaskName,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    match args.command {
        None => list(env, &args.queue, args.out),
        Some(PlansCommand::Open(a)) => set(env, &a.queue, a.out, &a.name, true, None),
        Some(PlansCommand::Close(a)) => set(env, &a.queue, a.out, &a.name, false, a.until),
        Some(PlansCommand::Explain(a)) => explain(env, &a.queue, a.out, &a.task),
    }
}

/// One plan as `fleet plans --json` shows it.
#[derive(serde::Serialize)]
struct Shown<'a> {
    name: &'a str,
    /// Its profile; none for a plan ref fleet.toml no longer has.
    agent: Option<&'a str>,
    order: Option<i64>,
    max_concurrency: Option<u32>,
    running: u32,
    /// Open now (a plan closed until a time that has passed is open).
    open: bool,
    state: &'a PlanState,
}

fn list(env: &CommandEnv, queue: &QueueArgs, out: Output) -> Result<u8> {
    let (ctx, queue) = env.refreshed_queue(queue)?;
    fleet::plans::check(&ctx.config)?;
    let stored = PlanStore::new(&ctx, &queue).all()?;
    let busy = route::Busy::of(&ctx.config, &Store::new(&ctx, &queue).list()?).plans;
    let now = fleet::time::now();
    let mut names: Vec<&String> = ctx.config.plans.keys().collect();
    names.sort_by_key(|n| (ctx.config.plans[*n].order, n.as_str()));
    names.extend(stored.keys().filter(|n| !ctx.config.plans.contains_key(*n)));
    let never: BTreeMap<String, PlanState> = names
        .iter()
        .map(|n| (n.to_string(), PlanState::never_closed(n)))
        .collect();
    let shown: Vec<Shown> = names
        .iter()
        .map(|n| {
            let plan = ctx.config.plans.get(*n);
            let state = stored.get(*n).unwrap_or(&never[*n]);
            Shown {
                name: n,
                agent: plan.map(|p| p.agent.as_str()),
                order: plan.map(|p| p.order),
                max_concurrency: plan.and_then(|p| p.max_concurrency.map(|m| m.0)),
                running: busy.get(*n).copied().unwrap_or(0),
                open: state.is_open(now),
                state,
            }
        })
        .collect();
    if out.json {
        render::json(&shown);
        return Ok(0);
    }
    if shown.is_empty() {
        render::note(
            "no plans; add [plans.NAME] with agent = \"PROFILE\" to fleet.toml (tasks then run on the first open plan)",
        );
        return Ok(0);
    }
    for s in &shown {
        let profile = match s.agent {
            Some(a) => format!("profile {a}"),
            None => "not in fleet.toml".to_string(),
        };
        let running = match s.max_concurrency {
            Some(max) => format!("{} of {max} running", s.running),
            None => format!("{} running", s.running),
        };
        answer(&format!(
            "{} ({profile}): {}, {running}",
            s.name,
            standing_words(s.state, now)
        ));
        if !s.open
            && let Some(why) = &s.state.why
        {
            answer(&format!("  why: {}", first_line(why)));
        }
        if !s.open {
            answer(&format!("  {}", closed_by(s.state)));
        }
    }
    Ok(0)
}

/// `open` / `closed until T` / `closed until reopened`.
fn standing_words(state: &PlanState, now: i64) -> String {
    if state.is_open(now) {
        return "open".into();
    }
    match state.until {
        Some(t) => format!("closed until {}", show_time(t)),
        None => "closed until reopened (`fleet plans open`)".into(),
    }
}

fn closed_by(state: &PlanState) -> String {
    let run = match (&state.run, &state.task) {
        (Some(run), Some(task)) => format!(" (run {run} of task {task})"),
        _ => String::new(),
    };
    format!("closed by {}{run}", state.by)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn set(
    env: &CommandEnv,
    queue: &QueueArgs,
    out: Output,
    name: &str,
    open: bool,
    until: Option<String>,
) -> Result<u8> {
    let (ctx, queue) = env.refreshed_queue(queue)?;
    fleet::plans::named(&ctx.config, name)?;
    let now = fleet::time::now();
    let until = match until {
        Some(text) => Some(fleet::plans::parse_until(&text, now).map_err(|e| {
            Error::usage(format!("--until {e}"))
                .with_help("give --until 2026-12-01T18:00:00Z (RFC 3339) or a duration like 2h")
        })?),
        None => None,
    };
    let state = PlanStore::new(&ctx, &queue).set_by_hand(name, open, until, now)?;
    if out.json {
        render::json(&state);
    } else {
        render::ok(&format!("plan {name}: {}", standing_words(&state, now)));
    }
    Ok(0)
}

fn explain(env: &CommandEnv, queue: &QueueArgs, out: Output, name: &TaskName) -> Result<u8> {
    let (ctx, queue) = env.refreshed_queue(queue)?;
    fleet::plans::check(&ctx.config)?;
    let store = Store::new(&ctx, &queue);
    let Some((task, _)) = store.load(name)? else {
        return Err(Error::usage(format!("there is no task `{name}`"))
            .with_help("`fleet task list` lists the tasks"));
    };
    let busy = route::Busy::of(&ctx.config, &store.list()?);
    let stored = PlanStore::new(&ctx, &queue).all()?;
    let now = fleet::time::now();
    let route = route::route(&ctx.config, &task, &stored, &busy, now);
    if out.json {
        render::json(&route);
        return Ok(0);
    }
    print_route(&task, &route, now);
    Ok(0)
}

fn print_route(task: &fleet::tasks::Task, route: &Route, now: i64) {
    let head = match &route.decision {
        Decision::Run {
            plan: Some(plan),
            agent,
        } => format!("would run now on plan {plan} (profile {agent})"),
        Decision::Run { plan: None, agent } => {
            format!("would run now on profile {agent}, with no plan")
        }
        Decision::Wait => "would wait: every plan it may run on is closed or full".into(),
        Decision::Broken { why } => format!("cannot run: {why}"),
    };
    answer(&format!(
        "task {} ({}): {head}",
        task.name,
        task.state.as_str()
    ));
    if matches!(task.state, TaskState::Claimed | TaskState::Running)
        && let Some(run) = task.last_run()
    {
        answer(&format!(
            "  its run {} is on {} now",
            run.id,
            run.plan
                .as_deref()
                .map(|p| format!("plan {p}"))
                .unwrap_or_else(|| "no plan".into())
        ));
    }
    if let Some(at) = task.not_before.filter(|at| *at > now) {
        answer(&format!(
            "  not claimed before {} (its back-off)",
            show_time(at)
        ));
    }
    answer(&format!("plans: {}", route.source));
    let chosen = route.runs_on().and_then(|(p, _)| p);
    let width = route
        .considered
        .iter()
        .map(|c| c.plan.len())
        .max()
        .unwrap_or(0);
    for c in &route.considered {
        let words = match &c.standing {
            Standing::Open { running, max } => match max {
                Some(max) => format!("open, {running} of {max} running"),
                None => format!("open, {running} running"),
            },
            Standing::Closed {
                until, why, run, ..
            } => {
                let until = until
                    .map(|t| format!("closed until {}", show_time(t)))
                    .unwrap_or_else(|| "closed until reopened".into());
                let why = why
                    .as_deref()
                    .map(|w| format!(": {}", first_line(w)))
                    .unwrap_or_default();
                let run = run
                    .as_deref()
                    .map(|r| format!(" (run {r})"))
                    .unwrap_or_default();
                format!("{until}{why}{run}")
            }
            Standing::AtCapacity { running, max } => {
                format!("at capacity, {running} of {max} running")
            }
            Standing::OtherProfile { agent } => {
                format!("skipped: runs profile {agent}, not the pinned one")
            }
            Standing::ProfileAtCapacity { running, max } => format!(
                "open, but profile {} is at its max_concurrency ({running} of {max} running)",
                c.agent
            ),
        };
        let mark = if chosen == Some(c.plan.as_str()) {
            "  <- this one"
        } else {
            ""
        };
        answer(&format!(
            "  {:<width$}  profile {}: {words}{mark}",
            c.plan, c.agent
        ));
    }
    if !route.overrides.is_empty() {
        answer("overrides:");
        for o in &route.overrides {
            answer(&format!("  {o}"));
        }
    }
}
