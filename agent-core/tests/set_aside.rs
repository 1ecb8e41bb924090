//! `Budget::set_aside_failing_tool`: a call that failed, repeated exactly
//! and failing again, sets its tool aside for one turn: the next request
//! offers the other tools, a call to it in that round is not run, and the
//! turn after offers every tool again.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, Completion, StopReason};
use common::{agent, call, tool_answers};
use serde_json::json;

fn failing(id: &str) -> Completion {
    Completion::tool_calls(vec![call(id, "fail", json!({}))])
}

fn offered(request: &agent_core::CompletionRequest) -> Vec<String> {
    request.tools.iter().map(|t| t.name.clone()).collect()
}

#[tokio::test]
async fn a_tool_whose_repeat_failed_again_is_set_aside_for_one_turn() {
    let model = ScriptedModel::new()
        .reply(failing("c1"))
        .reply(failing("c2"))
        .reply(Completion::tool_calls(vec![call(
            "c3",
            "add",
            json!({"a": 2, "b": 3}),
        )]))
        .text("5");
    let (runner, model) = agent(model, Budget::default());
    let outcome = runner.run("add two and three").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("5"));
    let requests = model.requests();
    assert!(offered(&requests[1]).contains(&"fail".to_string()));
    // After the failed repeat: every tool but `fail`.
    let third = offered(&requests[2]);
    assert!(!third.contains(&"fail".to_string()), "{third:?}");
    assert!(third.contains(&"add".to_string()), "{third:?}");
    // Then all of them again.
    assert_eq!(offered(&requests[3]), offered(&requests[0]));
    let answers = tool_answers(&outcome);
    assert!(
        answers[1]
            .1
            .ends_with("(Note: this exact call failed again. For the next turn, `fail` is set aside: call add, sleep, seq, boom or lookup instead.)"),
        "{answers:?}"
    );
}

#[tokio::test]
async fn a_call_to_the_set_aside_tool_is_not_run_that_turn() {
    let model = ScriptedModel::new()
        .reply(failing("c1"))
        .reply(failing("c2"))
        .reply(failing("c3"))
        .text("I cannot do it.");
    let (runner, _) = agent(model, Budget::default());
    let outcome = runner.run("do it").await;
    let answers = tool_answers(&outcome);
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(
        answers[2].1,
        "Error (not run): `fail` is set aside for this turn, after the same call failed twice; call add, sleep, seq, boom or lookup instead"
    );
    // Two runs of the tool, not three.
    assert_eq!(outcome.tool_calls, 2);
}

#[tokio::test]
async fn turned_off_every_tool_stays_offered() {
    let model = ScriptedModel::new()
        .reply(failing("c1"))
        .reply(failing("c2"))
        .text("I cannot do it.");
    let budget = Budget {
        set_aside_failing_tool: false,
        ..Budget::default()
    };
    let (runner, model) = agent(model, budget);
    let outcome = runner.run("do it").await;
    let requests = model.requests();
    assert_eq!(offered(&requests[2]), offered(&requests[0]));
    let answers = tool_answers(&outcome);
    assert!(
        answers[1].1.contains("Make a different call"),
        "{answers:?}"
    );
}

#[tokio::test]
async fn a_tool_failing_the_same_way_three_times_in_a_row_is_set_aside_whatever_its_arguments() {
    // A model stepping `..`, `../..`, `../../..`: no call repeats, and
    // each fails as the one before.
    let step =
        |id: &str, n: u32| Completion::tool_calls(vec![call(id, "fail", json!({ "up": n }))]);
    let model = ScriptedModel::new()
        .reply(step("c1", 1))
        .reply(step("c2", 2))
        .reply(step("c3", 3))
        .reply(step("c4", 4))
        .reply(Completion::tool_calls(vec![call(
            "c5",
            "add",
            json!({"a": 2, "b": 3}),
        )]))
        .text("5");
    let (runner, model) = agent(model, Budget::default());
    let outcome = runner.run("add two and three").await;
    assert_eq!(outcome.answer.as_deref(), Some("5"));
    let answers = tool_answers(&outcome);
    assert!(!answers[1].1.contains("set aside"), "{answers:?}");
    assert!(
        answers[2]
            .1
            .ends_with("(Note: `fail` failed this way 3 times in a row. For the next turn, it is set aside: call add, sleep, seq, boom or lookup instead.)"),
        "{answers:?}"
    );
    let requests = model.requests();
    assert!(!offered(&requests[3]).contains(&"fail".to_string()));
    assert_eq!(
        answers[3].1,
        "Error (not run): `fail` is set aside for this turn, after 3 calls of it failed in a row; call add, sleep, seq, boom or lookup instead"
    );
    // Three runs of `fail`, then the sum.
    assert_eq!(outcome.tool_calls, 4);
}
