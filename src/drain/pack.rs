//! Keeping the task refs packed. Every change of a task leaves its ref as a loose file,
//! and every list and every claim lists all the task refs: at 10,000 tasks that is
//! 10,000 files read per claim (21 claims/s with 4 claimers, against 119 with the refs
//! packed: `cargo bench --bench tasks`). So once more than [`PACK_AT`] task refs are
//! loose, `fleet drain` (at each of its watch steps) and `fleet task add` pack them
//! ([`crate::git::Repo::pack_refs_under`]). Below that, listing the loose files costs
//! less than rewriting `packed-refs`; counting them reads one folder, no file.

use crate::context::Context;
use crate::queue::Queue;
use crate::refs;
use crate::report::Ui;

/// Loose task refs past which they are packed.
pub const PACK_AT: usize = 1000;

/// Where the queue's task refs are read here: this repository's own, or the tracking
/// refs of the remote's (which every fetch writes loose).
fn prefix(queue: &Queue) -> String {
    match queue.remote() {
        None => refs::TASKS.to_string(),
        Some(remote) => refs::remote_tasks(remote),
    }
}

/// Pack the queue's task refs when more than [`PACK_AT`] are loose; a failure is only a
/// warning (the refs stay loose and readable). Returns whether it packed.
pub fn pack_task_refs_if_loose(ctx: &Context, queue: &Queue, ui: &dyn Ui) -> bool {
    let prefix = prefix(queue);
    if ctx.repo.loose_refs_under(&prefix) <= PACK_AT {
        return false;
    }
    match ctx.repo.pack_refs_under(&prefix) {
        Ok(()) => true,
        // Claims kept packed-refs.lock busy: the next watch step or add packs.
        Err(e) if e.kind == crate::error::Kind::Locked => false,
        Err(e) => {
            ui.warn(&format!(
                "cannot pack the task refs under {prefix}: {}",
                e.message
            ));
            false
        }
    }
}
