//! A real `Agent` with a real MCP server (the reference filesystem server
//! from npm, pinned in `.ci/mcp-servers`, installed by `.ci/run`) next to a
//! built-in tool, on scripted model turns: both transports, and a server
//! killed mid-run. Tests say that they skipped, and why, when the server is
//! not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_core::event::{Event, FnSink};
use agent_core::message::{Completion, Message, Role, ToolCall};
use agent_core::testing::ScriptedModel;
use agent_core::tool::ToolErrorKind;
use agent_core::{Agent, Outcome, StopReason, Transport};
use agent_native::NativeTransport;
use agent_text::TextTransport;
use agent_tools::mcp::{McpServerConfig, McpServers, register_servers};
use agent_tools::{ToolSet, builtin};
use serde_json::json;

/// An npm server's binary under `.ci/mcp-servers/node_modules/.bin/`.
fn npm_bin(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join(".ci/mcp-servers/node_modules/.bin")
        .join(name);
    path.exists().then_some(path)
}

/// The filesystem server's binary, or return from the test saying why it
/// skipped.
macro_rules! filesystem_server {
    () => {
        match npm_bin("mcp-server-filesystem") {
            Some(path) => path,
            None => {
                eprintln!(
                    "skipped: mcp-server-filesystem is not installed under \
                     .ci/mcp-servers/node_modules/.bin (run `npm ci --prefix .ci/mcp-servers`, \
                     which .ci/run does)"
                );
                return;
            }
        }
    };
}

/// A temporary directory (its real path: the server resolves symlinks)
/// holding `notes.txt`.
fn notes_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "The vault code is 4096.\n").unwrap();
    (dir, root)
}

/// The filesystem server over `root` (its tools in the group `files`)
/// next to the calculator; the tool set allows the calculator and the
/// server's `read_text_file`.
async fn tools(bin: &Path, root: &Path) -> (ToolSet, McpServers) {
    let mut registry = builtin::registry(&["calculator"], None, true).unwrap();
    let files = McpServerConfig::stdio(
        "files",
        bin.display().to_string(),
        [root.display().to_string()],
    )
    .with_startup_timeout(Duration::from_secs(30));
    let servers = match register_servers(&mut registry, &[files]).await {
        Ok(servers) => servers,
        Err(e) => panic!("{e}"),
    };
    let tools = registry.allow(["calculator", "read_text_file"]).unwrap();
    (tools, servers)
}

/// The observations of a run, in transcript order: native `role: tool`
/// messages, or the text transport's `Observation:` messages.
fn observations(outcome: &Outcome) -> Vec<&Message> {
    outcome
        .transcript
        .iter()
        .skip(2) // the system prompt and the task
        .filter(|m| match m.role {
            Role::Tool => true,
            Role::User => m.content.contains("Observation"),
            _ => false,
        })
        .collect()
}

fn native_calls(calls: &[(&str, &str, serde_json::Value)]) -> Completion {
    Completion::tool_calls(
        calls
            .iter()
            .map(|(id, tool, args)| ToolCall::new(*id, *tool, args.clone()))
            .collect(),
    )
}

