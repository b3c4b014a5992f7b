//! The old path of [`crate::gate::ci`] (the `fleet gate` step), kept while the command
//! layer still names it.

pub use crate::gate::ci::*;
