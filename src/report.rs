//! The one way the library tells the person watching what happens, and asks them: the
//! reporter a command passes in (the binary's `render::term::TermUi` on a terminal). The
//! library prints nothing itself; landing, the remote, the shared checkout's repair, the
//! watchdog and the guard's hook all narrate through this. Re-exported as `land::Ui`.

/// What the library tells the person watching, and asks them.
pub trait Ui {
    /// A line of narration.
    fn note(&self, message: &str);
    /// Something went wrong that does not stop the work. A reporter for a caller that
    /// does not show narration (a script, a test) may leave it out: the default drops
    /// the warning. The terminal's reporter shows it.
    fn warn(&self, message: &str) {
        let _ = message;
    }
    /// A gate command of `lane` has been running for `elapsed`.
    fn progress(&self, lane: &str, command: &str, elapsed: std::time::Duration);
    /// Show what would land and ask; `false` declines.
    fn confirm(&self, lane: &str, summary: &str) -> bool;
}
