//! A computing call that puts the last result back into the computation
//! that gave it is not run: the model is told what the last call gave,
//! and a model that keeps making it reaches the loop threshold.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::atomic::Ordering;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use common::{grounded_agent, tool_answers};
use serde_json::json;

#[tokio::test]
async fn a_result_fed_back_into_its_own_computation_is_not_run() {
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 1200, "b": 300}))
        .call(
            "2",
            "add",
            json!({"a": 1500, "b": 1500, "c": 1500, "d": 1500}),
        )
        .text("1500");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 300 to the 1200 in stock.").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("1500"));
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 1);
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(answers[0], "1500");
    assert!(
        answers[1].starts_with(
            "Error (not run): `{\"a\":1200,\"b\":300}` gave 1500, and this call puts 1500 back"
        ),
        "{answers:?}"
    );
}

#[tokio::test]
async fn the_next_step_of_a_computation_runs_and_a_stuck_model_reaches_the_loop_threshold() {
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 1200, "b": 300}))
        // The result with a number of the task: the next step, run.
        .call("2", "add", json!({"a": 1500, "b": 1200}))
        // The last call's numbers and its result: fed back, three times.
        .call("3", "add", json!({"a": 1500, "b": 1200, "c": 2700}))
        .call("4", "add", json!({"a": 1500, "b": 1200, "c": 2700}))
        .call("5", "add", json!({"a": 1500, "b": 1200, "c": 2700}))
        .text("2700");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 300 to the 1200 in stock.").await;
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 2);
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("2700"));
}

#[tokio::test]
async fn a_climb_ends_the_work_and_names_what_the_computation_gave_before_it() {
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 100, "b": 5}))
        // The same step on each result: twice may be the next steps of a
        // computation, and runs.
        .call("2", "add", json!({"a": 105, "b": 5}))
        .call("3", "add", json!({"a": 110, "b": 5}))
        // A fourth time in a row: a climb, not run.
        .call("4", "add", json!({"a": 115, "b": 5}))
        .text("105");
    let (agent, tools) = grounded_agent(model, Budget::default());
    let outcome = agent.run("Add 5 to the 100 in stock.").await;
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 3);
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("105"));
    let answers: Vec<String> = tool_answers(&outcome).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        answers[3],
        "Error (not run): `{\"a\":100,\"b\":5}` gave 105, and each call since has taken that same step \
         again on the last result (`{\"a\":110,\"b\":5}` gave 115), which answers nothing new. If 105 \
         answers the question, give it as the final answer; if not, compute what the question asks \
         from the numbers in the question and the results",
        "{answers:?}"
    );
}
