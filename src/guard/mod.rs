//! The shared-checkout guard: hook installation (chaining what was there), the hook
//! entry points that refuse commits, switches and resets in a shared checkout and any
//! move of a guarded branch.

pub mod doctor;
pub mod entry;
pub mod hooks;
pub mod probe;
pub mod watchdog;

pub use hooks::sync_target;
