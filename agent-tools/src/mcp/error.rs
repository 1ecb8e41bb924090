//! [`McpError`]: why connecting to MCP servers or registering their tools
//! failed. Every variant names the server.

use crate::gateway::ToolSetError;

/// A server that could not be connected, or whose tools could not be
/// registered. Operator-facing: it may hold the server's own output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The server did not start: the command could not be run, it exited,
    /// wrote something that is not MCP, did not answer in time, or the URL
    /// could not be reached.
    #[error("MCP server `{server}` failed to start: {reason}")]
    Startup {
        /// The server's name.
        server: String,
        /// What went wrong, with the server's last stderr output if any.
        reason: String,
    },
    /// The server started but listing its tools failed.
    #[error("MCP server `{server}` did not list its tools: {reason}")]
    ListTools {
        /// The server's name.
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// A tool of the server has the name of a tool already registered.
    #[error(
        "tool `{tool}` of MCP server `{server}` clashes with the tool of that name from {other}; \
         give one of the servers a prefix"
    )]
    NameClash {
        /// The model-visible tool name both claim.
        tool: String,
        /// The server whose tool came second.
        server: String,
        /// Who registered the name first: "MCP server `x`" (in the same
        /// call), "the tool group `x`" (a server connected earlier, or
        /// built-ins) or "an ungrouped tool".
        other: String,
    },
    /// Two servers in one call share a name.
    #[error("two MCP servers are named `{server}`; give them distinct names")]
    DuplicateServer {
        /// The name.
        server: String,
    },
    /// The server's name or prefix cannot be used (letters, digits, `_`
    /// and `-` only).
    #[error("MCP server `{server}`: {reason}")]
    InvalidName {
        /// The server's name.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// A tool of the server cannot be registered (its name or schema).
    #[error("MCP server `{server}`: {source}")]
    Register {
        /// The server's name.
        server: String,
        /// The registry's refusal.
        #[source]
        source: ToolSetError,
    },
}

impl McpError {
    /// The server this error is about.
    pub fn server(&self) -> &str {
        match self {
            Self::Startup { server, .. }
            | Self::ListTools { server, .. }
            | Self::NameClash { server, .. }
            | Self::DuplicateServer { server }
            | Self::InvalidName { server, .. }
            | Self::Register { server, .. } => server,
        }
    }
}
