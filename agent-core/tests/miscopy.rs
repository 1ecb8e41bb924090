//! A computing call sent back for a number with a zero dropped, and made
//! again unchanged, runs with the number the conversation holds, and its
//! observation says so; any other number sent back and made again runs
//! as written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use common::{grounded_agent, told, tool_answers};
use serde_json::json;

const TASK: &str = "Tokyo has 14,000,000 people and Berlin 3,800,000. How many together?";

#[tokio::test]
async fn a_slipped_zero_made_again_runs_with_the_number_the_conversation_holds() {
    let slipped = json!({"a": 1400000, "b": 3800000});
    let model = ScriptedModel::new()
        .call("1", "add", slipped.clone())
        .call("2", "add", slipped)
        .text("17800000");
    let (agent, _tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("17800000"));
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert!(
        answers[0].contains("1400000 has one zero too few: the results say 14,000,000"),
        "{answers:?}"
    );
    assert_eq!(
        answers[1],
        "17800000\n(Note: this call ran with 14000000 in place of 1400000, the number written above as 14,000,000.)"
    );
}

#[tokio::test]
async fn the_slipped_call_made_once_more_is_a_repeat_of_the_corrected_one() {
    let slipped = json!({"a": 1400000, "b": 3800000});
    let model = ScriptedModel::new()
        .call("1", "add", slipped.clone())
        .call("2", "add", slipped.clone())
        .call("3", "add", slipped)
        .text("17800000");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    // Run once, corrected; the third time it is answered with that result.
    assert_eq!(
        tools.probe.calls.load(std::sync::atomic::Ordering::SeqCst),
        1
    );
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert!(answers[2].starts_with("17800000"), "{answers:?}");
    assert_eq!(outcome.answer.as_deref(), Some("17800000"));
}

#[tokio::test]
async fn another_number_sent_back_and_made_again_runs_as_written() {
    let guessed = json!({"a": 2500000, "b": 3800000});
    // A number that is no slip is from memory: the turn after it must
    // look up (the lookup finds nothing), then the call runs as written.
    let model = ScriptedModel::new()
        .call("1", "add", guessed.clone())
        .call("l", "lookup", json!({"query": "population"}))
        .call("2", "add", guessed)
        .text("6300000");
    let (agent, _tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert!(answers[0].starts_with("Error (not run)"), "{answers:?}");
    assert_eq!(answers[2], "6300000");
}

#[tokio::test]
async fn the_call_sent_back_for_a_slip_is_shown_with_the_known_number_in_place() {
    let slipped = json!({"expression": "1400000 + 3800000"});
    let model = ScriptedModel::new()
        .call("1", "add", slipped)
        .text("17800000")
        .text("17800000");
    let (agent, _tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    // The whole call to copy, not only which number to change: told that,
    // the 0.5B model changed the other number.
    assert!(
        answers[0].ends_with(
            "Make the call again with 14000000 in place of 1400000: `14000000 + 3800000`"
        ),
        "{answers:?}"
    );
    // An answer instead of that call is sent back to it.
    let told = told(&outcome);
    assert!(
        told.iter().any(|t| t.contains("Make the call you were shown")
            && t.contains("14000000 + 3800000")),
        "{told:?}"
    );
}
