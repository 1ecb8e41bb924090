//! A question that asks for a count of decimals: each computed result
//! with more decimals gets a note with it rounded as asked, and an
//! answer that writes it so stands.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use forced::{builtin_agent, call_step as call};

#[tokio::test]
async fn a_result_is_shown_rounded_as_the_question_asks() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call(
                "calculator",
                r#"{"expression": "14000000 / 124000000 * 100"}"#,
            ))
            .text("Thought: It is shown.\nFinal Answer: 11.3%"),
    );
    let outcome = builtin_agent(&model, &["calculator"], Budget::default())
        .run(
            "Tokyo has 14,000,000 people and Japan 124,000,000. What percent is that? One decimal.",
        )
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("11.3%"));
    let requests = model.requests();
    let told = &requests[1].messages.last().unwrap().content;
    assert!(
        told.contains(
            "11.2903225806 (to 2 decimals: 11.29)\n(To 1 decimal, as the question asks: 11.3.)"
        ),
        "{told}"
    );
}

#[tokio::test]
async fn a_question_that_asks_no_decimals_gets_no_note() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", r#"{"expression": "100 / 3"}"#))
            .text("Thought: done\nFinal Answer: 33.33"),
    );
    let outcome = builtin_agent(&model, &["calculator"], Budget::default())
        .run("What is 100 divided by 3?")
        .await;
    let requests = model.requests();
    let told = &requests[1].messages.last().unwrap().content;
    assert!(!told.contains("as the question asks"), "{told}");
    assert_eq!(outcome.answer.as_deref(), Some("33.33"));
}
