//! The queue: the target branch and the lanes waiting to land on it, either this
//! repository's own or a shared remote's, decided once per command.
//!
//! With [`Queue::Remote`] the remote is the coordination point (see [`crate::remote`]):
//! its target and lane branches as last fetched (`refs/remotes/<name>/...`) and its
//! registry (`refs/fleet/remotes/<name>/lanes`) are the queue, every registry change is
//! a compare-and-swap push, and a lane's branch is published to the remote before it is
//! tracked or marked ready, so the queue never names a commit only this machine has.
//! With [`Queue::Local`] this repository's refs are the queue and nothing is fetched or
//! pushed. Code that needs the difference asks the queue; nothing else looks at which
//! remote was configured.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{ObjectId, cli::PushUpdate};
use crate::lanes::{self, Lane, LaneState, Registry, WorkerTest};
use crate::refs;
use crate::remote::{self, Fetched};

/// Where the queue is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Queue {
    /// This repository's own target and `refs/fleet/lanes`.
    Local,
    /// The named remote's, shared by every machine that pushes to it.
    Remote(String),
}

impl Queue {
    /// The queue a command works on: the remote named by `--remote` (`flag`), else the
    /// configured `[lanes] remote`, else this repository's own. A named remote must exist.
    pub fn choose(ctx: &Context, flag: Option<String>) -> Result<Queue> {
        let queue = match flag.or_else(|| configured_remote(ctx)) {
            Some(name) => Queue::Remote(name),
            None => Queue::Local,
        };
        if let Queue::Remote(name) = &queue {
            remote::check_exists(&ctx.repo, name)?;
        }
        Ok(queue)
    }

    /// The configured queue (`[lanes] remote`, else this repository's own), for the
    /// commands that take no `--remote` (`fleet revert`, `fleet doctor`): taken as
    /// configured, the remote not checked here (a missing one fails where it is read).
    pub fn configured(ctx: &Context) -> Queue {
        match configured_remote(ctx) {
            Some(name) => Queue::Remote(name),
            None => Queue::Local,
        }
    }

    /// The remote the queue is on, if any.
    pub fn remote(&self) -> Option<&str> {
        match self {
            Queue::Local => None,
            Queue::Remote(name) => Some(name),
        }
    }

    /// The ref holding the queue's registry: this repository's own, or the remote's as
    /// last fetched (with a remote, the remote's registry is the queue and this
    /// repository's own is left alone).
    pub fn registry_ref(&self) -> String {
        match self {
            Queue::Local => refs::LANES.to_string(),
            Queue::Remote(name) => refs::remote_lanes(name),
        }
    }

    /// The target the lanes land on: the remote's (as last fetched) when the queue is on
    /// a remote, else this repository's.
    pub fn target_tip(&self, ctx: &Context) -> Result<ObjectId> {
        let Queue::Remote(remote) = self else {
            return ctx.target_tip();
        };
        let target = ctx.target();
        ctx.repo
            .ref_target(&refs::tracking(remote, target))?
            .ok_or_else(|| {
                Error::usage(format!("the remote `{remote}` has no branch `{target}`"))
                    .with_help(format!("publish it first: `git push {remote} {target}`"))
            })
    }

    /// A lane branch's tip where the queue is: the remote's branch (as last fetched)
    /// when the queue is on a remote, else the local branch.
    pub fn lane_tip(&self, ctx: &Context, branch: &str) -> Result<Option<ObjectId>> {
        // `HEAD` and names git would not take as a branch are no lane's branch.
        if !crate::config::is_valid_branch_name(branch) {
            return Ok(None);
        }
        match self {
            Queue::Local => ctx.repo.branch_tip(branch),
            Queue::Remote(remote) => ctx.repo.ref_target(&refs::tracking(remote, branch)),
        }
    }

    /// With the queue on a remote: fetch it (its target, lanes and receipts; its
    /// receipts are merged into the local ones). What the remote held is returned.
    pub fn refresh(&self, ctx: &Context) -> Result<Option<Fetched>> {
        match self {
            Queue::Local => Ok(None),
            Queue::Remote(name) => Ok(Some(remote::fetch(ctx, name)?)),
        }
    }

