//! The one warning the library still prints itself: the guard's branch-list refresh
//! (`guard::hooks::sync_target`). It goes once that step returns its warning to the
//! command; everything else reports through [`crate::report::Ui`], and the binary's
//! `render` prints.

use anstyle::{AnsiColor, Style};

const WARN: Style = AnsiColor::Yellow.on_default().bold();

#[allow(clippy::disallowed_macros)]
pub fn warn(message: &str) {
    anstream::eprintln!("{WARN}warning{WARN:#}: {message}");
}
