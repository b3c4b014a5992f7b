//! The one error type every command returns.
//!
//! An error carries the exit code class the design promises (1 refused, 2 usage or
//! configuration, 3 environment), a message that names the thing and the cause, and a
//! `help` line that says what to do. `main` prints it in cargo's shape and exits with
//! the code; nothing else in the crate decides exit codes.
//!
//! Code that must react to a cause (retry while another process holds a lock) looks at
//! the typed [`Kind`] or the [`source`](std::error::Error::source), never at the text.

use std::fmt;

/// Which of the documented exit codes an error maps to; its word in `--json` is the
/// variant's name in lower case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A check failed or fleet refused to do something unsafe (exit 1).
    Refused,
    /// Bad arguments or a bad `fleet.toml` (exit 2).
    Usage,
    /// The environment is broken: git missing, repository unreadable (exit 3).
    Environment,
    /// Another process holds a lock fleet needs, such as git's `index.lock`: an
    /// environment problem (exit 3) that waiting may clear, so callers may retry.
    Locked,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::Refused => 1,
            Kind::Usage => 2,
            Kind::Environment | Kind::Locked => 3,
        }
    }
}

#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    /// What failed and why, for people; it already includes the source's text.
    pub message: String,
    pub help: Option<String>,
    /// The lower-level error this one wraps, for code that inspects the chain.
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            help: None,
            source: None,
        }
    }
    pub fn refused(message: impl Into<String>) -> Self {
        Self::new(Kind::Refused, message)
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Kind::Usage, message)
    }
    pub fn env(message: impl Into<String>) -> Self {
        Self::new(Kind::Environment, message)
    }
    /// A lock held by another process (see [`Kind::Locked`]).
    pub fn locked(message: impl Into<String>) -> Self {
        Self::new(Kind::Locked, message)
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Attach "what we were doing" to a lower-level error, classifying it as an
/// environment problem unless the caller says otherwise. The lower-level error is kept
/// as the source.
pub trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> Context<T> for std::result::Result<T, E> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::env(format!("{}: {e}", what())).with_source(e))
    }
}
