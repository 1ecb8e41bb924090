//! [`McpConnection`]: one connected server. Connecting spawns the command
//! (stdio) or opens the session (streamable HTTP), runs the MCP handshake,
//! and lists the server's tools (every page), all within the start-up
//! timeout; a failure is a [`McpError`] naming the server and saying why.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use agent_core::Tool;
use rmcp::ServiceExt;
use rmcp::model::PaginatedRequestParams;
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio::time::Instant;

use super::client::AgentClient;
use super::config::{McpServerConfig, McpTransport};
use super::error::McpError;
use super::process::{ServerProcess, Spawn};
use super::text::{clip, clip_end};
use super::tool::McpTool;
use crate::gateway::is_valid_name;

/// At most this many characters of a server's instructions reach the model.
const MAX_INSTRUCTION_CHARS: usize = 4000;
/// At most this many pages of tools are read from one server.
const MAX_TOOL_PAGES: usize = 100;
/// How long a server that failed to start gets to exit and flush stderr, so
/// the error can say how it ended.
const SETTLE: Duration = Duration::from_millis(500);
/// How long [`McpConnection::shutdown`] waits for each step.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// One connected MCP server and the tools it offers. Dropping it ends the
/// session and kills the server's process group (stdio).
pub struct McpConnection {
    name: Arc<str>,
    service: RunningService<RoleClient, AgentClient>,
    tools: Vec<Arc<McpTool>>,
    // Declared last: the session closes before the process is killed.
    process: Option<ServerProcess>,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("name", &self.name)
            .field("pid", &self.pid())
            .field("tools", &self.tool_names())
            .finish()
    }
}

impl McpConnection {
    /// Connects to the server and lists its tools, within its start-up
    /// timeout. A server that cannot start is an error naming it:
    ///
    /// ```
    /// use agent_tools::mcp::{McpConnection, McpError, McpServerConfig};
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let config = McpServerConfig::stdio("ghost", "/nonexistent/mcp-server", ["--stdio"]);
    /// let err = McpConnection::connect(&config).await.unwrap_err();
    /// assert!(matches!(&err, McpError::Startup { server, .. } if server == "ghost"));
    /// assert!(err.to_string().starts_with(
    ///     "MCP server `ghost` failed to start: could not run `/nonexistent/mcp-server`"
    /// ));
    /// # });
    /// ```
    ///
    /// With a server installed:
    ///
    /// ```no_run
    /// use agent_tools::mcp::{McpConnection, McpServerConfig};
    ///
    /// # async fn example() -> Result<(), agent_tools::mcp::McpError> {
    /// let config = McpServerConfig::stdio("files", "mcp-server-filesystem", ["/srv/data"]);
    /// let files = McpConnection::connect(&config).await?;
    /// println!("{:?}", files.tool_names());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect(config: &McpServerConfig) -> Result<Self, McpError> {
        let name = config.name.as_str();
        if !is_valid_name(name) {
            return Err(McpError::InvalidName {
                server: name.to_string(),
                reason: "server names may only use letters, digits, `_` and `-` (at most 64)"
                    .to_string(),
            });
        }
        if let Some(prefix) = &config.prefix
            && !is_valid_name(prefix)
        {
            return Err(McpError::InvalidName {
                server: name.to_string(),
                reason: format!("the prefix `{prefix}` may only use letters, digits, `_` and `-`"),
            });
        }
        let deadline = Instant::now() + config.startup_timeout;
        let (service, process) = match &config.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let spawn = Spawn {
                    server: name,
                    command,
                    args,
                    env,
                    cwd: cwd.as_ref(),
                };
                let (service, process) = start_stdio(&spawn, config, deadline).await?;
                (service, Some(process))
            }
            McpTransport::Http {
                url,
                headers,
                bearer_token,
            } => (
                start_http(
                    name,
                    url,
                    headers,
                    bearer_token.as_deref(),
                    config,
                    deadline,
                )
                .await?,
                None,
            ),
        };
        let listed = match tokio::time::timeout_at(deadline, list_tools(service.peer())).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(reason)) => {
                return Err(McpError::ListTools {
                    server: name.to_string(),
                    reason: with_stderr(reason, process.as_ref()),
                });
            }
            Err(_) => {
                return Err(McpError::ListTools {
                    server: name.to_string(),
                    reason: with_stderr(
                        format!(
                            "it did not list its tools within the start-up timeout ({} ms)",
                            config.startup_timeout.as_millis()
                        ),
                        process.as_ref(),
                    ),
                });
            }
        };
        let name: Arc<str> = Arc::from(name);
        let stderr = process.as_ref().map(ServerProcess::stderr_tail_handle);
        let context = config
            .instructions
            .then(|| instructions(&name, service.peer()))
            .flatten();
        let mut tools: Vec<Arc<McpTool>> = Vec::with_capacity(listed.len());
        for tool in listed {
            let tool = McpTool::new(
                Arc::clone(&name),
                config.prefix.as_deref(),
                tool,
                service.peer().clone(),
                stderr.clone(),
                context.clone(),
            )?;
            if let Some(twin) = tools.iter().find(|t| t.name() == tool.name()) {
                return Err(McpError::NameClash {
                    tool: tool.name().to_string(),
                    server: name.to_string(),
                    other: format!(
                        "the same server (its tools `{}` and `{}` map to one name)",
                        twin.remote_name(),
                        tool.remote_name()
                    ),
                });
            }
            tools.push(Arc::new(tool));
        }
        tracing::info!(server = %name, tools = tools.len(), pid = ?process.as_ref().and_then(ServerProcess::pid), "MCP server connected");
        Ok(Self {
            name,
            service,
            tools,
            process,
        })
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server process's id (stdio servers).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(ServerProcess::pid)
    }

    /// The server's tools, as the gateway will register them.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .map(|t| Arc::clone(t) as Arc<dyn Tool>)
            .collect()
    }

    /// The model-visible names of the server's tools.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// Ends the session politely: closes the connection (a stdio server's
    /// stdin), gives the server a moment to exit, then kills what is left.
    pub async fn shutdown(mut self) {
        let _ = self.service.close_with_timeout(SHUTDOWN_GRACE).await;
        if let Some(process) = self.process.as_mut() {
            process.wait_exit(SHUTDOWN_GRACE).await;
        }
    }
}

