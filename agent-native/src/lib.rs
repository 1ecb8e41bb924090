//! The OpenAI-compatible provider over async-openai and the native tool-calling transport.
//!
//! This crate is being built; see the project's issues.
