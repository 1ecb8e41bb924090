//! Calculator calls sent back for their numbers, through the real
//! `Agent`, the text transport and the built-in tools: a call that uses a
//! sum the model worked out in its thought (`a + b + c = X`, then `X / 3`)
//! is told the arithmetic and the call to make with it in the sum's
//! place, and the model that makes that call gets the right result; a
//! call that computes with the line numbers of a file it read is told
//! they are line numbers; an answer on a false sum is told the call that
//! computes it, and an answer on the head sum the call it was shown; the
//! same step taken a fourth time in a row on its own result ends the
//! work.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use agent_core::message::Role;
use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Budget, StopReason};
use agent_text::TextTransport;
use agent_tools::builtin;

const QUESTION: &str = "What is the average population of Paris, Berlin and Rome?";
const SEARCH: &str = "Thought: I need their populations.\nAction: search\nAction Input: {\"query\": \"population of Paris, Berlin, Rome\"}";
// 2,100,000 + 3,800,000 + 2,750,000 is 8,650,000, not 9,650,000.
const HEAD_SUM: &str = "Thought: The sum is 2,100,000 + 3,800,000 + 2,750,000 = 9,650,000.\nAction: calculator\nAction Input: {\"expression\": \"9650000 / 3\"}";
const TOLD_CALL: &str = "Thought: Let the calculator add them.\nAction: calculator\nAction Input: {\"expression\": \"(2100000 + 3800000 + 2750000) / 3\"}";
const ANSWER: &str = "Thought: The calculator gave the average.\nFinal Answer: 2883333.33";

fn agent(model: &Arc<ScriptedModel>) -> Agent {
    agent_in(model, &["search", "calculator"], None)
}

fn agent_in(model: &Arc<ScriptedModel>, groups: &[&str], dir: Option<&Path>) -> Agent {
    Agent::builder()
        .model(Arc::clone(model))
        .transport(TextTransport::new())
        .toolbox(builtin::registry(groups, dir, true).unwrap().allow_all())
        .budget(Budget::default())
        .build()
        .unwrap()
}

fn observations(outcome: &agent_core::Outcome) -> Vec<String> {
    outcome
        .transcript
        .iter()
        .filter(|m| m.role != Role::Assistant && m.content.starts_with("Observation"))
        .map(|m| m.content.clone())
        .collect()
}

#[tokio::test]
async fn a_sum_worked_out_in_the_thought_goes_back_to_the_calculator_as_arithmetic() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(SEARCH)
            .text(HEAD_SUM)
            .text(TOLD_CALL)
            .text(ANSWER),
    );
    let outcome = agent(&model).run(QUESTION).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let seen = observations(&outcome);
    assert!(
        seen[1].contains(
            "9650000 is not in the question or in any tool result: you worked out 9650000 as `2100000 + 3800000 + 2750000` in your head. \
             Let calculator do that arithmetic: call it with `(2100000 + 3800000 + 2750000) / 3`"
        ),
        "{seen:?}"
    );
    // The call it names runs and gives the right average.
    assert!(seen[2].contains("2883333.33"), "{seen:?}");
    assert_eq!(outcome.tool_calls, 2);
}