    /// Read the queue's registry (empty when there is none yet) and the commit it came
    /// from.
    pub fn load(&self, ctx: &Context) -> Result<(Registry, Option<ObjectId>)> {
        lanes::load_at(&ctx.repo, &self.registry_ref())
    }

    /// Apply `change` to the queue's registry by compare-and-swap, re-reading and
    /// re-applying when another process (or, with a remote, another machine) updated it
    /// first. `change` must be idempotent over a re-read registry (it is called again on
    /// each retry). With a remote nothing changes here unless the push went in.
    pub fn update<T>(
        &self,
        ctx: &Context,
        what: &str,
        change: impl FnMut(&mut Registry) -> Result<T>,
    ) -> Result<T> {
        match self {
            Queue::Local => lanes::update_at(&ctx.repo, refs::LANES, what, change),
            Queue::Remote(name) => update_remote(ctx, name, what, change),
        }
    }

    /// The registry as `change` leaves it, committed on top of the current one but on no
    /// ref (a remote landing pushes it, and the local ref follows once the push is in).
    pub fn staged(
        &self,
        ctx: &Context,
        what: &str,
        change: impl FnOnce(&mut Registry),
    ) -> Result<ObjectId> {
        let (mut registry, old) = self.load(ctx)?;
        change(&mut registry);
        let parents: Vec<ObjectId> = old.into_iter().collect();
        lanes::write(&ctx.repo, &registry, what, &parents)
    }

    /// With the queue on a remote: publish the local branch `branch` there when the
    /// remote lacks it or has an older commit of it (see [`remote::publish_branch`]).
    /// Nothing to do for a local queue.
    pub fn publish_branch(
        &self,
        ctx: &Context,
        branch: &str,
        ui: &dyn crate::report::Ui,
    ) -> Result<()> {
        match self {
            Queue::Local => Ok(()),
            Queue::Remote(name) => remote::publish_branch(ctx, name, branch, ui),
        }
    }

    /// The branches `fleet track` is given (branch or agent names, resolved here),
    /// each published first when the queue is on a remote.
    pub fn publish_to_track(
        &self,
        ctx: &Context,
        given: &[String],
        ui: &dyn crate::report::Ui,
    ) -> Result<Vec<String>> {
        let prefix = ctx.config.lanes.prefix.as_str();
        let mut resolved = Vec::new();
        for name in given {
            let branch =
                lanes::resolve_branch(&ctx.repo, prefix, name)?.unwrap_or_else(|| name.clone());
            self.publish_branch(ctx, &branch, ui)?;
            resolved.push(branch);
        }
        Ok(resolved)
    }

    /// Before `fleet ready` with the queue on a remote: fetch it, and publish the
    /// branch of each given lane, so the remote has the commits marked ready.
    pub fn publish_lanes(
        &self,
        ctx: &Context,
        given: &[String],
        ui: &dyn crate::report::Ui,
    ) -> Result<()> {
        if *self == Queue::Local {
            return Ok(());
        }
        self.refresh(ctx)?;
        let (registry, _) = self.load(ctx)?;
        let prefix = ctx.config.lanes.prefix.as_str();
        for name in given {
            if let Some(branch) = lanes::lane_name(&registry, prefix, name) {
                self.publish_branch(ctx, &branch, ui)?;
            }
        }
        Ok(())
    }

    /// Before a follow-up task's lane is marked ready with the queue on a remote: fetch
    /// it, and publish the lane's branch, which the follow-up may have rewritten (see
    /// [`remote::publish_rewritten_branch`]: the remote's branch is replaced only while it
    /// still holds the tip the follow-up continued).
    pub fn publish_rewritten_lane(
        &self,
        ctx: &Context,
        branch: &str,
        rewritten: remote::Rewritten,
        ui: &dyn crate::report::Ui,
    ) -> Result<()> {
        let Queue::Remote(name) = self else {
            return Ok(());
        };
        self.refresh(ctx)?;
        if self.load(ctx)?.0.get(branch).is_none() {
            return Ok(());
        }
        remote::publish_rewritten_branch(ctx, name, branch, rewritten, ui)
    }

