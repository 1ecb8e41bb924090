//! The agent command-line program: run, chat, parse, replay, tools and call.
//!
//! This crate is being built; see the project's issues.
