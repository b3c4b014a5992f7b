//! Agent CLIs as fleet runs them: how a run's end is read ([`result`]).
//!
//! The profiles of `fleet.toml` (`[agents.NAME]`, [`profile`]) say how an agent is run;
//! the drainer that runs them lives elsewhere (`crate::drain`).

pub mod profile;
pub mod result;
