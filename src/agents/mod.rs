//! Agent CLIs as fleet runs them: how a run's end is read ([`result`]),
//! and what their limit messages say ([`limits`]).
//!
//! The profiles of `fleet.toml` (`[agents.NAME]`) and the drainer that runs them live
//! elsewhere (`crate::drain`); this module only knows what the agents print.

pub mod limits;
pub mod result;
