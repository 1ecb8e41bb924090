//! # agent-tools
//!
//! The policy boundary between what a model *asks* for and what runs. Both
//! transports run tools through it.
//!
//! - [`ToolRegistry`] holds tools and compiles each one's JSON-Schema
//!   validator once; [`ToolSet`] is the allowlisted view a run may call
//!   (deny by default) and implements [`agent_core::Toolbox`]: argument
//!   binding and validation, timeouts, caught panics, capped observations,
//!   and model-visible errors that never leak internals.
//! - [`typed_tool`]: a `Deserialize + JsonSchema` struct and an async fn
//!   become a tool, with the schema (doc comments included) from `schemars`.
//! - [`builtin`]: `calculator`, `search` and root-confined file tools.
//! - [`AgentBuilderExt`]: `.tool(…)` on the agent builder, through the
//!   same gateway.
//! - `mcp` (feature `mcp`): the tools of MCP servers, over stdio or
//!   streamable HTTP, behind the same gateway.

pub mod builtin;
mod draft;
mod gateway;
#[cfg(feature = "mcp")]
pub mod mcp;
mod named_args;
mod schema;
mod typed;
mod validate;

pub use draft::{AgentBuilderExt, ToolDraft};
pub use gateway::{
    DEFAULT_MAX_OBSERVATION_CHARS, DEFAULT_TIMEOUT, ToolRegistry, ToolSet, ToolSetError,
};
pub use schema::{LATIN_TEXT_PATTERN, lenient_schema_for, schema_for};
pub use typed::{TypedTool, typed_tool};