#[tokio::test]
async fn a_made_up_number_with_no_arithmetic_behind_it_is_sent_to_look_it_up() {
    let guessed = "Thought: Together they have about 9,650,000 people.\nAction: calculator\nAction Input: {\"expression\": \"9650000 / 3\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(SEARCH)
            .text(guessed)
            .text(TOLD_CALL)
            .text(ANSWER),
    );
    let outcome = agent(&model).run(QUESTION).await;
    let seen = observations(&outcome);
    assert!(
        seen[1].contains("9650000 is not in the question or in any tool result. Look up the facts the question needs with search first"),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_sum_of_line_numbers_is_sent_back_as_line_numbers() {
    let dir = tempfile::Builder::new()
        .prefix("agentloop-gutter-")
        .tempdir()
        .unwrap();
    std::fs::write(
        dir.path().join("trip.yaml"),
        "trip: summer\nstops:\n  - city: Parigi\n    nights: 7\n  - city: Roma\n    nights: 9\n",
    )
    .unwrap();
    let read = "Thought: read the trip\nAction: read_file\nAction Input: {\"path\": \"trip.yaml\"}";
    // Lines 3 and 5 hold the cities: not their populations.
    let lines = "Thought: add them\nAction: calculator\nAction Input: {\"expression\": \"3 + 5\"}";
    let nights =
        "Thought: add the nights\nAction: calculator\nAction Input: {\"expression\": \"7 + 9\"}";
    let model = Arc::new(
        ScriptedModel::new()
            .text(read)
            .text(lines)
            .text(nights)
            .text("Thought: done\nFinal Answer: 16 nights"),
    );
    let outcome = agent_in(&model, &["files", "search", "calculator"], Some(dir.path()))
        .run("How many nights is the trip?")
        .await;
    let seen = observations(&outcome);
    assert!(
        seen[1].contains(
            "3, 5 are line numbers of the results, where a line is, not a value in it. Compute with the values the lines hold"
        ),
        "{seen:?}"
    );
    // The values the file holds run.
    assert!(seen[2].ends_with("16\n```"), "{seen:?}");
    assert_eq!(outcome.tool_calls, 2);
}

#[tokio::test]
async fn an_answer_on_a_false_sum_is_told_the_call_that_computes_it() {
    let model = Arc::new(
        ScriptedModel::new()
            .text("Thought: 512 + 768 + 2048 = 4608\nFinal Answer: 4608")
            .text("Thought: compute it\nAction: calculator\nAction Input: {\"expression\": \"512 + 768 + 2048\"}")
            .text("Thought: the calculator says it\nFinal Answer: 3328"),
    );
    let outcome = agent(&model)
        .run("The services use 512 MiB, 768 MiB and 2048 MiB. How much is that together?")
        .await;
    assert_eq!(outcome.answer.as_deref(), Some("3328"));
    let seen = observations(&outcome);
    assert!(
        seen[0].contains(
            "512 + 768 + 2048 is not 4608. Compute it: call calculator with {\"expression\":\"512 + 768 + 2048\"}, then give the final answer"
        ),
        "{seen:?}"
    );
}

#[tokio::test]
async fn an_answer_on_the_head_sum_after_the_call_was_shown_must_make_that_call() {
    // The model answers with the quarter of its wrong head sum instead of
    // making the call it was shown.
    let model = Arc::new(
        ScriptedModel::new()
            .text(SEARCH)
            .text(HEAD_SUM)
            .text("Thought: The average is 3,216,666.67.\nFinal Answer: 3,216,666.67")
            .text(TOLD_CALL)
            .text(ANSWER),
    );
    let outcome = agent(&model).run(QUESTION).await;
    assert_eq!(outcome.answer.as_deref(), Some("2883333.33"));
    assert!(outcome.ungrounded_numbers.is_empty());
    let requests = model.requests();
    let told = &requests[3].messages.last().unwrap().content;
    assert!(
        told.contains(
            "3,216,666.67 is in no tool result: nothing has computed it yet. Make the call you were shown: \
             call calculator with {\"expression\":\"(2100000 + 3800000 + 2750000) / 3\"}, then give the final answer"
        ),
        "{told}"
    );
    // That turn must call the calculator: its grammar has no final answer.
    let forced = &requests[3].constraint.as_ref().unwrap().grammar;
    assert!(
        forced.contains("\"calculator\\nAction Input: \"") && !forced.contains("Final Answer"),
        "{forced}"
    );
}

#[tokio::test]
async fn a_shown_call_is_not_forced_once_a_computing_call_gave_a_result() {
    // The model made another computing call that ran; its answer's
    // number is then sent back the usual way, with no forced turn.
    let model = Arc::new(
        ScriptedModel::new()
            .text(SEARCH)
            .text(HEAD_SUM)
            .text("Thought: add them\nAction: calculator\nAction Input: {\"expression\": \"2100000 + 3800000 + 2750000\"}")
            .text("Thought: The average is 3,216,666.67.\nFinal Answer: 3,216,666.67")
            .text(TOLD_CALL)
            .text(ANSWER),
    );
    let outcome = agent(&model).run(QUESTION).await;
    let requests = model.requests();
    let told = &requests[4].messages.last().unwrap().content;
    assert!(
        told.contains("3,216,666.67 is in no tool result. Work it out with calculator"),
        "{told}"
    );
    let next = &requests[4].constraint.as_ref().unwrap().grammar;
    assert!(next.contains("Final Answer"), "{next}");
    assert_eq!(outcome.answer.as_deref(), Some("2883333.33"));
}

#[tokio::test]
async fn the_same_step_taken_a_fourth_time_on_its_own_result_ends_the_work_for_an_answer() {
    let step = |expression: &str| {
        format!(
            "Thought: convert it\nAction: calculator\nAction Input: {{\"expression\": \"{expression}\"}}"
        )
    };
    let model = Arc::new(
        ScriptedModel::new()
            .text("Thought: look it up\nAction: search\nAction Input: {\"query\": \"distance from the Moon to the Earth\"}")
            .text(step("384400 * 1000"))
            .text(step("384400000 * 1000"))
            .text(step("384400000000 * 1000"))
            .text(step("384400000000000 * 1000"))
            .text("Thought: the search says it\nFinal Answer: about 384,400 km"),
    );
    let outcome = agent(&model)
        .run("Roughly how far is the Moon from the Earth, on average?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("about 384,400 km"));
    // The step taken again twice ran (the next steps of a computation
    // may take it); the fourth time was not run.
    assert_eq!(outcome.tool_calls, 4);
    let seen = observations(&outcome);
    assert!(
        seen[4].contains(
            "`384400 * 1000` gave 384400000, and each call since has taken that same step again on the last \
             result (`384400000000 * 1000` gave 384400000000000)"
        ),
        "{seen:?}"
    );
}
