//! Live tests against a real model: llama.cpp's `llama-server` with
//! Qwen2.5-Coder from `../shared/tools/local-llm/` (`.ci/run` and `cargo
//! xtask live` start it). The calculator task runs through both transports;
//! each run must end with a typed stop reason within its budget, and the
//! trace must show real tool calls. When no server answers, the tests say
//! plainly that they skipped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use agent_core::run::RequestOptions;
use agent_core::trace::{TraceWriter, read_trace};
use agent_core::{Agent, Budget, Event, StopReason, Transport};
use agent_native::{NativeTransport, OpenAiCompatible, ProviderConfig};
use agent_text::TextTransport;
use agent_tools::builtin;

const TASK: &str = "What is (17 * 83) + (12 ** 3)?";

async fn live_server() -> Option<String> {
    common::live_server("live test").await
}

async fn live_run(url: &str, transport: impl Transport + 'static, label: &str) {
    let dir = tempfile::tempdir().unwrap();
    let trace_path = dir.path().join(format!("{label}.jsonl"));
    let model = OpenAiCompatible::new(
        ProviderConfig::new(url, "qwen2.5-coder-1.5b-instruct")
            .with_timeout(Duration::from_secs(180)),
    )
    .unwrap();
    let budget = Budget {
        max_steps: 6,
        max_tool_calls: 6,
        timeout: Some(Duration::from_secs(300)),
        ..Budget::default()
    };
    let agent = Agent::builder()
        .model(model)
        .transport(transport)
        .toolbox(
            builtin::registry(&["calculator"], None, true)
                .unwrap()
                .allow_all(),
        )
        .budget(budget)
        .request_options(RequestOptions {
            max_tokens: Some(256),
            temperature: Some(0.0),
        })
        .sink(Arc::new(TraceWriter::create(&trace_path).unwrap()))
        .build()
        .unwrap();
    let outcome = agent.run(TASK).await;
    eprintln!(
        "[live {label}] stop={} steps={} tool_calls={} tokens={} answer={:?}",
        outcome.stop_reason,
        outcome.steps,
        outcome.tool_calls,
        outcome.usage.total_tokens,
        outcome.answer
    );
    // A typed stop within the budget, never a panic or a hang.
    assert!(outcome.steps <= 6, "{label}: {} steps", outcome.steps);
    assert!(
        !matches!(outcome.stop_reason, StopReason::Cancelled),
        "{label}"
    );
    assert!(outcome.usage.total_tokens > 0, "{label}: real usage");
    // The trace shows real calls of the real calculator.
    let records = read_trace(&trace_path).unwrap();
    let calculator_calls: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.event {
            Event::ToolCallStarted { call } if call.name == "calculator" => {
                Some(call.arguments.to_string())
            }
            _ => None,
        })
        .collect();
    assert!(
        !calculator_calls.is_empty(),
        "{label}: no calculator call in the trace"
    );
    let observed_3139 = records.iter().any(|r| matches!(&r.event, Event::Observation { observation } if observation.content.contains("3139")));
    eprintln!("[live {label}] calculator calls: {calculator_calls:?}; saw 3139: {observed_3139}");
    assert!(matches!(
        records.last().unwrap().event,
        Event::Stopped { .. }
    ));
}

#[tokio::test]
async fn live_calculator_task_through_the_text_transport() {
    let Some(url) = live_server().await else {
        return;
    };
    live_run(&url, TextTransport::new(), "text").await;
}

#[tokio::test]
async fn live_calculator_task_through_the_native_transport() {
    let Some(url) = live_server().await else {
        return;
    };
    live_run(&url, NativeTransport::new(), "native").await;
}
