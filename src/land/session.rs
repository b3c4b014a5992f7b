//! One landing run's shared values: the context, the queue, the options, the person
//! watching and the count of gate runs started ([`Lander`]); the target as one attempt found it
//! ([`Base`]); and gating a tree, through the cache.

use std::cell::Cell;

use super::unit::{self, NestedState};
use super::{LandOptions, Outcome, Ui};
use crate::config::Config;
use crate::context::Context;
use crate::error::Result;
use crate::gate::policy::config_at;
use crate::gate::{self, GateOutcome};
use crate::git::ObjectId;
use crate::queue::Queue;
use crate::remote;

/// What every step of one `fleet land` (or `fleet revert`) needs.
pub(crate) struct Lander<'a> {
    pub ctx: &'a Context,
    /// The queue the lanes land through, chosen once by the command.
    pub queue: &'a Queue,
    pub opts: LandOptions,
    pub ui: &'a dyn Ui,
    /// Gate runs started (results taken from the cache are not runs).
    runs: Cell<usize>,
}

/// The target as one attempt found it: its commit, the configuration committed there
/// (the gate's policy), what the remote held, and every nested repository at its target
/// (with the lane's part in each, when the attempt is for one lane).
pub(crate) struct Base {
    pub commit: ObjectId,
    pub config: Config,
    /// With the queue on a remote: what it held, advanced by each landing through it.
    pub fetched: Option<remote::Fetched>,
    pub nested: Vec<NestedState>,
}

/// What the gate said about one tree, and whether it ran now or came from the cache.
pub(crate) struct Verdict {
    pub outcome: GateOutcome,
    pub cached: bool,
}

impl<'a> Lander<'a> {
    pub fn new(
        ctx: &'a Context,
        queue: &'a Queue,
        opts: LandOptions,
        ui: &'a dyn Ui,
    ) -> Lander<'a> {
        Lander {
            ctx,
            queue,
            opts,
            ui,
            runs: Cell::new(0),
        }
    }

    pub fn runs(&self) -> usize {
        self.runs.get()
    }

    /// Fetch the queue (when on a remote) and read the target: its commit, its
    /// configuration, and the nested repositories with `lane`'s parts in them (`None`:
    /// targets only). A part that conflicts or is blocked decides the lane (recorded)
    /// and comes back as `Err`.
    pub fn base(&self, lane: Option<&str>) -> Result<std::result::Result<Base, Outcome>> {
        let ctx = self.ctx;
        let fetched = self.queue.refresh(ctx)?;
        let commit = self.queue.target_tip(ctx)?;
        let config = config_at(&ctx.repo, commit, ctx.target())?;
        let nested = match unit::states(self, lane, &config)? {
            Ok(nested) => nested,
            Err(outcome) => return Ok(Err(outcome)),
        };
        Ok(Ok(Base {
            commit,
            config,
            fetched,
            nested,
        }))
    }

    /// Gate `commit`'s exact tree (built on `from`), unless the cache already knows how
    /// that tree did under these commands and environment.
    pub fn gate_tree(
        &self,
        on: &Base,
        label: &str,
        from: ObjectId,
        commit: ObjectId,
        commands: &[String],
    ) -> Result<Verdict> {
        let repo = &self.ctx.repo;
        let tree = repo.tree_of(commit)?;
        let env_names: Vec<String> = on
            .config
            .gate
            .env
            .iter()
            .map(|n| n.as_str().into())
            .collect();
        let key = gate::cache::key(tree, &unit::cache_parts(&on.nested)?, commands, &env_names);
        if !self.opts.no_cache
            && let Some(entry) = gate::cache::lookup(repo, &key)?
        {
            self.ui.note(&format!(
                "{label}: tree {} was gated before ({}); using that result (--no-cache runs it again)",
                tree.to_hex_with_len(12),
                if entry.green { "passed" } else { "failed" }
            ));
            return Ok(Verdict {
                outcome: entry.outcome(),
                cached: true,
            });
        }
        self.runs.set(self.runs.get() + 1);
        let outcome = self.run_gate(on, label, from, commit, commands)?;
        if let Err(e) = gate::cache::store(repo, &key, tree, &outcome) {
            self.ui
                .warn(&format!("the gate result was not cached: {}", e.message));
        }
        Ok(Verdict {
            outcome,
            cached: false,
        })
    }

    /// Run the gate on `candidate` in the gate worktree, the nested repositories put in
    /// place inside it.
    fn run_gate(
        &self,
        on: &Base,
        lane: &str,
        from: ObjectId,
        candidate: ObjectId,
        commands: &[String],
    ) -> Result<GateOutcome> {
        let repo = &self.ctx.repo;
        let worktree = gate::prepare_worktree(self.ctx, candidate)?;
        unit::materialise(&worktree, &on.nested)?;
        let env = [
            ("FLEET_LANE", lane.to_string()),
            ("FLEET_BASE", from.to_string()),
            ("FLEET_CANDIDATE", candidate.to_string()),
        ];
        gate::run(
            repo,
            &worktree,
            commands,
            on.config.gate.timeout.0,
            &env,
            lane,
            |command, elapsed| self.ui.progress(lane, command, elapsed),
        )
        .inspect_err(|e| {
            if gate::run::is_interruption(e) {
                self.ui.warn(&e.message);
            }
        })
    }
}