    /// Where the lane `branch` landed, by the receipts alone (for a lane no longer in
    /// the registry, untracked after landing): the commit of the queue's target history
    /// whose receipt names that branch, the latest when several do. `None` when no
    /// receipt in reach names it.
    pub fn landing_of(&self, ctx: &Context, branch: &str) -> Result<Option<ObjectId>> {
        let repo = &ctx.repo;
        let Some(notes) = repo.ref_target(refs::NOTES)? else {
            return Ok(None);
        };
        let target = self.target_tip(ctx)?;
        let mut found: Option<(i64, ObjectId)> = None;
        for (path, _) in repo.files_in(notes)? {
            let name: String = path.chars().filter(|c| *c != '/').collect();
            let Ok(commit) = ObjectId::from_hex(name.as_bytes()) else {
                continue;
            };
            let Some(receipt) = crate::gate::read_receipt(repo, commit)? else {
                continue;
            };
            if receipt.lane != branch || found.is_some_and(|(at, _)| at >= receipt.at) {
                continue;
            }
            if repo.merge_base(commit, target)? == Some(commit) {
                found = Some((receipt.at, commit));
            }
        }
        Ok(found.map(|(_, commit)| commit))
    }

    /// A lane for the agent branch `fleet worktree new` just made (or found): tracked as
    /// running at `tip` unless it is a lane already (its state is kept) or a landed lane
    /// whose branch has not moved. Only on this repository's own queue: with a remote
    /// the branch would have to be published first, which `fleet track` does. Returns
    /// whether it was newly tracked.
    pub fn track_new_worktree(&self, ctx: &Context, branch: &str, tip: ObjectId) -> Result<bool> {
        if *self != Queue::Local {
            return Ok(false);
        }
        let keep = |registry: &Registry| {
            registry
                .get(branch)
                .is_some_and(|lane| lane.state != LaneState::Landed || lane.landed_tip == Some(tip))
        };
        if keep(&self.load(ctx)?.0) {
            return Ok(false);
        }
        self.update(ctx, &format!("track {branch} (worktree new)"), |registry| {
            if keep(registry) {
                return Ok(false);
            }
            registry.lanes.retain(|l| l.branch != branch);
            registry
                .lanes
                .push(new_lane(branch, LaneState::Running, tip));
            Ok(true)
        })
    }

    /// Register branches as lanes, all or none. With the queue on a remote, the
    /// branches are looked up there. A lane already tracked as running (as `fleet
    /// worktree new` leaves it) is no refusal: it stays as it is (or, with `ready`, is
    /// marked ready) and is listed in [`Tracked::already`].
    pub fn track(&self, ctx: &Context, given: &[String], ready: bool) -> Result<Tracked> {
        let target = ctx.target();
        let prefix = ctx.config.lanes.prefix.as_str();
        let mut branches = Vec::new();
        let mut tips = Vec::new();
        for name in given {
            let prefixed = format!("{prefix}{name}");
            let mut found = None;
            for candidate in [name.as_str(), prefixed.as_str()] {
                if let Some(tip) = self.lane_tip(ctx, candidate)? {
                    found = Some((candidate.to_string(), tip));
                    break;
                }
            }
            let (branch, tip) = found.ok_or_else(|| self.no_branch(name))?;
            if !crate::config::is_valid_branch_name(&branch) {
                return Err(Error::usage(format!("`{branch}` is not a branch name")));
            }
            if branch == target {
                return Err(Error::usage(format!(
                    "`{branch}` is the target branch; it cannot be a lane"
                ))
                .with_help("track the branches that land on it"));
            }
            if branches.contains(&branch) {
                return Err(Error::usage(format!("`{branch}` is given twice")));
            }
            branches.push(branch);
            tips.push(tip);
        }
        let state = if ready {
            LaneState::Ready
        } else {
            LaneState::Running
        };
        // Every one already running and nothing to change: no registry commit.
        let (now, _) = self.load(ctx)?;
        if !ready
            && branches
                .iter()
                .all(|b| now.get(b).is_some_and(|l| l.state == LaneState::Running))
        {
            return Ok(Tracked {
                already: branches.clone(),
                branches,
            });
        }
        self.update(ctx, &format!("track {}", branches.join(" ")), |registry| {
            let mut already = Vec::new();
            for branch in &branches {
                match registry.get(branch).map(|l| l.state) {
                    None | Some(LaneState::Landed) => {}
                    Some(LaneState::Running) => already.push(branch.clone()),
                    Some(other) => {
                        return Err(Error::refused(format!(
                            "`{branch}` is already a lane ({})",
                            other.as_str()
                        ))
                        .with_help(
                            "`fleet status` shows the lanes; `fleet ready` marks one ready",
                        ));
                    }
                }
            }
            for lane in registry.lanes.iter_mut() {
                if already.contains(&lane.branch) {
                    lane.state = state;
                    lane.detail.clear();
                }
            }
            registry
                .lanes
                .retain(|l| !branches.contains(&l.branch) || already.contains(&l.branch));
            for (branch, tip) in branches.iter().zip(&tips) {
                if !already.contains(branch) {
                    registry.lanes.push(new_lane(branch, state, *tip));
                }
            }
            Ok(Tracked {
                branches: branches.clone(),
                already,
            })
        })
    }

