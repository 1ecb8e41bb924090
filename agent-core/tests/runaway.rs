//! A streamed turn that falls into a repetition loop (a small model
//! writing `0` until its token limit) is cut as soon as the loop shows,
//! and the run goes on: the cut call reaches the toolbox with its broken
//! arguments (the gateway answers those with an error observation), and
//! the model gets to answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Arc, Mutex};

use agent_core::event::FnSink;
use agent_core::message::FinishReason;
use agent_core::model::RUNAWAY_BYTES;
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{Agent, Completion, Event, Outcome, StopReason, ToolCall};
use common::TestTools;
use serde_json::Value;

/// Runs `task` with `model` streamed through the test tools, and returns
/// the outcome and every completion the model's turns gave, as they came.
async fn run_streamed(model: &Arc<ScriptedModel>, task: &str) -> (Outcome, Vec<Completion>) {
    let responded = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&responded);
    let sink = FnSink(move |event: &Event| {
        if let Event::ModelResponded { completion, .. } = event {
            seen.lock().unwrap().push(completion.clone());
        }
    });
    let agent = Agent::builder()
        .model(Arc::clone(model))
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .streaming(true)
        .sink(sink)
        .build()
        .unwrap();
    let outcome = agent.run(task).await;
    let responded = responded.lock().unwrap().clone();
    (outcome, responded)
}

#[tokio::test]
async fn a_runaway_call_is_cut_and_the_run_goes_on() {
    let runaway = format!("{{\"a\": 2, \"b\": 1{}", "0".repeat(4000));
    let model = Arc::new(
        ScriptedModel::new()
            .reply(Completion::tool_calls(vec![ToolCall::new(
                "c1",
                "add",
                Value::String(runaway),
            )]))
            .text("3")
            .chunked(16),
    );
    let (outcome, responded) = run_streamed(&model, "add two and one").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("3"));
    // The stream was read only until the loop showed.
    let chunks = model.chunks_sent();
    assert!(chunks < 4000 / 16, "{chunks} chunks read");
    assert_eq!(responded[0].finish_reason, Some(FinishReason::Repetition));
    let Value::String(cut) = &responded[0].tool_calls[0].arguments else {
        panic!("{:?}", responded[0].tool_calls[0].arguments);
    };
    assert!(
        cut.len() < 4000 && cut.len() >= RUNAWAY_BYTES,
        "{}",
        cut.len()
    );
    // An ordinary reply is read whole.
    assert_eq!(responded[1].finish_reason, Some(FinishReason::Stop));
}

#[tokio::test]
async fn a_repeated_piece_is_cut_from_the_stream_and_from_what_the_model_reads_again() {
    let term = " - 48000 * (1 - 0.12)^0";
    let expression = format!("48000 * 0.88{}", term.repeat(60));
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "add", serde_json::json!({"a": 1, "b": expression}))
            .text("I cannot compute it.")
            .chunked(16),
    );
    let (outcome, responded) = run_streamed(&model, "what is it worth").await;
    assert_eq!(outcome.answer.as_deref(), Some("I cannot compute it."));
    // The stream stopped once the piece had repeated for a while.
    assert_eq!(responded[0].finish_reason, Some(FinishReason::Repetition));
    // The next request carries the call with the piece once, then `…`.
    let second = &model.requests()[1];
    let sent = serde_json::to_string(&second.messages).unwrap();
    assert!(sent.contains(&format!("48000 * 0.88{term}…")), "{sent}");
    assert!(!sent.contains(&term.repeat(2)), "{sent}");
}
