//! The one error type every command returns.
//!
//! An error carries the exit code class the design promises (1 refused, 2 usage or
//! configuration, 3 environment), a message that names the thing and the cause, and a
//! `help` line that says what to do. `main` prints it in cargo's shape and exits with
//! the code; nothing else in the crate decides exit codes.

use std::fmt;

/// Which of the documented exit codes an error maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A check failed or fleet refused to do something unsafe (exit 1).
    Refused,
    /// Bad arguments or a bad `fleet.toml` (exit 2).
    Usage,
    /// The environment is broken: git missing, repository unreadable or locked (exit 3).
    Environment,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::Refused => 1,
            Kind::Usage => 2,
            Kind::Environment => 3,
        }
    }
}

#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub help: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            help: None,
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
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Attach "what we were doing" to a lower-level error, classifying it as an
/// environment problem unless the caller says otherwise.
pub trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: fmt::Display> Context<T> for std::result::Result<T, E> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::env(format!("{}: {e}", what())))
    }
}
