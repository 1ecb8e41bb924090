//! MCP client (feature `mcp`): the tools of Model Context Protocol servers
//! become gateway tools, under the same allowlist, schema validation,
//! timeouts and output cap as the built-ins.
//!
//! - [`McpServerConfig`]: a server over stdio (a command to spawn) or
//!   streamable HTTP (a URL, headers, a bearer token), built in code, from
//!   one command line ([`McpServerConfig::from_command_line`]) or from an
//!   `mcpServers` file ([`load_config`]).
//! - [`register_servers`] connects to several servers and registers their
//!   tools, each server's tools in the group `name.*`; the returned
//!   [`McpServers`] owns the sessions and the child processes.
//! - [`McpConnection`] is one server, for finer control.
//!
//! See `docs/mcp.md` for the guide.

mod client;
mod cmdline;
mod config;
mod config_file;
mod connection;
mod content;
mod error;
mod process;
mod servers;
mod text;
mod tool;

pub use cmdline::{server_name_from, split_command_line};
pub use config::{DEFAULT_STARTUP_TIMEOUT, McpServerConfig, McpTransport};
pub use config_file::{McpConfigError, load_config, parse_config};
pub use connection::McpConnection;
pub use error::McpError;
pub use servers::{McpServers, register_servers};

/// The guide's Rust examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/mcp.md")]
pub struct McpGuide;
