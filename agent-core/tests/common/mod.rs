//! Shared test tools: a toolbox with an adder, a sleeper, a sequential
//! tool that records overlap, a failing tool, a panicking tool, a lookup
//! that finds nothing, and, unlisted (the run never checks names), a
//! counter whose result changes with each call.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_core::message::Role;
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{Agent, Budget, Outcome, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
use async_trait::async_trait;
use serde_json::json;

#[derive(Default)]
pub(crate) struct Probe {
    pub(crate) running: AtomicUsize,
    pub(crate) max_running: AtomicUsize,
    pub(crate) seq_overlapped: AtomicUsize,
    pub(crate) calls: AtomicUsize,
}

#[derive(Clone, Default)]
pub(crate) struct TestTools {
    pub(crate) probe: Arc<Probe>,
}

impl TestTools {
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

fn spec(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("the {name} tool"),
        parameters: json!({"type": "object"}),
    }
}

#[async_trait]
impl Toolbox for TestTools {
    fn specs(&self) -> Vec<ToolSpec> {
        ["add", "sleep", "seq", "fail", "boom", "lookup"]
            .into_iter()
            .map(spec)
            .collect()
    }

    fn is_sequential(&self, name: &str) -> bool {
        name == "seq"
    }

    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        let probe = &self.probe;
        probe.calls.fetch_add(1, Ordering::SeqCst);
        let now = probe.running.fetch_add(1, Ordering::SeqCst) + 1;
        probe.max_running.fetch_max(now, Ordering::SeqCst);
        let result = match call.name.as_str() {
            "add" => {
                let a = call.arguments["a"].as_i64().unwrap_or(0);
                let b = call.arguments["b"].as_i64().unwrap_or(0);
                Ok(ToolOutput::new((a + b).to_string()))
            }
            "sleep" => {
                let ms = call.arguments["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(ToolOutput::new(format!("slept {ms}")))
            }
            "seq" => {
                if now > 1 {
                    probe.seq_overlapped.fetch_add(1, Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                if probe.running.load(Ordering::SeqCst) > 1 {
                    probe.seq_overlapped.fetch_add(1, Ordering::SeqCst);
                }
                Ok(ToolOutput::new("seq done"))
            }
            "lookup" => Ok(ToolOutput::no_results("No entry mentions that.")),
            "tick" => Ok(ToolOutput::new(format!(
                "calls so far: {}",
                probe.calls.load(Ordering::SeqCst)
            ))),
            "fail" => Err(ToolError::failed("the service said no")
                .with_source(std::io::Error::other("connection reset by 10.0.0.7"))),
            "boom" => {
                probe.running.fetch_sub(1, Ordering::SeqCst);
                panic!("tool exploded");
            }
            other => Err(ToolError::new(
                agent_core::tool::ToolErrorKind::NotFound,
                format!("no tool named {other}"),
            )),
        };
        probe.running.fetch_sub(1, Ordering::SeqCst);
        result
    }
}

pub(crate) fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(id, name, args)
}

/// The test tools, with `add` computing on given numbers
/// (`Toolbox::needs_grounded_numbers`): a grounded computing tool.
pub(crate) struct GroundedAdd(pub(crate) TestTools);

#[async_trait]
impl Toolbox for GroundedAdd {
    fn specs(&self) -> Vec<ToolSpec> {
        self.0.specs()
    }
    fn needs_grounded_numbers(&self, name: &str) -> bool {
        name == "add"
    }
    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        if call.name == "add" && call.arguments["a"].is_string() {
            return Err(ToolError::invalid_args("`a` is not a number"));
        }
        self.0.call(call).await
    }
}

/// An agent over `model` with the test transport, the grounded test
/// tools and `budget`, and the tools, to read their probe.
pub(crate) fn grounded_agent(model: ScriptedModel, budget: Budget) -> (Agent, TestTools) {
    let tools = TestTools::new();
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(GroundedAdd(tools.clone()))
        .budget(budget)
        .build()
        .unwrap();
    (agent, tools)
}

/// An agent over `model` with the test transport, the test tools and
/// `budget`, and the model, to read its requests.
pub(crate) fn agent(model: ScriptedModel, budget: Budget) -> (Agent, Arc<ScriptedModel>) {
    let model = Arc::new(model);
    let agent = Agent::builder()
        .model(model.clone())
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .budget(budget)
        .build()
        .unwrap();
    (agent, model)
}

/// The tool messages of `outcome`'s transcript: call id and content.
pub(crate) fn tool_answers(outcome: &Outcome) -> Vec<(String, String)> {
    outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| {
            (
                m.tool_call_id.clone().unwrap_or_default(),
                m.content.clone(),
            )
        })
        .collect()
}

/// The user messages the run added after the task.
pub(crate) fn told(outcome: &Outcome) -> Vec<String> {
    outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::User)
        .skip(1)
        .map(|m| m.content.clone())
        .collect()
}
