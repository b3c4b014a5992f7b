//! Test hooks for crash and failure tests: `FLEET_FAILPOINT=<name>` makes fleet fail at
//! that point, `<name>:abort` makes it die there (as `kill -9` would), and `<name>:once`
//! makes only its first pass in the process fail (a blip that a retry gets past), and
//! `<name>:panic` panics there (a bug in fleet), so tests can show that a failure or a
//! crash half way leaves nothing behind or converges.

use crate::error::{Error, Result};

/// Whether a `:once` failpoint has failed already in this process.
static ONCE_HIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Fail (or abort) here when the environment names this point.
pub fn hit(name: &str) -> Result<()> {
    let Ok(spec) = std::env::var("FLEET_FAILPOINT") else {
        return Ok(());
    };
    if spec == name {
        return Err(Error::env(format!("failpoint {name} triggered")));
    }
    if spec == format!("{name}:abort") {
        std::process::abort();
    }
    if spec == format!("{name}:panic") {
        panic!("failpoint {name} panicked");
    }
    if spec == format!("{name}:once") && !ONCE_HIT.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Err(Error::env(format!("failpoint {name} triggered once")));
    }
    Ok(())
}
