//! The wall clock as fleet records it: whole seconds since the Unix epoch.

/// Now, in seconds since the Unix epoch (0 on a clock set before 1970). Stored in the
/// lane registry, receipts, logs and the watchdog's state.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
