//! A calculator call that names a column instead of its numbers
//! (`sum(notes) / count(notes)`), after a result showed the table: its
//! error shows the call with the column's numbers, through the real
//! `Agent`, the text transport and the built-in tools.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod forced;

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Budget, StopReason};
use forced::{agent_with_files, call_step as call, folder};

fn agent(model: &Arc<ScriptedModel>, dir: &std::path::Path) -> Agent {
    agent_with_files(
        model,
        &["files", "calculator"],
        Budget::default(),
        Some(dir),
    )
}

#[tokio::test]
async fn a_column_named_for_its_numbers_is_shown_with_them() {
    let dir = folder(
        "notes",
        &[("notes.csv", "eleve,note\nA,12\nB,15\nC,9\nD,14\n")],
    );
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("read_file", r#"{"path": "notes.csv"}"#))
            .text(call(
                "calculator",
                r#"{"expression": "sum(notes) / count(notes)"}"#,
            ))
            .text(call(
                "calculator",
                r#"{"expression": "sum(12, 15, 9, 14) / 4"}"#,
            ))
            .text("Thought: done.\nFinal Answer: 12.5"),
    );
    let outcome = agent(&model, dir.path())
        .run("Quelle est la moyenne des notes dans notes.csv ?")
        .await;
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(
        told.contains("unknown name `notes`")
            && told.contains(
                "`notes` is the column `note` shown above, which holds 12, 15, 9, 14: call calculator with `sum(12, 15, 9, 14) / 4`"
            ),
        "{told}"
    );
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("12.5"));
}

#[tokio::test]
async fn a_name_no_table_shown_has_keeps_the_tools_own_error() {
    let dir = folder("none", &[("prices.txt", "The list is empty.\n")]);
    let model = Arc::new(
        ScriptedModel::new()
            .text(call("read_file", r#"{"path": "prices.txt"}"#))
            .text(call("calculator", r#"{"expression": "sum(prices)"}"#))
            .text("Thought: done.\nFinal Answer: I cannot find the prices."),
    );
    agent(&model, dir.path())
        .run("What do the prices add up to?")
        .await;
    let requests = model.requests();
    let told = &requests[2].messages.last().unwrap().content;
    assert!(told.contains("unknown name `prices`"), "{told}");
    assert!(!told.contains("is the column"), "{told}");
}
