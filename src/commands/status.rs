//! `fleet status`: the tasks drainers hold (when there are tasks), then the lanes with
//! their state, ahead/behind, predicted conflicts and last gate result (the tables are
//! render::table).

use fleet::error::Result;

use super::CommandEnv;
use crate::cli::args::{Output, QueueArgs};
use crate::render;

/// Tasks by state, then lanes with state, ahead/behind, conflicts and gate result
#[derive(Debug, clap::Args)]
#[command(
    long_about = "The task queue and the lanes, derived from the refs on each read. When there are \
                  tasks, one line counts them by state, then one line per task a drainer holds \
                  (claimed or running): its run id, attempt, age, the drainer's pid, the agent's \
                  process group, the host and the worktree; a running agent with no output, no commit \
                  and no change in its worktree for its `stall_after` reads `stalled`, with for how \
                  long it was silent. Then one line per lane: state, \
                  ahead/behind the target, predicted conflicts, staleness and the last gate result; \
                  then one indented line per nested repository where the lane has commits \
                  (ahead/behind against that repository's target, `in target` once landed). \
                  --json lists every nested part as `nested` and prints the lanes as a JSON array; with --tasks, one object {\"tasks\": \
                  {\"counts\", \"running\"}, \"lanes\": [...]}, each running task with `stalled` \
                  and `liveness` (its last activity, what showed it, seconds silent, its stall_after \
                  and abandon_after; null where its drainer's machine is another).",
    after_long_help = "Examples:\n  fleet status\n  fleet status --remote origin\n  fleet status --json | jq '.[] | select(.state == \"failed\") | .gate.log'\n  fleet status --json --tasks | jq '.tasks.running[] | {name, run, worktree}'"
)]
pub struct Args {
    #[command(flatten)]
    queue: QueueArgs,
    /// With --json: an object with the task summary and the lanes
    #[arg(long, requires = "json")]
    tasks: bool,
    #[command(flatten)]
    out: Output,
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let (ctx, queue) = env.refreshed_queue(&args.queue)?;
    for warning in ctx.nested_warnings() {
        render::warn(warning);
    }
    let views = fleet::status::lanes(&ctx, &queue)?;
    if args.out.json {
        if args.tasks {
            let tasks = fleet::status::tasks(&ctx, &queue)?;
            render::json(&serde_json::json!({ "tasks": tasks, "lanes": views }));
        } else {
            render::json(&views);
        }
        return Ok(0);
    }
    let tasks = fleet::status::tasks(&ctx, &queue)?;
    if tasks.total() > 0 {
        render::table::tasks(&tasks);
    }
    if views.is_empty() {
        render::note("no lanes; track one with `fleet track BRANCH`");
        return Ok(0);
    }
    if tasks.total() > 0 {
        render::answer("");
    }
    render::table::lanes(&views, env.cwd());
    Ok(0)
}