/// Spawns the server and runs the handshake.
async fn start_stdio(
    spawn: &Spawn<'_>,
    config: &McpServerConfig,
    deadline: Instant,
) -> Result<(RunningService<RoleClient, AgentClient>, ServerProcess), McpError> {
    let startup = |reason: String| McpError::Startup {
        server: spawn.server.to_string(),
        reason,
    };
    let (mut process, stdout, stdin) = ServerProcess::spawn(spawn)
        .map_err(|e| startup(format!("could not run `{}`: {e}", spawn.command)))?;
    let handshake = AgentClient::new(spawn.server).serve((stdout, stdin));
    let (failure, timed_out) = match tokio::time::timeout_at(deadline, handshake).await {
        Ok(Ok(service)) => return Ok((service, process)),
        Ok(Err(error)) => {
            tracing::debug!(server = spawn.server, %error, "MCP handshake failed");
            (format!("the MCP handshake failed ({error})"), false)
        }
        Err(_) => (
            format!(
                "it did not answer `initialize` within the start-up timeout ({} ms)",
                config.startup_timeout.as_millis()
            ),
            true,
        ),
    };
    // A server that closed the connection has probably exited: let it, so
    // the error can say how. One that timed out gets no more time.
    let status = match process.try_exit_status() {
        None if !timed_out => process.wait_exit(SETTLE).await,
        status => status,
    };
    if status.is_some() {
        process.settle_stderr(SETTLE).await;
    }
    let mut reason = match status {
        Some(status) => format!("the server exited during start-up ({status})"),
        None => failure,
    };
    if let Some(line) = process.non_json_first_line() {
        reason.push_str(&format!(
            "; it wrote output that is not MCP JSON-RPC to stdout: `{}`",
            clip(&line, 120)
        ));
    }
    Err(startup(with_stderr(reason, Some(&process))))
}

/// Opens a streamable HTTP session and runs the handshake.
async fn start_http(
    server: &str,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    bearer_token: Option<&str>,
    config: &McpServerConfig,
    deadline: Instant,
) -> Result<RunningService<RoleClient, AgentClient>, McpError> {
    let startup = |reason: String| McpError::Startup {
        server: server.to_string(),
        reason,
    };
    let mut header_map = HashMap::new();
    for (name, value) in headers {
        if bearer_token.is_some() && name.eq_ignore_ascii_case("authorization") {
            continue;
        }
        let header = http::HeaderName::try_from(name.as_str())
            .map_err(|_| startup(format!("`{name}` is not a valid HTTP header name")))?;
        let value = http::HeaderValue::try_from(value.as_str())
            .map_err(|_| startup(format!("the value of header `{name}` is not valid")))?;
        header_map.insert(header, value);
    }
    let mut transport_config =
        StreamableHttpClientTransportConfig::with_uri(url).custom_headers(header_map);
    if let Some(token) = bearer_token {
        transport_config = transport_config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::from_config(transport_config);
    match tokio::time::timeout_at(deadline, AgentClient::new(server).serve(transport)).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(error)) => Err(startup(format!(
            "could not open a session at `{url}`: {error}"
        ))),
        Err(_) => Err(startup(format!(
            "`{url}` did not answer `initialize` within the start-up timeout ({} ms)",
            config.startup_timeout.as_millis()
        ))),
    }
}

/// The server's instructions for the model (its `initialize` result's),
/// introduced by the server's name and clipped to
/// [`MAX_INSTRUCTION_CHARS`]; `None` when it sent none.
fn instructions(server: &str, peer: &Peer<RoleClient>) -> Option<Arc<str>> {
    let info = peer.peer_info()?;
    let text = info.instructions.as_deref()?.trim();
    (!text.is_empty()).then(|| {
        Arc::from(format!(
            "Instructions of the MCP server `{server}`:\n{}",
            clip(text, MAX_INSTRUCTION_CHARS)
        ))
    })
}

/// Every page of the server's tools.
async fn list_tools(peer: &Peer<RoleClient>) -> Result<Vec<rmcp::model::Tool>, String> {
    let offers_tools = peer
        .peer_info()
        .is_none_or(|info| info.capabilities.tools.is_some());
    if !offers_tools {
        return Ok(Vec::new());
    }
    let mut tools = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_TOOL_PAGES {
        let page = peer
            .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .map_err(|e| e.to_string())?;
        tools.extend(page.tools);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
    Err(format!("it sent more than {MAX_TOOL_PAGES} pages of tools"))
}

/// `reason`, followed by the end of the server's stderr if it wrote any.
fn with_stderr(mut reason: String, process: Option<&ServerProcess>) -> String {
    let tail = process.map(ServerProcess::stderr_tail).unwrap_or_default();
    if !tail.is_empty() {
        reason.push_str(&format!("; its stderr ends with: {}", clip_end(&tail, 600)));
    }
    reason
}
