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
use agent_core::{Agent, Completion, Event, StopReason, ToolCall};
use common::TestTools;
use serde_json::Value;

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
    let responded = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&responded);
    let sink = FnSink(move |event: &Event| {
        if let Event::ModelResponded { completion, .. } = event {
            seen.lock().unwrap().push(completion.clone());
        }
    });
    let agent = Agent::builder()
        .model(Arc::clone(&model))
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .streaming(true)
        .sink(sink)
        .build()
        .unwrap();
    let outcome = agent.run("add two and one").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("3"));
    // The stream was read only until the loop showed.
    let chunks = model.chunks_sent();
    assert!(chunks < 4000 / 16, "{chunks} chunks read");
    let responded = responded.lock().unwrap().clone();
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
