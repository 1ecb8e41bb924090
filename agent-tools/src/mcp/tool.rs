//! [`McpTool`]: one tool of an MCP server as an [`agent_core::Tool`]. Its
//! name is the server's (prefixed, and made callable), and so are its
//! description and input schema; a call is a `tools/call` request.
//!
//! Failures: a result with `isError` is a `Failed` error carrying the
//! server's text (clipped); a JSON-RPC error carries the server's message; a
//! transport failure (the server crashed, the pipe closed) says only that
//! the server is not available, with the detail kept for the operator.
//! Dropping a call's future (the gateway's timeout) sends
//! `notifications/cancelled` for it: rmcp's request guard does that.

use std::sync::Arc;

use agent_core::{Tool, ToolError, ToolOutput};
use async_trait::async_trait;
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::service::{Peer, RoleClient};
use serde_json::{Map, Value};

use super::content::render;
use super::error::McpError;
use super::process::StderrTail;
use super::text::{clip, clip_end};
use crate::gateway::is_valid_name;

/// At most this many characters of a server's error text reach the model.
const MAX_ERROR_CHARS: usize = 1000;

/// A tool of an MCP server.
pub(crate) struct McpTool {
    server: Arc<str>,
    name: String,
    remote_name: String,
    description: String,
    parameters: Value,
    peer: Peer<RoleClient>,
    stderr: Option<StderrTail>,
    /// The server's instructions for the model, when passed on.
    context: Option<Arc<str>>,
}

impl McpTool {
    /// The tool `listed` by `server`, registered as `prefix_name` with any
    /// character a model cannot call replaced by `_`; `context`, the
    /// server's instructions when they are passed on to the model.
    pub(crate) fn new(
        server: Arc<str>,
        prefix: Option<&str>,
        listed: rmcp::model::Tool,
        peer: Peer<RoleClient>,
        stderr: Option<StderrTail>,
        context: Option<Arc<str>>,
    ) -> Result<Self, McpError> {
        let remote_name = listed.name.to_string();
        let full = match prefix {
            Some(prefix) => format!("{prefix}_{remote_name}"),
            None => remote_name.clone(),
        };
        let name: String = full
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if !is_valid_name(&name) {
            return Err(McpError::InvalidName {
                server: server.to_string(),
                reason: format!(
                    "its tool `{}` would be called `{}`, which is empty or longer than 64 \
                     characters; use a shorter prefix",
                    clip(&remote_name, 80),
                    clip(&name, 80)
                ),
            });
        }
        let description = listed
            .description
            .as_deref()
            .filter(|d| !d.trim().is_empty())
            .map(str::to_string)
            .or_else(|| listed.title.clone())
            .unwrap_or_else(|| format!("Tool `{remote_name}` of the MCP server `{server}`."));
        Ok(Self {
            parameters: Value::Object((*listed.input_schema).clone()),
            server,
            name,
            remote_name,
            description,
            peer,
            stderr,
            context,
        })
    }

    /// The tool's name at the server.
    pub(crate) fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The error for a request that failed.
    fn service_error(&self, error: ServiceError) -> ToolError {
        match error {
            ServiceError::McpError(data) => {
                let message = format!(
                    "the MCP server `{}` answered with an error: {}",
                    self.server,
                    clip(&data.message, MAX_ERROR_CHARS)
                );
                if data.code == ErrorCode::INVALID_PARAMS {
                    ToolError::invalid_args(message)
                } else {
                    ToolError::failed(message)
                }
            }
            other => {
                let mut detail = format!("MCP server `{}`: {other}", self.server);
                let tail = self
                    .stderr
                    .as_ref()
                    .map(StderrTail::text)
                    .unwrap_or_default();
                if !tail.is_empty() {
                    detail.push_str(&format!("; its stderr ends with: {}", clip_end(&tail, 600)));
                }
                tracing::warn!(server = %self.server, tool = %self.name, "{detail}");
                ToolError::failed(format!("the MCP server `{}` is not available", self.server))
                    .with_source(detail)
            }
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn context(&self) -> Option<String> {
        self.context.as_deref().map(str::to_string)
    }

    async fn call(&self, args: Value) -> Result<ToolOutput, ToolError> {
        let arguments = match args {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            _ => {
                return Err(ToolError::invalid_args(
                    "expected a JSON object of arguments",
                ));
            }
        };
        let request =
            CallToolRequestParams::new(self.remote_name.clone()).with_arguments(arguments);
        let result = self
            .peer
            .call_tool(request)
            .await
            .map_err(|e| self.service_error(e))?;
        let text = render(&result);
        if result.is_error == Some(true) {
            let message = if text.trim().is_empty() {
                "the tool reported an error without a message".to_string()
            } else {
                clip(&text, MAX_ERROR_CHARS)
            };
            return Err(ToolError::failed(message));
        }
        Ok(ToolOutput::new(text))
    }
}
