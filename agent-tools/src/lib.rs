//! The tool gateway both transports run tools through: registry, allowlist, JSON-Schema validation, timeouts, caught panics and capped output; typed tools from schemars; the built-in tools.
//!
//! This crate is being built; see the project's issues.
