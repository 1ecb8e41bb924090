//! [`register_servers`]: connect to several servers and register their
//! tools, each server's tools in the group named after it; [`McpServers`]
//! owns the connections.

use futures::future::join_all;

use super::config::McpServerConfig;
use super::connection::McpConnection;
use super::error::McpError;
use crate::gateway::ToolRegistry;

/// The connected servers. Dropping it ends every session and kills every
/// stdio server's process group; [`shutdown`](Self::shutdown) does it
/// politely.
#[derive(Debug, Default)]
pub struct McpServers {
    connections: Vec<McpConnection>,
}

impl McpServers {
    /// The connections, in the order they were configured.
    pub fn connections(&self) -> &[McpConnection] {
        &self.connections
    }

    /// The connection to the server named `name`.
    pub fn get(&self, name: &str) -> Option<&McpConnection> {
        self.connections.iter().find(|c| c.name() == name)
    }

    /// The servers' names.
    pub fn names(&self) -> Vec<&str> {
        self.connections.iter().map(McpConnection::name).collect()
    }

    /// `true` if there are no servers.
    pub fn is_empty(&self) -> bool {
        self.connections.is_empty()
    }

    /// Shuts every server down politely (see [`McpConnection::shutdown`]).
    pub async fn shutdown(self) {
        join_all(self.connections.into_iter().map(McpConnection::shutdown)).await;
    }
}

/// Connects to every server (concurrently, each within its start-up
/// timeout) and registers their tools in `registry`, each server's tools in
/// the group named after the server (allowlist entry `name.*`).
///
/// A server may not take the name of a group already in `registry` (a
/// built-in group, or a server registered earlier). All or nothing: on an
/// error no tool is registered and every server that did start is shut
/// down. A tool name already taken, by another server or
/// by a tool registered earlier, is a [`McpError::NameClash`] naming both.
///
/// ```
/// use agent_tools::builtin;
/// use agent_tools::mcp::{McpServerConfig, register_servers};
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let mut registry = builtin::registry(&["calculator"], None, true).unwrap();
/// let servers = [McpServerConfig::stdio("ghost", "/nonexistent/mcp-server", ["--stdio"])];
/// let err = register_servers(&mut registry, &servers).await.unwrap_err();
/// assert_eq!(err.server(), "ghost");
/// assert_eq!(registry.names(), ["calculator"]); // unchanged
/// # });
/// ```
///
/// With servers installed:
///
/// ```no_run
/// use agent_tools::builtin;
/// use agent_tools::mcp::{McpServerConfig, register_servers};
///
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// let mut registry = builtin::registry(&["calculator"], None, true)?;
/// let servers = [McpServerConfig::stdio("files", "mcp-server-filesystem", ["/srv/data"])];
/// let mcp = register_servers(&mut registry, &servers).await?;
/// let tools = registry.allow(["calculator", "files.*"])?;
/// // … run agents with `tools`; dropping `mcp` stops the servers.
/// mcp.shutdown().await;
/// # Ok(())
/// # }
/// ```
pub async fn register_servers(
    registry: &mut ToolRegistry,
    servers: &[McpServerConfig],
) -> Result<McpServers, McpError> {
    let groups = registry.groups();
    for (i, server) in servers.iter().enumerate() {
        if servers[..i].iter().any(|s| s.name == server.name) {
            return Err(McpError::DuplicateServer {
                server: server.name.clone(),
            });
        }
        if groups.contains(&server.name.as_str()) {
            return Err(McpError::InvalidName {
                server: server.name.clone(),
                reason: "a tool group of that name is already registered; rename the server"
                    .to_string(),
            });
        }
    }
    let results = join_all(servers.iter().map(McpConnection::connect)).await;
    let mut connections = Vec::with_capacity(results.len());
    let mut first_error = None;
    for result in results {
        match result {
            Ok(connection) => connections.push(connection),
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    let servers = McpServers { connections };
    if let Some(error) = first_error {
        servers.shutdown().await;
        return Err(error);
    }
    let mut staged = registry.clone();
    for connection in &servers.connections {
        for tool in connection.tools() {
            let name = tool.name().to_string();
            if staged.names().contains(&name) {
                let other = match staged.group_of(&name) {
                    Some(group) if servers.get(group).is_some() => format!("MCP server `{group}`"),
                    // An MCP server connected earlier, or built-in tools.
                    Some(group) => format!("the tool group `{group}`"),
                    None => "an ungrouped tool".to_string(),
                };
                let error = McpError::NameClash {
                    tool: name,
                    server: connection.name().to_string(),
                    other,
                };
                servers.shutdown().await;
                return Err(error);
            }
            if let Err(source) = staged.register_in_group(connection.name(), tool) {
                let error = McpError::Register {
                    server: connection.name().to_string(),
                    source,
                };
                servers.shutdown().await;
                return Err(error);
            }
        }
    }
    *registry = staged;
    Ok(servers)
}
