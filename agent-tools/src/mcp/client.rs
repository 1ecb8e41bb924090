//! [`AgentClient`]: the client side of every MCP session: who we are in the
//! handshake (`agentloop`, no sampling, roots or elicitation), and what
//! becomes of the server's notifications (a line in the `tracing` log).

use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RoleClient};

/// The client half of one server's session.
pub(crate) struct AgentClient {
    server: String,
}

impl AgentClient {
    pub(crate) fn new(server: &str) -> Self {
        Self {
            server: server.to_string(),
        }
    }
}

impl ClientHandler for AgentClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("agentloop", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(
            server = %self.server,
            "the MCP server's tools changed; the registered tools stay as listed at start-up"
        );
    }
}