    /// With the queue on a remote: the lanes among `wanted` (all when `None`) that are
    /// ready in this repository's own registry but not lanes of the remote's queue, so
    /// landing there cannot see them, and the command that publishes them.
    pub fn ready_only_here(
        &self,
        ctx: &Context,
        wanted: Option<&[String]>,
    ) -> Result<Option<(Vec<String>, String)>> {
        let Queue::Remote(remote) = self else {
            return Ok(None);
        };
        let (theirs, _) = self.load(ctx)?;
        let (own, _) = lanes::load_at(&ctx.repo, refs::LANES)?;
        let prefix = ctx.config.lanes.prefix.as_str();
        let only_here: Vec<String> = own
            .lanes
            .iter()
            .filter(|l| matches!(l.state, LaneState::Ready | LaneState::Testing))
            .filter(|l| theirs.get(&l.branch).is_none())
            .filter(|l| {
                wanted.is_none_or(|w| {
                    w.iter()
                        .any(|g| *g == l.branch || format!("{prefix}{g}") == l.branch)
                })
            })
            .map(|l| l.branch.clone())
            .collect();
        if only_here.is_empty() {
            return Ok(None);
        }
        let publish = format!(
            "fleet track --remote {remote} --ready {}",
            only_here.join(" ")
        );
        Ok(Some((only_here, publish)))
    }

    /// The refusal for a branch `fleet track` cannot find where the queue is.
    fn no_branch(&self, name: &str) -> Error {
        match self {
            Queue::Remote(remote) => {
                Error::usage(format!("there is no branch `{name}` on {remote}")).with_help(
                    format!(
                        "push it first (`git push {remote} {name}`), or create it here and run this again"
                    ),
                )
            }
            Queue::Local => Error::usage(format!("there is no branch `{name}` to track"))
                .with_help(
                    "`git branch --list` shows the branches; create the worktree with `fleet worktree new`",
                ),
        }
    }

    /// Forget lanes. The branches themselves are not touched.
    pub fn untrack(&self, ctx: &Context, given: &[String]) -> Result<Vec<String>> {
        let prefix = ctx.config.lanes.prefix.as_str();
        let (registry, _) = self.load(ctx)?;
        let mut branches = Vec::new();
        for name in given {
            let branch = lanes::lane_name(&registry, prefix, name).ok_or_else(|| {
                Error::usage(format!("`{name}` is not a lane"))
                    .with_help("`fleet status` lists the lanes")
            })?;
            if !branches.contains(&branch) {
                branches.push(branch);
            }
        }
        self.update(
            ctx,
            &format!("untrack {}", branches.join(" ")),
            |registry| {
                registry.lanes.retain(|l| !branches.contains(&l.branch));
                Ok(())
            },
        )?;
        Ok(branches)
    }

