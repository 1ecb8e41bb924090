//! The native transport's answer tool, end to end through an agent: every
//! ordinary request offers `final_answer` beside the run's tools with
//! `tool_choice: "required"`; a call to it is the answer, recorded as a
//! plain assistant message; a call to it beside other calls is dropped and
//! the others run; an empty one is a malformed turn the model is told
//! about; prose still answers; and it can be turned off.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_core::message::{Role, ToolChoice};
use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Completion, StopReason, ToolCall};
use agent_native::{ANSWER_TOOL, NativeTransport};
use agent_tools::builtin;
use serde_json::json;

fn agent(model: &Arc<ScriptedModel>, transport: NativeTransport) -> Agent {
    let tools = builtin::registry(&["calculator"], None, true)
        .unwrap()
        .allow_all();
    Agent::builder()
        .model(Arc::clone(model))
        .transport(transport)
        .toolbox(tools)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_call_to_final_answer_is_the_answer() {
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "calculator", json!({"expression": "385 / 3.5"}))
            .call("c2", ANSWER_TOOL, json!({"answer": "110 km/h"})),
    );
    let outcome = agent(&model, NativeTransport::new())
        .run("A train covers 385 km in 3.5 hours. What is its speed?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("110 km/h"));
    assert!(!outcome.forced_answer);
    // The answer is recorded as words, with no call left unanswered.
    let last = outcome.transcript.last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.content, "110 km/h");
    assert!(last.tool_calls.is_empty());
    for request in model.requests() {
        let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["calculator", ANSWER_TOOL]);
        assert_eq!(request.tool_choice, ToolChoice::Required);
    }
}

#[tokio::test]
async fn an_answer_beside_other_calls_waits_for_their_results() {
    let model = Arc::new(
        ScriptedModel::new()
            .reply(Completion::tool_calls(vec![
                ToolCall::new("c1", "calculator", json!({"expression": "6 * 7"})),
                ToolCall::new("c2", ANSWER_TOOL, json!({"answer": "a guess"})),
            ]))
            .call("c3", ANSWER_TOOL, json!({"answer": "42"})),
    );
    let outcome = agent(&model, NativeTransport::new())
        .run("What is six times seven?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("42"));
    assert_eq!(outcome.tool_calls, 1);
    // The dropped call is not in the history the provider sees, so every
    // call there has its one tool message.
    let calls: Vec<&str> = outcome
        .transcript
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.name.as_str()))
        .collect();
    assert_eq!(calls, ["calculator"]);
}

#[tokio::test]
async fn an_empty_answer_is_sent_back_and_prose_still_answers() {
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", ANSWER_TOOL, json!({}))
            .text("It is 42."),
    );
    let outcome = agent(&model, NativeTransport::new())
        .run("What is six times seven?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("It is 42."));
    let told = &model.requests()[1].messages;
    let last = told.last().unwrap();
    assert_eq!(last.role, Role::User);
    assert_eq!(
        last.content,
        "Error: `final_answer` was called without an `answer`. Call one of the tools (calculator, final_answer), or call final_answer with the answer."
    );
}

#[tokio::test]
async fn without_the_answer_tool_requests_are_as_before() {
    let model = Arc::new(ScriptedModel::new().text("42"));
    let outcome = agent(&model, NativeTransport::new().with_answer_tool(false))
        .run("What is six times seven?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("42"));
    let request = &model.requests()[0];
    assert_eq!(request.tools.len(), 1);
    assert_eq!(request.tool_choice, ToolChoice::Auto);
    assert_eq!(
        request.messages[0].content,
        agent_native::DEFAULT_SYSTEM_PROMPT
    );
}

#[tokio::test]
async fn a_loop_ends_in_an_answer_turn_that_can_only_call_final_answer() {
    let same = json!({"expression": "18 * 3"});
    let model = Arc::new(
        ScriptedModel::new()
            .call("c1", "calculator", same.clone())
            .call("c2", "calculator", same.clone())
            .call("c3", "calculator", same)
            .call("c4", ANSWER_TOOL, json!({"answer": "54"})),
    );
    let outcome = agent(&model, NativeTransport::new())
        .run("What is 18 times 3?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("54"));
    let last = model.requests().pop().unwrap();
    let offered: Vec<&str> = last.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(offered, [ANSWER_TOOL]);
    assert_eq!(last.tool_choice, agent_core::message::ToolChoice::Required);
}
