//! fleet: git-native worktrees, landing and merge gate for teams of coding agents.
//!
//! The library does the work and prints nothing; the binary (`src/main.rs` with its
//! `cli`, `commands` and `render` modules) parses the command line, calls into it and
//! shows the result. The README's design section has the map of the modules.

// The library prints nothing: it returns values, or reports through `report::Ui`.
// (anstream's print macros, which these lints do not see, are disallowed in clippy.toml.)
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod adopt;
pub mod agents;
pub mod checkout;
pub mod config;
pub mod context;
pub mod drain;
pub mod error;
pub mod failpoint;
pub mod files;
pub mod gate;
pub mod git;
pub mod guard;
pub mod land;
pub mod lanes;
pub mod lint;
pub mod nested;
pub mod plans;
pub mod preflight;
pub mod proc;
pub mod queue;
pub mod refs;
pub mod remote;
pub mod repo_env;
pub mod report;
pub mod state;
pub mod status;
pub mod sys;
pub mod tasks;
pub mod time;
pub mod verify;
pub mod worktree;