fn agent(model: ScriptedModel, transport: impl Transport + 'static, tools: ToolSet) -> Agent {
    Agent::builder()
        .model(model)
        .transport(transport)
        .toolbox(tools)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_one_turn_calls_a_server_tool_and_a_builtin_in_call_order() {
    let bin = filesystem_server!();
    let (_dir, root) = notes_dir();
    let (tools, servers) = tools(&bin, &root).await;
    let notes = root.join("notes.txt").display().to_string();
    let model = ScriptedModel::new()
        .reply(native_calls(&[
            ("read", "read_text_file", json!({ "path": notes })),
            ("calc", "calculator", json!({ "expression": "4096 / 8" })),
        ]))
        .text("The vault code is 4096; an eighth of it is 512.");
    let outcome = agent(model, NativeTransport::new(), tools)
        // (The calculator's numbers come from the task: the code is only
        // known once the read of the same round has run.)
        .run("What is the vault code in notes.txt, and what is an eighth of 4096?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 2);
    assert_eq!(
        outcome.answer.as_deref(),
        Some("The vault code is 4096; an eighth of it is 512.")
    );
    let observations = observations(&outcome);
    let answers: Vec<(Option<&str>, &str)> = observations
        .iter()
        .map(|m| (m.tool_call_id.as_deref(), m.content.as_str()))
        .collect();
    assert_eq!(
        answers,
        [
            (Some("read"), "The vault code is 4096.\n"),
            (Some("calc"), "512")
        ]
    );
    drop(servers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_steps_call_a_server_tool_then_a_builtin() {
    let bin = filesystem_server!();
    let (_dir, root) = notes_dir();
    let (tools, servers) = tools(&bin, &root).await;
    let notes = root.join("notes.txt").display().to_string();
    let model = ScriptedModel::new()
        .text(format!(
            "Thought: The code is in the notes; I will read them.\nAction: read_text_file\nAction Input: {}",
            json!({ "path": notes })
        ))
        .text("Thought: The code is 4096. Now an eighth of it.\nAction: calculator\nAction Input: {\"expression\": \"4096 / 8\"}")
        .text("Thought: I have both.\nFinal Answer: The vault code is 4096; an eighth of it is 512.");
    let outcome = agent(model, TextTransport::new(), tools)
        // (The calculator's numbers come from the task: the code is only
        // known once the read of the same round has run.)
        .run("What is the vault code in notes.txt, and what is an eighth of 4096?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.steps, 3);
    assert_eq!(outcome.tool_calls, 2);
    assert_eq!(
        outcome.answer.as_deref(),
        Some("The vault code is 4096; an eighth of it is 512.")
    );
    let observations = observations(&outcome);
    assert_eq!(observations.len(), 2, "{observations:#?}");
    assert!(
        observations[0].content.contains("The vault code is 4096."),
        "{}",
        observations[0].content
    );
    assert!(!observations[0].content.contains("Error"));
    assert!(
        observations[1].content.contains("512"),
        "{}",
        observations[1].content
    );
    drop(servers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_run_fails_only_its_own_calls_and_leaves_no_process() {
    let bin = filesystem_server!();
    let (_dir, root) = notes_dir();
    let (tools, servers) = tools(&bin, &root).await;
    let pid = servers.get("files").unwrap().pid().unwrap();
    let notes = root.join("notes.txt").display().to_string();
    let model = ScriptedModel::new()
        .reply(native_calls(&[(
            "read-1",
            "read_text_file",
            json!({ "path": notes }),
        )]))
        .reply(native_calls(&[
            // Not the same call again (that would draw the loop note).
            (
                "read-2",
                "read_text_file",
                json!({ "path": notes, "head": 1 }),
            ),
            ("calc", "calculator", json!({ "expression": "4096 / 8" })),
        ]))
        .text("The vault code is 4096; an eighth of it is 512.");
    // After the server's first successful answer, kill it (SIGKILL); keep
    // how each call ended.
    let killed = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let killed = Arc::clone(&killed);
        let finished = Arc::clone(&finished);
        FnSink(move |event: &Event| {
            if let Event::ToolCallFinished { call_id, error, .. } = event {
                finished.lock().unwrap().push((call_id.clone(), *error));
            }
            if let Event::Observation { observation } = event
                && observation.call_id == "read-1"
                && observation.error.is_none()
            {
                let status = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status()
                    .unwrap();
                killed.store(status.success(), Ordering::SeqCst);
            }
        })
    };
    let agent = Agent::builder()
        .model(model)
        .transport(NativeTransport::new())
        .toolbox(tools)
        .sink(sink)
        .build()
        .unwrap();
    let outcome = agent
        // (The calculator's numbers come from the task: the code is only
        // known once the read of the same round has run.)
        .run("What is the vault code in notes.txt, and what is an eighth of 4096?")
        .await;
    assert!(killed.load(Ordering::SeqCst), "the server was not killed");
    // A typed stop: the model answered from what it had.
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.steps, 3);
    assert_eq!(outcome.tool_calls, 3);
    // The transcript is whole: system, task, then per step the assistant
    // turn and one answer per call, then the answer.
    let roles: Vec<Role> = outcome.transcript.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Tool,
            Role::Assistant
        ]
    );
    let observations = observations(&outcome);
    assert_eq!(observations[0].content, "The vault code is 4096.\n");
    assert_eq!(observations[1].tool_call_id.as_deref(), Some("read-2"));
    assert_eq!(
        observations[1].content,
        "Error (tool failed): the MCP server `files` is not available"
    );
    assert_eq!(observations[2].tool_call_id.as_deref(), Some("calc"));
    assert_eq!(observations[2].content, "512");
    assert_eq!(
        outcome.answer.as_deref(),
        Some("The vault code is 4096; an eighth of it is 512.")
    );
    // The events say how each call ended, in the order they ended.
    let mut finished = finished.lock().unwrap().clone();
    finished.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        finished,
        [
            ("calc".to_string(), None),
            ("read-1".to_string(), None),
            ("read-2".to_string(), Some(ToolErrorKind::Failed))
        ]
    );
    drop(agent);
    drop(servers);
    let mut gone = false;
    for _ in 0..100 {
        if !Path::new(&format!("/proc/{pid}")).exists() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        gone,
        "process {pid} is still there after the handle was dropped"
    );
}
