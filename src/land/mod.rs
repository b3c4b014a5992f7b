//! The landing engine: one lane at a time, each on the target as it is after the lanes
//! before it, through the gate.
//!
//! Invariant (DESIGN.md, 1): the target ref moves only by compare-and-swap, only from the
//! commit the candidate was built on to the candidate, and only after the gate (read from
//! that old target commit, never from the lane or a working directory) passed on the
//! candidate's exact tree. The receipt is written before the move, so every move has one.
//! Killed at any instant, the target is at its old commit or at a gated one; lanes' own
//! branches are never rewritten; running `fleet land` again converges.
//!
//! By job: [`session`] (the values one landing run shares, and gating a tree),
//! [`select`] (which lanes), [`candidate`] (building a lane's commit on a base),
//! [`single`] (one lane: build, confirm, gate, publish), [`batch`] and [`unit`] (many
//! lanes gated once; one lane over nested repositories), [`publish`] (receipts, the
//! compare-and-swap, the shared checkout), [`record`] (the registry's marks),
//! [`journal`] (finishing what a killed landing left), [`revert`] and [`summary`] (the
//! diff shown before confirming).

use std::path::PathBuf;

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Result};
// Ids in the JSON report are full hex strings, as in the receipts.
use crate::git::ObjectId;
use crate::git::hex;
use crate::queue::Queue;

mod batch;
mod candidate;
mod journal;
mod publish;
mod record;
mod revert;
mod select;
mod session;
mod single;
mod summary;
mod unit;

pub use candidate::unwritable;
pub use revert::revert;

/// How often a lane is rebuilt on a target that moved during its gate run.
/// Each lost race means another lander moved the target (progress for the queue): the
/// bound only stops a lander that keeps losing to faster ones.
const MAX_ATTEMPTS: usize = 20;

#[derive(Clone, Debug, Default)]
pub struct LandOptions {
    pub lanes: Vec<String>,
    pub all: bool,
    pub include_running: bool,
    pub yes: bool,
    pub dry_run: bool,
    pub allow_protected: bool,
    /// Stack the lanes into one candidate, gate it once, bisect on red.
    pub batch: bool,
    /// At most this many lanes per batch.
    pub max: Option<usize>,
    /// Run the gate even when the cache knows the tree's result.
    pub no_cache: bool,
}

#[derive(Debug, Serialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Outcome {
    Landed {
        #[serde(with = "hex")]
        candidate: ObjectId,
        #[serde(with = "hex")]
        base: ObjectId,
        gate_ms: u64,
        log: PathBuf,
        /// The gate result came from the cache (an identical tree passed before).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        cached: bool,
        /// Landed in a batch whose top (the commit the target moved to) is this.
        #[serde(skip_serializing_if = "Option::is_none", with = "hex::option")]
        landed_with: Option<ObjectId>,
    },
    AlreadyLanded,
    Failed {
        log: PathBuf,
        exit_code: i32,
        command: String,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        cached: bool,
    },
    Conflicted {
        files: Vec<String>,
    },
    Blocked {
        reasons: Vec<String>,
    },
    Refused {
        reason: String,
    },
    /// Landing stopped here; the lanes before it are reported as they went.
    Error {
        message: String,
        help: Option<String>,
        exit_code: u8,
    },
    WouldLand {
        #[serde(with = "hex")]
        base: ObjectId,
        #[serde(with = "hex")]
        candidate_tree: ObjectId,
        files: usize,
        commands: Vec<String>,
    },
}

/// One lane's result. Its JSON names the lane twice: `branch`, the key every other
/// command uses for a lane, and `lane`, kept for scripts written before.
#[derive(Debug)]
pub struct LaneReport {
    /// The lane's full branch name.
    pub lane: String,
    pub outcome: Outcome,
}

impl Serialize for LaneReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Doc<'a> {
            lane: &'a str,
            branch: &'a str,
            #[serde(flatten)]
            outcome: &'a Outcome,
        }
        Doc {
            lane: &self.lane,
            branch: &self.lane,
            outcome: &self.outcome,
        }
        .serialize(s)
    }
}

impl LaneReport {
    pub fn ok(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Landed { .. } | Outcome::AlreadyLanded | Outcome::WouldLand { .. }
        )
    }

    fn error(lane: String, e: &Error) -> LaneReport {
        LaneReport {
            lane,
            outcome: Outcome::Error {
                message: e.message.clone(),
                help: e.help.clone(),
                exit_code: e.kind.exit_code(),
            },
        }
    }
}

/// What one `fleet land` did.
#[derive(Debug, Default, Serialize)]
pub struct Landing {
    pub lanes: Vec<LaneReport>,
    /// Gate runs started (results taken from the cache are not runs).
    pub gate_runs: usize,
}

/// What the engine tells the person watching, and asks them: the one way the landing
/// engine reports (it prints nothing itself).
pub use crate::report::Ui;

/// Land the lanes `opts` names on `queue`'s target (fetched here, under the landing
/// lock, when the queue is on a remote).
pub fn land(ctx: &Context, queue: &Queue, opts: &LandOptions, ui: &dyn Ui) -> Result<Landing> {
    let _lock = ctx
        .repo
        .lock("land", std::time::Duration::from_secs(24 * 3600))?;
    journal::recover(ctx, ui)?;
    queue.refresh(ctx)?;
    let lanes = select::lanes(ctx, queue, opts)?;
    let lander = session::Lander::new(ctx, queue, opts.clone(), ui);
    let lanes = if opts.batch {
        batch::land(&lander, lanes)?
    } else {
        single::land_each(&lander, lanes)?
    };
    Ok(Landing {
        lanes,
        gate_runs: lander.runs(),
    })
}
