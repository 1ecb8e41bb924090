//! A small MCP server on rmcp's server side, for the `mcp` tests: the cases
//! the reference servers cannot show (a call counter, a cancellation
//! counter, a crash on demand, a paginated tool list) and the broken
//! servers (exits at once, writes garbage, never answers).
//!
//! Usage: `mcp-test-server [serve|exit|garbage|hang|parent COMMAND ARGS…]`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, ListToolsResult, PaginatedRequestParams, ResourceContents, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

/// Tools per page of `tools/list`.
const PAGE: usize = 3;

#[derive(Clone, Default)]
struct TestServer {
    /// Tool calls that reached the server (`stats` excluded).
    calls: Arc<AtomicUsize>,
    /// `sleep` calls the client cancelled.
    cancelled: Arc<AtomicUsize>,
}

fn schema(value: Value) -> Arc<Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("schemas are objects"),
    }
}

fn tools() -> Vec<Tool> {
    let empty = || schema(json!({"type": "object", "properties": {}}));
    vec![
        Tool::new(
            "add",
            "Add two integers.",
            schema(json!({
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": false
            })),
        ),
        Tool::new(
            "stats",
            "How many tool calls reached the server, and how many were cancelled.",
            empty(),
        ),
        Tool::new(
            "sleep",
            "Wait for some seconds.",
            schema(json!({
                "type": "object",
                "properties": {"seconds": {"type": "number"}},
                "required": ["seconds"]
            })),
        ),
        Tool::new("fail", "Always fails.", empty()),
        Tool::new("crash", "Ends the server process.", empty()),
        Tool::new(
            "text.upper",
            "Upper-case a text.",
            schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            })),
        ),
        Tool::new("media", "Returns one content block of each kind.", empty()),
        Tool::new(
            "env",
            "Read an environment variable of the server.",
            schema(json!({
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"]
            })),
        ),
    ]
}

fn text(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
}

/// What the server tells the client's model when the session opens.
const INSTRUCTIONS: &str =
    "Add numbers with `add`; `stats` reports how many calls this session made.";

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("agentloop-test-server", "0.1.0"))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start: usize = request
            .and_then(|r| r.cursor)
            .map(|c| {
                c.parse()
                    .map_err(|_| ErrorData::invalid_params("bad cursor", None))
            })
            .transpose()?
            .unwrap_or(0);
        let all = tools();
        let end = (start + PAGE).min(all.len());
        let mut page = ListToolsResult::with_all_items(all[start.min(end)..end].to_vec());
        if end < all.len() {
            page.next_cursor = Some(end.to_string());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        if request.name != "stats" {
            self.calls.fetch_add(1, Ordering::SeqCst);
        }
        match request.name.as_ref() {
            "add" => {
                let a = args.get("a").and_then(Value::as_i64).unwrap_or_default();
                let b = args.get("b").and_then(Value::as_i64).unwrap_or_default();
                text(format!("{a} + {b} = {}", a + b))
            }
            "stats" => text(format!(
                "calls: {}, cancelled: {}",
                self.calls.load(Ordering::SeqCst),
                self.cancelled.load(Ordering::SeqCst)
            )),
            "sleep" => {
                let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(0.0);
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => text("slept"),
                    () = context.ct.cancelled() => {
                        self.cancelled.fetch_add(1, Ordering::SeqCst);
                        Err(ErrorData::internal_error("cancelled", None))
                    }
                }
            }
            "fail" => Ok(
                CallToolResult::error(vec![ContentBlock::text("this tool always fails")]).into(),
            ),
            "crash" => std::process::exit(3),
            "text.upper" => text(
                args.get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_uppercase(),
            ),
            "media" => Ok(CallToolResult::success(vec![
                ContentBlock::text("one of each:"),
                ContentBlock::image("iVBORw0KGgo=", "image/png"),
                ContentBlock::audio("UklGRg==", "audio/wav"),
                ContentBlock::resource(ResourceContents::text("resource text", "test://text")),
                ContentBlock::resource(ResourceContents::blob("AAECAw==", "test://blob")),
            ])
            .into()),
            "env" => {
                let name = args.get("name").and_then(Value::as_str).unwrap_or_default();
                text(std::env::var(name).unwrap_or_default())
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}`"),
                None,
            )),
        }
    }
}

/// `parent COMMAND ARGS…`: connect to the stdio server `COMMAND ARGS…`
/// through `agent_tools`, print its pid, and wait to be killed; for testing
/// what becomes of a server whose agent dies.
async fn parent() {
    let args: Vec<String> = std::env::args().skip(2).collect();
    let (command, rest) = args.split_first().expect("parent COMMAND ARGS…");
    let config = agent_tools::mcp::McpServerConfig::stdio("child", command, rest.iter().cloned());
    let connection = agent_tools::mcp::McpConnection::connect(&config)
        .await
        .expect("connect");
    println!("{}", connection.pid().expect("a pid"));
    tokio::time::sleep(Duration::from_secs(600)).await;
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    match std::env::args().nth(1).as_deref().unwrap_or("serve") {
        "serve" => {
            // A client that leaves before the handshake is not an error.
            if let Ok(service) = TestServer::default().serve(rmcp::transport::stdio()).await {
                let _ = service.waiting().await;
            }
        }
        "parent" => parent().await,
        "exit" => {
            eprintln!("fatal: no configuration found");
            std::process::exit(2);
        }
        "garbage" => {
            println!("Welcome to the test server! Type HELP for a list of commands.");
            println!("> ");
            tokio::time::sleep(Duration::from_secs(600)).await;
        }
        "hang" => tokio::time::sleep(Duration::from_secs(600)).await,
        other => {
            eprintln!("unknown mode `{other}`");
            std::process::exit(64);
        }
    }
}
