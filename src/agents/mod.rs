//! Agent CLIs as fleet runs them: how a run's end is read ([`result`]),
//! and what their limit messages say ([`limits`]).
//!
//! The profiles of `fleet.toml` (`[agents.NAME]`, [`profile`]) say how an agent is run;
//! the drainer that runs them lives elsewhere (`crate::drain`).

pub mod limits;
pub mod profile;
pub mod result;
