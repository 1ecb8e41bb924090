//! The answer turn's compute round: an answer holding a number no tool
//! gave (a sum done in the model's head) may call the computing tools
//! once, then the answer is asked for again; what it may not do.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use agent_core::run::{Run, RunConfig, Step};
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::tool::Observation;
use agent_core::{Agent, Budget, Completion, StopReason, Toolbox};
use common::{GroundedAdd, TestTools, call, told, tool_answers};
use serde_json::json;

/// An agent with the grounded adder, and its model and tools to inspect.
fn agent(model: ScriptedModel, budget: Budget) -> (Agent, Arc<ScriptedModel>, TestTools) {
    let model = Arc::new(model);
    let tools = TestTools::new();
    let agent = Agent::builder()
        .model(model.clone())
        .transport(TestTransport)
        .toolbox(GroundedAdd(tools.clone()))
        .budget(budget)
        .build()
        .unwrap();
    (agent, model, tools)
}

/// Adds 4127 and 300, repeats the call, and on the answer turn adds 300
/// again in its head.
fn head_sum() -> ScriptedModel {
    ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 300}))
        .call("2", "add", json!({"a": 4127, "b": 300}))
        .text("4727")
}

const TASK: &str = "Add 300 to 4127, then 300 more.";

#[tokio::test]
async fn an_answer_with_a_number_no_tool_gave_may_compute_once_then_answers() {
    // The head sum was wrong: the compute round's result is not the
    // answer's number, so the answer is asked for again.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 300}))
        .call("2", "add", json!({"a": 4127, "b": 300}))
        .text("4700")
        .call("3", "add", json!({"a": 4427, "b": 300}))
        .text("4727");
    let (agent, model, tools) = agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("4727"));
    // Call, repeat, answer, compute, answer; the compute call ran.
    assert_eq!((outcome.steps, outcome.tool_calls), (5, 2));
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 2);
    let told = told(&outcome);
    let offer = told
        .iter()
        .find(|m| m.contains("4700 which is in no tool result"))
        .expect("the compute round names the number");
    assert!(
        offer.contains("If it is worked out from the results, compute it with add now"),
        "{offer}"
    );
    assert_eq!(tool_answers(&outcome).last().unwrap().1, "4727");
    // The compute turn offers the computing tool only; the answer turns
    // before and after it offer none.
    let requests = model.requests();
    let offered: Vec<Vec<&str>> = requests[2..]
        .iter()
        .map(|r| r.tools.iter().map(|t| t.name.as_str()).collect())
        .collect();
    assert_eq!(offered, vec![vec![], vec!["add"], vec![]]);
}

#[tokio::test]
async fn an_answer_the_compute_round_confirms_stands_without_asking_again() {
    // Worked out right in the head: the call computes the same number,
    // and that answer stands; the model is not asked a third time.
    let model = head_sum()
        .call("3", "add", json!({"a": 4427, "b": 300}))
        .text("4427");
    let (agent, model, _) = agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert!(outcome.forced_answer);
    assert_eq!(outcome.answer.as_deref(), Some("4727"));
    assert_eq!((outcome.steps, outcome.tool_calls), (4, 2));
    assert_eq!(model.remaining(), 1);
}

#[tokio::test]
async fn an_answer_on_the_compute_turn_stands() {
    let (agent, _, tools) = agent(head_sum().text("4700"), Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.answer.as_deref(), Some("4700"));
    assert_eq!((outcome.steps, outcome.tool_calls), (4, 1));
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_compute_round_runs_no_lookup() {
    let model = head_sum()
        .call("3", "lookup", json!({"q": "stock"}))
        .text("4727")
        .text("4727");
    let (agent, model, tools) = agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.answer.as_deref(), Some("4727"));
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert_eq!(model.remaining(), 0);
    assert_eq!(tools.probe.calls.load(Ordering::SeqCst), 1);
    let (_, skipped) = tool_answers(&outcome).last().unwrap().clone();
    assert_eq!(
        skipped,
        "Error (not run): no more lookups are possible; only add can be called now"
    );
    // Still a number no tool gave: asked once more, in words.
    assert_eq!(outcome.steps, 6);
    assert!(
        told(&outcome)
            .last()
            .unwrap()
            .contains("answer only with what the results show")
    );
}

#[tokio::test]
async fn without_steps_for_it_the_answer_is_asked_again_in_words() {
    // Call, repeat, answer at step 3 of 4: one step left, no room for a
    // compute turn and the answer after it.
    let budget = Budget {
        max_steps: 4,
        ..Budget::default()
    };
    let (agent, model, _) = agent(head_sum().text("4727"), budget);
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.steps, 4);
    assert!(
        told(&outcome)
            .last()
            .unwrap()
            .contains("answer only with what the results show"),
        "{:?}",
        told(&outcome)
    );
    assert!(model.requests().iter().skip(2).all(|r| r.tools.is_empty()));
}

