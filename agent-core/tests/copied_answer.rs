//! `Budget::check_copied_answer`: in a run whose computing tool has given
//! no result, an answer whose numbers are copied from a lookup is sent
//! back once, on an ordinary turn and on the answer turn (as its compute
//! round); what it leaves alone.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, Outcome, StopReason};
use common::{agent, grounded_agent, told};
use serde_json::json;

const TASK: &str = "What is the combined population of Paris and Berlin?";

fn copied_notes(outcome: &Outcome) -> usize {
    told(outcome)
        .iter()
        .filter(|m| m.contains("nothing has been computed yet"))
        .count()
}

#[tokio::test]
async fn a_copied_number_with_nothing_computed_is_sent_back_once_and_the_model_computes() {
    let model = ScriptedModel::new()
        .call("1", "fact", json!({}))
        .text("2,100,000")
        .call("2", "add", json!({"a": 2100000, "b": 3800000}))
        .text("5900000");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("5900000"));
    assert!(!outcome.forced_answer);
    let told = told(&outcome);
    let note = told
        .iter()
        .find(|m| m.contains("nothing has been computed yet"))
        .expect("the copied answer is sent back");
    assert!(
        note.contains("2,100,000 is taken from the tool results as it stands")
            && note.contains("compute it with add first")
            && note.contains("give the same answer again"),
        "{note}"
    );
    assert_eq!(
        tools.probe.calls.load(std::sync::atomic::Ordering::SeqCst),
        2
    );
}

#[tokio::test]
async fn the_same_answer_given_again_stands() {
    let model = ScriptedModel::new()
        .call("1", "fact", json!({}))
        .text("About 3,800,000.")
        .text("About 3,800,000.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("How many people live in Berlin?").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("About 3,800,000."));
    assert_eq!(outcome.steps, 3);
    assert_eq!(copied_notes(&outcome), 1);
}

#[tokio::test]
async fn an_answer_after_a_computation_the_task_s_numbers_or_no_number_stands() {
    // A computing result came first: the answer may quote a lookup.
    let model = ScriptedModel::new()
        .call("1", "fact", json!({}))
        .call("2", "add", json!({"a": 2100000, "b": 3800000}))
        .text("5900000, with Paris at 2,100,000");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(
        outcome.answer.as_deref(),
        Some("5900000, with Paris at 2,100,000")
    );
    assert_eq!(outcome.steps, 3);
    // Only numbers the task gave.
    let model = ScriptedModel::new()
        .call("1", "fact", json!({}))
        .text("Yes: it is more than 2,000,000.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Has Berlin more than 2,000,000 people?").await;
    assert_eq!(outcome.steps, 2);
    assert_eq!(copied_notes(&outcome), 0);
    // No number at all.
    let model = ScriptedModel::new()
        .call("1", "fact", json!({}))
        .text("Berlin has more people.");
    let (agent, _) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Which has more people, Paris or Berlin?").await;
    assert_eq!(outcome.steps, 2);
    assert_eq!(copied_notes(&outcome), 0);
}

#[tokio::test]
async fn without_a_computing_tool_or_with_the_check_off_a_copied_number_stands() {
    let answer_at_once = || {
        ScriptedModel::new()
            .call("1", "fact", json!({}))
            .text("2,100,000")
    };
    let (agent, _) = agent(answer_at_once(), Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!((outcome.steps, copied_notes(&outcome)), (2, 0));
    let off = Budget {
        check_copied_answer: false,
        ..Budget::default()
    };
    let (agent, _) = grounded_agent(answer_at_once(), off);
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.answer.as_deref(), Some("2,100,000"));
    assert_eq!((outcome.steps, copied_notes(&outcome)), (2, 0));
}

#[tokio::test]
async fn on_the_answer_turn_a_copied_number_gets_the_compute_round() {
    let model = ScriptedModel::new()
        .call("1", "fact", json!({}))
        .call("2", "fact", json!({}))
        .text("2,100,000")
        .call("3", "add", json!({"a": 2100000, "b": 3800000}))
        .text("5900000");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("5900000"));
    assert_eq!(copied_notes(&outcome), 1);
    // The lookup, then the compute round's call; the repeat did not run.
    assert_eq!(
        tools.probe.calls.load(std::sync::atomic::Ordering::SeqCst),
        2
    );
}