    /// Mark lanes ready to land. A worker's own test result may come along; its exit
    /// code decides (a non-zero code leaves the lane running and refuses), never the
    /// log's words.
    pub fn ready(
        &self,
        ctx: &Context,
        given: &[String],
        worker: Option<WorkerTest>,
    ) -> Result<Vec<String>> {
        let prefix = ctx.config.lanes.prefix.as_str();
        let (registry, _) = self.load(ctx)?;
        let mut branches = Vec::new();
        for name in given {
            let branch = lanes::lane_name(&registry, prefix, name).ok_or_else(|| {
                Error::usage(format!("`{name}` is not a lane")).with_help(format!(
                    "track it first (`fleet track {name}`), then run this again"
                ))
            })?;
            branches.push(branch);
        }
        // A landed lane becomes ready again only with new commits to land; a reverted
        // one never (its commits would land the reverted work again).
        for branch in &branches {
            if registry
                .get(branch)
                .is_some_and(|l| l.state == LaneState::Reverted)
            {
                return Err(lanes::reverted(branch));
            }
            if let Some(lane) = registry.get(branch)
                && lane.state == LaneState::Landed
                && self.lane_tip(ctx, branch)? == lane.landed_tip
            {
                return Err(Error::refused(format!(
                    "lane `{branch}` has landed and has no new commits"
                )));
            }
        }
        let failed = worker.as_ref().is_some_and(|w| w.exit_code != 0);
        self.update(ctx, &format!("ready {}", branches.join(" ")), |registry| {
            for branch in &branches {
                if let Some(lane) = registry.get_mut(branch) {
                    lane.worker = worker.clone();
                    // The exit code decides: a failing test takes a ready lane back to running.
                    lane.state = if failed {
                        LaneState::Running
                    } else {
                        LaneState::Ready
                    };
                    lane.detail.clear();
                }
            }
            Ok(())
        })?;
        if let Some(w) = worker.filter(|w| w.exit_code != 0) {
            return Err(Error::refused(format!(
                "not marked ready: the worker's test exited {} (recorded{})",
                w.exit_code,
                w.log.map(|l| format!(", log {l}")).unwrap_or_default()
            ))
            .with_help("fix the failure and run `fleet ready` again with a passing test"));
        }
        Ok(branches)
    }
}

/// What `fleet track` did: every branch it was given, and those of them that were
/// already lanes, running (left as they were, or marked ready with `--ready`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Tracked {
    pub branches: Vec<String>,
    pub already: Vec<String>,
}

/// A lane just tracked, at `tip`.
fn new_lane(branch: &str, state: LaneState, tip: ObjectId) -> Lane {
    Lane {
        branch: branch.to_string(),
        state,
        tracked_at: crate::time::now(),
        tracked_tip: tip,
        worker: None,
        gate: None,
        detail: Vec::new(),
        landed_as: None,
        landed_tip: None,
    }
}

/// The configured `[lanes] remote`, if any.
fn configured_remote(ctx: &Context) -> Option<String> {
    ctx.config
        .lanes
        .remote
        .as_ref()
        .map(|r| r.as_str().to_string())
}

/// Change the remote's lane registry (the shared queue) by compare-and-swap: fetch it,
/// apply `change`, push with a lease on what was fetched, and start over when another
/// machine pushed first. Nothing changes here unless the push went in.
fn update_remote<T>(
    ctx: &Context,
    name: &str,
    what: &str,
    mut change: impl FnMut(&mut Registry) -> Result<T>,
) -> Result<T> {
    let repo = &ctx.repo;
    let tracking = refs::remote_lanes(name);
    for _ in 0..remote::PUSH_ATTEMPTS {
        let fetched = remote::fetch(ctx, name)?;
        let (mut registry, old) = lanes::load_at(repo, &tracking)?;
        let result = change(&mut registry)?;
        let parents: Vec<ObjectId> = old.into_iter().collect();
        let new = lanes::write(repo, &registry, what, &parents)?;
        let update = PushUpdate {
            dst: refs::LANES.to_string(),
            new: new.to_string(),
            expect: old.map(|id| id.to_string()),
        };
        let Some(why) = remote::push(ctx, name, &[update])? else {
            remote::set_tracking(repo, &tracking, new)?;
            return Ok(result);
        };
        if remote::fetch(ctx, name)?.lanes == fetched.lanes {
            return Err(remote::push_refused(name, &why));
        }
    }
    Err(Error::env(format!(
        "{name}'s lane registry kept changing ({} attempts)",
        remote::PUSH_ATTEMPTS
    ))
    .with_help("other machines are updating lanes in a loop; retry in a moment"))
}