#[tokio::test]
async fn a_grounded_answer_gets_no_compute_round() {
    let (agent, model, _) = agent(
        ScriptedModel::new()
            .call("1", "add", json!({"a": 4127, "b": 300}))
            .call("2", "add", json!({"a": 4127, "b": 300}))
            .text("4427"),
        Budget::default(),
    );
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.answer.as_deref(), Some("4427"));
    assert_eq!(outcome.steps, 3);
    assert_eq!(model.remaining(), 0);
}

#[tokio::test]
async fn false_arithmetic_on_the_answer_turn_is_named_in_the_compute_round() {
    // 4427 is in a result, but the sum claimed beside it does not hold.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 300}))
        .call("2", "add", json!({"a": 4127, "b": 300}))
        .text("4427 + 300 = 4827, so 4427")
        .call("3", "add", json!({"a": 4427, "b": 300}))
        .text("4727");
    let (agent, _, _) = agent(model, Budget::default());
    let outcome = agent.run(TASK).await;
    assert_eq!(outcome.answer.as_deref(), Some("4727"));
    let told = told(&outcome);
    assert!(
        told.iter()
            .any(|m| m.starts_with("Error: 4427 + 300 is not 4827. Compute it with add")),
        "{told:?}"
    );
}

#[test]
fn a_run_stored_in_its_compute_round_resumes_there() {
    let tools = GroundedAdd(TestTools::new());
    let mut config = RunConfig::new(TestTransport);
    config.tools = tools.specs();
    config.grounded_tools = vec!["add".into()];
    let mut run = Run::new(TASK, Vec::new(), config, 0).unwrap();
    let script = [
        Completion::tool_calls(vec![call("1", "add", json!({"a": 4127, "b": 300}))]),
        Completion::tool_calls(vec![call("2", "add", json!({"a": 4127, "b": 300}))]),
        Completion::text("4727"),
        Completion::tool_calls(vec![call("3", "add", json!({"a": 4427, "b": 300}))]),
    ];
    let mut script = script.into_iter();
    let calls = loop {
        match run.next_step(1).unwrap() {
            Step::CallModel(_) => {
                run.model_turn(script.next().unwrap(), 1).unwrap();
            }
            Step::CallTools(calls) if calls[0].id == "3" => break calls,
            Step::CallTools(calls) => {
                let results = calls
                    .iter()
                    .map(|c| Observation::ok(c, "4427".into()))
                    .collect();
                run.tool_results(results, 1).unwrap();
            }
            Step::Done(outcome) => panic!("done too early: {outcome:?}"),
        }
    };
    let stored = run.to_json().unwrap();
    let mut run = Run::from_json(&stored, Arc::new(TestTransport), Default::default()).unwrap();
    // The round's result confirms the answer it was offered for.
    run.tool_results(vec![Observation::ok(&calls[0], "4727".into())], 2)
        .unwrap();
    let Step::Done(outcome) = run.next_step(2).unwrap() else {
        panic!("the answer stands");
    };
    assert_eq!(outcome.answer.as_deref(), Some("4727"));
    assert_eq!(outcome.stop_reason, StopReason::RepeatedCall);
    assert_eq!(outcome.steps, 4);
}

#[tokio::test]
async fn an_answer_that_echoes_the_loops_own_words_is_none() {
    // The model copies the request for the answer, then the retry's
    // error: neither becomes the outcome's answer.
    let model = ScriptedModel::new()
        .call("1", "add", json!({"a": 4127, "b": 300}))
        .call("2", "add", json!({"a": 4127, "b": 300}))
        .text("Answer from the tool results above, without calling tools.")
        .text("4427");
    let (runner, _, _) = agent(model, Budget::default());
    let outcome = runner.run(TASK).await;
    assert_eq!(outcome.answer.as_deref(), Some("4427"));
    let told = told(&outcome);
    assert!(
        told.last()
            .unwrap()
            .starts_with("Error: that reply repeats a message you were given"),
        "{told:?}"
    );
    // Twice: the run ends with no answer rather than the echo. (With
    // no tool set aside, the repeats that found nothing go on to loop
    // detection.)
    let model = ScriptedModel::new()
        .call("1", "lookup", json!({"q": "stock"}))
        .call("2", "lookup", json!({"q": "stock"}))
        .call("3", "lookup", json!({"q": "stock"}))
        .text("You already made this exact call, and again it gave nothing to answer with.")
        .text(
            "The tool calls above found nothing about this question. Reply without calling tools.",
        );
    let budget = Budget {
        set_aside_failing_tool: false,
        ..Budget::default()
    };
    let (runner, _, _) = agent(model, budget);
    let outcome = runner.run("Look up the stock.").await;
    assert_eq!(outcome.stop_reason, StopReason::LoopDetected);
    assert_eq!(outcome.answer, None, "{outcome:?}");
    // A tool's own error is not the loop's words: passing it on answers.
    let model = ScriptedModel::new()
        .call("1", "fail", json!({}))
        .call("2", "add", json!({"a": 1, "b": 1}))
        .text("Error (tool failed): the service said no, so I cannot ask it.");
    let (runner, _, _) = agent(model, Budget::default());
    let outcome = runner.run("Ask the service.").await;
    assert_eq!(
        outcome.answer.as_deref(),
        Some("Error (tool failed): the service said no, so I cannot ask it.")
    );
}
