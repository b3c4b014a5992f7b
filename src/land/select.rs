//! Which lanes a landing takes, in which order: the named ones, or with `--all` every
//! ready (or testing) lane, running ones on request, and landed ones whose landing was
//! undone.

use super::LandOptions;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::lanes::{self, LaneState};
use crate::queue::Queue;

pub(crate) fn lanes(ctx: &Context, queue: &Queue, opts: &LandOptions) -> Result<Vec<String>> {
    let (registry, _) = queue.load(ctx)?;
    let prefix = ctx.config.lanes.prefix.as_str();
    if opts.all {
        if !opts.lanes.is_empty() {
            return Err(Error::usage("give lanes or --all, not both"));
        }
        let target = queue.target_tip(ctx)?;
        let mut selected = Vec::new();
        for l in &registry.lanes {
            let take = match l.state {
                LaneState::Ready | LaneState::Testing => true,
                LaneState::Running => opts.include_running,
                LaneState::Landed => match queue.lane_tip(ctx, &l.branch)? {
                    Some(tip) => crate::lanes::landed::landing_undone(&ctx.repo, l, tip, target)?,
                    None => false,
                },
                _ => false,
            };
            if take {
                selected.push(l.branch.clone());
            }
        }
        return Ok(selected);
    }
    if opts.lanes.is_empty() {
        return Err(Error::usage("which lanes? name them, or pass --all")
            .with_help("`fleet status` lists the lanes"));
    }
    let mut out = Vec::new();
    for given in &opts.lanes {
        let Some(lane) = lanes::lane_name(&registry, prefix, given) else {
            let one = std::slice::from_ref(given);
            let help = match (queue.remote(), queue.ready_only_here(ctx, Some(one))?) {
                (Some(remote), Some((_, publish))) => format!(
                    "it is ready only in this repository's own queue, not {remote}'s: publish it with `{publish}`"
                ),
                _ => format!("track it first: `fleet track {given}`"),
            };
            return Err(Error::usage(format!("`{given}` is not a lane")).with_help(help));
        };
        if registry
            .get(&lane)
            .is_some_and(|l| l.state == LaneState::Reverted)
        {
            return Err(lanes::reverted(&lane));
        }
        if !out.contains(&lane) {
            out.push(lane);
        }
    }
    Ok(out)
}
