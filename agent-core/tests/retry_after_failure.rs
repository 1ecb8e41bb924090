//! `Budget::retry_after_failed_calls`: an answer given right after a round
//! of failed calls, before any call of the run gave a result, is sent back
//! once with a request to try another call; a second one stands, and an
//! answer after any result is never sent back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, Completion, StopReason};
use common::{agent, call};
use serde_json::json;

fn failing(id: &str) -> Completion {
    Completion::tool_calls(vec![call(id, "fail", json!({}))])
}

fn adding(id: &str) -> Completion {
    Completion::tool_calls(vec![call(id, "add", json!({"a": 2, "b": 3}))])
}

#[tokio::test]
async fn giving_up_after_the_first_error_is_sent_back_once() {
    let model = ScriptedModel::new()
        .reply(failing("c1"))
        .text("I cannot find it.")
        .reply(adding("c2"))
        .text("5");
    let (runner, model) = agent(model, Budget::default());
    let outcome = runner.run("add two and three").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("5"));
    let told = model.requests()[2].messages.last().unwrap().content.clone();
    assert_eq!(
        told,
        "Error: that answer came right after a failed call, before any tool gave a result; read the error above and try another call first. Answer or call a tool."
    );
}

#[tokio::test]
async fn a_second_answer_after_errors_stands() {
    let model = ScriptedModel::new()
        .reply(failing("c1"))
        .text("I cannot find it.")
        .reply(failing("c2"))
        .text("The tools cannot find it.");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("find it").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("The tools cannot find it."));
    assert_eq!(outcome.steps, 4);
}

#[tokio::test]
async fn an_answer_after_any_result_or_with_the_rule_off_stands() {
    // A result earlier in the run: the answer after a later error stands.
    let model = ScriptedModel::new()
        .reply(adding("c1"))
        .reply(failing("c2"))
        .text("5");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("add").await;
    assert_eq!((outcome.answer.as_deref(), outcome.steps), (Some("5"), 3));
    // An answer with no tool call at all stands.
    let (runner, _) = agent(ScriptedModel::new().text("hello"), Budget::default());
    assert_eq!(runner.run("hi").await.answer.as_deref(), Some("hello"));
    // Turned off: the first answer stands.
    let model = ScriptedModel::new()
        .reply(failing("c1"))
        .text("I cannot find it.");
    let budget = Budget {
        retry_after_failed_calls: false,
        ..Budget::default()
    };
    let (runner, _) = agent(model, budget);
    let outcome = runner.run("find it").await;
    assert_eq!(outcome.answer.as_deref(), Some("I cannot find it."));
    assert_eq!(outcome.steps, 2);
}
