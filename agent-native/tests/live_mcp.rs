//! Live: the local model (llama.cpp's `llama-server` with Qwen2.5-Coder
//! 1.5B, found as in `live.rs`) answers a question that only a file
//! answers, reading the file through the reference filesystem MCP server
//! (only its read tools allowed, nothing else), on both transports. The
//! run must call a server tool, get the file's text back, and answer
//! right. When no model server answers, or the MCP server is not
//! installed, the tests say plainly that they skipped.
//!
//! The model server has one slot: the two runs take turns (a lock), so
//! they never compete for it, whatever `--test-threads` says.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_core::event::{Event, FnSink};
use agent_core::run::RequestOptions;
use agent_core::{Agent, Budget, StopReason, Transport};
use agent_native::{NativeTransport, OpenAiCompatible, ProviderConfig};
use agent_text::TextTransport;
use agent_tools::ToolRegistry;
use agent_tools::mcp::{McpServerConfig, register_servers};

/// The filesystem server's tools the model may use: reading only.
const READ_TOOLS: [&str; 2] = ["read_text_file", "list_directory"];

/// The model server has one slot.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn live_server() -> Option<String> {
    common::live_server("live test").await
}

/// The filesystem server's binary, if installed.
fn filesystem_server() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join(".ci/mcp-servers/node_modules/.bin/mcp-server-filesystem");
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED live MCP test: mcp-server-filesystem is not installed under \
             .ci/mcp-servers/node_modules/.bin (run `npm ci --prefix .ci/mcp-servers`, which .ci/run does)"
        );
        None
    }
}

async fn live_run(transport: impl Transport + 'static, label: &str) {
    let (Some(url), Some(bin)) = (live_server().await, filesystem_server()) else {
        return;
    };
    let _turn = ONE_AT_A_TIME.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("keeper.txt");
    std::fs::write(&file, "The lighthouse keeper's cat is named Biscuit.\n").unwrap();
    let task = format!(
        "What is the name of the lighthouse keeper's cat? The file {} says it. \
         Read that file with a tool, then answer with the name.",
        file.display()
    );

    let mut registry = ToolRegistry::new();
    let files = McpServerConfig::stdio(
        "files",
        bin.display().to_string(),
        [root.display().to_string()],
    )
    .with_startup_timeout(Duration::from_secs(30));
    let servers = register_servers(&mut registry, &[files]).await.unwrap();
    let tools = registry.allow(READ_TOOLS).unwrap();
    assert_eq!(tools.names(), READ_TOOLS, "nothing else is allowed");

    let model = OpenAiCompatible::new(
        ProviderConfig::new(url, "qwen2.5-coder-1.5b-instruct")
            .with_timeout(Duration::from_secs(180)),
    )
    .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let events = Arc::clone(&events);
        FnSink(move |event: &Event| events.lock().unwrap().push(event.clone()))
    };
    let agent = Agent::builder()
        .model(model)
        .transport(transport)
        .toolbox(tools)
        .budget(Budget {
            max_steps: 6,
            max_tool_calls: 6,
            timeout: Some(Duration::from_secs(300)),
            ..Budget::default()
        })
        .request_options(RequestOptions {
            max_tokens: Some(256),
            temperature: Some(0.0),
        })
        .sink(sink)
        .build()
        .unwrap();
    let outcome = agent.run(task).await;
    let events = events.lock().unwrap().clone();
    let calls: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallStarted { call } => Some(format!("{} {}", call.name, call.arguments)),
            _ => None,
        })
        .collect();
    let read_the_fact = events.iter().any(|e| {
        matches!(e, Event::Observation { observation }
            if READ_TOOLS.contains(&observation.tool.as_str())
                && observation.error.is_none()
                && observation.content.contains("Biscuit"))
    });
    eprintln!(
        "[live mcp {label}] stop={} steps={} tool_calls={} tokens={} calls={calls:?} read_the_fact={read_the_fact} answer={:?}",
        outcome.stop_reason,
        outcome.steps,
        outcome.tool_calls,
        outcome.usage.total_tokens,
        outcome.answer
    );
    assert!(outcome.usage.total_tokens > 0, "{label}: real usage");
    assert!(
        read_the_fact,
        "{label}: no filesystem-server call returned the file's text; calls: {calls:?}"
    );
    // A final answer, or (native, every turn a call) the answer asked for
    // once the model repeated the read it had been answered.
    assert!(
        matches!(
            outcome.stop_reason,
            StopReason::FinalAnswer | StopReason::RepeatedCall
        ),
        "{label}: {}",
        outcome.stop_reason
    );
    let answer = outcome.answer.unwrap_or_default();
    assert!(
        answer.to_lowercase().contains("biscuit"),
        "{label}: wrong answer {answer:?}"
    );
    drop(agent);
    drop(servers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_file_question_through_the_filesystem_server_text_transport() {
    live_run(TextTransport::new(), "text").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_file_question_through_the_filesystem_server_native_transport() {
    live_run(NativeTransport::new(), "native").await;
}
