//! A question that asks its answer in a unit (`in Fahrenheit`) and a
//! search result that gives the quantity in another unit of that kind:
//! the result gets a note with the conversion, so the next call
//! computes it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use forced::{builtin_agent, call_step as call};

#[tokio::test]
async fn a_result_in_celsius_for_a_question_in_fahrenheit_is_told_how_to_convert() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("search", r#"{"query": "boiling point of water"}"#))
            .text(call("calculator", r#"{"expression": "100 * 9 / 5 + 32"}"#))
            .text("Thought: Converted.\nFinal Answer: 212 °F"),
    );
    let outcome = builtin_agent(&model, &["search", "calculator"], Budget::default())
        .run("What's the boiling point of H2O at sea level, in Fahrenheit?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("212 °F"));
    let requests = model.requests();
    let told = &requests[1].messages.last().unwrap().content;
    assert!(
        told.contains(
            "(Note: the question asks for degrees Fahrenheit, and this gives degrees Celsius: \
             convert it with calculator (°F = °C × 9 / 5 + 32).)"
        ),
        "{told}"
    );
    let computed = &requests[2].messages.last().unwrap().content;
    assert!(computed.contains("212"), "{computed}");
}

#[tokio::test]
async fn a_question_without_a_unit_gets_no_note() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("search", r#"{"query": "boiling point of water"}"#))
            .text("Thought: Found.\nFinal Answer: 100 degrees Celsius"),
    );
    let outcome = builtin_agent(&model, &["search", "calculator"], Budget::default())
        .run("At what temperature does water boil at sea level?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let requests = model.requests();
    let told = &requests[1].messages.last().unwrap().content;
    assert!(!told.contains("(Note: the question asks for"), "{told}");
}
