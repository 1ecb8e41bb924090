//! Names the question writes in code form (`latency_ms`): an answer given
//! before any tool result has shown one is sent back once, on ordinary
//! turns and on the answer turn; a result that shows it lets the answer
//! stand.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_core::message::Role;
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{
    Agent, Budget, Outcome, StopReason, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox,
};
use async_trait::async_trait;
use serde_json::json;

/// One tool, `echo`, whose result is its `text` argument.
struct Echo;

#[async_trait]
impl Toolbox for Echo {
    fn specs(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "echo".into(),
            description: "Returns its text.".into(),
            parameters: json!({"type": "object"}),
        }]
    }
    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::new(
            call.arguments["text"].as_str().unwrap_or_default(),
        ))
    }
}

fn agent(model: ScriptedModel, budget: Budget) -> Agent {
    Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(Echo)
        .budget(budget)
        .build()
        .unwrap()
}

fn told(outcome: &Outcome) -> Vec<String> {
    outcome
        .transcript
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.clone())
        .collect()
}

const QUESTION: &str = "What's the average latency_ms in metrics.csv?";

#[tokio::test]
async fn an_answer_before_any_result_shows_the_named_column_is_sent_back_once() {
    let model = ScriptedModel::new()
        .call(
            "1",
            "echo",
            json!({"text": "timestamp,requests\n1,912\n2,1040"}),
        )
        .text("1040")
        .text("metrics.csv has no such column.");
    let outcome = agent(model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(
        outcome.answer.as_deref(),
        Some("metrics.csv has no such column.")
    );
    let told = told(&outcome);
    assert!(
        told.iter().any(|t| t.contains(
            "no tool result shows `latency_ms`, which the question names. Look for it with the tools; if it is not there, say so"
        )),
        "{told:?}"
    );
}

#[tokio::test]
async fn a_result_that_shows_the_name_lets_the_answer_stand() {
    let model = ScriptedModel::new()
        .call("1", "echo", json!({"text": "ts,LATENCY_MS\n1,20\n2,40"}))
        .text("40");
    let outcome = agent(model, Budget::default()).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("40"));
    assert_eq!(outcome.steps, 2);
    // Off, the first answer stands whatever the results showed.
    let model = ScriptedModel::new()
        .call("1", "echo", json!({"text": "timestamp,requests\n1,912"}))
        .text("912");
    let budget = Budget {
        ground_names: false,
        ..Budget::default()
    };
    let outcome = agent(model, budget).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("912"));
}

#[tokio::test]
async fn the_answer_turn_is_asked_again_when_no_result_showed_the_name() {
    let read = json!({"text": "timestamp,requests\n1,912\n2,1040"});
    let model = ScriptedModel::new()
        .call("1", "echo", read.clone())
        .call("2", "echo", read)
        .text("1040")
        .text("The file has no latency_ms column.");
    let outcome = agent(model, Budget::default()).run(QUESTION).await;
    assert!(outcome.forced_answer);
    assert_eq!(
        outcome.answer.as_deref(),
        Some("The file has no latency_ms column.")
    );
    let told = told(&outcome);
    assert!(
        told.iter()
            .any(|t| t.contains("no tool result shows `latency_ms`, which the question names")),
        "{told:?}"
    );
}
