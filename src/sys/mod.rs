//! What fleet reads from the operating system beyond what std offers, one module per
//! source, so the parsing of each lives in one place.

pub mod procfs;
