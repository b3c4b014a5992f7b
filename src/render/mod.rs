//! What a person reads: stdout carries the answer, stderr the narration.
//! Colour only on a terminal, and never when `NO_COLOR` is set (anstream decides).
//! The library prints nothing: it returns values, or narrates through the reporter
//! the command passes in ([`term::TermUi`], which prints with `note` and `warn`).

// Here is where fleet prints: clippy.toml disallows anstream's print macros elsewhere.
#![allow(clippy::disallowed_macros)]

pub mod findings;
pub mod land;
pub mod table;
pub mod term;

use anstyle::{AnsiColor, Style};
use serde::Serialize;

use fleet::error::Error;

const ERROR: Style = AnsiColor::Red.on_default().bold();
const HELP: Style = AnsiColor::Cyan.on_default().bold();
const OK: Style = AnsiColor::Green.on_default().bold();
const WARN: Style = AnsiColor::Yellow.on_default().bold();
pub const DIM: Style = Style::new().dimmed();

/// A line of narration on stderr.
pub fn note(message: &str) {
    anstream::eprintln!("{message}");
}

pub fn warn(message: &str) {
    anstream::eprintln!("{WARN}warning{WARN:#}: {message}");
}

pub fn ok(message: &str) {
    anstream::eprintln!("{OK}ok{OK:#}: {message}");
}

/// Print an error in cargo's shape: `error: what` then `help: what to do`.
pub fn error(err: &Error) {
    anstream::eprintln!("{ERROR}error{ERROR:#}: {}", err.message);
    if let Some(help) = &err.help {
        anstream::eprintln!("{HELP}help{HELP:#}: {help}");
    }
}

/// A failed command: the error on stderr in cargo's shape and, with `--json`, also as
/// the one JSON document on stdout (`{"error": {...}}`), so a script that reads stdout
/// is never left with nothing.
pub fn failure(err: &Error, json: bool) {
    error(err);
    if json {
        json_error(
            json_word(&err.kind),
            err.kind.exit_code(),
            &err.message,
            err.help.as_deref(),
        );
    }
}

/// A command line clap rejects. A value one of fleet's parsers refused (an agent name)
/// carries fleet's own error, printed like every other; help and version requests go
/// to stdout, exit 0; anything else clap words itself, exit 2.
pub fn parse_error(err: clap::Error, json: bool) -> u8 {
    use std::error::Error as _;
    if let Some(own) = err.source().and_then(|e| e.downcast_ref::<Error>()) {
        failure(own, json);
        return 2;
    }
    if !err.use_stderr() {
        let _ = err.print();
        return 0;
    }
    let code = 2;
    if json {
        let text = err.render().to_string();
        let message = text.lines().next().unwrap_or_default();
        let message = message.strip_prefix("error: ").unwrap_or(message);
        json_error(
            "usage",
            code,
            message,
            Some("run with --help for the usage"),
        );
    }
    let _ = err.print();
    code
}

fn json_error(kind: impl AsRef<str>, exit_code: u8, message: &str, help: Option<&str>) {
    json(&error_value(kind.as_ref(), exit_code, message, help));
}

/// The document every `--json` failure is: `{"error": {kind, exit_code, message, help}}`,
/// here for an error whose exit code is not its kind's (`fleet run`'s 126 and 127).
pub fn error_document(err: &Error, exit_code: u8) -> serde_json::Value {
    error_value(
        &json_word(&err.kind),
        exit_code,
        &err.message,
        err.help.as_deref(),
    )
}

fn error_value(kind: &str, exit_code: u8, message: &str, help: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "error": {
            "kind": kind,
            "exit_code": exit_code,
            "message": message,
            "help": help,
        }
    })
}

/// One JSON document on stdout.
pub fn json<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(e) => {
            // JSON has no way to carry a path that is not UTF-8. Never a silent success:
            // the work is done, but the answer cannot be given, so exit as an environment
            // problem (the report is the last thing a command does).
            error(
                &Error::env(format!("cannot render JSON: {e}"))
                    .with_help("run without --json, or rename the path to valid UTF-8"),
            );
            std::process::exit(3);
        }
    }
}

/// The answer, on stdout.
pub fn answer(text: &str) {
    anstream::println!("{text}");
}

/// Paint `text` with `style` (stripped again when stdout is not a terminal).
pub fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// `n` things, the noun in the singular for one: "1 file", "3 files".
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A path as people read it: relative to `base` (the folder the command ran in, or
/// the shared checkout) when it lies inside, else under `~` when it lies in the home
/// folder, else as it is; `..` and `.` steps are resolved first without touching the
/// file system.
pub fn short_path(path: &std::path::Path, base: &std::path::Path) -> String {
    let path = fleet::context::normalize(path);
    if let Ok(rel) = path.strip_prefix(fleet::context::normalize(base))
        && !rel.as_os_str().is_empty()
    {
        return rel.display().to_string();
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
        && let Ok(rel) = path.strip_prefix(std::path::Path::new(&home))
    {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

/// A commit id as people read it: its first 12 hex digits (all of it when shorter).
pub fn short_id(id: &str) -> &str {
    &id[..12.min(id.len())]
}

/// The name a unit enum (a watchdog verdict, say) has in `--json`, for the text
/// output too: one source for both, never its `Debug` form.
pub fn json_word(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(word)) => word,
        _ => String::from("?"),
    }
}

/// "3h ago" style age of a Unix time.
pub fn age(unix: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(unix);
    let secs = (now - unix).max(0);
    match secs {
        0..60 => format!("{secs}s ago"),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86400),
    }
}
