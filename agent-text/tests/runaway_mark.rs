//! A call that copies the `…` the run writes in place of a cut runaway
//! (a reply that wrote one piece again and again) is told what the mark
//! is, beside the tool's own error, so the model writes the call out.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Budget, StopReason};
use forced::{builtin_agent, call_step as call};

#[tokio::test]
async fn a_call_that_copies_the_mark_of_a_cut_runaway_is_told_what_it_is() {
    // A reply that ran away (its piece written thirty times), then a
    // call that copies the mark the run left in its place.
    let runaway = format!(
        r#"{{"expression": "4.2 * 2.6 * 3{}"}}"#,
        " * 2.6 * 3".repeat(30)
    );
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", &runaway))
            .text(call(
                "calculator",
                r#"{"expression": "4.2 * 2.6 * 3 * 2.6 * 3…"}"#,
            ))
            .text(call("calculator", r#"{"expression": "4.2 * 2.6 * 3"}"#))
            .text("Thought: The area.\nFinal Answer: 32.76"),
    );
    let outcome = builtin_agent(&model, &["calculator"], Budget::default())
        .run("Three walls, each 4.2 m wide and 2.6 m high: what is their area?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(
        told.contains(
            "`…` marks where an earlier reply wrote one piece again and again and was cut; \
             it is no part of a call. Write the call again in full, with each part once."
        ),
        "{told}"
    );
}

#[tokio::test]
async fn a_mark_no_runaway_left_gets_the_tools_error_alone() {
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("calculator", r#"{"expression": "4.2 * 2.6…"}"#))
            .text(call("calculator", r#"{"expression": "4.2 * 2.6"}"#))
            .text("Thought: Done.\nFinal Answer: 10.92"),
    );
    let outcome = builtin_agent(&model, &["calculator"], Budget::default())
        .run("What is 4.2 times 2.6?")
        .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let requests = model.requests();
    let told = &requests[1].messages.last().unwrap().content;
    assert!(told.contains("Error"), "{told}");
    assert!(!told.contains("marks where"), "{told}");
}
