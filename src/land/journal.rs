//! The crash journal of a landing's last steps, and recovery: what a killed landing
//! left is finished or cleaned up by the next one, holding the land lock, before it
//! does anything else.

use std::path::PathBuf;

use super::publish::shared_has_target;
use super::{Ui, unit};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::gate;
use crate::git::{self, ObjectId, Repo};

/// Finish or clean up what an interrupted landing left, holding the land lock: broken
/// gate worktree records, a half-done move of the shared checkout's files, a unit
/// landing stopped between its moves, processes left in the gate worktree.
pub(crate) fn recover(ctx: &Context, ui: &dyn Ui) -> Result<()> {
    drop_broken_gate_worktrees(ctx, ui);
    finish_interrupted_checkout_move(ctx, ui)?;
    unit::finish_interrupted(ctx, ui)?;
    let killed = gate::kill_leftovers(ctx);
    if killed > 0 {
        ui.warn(&format!(
            "killed {killed} process(es) left in the gate worktree by an earlier, interrupted run"
        ));
    }
    Ok(())
}

/// Registrations of gate worktrees a killed run left half written break git, in the
/// outer repository and in nested ones (whose gate worktrees live in the outer gate).
fn drop_broken_gate_worktrees(ctx: &Context, ui: &dyn Ui) {
    let owned = gate::owned_folders(ctx);
    let tell = |removed: Vec<PathBuf>| {
        for admin in removed {
            ui.note(&format!(
                "removed the half-created gate worktree record {}",
                admin.display()
            ));
        }
    };
    tell(gate::drop_broken_gate_worktrees(&ctx.repo, &owned));
    for n in ctx.nested_repos() {
        if let Ok(repo) = Repo::open(&ctx.shared.join(&n.rel)) {
            tell(gate::drop_broken_gate_worktrees(&repo, &owned));
        }
    }
}

fn path(ctx: &Context) -> PathBuf {
    crate::state::land_journal(&ctx.repo.common_dir())
}

pub(crate) fn write(ctx: &Context, base: ObjectId, candidate: ObjectId) -> Result<()> {
    let path = path(ctx);
    std::fs::write(&path, format!("{base} {candidate}\n"))
        .map_err(|e| Error::env(format!("cannot write {}: {e}", path.display())))
}

pub(crate) fn remove(ctx: &Context) {
    let _ = std::fs::remove_file(path(ctx));
}

/// A landing killed around its final steps left a journal (`base candidate`): clear the
/// lock files the killed git left (only when old and held open by nobody), finish
/// bringing the shared checkout's files to the target when the target did move, and
/// drop the journal. Idempotent.
fn finish_interrupted_checkout_move(ctx: &Context, ui: &dyn Ui) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(path(ctx)) else {
        return Ok(());
    };
    let settle = std::time::Duration::from_secs(2);
    let target_ref = ctx.config.lanes.target.full_ref();
    // Our own killed compare-and-swap may have left the target's lock: once it is old
    // enough that no live update could still hold it, it goes.
    let lock = ctx.repo.ref_lock(&target_ref);
    let waited = std::time::Instant::now();
    while lock.exists() && waited.elapsed() < settle + std::time::Duration::from_secs(1) {
        if ctx.repo.clear_stale_ref_lock(&target_ref, settle) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if !lock.exists() && waited.elapsed() > std::time::Duration::from_millis(50) {
        ui.note(&format!(
            "removed a stale {target_ref}.lock left by a killed landing"
        ));
    }
    ctx.repo.wait_out_packed_refs_lock();
    // A killed git's index lock goes at once; a live git's (open, or closed while
    // `git commit` waits for its editor) stays.
    let index_lock = ctx.repo.index_lock();
    if git::clear_stale_file(&index_lock, std::time::Duration::ZERO) {
        ui.note(&format!(
            "removed a stale {} left by a killed landing",
            index_lock.display()
        ));
    }
    let mut ids = text
        .split_whitespace()
        .map(|id| ObjectId::from_hex(id.as_bytes()));
    if let (Some(Ok(base)), Some(Ok(candidate))) = (ids.next(), ids.next())
        && ctx.target_tip()? == candidate
        && shared_has_target(ctx)?
    {
        let kept = crate::checkout::repair(
            &ctx.repo,
            &ctx.shared,
            base,
            candidate,
            &crate::state::no_hooks_dir(&ctx.repo)?,
            ui,
        )?;
        for path in kept {
            ui.warn(&format!(
                "{path}: kept the shared checkout's own version (it was edited during an interrupted landing)"
            ));
        }
    }
    remove(ctx);
    Ok(())
}
