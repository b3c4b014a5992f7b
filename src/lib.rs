//! fleet: git-native worktrees, landing and merge gate for teams of coding agents.
//!
//! The binary is a thin shell over this library: [`commands::run`] takes a parsed
//! command line and returns the exit code.

pub mod checkout;
pub mod config;
pub mod context;
pub mod error;
pub mod failpoint;
pub mod files;
pub mod gate;
pub mod git;
pub mod guard;
pub mod land;
pub mod lanes;
pub mod lint;
pub mod merge_gate;
pub mod nested;
pub mod preflight;
pub mod proc;
pub mod queue;
pub mod refs;
pub mod remote;
pub mod repo_env;
pub mod state;
pub mod status;
pub mod sys;
pub mod time;
pub mod ui;
pub mod verify;
pub mod worktree;
