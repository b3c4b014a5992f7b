//! Test hooks for crash and failure tests: `FLEET_FAILPOINT=<name>` makes fleet fail at
//! that point, `<name>:abort` makes it die there (as `kill -9` would), so tests can show
//! that a failure or a crash half way leaves nothing behind or converges.

use crate::error::{Error, Result};

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
    Ok(())
}
