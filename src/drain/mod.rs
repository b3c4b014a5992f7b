//! `fleet drain`, the supervisor: claims tasks, runs their agents into lanes, never lands.

pub mod record;
