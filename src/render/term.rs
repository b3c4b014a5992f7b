//! The terminal side of the library's reporter (`fleet::report::Ui`): narration and
//! warnings on stderr, a landing's progress as a live line on a terminal, and the
//! question before each landing.

use std::io::IsTerminal;

use fleet::error::{Error, Result};
use fleet::land::LandOptions;

pub struct TermUi {
    live: bool,
}

impl TermUi {
    /// The terminal side of a landing; without a terminal to ask on, landing needs
    /// `--yes` (or `--dry-run`).
    pub fn for_landing(opts: &LandOptions, json: bool) -> Result<TermUi> {
        if !opts.yes && !opts.dry_run && !std::io::stdin().is_terminal() {
            return Err(
                Error::refused("no terminal to ask for confirmation").with_help(
                    "pass --yes to land without asking (CI), or --dry-run to see what would land",
                ),
            );
        }
        Ok(TermUi {
            live: !json && std::io::stderr().is_terminal(),
        })
    }

    /// The reporter of a command that does not land (the remote's pushes, the guard's
    /// hook, the watchdog): narration and warnings, no live line.
    pub fn plain() -> TermUi {
        TermUi { live: false }
    }

    /// Clear the live progress line, if there is one, before the report.
    pub fn clear_progress(&self) {
        if self.live {
            anstream::eprint!("\r\x1b[2K");
        }
    }
}

impl fleet::report::Ui for TermUi {
    fn note(&self, message: &str) {
        super::note(message);
    }

    fn warn(&self, message: &str) {
        super::warn(message);
    }

    fn progress(&self, lane: &str, command: &str, elapsed: std::time::Duration) {
        if self.live {
            anstream::eprint!("\r\x1b[2Kgate {lane}: `{command}` {}s", elapsed.as_secs());
        }
    }

    fn confirm(&self, lane: &str, summary: &str) -> bool {
        use std::io::BufRead;
        super::note(&format!("{lane} would land with:\n{summary}"));
        anstream::eprint!("land {lane}? [y/N] ");
        let mut answer = String::new();
        if std::io::stdin().lock().read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim(), "y" | "Y" | "yes")
    }
}
