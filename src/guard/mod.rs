//! The shared-checkout guard: hook installation (chaining what was there), the hook
//! entry points that refuse commits, switches, resets and stashes in a shared checkout
//! (its submodules included) and any move of a guarded branch.

pub mod doctor;
pub mod entry;
pub mod hooks;
pub mod probe;
pub mod submodules;
pub mod watchdog;

use crate::context::Context;
use crate::error::Result;

/// The guard step every fleet command runs before its work: the target changed in
/// `fleet.toml` added to the guarded branches ([`hooks::sync_target`]), and submodules
/// checked out since install given the hooks ([`submodules::sync`]). Both are tried;
/// the first failure is returned.
pub fn sync_target(ctx: &Context) -> Result<()> {
    let target = hooks::sync_target(ctx);
    let submodules = submodules::sync(ctx);
    target.and(submodules)
}
