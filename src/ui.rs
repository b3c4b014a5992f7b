//! Narration on stderr for the library modules that still print directly (landing,
//! the gate, the remote, the guard). Colour only on a terminal, and never when
//! `NO_COLOR` is set (anstream decides). The binary's `render` module holds the rest
//! of what a person reads and reuses these two; this module goes once those library
//! callers report through a reporter passed in instead.

use anstyle::{AnsiColor, Style};

const WARN: Style = AnsiColor::Yellow.on_default().bold();

/// A line of narration on stderr.
pub fn note(message: &str) {
    anstream::eprintln!("{message}");
}

pub fn warn(message: &str) {
    anstream::eprintln!("{WARN}warning{WARN:#}: {message}");
}
