//! A computing call that takes the last call's final step again on its
//! result (`410.89 / 36` after `18.490 * (1 - 0.20) / 36`), where the
//! question gives that step's number once, is not run: the model is told
//! the result already has the step in it, and answers with it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use forced::{builtin_agent, call_step as call};

const QUESTION: &str = "Ein Gebrauchtwagen kostet 18.490 €. Ich zahle 20 % an und den Rest in 36 gleichen \
     Monatsraten ohne Zinsen. Wie hoch ist eine Monatsrate?";

#[tokio::test]
async fn the_months_divided_by_twice_are_not_run() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call(
                "calculator",
                r#"{"expression": "18.490 * (1 - 0.20) / 36"}"#,
            ))
            .text(call("calculator", r#"{"expression": "410.89 / 36"}"#))
            .text("Thought: It is the rate.\nFinal Answer: 410,89 €"),
    );
    let outcome = builtin_agent(&model, &["calculator"], Budget::default())
        .run(QUESTION)
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("410,89 €"));
    assert_eq!(outcome.tool_calls, 1);
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(
        told.contains(
            "Error (not run): `18490 * (1 - 0.20) / 36` gave 410.888888889, which has `/ 36` in it already, \
             and this call takes `/ 36` again on it."
        ),
        "{told}"
    );
}

#[tokio::test]
async fn a_step_the_question_does_not_give_runs_again() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", r#"{"expression": "5000 * 1.03"}"#))
            .text(call("calculator", r#"{"expression": "5150 * 1.03"}"#))
            .text("Thought: Two years.\nFinal Answer: 5304.5"),
    );
    let outcome = builtin_agent(&model, &["calculator"], Budget::default())
        .run("I save 5000 at 3% a year. How much after 2 years?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 2);
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(told.starts_with("Observation: ```\n5304.5"), "{told}");
}

#[tokio::test]
async fn a_percentage_divided_by_the_base_again_is_not_run() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", r#"{"expression": "16932 - 13600"}"#))
            .text(call(
                "calculator",
                r#"{"expression": "3332 / 13600 * 100"}"#,
            ))
            .text(call(
                "calculator",
                r#"{"expression": "24.5 / 13600 * 100"}"#,
            ))
            .text("Thought: It grew so.\nFinal Answer: 24.5%"),
    );
    let outcome = builtin_agent(&model, &["calculator"], Budget::default())
        .run("Our newsletter went from 13,600 subscribers to 16,932 this quarter. By what percentage did it grow?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("24.5%"));
    assert_eq!(outcome.tool_calls, 2);
    let requests = model.requests();
    let told = &requests[3].messages.last().unwrap().content;
    assert!(
        told.contains("`3332 / 13600 * 100` gave 24.5, which has `/ 13600 * 100` in it already"),
        "{told}"
    );
}
